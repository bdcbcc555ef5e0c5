#!/usr/bin/env bash
# Writer failover on PostgreSQL (docs/scale.md §Failover; docs/benchmarks.md §Writer failover):
# a devnet (`credence devnet`) with some agents and feedback spread over many empty blocks, none of
# them final to the nodes (--finality-depth 100000: the sync reads every header, so it is long),
# and two `credence node --role writer` on one throwaway PostgreSQL database. Each round SIGKILLs
# whichever node writes, as soon as it has committed a batch and before it reaches the head, and
# times how long the other takes to say it writes (its /api/v1/status `role`), then waits for it
# to reach the head and starts a fresh standby for the next round.
#
#   bench/node/failover.sh [ROUNDS (5)] [EMPTY_BLOCKS (20000)] [build-dir (build/release)]
#
# Prints one line per round and the worst takeover. Needs npm ci (anvil) and the build's
# `credence`. The index after a takeover equals an uninterrupted one: that is the test
# node_roles_cli.sigkill_of_the_writer_mid_sync_hands_the_chain_to_the_standby.
set -euo pipefail

rounds=${1:-5}
empty=${2:-20000}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${3:-build/release}
[[ $build = /* ]] || build=$repo/$build
credence=$build/src/credence/credence
[[ -x $credence ]] || { echo "failover.sh: $credence not found: cmake --build $build" >&2; exit 2; }

work=$(mktemp -d /tmp/credence-failover.XXXXXX)
chmod 755 "$work"
pids=()
pg_dir=
cleanup() {
    for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    if [[ -n $pg_dir ]]; then pg_server_stop "$pg_dir"; fi
    rm -rf "$work"
}
trap cleanup EXIT

export CREDENCE_HOME=$work/home
"$credence" devnet --port 0 --json >"$work/devnet.json" 2>"$work/devnet.err" &
pids+=($!)
rpc=
for _ in $(seq 600); do
    rpc=$(jq -r '.rpcUrl // empty' "$work/devnet.json" 2>/dev/null || true)
    [[ -n $rpc ]] && break
    sleep 0.1
done
[[ -n $rpc ]] || { cat "$work/devnet.err" >&2; exit 1; }
call() {
    curl -sS -H 'content-type: application/json' "$rpc" \
        --data "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"$1\",\"params\":$2}" | jq -r .result
}
# The devnet's first two development keys (public anvil test keys, devnet only).
owner=$(jq -r '.devAccounts[0].privateKey' "$work/devnet.json")
client=$(jq -r '.devAccounts[1].privateKey' "$work/devnet.json")
# Four agents with a feedback each, EMPTY_BLOCKS / 4 empty blocks after each.
for i in 1 2 3 4; do
    "$credence" agent register --uri "https://failover$i.test/" --private-key "$owner" >/dev/null
    "$credence" feedback give "$((i - 1))" 80 --private-key "$client" >/dev/null ||
        { echo "failover.sh: feedback failed (client $(jq -r '.devAccounts[1].address' "$work/devnet.json"))" >&2; exit 1; }
    call anvil_mine "[\"0x$(printf '%x' $((empty / 4)))\"]" >/dev/null
done
head=$(($(call eth_blockNumber '[]')))

# shellcheck source=scripts/postgres-server.sh
. "$repo/scripts/postgres-server.sh"
pg_dir=$work/pg
pg_server_start "$pg_dir" >/dev/null
pg_bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n1)
"$pg_bin/createdb" -h 127.0.0.1 -p "$PG_PORT" -U postgres failover
db=postgresql://postgres@127.0.0.1:$PG_PORT/failover
echo "== failover: $head blocks, 2 writers on PostgreSQL, $rounds rounds, $(nproc) cores"

# Starts a writer; sets `started_pid` and `started_url`.
start_writer() {
    local name=$1 url=
    mkdir -p "$work/$name"
    CREDENCE_HOME=$work/$name "$credence" node --role writer --rpc "$rpc" \
        --deployment "$CREDENCE_HOME/deployments/31337.json" --database "$db" --port 0 \
        --no-verify --poll-ms 100 --finality-depth 100000 >"$work/$name.out" 2>"$work/$name.err" &
    started_pid=$!
    pids+=("$started_pid")
    for _ in $(seq 600); do
        url=$(sed -n 's/^credence node: serving \(http.*\)$/\1/p' "$work/$name.out" 2>/dev/null || true)
        [[ -n $url ]] && break
        sleep 0.05
    done
    [[ -n $url ]] || { cat "$work/$name.err" >&2; exit 1; }
    started_url=$url
}
chain_field() { curl -s "$1/api/v1/status" | jq -r ".node.chains[0].$2" 2>/dev/null || true; }

worst=0
for round in $(seq "$rounds"); do
    "$pg_bin/dropdb" -h 127.0.0.1 -p "$PG_PORT" -U postgres --if-exists failover
    "$pg_bin/createdb" -h 127.0.0.1 -p "$PG_PORT" -U postgres failover
    start_writer "a$round"; pid_a=$started_pid url_a=$started_url
    start_writer "b$round"; pid_b=$started_pid url_b=$started_url
    writer= standby=
    for _ in $(seq 3000); do
        for pair in "$pid_a $url_a $pid_b $url_b" "$pid_b $url_b $pid_a $url_a"; do
            read -r p u op ou <<<"$pair"
            block=$(chain_field "$u" indexed_block_num)
            if [[ $(chain_field "$u" role) = writer && $block =~ ^[0-9]+$ ]]; then
                writer="$p $u $block" standby="$op $ou"
                break 2
            fi
        done
        sleep 0.01
    done
    [[ -n $writer ]] || { echo "failover.sh: no writer" >&2; exit 1; }
    read -r wp wu block <<<"$writer"
    read -r sp su <<<"$standby"
    ((block < head)) || { echo "failover.sh: the sync ended before the kill; raise EMPTY_BLOCKS" >&2; exit 1; }
    t0=$(date +%s%N)
    kill -9 "$wp"
    while [[ $(chain_field "$su" role) != writer || $(chain_field "$su" state) != following ]]; do
        sleep 0.01
    done
    ms=$((($(date +%s%N) - t0) / 1000000))
    ((ms > worst)) && worst=$ms
    until [[ $(chain_field "$su" indexed_block_num) = "$head" ]]; do sleep 0.1; done
    echo "round $round: killed the writer at block $block of $head; the standby wrote after $ms ms"
    kill -TERM "$sp"
    wait "$sp" 2>/dev/null || true
done
echo "worst takeover: $worst ms (node.election_retry_ms = 1000)"
