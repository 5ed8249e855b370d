#!/usr/bin/env bash
# Benchmark (not a test) of `spindle serve` on loopback, against a database Spindle built itself:
#   1. a library of TRACKS one-second WAV files (hard links of a few files, so it costs no space) plus a
#      4-minute track, scanned and analysed by `spindle analyze`;
#   2. profile lookups at RATE requests/s (wrk, Poisson arrivals, random paths, 1 in 10 given as a player's
#      container path /music/...) for SECONDS, with the bearer token on: first alone, then while
#      `spindle analyze --force` rewrites every row of the same database;
#   3. the 4-minute track's frames, as JSON and as bytes (curl, 200 requests each);
#   4. bad input against the same server, which must answer each with a JSON error and keep serving.
# Prints requests/s, latency percentiles and errors for each phase. Targets (issue 15): p99 < 10 ms and no
# errors at 1,000 requests/s with and without the writer; frames under 20 ms.
#   scripts/bench-serve.sh [TRACKS] [SECONDS] [RATE]
# RATE is what wrk is asked for (1,050 by default: its millisecond timers and the latency itself lose a few
# percent); the rate printed is what was achieved.
set -euo pipefail
cd "$(dirname "$0")/.."
TRACKS=${1:-100000} SECONDS_EACH=${2:-30} RATE=${3:-1050}
. scripts/bench-common.sh
DB=$WORK/spindle.db
export SPINDLE_DB=$DB MUSIC_DIR=$WORK/music

# 1. The library: hard links of one-second chords, under 500 artists; one 4-minute track for frames.
python3 - "$WORK" "$TRACKS" <<'PY'
import math, os, struct, sys, urllib.parse, wave
work, n = sys.argv[1], int(sys.argv[2])
def write(path, seconds, rate, sample):
    with wave.open(path, "wb") as w:
        w.setnchannels(1); w.setsampwidth(2); w.setframerate(rate)
        w.writeframes(b"".join(struct.pack("<h", sample(i / rate)) for i in range(int(seconds * rate))))
# Several seeds, each a different chord: ext4 allows 65,000 links to one file.
seeds = max(4, -(-n // 50000))
for s in range(seeds):
    f = 220 * 2 ** (s / 12)
    write(f"{work}/seed{s}.wav", 1, 22050, lambda t: int(6000 * (math.sin(2 * math.pi * f * t) + math.sin(2 * math.pi * 1.5 * f * t))))
os.makedirs(f"{work}/music/Long", exist_ok=True)
# Four minutes of a pulsing chord whose pitch drifts, so every band of every frame moves.
write(f"{work}/music/Long/Four Minutes.wav", 240, 22050, lambda t: int(9000 * (0.6 + 0.4 * math.sin(2 * math.pi * 2 * t))
      * math.sin(2 * math.pi * (110 + 40 * math.sin(t / 7)) * t + math.sin(2 * math.pi * 3 * t))))
with open(f"{work}/paths.txt", "w") as out:
    for i in range(n):
        folder = f"Artist {i % 500}/Album {i // 500 % 20}"
        os.makedirs(f"{work}/music/{folder}", exist_ok=True)
        rel = f"{folder}/{i:06d} Track {i}.wav"
        os.link(f"{work}/seed{i % seeds}.wav", f"{work}/music/{rel}")
        asked = f"/music/{rel}" if i % 10 == 0 else rel
        out.write(urllib.parse.quote(asked, safe="") + "\n")
PY
START=$SECONDS
"$BIN" --quiet analyze >/dev/null
echo "library: $TRACKS tracks + one of 4 minutes, scanned and analysed in $((SECONDS - START)) s; database $(du -h "$DB" | cut -f1)"

# 2. The server, on a free port, with a token.
serve_in_background
echo "server: pid $SERVER on $URL"

# Each connection waits a random (exponential) time between requests, so arrivals are Poisson at RATE.
CONNECTIONS=32
cat > "$WORK/profiles.lua" <<LUA
local paths = {}
local mean_ms = $CONNECTIONS * 1000 / $RATE
function init(args)
  for line in io.lines("$WORK/paths.txt") do paths[#paths + 1] = line end
  math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16) % 100000)
end
function request()
  return wrk.format("GET", "/smart-dj/profile?relative_path=" .. paths[math.random(#paths)])
end
function delay() return math.floor(-mean_ms * math.log(1 - math.random())) end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("  %.0f requests/s over %.1f s (%d requests); latency p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, max %.2f ms; errors: %d (status %d, connect %d, read %d, write %d, timeout %d)\n",
    summary.requests / (summary.duration / 1e6), summary.duration / 1e6, summary.requests,
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000,
    latency:percentile(99.9) / 1000, latency.max / 1000,
    e.status + e.connect + e.read + e.write + e.timeout, e.status, e.connect, e.read, e.write, e.timeout))
end
LUA
load() { wrk -t 2 -c "$CONNECTIONS" -d "${1}s" --timeout 2s -H "$AUTH" -s "$WORK/profiles.lua" "$URL" | tail -n 1; }

load 3 >/dev/null  # warm the page cache and the pool
echo "profiles, no writer (target $RATE/s):"
load "$SECONDS_EACH"

# Analysis rows written since the newest run (the force run) started.
rewritten() {
  python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT COUNT(*) FROM analysis WHERE analyzed_at >= (SELECT started_at FROM runs ORDER BY id DESC LIMIT 1)').fetchone()[0])" "$DB"
}
"$BIN" --quiet analyze --force > "$WORK/force.log" 2>&1 &
WRITER=$!
sleep 2
BEFORE=$(rewritten)
echo "profiles, while analyze --force rewrites the database (target $RATE/s):"
load "$SECONDS_EACH"
AFTER=$(rewritten)
if kill -0 "$WRITER" 2>/dev/null; then
  echo "  analyze --force wrote $((AFTER - BEFORE)) analysis rows during the measurement and was still running at its end"
else
  echo "  WARNING: analyze --force ended before the measurement did ($((AFTER - BEFORE)) rows written meanwhile)"
fi
wait "$WRITER" || true

# 3. Frames of the 4-minute track.
FRAMES="$URL/visualizer/frames?relative_path=Long%2FFour%20Minutes.wav"
frames() {  # frames QUERY-SUFFIX LABEL
  local size
  size=$(curl -s -H "$AUTH" "$FRAMES$1" | wc -c)
  for _ in $(seq 1 200); do
    curl -s -o /dev/null -w "%{time_total}\n" -H "$AUTH" "$FRAMES$1"
  done | sort -n | awk -v what="$2" -v size="$size" '{ t[NR] = $1 * 1000 } END {
    printf "  %s (%s bytes): p50 %.2f ms, p99 %.2f ms, max %.2f ms over %d requests\n", what, size, t[int(NR * 0.5)], t[int(NR * 0.99)], t[NR], NR }'
}
echo "frames of a 4-minute track:"
frames "" "JSON"
frames "&format=bytes" "bytes"

# 4. Bad input: each gets a JSON error, and the server still answers afterwards.
echo "bad input:"
probe() {  # probe LABEL CURL-ARGS...
  local label=$1; shift
  local status
  status=$(curl -s -o "$WORK/body" -w "%{http_code}" "$@" || true)
  printf "  %-40s %s %s\n" "$label" "$status" "$(head -c 110 "$WORK/body" | tr -d '\n')"
}
P="$URL/smart-dj/profile?relative_path="
probe "parent path (..)" -H "$AUTH" "${P}..%2F..%2Fetc%2Fpasswd"
probe "absolute path outside the root" -H "$AUTH" "${P}%2Fetc%2Fpasswd"
probe "encoded traversal (%2e%2e%2f)" -H "$AUTH" "${P}%2e%2e%2f%2e%2e%2fetc%2fpasswd"
probe "NUL byte" -H "$AUTH" "${P}a%00b.wav"
probe "invalid UTF-8 (%ff)" -H "$AUTH" "${P}%ff.wav"
python3 -c "import sys; print('[' + ','.join('\"Artist 1/Album 1/%06d Track %d.wav\"' % (i, i) for i in range(10000)) + ']')" > "$WORK/many.json"
probe "10,000 paths in one bulk POST" -H "$AUTH" -H "Content-Type: application/json" --data-binary @"$WORK/many.json" "$URL/smart-dj/bulk-profiles"
# Too long for curl's command line: sent by Python instead.
python3 - "${URL##*:}" "$(cat "$WORK/token")" > "$WORK/long" <<'PY'
import http.client, sys
c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=10)
c.request("GET", "/smart-dj/profile?relative_path=" + "x" * 1048576, headers={"Authorization": "Bearer " + sys.argv[2]})
r = c.getresponse()
print(r.status, r.read().decode()[:110])
PY
printf "  %-40s %s\n" "1 MB query string" "$(cat "$WORK/long")"
probe "no token" "${P}Long%2FFour%20Minutes.wav"
probe "wrong token" -H "Authorization: Bearer nope" "${P}Long%2FFour%20Minutes.wav"
# A database locked by another process is 503 too: tests/ServerTests cover it, since a process cannot take an
# exclusive lock on a WAL database while the server's readers hold its shared memory.
mv "$DB" "$DB.away"
probe "database missing" -H "$AUTH" "${P}Long%2FFour%20Minutes.wav"
mv "$DB.away" "$DB"
sleep 1.1  # the server retries opening at most once a second
probe "database back: still serving" -H "$AUTH" "${P}Long%2FFour%20Minutes.wav"
echo "server peak memory: $(grep VmHWM /proc/$SERVER/status | awk '{ printf "%.0f MB", $2 / 1024 }')"
