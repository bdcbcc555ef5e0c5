#include <credence/trust/score.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <map>
#include <string_view>

#include <credence/trust/funding_clusters.hpp>
#include <credence/trust/review_graph.hpp>

namespace credence::trust {
namespace {

constexpr double kZ95 = 1.959963984540054;  // two-sided 95 % normal quantile

// ERC-8004 §Examples of value / valueDecimals: what each well-known tag1 measures.
constexpr std::array<std::string_view, 3> kPercentTags{"starred", "uptime", "successRate"};
constexpr std::array<std::string_view, 2> kBinaryTags{"reachable", "ownerVerified"};
constexpr std::array<std::string_view, 4> kMeasureTags{"responseTime", "blocktimeFreshness",
                                                       "revenues", "tradingYield"};

template <size_t N>
bool among(const std::array<std::string_view, N>& list, std::string_view tag) {
    return std::find(list.begin(), list.end(), tag) != list.end();
}

using detail::AddressMap;
using detail::kNoStanding;
using detail::ReviewerStats;

double clamp01(double x) { return std::clamp(x, 0.0, 1.0); }

double decay(const TrustConfig& config, int64_t timestamp) {
    if (config.half_life_seconds <= 0 || timestamp >= config.now) return 1.0;
    const double age = static_cast<double>(config.now - timestamp);
    return std::exp2(-age / static_cast<double>(config.half_life_seconds));
}

struct Beta {
    double alpha = 1.0;  // Beta(1, 1): no evidence, mean 1/2
    double beta = 1.0;
    void add(double weight, double rating) {
        alpha += weight * rating;
        beta += weight * (1.0 - rating);
    }
    [[nodiscard]] double mean() const { return alpha / (alpha + beta); }
    [[nodiscard]] std::pair<double, double> interval() const {
        const double n = alpha + beta;
        const double sd = std::sqrt(alpha * beta / (n * n * (n + 1.0)));
        return {clamp01(mean() - kZ95 * sd), clamp01(mean() + kZ95 * sd)};
    }
};

/// Weighted mean with a normal-approximation interval over the effective sample size.
struct Mean {
    double sum_w = 0, sum_wx = 0, sum_wxx = 0, sum_ww = 0;
    void add(double w, double x) {
        sum_w += w;
        sum_wx += w * x;
        sum_wxx += w * x * x;
        sum_ww += w * w;
    }
};

AddressMap<ReviewerStats> reviewer_stats(const TrustInputs& inputs) {
    AddressMap<ReviewerStats> stats;
    for (const Review& r : inputs.reviews) {
        if (!r.revoked) detail::add_to_stats(stats[r.client], r);
    }
    for (auto& [_, s] : stats) detail::finish_stats(s);
    return stats;
}

// Personalized PageRank over addresses and agents (see score.hpp and review_graph.hpp). Returns
// each address's mass scaled so that the largest address mass is 1.
AddressMap<double> standings(const TrustInputs& inputs, const AddressMap<ReviewerStats>& stats,
                             const TrustConfig& config) {
    AddressMap<uint32_t> node_of;
    std::vector<core::Address> addresses;
    auto address_node = [&](const core::Address& a) {
        auto [it, fresh] = node_of.try_emplace(a, static_cast<uint32_t>(addresses.size()));
        if (fresh) addresses.push_back(a);
        return it->second;
    };
    for (const auto& [a, _] : stats) address_node(a);
    for (const AgentFacts& f : inputs.agents) {
        address_node(f.owner);
        if (f.wallet) address_node(*f.wallet);
    }
    const size_t n_addr = addresses.size();
    const size_t n = n_addr + inputs.agents.size();
    if (n == 0) return {};
    detail::ReviewGraph graph;
    graph.address_out.resize(n_addr);
    graph.agent_out.resize(inputs.agents.size());
    for (const Review& r : inputs.reviews) {
        if (r.agent >= inputs.agents.size()) continue;
        const double w = detail::edge_weight(r);
        if (w > 0) graph.address_out[node_of.at(r.client)].emplace_back(r.agent, w);
    }
    for (uint32_t i = 0; i < inputs.agents.size(); ++i) {
        const AgentFacts& f = inputs.agents[i];
        graph.agent_out[i].push_back(node_of.at(f.owner));
        if (f.wallet && *f.wallet != f.owner) graph.agent_out[i].push_back(node_of.at(*f.wallet));
    }
    // Teleport: the trusted set, else reviewers who paid, else everyone.
    std::vector<uint32_t> trusted, payers;
    for (const auto& a : config.trusted) {
        if (auto it = node_of.find(a); it != node_of.end()) trusted.push_back(it->second);
    }
    for (const auto& [a, s] : stats) {
        if (s.paid > 0) payers.push_back(node_of.at(a));
    }
    detail::Teleport teleport;
    if (!detail::make_teleport(n_addr, inputs.agents.size(), std::move(trusted),
                               !config.trusted.empty(), std::move(payers), nullptr, teleport)) {
        return {};
    }
    detail::PageRankVector p;  // empty: a cold start from the teleport vector
    detail::power_iterate(graph, teleport, config, p);
    const double top = detail::top_mass(p);
    AddressMap<double> result;
    result.reserve(n_addr);
    for (size_t i = 0; i < n_addr; ++i) result[addresses[i]] = top > 0 ? p.address[i] / top : 0.0;
    return result;
}

bool is_unvouched(const Review& r, const ReviewerWeight& w) {
    return !r.payment_verified && w.standing < kNoStanding;
}

std::vector<Discount> discounts_of(const Review& r, const ReviewerWeight& w,
                                   const TrustConfig& config, bool is_rating) {
    std::vector<Discount> out;
    if (r.revoked) out.push_back(Discount::revoked);
    if (!is_rating) out.push_back(Discount::not_a_rating);
    if (!r.payment_verified) out.push_back(Discount::no_verified_payment);
    if (config.now - w.first_seen < config.mature_age_seconds)
        out.push_back(Discount::new_reviewer);
    if (w.distinct_agents < config.mature_spread) out.push_back(Discount::narrow_spread);
    if (w.standing < kNoStanding) out.push_back(Discount::no_standing);
    return out;
}

}  // namespace

std::string_view to_string(Discount d) noexcept {
    switch (d) {
        case Discount::no_verified_payment:
            return "no_verified_payment";
        case Discount::new_reviewer:
            return "new_reviewer";
        case Discount::narrow_spread:
            return "narrow_spread";
        case Discount::no_standing:
            return "no_standing";
        case Discount::revoked:
            return "revoked";
        case Discount::not_a_rating:
            return "not_a_rating";
        case Discount::pooled:
            return "pooled";
        case Discount::funded_by_owner:
            return "funded_by_owner";
        case Discount::clustered:
            return "clustered";
        case Discount::repeated:
            return "repeated";
    }
    return "unknown";
}

double to_double(const core::Int256& value, uint8_t value_decimals) {
    // "<digits>e-<decimals>" through strtod: correctly rounded, so equal values written with
    // different decimals (5/0 and 500/2) give the same double.
    const std::string text = value.to_dec() + "e-" + std::to_string(value_decimals);
    return std::strtod(text.c_str(), nullptr);
}

std::optional<double> rating_of(const core::Int256& value, uint8_t value_decimals,
                                std::string_view tag1) {
    if (among(kBinaryTags, tag1))
        return value.is_negative() || value == core::Int256(0) ? 0.0 : 1.0;
    if (among(kMeasureTags, tag1)) return std::nullopt;
    // value / 10^(decimals + 2) in one correctly rounded step: 9977/2 is exactly 0.9977.
    const double x = to_double(value, static_cast<uint8_t>(value_decimals + 2));
    if (among(kPercentTags, tag1)) return clamp01(x);
    // An untagged or unknown tag is read as a 0..100 score only when it is one.
    if (x >= 0.0 && x <= 1.0) return x;
    return std::nullopt;
}

AgentScore score_reviews(const AgentFacts& facts, std::span<const Review* const> reviews,
                         const std::map<core::Address, ReviewerWeight>& weights,
                         const TrustConfig& config, const FundingClusters* clusters) {
    AgentScore out;
    Beta overall;
    std::map<std::string, Beta> tag_beta;
    std::map<std::string, Mean> tag_mean;
    std::map<std::string, uint32_t> tag_reviews;
    double sum_w = 0, sum_ww = 0;
    const ReviewerWeight unknown{};
    auto weight_of = [&](const Review& r, const ReviewerWeight* rw) {
        return (rw != nullptr ? rw->weight : config.base_prior) * decay(config, r.timestamp);
    };
    // Funding (docs/trust.md §Funding): a reviewer funded by this agent's owner or wallet speaks
    // for the owner, who may not rate its own agent (ERC-8004 §Giving Feedback), and any payment
    // it made went round in a circle: it counts for nothing. Reviewers sharing a cluster key are
    // one voice: together they weigh what their heaviest review weighs.
    const auto cluster_at = [&](const core::Address& a) -> const FundingCluster* {
        if (clusters == nullptr) return nullptr;
        const auto it = clusters->find(a);
        return it != clusters->end() ? &it->second : nullptr;
    };
    const auto cluster_of = [&](const Review& r) { return cluster_at(r.client); };
    const auto owner_funded = [&](const FundingCluster* c) {
        if (c == nullptr) return false;
        const auto is_owner = [&](const core::Address& a) {
            return a == facts.owner || (facts.wallet && a == *facts.wallet);
        };
        return is_owner(c->funder) || std::any_of(c->path.begin(), c->path.end(), is_owner);
    };
    // One reviewer is one voice on an agent (ERC-8004 lets a client give feedback again and again:
    // feedbackIndex counts them): its ratings share its weight, each at 1/n. Measurements
    // (responseTime, ...) are another signal and keep their weight.
    const auto is_rating = [](const Review& r) {
        return rating_of(r.value, r.value_decimals, r.tag1).has_value();
    };
    std::map<core::Address, uint32_t> repeats;
    for (const Review* review : reviews)
        if (!review->revoked && is_rating(*review)) ++repeats[review->client];
    const auto repeat_scale = [&](const Review& r) {
        if (!is_rating(r)) return 1.0;
        const auto it = repeats.find(r.client);
        return it == repeats.end() || it->second <= 1 ? 1.0 : 1.0 / it->second;
    };
    struct Voice {
        double sum = 0, heaviest = 0;
        std::vector<core::Address> members;
    };
    std::map<core::Address, Voice> voices;
    for (const Review* review : reviews) {
        const Review& r = *review;
        const FundingCluster* c = cluster_of(r);
        if (r.revoked || c == nullptr || !c->key || owner_funded(c)) continue;
        auto it = weights.find(r.client);
        const double w =
            weight_of(r, it != weights.end() ? &it->second : nullptr) * repeat_scale(r);
        Voice& v = voices[*c->key];
        v.sum += w;
        v.heaviest = std::max(v.heaviest, w);
        if (std::find(v.members.begin(), v.members.end(), r.client) == v.members.end())
            v.members.push_back(r.client);
    }
    const auto cluster_scale = [&](const FundingCluster* c) {
        if (c == nullptr || !c->key) return 1.0;
        const auto it = voices.find(*c->key);
        if (it == voices.end() || it->second.members.size() < 2 || it->second.sum <= 0) return 1.0;
        return std::min(1.0, it->second.heaviest / it->second.sum);
    };
    // Unvouched reviews (no standing, no verified payment) share one pool of at most
    // config.unvouched_cap: however many fresh addresses a Sybil makes, together they weigh at
    // most that much on this agent.
    double unvouched = 0;
    for (const Review* review : reviews) {
        const Review& r = *review;
        if (r.revoked) continue;
        const FundingCluster* c = cluster_of(r);
        if (owner_funded(c)) continue;
        auto it = weights.find(r.client);
        const ReviewerWeight* rw = it != weights.end() ? &it->second : nullptr;
        if (is_unvouched(r, rw != nullptr ? *rw : unknown))
            unvouched += weight_of(r, rw) * repeat_scale(r) * cluster_scale(c);
    }
    const double pool_scale =
        unvouched > config.unvouched_cap ? config.unvouched_cap / unvouched : 1.0;
    for (const Review* review : reviews) {
        const Review& r = *review;
        auto it = weights.find(r.client);
        const ReviewerWeight& rw = it != weights.end() ? it->second : unknown;
        const std::optional<double> rating = rating_of(r.value, r.value_decimals, r.tag1);
        Contribution c;
        c.client = r.client;
        c.rating = rating.value_or(0.0);
        c.discounts = discounts_of(r, rw, config, rating.has_value());
        const FundingCluster* fc = cluster_of(r);
        if (fc != nullptr) {
            c.funding_path.push_back(fc->funder);
            for (const auto& a : fc->path)
                if (a != fc->funder) c.funding_path.push_back(a);
            c.cluster = fc->key;
        }
        if (!r.revoked) {
            double w = weight_of(r, it != weights.end() ? &it->second : nullptr);
            if (owner_funded(fc)) {
                w = 0;
                c.discounts.push_back(Discount::funded_by_owner);
            } else {
                if (const double scale = repeat_scale(r); scale < 1.0) {
                    w *= scale;
                    c.discounts.push_back(Discount::repeated);
                }
                if (const double scale = cluster_scale(fc); scale < 1.0) {
                    w *= scale;
                    c.discounts.push_back(Discount::clustered);
                }
                if (pool_scale < 1.0 && is_unvouched(r, rw)) {
                    w *= pool_scale;
                    c.discounts.push_back(Discount::pooled);
                }
            }
            c.weight = w;
            ++out.reviews;
            ++tag_reviews[r.tag1];
            if (rating) {
                overall.add(w, *rating);
                tag_beta[r.tag1].add(w, *rating);
                sum_w += w;
                sum_ww += w * w;
            } else {
                tag_mean[r.tag1].add(w, to_double(r.value, r.value_decimals));
            }
        }
        out.contributions.push_back(std::move(c));
    }
    out.evidence = sum_w;
    out.effective_reviewers = sum_ww > 0 ? sum_w * sum_w / sum_ww : 0.0;
    for (Contribution& c : out.contributions) c.share = sum_w > 0 ? c.weight / sum_w : 0.0;
    // Agent-side evidence (ERC-8004 §Validation Registry: response 0..100). Each validator is one
    // voice on an agent, at the mean of its responses: asking one validator ten times proves no
    // more than asking it once. A validator funded by the agent's owner speaks for the owner and
    // is not counted (docs/trust.md §Funding).
    std::map<core::Address, std::pair<double, uint32_t>> by_validator;
    for (const auto& [validator, response] : facts.validations) {
        if (owner_funded(cluster_at(validator))) continue;
        auto& [sum, n] = by_validator[validator];
        sum += std::min<uint8_t>(response, 100) / 100.0;
        ++n;
    }
    for (const auto& [validator, mean] : by_validator) {
        overall.add(config.validation_weight, mean.first / mean.second);
        out.validation_evidence += config.validation_weight;
    }
    if (facts.domain_verified) overall.add(config.domain_weight, 1.0);
    out.score = overall.mean();
    std::tie(out.low, out.high) = overall.interval();
    for (const auto& [tag, beta] : tag_beta) {
        TagScore t;
        t.tag = tag;
        t.score = beta.mean();
        std::tie(t.low, t.high) = beta.interval();
        t.evidence = beta.alpha + beta.beta - 2.0;
        t.reviews = tag_reviews[tag];
        out.tags.push_back(std::move(t));
    }
    for (const auto& [tag, m] : tag_mean) {
        if (m.sum_w <= 0) continue;
        TagScore t;
        t.tag = tag;
        t.is_rating = false;
        t.score = m.sum_wx / m.sum_w;
        const double var = std::max(0.0, m.sum_wxx / m.sum_w - t.score * t.score);
        const double n_eff = m.sum_w * m.sum_w / m.sum_ww;
        const double half = kZ95 * std::sqrt(var / n_eff);
        t.low = t.score - half;
        t.high = t.score + half;
        t.evidence = m.sum_w;
        t.reviews = tag_reviews[tag];
        out.tags.push_back(std::move(t));
    }
    return out;
}

AgentScore score_agent(const TrustInputs& inputs, uint32_t agent,
                       const std::map<core::Address, ReviewerWeight>& weights,
                       const TrustConfig& config, const FundingClusters* clusters) {
    if (agent >= inputs.agents.size()) return {};
    std::vector<const Review*> mine;
    for (const Review& r : inputs.reviews) {
        if (r.agent == agent) mine.push_back(&r);
    }
    return score_reviews(inputs.agents[agent], mine, weights, config, clusters);
}

std::map<core::Address, ReviewerWeight> reviewer_weights(const TrustInputs& inputs,
                                                         const TrustConfig& config) {
    std::map<core::Address, ReviewerWeight> weights;
    const AddressMap<ReviewerStats> stats = reviewer_stats(inputs);
    const AddressMap<double> standing = standings(inputs, stats, config);
    for (const auto& [address, s] : stats) {
        auto it = standing.find(address);
        weights.emplace(address,
                        detail::weight_of(s, it != standing.end() ? it->second : 0.0, config));
    }
    return weights;
}

TrustResult compute_trust(const TrustInputs& inputs, const TrustConfig& config) {
    TrustResult result;
    result.reviewers = reviewer_weights(inputs, config);
    // One pass over the reviews per agent would be quadratic; bucket them first.
    std::vector<std::vector<const Review*>> by_agent(inputs.agents.size());
    for (const Review& r : inputs.reviews) {
        if (r.agent < by_agent.size()) by_agent[r.agent].push_back(&r);
    }
    const FundingClusters clusters = funding_clusters(inputs, config);
    result.agents.reserve(inputs.agents.size());
    for (uint32_t a = 0; a < inputs.agents.size(); ++a) {
        result.agents.push_back(
            score_reviews(inputs.agents[a], by_agent[a], result.reviewers, config, &clusters));
    }
    return result;
}

}  // namespace credence::trust
