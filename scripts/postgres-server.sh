#!/usr/bin/env bash
# A throwaway PostgreSQL server on 127.0.0.1 for tests and benchmarks (Debian's postgresql package).
# Source this file, then:
#   pg_server_start DIR   initdb into DIR/data, start on a free port; sets PG_PORT
#   pg_server_stop DIR    immediate shutdown, then removes DIR
# initdb and postgres refuse to run as root: as root they run as the package's `postgres` user.
# fsync is off: the data is thrown away afterwards.

pg_server_start() {
    local dir=$1 bin
    bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)
    [ -x "$bin/initdb" ] || { echo "postgres: no server under /usr/lib/postgresql" >&2; return 1; }
    local as_pg=()
    mkdir -p "$dir"
    if [ "$(id -u)" = 0 ]; then
        as_pg=(runuser -u postgres --)
        chown postgres: "$dir"
        # The postgres user must be able to reach DIR through its parents.
        local p=$dir
        while p=$(dirname "$p") && [ "$p" != / ]; do chmod o+x "$p" 2>/dev/null || true; done
    fi
    "${as_pg[@]}" "$bin/initdb" -D "$dir/data" -A trust -U postgres --no-sync -E UTF8 \
        --locale=C --no-instructions >"$dir/initdb.log" 2>&1 ||
        { cat "$dir/initdb.log" >&2; return 1; }
    local attempt
    for attempt in 1 2 3 4 5 6; do
        # A random high port; a taken one makes pg_ctl fail and the next attempt picks another.
        PG_PORT=$((20000 + RANDOM % 30000))
        "${as_pg[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start -o \
            "-p $PG_PORT -c listen_addresses=127.0.0.1 -c unix_socket_directories=$dir/data -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=100" \
            >/dev/null 2>&1 && { export PG_PORT; return 0; }
    done
    tail -n 20 "$dir/server.log" >&2
    return 1
}

pg_server_stop() {
    local dir=$1 bin
    bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)
    if [ -f "$dir/data/postmaster.pid" ]; then
        if [ "$(id -u)" = 0 ]; then
            runuser -u postgres -- "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
        else
            "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
        fi
    fi
    rm -rf "$dir"
}
