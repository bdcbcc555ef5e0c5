#!/usr/bin/env bash
# make package: the Debian package (cmake/install.cmake) of the release build, in build/package/.
#   --no-build   package what build/release already holds (scripts/test.sh builds it first)
# Prints the package's path as its last line.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" != --no-build ]; then
    bash scripts/setup.sh
    CREDENCE_BUILD_TARGETS=credence bash scripts/build.sh release
fi
rm -rf build/package
cpack --config build/release/CPackConfig.cmake -B build/package >build/package.log 2>&1 \
    || { cat build/package.log >&2; echo "package: cpack failed" >&2; exit 1; }
deb=$(ls build/package/credence_*.deb)
echo "package: $deb ($(du -h "$deb" | cut -f1))"
echo "$deb"
