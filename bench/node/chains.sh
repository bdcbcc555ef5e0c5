#!/usr/bin/env bash
# Many chains in one node (docs/node.md §Many chains; docs/benchmarks.md §Many chains): three dense
# anvil chains made by bench/index/dense_chain.sh (chain ids 31337, 31338, 31339; every block 80
# NewFeedback + 4 Registered, one contract followed as identity and reputation registry), then,
# side by side on the same data:
#   1. `credence node` following each chain alone ([[chains]] with one entry), one after the other;
#   2. `credence node` following the three at once, into one index.
# For each run and chain it prints the ingest rate (the chain's logs / the seconds from "serving"
# until /api/v1/status shows the chain indexed to its head), the multi-chain rate as % of the
# chain's single-chain rate, and the node's peak RSS (VmHWM) with the growth per extra chain.
# It also prints the CPU each run used, the node's, the three anvils' and the PostgreSQL server's
# (utime + stime over the run), as cores busy on average: what is left of the machine.
#
#   bench/node/chains.sh [BLOCKS (2000)] [build-dir (build/release)]
#
# BACKEND=postgres runs both on a throwaway PostgreSQL server (scripts/postgres-server.sh) instead
# of SQLite; IN_FLIGHT=N sets each chain's getlogs_in_flight (default: the node's, 4). Needs npm ci, forge build (DenseEmitter) and the build dir's `credence`.
set -euo pipefail

blocks=${1:-2000}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${2:-build/release}
[[ $build = /* ]] || build=$repo/$build
credence=$build/src/credence/credence
backend=${BACKEND:-sqlite}
[[ -x $credence ]] || { echo "chains.sh: $credence not found: cmake --build $build" >&2; exit 2; }

work=$(mktemp -d /tmp/credence-chains.XXXXXX)
chmod 755 "$work"
chain_pids=()
node_pid=
pg_dir=
cleanup() {
    [[ -n $node_pid ]] && kill -9 "$node_pid" 2>/dev/null || true
    for p in "${chain_pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    if [[ -n $pg_dir ]]; then pg_server_stop "$pg_dir"; fi
    rm -rf "$work"
}
trap cleanup EXIT

# 1. Three chains, made at once (anvil forgets old states: the node reads logs only).
ids=(31337 31338 31339)
for i in 0 1 2; do
    DENSE_CHAIN_ENV=$work/chain$i.env DENSE_ANVIL_ARGS="--chain-id ${ids[$i]} --prune-history" \
        "$repo/bench/index/dense_chain.sh" "$blocks" >"$work/chain$i.out" 2>&1 &
    chain_pids+=($!)
done
for i in 0 1 2; do
    for _ in $(seq 6000); do
        [[ -s $work/chain$i.env ]] && break
        kill -0 "${chain_pids[$i]}" 2>/dev/null || { cat "$work/chain$i.out" >&2; exit 1; }
        sleep 0.1
    done
    [[ -s $work/chain$i.env ]] || { echo "chains.sh: chain $i was not made" >&2; exit 1; }
done
# The anvils (the dense_chain.sh processes' children), for their CPU time.
anvil_pids=()
for i in 0 1 2; do anvil_pids+=("$(pgrep -P "${chain_pids[$i]}" -x anvil)"); done
ticks=$(getconf CLK_TCK)
cpu_ticks() {  # pid...: utime + stime (fields 14, 15 of /proc/PID/stat; the name has no spaces)
    local p sum=0
    for p in "$@"; do sum=$((sum + $(awk '{ print $14 + $15 }' "/proc/$p/stat" 2>/dev/null || echo 0))); done
    echo "$sum"
}
# The PostgreSQL server's processes (the postmaster and its children), "pid ticks" per line: a
# run's server CPU is what those alive at its end used since its start (backends start with it).
pg_ticks() {
    [[ -n $pg_dir ]] || return 0
    local main p
    main=$(head -n1 "$pg_dir/data/postmaster.pid")
    for p in "$main" $(pgrep -P "$main"); do echo "$p $(cpu_ticks "$p")"; done
}
rpc=() emitter=() deploy=() head=()
for i in 0 1 2; do
    # shellcheck disable=SC1090
    . "$work/chain$i.env"
    rpc+=("$DENSE_RPC") emitter+=("$DENSE_EMITTER") deploy+=("$DENSE_DEPLOY_BLOCK")
    head+=("$DENSE_HEAD")
done
logs=$((84 * blocks))
echo "== 3 chains of $blocks blocks ($logs logs each), $(nproc) cores, backend $backend"

if [[ $backend = postgres ]]; then
    # shellcheck source=scripts/postgres-server.sh
    . "$repo/scripts/postgres-server.sh"
    pg_dir=$work/pg
    pg_server_start "$pg_dir" >/dev/null
    pg_bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n1)
fi

database_of() {  # label
    if [[ $backend = postgres ]]; then
        "$pg_bin/createdb" -h 127.0.0.1 -p "$PG_PORT" -U postgres "$1"
        echo "postgresql://postgres@127.0.0.1:$PG_PORT/$1"
    else
        echo "$work/$1.sqlite"
    fi
}

# One node over the chains given by index; prints "label chain seconds logs/s" per chain and
# "label rss MB".
run_node() {  # label i...
    local label=$1
    shift
    local config=$work/$label.toml i
    : >"$config"
    for i in "$@"; do
        cat >>"$config" <<EOF
[[chains]]
rpc = "${rpc[$i]}"
chain_id = ${ids[$i]}
poll_ms = 100
${IN_FLIGHT:+getlogs_in_flight = $IN_FLIGHT}
[[chains.registries]]
kind = "identity"
address = "${emitter[$i]}"
start_block = $((deploy[i] + 1))
[[chains.registries]]
kind = "reputation"
address = "${emitter[$i]}"
start_block = $((deploy[i] + 1))
EOF
    done
    CREDENCE_HOME=$work/home-$label "$credence" node --config "$config" --port 0 --no-verify \
        --database "$(database_of "credence_$label")" >"$work/$label.out" 2>"$work/$label.err" &
    node_pid=$!
    local url= t0
    for _ in $(seq 600); do
        url=$(sed -n 's/^credence node: serving \(http.*\)$/\1/p' "$work/$label.out" 2>/dev/null || true)
        [[ -n $url ]] && break
        kill -0 "$node_pid" 2>/dev/null || { cat "$work/$label.err" >&2; exit 1; }
        sleep 0.05
    done
    [[ -n $url ]] || { echo "chains.sh: $label did not serve" >&2; exit 1; }
    t0=$(date +%s.%N)
    local anvil0 node0
    anvil0=$(cpu_ticks "${anvil_pids[@]}") node0=$(cpu_ticks "$node_pid")
    pg_ticks >"$work/$label.pg0"
    declare -A done_at=()
    while ((${#done_at[@]} < $#)); do
        local status now
        status=$(curl -s "$url/api/v1/status") || status='{}'
        now=$(date +%s.%N)
        for i in "$@"; do
            [[ -n ${done_at[$i]:-} ]] && continue
            if [[ $(jq -r --argjson id "${ids[$i]}" \
                '.node.chains[]? | select(.chain_id == $id) | .indexed_block_num' <<<"$status") = "${head[$i]}" ]]; then
                done_at[$i]=$now
            fi
        done
        kill -0 "$node_pid" 2>/dev/null || { cat "$work/$label.err" >&2; exit 1; }
        (($(awk -v a="$t0" -v b="$now" 'BEGIN { print (b - a > 900) }'))) &&
            { echo "chains.sh: $label did not reach the heads in 900 s" >&2; exit 1; }
        sleep 0.1
    done
    local rss wall anvil_s node_s pg_s
    pg_ticks >"$work/$label.pg1"
    pg_s=$(awk -v t="$ticks" 'NR == FNR { start[$1] = $2; next } { sum += $2 - start[$1] }
        END { printf "%.2f", sum / t }' "$work/$label.pg0" "$work/$label.pg1")
    rss=$(awk '/^VmHWM:/ { printf "%d", $2 / 1024 }' "/proc/$node_pid/status")
    wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
    anvil_s=$(awk -v a="$anvil0" -v b="$(cpu_ticks "${anvil_pids[@]}")" -v t="$ticks" 'BEGIN { printf "%.2f", (b - a) / t }')
    node_s=$(awk -v a="$node0" -v b="$(cpu_ticks "$node_pid")" -v t="$ticks" 'BEGIN { printf "%.2f", (b - a) / t }')
    kill -TERM "$node_pid"
    wait "$node_pid" || { echo "chains.sh: $label did not stop cleanly" >&2; cat "$work/$label.err" >&2; exit 1; }
    node_pid=
    for i in "$@"; do
        awk -v l="$label" -v id="${ids[$i]}" -v n="$logs" -v a="$t0" -v b="${done_at[$i]}" \
            'BEGIN { printf "%s %s %.2f %.0f\n", l, id, b - a, n / (b - a) }'
    done
    echo "$label rss $rss"
    echo "$label cpu $wall $node_s $anvil_s $pg_s"
}

results=$work/results.txt
: >"$results"
for i in 0 1 2; do run_node "alone$i" "$i" >>"$results"; done
run_node three 0 1 2 >>"$results"
cat "$results"

echo
printf '%-8s %10s %12s %12s %10s\n' chain alone "three at once" "% of alone" ""
for i in 0 1 2; do
    alone=$(awk -v l="alone$i" '$1 == l && $2 ~ /^[0-9]+$/ { print $4 }' "$results")
    three=$(awk -v id="${ids[$i]}" '$1 == "three" && $2 == id { print $4 }' "$results")
    printf '%-8s %10s %12s %11.0f%%\n' "${ids[$i]}" "$alone/s" "$three/s" \
        "$(awk -v a="$three" -v b="$alone" 'BEGIN { print 100 * a / b }')"
done
echo
printf '%-8s %8s %12s %12s %14s %12s\n' run seconds "node CPU" "anvils CPU" "server CPU" "cores busy"
awk '$2 == "cpu" { printf "%-8s %8s %11ss %11ss %13ss %12.2f\n", $1, $3, $4, $5, $6, ($4 + $5 + $6) / $3 }' "$results"
one_rss=$(awk '$1 ~ /^alone/ && $2 == "rss" { if ($3 > m) m = $3 } END { print m }' "$results")
three_rss=$(awk '$1 == "three" && $2 == "rss" { print $3 }' "$results")
echo "peak RSS: one chain $one_rss MB (the largest of the three), three chains $three_rss MB:" \
    "$(((three_rss - one_rss) / 2)) MB per extra chain"
