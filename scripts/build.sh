#!/usr/bin/env bash
# Configures and builds one CMake preset (release, run, debug, asan, fuzz), then the web explorer.
# Usage: build.sh [preset] [cache settings...]
#   CREDENCE_BUILD_TARGETS="credence"  builds only those targets (make run, make package);
#                                      unset: every target of the preset (make test).
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-release}
shift || true
# Extra arguments are cache settings for the configure step (scripts/test.sh: -DCREDENCE_BENCH=OFF).
echo "build: configuring the $preset preset"
cmake --preset "$preset" "$@" >/dev/null
targets=()
for t in ${CREDENCE_BUILD_TARGETS:-}; do targets+=(--target "$t"); done
echo "build: compiling ${CREDENCE_BUILD_TARGETS:-every target} ($(nproc) jobs; ninja prints [done/total])"
cmake --build --preset "$preset" -j "$(nproc)" "${targets[@]}"
# The web explorer (web/dist, served by `credence node`): tsc + vite, a few seconds.
# CREDENCE_BUILD_WEB=0 leaves it to the caller (make run builds it once npm ci has finished).
[ "${CREDENCE_BUILD_WEB:-1}" = 0 ] || bash scripts/build-web.sh
