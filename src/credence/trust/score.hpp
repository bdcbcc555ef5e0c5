// The off-chain trust score (docs/architecture.md §trust/): a Sybil-resistant reputation for every
// agent, per tag, with a confidence interval and an explanation of who contributed what.
//
// Model: the Beta reputation system (Jøsang and Ismail, 2002). Each agent starts from a Beta(1, 1)
// prior; evidence adds pseudo-counts: a rating r in [0, 1] from a reviewer of weight w, decayed by
// age, adds w·d·r to alpha and w·d·(1 - r) to beta. The score is the posterior mean
// alpha / (alpha + beta), the interval the normal approximation of the posterior at 95 %.
//
// Sybil resistance comes from the reviewer weights, not from the ratings:
//   - standing: personalized PageRank over the review graph (client -> agent, weighted by the
//     rating; agent -> its owner and wallet, so an agent's standing carries over to the address
//     that reviews as it), teleporting only to the trusted seed set. Addresses nobody trusted
//     links to get no standing;
//   - priors per reviewer: verified payments (proofOfPayment checked on chain, verify/), the
//     reviewer's age (first feedback) and its spread (distinct agents reviewed). A fresh address
//     that reviews one agent and never paid is worth little, however many there are;
//   - weight = min(1, prior + standing);
//   - unvouched reviews (no standing and no verified payment) of one agent share a pool capped at
//     TrustConfig::unvouched_cap, so a cluster's influence does not grow with its size.
// Agent-side evidence: validation responses (ERC-8004 §Validation Registry, score 0..100) add
// pseudo-counts like ratings; a verified endpoint domain adds a small positive pseudo-count.
//
// Ratings: ERC-8004 values are fixed-point numbers whose meaning depends on tag1 (§Examples of
// value / valueDecimals). Values are compared exactly at 18 decimals (no double until the end). A
// rating in [0, 1] exists only for tags that are scores: percentages (starred, uptime,
// successRate, and untagged values within 0..100) map v / 100, binary tags (reachable,
// ownerVerified) map v > 0. Other tags (responseTime, revenues, ...) get a per-tag weighted mean
// in their own unit, and take no part in the overall score.
//
// Pure computation over an in-memory graph (TrustInputs); trust/score_index.hpp loads it from the
// index. Thread-safety: the functions are pure; a TrustEngine is not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <credence/core/address.hpp>
#include <credence/core/uint256.hpp>
#include <credence/trust/address_map.hpp>

namespace credence::trust {

/// One feedback as the index holds it.
struct Review {
    uint32_t agent = 0;  ///< index into TrustInputs::agents
    core::Address client{};
    uint64_t feedback_index = 0;  ///< with agent and client, the feedback's key (ERC-8004)
    core::Int256 value;           ///< int128 value
    uint8_t value_decimals = 0;
    std::string tag1;
    int64_t timestamp = 0;  ///< unix seconds of its block (or block-derived)
    bool revoked = false;
    bool payment_verified = false;  ///< proofOfPayment checked on chain (verify/)
};

struct AgentFacts {
    core::Bytes agent_id;  ///< 32 bytes, big-endian
    core::Address owner{};
    std::optional<core::Address> wallet;
    bool domain_verified = false;  ///< an endpoint domain passed ERC-8004 domain verification
    /// Latest validation responses (0..100), each with its validator.
    std::vector<std::pair<core::Address, uint8_t>> validations;
    /// The request hash of each validation (parallel to `validations`; empty when built by hand):
    /// the key an incremental update replaces a response by.
    std::vector<core::Bytes> validation_requests;
};

struct TrustConfig {
    /// Addresses trusted a priori (personalized PageRank's teleport set). Empty: teleport to every
    /// reviewer with a verified payment; if none, uniformly (plain PageRank).
    std::vector<core::Address> trusted;
    double damping = 0.85;
    /// Power iteration stops when one step changes the PageRank vector by at most `tolerance`
    /// (L1 norm, relative to the largest address's mass), or after `iterations` steps. The
    /// distance to the fixed point is then at most damping / (1 - damping) x tolerance in L1
    /// (5.7e-6 of the top standing at the defaults, for all standings together), from a cold
    /// start or a warm one alike; one standing is typically off by far less (6e-11 measured on
    /// bench/trust_bench.cpp's graph).
    unsigned iterations = 200;
    double tolerance = 1e-6;
    /// The incremental path rescores the agents of a reviewer whose weight moved by more than
    /// this since their last rescoring (trust/score_incremental.hpp).
    double rescore_tolerance = 1e-7;
    int64_t half_life_seconds = 90 * 86'400;   ///< time decay of a rating
    int64_t now = 0;                           ///< unix seconds
    int64_t mature_age_seconds = 30 * 86'400;  ///< a reviewer this old gets the full age prior
    unsigned mature_spread = 5;                ///< distinct agents for the full spread prior
    double base_prior = 0.05;                  ///< every reviewer's floor
    double payment_prior = 0.45;               ///< reviewer with every review paid
    double age_prior = 0.2;
    double spread_prior = 0.2;
    double validation_weight = 1.0;  ///< pseudo-counts per validation response
    double domain_weight = 0.5;      ///< pseudo-count for a verified domain
    /// Total weight all unvouched reviews (no standing, no verified payment) of one agent may
    /// have together: the bound on a Sybil cluster's influence, in full reviewers.
    double unvouched_cap = 1.0;
    /// Funding clusters (trust/funding_clusters.hpp, docs/trust.md §Funding): a funder of at least
    /// hub_min_funded reviewers, no more than hub_max_focus of whom rated any one agent, is a hub
    /// (an exchange, a faucet); the others make clusters, climbing at most funding_depth funders.
    unsigned hub_min_funded = 4;
    double hub_max_focus = 0.5;
    unsigned funding_depth = 3;
};

/// `address` was first funded by a value transfer from `funder` (verify/verifiers/
/// funding_tracer.hpp).
struct FundingEdge {
    core::Address address{};
    core::Address funder{};
};

struct TrustInputs {
    std::vector<AgentFacts> agents;
    std::vector<Review> reviews;
    /// First fundings of reviewers and of their funders (trust/funding_clusters.hpp); empty: no
    /// funding evidence, no clusters.
    std::vector<FundingEdge> fundings;
};

/// Why a reviewer counts for less than a full reviewer (explanation, docs/architecture.md §trust/).
enum class Discount : uint8_t {
    no_verified_payment,
    new_reviewer,
    narrow_spread,    ///< reviews few distinct agents
    no_standing,      ///< nobody trusted links to it (personalized PageRank ~ 0)
    revoked,          ///< the reviewer revoked this feedback: not counted
    not_a_rating,     ///< the tag is not a score (responseTime, ...): not in the overall score
    pooled,           ///< unvouched: shares the agent's capped pool with every unvouched review
    funded_by_owner,  ///< funded (through its funders) by the agent's owner or wallet: not counted
    clustered,        ///< shares a funder with other reviewers of the agent: one voice together
    repeated,         ///< one of several feedback by this reviewer on the agent: one voice together
};
[[nodiscard]] std::string_view to_string(Discount d) noexcept;

struct ReviewerWeight {
    double standing = 0;  ///< personalized PageRank, scaled so the highest is 1
    double prior = 0;
    double weight = 0;  ///< min(1, prior + standing)
    uint32_t reviews = 0;
    uint32_t distinct_agents = 0;
    int64_t first_seen = 0;
};

struct Contribution {
    core::Address client{};
    double rating = 0;  ///< in [0, 1]
    double weight = 0;  ///< reviewer weight x decay
    double share = 0;   ///< of the agent's total evidence weight
    std::vector<Discount> discounts;
    /// The reviewer's funders, nearest first (funded_by_owner, clustered: the funding path that
    /// proves it), and the cluster's key.
    std::vector<core::Address> funding_path;
    std::optional<core::Address> cluster;
};

struct TagScore {
    std::string tag;
    bool is_rating = true;
    double score = 0;  ///< posterior mean (ratings) or weighted mean in the tag's unit
    double low = 0, high = 0;
    double evidence = 0;  ///< total weight
    uint32_t reviews = 0;
};

struct AgentScore {
    double score = 0.5;  ///< posterior mean in [0, 1]
    double low = 0, high = 1;
    double evidence = 0;             ///< sum of rating weights (pseudo-counts beyond the prior)
    double effective_reviewers = 0;  ///< (sum w)^2 / sum w^2
    double validation_evidence = 0;
    uint32_t reviews = 0;
    std::vector<TagScore> tags;
    std::vector<Contribution> contributions;  ///< one per counted or discounted review
};

/// A reviewer's place in the funding graph (trust/funding_clusters.hpp).
struct FundingCluster {
    /// The reviewer's own funder (hub or not).
    core::Address funder{};
    /// The funders above the reviewer, nearest first, up to and including the key (it stops
    /// before the first hub and after funding_depth addresses).
    std::vector<core::Address> path;
    /// The last non-hub funder on the path; empty when the reviewer's own funder is a hub.
    std::optional<core::Address> key;
};
using FundingClusters = detail::AddressMap<FundingCluster>;

struct TrustResult {
    std::map<core::Address, ReviewerWeight> reviewers;
    std::vector<AgentScore> agents;  ///< parallel to TrustInputs::agents
};

/// A rating in [0, 1] for a score-like tag (see above), or nullopt. Exact for every int128 value
/// and decimals 0..18.
[[nodiscard]] std::optional<double> rating_of(const core::Int256& value, uint8_t value_decimals,
                                              std::string_view tag1);

/// value / 10^decimals as the nearest double (for per-tag means of non-rating tags).
[[nodiscard]] double to_double(const core::Int256& value, uint8_t value_decimals);

/// Full computation: reviewer weights, then every agent's score.
[[nodiscard]] TrustResult compute_trust(const TrustInputs& inputs, const TrustConfig& config);

/// Every reviewer's weight (the first half of compute_trust).
[[nodiscard]] std::map<core::Address, ReviewerWeight> reviewer_weights(const TrustInputs& inputs,
                                                                       const TrustConfig& config);

/// Scores one agent from its own reviews (their `agent` field is not read), in order.
[[nodiscard]] AgentScore score_reviews(const AgentFacts& facts,
                                       std::span<const Review* const> reviews,
                                       const std::map<core::Address, ReviewerWeight>& weights,
                                       const TrustConfig& config,
                                       const FundingClusters* clusters = nullptr);

/// Rescores one agent with the reviewer weights of an earlier full pass (the incremental path:
/// new feedback changes its agent's score at once; standings refresh on the next full pass).
/// Reviewers unknown to `weights` get their prior only.
[[nodiscard]] AgentScore score_agent(const TrustInputs& inputs, uint32_t agent,
                                     const std::map<core::Address, ReviewerWeight>& weights,
                                     const TrustConfig& config,
                                     const FundingClusters* clusters = nullptr);

}  // namespace credence::trust
