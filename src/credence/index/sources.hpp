// What the indexer follows on one chain: each registry contract, its kind (which events it emits
// and how they project) and the block to start from.
//
// Kinds: the three ERC-8004 registries (the identity registry is also an ERC-721, so Transfer /
// Approval / ApprovalForAll are indexed), the ERC-8257 tool registry, any ERC-8301 workflow
// contract (IAgentWorkflow events plus each scenario's own events), and an ERC-8274 agent verifier
// (VerificationCompleted: the proofs of a run's evidence chain). The registries of the two earlier
// ERC-8004 revisions (docs/compatibility.md §Earlier ERC-8004 revisions) are kinds of their own,
// one per registry and revision: their events differ (or, where a topic0 is shared, their
// projections do), and a raw log's kind is how rollback replays it.
// Thread-safety: plain value types.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <credence/core/address.hpp>
#include <credence/core/erc8004_revision.hpp>

namespace credence::index {

enum class ContractKind : uint8_t {
    identity_registry = 1,
    reputation_registry = 2,
    validation_registry = 3,
    tool_registry = 4,
    workflow = 5,
    agent_verifier = 6,
    // ERC-8004 intermediate revision (feedback is a score 0..100).
    identity_score = 7,
    reputation_score = 8,
    validation_score = 9,
    // ERC-8004 first draft (AgentDomain / AgentAddress, AuthFeedback, DataHash).
    identity_draft = 10,
    reputation_draft = 11,
    validation_draft = 12,
};

/// The kind's name in config files, logs and status: "identity", "reputation", "validation",
/// "tool", "workflow", "verifier", and for the earlier ERC-8004 revisions "identity-score",
/// "reputation-score", "validation-score", "identity-draft", "reputation-draft",
/// "validation-draft" ("unknown" for a value outside the enum).
[[nodiscard]] std::string_view to_string(ContractKind kind) noexcept;
/// The inverse of to_string (exact, lower case); nullopt for any other text.
[[nodiscard]] std::optional<ContractKind> parse_contract_kind(std::string_view text) noexcept;

/// An ERC-8004 registry kind: which registry of which revision.
struct Erc8004Kind {
    core::Erc8004Registry registry = core::Erc8004Registry::identity;
    core::Erc8004Revision revision = core::Erc8004Revision::current;
};
/// The registry and revision a kind follows; nullopt for the tool, workflow and verifier kinds.
[[nodiscard]] std::optional<Erc8004Kind> erc8004_kind(ContractKind kind) noexcept;
/// The kind that follows `registry` of `revision`.
[[nodiscard]] ContractKind erc8004_contract_kind(core::Erc8004Registry registry,
                                                 core::Erc8004Revision revision) noexcept;

struct RegistrySource {
    ContractKind kind = ContractKind::identity_registry;
    core::Address address{};
    uint64_t start_block = 0;
    std::string name;  // "IdentityRegistry", "SingleStageWorkflow", ... (for logs and status)

    friend bool operator==(const RegistrySource&, const RegistrySource&) = default;
};

/// The first pair (earlier, later) of sources naming one address as one kind twice, or as one
/// ERC-8004 registry of two revisions (an identity and a reputation event of one revision may share
/// a topic0 with the other's, so the log's kind would be a guess), or nullopt. One address may be
/// given as several kinds (a contract that emits, say, both identity and reputation events): each
/// of its logs goes to the kind whose events include its topic0 (indexer.cpp).
[[nodiscard]] std::optional<std::pair<size_t, size_t>> repeated_address(
    const std::vector<RegistrySource>& sources);

}  // namespace credence::index
