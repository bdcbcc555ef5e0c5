#!/usr/bin/env bash
# make run: install, build, then `credence node` on its embedded devnet (anvil with every Credence
# contract), serving the REST API, MCP and the explorer (web/dist). Prints the URL; Ctrl-C stops
# everything cleanly.
#
# Environment: CREDENCE_PORT (default 8004), CREDENCE_HOME (default build/run-home: the node's
# index, deployment files and devnet.json live there, so `credence` commands run with the same
# CREDENCE_HOME find the chain with no flags).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh release
credence=$PWD/build/release/src/credence/credence
port=${CREDENCE_PORT:-8004}
export CREDENCE_HOME=${CREDENCE_HOME:-$PWD/build/run-home}
mkdir -p "$CREDENCE_HOME"
log=$CREDENCE_HOME/node.log

static=()
[ -f web/dist/index.html ] && static=(--static-dir "$PWD/web/dist")

node_pid=
demo_pid=
stop_all() {
    [ -n "$demo_pid" ] && kill -INT "$demo_pid" 2>/dev/null && wait "$demo_pid" 2>/dev/null || true
    [ -n "$node_pid" ] && kill -INT "$node_pid" 2>/dev/null && wait "$node_pid" 2>/dev/null || true
}
trap stop_all EXIT
trap 'exit 130' INT TERM

"$credence" node --port "$port" "${static[@]}" >"$CREDENCE_HOME/node.out" 2>"$log" &
node_pid=$!
url=
for _ in $(seq 1 600); do
    url=$(sed -n 's/^credence node: serving //p' "$CREDENCE_HOME/node.out" 2>/dev/null || true)
    [ -n "$url" ] && break
    if ! kill -0 "$node_pid" 2>/dev/null; then
        cat "$log" >&2
        exit 1
    fi
    sleep 0.1
done
[ -n "$url" ] || { echo "run: the node did not start (see $log)" >&2; exit 1; }

# DEMO HOOK (issue 8): when the `credence demo` command exists, seed the node's devnet with the
# demo world (it finds the chain through $CREDENCE_HOME/devnet.json) and keep its HTTPS origin
# running beside the node.
if "$credence" demo --help >/dev/null 2>&1; then
    "$credence" demo >"$CREDENCE_HOME/demo.out" 2>"$CREDENCE_HOME/demo.log" &
    demo_pid=$!
    echo "run: demo seeding the devnet (log: $CREDENCE_HOME/demo.log)"
fi

echo "credence node: serving $url   (log: $log; Ctrl-C to stop)"
wait "$node_pid"
