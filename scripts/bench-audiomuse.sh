#!/usr/bin/env bash
# Benchmark (not a test) of the AudioMuse-AI API of `spindle serve` on loopback, on the synthetic library of
# `spindle bench --sonic` (TRACKS feature vectors around 16 centres, 5,000 artists), kept with Navidrome and
# Jellyfin ids for every track:
#   1. /api/similar_tracks n=100 (random Navidrome ids), one client after another: latency percentiles;
#   2. /api/find_path of 25 steps between random tracks, one client after another;
#   3. 50 clients at once for SECONDS, asking similar_tracks, find_path and similar_artists in turn: errors.
# Targets (issue 62): similar_tracks n=100 p99 < 50 ms, find_path p99 < 200 ms, no error under 50 clients.
#   scripts/bench-audiomuse.sh [TRACKS] [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
TRACKS=${1:-100000} SECONDS_EACH=${2:-30}
. scripts/bench-common.sh

"$BIN" bench --sonic "$TRACKS" --keep-library "$WORK/lib" | sed -n '1p'
serve_in_background --db "$WORK/lib/spindle.db" --library "$WORK/lib/music"
START=$SECONDS
curl -sf -H "$AUTH" "$URL/api/similar_tracks?item_id=nd000000&n=1" >/dev/null
echo "server: pid $SERVER on $URL; first answer (loads the space) after $((SECONDS - START)) s; RSS $(ps -o rss= -p "$SERVER" | awk '{printf "%.0f MB", $1/1024}')"

# ROUTE: similar, path or all (in turn). Ids as the Navidrome plugin sends them, keys sorted as Go encodes them.
script() {
  cat > "$WORK/$1.lua" <<LUA
local n, turn = $TRACKS, 0
function init(args) math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16) % 100000) end
local function id() return string.format("nd%06d", math.random(0, n - 1)) end
function request()
  local kind = "$1"
  if kind == "all" then turn = turn + 1; kind = ({"similar", "path", "artists"})[turn % 3 + 1] end
  if kind == "similar" then
    return wrk.format("GET", "/api/similar_tracks?eliminate_duplicates=true&item_id=" .. id() .. "&n=100&radius_similarity=true")
  elseif kind == "path" then
    return wrk.format("GET", "/api/find_path?count=25&end_song_id=" .. id() .. "&max_steps=25&mood_pct=100&path_fix_size=false&start_song_id=" .. id())
  end
  return wrk.format("GET", string.format("/api/similar_artists?artist=ar%04d&include_component_matches=true&n=10", math.random(0, 4999)))
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("  %.1f requests/s over %.1f s (%d requests); latency p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms; errors: %d (status %d, connect %d, read %d, write %d, timeout %d)\n",
    summary.requests / (summary.duration / 1e6), summary.duration / 1e6, summary.requests,
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000, latency.max / 1000,
    e.status + e.connect + e.read + e.write + e.timeout, e.status, e.connect, e.read, e.write, e.timeout))
end
LUA
}
for s in similar path all; do script $s; done
run() { wrk -t "$1" -c "$2" -d "${3}s" --timeout 10s -H "$AUTH" -s "$WORK/$4.lua" "$URL" | tail -n 1; }

run 1 1 3 similar >/dev/null
echo "similar_tracks n=100, one client (target p99 < 50 ms):"
run 1 1 "$SECONDS_EACH" similar
echo "find_path of 25, one client (target p99 < 200 ms):"
run 1 1 "$SECONDS_EACH" path
echo "50 clients, similar_tracks, find_path and similar_artists in turn (target: no error; Navidrome's plugin waits 10 s):"
run 2 50 "$SECONDS_EACH" all
