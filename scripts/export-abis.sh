#!/usr/bin/env bash
# Snapshot the JSON ABI of every deployed Credence contract (and of the interfaces the C++ side
# calls on arbitrary addresses) from forge's artifacts into contracts/abi/<Name>.json, committed.
# The C++ bindings (tools/gen_bindings.cpp, cmake/bindings.cmake) are generated from these
# snapshots, so the C++ build never needs forge.
#
#   scripts/export-abis.sh           rewrite contracts/abi/ from contracts/out/ (run forge build first)
#   scripts/export-abis.sh --check   exit 1 when a snapshot differs from the built artifacts
#
# Output: the artifact's `abi` array, object keys sorted recursively (arrays keep their order: it
# is the parameter order), two-space indent, trailing newline; so the files diff cleanly.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CONTRACTS=(
  IdentityRegistry ReputationRegistry ValidationRegistry ToolRegistry
  DevnetERC1155 DevnetSubscriptions
  ERC721HoldingPredicate ERC1155HoldingPredicate SubscriptionPredicate AllowlistPredicate
  AccessProofPredicate CompositePredicate ECDSAAttestationVerifier
  SingleStageWorkflow InputProvenanceWorkflow CompetitiveBidWorkflow SequentialPipelineWorkflow
  BFTCommitRevealWorkflow ParallelAuditWorkflow PermissionedSingleStageWorkflow
  # Interfaces: for calls on predicates, verifiers and workflows that Credence did not deploy.
  IAccessPredicate IAgentVerifier IAgentWorkflow
)
mode=write
if [[ "${1:-}" == "--check" ]]; then mode=check; elif [[ $# -gt 0 ]]; then
  echo "usage: $0 [--check]" >&2; exit 2
fi
out_dir="$ROOT/contracts/abi"
if [[ "$mode" == check ]]; then
  out_dir="$(mktemp -d)"
  trap 'rm -rf "$out_dir"' EXIT
fi
mkdir -p "$out_dir"
node - "$ROOT/contracts/out" "$out_dir" "${CONTRACTS[@]}" <<'JS'
const fs = require("fs");
const [artifacts, outDir, ...names] = process.argv.slice(2);
const sortKeys = (v) => Array.isArray(v) ? v.map(sortKeys)
  : v !== null && typeof v === "object"
    ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k])])) : v;
for (const name of names) {
  const path = `${artifacts}/${name}.sol/${name}.json`;
  if (!fs.existsSync(path)) { console.error(`export-abis: missing ${path} (run forge build)`); process.exit(1); }
  const abi = JSON.parse(fs.readFileSync(path, "utf8")).abi;
  fs.writeFileSync(`${outDir}/${name}.json`, JSON.stringify(sortKeys(abi), null, 2) + "\n");
}
JS
if [[ "$mode" == check ]]; then
  if ! diff -r -q "$ROOT/contracts/abi" "$out_dir" >&2; then
    echo "export-abis: contracts/abi/ is stale; run scripts/export-abis.sh and commit" >&2
    exit 1
  fi
  echo "export-abis: contracts/abi/ matches the artifacts"
else
  echo "export-abis: wrote ${#CONTRACTS[@]} ABIs to contracts/abi/"
fi
