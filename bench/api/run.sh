#!/usr/bin/env bash
# Issue 7 §Performance: wrk against the REST API over 100,000 agents and 1,000,000 feedback rows.
#   bench/api/run.sh <build-dir> [sqlite-file | postgresql://...] [seconds=30]
# Generates the index when the SQLite file does not exist (or always for a PostgreSQL URL, unless
# BENCH_SKIP_GEN is set), starts
# api_bench_server under /usr/bin/time -v, drives agent detail then search at 500 req/s (10
# connections, each waiting 20 ms between requests: wrk's Lua delay()), and prints wrk's latency
# distribution, the achieved rate and the server's peak RSS. BENCH_CONNECTIONS (11) and BENCH_DELAY_MS (20)
# set the offered rate: connections / (delay + latency) ~ 500 req/s at a few ms of latency.
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
/usr/bin/time -v "$build/bench/api/api_bench_server" "$db" "$port" 8 > /dev/null 2> "$log" &
wrapper=$!
server_pid() { pgrep -P "$wrapper" api_bench_serve || true; }
for _ in $(seq 50); do
    curl -sf "http://127.0.0.1:$port/healthz" > /dev/null && break
    sleep 0.1
done
curl -sf "http://127.0.0.1:$port/api/v1/agents/1" > /dev/null
for route in detail search; do
    echo "== $route: ${BENCH_CONNECTIONS:-11} connections, ${BENCH_DELAY_MS:-20} ms between requests each, ${seconds}s"
    wrk -t2 -c"${BENCH_CONNECTIONS:-11}" -d"${seconds}s" --latency -s "$here/$route.lua" "http://127.0.0.1:$port" |
        grep -E "Latency|50%|90%|99%|requests in|Requests/sec|Non-2xx|Socket errors"
done
kill -TERM "$(server_pid)"
wait "$wrapper" || true
grep -E "Maximum resident set size|Elapsed" "$log"
rm -f "$log"
