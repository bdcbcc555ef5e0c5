#!/usr/bin/env bash
# RFC 8785 canonicalization, whole process, side by side: `credence util jcs FILE` against npm
# `canonicalize` (node: JSON.parse + canonicalize, bench/json/canonicalize.mjs), on the shapes of
# bench/json/gen.mjs at several sizes. Each pair of runs is interleaved so both see the same load;
# prints the best of RUNS for each, checks that the outputs are byte-identical, and the ratio
# (canonicalize time / credence time: above 1 means credence is faster).
#
# Usage: bench/json/jcs_vs_canonicalize.sh [runs=5] [build=build/release] [sizes="1000000 10000000"]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
RUNS=${1:-5}
BUILD=${2:-$ROOT/build/release}
SIZES=${3:-"1000000 10000000"}
CREDENCE="$BUILD/src/credence/credence"
[[ -x "$CREDENCE" ]] || { echo "bench: build $CREDENCE first (ninja -C $BUILD credence)" >&2; exit 1; }
[[ -d "$ROOT/node_modules/canonicalize" ]] || { echo "bench: npm canonicalize missing" >&2; exit 1; }

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

now_ns() { date +%s%N; }
best_ms() { printf '%s\n' "$@" | sort -n | head -1 | awk '{printf "%.1f", $1 / 1e6}'; }

printf '%-9s %10s %16s %12s %8s\n' shape bytes canonicalize_ms credence_ms ratio
run_case() {
    local shape=$1 size=$2 file="$WORK/$1-$2.json"
    node "$ROOT/bench/json/gen.mjs" "$shape" "$size" >"$file"
    local -a t_node=() t_cred=()
    for _ in $(seq "$RUNS"); do
        local s e
        s=$(now_ns); node "$ROOT/bench/json/canonicalize.mjs" "$file" >"$WORK/node.out"; e=$(now_ns)
        t_node+=($((e - s)))
        s=$(now_ns); "$CREDENCE" util jcs "$file" >"$WORK/credence.out"; e=$(now_ns)
        t_cred+=($((e - s)))
    done
    cmp -s "$WORK/node.out" "$WORK/credence.out" ||
        { echo "bench: $shape $size: outputs differ" >&2; exit 1; }
    local n c
    n=$(best_ms "${t_node[@]}"); c=$(best_ms "${t_cred[@]}")
    printf '%-9s %10s %16s %12s %7.2fx\n' "$shape" "$(stat -c %s "$file")" "$n" "$c" \
        "$(awk -v n="$n" -v c="$c" 'BEGIN { print n / c }')"
    rm -f "$file"
}

for size in $SIZES; do
    for shape in small numbers strings wide; do run_case "$shape" "$size"; done
done
# The 100 KiB tool manifest of bench/jcs_bench.cpp (the figure docs/benchmarks.md quoted before).
run_case manifest 102400
