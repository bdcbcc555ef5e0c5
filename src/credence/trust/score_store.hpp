// Persists the trust engine's output (trust/score.hpp) in the index's agent_scores table
// (index/schema.cpp, migration 3), so the REST API and the explorer read scores without
// recomputing them (issue 7 §2b, §2c, "updates are incremental as events arrive").
//
// A row holds an agent's score, 95 % interval, evidence, effective reviewers, review count, the
// per-tag scores (JSON) and the explanation (JSON: the contributions with client, rating, weight,
// share and discounts, the top kMaxExplained by weight), with computed_at (unix seconds) and
// covers_block_num (the last indexed block the computation saw).
//
// Passes:
//   - full: loads the whole graph (trust/score_index.hpp), computes every reviewer weight and
//     every agent's score, and writes all rows in ONE database transaction;
//   - incremental: rescores only the agents whose evidence changed after the last pass's
//     covers_block_num (new or revoked feedback, new validation responses, newly indexed agents)
//     with the reviewer weights of the last full pass (trust::score_agent), in one transaction.
//     Reviewer standings refresh on the next full pass.
// A failed write rolls back: the table then still holds the previous pass, never half of one.
//
// Thread-safety: a ScoreUpdater is used by one thread; the free functions borrow one Database
// (one per thread, index/database.hpp). Ownership: ScoreUpdater owns the last weights only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <credence/core/address.hpp>
#include <credence/index/database.hpp>
#include <credence/trust/score.hpp>
#include <credence/trust/score_index.hpp>

namespace credence::trust {

/// Contributions kept in a row's explanation, heaviest first (the rest are summarized by count).
inline constexpr size_t kMaxExplained = 100;

/// The per-tag scores as a JSON array: [{"tag","isRating","score","low","high","evidence",
/// "reviews"}].
[[nodiscard]] std::string tags_json(const AgentScore& score);

/// The explanation as a JSON object: {"contributions": [{"client","rating","weight","share",
/// "standing","discounts"}] (top kMaxExplained by weight, ties by client), "omitted": n}.
[[nodiscard]] std::string explanation_json(const AgentScore& score,
                                           const std::map<core::Address, ReviewerWeight>& weights);

/// One agent's row to write.
struct ScoreRow {
    const AgentFacts* agent = nullptr;
    const AgentScore* score = nullptr;
};

/// Upserts `rows` into agent_scores for (chain_id, identity registry) in one transaction.
[[nodiscard]] index::DbResult<void> save_scores(
    index::Database& db, uint64_t chain_id, const core::Address& identity_registry,
    std::span<const ScoreRow> rows, const std::map<core::Address, ReviewerWeight>& weights,
    int64_t computed_at, uint64_t covers_block_num);

/// A stored row, as read back (tests, the CLI).
struct StoredScore {
    double score = 0, low = 0, high = 0, evidence = 0, effective_reviewers = 0;
    uint64_t reviews = 0;
    std::string tags;
    std::string explanation;
    int64_t computed_at = 0;
    uint64_t covers_block_num = 0;
};

[[nodiscard]] index::DbResult<std::optional<StoredScore>> load_score(
    index::Database& db, uint64_t chain_id, const core::Address& identity_registry,
    const core::Bytes& agent_id);

/// The agents (32-byte ids) whose evidence changed in blocks after `block_num`: feedback given or
/// revoked, validation responses, agents registered or updated.
[[nodiscard]] index::DbResult<std::vector<core::Bytes>> agents_changed_since(
    index::Database& db, const TrustSources& sources, uint64_t block_num);

struct ScorePass {
    bool full = false;
    size_t agents_scored = 0;
    size_t reviews = 0;  ///< reviews loaded from the index
    uint64_t covers_block_num = 0;
};

/// Runs full and incremental passes, remembering the last full pass's reviewer weights.
class ScoreUpdater {
public:
    explicit ScoreUpdater(TrustConfig config) : config_(std::move(config)) {}

    /// Scores every agent. `sources.now` is the config's clock for this pass.
    [[nodiscard]] index::DbResult<ScorePass> full_pass(index::Database& db,
                                                       const TrustSources& sources);
    /// Rescores the agents changed since the last pass; a full pass when none ran yet.
    [[nodiscard]] index::DbResult<ScorePass> incremental_pass(index::Database& db,
                                                              const TrustSources& sources);

    /// The block the last successful pass covered (nullopt before the first).
    [[nodiscard]] std::optional<uint64_t> covered_block_num() const noexcept { return covered_; }
    [[nodiscard]] const std::map<core::Address, ReviewerWeight>& weights() const noexcept {
        return weights_;
    }

private:
    TrustConfig config_;
    std::map<core::Address, ReviewerWeight> weights_;
    std::optional<uint64_t> covered_;
    bool had_full_ = false;
};

}  // namespace credence::trust
