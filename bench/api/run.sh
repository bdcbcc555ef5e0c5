#!/usr/bin/env bash
# Wrk against the REST API over 100,000 agents and 1,000,000 feedback rows.
#   bench/api/run.sh <build-dir> [sqlite-file | postgresql://...] [seconds=30]
# Generates the index when the SQLite file does not exist (or always for a PostgreSQL URL, unless
# BENCH_SKIP_GEN is set), starts
# api_bench_server under /usr/bin/time -v, drives agent detail then search at a fixed offered rate
# (BENCH_CONNECTIONS connections, each waiting BENCH_DELAY_MS between requests: wrk's Lua delay()),
# and prints wrk's latency distribution, the achieved rate, the server's CPU time per request and
# its peak RSS. Offered rate ~ connections / (delay + latency + wrk's timer slack, ~3 ms): the
# defaults (14, 20 ms) offer ~600 req/s. The server gets BENCH_THREADS (16) handler threads
# (connections cost none since the Beast server; 16 keeps runs comparable), and BENCH_DB_CONNECTIONS
# database connections (default 0: RestApiOptions' choice by backend, 2 for SQLite, 8 for PostgreSQL).
set -euo pipefail
build=${1:?build dir}
db=${2:-/tmp/credence_api_bench.sqlite}
seconds=${3:-30}
here=$(cd "$(dirname "$0")" && pwd)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
if [[ -z "${BENCH_SKIP_GEN:-}" && ( "$db" == postgres* || ! -f "$db" ) ]]; then
    "$build/bench/api/api_bench_gen" "$db" 100000 1000000
fi
log=$(mktemp)
/usr/bin/time -v "$build/bench/api/api_bench_server" "$db" "$port" "${BENCH_THREADS:-16}" \
    "${BENCH_DB_CONNECTIONS:-0}" > /dev/null 2> "$log" &
wrapper=$!
server_pid() { pgrep -P "$wrapper" api_bench_serve || true; }
for _ in $(seq 600); do  # the GraphQL snapshot is built before serving
    curl -sf "http://127.0.0.1:$port/healthz" > /dev/null && break
    sleep 0.1
done
curl -sf "http://127.0.0.1:$port/api/v1/agents/1" > /dev/null
# Warm the GraphQL route as the REST one: its first query sorts the agents by updatedAt once per
# snapshot (subgraph/snapshot_source.hpp).
curl -sf -H 'content-type: application/json' "http://127.0.0.1:$port/subgraphs/agent0" \
    --data '{"query":"{ agents(first: 1, orderBy: updatedAt) { id } }"}' > /dev/null
cpu_ticks() { awk '{print $14 + $15}' "/proc/$(server_pid)/stat"; }
ticks_per_second=$(getconf CLK_TCK)
for route in ${BENCH_ROUTES:-detail search graphql_search}; do
    echo "== $route: ${BENCH_CONNECTIONS:-14} connections, ${BENCH_DELAY_MS:-20} ms between requests each, ${seconds}s"
    before=$(cpu_ticks)
    out=$(wrk -t2 -c"${BENCH_CONNECTIONS:-14}" -d"${seconds}s" --latency -s "$here/$route.lua" \
        "http://127.0.0.1:$port")
    after=$(cpu_ticks)
    grep -E "Latency|50%|90%|99%|requests in|Requests/sec|Non-2xx|Socket errors" <<< "$out"
    requests=$(grep -oP '^\s*\K[0-9]+(?= requests in)' <<< "$out")
    echo "server CPU: $(( (after - before) * 1000000 / ticks_per_second / requests )) us per request"
    echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
done
kill -TERM "$(server_pid)"
wait "$wrapper" || true
grep -E "Maximum resident set size|Elapsed" "$log"
rm -f "$log"
