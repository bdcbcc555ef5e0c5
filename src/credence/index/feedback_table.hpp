// The readers of the `feedback` and `feedback_responses` tables (schema.cpp, migration 1; the
// read path index feedback_by_agent_block: migration 4). The index owns both: the projector
// writes them from ERC-8004 NewFeedback / FeedbackRevoked / ResponseAppended
// (projector_erc8004.cpp; rollback deletes an agent's rows, projector.cpp), and every other module
// reads them through these typed functions, never with SQL of its own (docs/architecture.md §Table
// owners): the getSummary mirror (trust/summary.hpp), the trust engine (trust/score_index.hpp) and
// the API's agent routes (api/rest_agents.cpp).
//
// A row that does not have the shape the schema promises (a value that is not an int128 decimal,
// valueDecimals outside 0..18, which the projector never stores) is an "unreadable" DbError.
// Thread-safety: none; one Database per thread (database.hpp). Ownership: borrows the Database.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <credence/core/address.hpp>
#include <credence/core/bytes.hpp>
#include <credence/core/uint256.hpp>
#include <credence/index/database.hpp>
#include <credence/index/schema.hpp>

namespace credence::index {

/// A feedback as ERC-8004 getSummary reads it (§Reputation Registry): its key within the agent,
/// value and filters.
struct FeedbackEntry {
    core::Address client{};
    uint64_t feedback_index = 0;
    core::Int256 value;  ///< the int128 `value`
    uint8_t value_decimals = 0;
    std::string tag1;
    std::string tag2;
    bool revoked = false;
};

/// Every feedback of one agent, in chain order (block_num, log_index), revoked ones included.
[[nodiscard]] DbResult<std::vector<FeedbackEntry>> read_agent_feedback(
    Database& db, uint64_t chain_id, const core::Address& registry, const core::Bytes& agent_id);

/// A feedback as the trust engine weighs it: its agent and key, value, tag1, revocation and
/// position in the chain.
struct FeedbackReview {
    core::Bytes agent_id;
    core::Address client{};
    uint64_t feedback_index = 0;
    core::Int256 value;
    uint8_t value_decimals = 0;
    std::string tag1;
    bool revoked = false;
    int64_t block_num = 0;
    int64_t log_index = 0;
};

/// Every feedback of a reputation registry, in chain order (a full load of the trust graph).
[[nodiscard]] DbResult<std::vector<FeedbackReview>> read_registry_reviews(
    Database& db, uint64_t chain_id, const core::Address& registry);

/// A review with its latest check's flags (nullopt: never checked).
struct CheckedReview {
    FeedbackReview review;
    std::optional<VerificationFlags> flags;
};

/// The feedback of `agent_ids` given or revoked in a block above `block_num` (-1: all of it),
/// each joined to its latest check (verification_table.hpp), so a feedback read late carries the
/// flag a full load gives it. In chunks of agents (in_list.hpp); chain order within a chunk only.
[[nodiscard]] DbResult<std::vector<CheckedReview>> read_reviews_changed_after(
    Database& db, uint64_t chain_id, const core::Address& registry, int64_t block_num,
    std::span<const core::Bytes> agent_ids);

/// The API's counts of one agent: its feedback, the revoked ones, their responses.
struct FeedbackCounts {
    int64_t feedback = 0;
    int64_t revoked = 0;
    int64_t responses = 0;
};

/// Counted on the indexes (feedback_by_agent_block covers revoked; responses by their key).
[[nodiscard]] DbResult<FeedbackCounts> count_agent_feedback(Database& db, uint64_t chain_id,
                                                            const core::Address& registry,
                                                            const core::Bytes& agent_id);

/// The rows of a registry: feedback and responses (the chain status).
[[nodiscard]] DbResult<FeedbackCounts> count_registry_feedback(Database& db, uint64_t chain_id,
                                                               const core::Address& registry);

/// One page of an agent's feedback with ERC-8004 readAllFeedback's filters (api/rest_agents.cpp
/// /feedback): keyset paging in chain order.
struct FeedbackPageQuery {
    uint64_t chain_id = 0;
    core::Address registry{};
    core::Bytes agent_id;
    std::span<const core::Address> clients;  ///< empty: every client
    std::string tag1;                        ///< empty: any (readAllFeedback)
    std::string tag2;                        ///< empty: any
    bool include_revoked = false;
    /// (block_num, log_index) of the previous page's last row; the page starts after it.
    std::optional<std::pair<int64_t, int64_t>> after;
    size_t limit = 20;
};

/// Every column of a feedback row but its agent (the query's).
struct FeedbackRow {
    core::Address client{};
    uint64_t feedback_index = 0;
    std::string value;  ///< the exact int128 in decimal
    uint8_t value_decimals = 0;
    double normalized = 0;  ///< value / 10^decimals (schema.hpp)
    std::string tag1;
    std::string tag2;
    std::string endpoint;
    std::string feedback_uri;
    core::Bytes feedback_hash;
    bool revoked = false;
    int64_t block_num = 0;
    int64_t log_index = 0;
    core::Bytes txn_hash;
};

/// At most `query.limit` rows, through feedback_by_agent_block.
[[nodiscard]] DbResult<std::vector<FeedbackRow>> read_feedback_page(Database& db,
                                                                    const FeedbackPageQuery& query);

/// An ERC-8004 ResponseAppended to one feedback.
struct FeedbackResponse {
    core::Address responder{};
    std::string response_uri;
    core::Bytes response_hash;
    int64_t block_num = 0;
    int64_t log_index = 0;
    core::Bytes txn_hash;
};

/// The responses to feedback (client, feedback_index) of an agent, in chain order.
[[nodiscard]] DbResult<std::vector<FeedbackResponse>> read_feedback_responses(
    Database& db, uint64_t chain_id, const core::Address& registry, const core::Bytes& agent_id,
    const core::Address& client, uint64_t feedback_index);

/// A point of an agent's reputation over time.
struct FeedbackPoint {
    int64_t block_num = 0;
    double normalized = 0;
};

/// The agent's feedback that stands (not revoked), in chain order, read from the index alone
/// (feedback_by_agent_block covers normalized).
[[nodiscard]] DbResult<std::vector<FeedbackPoint>> read_feedback_points(
    Database& db, uint64_t chain_id, const core::Address& registry, const core::Bytes& agent_id);

}  // namespace credence::index
