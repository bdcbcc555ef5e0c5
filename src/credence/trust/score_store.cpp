#include <credence/trust/score_store.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>
#include <variant>

#include <nlohmann/json.hpp>

#include <credence/index/row.hpp>
#include <credence/trust/funding_clusters.hpp>

namespace credence::trust {
namespace {

using index::DbResult;
using index::DbRow;
using index::DbValue;
using Json = nlohmann::ordered_json;

/// Finite doubles only: JSON has no NaN, and a REAL column should not hold one either.
double finite(double x) { return std::isfinite(x) ? x : 0.0; }

/// Rolls back when a write fails half-way, so the table keeps the previous pass whole.
template <typename T>
DbResult<T> abort_tx(index::Database& db, index::DbError error) {
    index::ignore_failure(db.rollback());  // the original error is the one to report
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
    // Which reviewers contributed what; the heaviest first, ties by address so the
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
        rows.back().update(funding_json(c));
    }
    return Json{{"contributions", std::move(rows)},
                {"omitted", order.size() - kept},
                {"clusters", clusters_json(score)}}
        .dump();
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
                                             index::blob_value(identity_registry.view()),
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
    const std::array<DbValue, 3> params{static_cast<int64_t>(chain_id),
                                        index::blob_value(identity_registry.view()), agent_id};
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
        return std::unexpected(index::unreadable("trust", "agent_scores row"));
    }
    return StoredScore{*score,       *low,
                       *high,        *evidence,
                       *effective,   static_cast<uint64_t>(*reviews),
                       *tags,        *explanation,
                       *computed_at, static_cast<uint64_t>(*covers)};
}

const std::map<core::Address, ReviewerWeight>& ScoreUpdater::weights() const noexcept {
    static const std::map<core::Address, ReviewerWeight> kNone;
    return engine_ ? engine_->weights() : kNone;
}

DbResult<bool> ScoreUpdater::rolled_back(index::Database& db, const TrustSources& sources) {
    if (!covered_) return false;
    // The node's head is the indexer's cursor: below the covered block, the index went back.
    if (sources.head_block_num < *covered_) return true;
    const auto chain = static_cast<int64_t>(sources.chain_id);
    const auto covered = static_cast<int64_t>(*covered_);
    const std::array<DbValue, 1> chain_param{chain};
    auto cursor = db.query("SELECT block_num FROM cursors WHERE chain_id = $1", chain_param);
    if (!cursor) return std::unexpected(cursor.error());
    if (!cursor->empty()) {
        const int64_t* at = index::int_at(cursor->front(), 0);
        if (at == nullptr) return std::unexpected(index::unreadable("trust", "cursor"));
        if (*at < covered) return true;  // rolled back and not yet re-indexed past it
    }
    if (!covered_hash_) return false;  // nothing remembered: the cursor is all we can check
    // index/store.hpp: a rollback to a fork point deletes the remembered hashes above it, and
    // re-indexing remembers the new chain's; finality only forgets hashes below a block.
    const std::array<DbValue, 2> params{chain, covered};
    auto hash =
        db.query("SELECT hash FROM block_hashes WHERE chain_id = $1 AND block_num = $2", params);
    if (!hash) return std::unexpected(hash.error());
    if (!hash->empty()) {
        const core::Bytes* h = index::blob_at(hash->front(), 0);
        if (h == nullptr) return std::unexpected(index::unreadable("trust", "block hash"));
        return *h != *covered_hash_;
    }
    auto lowest =
        db.query("SELECT MIN(block_num) FROM block_hashes WHERE chain_id = $1", chain_param);
    if (!lowest) return std::unexpected(lowest.error());
    const int64_t* min = lowest->empty() ? nullptr : index::int_at(lowest->front(), 0);
    return min != nullptr && *min <= covered;  // gone while older hashes stay: rolled back
}

DbResult<void> ScoreUpdater::remember_block(index::Database& db, const TrustSources& sources) {
    covered_hash_.reset();
    if (!covered_) return {};
    const std::array<DbValue, 2> params{static_cast<int64_t>(sources.chain_id),
                                        static_cast<int64_t>(*covered_)};
    auto hash =
        db.query("SELECT hash FROM block_hashes WHERE chain_id = $1 AND block_num = $2", params);
    if (!hash) return std::unexpected(hash.error());
    if (!hash->empty()) {
        if (const core::Bytes* h = index::blob_at(hash->front(), 0)) covered_hash_ = *h;
    }
    return {};
}

namespace {

/// Scores `agents` with the engine's weights and writes them in one transaction.
DbResult<void> write_scores(index::Database& db, const IncrementalTrust& engine,
                            const std::vector<uint32_t>& agents, const TrustSources& sources) {
    std::vector<AgentScore> scores;
    scores.reserve(agents.size());
    for (uint32_t g : agents) scores.push_back(engine.score(g));
    std::vector<ScoreRow> rows;
    rows.reserve(agents.size());
    for (size_t i = 0; i < agents.size(); ++i)
        rows.push_back({&engine.agent(agents[i]), &scores[i]});
    return save_scores(db, sources.chain_id, sources.identity_registry, rows, engine.weights(),
                       sources.now, sources.head_block_num);
}

}  // namespace

DbResult<ScorePass> ScoreUpdater::full_pass(index::Database& db, const TrustSources& sources) {
    engine_.reset();
    covered_.reset();
    // The check cursor before the load: checks written meanwhile are read again, never missed.
    auto checked = latest_check(db, sources);
    if (!checked) return std::unexpected(checked.error());
    auto inputs = load_trust_inputs(db, sources);
    if (!inputs) return std::unexpected(inputs.error());
    TrustConfig config = config_;
    config.now = sources.now;
    IncrementalTrust engine(config);
    const size_t reviews = inputs->reviews.size();
    engine.reset(std::move(*inputs));
    const IncrementalTrust::Refresh refresh = engine.refresh();
    if (auto r = write_scores(db, engine, refresh.agents, sources); !r) {
        return std::unexpected(r.error());
    }
    engine_.emplace(std::move(engine));
    reference_ = sources;
    covered_ = sources.head_block_num;
    checked_since_ = *checked;
    if (auto r = remember_block(db, sources); !r) {
        engine_.reset();
        return std::unexpected(r.error());
    }
    return ScorePass{
        true, false, refresh.agents.size(), reviews, refresh.iterations, sources.head_block_num};
}

DbResult<ScorePass> ScoreUpdater::incremental_pass(index::Database& db,
                                                   const TrustSources& sources) {
    if (!engine_ || !covered_) return full_pass(db, sources);
    auto rolled = rolled_back(db, sources);
    if (!rolled) return std::unexpected(rolled.error());
    if (*rolled) {
        auto pass = full_pass(db, sources);
        if (pass) pass->after_rollback = true;
        return pass;
    }
    auto changes = load_trust_changes(db, reference_, *covered_, checked_since_);
    if (!changes) return std::unexpected(changes.error());
    IncrementalTrust& engine = *engine_;
    // Agents new to the engine bring every row a full load would have read for them.
    std::vector<core::Bytes> fresh;
    for (const TrustChanges::Agent& a : changes->agents) {
        if (!engine.has_agent(a.agent_id)) fresh.push_back(a.agent_id);
        engine.upsert_agent(a.agent_id, a.owner, a.wallet);
    }
    auto apply = [&](TrustChanges& c) {
        for (TrustChanges::Feedback& f : c.feedback) engine.upsert_review(f.agent_id, f.review);
        for (const TrustChanges::Validation& v : c.validations) {
            engine.set_validation(v.agent_id, v.request_hash, v.validator, v.response);
        }
        for (const TrustChanges::Flag& p : c.payments) {
            engine.set_payment_verified(p.agent_id, p.client, p.feedback_index, p.set);
        }
        for (const TrustChanges::Flag& d : c.domains) engine.set_domain_verified(d.agent_id, d.set);
    };
    if (!fresh.empty()) {
        auto evidence = load_agent_evidence(db, reference_, fresh);
        if (!evidence) return std::unexpected(evidence.error());
        apply(*evidence);
    }
    apply(*changes);
    const uint64_t head = std::max(sources.head_block_num, *covered_);
    ScorePass pass{false, false, 0, changes->feedback.size(), 0, head};
    if (engine.pending()) {
        const IncrementalTrust::Refresh refresh = engine.refresh();
        TrustSources written = sources;
        written.head_block_num = head;
        if (auto r = write_scores(db, engine, refresh.agents, written); !r) {
            engine_.reset();  // the table and the engine disagree now: reload next time
            return std::unexpected(r.error());
        }
        pass.agents_scored = refresh.agents.size();
        pass.iterations = refresh.iterations;
    }
    covered_ = head;
    checked_since_ = std::max(checked_since_, changes->checked_at);
    if (auto r = remember_block(db, sources); !r) {
        engine_.reset();
        return std::unexpected(r.error());
    }
    return pass;
}

}  // namespace credence::trust
