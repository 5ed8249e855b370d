#!/usr/bin/env bash
# Benchmark (not a test) of `spindle serve` under the two floods of the attack review, on loopback, against the
# bundled sample library analysed into a temporary database:
#   1. bulk flood: 4 clients sending /smart-dj/bulk-profiles?paths= with 3,999 fragments while wrk measures
#      /smart-dj/profile for SECONDS (requests/s and p99, alone and under the flood);
#   2. header flood: SOCKETS connections, each sending 1.4 MB of header and holding the request open, with
#      the server's resident memory at its peak and 5 s after they close.
#   scripts/bench-serve-attacks.sh [SECONDS] [SOCKETS]      (BIN=path/to/spindle to measure another build)
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-10} SOCKETS=${2:-1000}
command -v wrk >/dev/null || { echo "needs wrk (apt-get install wrk)" >&2; exit 1; }
if [ -z "${BIN:-}" ]; then swift build -c release 2>&1 | tail -n 1; BIN=$PWD/.build/release/spindle; fi
WORK=$(mktemp -d)
SERVER="" FLOOD=""
cleanup() { [ -n "$FLOOD" ] && kill $FLOOD 2>/dev/null; [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
"$BIN" --db "$WORK/spindle.db" --library data/sample-library analyze >/dev/null
PORT=$((20000 + RANDOM % 20000))
"$BIN" --db "$WORK/spindle.db" --library data/sample-library serve --listen "127.0.0.1:$PORT" 2>"$WORK/serve.log" &
SERVER=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$PORT/health" >/dev/null && break; sleep 0.1; done
TRACK=$(sqlite3 "$WORK/spindle.db" "SELECT path FROM files f JOIN analysis a ON a.file_id = f.id WHERE a.status = 'ok' LIMIT 1")
ENCODED=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$TRACK")
rss() { awk '/VmRSS/ {print int($2 / 1024)}' "/proc/$SERVER/status"; }

echo "# 1. /smart-dj/profile, $SECONDS_EACH s, 4 connections"
wrk -t2 -c4 -d"${SECONDS_EACH}s" --latency "http://127.0.0.1:$PORT/smart-dj/profile?relative_path=$ENCODED" \
  | awk '/Requests\/sec/ {print "alone: " $2 " requests/s"} / 99%/ {print "alone: p99 " $2}'
LIST=$(python3 -c 'print(",".join(["x"] * 3999))')
for _ in 1 2 3 4; do
  ( while true; do curl -s -o /dev/null "http://127.0.0.1:$PORT/smart-dj/bulk-profiles?paths=$LIST"; done ) &
  FLOOD="$FLOOD $!"
done
sleep 1
wrk -t2 -c4 -d"${SECONDS_EACH}s" --latency "http://127.0.0.1:$PORT/smart-dj/profile?relative_path=$ENCODED" \
  | awk '/Requests\/sec/ {print "under the bulk flood: " $2 " requests/s"} / 99%/ {print "under the bulk flood: p99 " $2}'
echo "bulk answer: $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/smart-dj/bulk-profiles?paths=$LIST")"
kill $FLOOD 2>/dev/null; wait $FLOOD 2>/dev/null || true; FLOOD=""

echo "# 2. header flood: $SOCKETS sockets with 1.4 MB of header each"
echo "before: $(rss) MB"
python3 - "$PORT" "$SOCKETS" "$SERVER" <<'PY'
import socket, sys, time
port, count, pid = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
def rss():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS"): return int(line.split()[1]) // 1024
pad = b"X-Pad: " + b"a" * 1_400_000 + b"\r\n"
held, refused, peak = [], 0, 0
for i in range(count):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
        s.settimeout(0.05)
        try: s.sendall(pad)
        except (socket.timeout, OSError): refused += 1
        held.append(s)
    except OSError:
        refused += 1
    if i % 50 == 0: peak = max(peak, rss())
time.sleep(1)
peak = max(peak, rss())
print(f"peak with {len(held)} sockets held ({refused} cut short): {peak} MB")
for s in held: s.close()
time.sleep(5)
print(f"5 s after they closed: {rss()} MB")
PY
curl -sf -o /dev/null "http://127.0.0.1:$PORT/health" && echo "still serving"
