#!/usr/bin/env bash
# Configures and builds one CMake preset (release, debug, asan, fuzz). Usage: build.sh [preset]
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-release}
shift || true
# Extra arguments are cache settings for the configure step (scripts/test.sh: -DCREDENCE_BENCH=OFF).
cmake --preset "$preset" "$@" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)"
# The web explorer (web/dist, served by `credence node`): tsc + vite, a few seconds.
bash scripts/build-web.sh
