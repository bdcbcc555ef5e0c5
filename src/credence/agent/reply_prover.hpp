// The ERC-8301 proof step shared by `credence workflow prove` and TaskWorker (docs/agent.md):
// the statement ECDSAAttestationVerifier checks for a reply (agent/attestation.hpp: its EIP-712
// digest, with inputHash = the inputHash of the reply's prevTaskHashes[0] as read from the chain,
// ERC-8301 §onAgentProve step 1, never from the replier), the attester's signature over it, and
// the proof bytes of one onAgentProve call (one reply: its proof as is; several:
// abi.encode(bytes[]) with one proof per reply, Credence's AgentWorkflow proof encoding). Pure
// functions: thread-safe, no I/O.
#pragma once

#include <cstdint>
#include <vector>

#include <credence/chain/bindings/i_agent_workflow.hpp>
#include <credence/core/address.hpp>
#include <credence/core/bytes.hpp>
#include <credence/core/secp256k1.hpp>

namespace credence::agent {

/// A workflow's proof policy (proofPolicy()): the verifier and whether it is used as an ERC-8274
/// IAgentVerifier (Option A: AgentAttestation) or an IProofVerifier (Option B: Attestation).
struct ProofPolicy {
    core::Address verifier;
    bool agent_mode = true;
};

/// One reply's attestation: the statement's hashes, the EIP-712 digest and the 65-byte proof.
struct ReplyProof {
    core::Hash32 reply_hash{};
    core::Hash32 input_hash{};
    core::Hash32 output_hash{};
    core::Hash32 digest{};
    core::Bytes proof;  // r || s || v
};

/// Attests `reply` (stored under `reply_hash`; `input_hash` is its primary task's) for the
/// verifier of `policy` on `chain_id`, signed by `attester`.
[[nodiscard]] ReplyProof prove_reply(uint64_t chain_id, const ProofPolicy& policy,
                                     const core::SecretKey& attester,
                                     const core::Hash32& reply_hash,
                                     const chain::bindings::i_agent_workflow::AgentReply& reply,
                                     const core::Hash32& input_hash);

/// The `proof` argument of onAgentProve for these proofs, in the order of its replyHashes.
[[nodiscard]] core::Bytes combine_proofs(std::vector<core::Bytes> proofs);

}  // namespace credence::agent
