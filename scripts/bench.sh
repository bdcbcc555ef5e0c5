#!/usr/bin/env bash
# make bench: runs every Google Benchmark binary of the release build and prints the tables that
# docs/benchmarks.md records. Usage: bench.sh [min_time_seconds]
set -euo pipefail
cd "$(dirname "$0")/.."
min_time=${1:-0.2}
echo "# $(date -u +%FT%TZ) $(uname -m), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "# commit $(git rev-parse --short HEAD)"
for b in build/release/bench/*_bench; do
    echo; echo "## $(basename "$b")"
    # Repetitions in random interleaving, reported as medians: side-by-side comparisons (keccak vs
    # Crypto++) then see the same machine load.
    "$b" --benchmark_min_time="$min_time" --benchmark_repetitions=15 \
        --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true 2>&1 \
        | grep -E '^(Benchmark|-+$|.*_median)'
done
