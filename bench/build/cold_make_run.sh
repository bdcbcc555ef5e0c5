#!/usr/bin/env bash
# Cold `make run`: a fresh clone of HEAD into an empty directory, ccache disabled (an empty
# cache). On a fresh machine the first phase is the Debian install; where the packages are
# already there, setup skips it and the line does not print. Times each phase up to
# the moment `make run` prints the explorer's URL, then stops it.
#   bench/build/cold_make_run.sh [CLONE_DIR]
# Prints one line per phase and the total; docs/benchmarks.md §Cold make run records the figures.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:-$(mktemp -d /tmp/credence-cold.XXXXXX)}
rm -rf "$dir" && git clone -q "$src" "$dir" && cd "$dir"
export CCACHE_DISABLE=1
log=$dir/make-run.log
start=$(date +%s.%N)
# Timestamps of the phase markers that scripts/run.sh and scripts/build.sh print.
# Its own session, so that stopping it stops the devnet and the node it started too.
CREDENCE_PORT=0 setsid make run >"$log" 2>&1 &
pid=$!
declare -A seen
stamp() { printf '%.1f' "$(echo "$(date +%s.%N) - $start" | bc)"; }
while kill -0 "$pid" 2>/dev/null; do
    for marker in "setup: installing [0-9]* Debian" "run: npm ci" "build: configuring" "build: compiling" "build-web:" "run: devnet at" \
        "run: seeding the demo" "credence node: serving"; do
        if [ -z "${seen[$marker]:-}" ] && grep -q "^$marker" "$log"; then
            seen[$marker]=$(stamp)
            echo "$(printf '%-24s' "$marker") ${seen[$marker]} s"
        fi
    done
    [ -n "${seen["credence node: serving"]:-}" ] && break
    sleep 0.5
done
kill -INT -- -"$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
[ -n "${seen["credence node: serving"]:-}" ] || { tail -20 "$log"; echo "cold make run: no URL" >&2; exit 1; }
echo "cold make run: URL after ${seen["credence node: serving"]} s ($(nproc) cores, $(grep -c '^\[' "$log") ninja steps)"
