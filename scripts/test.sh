#!/usr/bin/env bash
# Installs what is needed and runs the whole test suite (tests synthesize their own audio).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/install-deps.sh
# The genre report test renders the HTML in a real headless browser.
if ! command -v chromium >/dev/null 2>&1; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends chromium >/dev/null
fi
swift build --build-tests 2>&1 | tail -n 1
swift test --skip-build --disable-swift-testing 2>&1
