#!/usr/bin/env bash
# Benchmark (not a test): how much cheaper an unchanged nightly run is than the first one, on the sample
# library. Prints both wall times and their ratio; run on a quiet machine, compare ratios within one run.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release 2>&1 | tail -n 1
BIN=.build/release/spindle
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cp -r data/sample-library "$WORK/music"
now() { date +%s.%N; }
t0=$(now); "$BIN" --db "$WORK/db" --library "$WORK/music" run Pipelines/nightly.toml >/dev/null; t1=$(now)
"$BIN" --db "$WORK/db" --library "$WORK/music" run Pipelines/nightly.toml >/dev/null; t2=$(now)
python3 - "$t0" "$t1" "$t2" <<'PY'
import sys
t0, t1, t2 = map(float, sys.argv[1:])
first, second = t1 - t0, t2 - t1
print(f"first nightly: {first:.2f} s, unchanged nightly: {second:.2f} s, ratio {second / first:.3f}")
PY
