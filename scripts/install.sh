#!/usr/bin/env bash
# Installs Spindle where the cron and systemd examples (Pipelines/cron, Pipelines/systemd) expect it: the
# binary in PREFIX/bin, the genre taxonomy and rules in PREFIX/share/spindle/data (found from the binary's
# place, so an installed spindle needs no source tree) and the pipeline files in PREFIX/share/spindle/Pipelines.
#   scripts/install.sh            # PREFIX=/usr/local (with sudo when not root)
#   scripts/install.sh ~/.local   # a user's own prefix
set -euo pipefail
cd "$(dirname "$0")/.."
PREFIX=${1:-/usr/local}
. scripts/install-deps.sh
swift build -c release --product spindle 2>&1 | tail -n 1
SUDO=""
mkdir -p "$PREFIX" 2>/dev/null || true
[ -w "$PREFIX" ] || SUDO=sudo
$SUDO install -D -m 755 .build/release/spindle "$PREFIX/bin/spindle"
$SUDO install -d "$PREFIX/share/spindle/data" "$PREFIX/share/spindle/Pipelines"
$SUDO install -m 644 data/genre-taxonomy.toml data/genre-rules.toml "$PREFIX/share/spindle/data/"
$SUDO cp -R Pipelines/. "$PREFIX/share/spindle/Pipelines/"
echo "[spindle] installed $PREFIX/bin/spindle; data and pipelines in $PREFIX/share/spindle"
