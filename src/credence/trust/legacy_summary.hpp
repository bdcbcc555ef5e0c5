// getSummary mirrors of the earlier ERC-8004 revisions (docs/compatibility.md §Earlier ERC-8004
// revisions), over the same indexed rows as the current revision's mirrors (summary.hpp).
//
// The intermediate revision (contracts/src/erc8004-legacy/ScoreReputationRegistry.sol):
// getSummary(agentId, clientAddresses, tag1, tag2) -> (count, averageScore). The client list is an
// optional filter (ERC-8004 intermediate §Read Functions): empty means every client of the agent;
// a listed client is read once per listing, so a repeat counts again. Revoked feedback is skipped,
// a non-empty tag filters by exact equality, and the average is the integer mean of the 0..100
// scores, truncated. Its validation registry's getSummary is the current one's
// (summary.hpp validation_summary).
//
// The first draft has no getSummary: its feedback is off-chain (erc-8004-first-draft.md
// §Reputation Registry), so nothing here mirrors it.
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include <credence/core/address.hpp>
#include <credence/core/error.hpp>
#include <credence/index/feedback_table.hpp>

namespace credence::trust {

struct ScoreSummary {
    uint64_t count = 0;
    uint8_t average_score = 0;
    friend bool operator==(const ScoreSummary&, const ScoreSummary&) = default;
};

enum class ScoreSummaryError {
    not_a_score,  ///< a row that is no intermediate-revision score (valueDecimals != 0, > 100)
};

/// ScoreReputationRegistry.getSummary(agentId, clients, tag1, tag2) over `feedback`, all feedback
/// of one agent in chain order (trust::load_feedback on the revision's registry).
[[nodiscard]] core::Result<ScoreSummary, ScoreSummaryError> score_summary(
    std::span<const index::FeedbackEntry> feedback, std::span<const core::Address> clients,
    std::string_view tag1, std::string_view tag2);

}  // namespace credence::trust
