#!/usr/bin/env bash
# Snapshot the JSON ABI of every deployed Credence contract (and of the interfaces the C++ side
# calls on arbitrary addresses) from forge's artifacts into contracts/abi/<Name>.json, and the
# creation bytecode of every deployed contract into contracts/bytecode/<Name>.hex, committed.
# The C++ bindings (tools/gen_bindings.cpp, cmake/bindings.cmake) are generated from these
# snapshots, so the C++ build never needs forge; `credence devnet` deploys the snapshotted
# bytecode. The test-only ERC1271WalletMock (contracts/test/utils) is snapshotted too, so C++
# tests can deploy an ERC-1271 wallet; the devnet does not deploy it.
#
#   scripts/export-abis.sh           rewrite contracts/abi/ and contracts/bytecode/ from
#                                    contracts/out/ (run forge build first)
#   scripts/export-abis.sh --check   exit 1 when a snapshot differs from the built artifacts
#
# ABI output: the artifact's `abi` array, object keys sorted recursively (arrays keep their order:
# it is the parameter order), two-space indent, trailing newline; so the files diff cleanly.
# Bytecode output: the artifact's `bytecode.object` ("0x" + lowercase hex) and a newline. It is
# deterministic because foundry.toml sets bytecode_hash = "none" and cbor_metadata = false (no
# metadata hash that would change with paths or comments); contracts that need library linking
# are rejected.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CONTRACTS=(
  IdentityRegistry ReputationRegistry ValidationRegistry ToolRegistry
  DevnetERC1155 DevnetSubscriptions
  ERC721HoldingPredicate ERC1155HoldingPredicate SubscriptionPredicate AllowlistPredicate
  AccessProofPredicate CompositePredicate ECDSAAttestationVerifier
  SingleStageWorkflow InputProvenanceWorkflow CompetitiveBidWorkflow SequentialPipelineWorkflow
  BFTCommitRevealWorkflow ParallelAuditWorkflow PermissionedSingleStageWorkflow
  # Earlier ERC-8004 revisions (docs/compatibility.md): the first draft and the score revision.
  DraftIdentityRegistry DraftReputationRegistry DraftValidationRegistry
  ScoreIdentityRegistry ScoreReputationRegistry ScoreValidationRegistry
  # Interfaces: for calls on predicates, verifiers and workflows that Credence did not deploy.
  IAccessPredicate IAgentVerifier IAgentWorkflow
  # Test-only: an ERC-1271 smart-contract wallet for the agent set-wallet tests.
  ERC1271WalletMock
)
# Contracts whose creation bytecode is snapshotted: the deployed set (the legacy registries only
# with `credence devnet --revisions all`) plus the test wallet.
BYTECODE=(
  IdentityRegistry ReputationRegistry ValidationRegistry ToolRegistry
  DevnetERC1155 DevnetSubscriptions
  ERC721HoldingPredicate ERC1155HoldingPredicate SubscriptionPredicate AllowlistPredicate
  AccessProofPredicate CompositePredicate ECDSAAttestationVerifier
  SingleStageWorkflow InputProvenanceWorkflow CompetitiveBidWorkflow SequentialPipelineWorkflow
  BFTCommitRevealWorkflow ParallelAuditWorkflow PermissionedSingleStageWorkflow
  DraftIdentityRegistry DraftReputationRegistry DraftValidationRegistry
  ScoreIdentityRegistry ScoreReputationRegistry ScoreValidationRegistry
  ERC1271WalletMock
)
mode=write
if [[ "${1:-}" == "--check" ]]; then mode=check; elif [[ $# -gt 0 ]]; then
  echo "usage: $0 [--check]" >&2; exit 2
fi
abi_dir="$ROOT/contracts/abi"
code_dir="$ROOT/contracts/bytecode"
if [[ "$mode" == check ]]; then
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  abi_dir="$tmp/abi"
  code_dir="$tmp/bytecode"
fi
mkdir -p "$abi_dir" "$code_dir"
node - "$ROOT/contracts/out" "$abi_dir" "$code_dir" "${#CONTRACTS[@]}" "${CONTRACTS[@]}" \
  "${BYTECODE[@]}" <<'JS'
const fs = require("fs");
const [artifacts, abiDir, codeDir, count, ...rest] = process.argv.slice(2);
const abiNames = rest.slice(0, Number(count));
const codeNames = rest.slice(Number(count));
const sortKeys = (v) => Array.isArray(v) ? v.map(sortKeys)
  : v !== null && typeof v === "object"
    ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k])])) : v;
const artifact = (name) => {
  const path = `${artifacts}/${name}.sol/${name}.json`;
  if (!fs.existsSync(path)) { console.error(`export-abis: missing ${path} (run forge build)`); process.exit(1); }
  return JSON.parse(fs.readFileSync(path, "utf8"));
};
for (const name of abiNames) {
  fs.writeFileSync(`${abiDir}/${name}.json`, JSON.stringify(sortKeys(artifact(name).abi), null, 2) + "\n");
}
for (const name of codeNames) {
  const code = artifact(name).bytecode;
  if (Object.keys(code.linkReferences || {}).length !== 0 || !/^0x([0-9a-f]{2})+$/.test(code.object)) {
    console.error(`export-abis: ${name}: bytecode needs linking or is not hex`); process.exit(1);
  }
  fs.writeFileSync(`${codeDir}/${name}.hex`, code.object + "\n");
}
JS
if [[ "$mode" == check ]]; then
  stale=0
  diff -r -q "$ROOT/contracts/abi" "$abi_dir" >&2 || stale=1
  diff -r -q "$ROOT/contracts/bytecode" "$code_dir" >&2 || stale=1
  if [[ "$stale" == 1 ]]; then
    echo "export-abis: contracts/abi/ or contracts/bytecode/ is stale; run scripts/export-abis.sh and commit" >&2
    exit 1
  fi
  echo "export-abis: contracts/abi/ and contracts/bytecode/ match the artifacts"
else
  echo "export-abis: wrote ${#CONTRACTS[@]} ABIs to contracts/abi/ and ${#BYTECODE[@]} bytecodes to contracts/bytecode/"
fi
