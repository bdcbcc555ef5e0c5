#!/usr/bin/env bash
# make run: install, build, then the whole system live on the embedded default (SQLite):
#   1. `credence devnet --revisions all`: anvil with every Credence contract (the earlier ERC-8004
#      revisions' registries too), on a free port;
#   2. `credence demo`: seeds it (agents, feedback with a Sybil cluster, validations answered by
#      validator workers, tools, the six ERC-8301 scenarios run by workers) and serves the demo's
#      documents over HTTPS on 127.0.0.1 (its own CA);
#   3. `credence node`: indexes the devnet into $CREDENCE_HOME/index.sqlite, verifies what the
#      chain points to (trusting the demo's CA, and lifting the SSRF guard, for the demo's host
#      names on the demo's server only: the demo's `--allow-host name=127.0.0.1:<port>` pins; a
#      URL on chain naming 127.0.0.1 or localhost stays refused), scores trust, and serves the
#      REST API, MCP and the explorer (web/dist).
# Prints the URL; Ctrl-C stops everything cleanly.
#
# Environment: CREDENCE_PORT (default 8004), CREDENCE_HOME (default build/run-home: the index,
# the deployment files, devnet.json and the demo's state live there, so `credence` commands run
# with the same CREDENCE_HOME find the chain with no flags). CREDENCE_DEMO=0 skips the demo.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "run: installing what is missing (scripts/setup.sh)"
bash scripts/setup.sh --debian
# npm ci (the explorer's tools and anvil) downloads while the C++ compiles.
mkdir -p build
echo "run: npm ci in the background while the C++ compiles (log: build/npm-ci.log)"
bash scripts/setup.sh --npm >build/npm-ci.log 2>&1 &
npm_pid=$!
# Only what runs, in a tree of its own (the run preset: -O1, precompiled headers, no tests or
# benchmarks; `make test` builds everything in build/release).
CREDENCE_BUILD_TARGETS=credence CREDENCE_BUILD_WEB=0 bash scripts/build.sh run
wait "$npm_pid" || { cat build/npm-ci.log >&2; echo "run: npm ci failed" >&2; exit 1; }
bash scripts/build-web.sh
credence=$PWD/build/run/src/credence/credence
port=${CREDENCE_PORT:-8004}
export CREDENCE_HOME=${CREDENCE_HOME:-$PWD/build/run-home}
mkdir -p "$CREDENCE_HOME"
rm -f "$CREDENCE_HOME/devnet.json" "$CREDENCE_HOME/index.sqlite"*  # a fresh chain, a fresh index

pids=()
stop_all() {  # newest first: node, demo, devnet
    for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
        kill -INT "${pids[i]}" 2>/dev/null && wait "${pids[i]}" 2>/dev/null || true
    done
}
trap stop_all EXIT
trap 'exit 130' INT TERM

# wait_for FILE SED-EXPR PID WHAT: prints the first match of SED-EXPR in FILE, failing if PID dies.
wait_for() {
    local value=
    for _ in $(seq 1 1200); do
        value=$(sed -n "$2" "$1" 2>/dev/null | head -n 1 || true)
        if [ -n "$value" ]; then printf '%s\n' "$value"; return 0; fi
        if ! kill -0 "$3" 2>/dev/null; then
            echo "run: $4 stopped (see ${1%.*}.log)" >&2
            cat "${1%.*}.log" >&2 || true
            return 1
        fi
        sleep 0.1
    done
    echo "run: $4 did not start in 120 s (see ${1%.*}.log)" >&2
    return 1
}

"$credence" devnet --port 0 --revisions all >"$CREDENCE_HOME/devnet.out" 2>"$CREDENCE_HOME/devnet.log" &
pids+=($!)
rpc=$(wait_for "$CREDENCE_HOME/devnet.out" 's/^Credence devnet: anvil at \([^ ]*\).*/\1/p' "${pids[-1]}" devnet)
echo "run: devnet at $rpc"

fetch_flags=()
if [ "${CREDENCE_DEMO:-1}" != 0 ]; then
    echo "run: seeding the demo (log: $CREDENCE_HOME/demo.log)"
    "$credence" demo --rpc "$rpc" >"$CREDENCE_HOME/demo.out" 2>"$CREDENCE_HOME/demo.log" &
    pids+=($!)
    flags=$(wait_for "$CREDENCE_HOME/demo.out" 's/^fetch flags: *//p' "${pids[-1]}" demo)
    read -r -a fetch_flags <<<"$flags"
    sed -n '/^\(seeded\|already\|agents\|clients\|feedback\|tools\|earlier\)/s/^/run: demo /p' "$CREDENCE_HOME/demo.out"
fi

static=()
[ -f web/dist/index.html ] && static=(--static-dir "$PWD/web/dist")
"$credence" node --rpc "$rpc" --port "$port" "${static[@]}" "${fetch_flags[@]}" \
    >"$CREDENCE_HOME/node.out" 2>"$CREDENCE_HOME/node.log" &
pids+=($!)
url=$(wait_for "$CREDENCE_HOME/node.out" 's/^credence node: serving //p' "${pids[-1]}" node)
echo "credence node: serving $url   (logs in $CREDENCE_HOME; Ctrl-C to stop)"
wait "${pids[-1]}"
