#!/usr/bin/env bash
# Deploy every Credence contract deterministically (CREATE2 via the deterministic deployer
# 0x4e59b44847b379578588920cA78FbF26c0B4956C) onto an already running node, and write
# contracts/deployments/<chainId>.json. Starts nothing itself.
#
# Usage: scripts/deploy-devnet.sh [--rpc-url URL] [--private-key HEX]
#   defaults: RPC_URL env or http://127.0.0.1:18545; PRIVATE_KEY env or anvil's first dev key.
#   ATTESTER env (optional): initial ECDSA attester (default: the deploying account).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="$ROOT/node_modules/@foundry-rs/forge-linux-amd64/bin"
export PATH="$BIN:$ROOT/node_modules/@foundry-rs/cast-linux-amd64/bin:$PATH"

RPC_URL="${RPC_URL:-http://127.0.0.1:18545}"
# anvil's well-known first development key (public; devnets only).
PRIVATE_KEY="${PRIVATE_KEY:-0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80}"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rpc-url) RPC_URL="$2"; shift 2 ;;
    --private-key) PRIVATE_KEY="$2"; shift 2 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "deploy-devnet: unknown argument: $1" >&2; exit 2 ;;
  esac
done

cd "$ROOT/contracts"
mkdir -p deployments cache
forge build >/dev/null
CHAIN_ID="$(cast chain-id --rpc-url "$RPC_URL")"
forge script script/Deploy.s.sol:Deploy --rpc-url "$RPC_URL" --private-key "$PRIVATE_KEY" \
  --broadcast --slow >/dev/null 2>"$ROOT/contracts/cache/deploy.err" || {
  cat "$ROOT/contracts/cache/deploy.err" >&2
  echo "deploy-devnet: forge script failed" >&2
  exit 1
}
OUT="$ROOT/contracts/deployments/$CHAIN_ID.json"
[[ -s "$OUT" ]] || { echo "deploy-devnet: $OUT not written" >&2; exit 1; }
echo "$OUT"
