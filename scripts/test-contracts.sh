#!/usr/bin/env bash
# Build and test the Solidity contracts offline (forge from npm, solc-js through contracts/tools/solc).
# Exits non-zero on any compile or test failure. Called by the main test script.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="$ROOT/node_modules/@foundry-rs/forge-linux-amd64/bin"
if [[ ! -x "$BIN/forge" ]]; then
  echo "test-contracts: forge not found at $BIN (run npm install in $ROOT)" >&2
  exit 1
fi
export PATH="$BIN:$PATH"
export FOUNDRY_OFFLINE=true
cd "$ROOT/contracts"
start=$(date +%s)
forge build >/dev/null
echo "test-contracts: forge build ok ($(( $(date +%s) - start ))s)"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
set +e
forge test "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e
summary="$(grep -Eo '[0-9]+ tests passed, [0-9]+ failed' "$log" | tail -1 || true)"
if [[ -n "$summary" ]]; then
  passed="${summary%% tests passed*}"
  failed="${summary##*passed, }"; failed="${failed%% failed}"
  echo "contracts: $passed passed, $failed failed"
fi
"$ROOT/scripts/export-abis.sh" --check || rc=1  # committed ABI snapshots must match the build
exit "$rc"
