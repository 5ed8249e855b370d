#!/usr/bin/env bash
# The main job end to end on the bundled sample library: install what is needed, build, scan, read tags,
# analyse, then show what the database holds. The database goes to a temporary folder unless SPINDLE_DB
# is set.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/install-deps.sh
swift build -c release --product spindle 2>&1 | tail -n 1
BIN=.build/release/spindle
DB=${SPINDLE_DB:-$(mktemp -d)/spindle.db}
echo "[spindle] database: $DB"
"$BIN" --db "$DB" --library data/sample-library analyze
"$BIN" --db "$DB" --library data/sample-library status
echo
echo "[spindle] one track in detail:"
"$BIN" inspect "data/sample-library/Midnight Arcade/Neon Skyline/01 Neon Skyline.flac"
