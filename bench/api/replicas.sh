#!/usr/bin/env bash
# Two API replicas plus one writer on one PostgreSQL, against one API node alone on the same
# database: agent detail (detail.lua) under wrk, stepping the offered rate up.
#   bench/api/replicas.sh <build-dir> [feedback=1000000] [seconds=10]
# (BENCH_AGENTS, default 100,000, for a quick check of the script itself.)
# 1. A throwaway PostgreSQL server (scripts/postgres-server.sh), a database, and api_bench_gen's
#    BENCH_AGENTS agents / <feedback> feedback rows in it (chain 31337, registries 0x..01/02/03).
# 2. `credence devnet --chain-id 31338` (anvil, a CREDENCE_HOME under the work dir) and
#    `credence node --role writer` indexing that chain into the same database (serves only
#    /healthz, /metrics, /api/v1/status).
# 3. Two `credence node --config api.toml` processes, role api, chain 31337, the bench registries.
# 4. Per step, two wrk processes at once (one per replica, equal offered rates), BENCH_STEPS
#    "connections:delay_ms" per wrk process; the offered rate per process is about
#    connections * 1000 / (delay + latency + ~1 ms of wrk's timer slack here; run.sh says ~3 ms),
#    printed as connections * 1000 / (delay + 1 ms): an upper bound once latency grows.
#    Stops when p99 passes 20 ms or the achieved rate grows by less than 5 %. Before the steps,
#    BENCH_WARMUP seconds (5) at 4 connections / 20 ms per wrk, not recorded (a fresh database and
#    fresh nodes are cold).
# 5. The same steps (still two wrk processes, so the client side is the same) against ONE
#    `--role api` node alone on the same database (the writer still running): "one node".
#    `--role all` needs an RPC of its own chain, so the bench chain cannot have an all-in-one node.
# Servers listen on 127.0.0.1 only. The API nodes' rate limit (10^9/s) and per-IP connection cap
# (100,000) are out of the way (all of wrk's connections come from 127.0.0.1); otherwise the
# defaults (8 handler threads, 8 database connections each).
set -euo pipefail
build=${1:?build dir}
feedback=${2:-1000000}
seconds=${3:-10}
export BENCH_AGENTS=${BENCH_AGENTS:-100000}  # detail.lua reads it too
steps=${BENCH_STEPS:-"4:20 7:20 10:20 14:20 20:20 14:10 16:10 18:10 20:10"}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
credence=$build/src/credence/credence
# shellcheck source=scripts/postgres-server.sh
source "$root/scripts/postgres-server.sh"

work=$(mktemp -d /tmp/credence-replicas.XXXXXX)
chmod 755 "$work"
export CREDENCE_HOME=$work/home
mkdir -p "$CREDENCE_HOME"
pids=()
cleanup() {
    local pid
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    pg_server_stop "$work/pg" || true
    rm -rf "$work"
}
trap cleanup EXIT

# $1 log file: waits for "serving http://127.0.0.1:PORT" and prints PORT.
serving_port() {
    local _
    for _ in $(seq 1200); do
        if grep -qoP 'serving http://127\.0\.0\.1:\K[0-9]+' "$1" 2>/dev/null; then
            grep -oP 'serving http://127\.0\.0\.1:\K[0-9]+' "$1" | head -n1
            return 0
        fi
        sleep 0.1
    done
    echo "no 'serving' line in $1:" >&2
    cat "$1" >&2
    return 1
}
# $1 URL: waits for 200.
wait_200() {
    local _
    for _ in $(seq 600); do
        [ "$(curl -s -o /dev/null -w '%{http_code}' "$1")" = 200 ] && return 0
        sleep 0.1
    done
    echo "$1 did not answer 200" >&2
    return 1
}

echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
echo "== load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"

pg_server_start "$work/pg"
db="postgresql://postgres@127.0.0.1:$PG_PORT/api_bench"
psql -q -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -c 'CREATE DATABASE api_bench' > /dev/null
echo "== PostgreSQL $(psql -At -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -c 'SHOW server_version') on 127.0.0.1:$PG_PORT (fsync off)"
"$build/bench/api/api_bench_gen" "$db" "$BENCH_AGENTS" "$feedback"

# The writer's chain: a devnet on another chain id, its deployment in $CREDENCE_HOME.
"$credence" devnet --port 0 --chain-id 31338 > "$work/devnet.log" 2>&1 &
pids+=($!)
for _ in $(seq 600); do [ -f "$CREDENCE_HOME/devnet.json" ] && break; sleep 0.1; done
rpc=$(grep -oP 'anvil at \K\S+' "$work/devnet.log")
"$credence" node --role writer --rpc "$rpc" --chain-id 31338 --database "$db" --port 0 \
    --no-verify > "$work/writer.log" 2>&1 &
pids+=($!)
writer_port=$(serving_port "$work/writer.log")
wait_200 "http://127.0.0.1:$writer_port/api/v1/status"
echo "== writer: chain 31338 from $rpc, http://127.0.0.1:$writer_port (status/health/metrics only)"

cat > "$work/api.toml" <<EOF
[node]
role = "api"

[chain]
chain_id = 31337

[[registries]]
kind = "identity"
address = "0x0000000000000000000000000000000000000001"

[[registries]]
kind = "reputation"
address = "0x0000000000000000000000000000000000000002"

[[registries]]
kind = "validation"
address = "0x0000000000000000000000000000000000000003"

[database]
location = "$db"

[http]
bind = "127.0.0.1"
rate_limit_per_second = 1000000000
rate_limit_burst = 1000000000
max_connections_per_ip = 100000
EOF

# $1 name: starts an API node; sets api_pid and api_port.
start_api() {
    "$credence" node --config "$work/api.toml" --port 0 --no-verify > "$work/$1.log" 2>&1 &
    api_pid=$!
    pids+=("$api_pid")
    api_port=$(serving_port "$work/$1.log")
    wait_200 "http://127.0.0.1:$api_port/api/v1/agents/1"
}
start_api replica-a
a_pid=$api_pid a_port=$api_port
start_api replica-b
b_pid=$api_pid b_port=$api_port
echo "== API replicas: http://127.0.0.1:$a_port and http://127.0.0.1:$b_port"

# "value unit" from wrk (us, ms, s) in ms.
to_ms() {
    awk '{v = $1; u = $1; sub(/[0-9.]+/, "", u); sub(/[a-z]+$/, "", v);
          if (u == "us") v /= 1000; else if (u == "s") v *= 1000; else if (u == "m") v *= 60000;
          printf "%.2f", v}' <<< "$1"
}
field() { grep -oP "$2" "$1" | head -n1; }
# utime + stime in ticks of the given pids (the postgres ones: every child of the postmaster).
cpu_ticks() {
    local pid total=0 t
    for pid in "$@"; do
        t=$(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null) || t=0
        total=$((total + ${t:-0}))
    done
    echo "$total"
}
postmaster=$(head -n1 "$work/pg/data/postmaster.pid")
pg_ticks() {
    local -a children
    mapfile -t children < <(pgrep -P "$postmaster" || true)
    cpu_ticks "${children[@]}"
}
hz=$(getconf CLK_TCK)

table=()
# $1 label, $2 $3 the two target ports, $4... the serving node pids.
run_steps() {
    local label=$1 port1=$2 port2=$3 best=0
    shift 3
    local step c delay offered
    wrk -t1 -c4 -d"${BENCH_WARMUP:-5}s" -s "$here/detail.lua" "http://127.0.0.1:$port1" > /dev/null &
    local warm=$!
    wrk -t1 -c4 -d"${BENCH_WARMUP:-5}s" -s "$here/detail.lua" "http://127.0.0.1:$port2" > /dev/null
    wait "$warm"
    for step in $steps; do
        c=${step%%:*} delay=${step##*:}
        offered=$((2 * c * 1000 / (delay + 1)))
        local node_before pg_before node_after pg_after
        node_before=$(cpu_ticks "$@")
        pg_before=$(pg_ticks)
        BENCH_DELAY_MS=$delay wrk -t1 -c"$c" -d"${seconds}s" --latency -s "$here/detail.lua" \
            "http://127.0.0.1:$port1" > "$work/wrk1.out" 2>&1 &
        local w1=$!
        BENCH_DELAY_MS=$delay wrk -t1 -c"$c" -d"${seconds}s" --latency -s "$here/detail.lua" \
            "http://127.0.0.1:$port2" > "$work/wrk2.out" 2>&1 &
        local w2=$!
        wait "$w1" "$w2"
        node_after=$(cpu_ticks "$@")
        pg_after=$(pg_ticks)
        local r1 r2 p50a p50b p99a p99b n1 n2 e1 e2 rate p99 requests
        r1=$(field "$work/wrk1.out" 'Requests/sec:\s*\K[0-9.]+')
        r2=$(field "$work/wrk2.out" 'Requests/sec:\s*\K[0-9.]+')
        p50a=$(to_ms "$(field "$work/wrk1.out" '^\s*50%\s+\K\S+')")
        p50b=$(to_ms "$(field "$work/wrk2.out" '^\s*50%\s+\K\S+')")
        p99a=$(to_ms "$(field "$work/wrk1.out" '^\s*99%\s+\K\S+')")
        p99b=$(to_ms "$(field "$work/wrk2.out" '^\s*99%\s+\K\S+')")
        n1=$(field "$work/wrk1.out" 'Non-2xx or 3xx responses:\s*\K[0-9]+' || true)
        n2=$(field "$work/wrk2.out" 'Non-2xx or 3xx responses:\s*\K[0-9]+' || true)
        e1=$(field "$work/wrk1.out" 'Socket errors:.*' || true)
        e2=$(field "$work/wrk2.out" 'Socket errors:.*' || true)
        rate=$(awk -v a="$r1" -v b="$r2" 'BEGIN {printf "%.0f", a + b}')
        p99=$(awk -v a="$p99a" -v b="$p99b" 'BEGIN {printf "%.2f", (a > b ? a : b)}')
        requests=$(awk -v r="$rate" -v s="$seconds" 'BEGIN {printf "%d", r * s}')
        local node_us pg_us
        node_us=$(( (node_after - node_before) * 1000000 / hz / (requests > 0 ? requests : 1) ))
        pg_us=$(( (pg_after - pg_before) * 1000000 / hz / (requests > 0 ? requests : 1) ))
        local row
        row=$(printf '| %s | %d x %d conn, %d ms | ~%d | %d | %s / %s | %s / %s | %d | %d us | %d us | %s |' \
            "$label" 2 "$c" "$delay" "$offered" "$rate" "$p50a" "$p50b" "$p99a" "$p99b" \
            $(( ${n1:-0} + ${n2:-0} )) "$node_us" "$pg_us" "$(cut -d' ' -f1 /proc/loadavg)")
        echo "$row"
        [ -n "$e1$e2" ] && echo "   socket errors: ${e1:-none} | ${e2:-none}"
        table+=("$row")
        if awk -v p="$p99" 'BEGIN {exit !(p > 20)}'; then
            echo "   p99 $p99 ms > 20 ms: stop"
            break
        fi
        if awk -v r="$rate" -v b="$best" 'BEGIN {exit !(r < b * 1.05)}'; then
            echo "   achieved $rate req/s, under 5 % above the best so far ($best): stop"
            break
        fi
        best=$(( rate > best ? rate : best ))
    done
}

header='| serving | wrk per step | offered req/s | achieved req/s | p50 ms (wrk 1 / wrk 2) | p99 ms (wrk 1 / wrk 2) | non-2xx | node CPU/req | postgres CPU/req | load |'
rule='|---|---|---:|---:|---:|---:|---:|---:|---:|---:|'
echo "== two replicas (one wrk each), ${seconds}s per step"
echo "$header"
echo "$rule"
run_steps "2 replicas" "$a_port" "$b_port" "$a_pid" "$b_pid"

# One node: replica B stops; both wrk processes drive replica A.
kill -TERM "$b_pid"
wait "$b_pid" 2>/dev/null || true
echo "== one --role api node alone on the same database (both wrk processes against it), ${seconds}s per step"
echo "$header"
echo "$rule"
run_steps "1 node" "$a_port" "$a_port" "$a_pid"

echo
echo "== results: $BENCH_AGENTS agents, $feedback feedback; $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
echo "   (PostgreSQL, the writer, the API node(s) and both wrk processes share these cores;"
echo "   'node CPU/req' is the serving node(s)' CPU, 'postgres CPU/req' every postgres backend's)"
echo "$header"
echo "$rule"
printf '%s\n' "${table[@]}"
echo "== writer at the end: $(curl -s "http://127.0.0.1:$writer_port/api/v1/status" | python3 -c '
import json, sys
s = json.load(sys.stdin)
print(json.dumps(s.get("node", s).get("chains", s))[:400])')"
echo "== load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
