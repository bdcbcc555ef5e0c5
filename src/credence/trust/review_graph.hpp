// The pieces of the trust score that the full computation (trust/score.cpp) and the incremental
// one (trust/score_incremental.hpp) share, so that both compute the very same function: the review
// graph, its personalized PageRank by power iteration, reviewer statistics and priors.
//
// The graph has two node spaces, addresses and agents, so that adding an address never renumbers
// an agent (the incremental path keeps its PageRank vector between passes):
//   address -> agent: a non-revoked review, weighted by its rating (a rating of 0 endorses
//   nothing); agent -> address: its owner and its wallet (weight 1 each), so an agent's standing
//   carries over to the address that reviews as it.
// Internal to trust/. Thread-safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <cstring>
#include <unordered_map>
#include <utility>
#include <vector>

#include <credence/core/address.hpp>
#include <credence/trust/address_map.hpp>
#include <credence/trust/score.hpp>

namespace credence::trust::detail {

/// Below this standing, "nobody trusted links to it" (Discount::no_standing, the unvouched pool).
inline constexpr double kNoStanding = 0.01;

/// Per-reviewer counts the priors need (non-revoked reviews only).
struct ReviewerStats {
    uint32_t reviews = 0;
    uint32_t paid = 0;
    int64_t first_seen = INT64_MAX;
    std::vector<uint32_t> agents;  ///< distinct agent indexes, sorted
};

/// Adds one review to `s` (call finish_stats once all are in).
void add_to_stats(ReviewerStats& s, const Review& r);
/// Sorts and deduplicates the agents.
void finish_stats(ReviewerStats& s);

/// base + payment x paid share + age x maturity + spread x breadth (score.hpp).
[[nodiscard]] double prior_of(const ReviewerStats& s, const TrustConfig& config);

/// The weight of a reviewer with these stats and this standing.
[[nodiscard]] ReviewerWeight weight_of(const ReviewerStats& s, double standing,
                                       const TrustConfig& config);

struct ReviewGraph {
    /// address -> (agent, rating weight); edges in review order.
    std::vector<std::vector<std::pair<uint32_t, double>>> address_out;
    /// agent -> owner, then wallet when it differs (weight 1 each).
    std::vector<std::vector<uint32_t>> agent_out;
};

/// The PageRank edge weight of a review, or 0 when it adds no edge (revoked, or rated 0).
[[nodiscard]] double edge_weight(const Review& r);

/// The teleport distribution (sums to 1) over addresses, and one value for every agent.
struct Teleport {
    std::vector<double> address;
    double agent = 0;
};

/// Teleport to the trusted set when one is configured (`trusted`: its nodes in the graph), else to
/// the reviewers who paid (`payers`), else uniformly over the addresses marked in `active` (every
/// address when null) and every agent. Returns false when a trusted set is configured and none of
/// it is in the graph: then nobody has standing.
[[nodiscard]] bool make_teleport(size_t n_addr, size_t n_agents, std::vector<uint32_t> trusted,
                                 bool trusted_configured, std::vector<uint32_t> payers,
                                 const std::vector<char>* active, Teleport& out);

struct PageRankVector {
    std::vector<double> address;
    std::vector<double> agent;
};

/// Power iteration of personalized PageRank from `p` (the teleport vector for a cold start, a
/// previous solution for a warm one; resized with zeros and renormalized to mass 1) until one
/// step moves p by at most config.tolerance x the largest address mass (L1), or
/// config.iterations steps. Dangling mass teleports. Returns the steps run.
unsigned power_iterate(const ReviewGraph& graph, const Teleport& teleport,
                       const TrustConfig& config, PageRankVector& p);

/// The largest address mass of `p` (standings are scaled by it, so the top address has 1).
[[nodiscard]] double top_mass(const PageRankVector& p);

}  // namespace credence::trust::detail
