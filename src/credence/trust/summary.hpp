// Exact mirrors of the on-chain summaries (docs/architecture.md §trust/): ERC-8004
// ReputationRegistry.getSummary and ValidationRegistry.getSummary, computed off-chain from the
// indexed feedback and validation rows, so the node answers them for any client list and tags
// without an eth_call, and with the same answer as the contract (tests compare the two on a
// devnet).
//
// Reputation (ERC-8004 §Reputation Registry, getSummary): the client list MUST be non-empty
// ("results without filtering by clientAddresses are subject to Sybil/spam attacks"); revoked
// feedback is skipped; a non-empty tag filters by exact byte equality. Every value is scaled to 18
// decimals (value * 10^(18 - valueDecimals)), summed in int256, divided by the count, and scaled
// back to the mode of the decimals (ties go to the smallest); both divisions truncate toward zero
// as Solidity's do. Two implementations are deployed and differ on two inputs
// (docs/compatibility.md §Defects of the deployed registries that we fix), so the mirror follows
// the one it mirrors (SummaryRules):
//   - Credence (contracts/src/erc8004/ReputationRegistry.sol): a client listed twice counts once,
//     and a result outside int128 is SummaryOverflow();
//   - the deployed v2.0.0 registries: every listed client counts, a repeated one again, and the
//     result is cast to int128 unchecked (it wraps).
// Validation: responses only (a request without one is skipped), optional validator list and
// tag; the average is the integer mean of the 0..100 responses, truncated.
//
// Pure functions over rows, plus readers that load the rows of one agent from the index.
// Thread-safe (the readers borrow a Database: one per thread).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <credence/core/address.hpp>
#include <credence/core/error.hpp>
#include <credence/core/uint256.hpp>
#include <credence/index/database.hpp>
#include <credence/index/feedback_table.hpp>

namespace credence::trust {

/// One feedback as getSummary reads it: the index's row (index/feedback_table.hpp), so the mirror
/// runs on what the index holds without a copy.
using index::FeedbackEntry;

struct ReputationSummary {
    uint64_t count = 0;
    core::Int256 summary_value;  ///< fits int128
    uint8_t summary_value_decimals = 0;
    friend bool operator==(const ReputationSummary&, const ReputationSummary&) = default;
};

/// Whose getSummary the reputation mirror computes (docs/compatibility.md §The getSummary mirror).
enum class SummaryRules {
    credence,    ///< contracts/src/erc8004/ReputationRegistry.sol
    erc8004_v2,  ///< the deployed ERC-8004 v2.0.0 registries (getVersion() == "2.0.0")
};
[[nodiscard]] std::string_view to_string(SummaryRules r) noexcept;
/// "credence" or "erc8004-v2"; nullopt otherwise.
[[nodiscard]] std::optional<SummaryRules> parse_summary_rules(std::string_view text) noexcept;

/// The rules of a registry known by its address: the deployed v2.0.0 ReputationRegistry of the
/// chain (index/registry_defaults, tests/vectors/erc8004.json `deployed`); nullopt for any other
/// address (a Credence deployment is known from its deployment file, chain/deployment.hpp).
[[nodiscard]] std::optional<SummaryRules> known_summary_rules(
    uint64_t chain_id, const core::Address& reputation_registry);

enum class SummaryError {
    client_addresses_required,  ///< reverts ClientAddressesRequired() / "clientAddresses required"
    summary_overflow,           ///< Credence: the average does not fit int128 (SummaryOverflow());
                       ///< both: the int256 sum overflows (a panic; unreachable in practice)
    bad_entry,  ///< a row with valueDecimals > 18 (the contract never stores one)
};
[[nodiscard]] std::string_view to_string(SummaryError e) noexcept;

/// getSummary(agentId, clientAddresses, tag1, tag2) over `feedback`, all feedback of one agent,
/// as the implementation `rules` names computes it.
[[nodiscard]] core::Result<ReputationSummary, SummaryError> reputation_summary(
    std::span<const FeedbackEntry> feedback, std::span<const core::Address> clients,
    std::string_view tag1, std::string_view tag2, SummaryRules rules);

struct ValidationEntry {
    core::Address validator{};
    bool has_response = false;
    uint8_t response = 0;  ///< the latest response, 0..100
    std::string tag;       ///< the latest response's tag
};

struct ValidationSummary {
    uint64_t count = 0;
    uint8_t average_response = 0;
    friend bool operator==(const ValidationSummary&, const ValidationSummary&) = default;
};

/// ValidationRegistry.getSummary(agentId, validatorAddresses, tag) over one agent's requests.
[[nodiscard]] ValidationSummary validation_summary(std::span<const ValidationEntry> requests,
                                                   std::span<const core::Address> validators,
                                                   std::string_view tag);

/// All feedback of one agent in the index (revoked included), oldest first
/// (index::read_agent_feedback). `agent_id` is the 32-byte big-endian id as the index stores it.
[[nodiscard]] index::DbResult<std::vector<FeedbackEntry>> load_feedback(
    index::Database& db, uint64_t chain_id, const core::Address& registry,
    const core::Bytes& agent_id);

/// All validation requests of one agent in the index.
[[nodiscard]] index::DbResult<std::vector<ValidationEntry>> load_validations(
    index::Database& db, uint64_t chain_id, const core::Address& registry,
    const core::Bytes& agent_id);

}  // namespace credence::trust
