#!/usr/bin/env bash
# Installs the Debian packages Spindle builds against (and ffmpeg, which tests use to write M4A files; python3
# and ca-certificates, with which scripts/fetch-musicnn.py fetches the tagger's weights).
# Does nothing when they are all present already.
set -euo pipefail
PKGS="pkg-config libsndfile1-dev libflac-dev libmpg123-dev libfftw3-dev libopenblas-dev libtag1-dev libsqlite3-dev
      libavformat-dev libavcodec-dev libswresample-dev libavutil-dev ffmpeg python3 ca-certificates"
missing=""
for p in $PKGS; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  echo "[spindle] installing:$missing"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $missing
fi
if ! command -v swift >/dev/null 2>&1; then
  for d in /opt/swift/usr/bin /usr/share/swift/usr/bin; do [ -x "$d/swift" ] && export PATH="$d:$PATH"; done
fi
command -v swift >/dev/null 2>&1 || { echo "[spindle] Swift 6 is needed: https://www.swift.org/install/linux/" >&2; exit 1; }
