#!/usr/bin/env bash
# Slow and idle clients against the node's HTTP server and against nginx, side by side
# (docs/benchmarks.md "HTTP server under slow and idle clients").
#   bench/attack/run.sh <build-dir> [sqlite-file=/tmp/credence_api_bench.sqlite] [seconds=20]
# For each server: a baseline (no attack), then ATTACK_SLOWLORIS (1000) slowloris + ATTACK_IDLE
# (1000) idle keep-alive connections from one source address (127.0.0.2), then the same spread
# over ATTACK_SOURCES (50) addresses (past the per-IP cap), while a normal client on 127.0.0.1
# measures /healthz and an agent's detail. nginx serves the same two paths as static files (a
# copy of the node's answers), with worker_connections 4096 and Debian's other defaults.
# ATTACK_ONLY=credence or ATTACK_ONLY=nginx runs one side only.
set -euo pipefail
build=${1:?build dir}
db=${2:-/tmp/credence_api_bench.sqlite}
seconds=${3:-20}
slowloris=${ATTACK_SLOWLORIS:-1000}
idle=${ATTACK_IDLE:-1000}
sources=${ATTACK_SOURCES:-50}
attack="$build/bench/attack/http_attack"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
if [[ ! -f "$db" ]]; then
    "$build/bench/api/api_bench_gen" "$db" 100000 1000000
fi
work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2> /dev/null || true; done
    wait 2> /dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

run_all() {  # <label> <port>
    local label=$1 port=$2
    echo "== $label: baseline, ${seconds}s"
    "$attack" port="$port" slowloris=0 idle=0 seconds="$seconds" probe=/healthz \
        probe=/api/v1/agents/1
    echo "== $label: $slowloris slowloris + $idle idle from 1 source, ${seconds}s"
    "$attack" port="$port" slowloris="$slowloris" idle="$idle" sources=1 seconds="$seconds" \
        probe=/healthz probe=/api/v1/agents/1
    echo "== $label: $slowloris slowloris + $idle idle from $sources sources, ${seconds}s"
    "$attack" port="$port" slowloris="$slowloris" idle="$idle" sources="$sources" \
        seconds="$seconds" probe=/healthz probe=/api/v1/agents/1
    echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
}

port=$(free_port)
"$build/bench/api/api_bench_server" "$db" "$port" "${BENCH_THREADS:-8}" > /dev/null &
pids+=($!)
for _ in $(seq 100); do
    curl -sf "http://127.0.0.1:$port/healthz" > /dev/null && break
    sleep 0.1
done
mkdir -p "$work/www/api/v1/agents"
curl -sf "http://127.0.0.1:$port/healthz" > "$work/www/healthz"
curl -sf "http://127.0.0.1:$port/api/v1/agents/1" > "$work/www/api/v1/agents/1"
chmod -R a+rX "$work"  # nginx's workers run as nobody
if [[ "${ATTACK_ONLY:-}" != nginx ]]; then
    run_all "credence (api_bench_server)" "$port"
fi
kill -TERM "${pids[0]}"
[[ "${ATTACK_ONLY:-}" == credence ]] && exit 0

nginx_port=$(free_port)
mkdir -p "$work/nginx/logs"
cat > "$work/nginx/nginx.conf" << EOF
daemon off;
worker_processes auto;
pid $work/nginx/nginx.pid;
error_log $work/nginx/logs/error.log;
events { worker_connections 4096; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_timeout 65;
    default_type application/json;
    client_body_temp_path $work/nginx/body;
    proxy_temp_path $work/nginx/proxy;
    fastcgi_temp_path $work/nginx/fastcgi;
    uwsgi_temp_path $work/nginx/uwsgi;
    scgi_temp_path $work/nginx/scgi;
    server {
        listen 127.0.0.1:$nginx_port;
        root $work/www;
    }
}
EOF
nginx -p "$work/nginx" -c "$work/nginx/nginx.conf" &
pids+=($!)
for _ in $(seq 100); do
    curl -sf "http://127.0.0.1:$nginx_port/healthz" > /dev/null && break
    sleep 0.1
done
run_all "nginx $(nginx -v 2>&1 | cut -d/ -f2) (static copies)" "$nginx_port"
