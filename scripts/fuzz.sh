#!/usr/bin/env bash
# make fuzz: builds every libFuzzer target (clang-19, ASan + UBSan) and runs each for SECONDS
# (default 60), JOBS targets at a time (default: number of cores). Seeds come from the committed
# fuzz/corpus/<name>/ (the target name without _fuzz); new inputs go to fuzz/corpus-work/<target>/
# (ignored by git). A crash
# stops with the reproducer path. Results are appended to build/fuzz/results.txt.
# Usage: fuzz.sh [SECONDS] [target ...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
jobs=${JOBS:-$(nproc)}
bash scripts/build.sh fuzz
# The commit the binaries were built from, taken now: HEAD may move while the targets run.
commit=$(git rev-parse --short HEAD)
[ -z "$(git status --porcelain --untracked-files=no)" ] || commit+="+dirty"
if [ $# -gt 0 ]; then targets=("$@"); else
    mapfile -t targets < <(ls fuzz/*_fuzz.cpp | xargs -n1 basename | sed 's/\.cpp$//')
fi
results=build/fuzz/results.txt
run_one() {
    local t=$1 seconds=$2
    # Every target has a committed seed corpus; without it libFuzzer would exit at once.
    [ -d "fuzz/corpus/${t%_fuzz}" ] || {
        echo "$t: no seed corpus fuzz/corpus/${t%_fuzz}/" | tee -a "$results"
        return 1
    }
    mkdir -p "fuzz/corpus-work/$t" "build/fuzz/crashes/$t"
    local start=$(date +%s)
    if build/fuzz/fuzz/"$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="build/fuzz/crashes/$t/" -print_final_stats=1 \
        "fuzz/corpus-work/$t" "fuzz/corpus/${t%_fuzz}" >"build/fuzz/$t.log" 2>&1; then
        local runs=$(grep -m1 -oE 'stat::number_of_executed_units: *[0-9]+' "build/fuzz/$t.log" | grep -oE '[0-9]+$')
        echo "$(date -u +%FT%TZ) $t ok $(( $(date +%s) - start ))s runs=${runs:-?} commit=$commit" | tee -a "$results"
    else
        echo "$(date -u +%FT%TZ) $t CRASH after $(( $(date +%s) - start ))s: see build/fuzz/$t.log and build/fuzz/crashes/$t/" | tee -a "$results"
        return 1
    fi
}
export -f run_one
export results commit
printf '%s\n' "${targets[@]}" | xargs -P "$jobs" -I{} bash -c "run_one {} $seconds"
