// Persists the trust engine's output (trust/score.hpp) in the index's agent_scores table
// (index/schema.cpp, migration 3), so the REST API and the explorer read scores without
// recomputing them (docs/architecture.md §trust/, "updates are incremental as events arrive").
//
// A row holds an agent's score, 95 % interval, evidence, effective reviewers, review count, the
// per-tag scores (JSON) and the explanation (JSON: the contributions with client, rating, weight,
// share and discounts, the top kMaxExplained by weight), with computed_at (unix seconds) and
// covers_block_num (the last indexed block the computation saw).
//
// Passes:
//   - full: loads the whole graph (trust/score_index.hpp) into an in-memory engine
//     (trust/score_incremental.hpp), computes every reviewer weight and every agent's score, and
//     writes all rows in ONE database transaction. Its sources (head block and clock) become the
//     time reference of the incremental passes that follow: decay and reviewer ages are measured
//     at that time until the next full pass (the node runs one every few minutes);
//   - incremental: reads only what changed since the last pass (load_trust_changes: the entities
//     named by the raw logs of the newer blocks, and the verifier's checks since its cursor),
//     applies it to the engine, refreshes the reviewer weights (PageRank warm-started from the
//     previous vector), rescores only the agents whose inputs changed or whose reviewers' weights
//     moved, and writes their rows in one transaction. A chain of incremental passes gives the
//     scores of a full pass at the same time reference, up to the tolerances of TrustConfig
//     (score_store_test checks it on both backends).
//   - an index rollback past the covered block (the cursor went back, or the covered block's
//     remembered hash changed or vanished while newer hashes remain; index/store.hpp) makes the
//     next incremental pass a full one.
// A failed write rolls back: the table then still holds the previous pass, never half of one, and
// the engine is dropped so that the next pass is a full one.
//
// Thread-safety: a ScoreUpdater is used by one thread; the free functions borrow one Database
// (one per thread, index/database.hpp). Ownership: ScoreUpdater owns its engine.
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
#include <credence/trust/score_incremental.hpp>
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

struct ScorePass {
    bool full = false;
    bool after_rollback = false;  ///< a full pass because the index rolled back
    size_t agents_scored = 0;
    size_t reviews = 0;       ///< feedback rows read from the index
    unsigned iterations = 0;  ///< PageRank steps
    uint64_t covers_block_num = 0;
};

/// Runs full and incremental passes over an in-memory engine kept between them.
class ScoreUpdater {
public:
    explicit ScoreUpdater(TrustConfig config) : config_(std::move(config)) {}

    /// Loads everything and scores every agent. `sources.now` is the clock of this pass and of
    /// the incremental passes until the next full one.
    [[nodiscard]] index::DbResult<ScorePass> full_pass(index::Database& db,
                                                       const TrustSources& sources);
    /// Applies what changed since the last pass and rescores the agents it affects; a full pass
    /// when none ran yet, the last write failed, or the index rolled back past the covered block.
    [[nodiscard]] index::DbResult<ScorePass> incremental_pass(index::Database& db,
                                                              const TrustSources& sources);

    /// The block the last successful pass covered (nullopt before the first).
    [[nodiscard]] std::optional<uint64_t> covered_block_num() const noexcept { return covered_; }
    /// The current reviewer weights (empty before the first pass).
    [[nodiscard]] const std::map<core::Address, ReviewerWeight>& weights() const noexcept;
    /// The sources of the last full pass: the time reference of the scores (see above).
    [[nodiscard]] const TrustSources& time_reference() const noexcept { return reference_; }

private:
    [[nodiscard]] index::DbResult<bool> rolled_back(index::Database& db,
                                                    const TrustSources& sources);
    [[nodiscard]] index::DbResult<void> remember_block(index::Database& db,
                                                       const TrustSources& sources);

    TrustConfig config_;
    std::optional<IncrementalTrust> engine_;
    TrustSources reference_;
    std::optional<uint64_t> covered_;
    std::optional<core::Bytes> covered_hash_;  ///< block_hashes of covered_, when remembered
    int64_t checked_since_ = -1;               ///< the verifier-check cursor
};

}  // namespace credence::trust
