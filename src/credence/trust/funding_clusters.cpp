#include <credence/trust/funding_clusters.hpp>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace credence::trust {
namespace {

using detail::AddressMap;

// Per funder: how many reviewers it funded directly, and the most of them that rated one agent.
struct FunderFocus {
    uint32_t funded = 0;
    uint32_t most_on_one_agent = 0;
};

AddressMap<core::Address> funder_of(const TrustInputs& inputs) {
    AddressMap<core::Address> out;
    out.reserve(inputs.fundings.size());
    for (const FundingEdge& e : inputs.fundings) out.try_emplace(e.address, e.funder);
    return out;
}

AddressMap<FunderFocus> focus_of(const TrustInputs& inputs,
                                 const AddressMap<core::Address>& funders) {
    // The distinct agents each reviewer rated (revoked reviews count: they were given).
    AddressMap<std::vector<uint32_t>> rated;
    for (const Review& r : inputs.reviews) rated[r.client].push_back(r.agent);
    AddressMap<std::unordered_map<uint32_t, uint32_t>> per_agent;
    AddressMap<FunderFocus> out;
    for (auto& [reviewer, agents] : rated) {
        const auto f = funders.find(reviewer);
        if (f == funders.end()) continue;
        std::sort(agents.begin(), agents.end());
        agents.erase(std::unique(agents.begin(), agents.end()), agents.end());
        FunderFocus& focus = out[f->second];
        ++focus.funded;
        auto& counts = per_agent[f->second];
        for (const uint32_t a : agents) {
            focus.most_on_one_agent = std::max(focus.most_on_one_agent, ++counts[a]);
        }
    }
    return out;
}

bool hub(const AddressMap<FunderFocus>& focus, const TrustConfig& config,
         const core::Address& funder) {
    const auto it = focus.find(funder);
    if (it == focus.end() || it->second.funded < config.hub_min_funded) return false;
    return static_cast<double>(it->second.most_on_one_agent) <=
           config.hub_max_focus * static_cast<double>(it->second.funded);
}

}  // namespace

bool is_funding_hub(const TrustInputs& inputs, const TrustConfig& config,
                    const core::Address& funder) {
    return hub(focus_of(inputs, funder_of(inputs)), config, funder);
}

FundingClusters funding_clusters(const TrustInputs& inputs, const TrustConfig& config) {
    if (inputs.fundings.empty()) return {};  // no evidence: the full pass pays nothing for it
    const AddressMap<core::Address> funders = funder_of(inputs);
    const AddressMap<FunderFocus> focus = focus_of(inputs, funders);
    FundingClusters out;
    // Reviewers, and validators: a validator funded by an agent's owner speaks for the owner too.
    std::unordered_set<core::Address, detail::AddressHash> reviewers;
    for (const Review& r : inputs.reviews) reviewers.insert(r.client);
    for (const AgentFacts& a : inputs.agents)
        for (const auto& v : a.validations) reviewers.insert(v.first);
    for (const core::Address& reviewer : reviewers) {
        auto f = funders.find(reviewer);
        if (f == funders.end()) continue;
        FundingCluster c;
        c.funder = f->second;
        core::Address at = f->second;
        // The depth bound also ends funding cycles (A funded B funded A), which real chains allow.
        for (unsigned depth = 0; depth < std::max(config.funding_depth, 1U); ++depth) {
            if (hub(focus, config, at)) break;
            c.path.push_back(at);
            c.key = at;
            const auto up = funders.find(at);
            if (up == funders.end() || up->second == reviewer ||
                std::find(c.path.begin(), c.path.end(), up->second) != c.path.end()) {
                break;
            }
            at = up->second;
        }
        out.emplace(reviewer, std::move(c));
    }
    return out;
}

std::vector<ClusterExplanation> explain_clusters(const AgentScore& score) {
    std::vector<ClusterExplanation> out;
    const auto has = [](const Contribution& c, Discount d) {
        return std::find(c.discounts.begin(), c.discounts.end(), d) != c.discounts.end();
    };
    for (const Contribution& c : score.contributions) {
        std::string reason;
        core::Address key{};
        if (has(c, Discount::funded_by_owner) && !c.funding_path.empty()) {
            reason = "funded_by_owner";
            key = c.funding_path.front();
        } else if (has(c, Discount::clustered) && c.cluster) {
            reason = "clustered";
            key = *c.cluster;
        } else {
            continue;
        }
        auto it = std::find_if(out.begin(), out.end(), [&](const ClusterExplanation& e) {
            return e.reason == reason && e.key == key;
        });
        if (it == out.end()) {
            out.push_back({reason, key, {}, c.funding_path, 0});
            it = out.end() - 1;
        }
        if (std::find(it->members.begin(), it->members.end(), c.client) == it->members.end())
            it->members.push_back(c.client);
        it->weight += c.weight;
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
        return a.members.size() != b.members.size() ? a.members.size() > b.members.size()
                                                    : a.key < b.key;
    });
    return out;
}

nlohmann::json clusters_json(const AgentScore& score) {
    nlohmann::json out = nlohmann::json::array();
    for (const ClusterExplanation& e : explain_clusters(score)) {
        nlohmann::json members = nlohmann::json::array();
        for (const auto& m : e.members) members.push_back(m.to_checksum_hex());
        nlohmann::json path = nlohmann::json::array();
        for (const auto& p : e.path) path.push_back(p.to_checksum_hex());
        out.push_back({{"reason", e.reason},
                       {"key", e.key.to_checksum_hex()},
                       {"members", std::move(members)},
                       {"fundingPath", std::move(path)},
                       {"weight", e.weight}});
    }
    return out;
}

nlohmann::json funding_json(const Contribution& c) {
    nlohmann::json path = nlohmann::json::array();
    for (const auto& p : c.funding_path) path.push_back(p.to_checksum_hex());
    return {{"fundingPath", std::move(path)},
            {"cluster", c.cluster ? nlohmann::json(c.cluster->to_checksum_hex()) : nullptr}};
}

}  // namespace credence::trust
