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
# Builds nothing: the contracts must be built (forge build, as make test does). Environment:
# BINARIES (credence binaries to compare, in turn; default the build dir's), KEEP=1 keeps the
# work directory.
set -euo pipefail

blocks=${1:-2500}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${2:-build/release}
[[ $build = /* ]] || build=$repo/$build
read -r -a binaries <<<"${BINARIES:-$build/src/credence/credence}"
anvil=$repo/node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil
cast=$repo/node_modules/@foundry-rs/cast-linux-amd64/bin/cast
artifact=$repo/contracts/out/DenseEmitter.sol/DenseEmitter.json
for f in "$anvil" "$cast" "$artifact" "${binaries[@]}"; do
    [[ -e $f ]] || { echo "dense_anvil.sh: $f not found (npm ci, forge build, build credence)" >&2; exit 2; }
done
# anvil's first development key: public, devnet only.
key=0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80

work=$(mktemp -d /tmp/credence-bench-dense.XXXXXX)
anvil_pid=
cleanup() {
    if [[ -n $anvil_pid ]]; then kill "$anvil_pid" 2>/dev/null || true; wait "$anvil_pid" 2>/dev/null || true; fi
    if [[ ${KEEP:-0} = 1 ]]; then echo "work directory kept: $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

HOME="$work" "$anvil" --port 0 --gas-limit 1000000000 >"$work/anvil.out" 2>&1 &
anvil_pid=$!
rpc=
for _ in $(seq 300); do
    port=$(sed -n 's/^Listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$work/anvil.out" | head -n 1)
    [[ -n $port ]] && { rpc=http://127.0.0.1:$port; break; }
    kill -0 "$anvil_pid" 2>/dev/null || { cat "$work/anvil.out" >&2; exit 1; }
    sleep 0.1
done
[[ -n $rpc ]] || { echo "dense_anvil.sh: anvil did not start" >&2; exit 1; }

emitter=$("$cast" send --rpc-url "$rpc" --private-key "$key" --json \
    --create "$(jq -r .bytecode.object "$artifact")" | jq -r .contractAddress)
started=$(date +%s.%N)
for ((i = 0; i < blocks; ++i)); do
    "$cast" send --async --rpc-url "$rpc" --private-key "$key" "$emitter" \
        "emitBlock(uint256,uint256,uint256)" $((i * 80)) 80 4 >/dev/null
done
head=$("$cast" block-number --rpc-url "$rpc")
echo "dense chain: $blocks blocks of 80 NewFeedback + 4 Registered to block $head, made in" \
    "$(awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }') s; $rpc"

results=()
run_no=0
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
echo
echo "== dense anvil chain: $blocks blocks, 2 cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%s\n' "${results[@]}"
