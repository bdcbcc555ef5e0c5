#!/usr/bin/env bash
# The time to sync a devnet after the demo traffic (docs/benchmarks.md): `credence devnet` (anvil
# with every contract), `credence demo --once` (agents, feedback, validations, tools and the six
# ERC-8301 runs), then `credence index --once` into a fresh SQLite file, and into PostgreSQL when
# PG_URL names an empty database, each under /usr/bin/time -v. Reports the logs stored, the blocks,
# the sync's own seconds (the --json summary), the process's wall time and peak RSS.
#
#   bench/index/devnet_sync.sh [build-dir (build/release)]
#
# Builds nothing. Environment: PG_URL (postgresql://...; default: SQLite only), KEEP=1 keeps the
# work directory.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-build/release}
[[ $build = /* ]] || build=$repo/$build
credence=$build/src/credence/credence
[[ -x $credence ]] || { echo "devnet_sync.sh: $credence not found; build it first" >&2; exit 2; }

work=$(mktemp -d /tmp/credence-bench-devnet.XXXXXX)
export CREDENCE_HOME=$work/home
mkdir -p "$CREDENCE_HOME"
devnet_pid=
cleanup() {
    if [[ -n $devnet_pid ]]; then kill -INT "$devnet_pid" 2>/dev/null || true; wait "$devnet_pid" 2>/dev/null || true; fi
    if [[ ${KEEP:-0} = 1 ]]; then echo "work directory kept: $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

"$credence" devnet --port 0 >"$work/devnet.out" 2>"$work/devnet.log" &
devnet_pid=$!
rpc=
for _ in $(seq 1200); do
    rpc=$(sed -n 's/^Credence devnet: anvil at \([^ ]*\).*/\1/p' "$work/devnet.out" | head -n 1)
    [[ -n $rpc ]] && break
    kill -0 "$devnet_pid" 2>/dev/null || { cat "$work/devnet.log" >&2; exit 1; }
    sleep 0.1
done
[[ -n $rpc ]] || { echo "devnet_sync.sh: the devnet did not start" >&2; exit 1; }

demo_start=$(date +%s.%N)
"$credence" demo --rpc "$rpc" --once --json >"$work/demo.json" 2>"$work/demo.log" ||
    { tail -n 20 "$work/demo.log" >&2; exit 1; }
demo_end=$(date +%s.%N)
echo "devnet at $rpc; demo seeded in $(awk -v a="$demo_start" -v b="$demo_end" 'BEGIN { printf "%.1f", b - a }') s"

results=()
sync_into() {
    local label=$1 database=$2
    local tv=$work/$label.time out=$work/$label.jsonl
    if ! /usr/bin/time -v -o "$tv" "$credence" index --rpc "$rpc" --database "$database" --once \
        --json >"$out" 2>"$work/$label.err"; then
        tail -n 20 "$work/$label.err" >&2
        exit 1
    fi
    local summary events seconds cursor rss wall
    summary=$(tail -n 1 "$out")
    events=$(jq -r '.events' <<<"$summary")
    seconds=$(jq -r '.seconds' <<<"$summary")
    cursor=$(jq -r '.cursor' <<<"$summary")
    rss=$(awk -F': ' '/Maximum resident set size/ { print int($2 / 1024) }' "$tv")
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { print $2 }' "$tv")
    results+=("$(printf '%-9s %6s logs of %5s blocks in %6.3f s (sync), process wall %s, peak RSS %d MB' \
        "$label" "$events" "$((cursor + 1))" "$seconds" "$wall" "$rss")")
}

sync_into sqlite "$work/index.sqlite"
[[ -n ${PG_URL:-} ]] && sync_into postgres "$PG_URL"

echo
echo "== devnet sync after the demo, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%s\n' "${results[@]}"
