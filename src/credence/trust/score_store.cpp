#include <credence/trust/score_store.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <string_view>
#include <variant>

#include <nlohmann/json.hpp>

namespace credence::trust {
namespace {

using index::DbResult;
using index::DbRow;
using index::DbValue;
using Json = nlohmann::ordered_json;

DbValue blob(const core::Address& a) { return core::Bytes(a.bytes.begin(), a.bytes.end()); }

/// Finite doubles only: JSON has no NaN, and a REAL column should not hold one either.
double finite(double x) { return std::isfinite(x) ? x : 0.0; }

// Byte strings as set keys (std::string: GCC 12 warns falsely on vector<uint8_t> ordering).
std::string key_of(const core::Bytes& b) { return {b.begin(), b.end()}; }

index::DbError unreadable(std::string_view what) {
    return index::DbError{index::DbErrorKind::sql, "trust: unreadable " + std::string(what)};
}

void ignore(const DbResult<void>& /*unused*/) {}

/// Rolls back when a write fails half-way, so the table keeps the previous pass whole.
template <typename T>
DbResult<T> abort_tx(index::Database& db, index::DbError error) {
    ignore(db.rollback());  // the original error is the one to report
    return std::unexpected(std::move(error));
}

}  // namespace

std::string tags_json(const AgentScore& score) {
    Json tags = Json::array();
    for (const TagScore& t : score.tags) {
        tags.push_back({{"tag", t.tag},
                        {"isRating", t.is_rating},
                        {"score", finite(t.score)},
                        {"low", finite(t.low)},
                        {"high", finite(t.high)},
                        {"evidence", finite(t.evidence)},
                        {"reviews", t.reviews}});
    }
    return tags.dump();
}

std::string explanation_json(const AgentScore& score,
                             const std::map<core::Address, ReviewerWeight>& weights) {
    // Issue 7 §2c: which reviewers contributed what; the heaviest first, ties by address so the
    // stored text is deterministic.
    std::vector<const Contribution*> order;
    order.reserve(score.contributions.size());
    for (const Contribution& c : score.contributions) order.push_back(&c);
    std::sort(order.begin(), order.end(), [](const Contribution* x, const Contribution* y) {
        if (x->weight != y->weight) return x->weight > y->weight;
        if (x->client != y->client) return x->client < y->client;
        return x->rating < y->rating;
    });
    const size_t kept = std::min(order.size(), kMaxExplained);
    Json rows = Json::array();
    for (size_t i = 0; i < kept; ++i) {
        const Contribution& c = *order[i];
        Json discounts = Json::array();
        for (Discount d : c.discounts) discounts.push_back(to_string(d));
        const auto w = weights.find(c.client);
        rows.push_back({{"client", c.client.to_checksum_hex()},
                        {"rating", finite(c.rating)},
                        {"weight", finite(c.weight)},
                        {"share", finite(c.share)},
                        {"standing", w != weights.end() ? finite(w->second.standing) : 0.0},
                        {"discounts", std::move(discounts)}});
    }
    return Json{{"contributions", std::move(rows)}, {"omitted", order.size() - kept}}.dump();
}

DbResult<void> save_scores(index::Database& db, uint64_t chain_id,
                           const core::Address& identity_registry, std::span<const ScoreRow> rows,
                           const std::map<core::Address, ReviewerWeight>& weights,
                           int64_t computed_at, uint64_t covers_block_num) {
    if (auto r = db.begin(); !r) return r;
    for (const ScoreRow& row : rows) {
        if (row.agent == nullptr || row.score == nullptr) continue;
        const AgentScore& s = *row.score;
        const std::array<DbValue, 13> params{static_cast<int64_t>(chain_id),
                                             blob(identity_registry),
                                             row.agent->agent_id,
                                             finite(s.score),
                                             finite(s.low),
                                             finite(s.high),
                                             finite(s.evidence),
                                             finite(s.effective_reviewers),
                                             static_cast<int64_t>(s.reviews),
                                             tags_json(s),
                                             explanation_json(s, weights),
                                             computed_at,
                                             static_cast<int64_t>(covers_block_num)};
        auto r = db.exec(
            "INSERT INTO agent_scores (chain_id, registry, agent_id, score, low, high, evidence, "
            "effective_reviewers, reviews, tags, explanation, computed_at, covers_block_num) "
            "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) "
            "ON CONFLICT (chain_id, registry, agent_id) DO UPDATE SET score = excluded.score, "
            "low = excluded.low, high = excluded.high, evidence = excluded.evidence, "
            "effective_reviewers = excluded.effective_reviewers, reviews = excluded.reviews, "
            "tags = excluded.tags, explanation = excluded.explanation, "
            "computed_at = excluded.computed_at, covers_block_num = excluded.covers_block_num",
            params);
        if (!r) return abort_tx<void>(db, r.error());
    }
    if (auto r = db.commit(); !r) return abort_tx<void>(db, r.error());
    return {};
}

DbResult<std::optional<StoredScore>> load_score(index::Database& db, uint64_t chain_id,
                                                const core::Address& identity_registry,
                                                const core::Bytes& agent_id) {
    const std::array<DbValue, 3> params{static_cast<int64_t>(chain_id), blob(identity_registry),
                                        agent_id};
    auto rows = db.query(
        "SELECT score, low, high, evidence, effective_reviewers, reviews, tags, explanation, "
        "computed_at, covers_block_num FROM agent_scores WHERE chain_id = $1 AND registry = $2 "
        "AND agent_id = $3",
        params);
    if (!rows) return std::unexpected(rows.error());
    if (rows->empty()) return std::optional<StoredScore>{};
    const DbRow& row = rows->front();
    const auto* score = std::get_if<double>(&row[0]);
    const auto* low = std::get_if<double>(&row[1]);
    const auto* high = std::get_if<double>(&row[2]);
    const auto* evidence = std::get_if<double>(&row[3]);
    const auto* effective = std::get_if<double>(&row[4]);
    const auto* reviews = std::get_if<int64_t>(&row[5]);
    const auto* tags = std::get_if<std::string>(&row[6]);
    const auto* explanation = std::get_if<std::string>(&row[7]);
    const auto* computed_at = std::get_if<int64_t>(&row[8]);
    const auto* covers = std::get_if<int64_t>(&row[9]);
    if (score == nullptr || low == nullptr || high == nullptr || evidence == nullptr ||
        effective == nullptr || reviews == nullptr || tags == nullptr || explanation == nullptr ||
        computed_at == nullptr || covers == nullptr || *reviews < 0 || *covers < 0) {
        return std::unexpected(unreadable("agent_scores row"));
    }
    return StoredScore{*score,       *low,
                       *high,        *evidence,
                       *effective,   static_cast<uint64_t>(*reviews),
                       *tags,        *explanation,
                       *computed_at, static_cast<uint64_t>(*covers)};
}

DbResult<std::vector<core::Bytes>> agents_changed_since(index::Database& db,
                                                        const TrustSources& sources,
                                                        uint64_t block_num) {
    const auto chain = static_cast<int64_t>(sources.chain_id);
    const auto block = static_cast<int64_t>(block_num);
    std::set<std::string> changed;
    auto collect = [&](std::string_view sql, const core::Address& registry) -> DbResult<void> {
        const std::array<DbValue, 3> params{chain, blob(registry), block};
        auto rows = db.query(sql, params);
        if (!rows) return std::unexpected(rows.error());
        for (const DbRow& row : *rows) {
            const auto* id = std::get_if<core::Bytes>(&row[0]);
            if (id == nullptr) return std::unexpected(unreadable("changed agent id"));
            changed.insert(key_of(*id));
        }
        return {};
    };
    // Feedback given or revoked after the block (ERC-8004 §Reputation Registry: NewFeedback,
    // FeedbackRevoked).
    if (auto r = collect(
            "SELECT DISTINCT agent_id FROM feedback WHERE chain_id = $1 AND registry = $2 AND "
            "(block_num > $3 OR revoked_block_num > $3)",
            sources.reputation_registry);
        !r) {
        return std::unexpected(r.error());
    }
    // Validation responses (ERC-8004 §Validation Registry: ValidationResponse).
    if (auto r =
            collect("SELECT DISTINCT agent_id FROM validation_requests WHERE chain_id = $1 AND "
                    "registry = $2 AND response_block_num > $3",
                    sources.validation_registry);
        !r) {
        return std::unexpected(r.error());
    }
    // New or changed agents (a new wallet or owner moves standing).
    if (auto r = collect("SELECT agent_id FROM agents WHERE chain_id = $1 AND registry = $2 AND "
                         "updated_block_num > $3",
                         sources.identity_registry);
        !r) {
        return std::unexpected(r.error());
    }
    std::vector<core::Bytes> out;
    out.reserve(changed.size());
    for (const std::string& k : changed) out.emplace_back(k.begin(), k.end());
    return out;
}

DbResult<ScorePass> ScoreUpdater::full_pass(index::Database& db, const TrustSources& sources) {
    auto inputs = load_trust_inputs(db, sources);
    if (!inputs) return std::unexpected(inputs.error());
    TrustConfig config = config_;
    config.now = sources.now;
    TrustResult result = compute_trust(*inputs, config);
    std::vector<ScoreRow> rows;
    rows.reserve(inputs->agents.size());
    for (size_t i = 0; i < inputs->agents.size(); ++i) {
        rows.push_back({&inputs->agents[i], &result.agents[i]});
    }
    if (auto r = save_scores(db, sources.chain_id, sources.identity_registry, rows,
                             result.reviewers, sources.now, sources.head_block_num);
        !r) {
        return std::unexpected(r.error());
    }
    weights_ = std::move(result.reviewers);
    covered_ = sources.head_block_num;
    had_full_ = true;
    return ScorePass{true, rows.size(), inputs->reviews.size(), sources.head_block_num};
}

DbResult<ScorePass> ScoreUpdater::incremental_pass(index::Database& db,
                                                   const TrustSources& sources) {
    if (!had_full_ || !covered_) return full_pass(db, sources);
    if (sources.head_block_num <= *covered_) {
        return ScorePass{false, 0, 0, *covered_};
    }
    auto changed = agents_changed_since(db, sources, *covered_);
    if (!changed) return std::unexpected(changed.error());
    if (changed->empty()) {
        covered_ = sources.head_block_num;
        return ScorePass{false, 0, 0, sources.head_block_num};
    }
    auto inputs = load_trust_inputs(db, sources);
    if (!inputs) return std::unexpected(inputs.error());
    // Only the changed agents and their reviews: score_agent reads nothing else, and scanning the
    // subset keeps a pass proportional to what changed.
    std::set<std::string> wanted;
    for (const core::Bytes& id : *changed) wanted.insert(key_of(id));
    TrustInputs subset;
    std::vector<uint32_t> remap(inputs->agents.size(), UINT32_MAX);
    for (size_t i = 0; i < inputs->agents.size(); ++i) {
        if (!wanted.contains(key_of(inputs->agents[i].agent_id))) continue;
        remap[i] = static_cast<uint32_t>(subset.agents.size());
        subset.agents.push_back(inputs->agents[i]);
    }
    for (const Review& r : inputs->reviews) {
        if (remap[r.agent] == UINT32_MAX) continue;
        Review copy = r;
        copy.agent = remap[r.agent];
        subset.reviews.push_back(std::move(copy));
    }
    TrustConfig config = config_;
    config.now = sources.now;
    std::vector<AgentScore> scores;
    scores.reserve(subset.agents.size());
    for (uint32_t i = 0; i < subset.agents.size(); ++i) {
        scores.push_back(score_agent(subset, i, weights_, config));
    }
    std::vector<ScoreRow> rows;
    rows.reserve(scores.size());
    for (size_t i = 0; i < scores.size(); ++i) rows.push_back({&subset.agents[i], &scores[i]});
    if (auto r = save_scores(db, sources.chain_id, sources.identity_registry, rows, weights_,
                             sources.now, sources.head_block_num);
        !r) {
        return std::unexpected(r.error());
    }
    covered_ = sources.head_block_num;
    return ScorePass{false, rows.size(), subset.reviews.size(), sources.head_block_num};
}

}  // namespace credence::trust
