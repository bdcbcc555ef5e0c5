// `credence workflow`: ERC-8301 runs, replies, proofs and their evidence chain (docs/cli.md).
//
//   run <input-file>        run(inputHash = keccak256(file bytes), input, expiresAt)
//   task <taskHash>         getAgentTask + isTaskEligible
//   reply <taskHash>...     onAgentReply with an operationId from the journal
//                           (chain/operation_journal.hpp), saved before sending
//   prove <replyHash>...    onAgentProve with an ECDSAAttestationVerifier attestation (ERC-8274)
//   result <runId>          result()
//   timeout <taskHash>      replyTimeout() of an expired task
//   trace <runId>           the task/reply chain from eth_getLogs, as a tree (or --json)
// Every command takes the shared chain flags (chain_context.hpp) and --workflow NAME|ADDRESS
// (a contract name in the deployment file, default SingleStageWorkflow, or an address).
//
// The standard functions go through the IAgentWorkflow bindings so any conformant workflow works;
// replyTimeout / proofPolicy / isTaskEligible are Credence's AgentWorkflow extensions (the
// SingleStageWorkflow bindings, shared by every scenario workflow).
// Thread-safety: CLI only; one command per process.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include <credence/cmd/args.hpp>
#include <credence/cmd/chain_context.hpp>
#include <credence/core/address.hpp>
#include <credence/core/bytes.hpp>

namespace credence::cmd {

void add_workflow_commands(CLI::App& app);

namespace workflow_detail {

/// Flags every workflow command shares.
struct CommonArgs {
    ChainOptions chain;
    std::string workflow = "SingleStageWorkflow";
};

/// A workflow subcommand with the shared flags. `signs`: it sends transactions.
CLI::App* add_command(CLI::App& group, const std::string& name, const std::string& about,
                      CommonArgs& args, bool signs);

/// The workflow's address: --workflow as an address, else its name in the deployment file.
[[nodiscard]] core::Address resolve_workflow(ChainContext& ctx, const std::string& flag);

/// False only when `verifier` is an ERC-8274 ECDSA attestation verifier that has not enabled
/// `signer`, so its proofs would be rejected (ProofRejected); true when it has, and when the
/// verifier cannot say (another proof system: the proof itself decides).
[[nodiscard]] bool verifier_may_accept(ChainContext& ctx, const core::Address& verifier,
                                       const core::Address& signer);

/// "Pending" / "Success" / "Failed" (ERC-8301 RunStatus).
[[nodiscard]] std::string run_status_name(uint64_t status);

void add_trace_command(CLI::App& group);

}  // namespace workflow_detail
}  // namespace credence::cmd
