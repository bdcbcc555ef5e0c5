#!/usr/bin/env bash
# `credence feedback give` end to end (process start to mined receipt) against
# `cast send` of the same giveFeedback call, on the same devnet, interleaved run by run so both see
# the same machine load. Also the CLI's own share: `credence feedback give --dry-run` (process
# start, argument parsing, key loading, one batched RPC round trip, signing, encoding) against
# cast's process floor, `cast keccak`.
#
# Usage: bench/cli/feedback_vs_cast.sh [runs=30] [build=build/release]
# Prints medians in milliseconds. Starts its own `credence devnet` on a free port, in a temporary
# CREDENCE_HOME, and stops it on exit.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
RUNS=${1:-30}
BUILD=${2:-$ROOT/build/release}
CREDENCE="$BUILD/src/credence/credence"
CAST="$ROOT/node_modules/@foundry-rs/cast-linux-amd64/bin/cast"
[[ -x "$CREDENCE" ]] || { echo "bench: build $CREDENCE first (make build)" >&2; exit 1; }

export CREDENCE_HOME; CREDENCE_HOME="$(mktemp -d)"
PORT=$(( 20000 + RANDOM % 20000 ))
RPC="http://127.0.0.1:$PORT"
"$CREDENCE" devnet --port "$PORT" >"$CREDENCE_HOME/devnet.log" 2>&1 &
DEVNET=$!
trap 'kill -INT $DEVNET 2>/dev/null; wait $DEVNET 2>/dev/null; rm -rf "$CREDENCE_HOME"' EXIT
for _ in $(seq 200); do [[ -s "$CREDENCE_HOME/devnet.json" ]] && break; sleep 0.1; done
[[ -s "$CREDENCE_HOME/devnet.json" ]] || { cat "$CREDENCE_HOME/devnet.log" >&2; exit 1; }

# anvil's public dev keys: the agent owner and the client giving feedback.
OWNER=0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80
CLIENT=0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d
REPUTATION=$("$CAST" --version >/dev/null; node -e '
  const d = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  console.log(d.contracts.ReputationRegistry.address);' "$CREDENCE_HOME/devnet.json")
printf '{"type":"https://eips.ethereum.org/EIPS/eip-8004#registration-v1","name":"bench","description":"benchmark agent","image":"https://example.com/a.png","services":[{"name":"web","endpoint":"https://example.com"}]}' \
  >"$CREDENCE_HOME/agent.json"
AGENT=$("$CREDENCE" agent register "$CREDENCE_HOME/agent.json" --private-key "$OWNER" --json |
  node -e 'let s="";process.stdin.on("data",c=>s+=c).on("end",()=>console.log(JSON.parse(s).agentId))')

now_ns() { date +%s%N; }
declare -a t_credence t_cast t_dry t_floor
for i in $(seq "$RUNS"); do
  a=$(now_ns)
  "$CREDENCE" feedback give "$AGENT" 99.77 --tag1 bench --private-key "$CLIENT" >/dev/null
  b=$(now_ns)
  "$CAST" send --rpc-url "$RPC" --private-key "$CLIENT" "$REPUTATION" \
    'giveFeedback(uint256,int128,uint8,string,string,string,string,bytes32)' \
    "$AGENT" 9977 2 bench '' '' '' 0x0000000000000000000000000000000000000000000000000000000000000000 \
    >/dev/null
  c=$(now_ns)
  "$CREDENCE" feedback give "$AGENT" 99.77 --tag1 bench --private-key "$CLIENT" --dry-run >/dev/null
  d=$(now_ns)
  "$CAST" keccak "run $i" >/dev/null
  e=$(now_ns)
  t_credence+=($(( (b - a) / 1000 ))); t_cast+=($(( (c - b) / 1000 )))
  t_dry+=($(( (d - c) / 1000 ))); t_floor+=($(( (e - d) / 1000 )))
done

median_ms() { printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END {m=(NR%2)?v[(NR+1)/2]:(v[NR/2]+v[NR/2+1])/2; printf "%.1f", m/1000}'; }
echo "# $(date -u +%FT%TZ) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $RUNS interleaved runs"
echo "credence feedback give (to mined receipt)   median $(median_ms "${t_credence[@]}") ms"
echo "cast send giveFeedback (to mined receipt)    median $(median_ms "${t_cast[@]}") ms"
echo "credence feedback give --dry-run             median $(median_ms "${t_dry[@]}") ms"
echo "cast keccak (cast's process floor)           median $(median_ms "${t_floor[@]}") ms"
