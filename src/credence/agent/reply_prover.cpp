// The ERC-8301 proof step (reply_prover.hpp).
#include <credence/agent/reply_prover.hpp>

#include <utility>

#include <credence/agent/attestation.hpp>
#include <credence/core/abi.hpp>
#include <credence/core/abi_type.hpp>

namespace credence::agent {

ReplyProof prove_reply(uint64_t chain_id, const ProofPolicy& policy,
                       const core::SecretKey& attester, const core::Hash32& reply_hash,
                       const chain::bindings::i_agent_workflow::AgentReply& reply,
                       const core::Hash32& input_hash) {
    // ERC-8301 §onAgentProve Option A: taskId = workflowRunId, agentId = bytes32(replier).
    const AttestationStatement statement{policy.agent_mode, reply.workflow_run_id, reply.replier,
                                         input_hash, reply.output_hash};
    ReplyProof out;
    out.reply_hash = reply_hash;
    out.input_hash = input_hash;
    out.output_hash = reply.output_hash;
    out.digest = attestation_digest(chain_id, policy.verifier, statement);
    out.proof = attestation_proof(attester, out.digest);
    return out;
}

core::Bytes combine_proofs(std::vector<core::Bytes> proofs) {
    if (proofs.size() == 1) return std::move(proofs.front());
    static const auto kType = core::parse_type("bytes[]");
    core::AbiValue::List list;
    list.reserve(proofs.size());
    for (auto& p : proofs) list.emplace_back(std::move(p));
    auto encoded = core::encode_one(*kType, list);
    return encoded ? std::move(*encoded) : core::Bytes{};  // bytes[] of bytes always encodes
}

}  // namespace credence::agent
