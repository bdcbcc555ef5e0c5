#!/usr/bin/env bash
# make bench: runs every Google Benchmark binary of the release build and prints the tables that
# docs/benchmarks.md records. Usage: bench.sh [min_time_seconds]
set -euo pipefail
cd "$(dirname "$0")/.."
min_time=${1:-1}
echo "# $(date -u +%FT%TZ) $(uname -m), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "# commit $(git rev-parse --short HEAD)"
for b in build/release/bench/*_bench; do
    echo; echo "## $(basename "$b")"
    "$b" --benchmark_min_time="$min_time" 2>&1 | grep -v '^\*\*\*'
done
