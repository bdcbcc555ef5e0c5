#include <credence/trust/score_incremental.hpp>

#include <algorithm>
#include <cmath>

#include <credence/trust/funding_clusters.hpp>

namespace credence::trust {
namespace {

std::string bytes_key(const core::Bytes& b) { return {b.begin(), b.end()}; }

std::string review_key(const core::Bytes& agent_id, const core::Address& client,
                       uint64_t feedback_index) {
    std::string k = bytes_key(agent_id);
    k.append(client.bytes.begin(), client.bytes.end());
    for (int i = 7; i >= 0; --i) k.push_back(static_cast<char>(feedback_index >> (8 * i)));
    return k;
}

bool same_review(const Review& a, const Review& b) {
    return a.client == b.client && a.feedback_index == b.feedback_index && a.value == b.value &&
           a.value_decimals == b.value_decimals && a.tag1 == b.tag1 && a.timestamp == b.timestamp &&
           a.revoked == b.revoked && a.payment_verified == b.payment_verified;
}

}  // namespace

void IncrementalTrust::reset(TrustInputs inputs) {
    in_ = std::move(inputs);
    // Funding clusters depend on who rated what across the whole graph: they are computed at a
    // full load and kept until the next one (docs/trust.md §Funding).
    clusters_ = funding_clusters(in_, config_);
    agent_index_.clear();
    review_index_.clear();
    request_agent_.clear();
    node_index_.clear();
    addresses_.clear();
    by_client_.clear();
    owner_refs_.clear();
    stats_.clear();
    graph_ = {};
    rank_ = {};  // a cold start, as compute_trust's
    weights_.clear();
    weight_at_.clear();
    has_weight_.clear();
    scored_with_.clear();
    scored_.clear();
    node_dirty_.clear();
    dirty_nodes_.clear();
    dirty_agents_.clear();
    by_agent_.assign(in_.agents.size(), {});
    graph_.agent_out.assign(in_.agents.size(), {});
    agent_dirty_.assign(in_.agents.size(), 0);
    for (uint32_t g = 0; g < in_.agents.size(); ++g) {
        agent_index_.emplace(bytes_key(in_.agents[g].agent_id), g);
        for (const core::Bytes& request : in_.agents[g].validation_requests) {
            request_agent_.insert_or_assign(bytes_key(request), g);
        }
    }
    in_.reviews.erase(std::remove_if(in_.reviews.begin(), in_.reviews.end(),
                                     [&](const Review& r) { return r.agent >= in_.agents.size(); }),
                      in_.reviews.end());
    // Room to grow: a rehash of a million keys would stall the first incremental pass.
    review_index_.reserve(in_.reviews.size() + in_.reviews.size() / 2 + 1024);
    for (uint32_t i = 0; i < in_.reviews.size(); ++i) {
        const Review& r = in_.reviews[i];
        by_agent_[r.agent].push_back(i);
        const uint32_t node = node_of(r.client);
        by_client_[node].push_back(i);
        review_index_.emplace(review_key(in_.agents[r.agent].agent_id, r.client, r.feedback_index),
                              i);
    }
    for (uint32_t g = 0; g < in_.agents.size(); ++g) link_agent(g, +1);
    for (uint32_t u = 0; u < addresses_.size(); ++u) rebuild_node(u);
    all_dirty_ = true;
}

uint32_t IncrementalTrust::node_of(const core::Address& a) {
    auto [it, fresh] = node_index_.try_emplace(a, static_cast<uint32_t>(addresses_.size()));
    if (fresh) {
        addresses_.push_back(a);
        by_client_.emplace_back();
        owner_refs_.push_back(0);
        stats_.emplace_back();
        graph_.address_out.emplace_back();
        node_dirty_.push_back(0);
        weight_at_.emplace_back();
        has_weight_.push_back(0);
        scored_with_.emplace_back();
        scored_.push_back(0);
    }
    return it->second;
}

void IncrementalTrust::mark_agent(uint32_t agent) {
    if (agent_dirty_[agent] != 0) return;
    agent_dirty_[agent] = 1;
    dirty_agents_.push_back(agent);
}

void IncrementalTrust::mark_node(uint32_t node) {
    if (node_dirty_[node] != 0) return;
    node_dirty_[node] = 1;
    dirty_nodes_.push_back(node);
}

void IncrementalTrust::link_agent(uint32_t agent, int delta) {
    const AgentFacts& f = in_.agents[agent];
    const uint32_t owner = node_of(f.owner);
    owner_refs_[owner] = static_cast<uint32_t>(static_cast<int>(owner_refs_[owner]) + delta);
    std::vector<uint32_t>& out = graph_.agent_out[agent];
    out.clear();
    if (delta > 0) out.push_back(owner);
    if (f.wallet && *f.wallet != f.owner) {
        const uint32_t wallet = node_of(*f.wallet);
        owner_refs_[wallet] = static_cast<uint32_t>(static_cast<int>(owner_refs_[wallet]) + delta);
        if (delta > 0) out.push_back(wallet);
    }
}

void IncrementalTrust::rebuild_node(uint32_t node) {
    detail::ReviewerStats& s = stats_[node];
    s = {};
    auto& out = graph_.address_out[node];
    out.clear();
    for (uint32_t i : by_client_[node]) {
        const Review& r = in_.reviews[i];
        if (!r.revoked) detail::add_to_stats(s, r);
        const double w = detail::edge_weight(r);
        if (w > 0) out.emplace_back(r.agent, w);
    }
    detail::finish_stats(s);
}

bool IncrementalTrust::has_agent(const core::Bytes& agent_id) const {
    return agent_index_.contains(bytes_key(agent_id));
}

void IncrementalTrust::upsert_agent(const core::Bytes& agent_id, const core::Address& owner,
                                    const std::optional<core::Address>& wallet) {
    auto [it, fresh] =
        agent_index_.try_emplace(bytes_key(agent_id), static_cast<uint32_t>(in_.agents.size()));
    const uint32_t g = it->second;
    if (fresh) {
        AgentFacts f;
        f.agent_id = agent_id;
        f.owner = owner;
        f.wallet = wallet;
        in_.agents.push_back(std::move(f));
        by_agent_.emplace_back();
        graph_.agent_out.emplace_back();
        agent_dirty_.push_back(0);
        link_agent(g, +1);
        mark_agent(g);
        return;
    }
    AgentFacts& f = in_.agents[g];
    if (f.owner == owner && f.wallet == wallet) return;
    link_agent(g, -1);
    f.owner = owner;
    f.wallet = wallet;
    link_agent(g, +1);
    mark_agent(g);
}

Review* IncrementalTrust::find_review(const core::Bytes& agent_id, const core::Address& client,
                                      uint64_t feedback_index) {
    auto it = review_index_.find(review_key(agent_id, client, feedback_index));
    return it != review_index_.end() ? &in_.reviews[it->second] : nullptr;
}

bool IncrementalTrust::upsert_review(const core::Bytes& agent_id, Review review) {
    auto agent = agent_index_.find(bytes_key(agent_id));
    if (agent == agent_index_.end()) return false;  // an agent registered before the start block
    review.agent = agent->second;
    const uint32_t node = node_of(review.client);
    if (Review* known = find_review(agent_id, review.client, review.feedback_index)) {
        if (same_review(*known, review)) return true;
        *known = std::move(review);
    } else {
        const auto i = static_cast<uint32_t>(in_.reviews.size());
        review_index_.emplace(review_key(agent_id, review.client, review.feedback_index), i);
        in_.reviews.push_back(std::move(review));
        by_agent_[agent->second].push_back(i);
        by_client_[node].push_back(i);
    }
    mark_agent(agent->second);
    mark_node(node);
    return true;
}

void IncrementalTrust::set_payment_verified(const core::Bytes& agent_id,
                                            const core::Address& client, uint64_t feedback_index,
                                            bool verified) {
    Review* r = find_review(agent_id, client, feedback_index);
    if (r == nullptr || r->payment_verified == verified) return;
    r->payment_verified = verified;
    mark_agent(r->agent);
    mark_node(node_of(client));
}

void IncrementalTrust::set_validation(const core::Bytes& agent_id, const core::Bytes& request_hash,
                                      const core::Address& validator, uint8_t response) {
    auto agent = agent_index_.find(bytes_key(agent_id));
    if (agent == agent_index_.end()) return;
    // A request names one agent; should its row name another now, it leaves the first.
    auto [owner, fresh] = request_agent_.try_emplace(bytes_key(request_hash), agent->second);
    if (!fresh && owner->second != agent->second) {
        drop_validation(owner->second, request_hash);
        owner->second = agent->second;
    }
    AgentFacts& f = in_.agents[agent->second];
    if (f.validation_requests.size() != f.validations.size()) return;  // built by hand: no keys
    // A full load orders an agent's validations by request hash (score_index.cpp).
    auto at = std::lower_bound(f.validation_requests.begin(), f.validation_requests.end(),
                               request_hash, [](const core::Bytes& x, const core::Bytes& y) {
                                   return std::lexicographical_compare(x.begin(), x.end(),
                                                                       y.begin(), y.end());
                               });
    const auto i = static_cast<size_t>(at - f.validation_requests.begin());
    const std::pair<core::Address, uint8_t> value{validator, response};
    if (at != f.validation_requests.end() && *at == request_hash) {
        if (f.validations[i] == value) return;
        f.validations[i] = value;
    } else {
        f.validation_requests.insert(at, request_hash);
        f.validations.insert(f.validations.begin() + static_cast<std::ptrdiff_t>(i), value);
    }
    mark_agent(agent->second);
}

void IncrementalTrust::drop_validation(uint32_t agent, const core::Bytes& request_hash) {
    AgentFacts& f = in_.agents[agent];
    if (f.validation_requests.size() != f.validations.size()) return;
    for (size_t i = 0; i < f.validation_requests.size(); ++i) {
        if (f.validation_requests[i] != request_hash) continue;
        f.validation_requests.erase(f.validation_requests.begin() + static_cast<std::ptrdiff_t>(i));
        f.validations.erase(f.validations.begin() + static_cast<std::ptrdiff_t>(i));
        mark_agent(agent);
        return;
    }
}

void IncrementalTrust::set_domain_verified(const core::Bytes& agent_id, bool verified) {
    auto agent = agent_index_.find(bytes_key(agent_id));
    if (agent == agent_index_.end()) return;
    AgentFacts& f = in_.agents[agent->second];
    if (f.domain_verified == verified) return;
    f.domain_verified = verified;
    mark_agent(agent->second);
}

IncrementalTrust::Refresh IncrementalTrust::refresh() {
    Refresh out;
    for (uint32_t u : dirty_nodes_) {
        rebuild_node(u);
        node_dirty_[u] = 0;
    }
    dirty_nodes_.clear();

    // The node set of a full computation: reviewers with a counted review, owners and wallets.
    const size_t n_addr = addresses_.size();
    std::vector<char> active(n_addr, 0);
    std::vector<uint32_t> payers;
    for (uint32_t u = 0; u < n_addr; ++u) {
        active[u] = stats_[u].reviews > 0 || owner_refs_[u] > 0 ? 1 : 0;
        if (stats_[u].paid > 0) payers.push_back(u);
    }
    std::vector<uint32_t> trusted;
    for (const core::Address& a : config_.trusted) {
        auto it = node_index_.find(a);
        if (it != node_index_.end() && active[it->second] != 0) trusted.push_back(it->second);
    }
    detail::Teleport teleport;
    double top = 0;
    if (detail::make_teleport(n_addr, in_.agents.size(), std::move(trusted),
                              !config_.trusted.empty(), std::move(payers), &active, teleport)) {
        out.iterations = detail::power_iterate(graph_, teleport, config_, rank_);
        top = detail::top_mass(rank_);
    } else {
        rank_ = {};
    }

    for (uint32_t u = 0; u < n_addr; ++u) {
        bool moved = false;
        if (stats_[u].reviews == 0) {
            // No counted review left: unknown to a full computation.
            if (has_weight_[u] != 0) {
                weights_.erase(weight_at_[u]);
                has_weight_[u] = 0;
                moved = true;
            }
            scored_[u] = 0;
        } else {
            const double standing = top > 0 ? rank_.address[u] / top : 0.0;
            const ReviewerWeight w = detail::weight_of(stats_[u], standing, config_);
            if (has_weight_[u] == 0) {
                weight_at_[u] = weights_.emplace(addresses_[u], w).first;
                has_weight_[u] = 1;
            } else {
                weight_at_[u]->second = w;
            }
            const ReviewerWeight& ref = scored_with_[u];
            moved = scored_[u] == 0 ||
                    std::abs(w.weight - ref.weight) > config_.rescore_tolerance ||
                    (w.standing < detail::kNoStanding) != (ref.standing < detail::kNoStanding) ||
                    w.first_seen != ref.first_seen || w.distinct_agents != ref.distinct_agents;
            if (moved) {
                scored_with_[u] = w;
                scored_[u] = 1;
            }
        }
        if (moved && !all_dirty_) {
            ++out.reviewers_moved;
            for (uint32_t i : by_client_[u]) mark_agent(in_.reviews[i].agent);
        }
    }

    if (all_dirty_) {
        out.agents.resize(in_.agents.size());
        for (uint32_t g = 0; g < in_.agents.size(); ++g) out.agents[g] = g;
    } else {
        out.agents = std::move(dirty_agents_);
        std::sort(out.agents.begin(), out.agents.end());
    }
    for (uint32_t g : out.agents) agent_dirty_[g] = 0;
    dirty_agents_.clear();
    all_dirty_ = false;
    return out;
}

AgentScore IncrementalTrust::score(uint32_t agent) const {
    if (agent >= in_.agents.size()) return {};
    std::vector<const Review*> reviews;
    reviews.reserve(by_agent_[agent].size());
    for (uint32_t i : by_agent_[agent]) reviews.push_back(&in_.reviews[i]);
    return score_reviews(in_.agents[agent], reviews, weights_, config_, &clusters_);
}

}  // namespace credence::trust
