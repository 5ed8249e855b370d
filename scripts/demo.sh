#!/usr/bin/env bash
# The main job end to end on the bundled sample library: install what is needed, build, run the nightly
# pipeline (scan, tags, analysis, composite genres), then show what the database holds and the genre
# report. The database goes to a temporary folder unless SPINDLE_DB is set.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/install-deps.sh
swift build -c release --product spindle 2>&1 | tail -n 1
# The tagger's weights (MusiCNN, ISC licence) from PyPI, sha256 checked; without them Spindle runs without the
# tagger and says so.
python3 scripts/fetch-musicnn.py || echo "[spindle] MusiCNN's weights could not be fetched: the tagger stays off"
BIN=.build/release/spindle
DB=${SPINDLE_DB:-$(mktemp -d)/spindle.db}
echo "[spindle] database: $DB"
# The nightly pipeline: scan, read tags, analyse, rebuild composite genres.
"$BIN" --db "$DB" --library data/sample-library run Pipelines/nightly.toml
"$BIN" --db "$DB" --library data/sample-library status
echo
REPORT=$(dirname "$DB")/genre-report.html
"$BIN" --db "$DB" genres report --format md -o "${REPORT%.html}.md"
head -n 14 "${REPORT%.html}.md"
"$BIN" --db "$DB" genres report --format html -o "$REPORT"
echo "[spindle] genre report with charts: $REPORT"
echo
echo "[spindle] one track in detail:"
"$BIN" inspect "data/sample-library/Midnight Arcade/Neon Skyline/01 Neon Skyline.flac"
echo
echo "[spindle] the tracks that sound most like it (the path goes through the resolver):"
"$BIN" --db "$DB" similar "data/sample-library/Midnight Arcade/Neon Skyline/01 Neon Skyline.flac" -n 3
