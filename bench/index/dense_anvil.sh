#!/usr/bin/env bash
# The indexer against a dense chain on anvil, a node that answers any block range
# (docs/benchmarks.md §Dense anvil chain): BLOCKS blocks, each one transaction of
# DenseEmitter.emitBlock (contracts/test/bench): 80 NewFeedback with 608 bytes of data and 4
# Registered, the exact ERC-8004 signatures, from one contract. Then, for each binary of BINARIES,
# `credence index --once --registry reputation=<emitter>` into a fresh SQLite file under
# /usr/bin/time -v. Reports the NewFeedback stored, events/s, the seconds to the first committed
# batch (from the --json progress lines, stamped as they arrive) and peak RSS. The Registered logs
# are not a reputation registry's events: they are rejected, and counted.
#
#   bench/index/dense_anvil.sh [blocks (2500)] [build-dir (build/release)]
#
# Builds nothing: the contracts must be built (forge build, as make test does); the chain is made
# by dense_chain.sh. Environment: BINARIES (credence binaries to compare, in turn; default the
# build dir's), ROUNDS (how many times the binaries run in turn, interleaved; default 1), KEEP=1
# keeps the work directory.
set -euo pipefail

blocks=${1:-2500}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${2:-build/release}
[[ $build = /* ]] || build=$repo/$build
read -r -a binaries <<<"${BINARIES:-$build/src/credence/credence}"
for f in "${binaries[@]}"; do
    [[ -e $f ]] || { echo "dense_anvil.sh: $f not found (build credence)" >&2; exit 2; }
done
rounds=${ROUNDS:-1}

work=$(mktemp -d /tmp/credence-bench-dense.XXXXXX)
cleanup() {
    dense_chain_stop 2>/dev/null || true
    if [[ ${KEEP:-0} = 1 ]]; then echo "work directory kept: $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

# shellcheck source=bench/index/dense_chain.sh
. "$repo/bench/index/dense_chain.sh"
dense_chain_start "$blocks"
rpc=$DENSE_RPC emitter=$DENSE_EMITTER

results=()
run_no=0
for ((round = 1; round <= rounds; ++round)); do
    for bin in "${binaries[@]}"; do
        run_no=$((run_no + 1))
        db=$work/index$run_no.sqlite
        out=$work/run$run_no.jsonl tv=$work/run$run_no.time
        t0=$(date +%s.%N)
        /usr/bin/time -v -o "$tv" "$bin" index --once --json --rpc "$rpc" --chain-id 31337 \
            --registry "reputation=$emitter" --database "$db" 2>"$work/run$run_no.err" |
            while IFS= read -r line; do printf '%s %s\n' "$(date +%s.%N)" "$line"; done >"$out"
        first=$(awk -v t0="$t0" '/"msg":"batch"/ { printf "%.1f", $1 - t0; exit }' "$out")
        summary=$(tail -n1 "$out" | cut -d' ' -f2-)
        stored=$(jq -r '.events' <<<"$summary")
        seconds=$(jq -r '.seconds' <<<"$summary")
        rss_kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$tv")
        cpu=$(awk -F': ' '/User time/ {u = $2} /System time/ {s = $2} END {printf "%.1f", u + s}' "$tv")
        # Warning lines about rejected logs, wherever the binary prints them.
        rejected=$(cat "$out" "$work/run$run_no.err" | grep -v '"msg":"batch"' | grep -c 'rejected' || true)
        line=$(printf '%-40s %7s events in %6.2f s = %6.0f events/s; first batch after %5s s; peak RSS %4d MB; CPU %s s; %s rejection lines' \
            "${bin#"$repo"/}" "$stored" "$seconds" "$(awk -v e="$stored" -v s="$seconds" 'BEGIN { print e / s }')" \
            "$first" $((rss_kb / 1024)) "$cpu" "$rejected")
        echo "$line"
        results+=("$line")
    done
done
echo
echo "== dense anvil chain: $blocks blocks, 2 cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%s\n' "${results[@]}"
