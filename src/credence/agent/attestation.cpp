#include <credence/agent/attestation.hpp>

#include <string_view>

#include <credence/core/eip712.hpp>
#include <credence/core/keccak.hpp>

namespace credence::agent {
namespace {

void append(core::Bytes& out, const core::Hash32& h) { out.insert(out.end(), h.begin(), h.end()); }

}  // namespace

core::Hash32 attestation_digest(uint64_t chain_id, const core::Address& verifier,
                                const AttestationStatement& s) {
    core::Eip712Domain domain;
    domain.name = "CredenceECDSAVerifier";
    domain.version = "1";
    domain.chain_id = core::Uint256{chain_id};
    domain.verifying_contract = verifier.bytes;
    // hashStruct = keccak256(typeHash || encodeData); every member is a bytes32, so encodeData
    // is the members' concatenation (EIP-712 §Definition of encodeData).
    core::Bytes encoded;
    if (s.agent_mode) {
        append(encoded, core::keccak256(std::string_view(
                            "AgentAttestation(bytes32 taskId,bytes32 agentId,bytes32 inputHash,"
                            "bytes32 outputHash)")));
        append(encoded, s.run_id);
        core::Hash32 agent_id{};
        std::copy(s.replier.bytes.begin(), s.replier.bytes.end(), agent_id.begin() + 12);
        append(encoded, agent_id);
    } else {
        append(encoded, core::keccak256(
                            std::string_view("Attestation(bytes32 inputHash,bytes32 outputHash)")));
    }
    append(encoded, s.input_hash);
    append(encoded, s.output_hash);
    return core::eip712_digest(core::domain_separator(domain), core::keccak256(encoded));
}

core::Bytes attestation_proof(const core::SecretKey& attester, const core::Hash32& digest) {
    auto sig = core::sign_digest(attester, digest);
    if (!sig) return {};
    const auto bytes = sig->to_bytes_v27();
    return {bytes.begin(), bytes.end()};
}

}  // namespace credence::agent
