#!/usr/bin/env bash
# Benchmark (not a test): merging 4 shard databases of 250,000 synthetic tracks each, with 2 KB of frames per
# track, into one; prints the merge's wall time and peak memory. Then the shard balance of a skewed library:
# the largest shard's audio hours over the mean, when files are split by the hash of their path.
#   scripts/bench-merge.sh [TRACKS_PER_SHARD] [SHARDS]
set -euo pipefail
cd "$(dirname "$0")/.."
PER=${1:-250000} SHARDS=${2:-4}
command -v /usr/bin/time >/dev/null || { echo "needs GNU time (apt-get install time)" >&2; exit 1; }
swift build -c release 2>&1 | tail -n 1
BIN=$PWD/.build/release/spindle
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/music"
for k in $(seq 1 "$SHARDS"); do
  "$BIN" --db "$WORK/shard$k.db" --library "$WORK/music" scan >/dev/null
  python3 - "$WORK/shard$k.db" "$k" "$PER" <<'PY'
import os, re, sqlite3, sys
path, k, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
db = sqlite3.connect(path)
db.create_function("spindle_path_words", 1, lambda p: " ".join(re.findall(r"\w+", p.lower())))
frames = os.urandom(2048)
with db:
    db.executemany("""INSERT INTO files (root_id, path, name, size, mtime_ns, content_key, status, first_seen_at, changed_at)
                      VALUES (1, ?, ?, 5000000, 0, ?, 'present', '2026-11-23', '2026-11-23')""",
                   ((f"Artist {i % 5000}/Album {i % 997}/{k}-{i}.flac", f"{k}-{i}.flac", f"{k}:{i}") for i in range(per)))
    db.execute("""INSERT INTO analysis (file_id, content_key, analyzer_version, analyzer_versions, analyzed_at, status, bpm,
                  lufs_integrated, frames_fps, frames_bands, frames_count)
                  SELECT id, content_key, 3, '{"frames":1,"loudness":1,"silence":1,"tempo":1}', '2026-11-23', 'ok', 120, -9, 30, 32, 64
                  FROM files""")
    db.execute("INSERT INTO vis_frames (file_id, fps, bands, count, data) SELECT id, 30, 32, 64, ? FROM files", (frames,))
db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
PY
done
echo "shards: $SHARDS × $PER tracks, $(du -ch "$WORK"/shard*.db | tail -1 | cut -f1) on disk"
/usr/bin/time -f "merge: %e s wall, peak RSS %M KB" "$BIN" merge --quiet "$WORK"/shard*.db --into "$WORK/merged.db" >/dev/null
python3 - "$WORK/merged.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
print("merged:", db.execute("SELECT COUNT(*) FROM files").fetchone()[0], "files,",
      db.execute("SELECT COUNT(*) FROM vis_frames").fetchone()[0], "frame sets; integrity:", db.execute("PRAGMA integrity_check").fetchone()[0])
PY
python3 - <<'PY'
# Shard balance on a skewed library: 100,000 tracks, log-normal lengths around 4 minutes, plus 1% of
# 1-3 hour mixes and audiobooks grouped in a few folders. The split is Spindle's: FNV-1a 64 of the path, mod N.
import math, random
random.seed(7)
def key(p):
    h = 0xcbf29ce484222325
    for b in p.encode():
        h ^= b
        h = (h * 0x100000001b3) & (2**64 - 1)
    return h
tracks = []
for i in range(100_000):
    if i % 100 == 0:
        tracks.append((f"Mixes/Set {i // 100}/part.flac", random.uniform(3600, 10800)))
    else:
        tracks.append((f"Artist {i % 3000}/Album {i % 700}/{i:06d}.flac", random.lognormvariate(math.log(240), 0.35)))
for n in (4, 16, 64):
    hours = [0.0] * n
    for path, seconds in tracks:
        hours[key(path) % n] += seconds / 3600
    print(f"balance, {n} shards: largest {max(hours):.0f} h over a mean of {sum(hours) / n:.0f} h = {max(hours) / (sum(hours) / n):.3f}")
PY
