// What the indexer follows on one chain: each registry contract, its kind (which events it emits
// and how they project) and the block to start from.
//
// Kinds: the three ERC-8004 registries (the identity registry is also an ERC-721, so Transfer /
// Approval / ApprovalForAll are indexed), the ERC-8257 tool registry, any ERC-8301 workflow
// contract (IAgentWorkflow events plus each scenario's own events), and an ERC-8274 agent verifier
// (VerificationCompleted: the proofs of a run's evidence chain).
// Thread-safety: plain value types.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <credence/core/address.hpp>

namespace credence::index {

enum class ContractKind : uint8_t {
    identity_registry = 1,
    reputation_registry = 2,
    validation_registry = 3,
    tool_registry = 4,
    workflow = 5,
    agent_verifier = 6,
};

/// The kind's name in config files, logs and status: "identity", "reputation", "validation",
/// "tool", "workflow", "verifier" ("unknown" for a value outside the enum).
[[nodiscard]] std::string_view to_string(ContractKind kind) noexcept;
/// The inverse of to_string (exact, lower case); nullopt for any other text.
[[nodiscard]] std::optional<ContractKind> parse_contract_kind(std::string_view text) noexcept;

struct RegistrySource {
    ContractKind kind = ContractKind::identity_registry;
    core::Address address{};
    uint64_t start_block = 0;
    std::string name;  // "IdentityRegistry", "SingleStageWorkflow", ... (for logs and status)

    friend bool operator==(const RegistrySource&, const RegistrySource&) = default;
};

/// The first pair (earlier, later) of sources naming one address as one kind twice, or nullopt.
/// One address may be given as several kinds (a contract that emits, say, both identity and
/// reputation events): each of its logs goes to the kind whose events include its topic0
/// (indexer.cpp).
[[nodiscard]] std::optional<std::pair<size_t, size_t>> repeated_address(
    const std::vector<RegistrySource>& sources);

}  // namespace credence::index
