# Sourced by the `spindle serve` benchmarks: a release build, a scratch folder removed on exit, and a server
# started in the background on a free port.
command -v wrk >/dev/null || { echo "needs wrk (apt-get install wrk)" >&2; exit 1; }
command -v curl >/dev/null || { echo "needs curl (apt-get install curl)" >&2; exit 1; }
swift build -c release 2>&1 | tail -n 1
BIN=$PWD/.build/release/spindle
WORK=$(mktemp -d)
SERVER=""
cleanup() { [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT

# serve_in_background [GLOBAL OPTIONS...]: `spindle serve` on 127.0.0.1 with the token in $WORK/token; sets
# SERVER (its pid), URL and AUTH (the header).
serve_in_background() {
  echo "bench-token-$RANDOM$RANDOM" > "$WORK/token"
  "$BIN" "$@" serve --listen 127.0.0.1:0 --token-file "$WORK/token" 2> "$WORK/serve.log" &
  SERVER=$!
  for _ in $(seq 1 100); do grep -q "serving" "$WORK/serve.log" 2>/dev/null && break; sleep 0.1; done
  local port
  port=$(sed -n 's/.*http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$WORK/serve.log" | head -n 1)
  [ -n "$port" ] || { cat "$WORK/serve.log" >&2; exit 1; }
  URL=http://127.0.0.1:$port
  AUTH="Authorization: Bearer $(cat "$WORK/token")"
}
