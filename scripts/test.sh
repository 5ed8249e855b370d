#!/usr/bin/env bash
# Installs what is needed and runs the whole test suite (tests synthesize their own audio).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/install-deps.sh
swift build --build-tests 2>&1 | tail -n 1
swift test --skip-build --disable-swift-testing 2>&1
