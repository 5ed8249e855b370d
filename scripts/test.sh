#!/usr/bin/env bash
# Installs what is needed and runs the whole test suite (tests synthesize their own audio).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/install-deps.sh
# Tag edits are checked with an independent reader (mutagen); the genre report test renders the HTML in a
# real headless browser (chromium).
python3 -c "import mutagen" 2>/dev/null || python3 -m pip install --quiet mutagen 2>/dev/null \
  || python3 -m pip install --quiet --break-system-packages mutagen
# Musepack has no FFmpeg encoder: mpcenc (musepack-tools) writes the .mpc the container test decodes.
missing=""
command -v chromium >/dev/null 2>&1 || missing="$missing chromium"
command -v mpcenc >/dev/null 2>&1 || missing="$missing musepack-tools"
# flac (the command) writes the 32-bit FLAC that libsndfile refuses and libFLAC decodes.
command -v flac >/dev/null 2>&1 || missing="$missing flac"
# GNU parallel runs the shard test the way docs/more-than-one-machine.md does.
command -v parallel >/dev/null 2>&1 || missing="$missing parallel"
# mkfs.btrfs (btrfs-progs) makes the loop-mounted disk whose blocks the read-error tests make unreadable.
command -v mkfs.btrfs >/dev/null 2>&1 || missing="$missing btrfs-progs"
if [ -n "$missing" ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $missing >/dev/null
fi
swift build --build-tests 2>&1 | tail -n 1
swift test --skip-build --disable-swift-testing 2>&1
