#include <credence/index/feedback_table.hpp>

#include <algorithm>
#include <array>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include <credence/index/in_list.hpp>
#include <credence/index/row.hpp>

namespace credence::index {
namespace {

// ERC-8004 §Giving Feedback: valueDecimals MUST be 0..18 (the projector rejects any other).
constexpr int64_t kMaxDecimals = 18;

constexpr std::string_view kAgentFeedback =
    "SELECT client, feedback_index, value, value_decimals, tag1, tag2, revoked FROM feedback "
    "WHERE chain_id = $1 AND registry = $2 AND agent_id = $3 ORDER BY block_num, log_index";

// The review columns review_at reads.
constexpr std::string_view kRegistryReviews =
    "SELECT agent_id, client, feedback_index, value, value_decimals, tag1, revoked, block_num, "
    "log_index FROM feedback WHERE chain_id = $1 AND registry = $2 ORDER BY block_num, log_index";

// The same columns, then the latest check's flags (NULL: never checked), joined on both primary
// keys.
constexpr std::string_view kReviewsChangedAfter =
    "SELECT f.agent_id, f.client, f.feedback_index, f.value, f.value_decimals, f.tag1, f.revoked, "
    "f.block_num, f.log_index, v.flags FROM feedback f LEFT JOIN verifications v ON v.chain_id = "
    "f.chain_id AND v.subject_kind = 'feedback' AND v.contract = f.registry AND v.subject_id = "
    "f.agent_id AND v.client = f.client AND v.feedback_index = f.feedback_index WHERE "
    "f.chain_id = $1 AND f.registry = $2 AND (f.block_num > $3 OR f.revoked_block_num > $3) AND "
    "f.agent_id IN ";

constexpr std::string_view kCountAgentFeedback =
    "SELECT COUNT(*), COALESCE(SUM(revoked), 0) FROM feedback "
    "WHERE chain_id = $1 AND registry = $2 AND agent_id = $3";
constexpr std::string_view kCountAgentResponses =
    "SELECT COUNT(*) FROM feedback_responses "
    "WHERE chain_id = $1 AND registry = $2 AND agent_id = $3";

constexpr std::string_view kCountRegistryFeedback =
    "SELECT COUNT(*) FROM feedback WHERE chain_id = $1 AND registry = $2";
constexpr std::string_view kCountRegistryResponses =
    "SELECT COUNT(*) FROM feedback_responses WHERE chain_id = $1 AND registry = $2";

constexpr std::string_view kPageColumns =
    "SELECT client, feedback_index, value, value_decimals, normalized, tag1, tag2, endpoint, "
    "feedback_uri, feedback_hash, revoked, block_num, log_index, txn_hash FROM feedback WHERE ";

constexpr std::string_view kResponses =
    "SELECT responder, response_uri, response_hash, block_num, log_index, txn_hash "
    "FROM feedback_responses WHERE chain_id = $1 AND registry = $2 AND agent_id = $3 AND "
    "client = $4 AND feedback_index = $5 ORDER BY block_num, log_index";

constexpr std::string_view kPoints =
    "SELECT block_num, normalized FROM feedback WHERE chain_id = $1 AND registry = $2 AND "
    "agent_id = $3 AND revoked = 0 ORDER BY block_num, log_index";

std::array<DbValue, 3> agent_key(uint64_t chain_id, const core::Address& registry,
                                 const core::Bytes& agent_id) {
    return {int_value(chain_id), blob_value(registry.view()), agent_id};
}

DbResult<core::Address> address_at(const DbRow& row, size_t i, std::string_view what) {
    const core::Bytes* bytes = blob_at(row, i);
    if (bytes == nullptr) return std::unexpected(unreadable("feedback", what));
    auto address = core::Address::from_bytes(*bytes);
    if (!address) return std::unexpected(unreadable("feedback", what));
    return *address;
}

/// A feedback_index (uint64 on chain, stored as BIGINT) and a value_decimals in 0..18.
bool valid_key_and_decimals(const int64_t* index, const int64_t* decimals) {
    return index != nullptr && decimals != nullptr && *index >= 0 && *decimals >= 0 &&
           *decimals <= kMaxDecimals;
}

/// Columns: agent_id, client, feedback_index, value, value_decimals, tag1, revoked, block_num,
/// log_index.
DbResult<FeedbackReview> review_at(const DbRow& row) {
    const core::Bytes* id = blob_at(row, 0);
    const int64_t* index = int_at(row, 2);
    const std::string* value = text_at(row, 3);
    const int64_t* decimals = int_at(row, 4);
    const std::string* tag1 = text_at(row, 5);
    const int64_t* revoked = int_at(row, 6);
    const int64_t* block = int_at(row, 7);
    const int64_t* log_index = int_at(row, 8);
    if (id == nullptr || value == nullptr || tag1 == nullptr || revoked == nullptr ||
        block == nullptr || log_index == nullptr || !valid_key_and_decimals(index, decimals)) {
        return std::unexpected(unreadable("feedback", "row"));
    }
    auto client = address_at(row, 1, "client");
    if (!client) return std::unexpected(client.error());
    auto parsed = core::Int256::parse(*value);
    if (!parsed) return std::unexpected(unreadable("feedback", "value"));
    return FeedbackReview{*id,
                          *client,
                          static_cast<uint64_t>(*index),
                          *parsed,
                          static_cast<uint8_t>(*decimals),
                          *tag1,
                          *revoked != 0,
                          *block,
                          *log_index};
}

/// The one value of a "SELECT COUNT(*) ..." over `key`.
DbResult<int64_t> count_of(Database& db, std::string_view sql, std::span<const DbValue> key) {
    auto rows = db.query(sql, key);
    if (!rows) return std::unexpected(rows.error());
    const int64_t* n = rows->empty() ? nullptr : int_at(rows->front(), 0);
    if (n == nullptr) return std::unexpected(unreadable("feedback", "count"));
    return *n;
}

}  // namespace

DbResult<std::vector<FeedbackEntry>> read_agent_feedback(Database& db, uint64_t chain_id,
                                                         const core::Address& registry,
                                                         const core::Bytes& agent_id) {
    auto rows = db.query(kAgentFeedback, agent_key(chain_id, registry, agent_id));
    if (!rows) return std::unexpected(rows.error());
    std::vector<FeedbackEntry> out;
    out.reserve(rows->size());
    for (const DbRow& row : *rows) {
        const int64_t* index = int_at(row, 1);
        const std::string* value = text_at(row, 2);
        const int64_t* decimals = int_at(row, 3);
        const std::string* tag1 = text_at(row, 4);
        const std::string* tag2 = text_at(row, 5);
        const int64_t* revoked = int_at(row, 6);
        if (value == nullptr || tag1 == nullptr || tag2 == nullptr || revoked == nullptr ||
            !valid_key_and_decimals(index, decimals)) {
            return std::unexpected(unreadable("feedback", "row"));
        }
        auto client = address_at(row, 0, "client");
        if (!client) return std::unexpected(client.error());
        auto parsed = core::Int256::parse(*value);
        if (!parsed) return std::unexpected(unreadable("feedback", "value"));
        out.push_back(FeedbackEntry{*client, static_cast<uint64_t>(*index), *parsed,
                                    static_cast<uint8_t>(*decimals), *tag1, *tag2, *revoked != 0});
    }
    return out;
}

DbResult<std::vector<FeedbackReview>> read_registry_reviews(Database& db, uint64_t chain_id,
                                                            const core::Address& registry) {
    const std::array<DbValue, 2> params{int_value(chain_id), blob_value(registry.view())};
    auto rows = db.query(kRegistryReviews, params);
    if (!rows) return std::unexpected(rows.error());
    std::vector<FeedbackReview> out;
    out.reserve(rows->size());
    for (const DbRow& row : *rows) {
        auto review = review_at(row);
        if (!review) return std::unexpected(review.error());
        out.push_back(std::move(*review));
    }
    return out;
}

DbResult<std::vector<CheckedReview>> read_reviews_changed_after(
    Database& db, uint64_t chain_id, const core::Address& registry, int64_t block_num,
    std::span<const core::Bytes> agent_ids) {
    std::vector<CheckedReview> out;
    const std::vector<DbValue> fixed{int_value(chain_id), blob_value(registry.view()), block_num};
    auto r = query_in_chunks(
        db, kReviewsChangedAfter, "", fixed, agent_ids, [&](const DbRow& row) -> DbResult<void> {
            auto review = review_at(row);
            if (!review) return std::unexpected(review.error());
            std::optional<VerificationFlags> flags;
            if (const int64_t* bits = int_at(row, 9); bits != nullptr) {
                flags = VerificationFlags::from_bits(static_cast<uint64_t>(*bits));
            }
            out.push_back({std::move(*review), flags});
            return {};
        });
    if (!r) return std::unexpected(r.error());
    return out;
}

DbResult<FeedbackCounts> count_agent_feedback(Database& db, uint64_t chain_id,
                                              const core::Address& registry,
                                              const core::Bytes& agent_id) {
    const auto key = agent_key(chain_id, registry, agent_id);
    auto rows = db.query(kCountAgentFeedback, key);
    if (!rows) return std::unexpected(rows.error());
    const int64_t* given = rows->empty() ? nullptr : int_at(rows->front(), 0);
    const int64_t* revoked = rows->empty() ? nullptr : int_at(rows->front(), 1);
    if (given == nullptr || revoked == nullptr)
        return std::unexpected(unreadable("feedback", "count"));
    auto responses = count_of(db, kCountAgentResponses, key);
    if (!responses) return std::unexpected(responses.error());
    return FeedbackCounts{*given, *revoked, *responses};
}

DbResult<FeedbackCounts> count_registry_feedback(Database& db, uint64_t chain_id,
                                                 const core::Address& registry) {
    const std::array<DbValue, 2> key{int_value(chain_id), blob_value(registry.view())};
    auto given = count_of(db, kCountRegistryFeedback, key);
    if (!given) return std::unexpected(given.error());
    auto responses = count_of(db, kCountRegistryResponses, key);
    if (!responses) return std::unexpected(responses.error());
    return FeedbackCounts{*given, 0, *responses};
}

DbResult<std::vector<FeedbackRow>> read_feedback_page(Database& db,
                                                      const FeedbackPageQuery& query) {
    // One placeholder per bound value, numbered as bound.
    std::vector<DbValue> params{int_value(query.chain_id), blob_value(query.registry.view()),
                                query.agent_id};
    std::string where = "chain_id = $1 AND registry = $2 AND agent_id = $3";
    if (!query.clients.empty()) {
        where += " AND client IN (";
        for (size_t i = 0; i < query.clients.size(); ++i) {
            if (i > 0) where += ", ";
            params.push_back(blob_value(query.clients[i].view()));
            where += fmt::format("${}", params.size());
        }
        where += ')';
    }
    // ERC-8004 readAllFeedback: an empty tag does not filter; a non-empty one must be equal.
    for (const auto& [column, tag] :
         {std::pair{"tag1", &query.tag1}, std::pair{"tag2", &query.tag2}}) {
        if (tag->empty()) continue;
        params.emplace_back(*tag);
        where += fmt::format(" AND {} = ${}", column, params.size());
    }
    if (!query.include_revoked) where += " AND revoked = 0";
    if (query.after) {
        params.emplace_back(query.after->first);
        const size_t block_n = params.size();
        params.emplace_back(query.after->second);
        where += fmt::format(" AND (block_num > ${0} OR (block_num = ${0} AND log_index > ${1}))",
                             block_n, params.size());
    }
    params.push_back(int_value(query.limit));
    auto rows = db.query(fmt::format("{}{} ORDER BY block_num, log_index LIMIT ${}", kPageColumns,
                                     where, params.size()),
                         params);
    if (!rows) return std::unexpected(rows.error());
    std::vector<FeedbackRow> out;
    out.reserve(rows->size());
    for (const DbRow& row : *rows) {
        const int64_t* index = int_at(row, 1);
        const std::string* value = text_at(row, 2);
        const int64_t* decimals = int_at(row, 3);
        const double* normalized = real_at(row, 4);
        const std::string* tag1 = text_at(row, 5);
        const std::string* tag2 = text_at(row, 6);
        const std::string* endpoint = text_at(row, 7);
        const std::string* uri = text_at(row, 8);
        const core::Bytes* hash = blob_at(row, 9);
        const int64_t* revoked = int_at(row, 10);
        const int64_t* block = int_at(row, 11);
        const int64_t* log_index = int_at(row, 12);
        const core::Bytes* txn_hash = blob_at(row, 13);
        if (value == nullptr || normalized == nullptr || tag1 == nullptr || tag2 == nullptr ||
            endpoint == nullptr || uri == nullptr || hash == nullptr || revoked == nullptr ||
            block == nullptr || log_index == nullptr || txn_hash == nullptr ||
            !valid_key_and_decimals(index, decimals)) {
            return std::unexpected(unreadable("feedback", "row"));
        }
        auto client = address_at(row, 0, "client");
        if (!client) return std::unexpected(client.error());
        out.push_back(FeedbackRow{*client, static_cast<uint64_t>(*index), *value,
                                  static_cast<uint8_t>(*decimals), *normalized, *tag1, *tag2,
                                  *endpoint, *uri, *hash, *revoked != 0, *block, *log_index,
                                  *txn_hash});
    }
    return out;
}

DbResult<std::vector<FeedbackResponse>> read_feedback_responses(Database& db, uint64_t chain_id,
                                                                const core::Address& registry,
                                                                const core::Bytes& agent_id,
                                                                const core::Address& client,
                                                                uint64_t feedback_index) {
    const std::array<DbValue, 5> params{int_value(chain_id), blob_value(registry.view()), agent_id,
                                        blob_value(client.view()), int_value(feedback_index)};
    auto rows = db.query(kResponses, params);
    if (!rows) return std::unexpected(rows.error());
    std::vector<FeedbackResponse> out;
    out.reserve(rows->size());
    for (const DbRow& row : *rows) {
        const std::string* uri = text_at(row, 1);
        const core::Bytes* hash = blob_at(row, 2);
        const int64_t* block = int_at(row, 3);
        const int64_t* log_index = int_at(row, 4);
        const core::Bytes* txn_hash = blob_at(row, 5);
        if (uri == nullptr || hash == nullptr || block == nullptr || log_index == nullptr ||
            txn_hash == nullptr) {
            return std::unexpected(unreadable("feedback", "response"));
        }
        auto responder = address_at(row, 0, "responder");
        if (!responder) return std::unexpected(responder.error());
        out.push_back(FeedbackResponse{*responder, *uri, *hash, *block, *log_index, *txn_hash});
    }
    return out;
}

DbResult<std::vector<FeedbackPoint>> read_feedback_points(Database& db, uint64_t chain_id,
                                                          const core::Address& registry,
                                                          const core::Bytes& agent_id) {
    auto rows = db.query(kPoints, agent_key(chain_id, registry, agent_id));
    if (!rows) return std::unexpected(rows.error());
    std::vector<FeedbackPoint> out;
    out.reserve(rows->size());
    for (const DbRow& row : *rows) {
        const int64_t* block = int_at(row, 0);
        const double* normalized = real_at(row, 1);
        if (block == nullptr || normalized == nullptr)
            return std::unexpected(unreadable("feedback", "point"));
        out.push_back(FeedbackPoint{*block, *normalized});
    }
    return out;
}

}  // namespace credence::index
