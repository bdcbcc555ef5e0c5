// ERC-8274 attestation proofs for Credence's ECDSAAttestationVerifier: the EIP-712 digest the
// verifier recovers the attester from, and the 65-byte r || s || v proof.
//
// Statements (contracts/src/erc8301/verifiers/ECDSAAttestationVerifier.sol), in the domain
// {name "CredenceECDSAVerifier", version "1", chainId, verifyingContract = the verifier}:
//   agent mode (ERC-8301 §onAgentProve Option A, IAgentVerifier):
//     AgentAttestation(bytes32 taskId, bytes32 agentId, bytes32 inputHash, bytes32 outputHash)
//     with taskId = workflowRunId and agentId = bytes32(uint160(replier));
//   proof mode (Option B, IProofVerifier): Attestation(bytes32 inputHash, bytes32 outputHash).
// inputHash is the inputHash of the reply's prevTaskHashes[0], read from the chain (ERC-8301
// §onAgentProve step 1), never from the replier.
// Pure functions: thread-safe, no I/O.
#pragma once

#include <cstdint>

#include <credence/core/address.hpp>
#include <credence/core/bytes.hpp>
#include <credence/core/secp256k1.hpp>

namespace credence::agent {

struct AttestationStatement {
    bool agent_mode = true;
    core::Hash32 run_id{};
    core::Address replier;
    core::Hash32 input_hash{};
    core::Hash32 output_hash{};
};

/// The EIP-712 digest ECDSAAttestationVerifier at `verifier` on `chain_id` checks.
[[nodiscard]] core::Hash32 attestation_digest(uint64_t chain_id, const core::Address& verifier,
                                              const AttestationStatement& statement);

/// The proof bytes (r || s || v with v in {27, 28}, the form OpenZeppelin's ECDSA recovers);
/// empty when signing fails (never for a valid key).
[[nodiscard]] core::Bytes attestation_proof(const core::SecretKey& attester,
                                            const core::Hash32& digest);

}  // namespace credence::agent
