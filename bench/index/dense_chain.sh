#!/usr/bin/env bash
# A dense benchmark chain on anvil, made fast: BLOCKS blocks after the deploy of DenseEmitter
# (contracts/test/bench), each holding one emitBlock transaction, so 80 NewFeedback + 4 Registered
# with the exact ERC-8004 signatures. dense_anvil.sh spawns one cast per block; here one curl sends
# a thousand blocks' requests down one kept-alive connection, so 25,000 blocks take minutes.
#
# anvil runs with --no-mining and each block is an eth_sendTransaction (anvil's unlocked first dev
# account, explicit nonce and gas) followed by evm_mine, strictly one after the other: anvil answers
# a JSON-RPC batch concurrently, and with automine it packs concurrent transactions into one block.
#
# Executed:  bench/index/dense_chain.sh BLOCKS [PORT]
#   prints one line `dense_chain rpc=URL emitter=ADDR deploy_block=N head=N blocks=N seconds=S`,
#   writes the same as shell assignments (DENSE_RPC=... DENSE_EMITTER=... DENSE_DEPLOY_BLOCK=...
#   DENSE_HEAD=... DENSE_BLOCKS=...) to $DENSE_CHAIN_ENV if set, then keeps anvil up until
#   SIGINT/SIGTERM.
# Sourced:   . bench/index/dense_chain.sh; dense_chain_start BLOCKS [PORT]; ...; dense_chain_stop
#   dense_chain_start sets those DENSE_* variables in the caller's shell (and prints the line);
#   dense_chain_stop ends anvil and deletes its directory. Neither changes the caller's options.
# PORT 0 (the default) lets anvil pick a free one. Needs npm ci (anvil, cast) and forge build.
# DENSE_ANVIL_ARGS adds anvil options. By default anvil keeps every block's state, evicting the
# older ones to disk under its $HOME: 4.2 GB for 10,000 blocks, 8.3 GB for 25,000, and a third
# of the time it takes. `--prune-history` keeps none, at the cost of eth_call / eth_getCode at
# old blocks. Either way each block takes longer to make as the chain grows.

dense_chain_repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
dense_chain_pid=
dense_chain_dir=

dense_chain__die() { echo "dense_chain: $*" >&2; return 1; }

# One JSON-RPC call; prints the result, or fails with the error.
dense_chain__rpc() {
    local method=$1 params=$2 out
    out=$(curl -sS --fail -H 'content-type: application/json' "$DENSE_RPC" \
        --data "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"$method\",\"params\":$params}") ||
        dense_chain__die "$method: no answer from $DENSE_RPC" || return 1
    jq -e 'has("result")' <<<"$out" >/dev/null || dense_chain__die "$method: $out" || return 1
    jq -c '.result' <<<"$out"
}

dense_chain_stop() {
    if [[ -n $dense_chain_pid ]]; then
        kill "$dense_chain_pid" 2>/dev/null || true
        wait "$dense_chain_pid" 2>/dev/null || true
        dense_chain_pid=
    fi
    if [[ -n $dense_chain_dir ]]; then rm -rf "$dense_chain_dir"; dense_chain_dir=; fi
}

dense_chain_start() {
    local blocks=${1:?dense_chain_start BLOCKS [PORT]} port=${2:-0}
    local anvil=$dense_chain_repo/node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil
    local cast=$dense_chain_repo/node_modules/@foundry-rs/cast-linux-amd64/bin/cast
    local artifact=$dense_chain_repo/contracts/out/DenseEmitter.sol/DenseEmitter.json
    local f
    for f in "$anvil" "$cast" "$artifact"; do
        [[ -e $f ]] || dense_chain__die "$f not found (npm ci; forge build in contracts)" || return 2
    done
    [[ $blocks =~ ^[1-9][0-9]*$ ]] || dense_chain__die "BLOCKS must be a positive integer" || return 2

    dense_chain_dir=$(mktemp -d "${TMPDIR:-/tmp}/credence-dense-chain.XXXXXX")
    # HOME: anvil's state cache lands in the temporary directory and goes with it.
    local extra=()
    read -r -a extra <<<"${DENSE_ANVIL_ARGS:-}"
    HOME=$dense_chain_dir "$anvil" --host 127.0.0.1 --port "$port" --gas-limit 1000000000 \
        --no-mining "${extra[@]}" >"$dense_chain_dir/anvil.out" 2>&1 &
    dense_chain_pid=$!
    DENSE_RPC=
    local i
    for ((i = 0; i < 300; ++i)); do
        port=$(sed -n 's/^Listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$dense_chain_dir/anvil.out" 2>/dev/null | head -n 1)
        [[ -n $port ]] && { DENSE_RPC=http://127.0.0.1:$port; break; }
        kill -0 "$dense_chain_pid" 2>/dev/null || break
        sleep 0.1
    done
    [[ -n $DENSE_RPC ]] || { cat "$dense_chain_dir/anvil.out" >&2; dense_chain_stop; dense_chain__die "anvil did not start"; return 1; }

    local started from tx receipt
    started=$(date +%s.%N)
    # anvil's first development account: public, unlocked, devnet only.
    from=0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266
    tx=$(dense_chain__rpc eth_sendTransaction \
        "[{\"from\":\"$from\",\"nonce\":\"0x0\",\"data\":\"$(jq -r .bytecode.object "$artifact")\"}]") &&
        dense_chain__rpc evm_mine '[]' >/dev/null &&
        receipt=$(dense_chain__rpc eth_getTransactionReceipt "[$tx]") &&
        [[ $(jq -r .status <<<"$receipt") = 0x1 ]] || { dense_chain_stop; dense_chain__die "deploy failed"; return 1; }
    DENSE_EMITTER=$(jq -r .contractAddress <<<"$receipt")
    DENSE_DEPLOY_BLOCK=$(($(jq -r .blockNumber <<<"$receipt")))
    DENSE_BLOCKS=$blocks

    # Every call costs the same gas but for a few calldata bytes: estimate the largest, add 25%.
    local selector gas est
    selector=$("$cast" sig 'emitBlock(uint256,uint256,uint256)')
    est=$(dense_chain__rpc eth_estimateGas "[{\"from\":\"$from\",\"to\":\"$DENSE_EMITTER\",\"data\":\"$("$cast" calldata \
        'emitBlock(uint256,uint256,uint256)' $(((blocks - 1) * 80)) 80 4)\"}]") || { dense_chain_stop; return 1; }
    gas=$(($(jq -r . <<<"$est") * 5 / 4))

    # Chunks of 1,000 blocks: one curl each, requests in order on one connection (curl -K).
    local first count errors
    for ((first = 0; first < blocks; first += 1000)); do
        count=$((blocks - first < 1000 ? blocks - first : 1000))
        awk -v url="$DENSE_RPC" -v from="$from" -v to="$DENSE_EMITTER" -v sel="$selector" \
            -v gas="$gas" -v first="$first" -v count="$count" 'BEGIN {
            q = "\\\""
            for (i = first; i < first + count; i++) {
                if (i > first) print "next"
                printf "url = \"%s\"\nheader = \"content-type: application/json\"\n", url
                printf "data = \"{%sjsonrpc%s:%s2.0%s,%sid%s:%d,%smethod%s:%seth_sendTransaction%s,%sparams%s:[{", q,q,q,q,q,q,i,q,q,q,q,q,q
                printf "%sfrom%s:%s%s%s,%sto%s:%s%s%s,%snonce%s:%s0x%x%s,%sgas%s:%s0x%x%s,", q,q,q,from,q, q,q,q,to,q, q,q,q,i + 1,q, q,q,q,gas,q
                printf "%sdata%s:%s%s%064x%064x%064x%s}]}\"\nnext\n", q,q,q,sel,i * 80,80,4,q
                printf "url = \"%s\"\nheader = \"content-type: application/json\"\n", url
                printf "data = \"{%sjsonrpc%s:%s2.0%s,%sid%s:%d,%smethod%s:%sevm_mine%s,%sparams%s:[]}\"\n", q,q,q,q,q,q,i,q,q,q,q,q,q
            }
        }' >"$dense_chain_dir/chunk.cfg"
        curl -sS -K "$dense_chain_dir/chunk.cfg" >"$dense_chain_dir/chunk.out" ||
            { dense_chain_stop; dense_chain__die "curl failed at block $first"; return 1; }
        errors=$(jq -s -c 'map(select(has("result") | not)) | .[:3] | map(tostring) | join(" ")' "$dense_chain_dir/chunk.out")
        [[ $errors = '""' && $(jq -c . "$dense_chain_dir/chunk.out" | wc -l) -eq $((2 * count)) ]] ||
            { dense_chain_stop; dense_chain__die "RPC errors at block $first: $errors"; return 1; }
    done
    DENSE_HEAD=$(($(dense_chain__rpc eth_blockNumber '[]' | jq -r .)))
    local seconds
    seconds=$(awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')

    dense_chain__verify || { dense_chain_stop; return 1; }
    echo "dense_chain rpc=$DENSE_RPC emitter=$DENSE_EMITTER deploy_block=$DENSE_DEPLOY_BLOCK" \
        "head=$DENSE_HEAD blocks=$DENSE_BLOCKS seconds=$seconds"
}

# head = deploy + BLOCKS; every block after the deploy holds exactly one transaction; sampled
# blocks (the first, middle and last ten) hold 80 NewFeedback + 4 Registered of the emitter.
dense_chain__verify() {
    local cast=$dense_chain_repo/node_modules/@foundry-rs/cast-linux-amd64/bin/cast
    ((DENSE_HEAD == DENSE_DEPLOY_BLOCK + DENSE_BLOCKS)) ||
        dense_chain__die "head $DENSE_HEAD != deploy block $DENSE_DEPLOY_BLOCK + $DENSE_BLOCKS" || return 1
    local b lo hi bad
    for ((lo = DENSE_DEPLOY_BLOCK + 1; lo <= DENSE_HEAD; lo += 1000)); do
        hi=$((lo + 999 < DENSE_HEAD ? lo + 999 : DENSE_HEAD))
        bad=$(for ((b = lo; b <= hi; ++b)); do
            printf '{"jsonrpc":"2.0","id":%d,"method":"eth_getBlockTransactionCountByNumber","params":["0x%x"]}\n' "$b" "$b"
        done | jq -s -c . | curl -sS --fail -H 'content-type: application/json' "$DENSE_RPC" --data-binary @- |
            jq -r '[.[] | select(.result != "0x1") | .id] | .[:3] | join(" ")') ||
            dense_chain__die "eth_getBlockTransactionCountByNumber failed" || return 1
        [[ -z $bad ]] || dense_chain__die "blocks without exactly one transaction: $bad" || return 1
    done
    local feedback registered mid counts
    feedback=$("$cast" keccak 'NewFeedback(uint256,address,uint64,int128,uint8,string,string,string,string,string,bytes32)')
    registered=$("$cast" keccak 'Registered(uint256,string,address)')
    mid=$(((DENSE_DEPLOY_BLOCK + DENSE_HEAD) / 2))
    for lo in $((DENSE_DEPLOY_BLOCK + 1)) $((mid - 4)) $((DENSE_HEAD - 9)); do
        ((lo > DENSE_DEPLOY_BLOCK)) || lo=$((DENSE_DEPLOY_BLOCK + 1))
        hi=$((lo + 9 < DENSE_HEAD ? lo + 9 : DENSE_HEAD))
        counts=$(dense_chain__rpc eth_getLogs "[{\"address\":\"$DENSE_EMITTER\",\"fromBlock\":\"$(printf 0x%x "$lo")\",\"toBlock\":\"$(printf 0x%x "$hi")\"}]" |
            jq -r --arg f "$feedback" --arg r "$registered" \
                'group_by(.blockNumber) | map([(map(select(.topics[0] == $f)) | length), (map(select(.topics[0] == $r)) | length)] | "\(.[0])/\(.[1])") | "\(unique | join(" ")) \(length)"') ||
            return 1
        [[ $counts = "80/4 $((hi - lo + 1))" ]] ||
            dense_chain__die "blocks $lo..$hi: NewFeedback/Registered per block and blocks with logs: $counts" || return 1
    done
}

if [[ ${BASH_SOURCE[0]} = "$0" ]]; then
    set -euo pipefail
    trap dense_chain_stop EXIT
    trap 'exit 0' INT TERM
    dense_chain_start "${1:?usage: dense_chain.sh BLOCKS [PORT]}" "${2:-0}"
    if [[ -n ${DENSE_CHAIN_ENV:-} ]]; then
        # Written whole then renamed, so a reader polling for the file never sees half of it.
        printf 'DENSE_RPC=%s\nDENSE_EMITTER=%s\nDENSE_DEPLOY_BLOCK=%s\nDENSE_HEAD=%s\nDENSE_BLOCKS=%s\n' \
            "$DENSE_RPC" "$DENSE_EMITTER" "$DENSE_DEPLOY_BLOCK" "$DENSE_HEAD" "$DENSE_BLOCKS" >"$DENSE_CHAIN_ENV.tmp"
        mv "$DENSE_CHAIN_ENV.tmp" "$DENSE_CHAIN_ENV"
    fi
    # Keep anvil up for the caller; `wait` returns on the signal, whose trap exits via cleanup.
    wait "$dense_chain_pid"
fi
