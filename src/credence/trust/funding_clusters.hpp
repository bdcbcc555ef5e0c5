// Funding-aware Sybil clusters (docs/trust.md §Funding): reviewers whose money came from one
// source are one voice, and a reviewer funded by an agent's owner speaks for the owner.
//
// Input: TrustInputs::fundings, each address's first funding transfer (verify/verifiers/
// funding_tracer.hpp), for reviewers and, up to TrustConfig::funding_depth levels, for their
// funders. Output: per reviewer, its funding path (its funder, that funder's funder, ...) and,
// when it belongs to a cluster, the cluster's key.
//
// Hubs. Exchanges, faucets and bridges fund many honest users on every chain (and on a devnet one
// account funds everyone), so a shared funder alone proves nothing. A funder is a hub when it
// funded at least TrustConfig::hub_min_funded reviewers and no single agent was rated by more than
// TrustConfig::hub_max_focus of them: the people it funds go their own ways. A Sybil funder's
// reviewers all rate the target; to pass as a hub an attacker must fund at least twice as many
// reviewers as rate the target, and have the rest rate other agents.
//
// Keys. A reviewer's path climbs from its funder while the funder is not a hub, up to
// funding_depth steps; the last non-hub address on it is the key. So slow-drip Sybils funded by
// many intermediate funders that were all funded from one root share the root as their key, and
// an honest reviewer funded by an exchange has no key (the exchange is a hub). Two reviewers of an
// agent with one key are a cluster.
//
// Pure computation; thread-safety: none needed.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <credence/core/address.hpp>
#include <credence/trust/review_graph.hpp>
#include <credence/trust/score.hpp>

namespace credence::trust {

/// The funding path and cluster key of every reviewer with a known funder.
[[nodiscard]] FundingClusters funding_clusters(const TrustInputs& inputs,
                                               const TrustConfig& config);

/// One cluster an agent's score discounted, for explanations (`trust score --explain`, the
/// API's explanation, the explorer): its members, the funding path that proved it (the first
/// member's funders, nearest first), their weight together and why.
struct ClusterExplanation {
    std::string reason;   ///< "clustered" (one voice) or "funded_by_owner" (not counted)
    core::Address key{};  ///< the cluster key, or the owner or wallet that funded them
    std::vector<core::Address> members;
    std::vector<core::Address> path;
    double weight = 0;  ///< the members' weight together after the discount
};

/// The clusters among an agent's contributions, largest first.
[[nodiscard]] std::vector<ClusterExplanation> explain_clusters(const AgentScore& score);

/// explain_clusters() as JSON: [{reason, key, members[], fundingPath[], weight}], addresses
/// checksummed.
[[nodiscard]] nlohmann::json clusters_json(const AgentScore& score);

/// One contribution's funding fields: {fundingPath[], cluster (address or null)}.
[[nodiscard]] nlohmann::json funding_json(const Contribution& c);

/// Whether `funder` is a hub for these inputs (see above), for explanations and tests.
[[nodiscard]] bool is_funding_hub(const TrustInputs& inputs, const TrustConfig& config,
                                  const core::Address& funder);

}  // namespace credence::trust
