#!/usr/bin/env bash
# Sync speed against the node's own ceiling and against Ponder, in one script (docs/benchmarks.md
# §Sync speed): on a dense anvil chain made by dense_chain.sh (every block one transaction of 80
# NewFeedback + 4 Registered with the exact ERC-8004 signatures, one contract), it measures in
# turn:
#   1. the ceiling: bench/index/getlogs_ceiling, a parallel raw eth_getLogs sweep parsed with the
#      indexer's parser, no database (the best of a few window sizes and requests in flight);
#   2. `credence index --once` into a fresh SQLite file, and into a throwaway PostgreSQL server;
#   3. Ponder (bench/index/ponder, pinned), with the same two tables stored.
# With PostgreSQL it also measures PostgreSQL's own write ceiling for the rows credence stored:
# pg_dump of that database, then pg_restore into a new one (COPY, then the indexes), timed.
# It prints logs/s for each (every log of the range: credence follows the contract as both an
# identity and a reputation registry, so like Ponder it stores all 84 logs of a block), % of the
# ceiling, x Ponder, the time to the first committed batch, and peak RSS.
#
#   bench/index/sync_speed.sh [BLOCKS (2500)] [build-dir (build/release)]
#
# Needs npm ci, forge build (the DenseEmitter artifact) and the build dir's `credence` and
# `getlogs_ceiling`. SKIP_PONDER=1 leaves Ponder out; BACKENDS="sqlite postgres" (default) picks
# the credence runs.
set -euo pipefail

blocks=${1:-2500}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${2:-build/release}
[[ $build = /* ]] || build=$repo/$build
credence=$build/src/credence/credence
ceiling=$build/bench/index/getlogs_ceiling
backends=${BACKENDS:-sqlite postgres}
for f in "$credence" "$ceiling"; do
    [[ -x $f ]] || { echo "sync_speed.sh: $f not found: cmake --build $build" >&2; exit 2; }
done

work=$(mktemp -d /tmp/credence-sync-speed.XXXXXX)
chmod 755 "$work"  # the PostgreSQL server runs as its own user
pg_pid=
cleanup() {
    dense_chain_stop 2>/dev/null || true
    if [[ -n $pg_pid ]]; then kill "$pg_pid" 2>/dev/null || true; wait "$pg_pid" 2>/dev/null || true; fi
    if [[ ${KEEP:-0} = 1 ]]; then echo "work directory kept: $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

# shellcheck source=bench/index/dense_chain.sh
. "$repo/bench/index/dense_chain.sh"
dense_chain_start "$blocks" >"$work/chain.txt"
cat "$work/chain.txt"
from=$((DENSE_DEPLOY_BLOCK + 1))
logs=$((84 * blocks))
echo "== dense chain: $blocks blocks ($logs logs) on $DENSE_RPC, 2 cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

rate() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.0f", n / s }'; }
rss_mb() { awk -F': ' '/Maximum resident set size/ { printf "%d", $2 / 1024 }' "$1"; }

# 1. The ceiling: the best sweep over a few windows and requests in flight.
best=0 best_line=
for window in 25 100 400; do
    for in_flight in 1 4 8; do
        line=$("$ceiling" "$DENSE_RPC" "$DENSE_EMITTER" "$from" "$DENSE_HEAD" "$window" "$in_flight")
        got=$(jq -r .logs <<<"$line")
        [[ $got = "$logs" ]] || { echo "sync_speed.sh: the sweep saw $got logs, not $logs" >&2; exit 1; }
        per_s=$(jq -r .logs_per_s <<<"$line")
        echo "ceiling: window $window, $in_flight in flight: $per_s logs/s"
        if ((per_s > best)); then best=$per_s best_line=$line; fi
    done
done
echo "ceiling: $best logs/s ($best_line)"

results=()
# 2. credence index, per backend.
run_credence() {  # label database
    local label=$1 database=$2 out=$work/$1.jsonl tv=$work/$1.time
    local t0 first
    t0=$(date +%s.%N)
    /usr/bin/time -v -o "$tv" "$credence" index --once --json --rpc "$DENSE_RPC" --chain-id 31337 \
        --registry "identity=$DENSE_EMITTER@$from" --registry "reputation=$DENSE_EMITTER@$from" \
        --database "$database" 2>"$work/$label.err" |
        while IFS= read -r line; do printf '%s %s\n' "$(date +%s.%N)" "$line"; done >"$out"
    # No slow start: when the first batch committed, and how many logs it held.
    first=$(awk -v t0="$t0" '/"msg":"batch"/ { printf "%.2f s", $1 - t0; exit }' "$out")
    echo "$label: first batch committed after $first"
    local summary seconds stored
    summary=$(tail -n1 "$out" | cut -d' ' -f2-)
    seconds=$(jq -r .seconds <<<"$summary")
    stored=$(jq -r .events <<<"$summary")
    [[ $stored = "$logs" ]] || { echo "sync_speed.sh: $label stored $stored events, not $logs" >&2; exit 1; }
    results+=("$label $(rate "$logs" "$seconds") $seconds $(rss_mb "$tv")")
}
for backend in $backends; do
    case $backend in
    sqlite) run_credence credence-sqlite "$work/index.sqlite" ;;
    postgres)
        pg_bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n1)
        as_pg=()
        if [[ $(id -u) = 0 ]]; then as_pg=(runuser -u postgres --); fi
        mkdir -p "$work/pg"
        [[ ${#as_pg[@]} -gt 0 ]] && chown postgres: "$work/pg"
        "${as_pg[@]}" "$pg_bin/initdb" -D "$work/pg/data" -A trust -U postgres --no-sync -E UTF8 >/dev/null
        pg_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
        "${as_pg[@]}" "$pg_bin/postgres" -D "$work/pg/data" -p "$pg_port" -k "$work/pg" \
            -c listen_addresses=127.0.0.1 >"$work/pg.log" 2>&1 &
        pg_pid=$!
        for _ in $(seq 100); do
            "$pg_bin/pg_isready" -h 127.0.0.1 -p "$pg_port" -q && break
            sleep 0.1
        done
        "$pg_bin/createdb" -h 127.0.0.1 -p "$pg_port" -U postgres credence_sync
        run_credence credence-postgres "postgresql://postgres@127.0.0.1:$pg_port/credence_sync"
        # PostgreSQL's own write ceiling for these rows: the same database dumped, then restored
        # the fastest way PostgreSQL loads (pg_restore: COPY into bare tables, then the indexes
        # built), on the same server. No indexer could store the same rows faster through SQL.
        "$pg_bin/pg_dump" -h 127.0.0.1 -p "$pg_port" -U postgres -Fc -f "$work/pg.dump" credence_sync
        "$pg_bin/createdb" -h 127.0.0.1 -p "$pg_port" -U postgres credence_restore
        t0=$(date +%s.%N)
        "$pg_bin/pg_restore" -h 127.0.0.1 -p "$pg_port" -U postgres -d credence_restore "$work/pg.dump"
        restore_s=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
        pg_write_ceiling=$(rate "$logs" "$restore_s")
        echo "postgres write ceiling: pg_restore of the same rows in $restore_s s ($pg_write_ceiling logs/s)"
        results+=("pg_restore $pg_write_ceiling $restore_s 0")
        ;;
    esac
done

# 3. Ponder.
ponder_rate=
if [[ ${SKIP_PONDER:-0} != 1 ]]; then
    line=$("$repo/bench/index/ponder.sh" "$DENSE_RPC" "$DENSE_EMITTER" "$DENSE_DEPLOY_BLOCK" "$DENSE_HEAD" | tail -n1)
    echo "$line"
    seconds=$(sed -n 's/.* seconds=\([0-9.]*\).*/\1/p' <<<"$line")
    rss=$(sed -n 's/.* peak_rss_mb=\([0-9]*\).*/\1/p' <<<"$line")
    ponder_rate=$(rate "$logs" "$seconds")
    results+=("ponder $ponder_rate $seconds $rss")
fi

echo
echo "== $blocks blocks, $logs logs: the node's ceiling $best logs/s"
if [[ -n ${pg_write_ceiling:-} ]]; then
    credence_pg=$(printf '%s\n' "${results[@]}" | awk '$1 == "credence-postgres" { print $2 }')
    echo "credence on PostgreSQL: $(awk -v a="$credence_pg" -v b="$pg_write_ceiling" 'BEGIN { printf "%.0f%%", 100 * a / b }') of PostgreSQL's own write ceiling (pg_restore of the same rows)"
fi
printf '%-18s %10s %8s %10s %10s %9s\n' run logs/s seconds "% ceiling" "x Ponder" "peak RSS"
for r in "${results[@]}"; do
    read -r label per_s seconds rss <<<"$r"
    pct=$(awk -v a="$per_s" -v b="$best" 'BEGIN { printf "%.0f%%", 100 * a / b }')
    x=-
    [[ -n $ponder_rate ]] && x=$(awk -v a="$per_s" -v b="$ponder_rate" 'BEGIN { printf "%.1fx", a / b }')
    printf '%-18s %10s %8s %10s %10s %6s MB\n' "$label" "$per_s" "$seconds" "$pct" "$x" "$rss"
done
