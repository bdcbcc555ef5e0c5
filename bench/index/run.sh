#!/usr/bin/env bash
# Indexer ingest throughput (docs/benchmarks.md): `credence index --once` syncs a synthetic chain
# of N registry events from bench/index/synthetic_rpc_server, once into a fresh SQLite file and
# once into a throwaway PostgreSQL server, each under /usr/bin/time -v. Reports events/s (events
# stored / the sync's wall time, from the indexer's --json summary; the chain's generation and
# the server's startup are not counted) and the indexer's peak RSS.
#
#   bench/index/run.sh [events (1000000)] [build-dir (build/release)]
#
# Builds nothing: build the targets `credence` and `synthetic_rpc_server` in the build dir first
# (the latter needs -DCREDENCE_BENCH=ON). Environment:
#   FINALITY_DEPTH  passed as --finality-depth (default 12; the chain ends with 64 empty blocks,
#                   so every event is final whatever the depth up to 64)
#   PG_SETTINGS     extra PostgreSQL settings, space-separated name=value (default: none, the
#                   server's defaults: shared_buffers 128MB, max_wal_size 1GB)
#   PG_FAST=1       run PostgreSQL like the tests do (fsync, synchronous_commit and
#                   full_page_writes off); the default keeps PostgreSQL's durable defaults
#   BACKENDS        "sqlite postgres" (default), or one of them
#   INDEX_ARGS      extra arguments for `credence index`, e.g. --no-bulk-load
#   BINARIES        credence binaries to compare, space-separated (default: the build dir's);
#                   each syncs the same chain from the same server, in turn
#   ROUNDS          how many times each binary syncs each backend (default 1)
#   KEEP=1          keep the work directory (logs, databases, progress lines)
set -euo pipefail

events=${1:-1000000}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${2:-build/release}
[[ $build = /* ]] || build=$repo/$build
finality=${FINALITY_DEPTH:-12}
backends=${BACKENDS:-sqlite postgres}

server_bin=$build/bench/index/synthetic_rpc_server
read -r -a binaries <<<"${BINARIES:-$build/src/credence/credence}"
rounds=${ROUNDS:-1}
for exe in "$server_bin" "${binaries[@]}"; do
    if [[ ! -x $exe ]]; then
        echo "run.sh: $exe not found; build it first:" >&2
        echo "  cmake --build $build --target credence synthetic_rpc_server" >&2
        exit 2
    fi
done

work=$(mktemp -d /tmp/credence-bench-index.XXXXXX)
server_pid=
pg_data=
cleanup() {
    if [[ -n $server_pid ]]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    if [[ -n $pg_data && -f $pg_data/postmaster.pid ]]; then
        # SIGQUIT: immediate shutdown; the data directory is thrown away.
        pm=$(head -n1 "$pg_data/postmaster.pid")
        kill -QUIT "$pm" 2>/dev/null || true
        for _ in $(seq 100); do kill -0 "$pm" 2>/dev/null || break; sleep 0.1; done
    fi
    if [[ ${KEEP:-0} = 1 ]]; then echo "work directory kept: $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

# ---- the synthetic node ----
"$server_bin" --events "$events" --info "$work/info" >"$work/server.out" 2>"$work/server.log" &
server_pid=$!
for _ in $(seq 1200); do
    [[ -f $work/info ]] && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; exit 1; }
    sleep 0.5
done
[[ -f $work/info ]] || { echo "run.sh: the server did not start" >&2; exit 1; }
# url, chain_id, head, events, generate_seconds, registry_args
# shellcheck disable=SC1091
source "$work/info"
echo "synthetic chain: $events events in $((head + 1)) blocks, generated in ${generate_seconds} s; $url"

# The server's CPU seconds so far (utime + stime), to show it is not the bottleneck.
server_cpu() {
    awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$server_pid/stat"
}

# ---- one sync ----
# The backend, and the binary when several are compared.
label() {
    if [[ ${#binaries[@]} -gt 1 ]]; then echo "$1:${2#"$repo"/}"; else echo "$1"; fi
}
results=()
run_no=0
run_index() {
    local label=$1 database=$2 credence=$3
    run_no=$((run_no + 1))
    local out=$work/run$run_no.jsonl err=$work/run$run_no.err tv=$work/run$run_no.time
    local cmd=("$credence" index --rpc "$url" --database "$database" $registry_args
               --chain-id "$chain_id" --finality-depth "$finality" --once --json ${INDEX_ARGS:-})
    echo "\$ ${cmd[*]}" | sed "s|$credence|credence|"
    local server_cpu_before
    server_cpu_before=$(server_cpu)
    if ! /usr/bin/time -v -o "$tv" "${cmd[@]}" >"$out" 2>"$err"; then
        echo "run.sh: $label sync failed:" >&2
        tail -n 20 "$err" >&2
        tail -n 5 "$out" >&2
        exit 1
    fi
    local summary stored seconds rss_kb wall cpu server_s
    server_s=$(awk -v a="$server_cpu_before" -v b="$(server_cpu)" 'BEGIN { printf "%.1f", b - a }')
    summary=$(tail -n1 "$out")
    stored=$(jq -r '.events' <<<"$summary")
    seconds=$(jq -r '.seconds' <<<"$summary")
    rss_kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$tv")
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$tv")
    cpu=$(awk -F': ' '/User time/ {u = $2} /System time/ {s = $2} END {printf "%.1f", u + s}' "$tv")
    local eps
    eps=$(awk -v e="$stored" -v s="$seconds" 'BEGIN { printf "%.0f", e / s }')
    local line
    line=$(printf '%-9s %8s events in %7.2f s = %6s events/s; peak RSS %4d MB; process wall %s, CPU %s s; server CPU %s s' \
        "$label" "$stored" "$seconds" "$eps" $((rss_kb / 1024)) "$wall" "$cpu" "$server_s")
    echo "$line"
    if [[ $stored != "$events" ]]; then
        echo "run.sh: $label stored $stored events, the chain has $events" >&2
        line+="  (MISMATCH: chain has $events)"
    fi
    results+=("$line")
}

for backend in $backends; do
    case $backend in
    sqlite)
        for round in $(seq "$rounds"); do
            for bin in "${binaries[@]}"; do
                rm -f "$work/index.sqlite" "$work/index.sqlite-wal" "$work/index.sqlite-shm"
                run_index "$(label sqlite "$bin")" "$work/index.sqlite" "$bin"
            done
        done
        ;;
    postgres)
        pg_bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n1)
        as_pg=()
        if [[ $(id -u) = 0 ]]; then
            # initdb and postgres refuse root: run them as the Debian package's system user.
            as_pg=(runuser -u postgres --)
            chmod 711 "$work"
        fi
        mkdir -p "$work/pg"
        [[ ${#as_pg[@]} -gt 0 ]] && chown postgres: "$work/pg"
        chmod 700 "$work/pg"
        pg_data=$work/pg/data
        "${as_pg[@]}" "$pg_bin/initdb" -D "$pg_data" -A trust -U postgres --no-sync -E UTF8 \
            --locale=C --no-instructions >"$work/pg/initdb.log" 2>&1
        pg_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
        pg_opts=(-c listen_addresses=127.0.0.1 -c "unix_socket_directories=$pg_data"
                 -c max_connections=20)
        # PG_SETTINGS: extra server settings, e.g. a dedicated indexer's memory and WAL budget
        # (PG_SETTINGS="shared_buffers=2GB max_wal_size=8GB"); durability is unchanged by them.
        for setting in ${PG_SETTINGS:-}; do pg_opts+=(-c "$setting"); done
        if [[ ${PG_FAST:-0} = 1 ]]; then
            pg_opts+=(-c fsync=off -c synchronous_commit=off -c full_page_writes=off)
        fi
        "${as_pg[@]}" "$pg_bin/postgres" -D "$pg_data" -p "$pg_port" "${pg_opts[@]}" \
            >"$work/pg/server.log" 2>&1 &
        for _ in $(seq 600); do
            pg_isready -q -h 127.0.0.1 -p "$pg_port" && break
            sleep 0.1
        done
        pg_isready -q -h 127.0.0.1 -p "$pg_port" || { cat "$work/pg/server.log" >&2; exit 1; }
        n=0
        for round in $(seq "$rounds"); do
            for bin in "${binaries[@]}"; do
                n=$((n + 1))
                createdb -h 127.0.0.1 -p "$pg_port" -U postgres "credence_bench_$n"
                run_index "$(label postgres "$bin")" \
                    "postgresql://postgres@127.0.0.1:$pg_port/credence_bench_$n" "$bin"
            done
        done
        ;;
    *)
        echo "run.sh: unknown backend $backend" >&2
        exit 2
        ;;
    esac
done

echo
echo "== indexer throughput: $events events, finality depth $finality, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%s\n' "${results[@]}"
