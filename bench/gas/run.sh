#!/usr/bin/env bash
# Replays an ERC-8004 call sequence (the steps below) on a fresh anvil (127.0.0.1:18546), reads gasUsed
# from each receipt, compares with the deployed v2 registries' figures and writes docs/gas.md.
# Also measures read scaling (readAllFeedback vs readFeedbackPage) with eth_estimateGas.
# Usage: bench/gas/run.sh [--clients N]   (N synthetic clients for the read-scaling part; default 200)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
NM="$ROOT/node_modules/@foundry-rs"
export PATH="$NM/anvil-linux-amd64/bin:$NM/cast-linux-amd64/bin:$NM/forge-linux-amd64/bin:$PATH"
PORT=18546
RPC="http://127.0.0.1:$PORT"
NCLIENTS=200
[[ "${1:-}" == "--clients" ]] && NCLIENTS="$2"
OUT_MD="$ROOT/docs/gas.md"
WORK="$(mktemp -d)"

HOME="$WORK" anvil --host 127.0.0.1 --port "$PORT" --silent --chain-id 31337 --gas-limit 30000000 >"$WORK/anvil.log" 2>&1 &
ANVIL_PID=$!
cleanup() { kill "$ANVIL_PID" 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
for _ in $(seq 1 50); do cast chain-id --rpc-url "$RPC" >/dev/null 2>&1 && break; sleep 0.2; done

# anvil's public development keys (index 0..5).
K0=0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80
K1=0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d
K2=0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a
K3=0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6
K4=0x47e179ec197488593b187f80a00eb0da91f1c9d0e3c7fcbe7cd2d8c1b8f9f3b0
K5=0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba
A0=$(cast wallet address "$K0"); A1=$(cast wallet address "$K1"); A2=$(cast wallet address "$K2")
A3=$(cast wallet address "$K3"); A4=$(cast wallet address "$K4"); A5=$(cast wallet address "$K5")
for a in "$A1" "$A2" "$A3" "$A4" "$A5"; do
  cast rpc --rpc-url "$RPC" anvil_setBalance "$a" 0x56BC75E2D63100000 >/dev/null
done

DEP="$(RPC_URL="$RPC" PRIVATE_KEY="$K0" "$ROOT/scripts/deploy-devnet.sh")"
addr() { python3 -c "import json,sys; print(json.load(open('$DEP'))['contracts']['$1']['address'])"; }
ID=$(addr IdentityRegistry); REP=$(addr ReputationRegistry); VAL=$(addr ValidationRegistry)

ROWS="$WORK/rows.tsv"
: >"$ROWS"
# send LABEL DEPLOYED KEY TO SIG ARGS...
send() {
  local label="$1" deployed="$2" key="$3" to="$4"; shift 4
  local gas
  gas=$(cast send --rpc-url "$RPC" --private-key "$key" --json "$to" "$@" | python3 -c 'import json,sys; r=json.load(sys.stdin); assert r["status"]=="0x1", r; print(int(r["gasUsed"],16))')
  printf '%s\t%s\t%s\n' "$label" "$deployed" "$gas" >>"$ROWS"
}

URI="https://agents.example.com/.well-known/agent-registration.json"
IPFS="ipfs://bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy"
A=0
send '`register("https://agents.example.com/.well-known/agent-registration.json")` by the owner' 195060 "$K0" "$ID" "register(string)" "$URI"
send '`register()`' 89783 "$K0" "$ID" "register()"
send '`register(uri, [{"skills", "search,summarize"}])`' 191039 "$K0" "$ID" "register(string,(string,bytes)[])" "$URI" "[(skills,$(cast from-utf8 'search,summarize'))]"
send '`setAgentURI(A, "ipfs://bafkreigh2…4s52zy")`' 72650 "$K0" "$ID" "setAgentURI(uint256,string)" $A "$IPFS"
send '`setMetadata(A, "region", "eu-west")`' 57480 "$K0" "$ID" "setMetadata(uint256,string,bytes)" $A region "$(cast from-utf8 eu-west)"

# setAgentWallet: EIP-712 signature of the new wallet (A3) over AgentWalletSet.
NOW=$(cast block latest --rpc-url "$RPC" --field timestamp)
DEADLINE=$((NOW + 200))
CHAIN=$(cast chain-id --rpc-url "$RPC")
DOMTYPE=$(cast keccak "EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)")
DS=$(cast keccak "$(cast abi-encode 'f(bytes32,bytes32,bytes32,uint256,address)' "$DOMTYPE" "$(cast keccak ERC8004IdentityRegistry)" "$(cast keccak 1)" "$CHAIN" "$ID")")
TH=$(cast keccak "AgentWalletSet(uint256 agentId,address newWallet,address owner,uint256 deadline)")
SH=$(cast keccak "$(cast abi-encode 'f(bytes32,uint256,address,address,uint256)' "$TH" $A "$A3" "$A0" "$DEADLINE")")
DIGEST=$(cast keccak "0x1901${DS#0x}${SH#0x}")
SIG=$(cast wallet sign --no-hash --private-key "$K3" "$DIGEST")
send '`setAgentWallet(A, w, deadline, sig)` (EIP-712, EOA)' 50392 "$K0" "$ID" "setAgentWallet(uint256,address,uint256,bytes)" $A "$A3" "$DEADLINE" "$SIG"

Z=0x0000000000000000000000000000000000000000000000000000000000000000
send '`giveFeedback(A, 87, 0, "starred", "quality", "https://agents.example.com/api", "", 0)`, client 1'"'"'s first' 211523 "$K1" "$REP" "giveFeedback(uint256,int128,uint8,string,string,string,string,bytes32)" $A 87 0 starred quality "https://agents.example.com/api" "" $Z
send '`giveFeedback(A, 9977, 2, "uptime", "", "", "ipfs://…", 0)`, client 1'"'"'s second' 110488 "$K1" "$REP" "giveFeedback(uint256,int128,uint8,string,string,string,string,bytes32)" $A 9977 2 uptime "" "" "$IPFS" $Z
send '`giveFeedback(A, 95, 0, "starred", "", "", "", 0)`, a new client' 173228 "$K2" "$REP" "giveFeedback(uint256,int128,uint8,string,string,string,string,bytes32)" $A 95 0 starred "" "" "" $Z
send '`revokeFeedback(A, 1)`' 36232 "$K1" "$REP" "revokeFeedback(uint256,uint64)" $A 1
send '`appendResponse(A, client1, 2, "ipfs://…", 0)`' 125023 "$K0" "$REP" "appendResponse(uint256,address,uint64,string,bytes32)" $A "$A1" 2 "$IPFS" $Z
REQ=$(cast keccak req-1)
send '`validationRequest(validator, A, "https://agents.example.com/validation/req-1.json", keccak("req-1"))`' 190195 "$K0" "$VAL" "validationRequest(address,uint256,string,bytes32)" "$A4" $A "https://agents.example.com/validation/req-1.json" "$REQ"
send '`validationResponse(keccak("req-1"), 100, "https://validator.example.com/resp-1.json", keccak("resp-1"), "hard-finality")`' 129422 "$K4" "$VAL" "validationResponse(bytes32,uint8,string,bytes32,string)" "$REQ" 100 "https://validator.example.com/resp-1.json" "$(cast keccak resp-1)" hard-finality
send '`transferFrom(owner, other, A)` (wallet cleared)' 68280 "$K0" "$ID" "transferFrom(address,address,uint256)" "$A0" "$A5" $A

# Other operations (no deployed reference): ERC-8257 tool registration and an ERC-8301 Scenario 0 run.
OTHER="$WORK/other.tsv"
: >"$OTHER"
other() {
  local label="$1" key="$2" to="$3"; shift 3
  cast send --rpc-url "$RPC" --private-key "$key" --json "$to" "$@" >"$WORK/last.json"
  python3 - "$WORK/last.json" "$label" >>"$OTHER" <<'PY2'
import json, sys
r = json.load(open(sys.argv[1])); assert r["status"] == "0x1", r
print(f"{sys.argv[2]}\t{int(r['gasUsed'], 16)}")
PY2
}
TOOLS=$(addr ToolRegistry); ALLOW=$(addr AllowlistPredicate); WF=$(addr SingleStageWorkflow); VER=$(addr ECDSAAttestationVerifier)
other '`registerTool("https://tools.example.com/.well-known/ai-tool/search.json", h, address(0))`' "$K0" "$TOOLS" "registerTool(string,bytes32,address)" "https://tools.example.com/.well-known/ai-tool/search.json" "$(cast keccak manifest)" 0x0000000000000000000000000000000000000000
other '`registerTool(uri, h, AllowlistPredicate)` (ERC-165 ladder)' "$K0" "$TOOLS" "registerTool(string,bytes32,address)" "https://tools.example.com/.well-known/ai-tool/search.json" "$(cast keccak manifest)" "$ALLOW"
other '`updateToolMetadata(1, uri2, h2)`' "$K0" "$TOOLS" "updateToolMetadata(uint256,string,bytes32)" 1 "https://tools.example.com/.well-known/ai-tool/search-v2.json" "$(cast keccak manifest2)"
INPUT=$(cast from-utf8 "summarize https://example.com")
other '`SingleStageWorkflow.run(inputHash, input, now + 1 day)`' "$K0" "$WF" "run(bytes32,bytes,uint256)" "$(cast keccak "$INPUT")" "$INPUT" $((NOW + 86400))
# NewAgentTask(workflowRunId, stage, taskHash): the only 4-topic log of run().
read -r RUNID TASK < <(python3 -c "
import json
r = json.load(open('$WORK/last.json'))
l = [l for l in r['logs'] if len(l['topics']) == 4][0]
print(l['topics'][1], l['topics'][3])")
ANCHOR=$(cast call --rpc-url "$RPC" "$WF" "taskAnchorTime(bytes32)(uint256)" "$TASK" | awk '{print $1}')
cast rpc --rpc-url "$RPC" evm_increaseTime 5 >/dev/null
OUTPUT=$(cast from-utf8 "a short summary")
OPID=$(cast keccak "op-1")
other '`onAgentReply(reply)` (new operation, sync stage)' "$K1" "$WF" "onAgentReply((bytes32,bytes32,bytes,uint256,address,bytes32[],bytes32))" "($OPID,$(cast keccak "$OUTPUT"),$OUTPUT,$((ANCHOR + 1)),$A1,[$TASK],$RUNID)"
REPLY=$(python3 -c "import json; r=json.load(open('$WORK/last.json')); print([l['topics'][2] for l in r['logs'] if len(l['topics'])==4][0])")
other '`onAgentReply(reply)` (matching retry)' "$K1" "$WF" "onAgentReply((bytes32,bytes32,bytes,uint256,address,bytes32[],bytes32))" "($OPID,$(cast keccak "$OUTPUT"),$OUTPUT,$((ANCHOR + 2)),$A1,[$TASK],$RUNID)"
IH=$(cast keccak "$INPUT")
AD=$(cast call --rpc-url "$RPC" "$VER" "agentAttestationDigest(bytes32,bytes32,bytes32,bytes32)(bytes32)" "$RUNID" "$(cast to-uint256 "$A1")" "$IH" "$(cast keccak "$OUTPUT")")
PROOF=$(cast wallet sign --no-hash --private-key "$K0" "$AD")
other '`onAgentProve([R], attestation)` (ECDSA IAgentVerifier, final sync gate, Success)' "$K2" "$WF" "onAgentProve(bytes32[],bytes)" "[$REPLY]" "$PROOF"

# Read scaling: synthetic clients (impersonated) each give one feedback to agent 1.
READS="$WORK/reads.tsv"
: >"$READS"
measure_reads() {
  local n="$1" all page
  all=$(cast estimate --rpc-url "$RPC" "$REP" "readAllFeedback(uint256,address[],string,string,bool)" 1 "[]" "" "" false 2>/dev/null || echo "fails")
  page=$(cast estimate --rpc-url "$RPC" "$REP" "readFeedbackPage(uint256,uint256,uint256)" 1 0 50)
  printf '%s\t%s\t%s\n' "$n" "$all" "$page" >>"$READS"
}
given=0
for target in 10 50 "$NCLIENTS"; do
  while [[ $given -lt $target ]]; do
    c=$(printf '0x%040x' $((0xC11E000 + given)))
    cast rpc --rpc-url "$RPC" anvil_setBalance "$c" 0xDE0B6B3A7640000 >/dev/null
    cast rpc --rpc-url "$RPC" anvil_impersonateAccount "$c" >/dev/null
    cast send --rpc-url "$RPC" --unlocked --from "$c" "$REP" "giveFeedback(uint256,int128,uint8,string,string,string,string,bytes32)" 1 90 0 starred "" "" "" $Z >/dev/null
    given=$((given + 1))
  done
  measure_reads "$target"
done

python3 - "$ROWS" "$READS" "$OUT_MD" "$OTHER" <<'PY'
import sys, datetime
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
reads = [l.rstrip("\n").split("\t") for l in open(sys.argv[2]) if l.strip()]
others = [l.rstrip("\n").split("\t") for l in open(sys.argv[4]) if l.strip()]
out = []
out.append("# Gas per operation\n")
out.append("Generated by `bench/gas/run.sh` (do not edit by hand): a fresh anvil 1.7.1 devnet, the contracts "
           "deployed by `scripts/deploy-devnet.sh` (solc 0.8.37 via solc-js, viaIR, optimizer 200 runs, "
           "EVM prague), and the call sequence of bench/gas/run.sh replayed in order with `cast send`. Figures are "
           "`gasUsed` from the receipts. \"Deployed\" is the deployed ERC-8004 v2.0.0 registries (behind "
           "ERC-1967 proxies, solc 0.8.24 viaIR 200 runs) measured on anvil 1.7.1 with the same sequence. "
           "`ipfs://…` is `ipfs://bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy`.\n")
    
out.append("| call | deployed | Credence | ratio | target |")
out.append("|---|---:|---:|---:|---|")
ok_all = True
for label, dep, ours in rows:
    dep, ours = int(dep), int(ours)
    ratio = ours / dep
    strict = label.startswith("`register(\"https") or label.startswith("`giveFeedback(A, 87")
    limit = 0.8 if strict else 1.0
    met = ratio <= limit
    ok_all &= met
    out.append(f"| {label} | {dep:,} | {ours:,} | {ratio:.2f} | {'≤ 0.80×' if strict else '≤ 1.00×'} {'✅' if met else '❌'} |")
out.append("")
out.append(f"All write targets met: **{'yes' if ok_all else 'no'}**.\n")
out.append("## Reads as an agent's clients grow\n")
out.append("`eth_estimateGas` of the view call on the same devnet, agent 1, one feedback per client "
           "(the deployed `readAllFeedback` grows by about 17.5k gas per client and passes the 16.78M "
           "per-transaction gas cap near 960 clients). `readFeedbackPage(agentId, 0, 50)` reads a fixed "
           "page of 50 rows whatever the number of clients.\n")
out.append("| clients | `readAllFeedback` (all clients) | `readFeedbackPage` (50 rows) |")
out.append("|---:|---:|---:|")
for n, a, p in reads:
    fa = f"{int(a):,}" if a.isdigit() else a
    out.append(f"| {int(n):,} | {fa} | {int(p):,} |")
out.append("")
out.append("## ERC-8257 and ERC-8301 operations\n")
out.append("Same devnet, after the sequence above (no deployed reference exists). The workflow run is "
           "Scenario 0 (`SingleStageWorkflow`, Option A with `ECDSAAttestationVerifier`).\n")
out.append("| call | gasUsed |")
out.append("|---|---:|")
for label, g in others:
    out.append(f"| {label} | {int(g):,} |")
out.append("")
out.append("Per-function gas statistics of the unit tests are in `contracts/.gas-snapshot` (`forge snapshot`).\n")
open(sys.argv[3], "w").write("\n".join(out))
print("\n".join(out))
PY
