#include <credence/trust/review_graph.hpp>

#include <algorithm>
#include <cmath>

namespace credence::trust::detail {

void add_to_stats(ReviewerStats& s, const Review& r) {
    ++s.reviews;
    if (r.payment_verified) ++s.paid;
    s.first_seen = std::min(s.first_seen, r.timestamp);
    s.agents.push_back(r.agent);
}

void finish_stats(ReviewerStats& s) {
    std::sort(s.agents.begin(), s.agents.end());
    s.agents.erase(std::unique(s.agents.begin(), s.agents.end()), s.agents.end());
}

double prior_of(const ReviewerStats& s, const TrustConfig& config) {
    const double paid = s.reviews == 0 ? 0.0 : static_cast<double>(s.paid) / s.reviews;
    const double age = config.mature_age_seconds <= 0 || s.first_seen >= config.now
                           ? (s.first_seen >= config.now ? 0.0 : 1.0)
                           : std::min(1.0, static_cast<double>(config.now - s.first_seen) /
                                               static_cast<double>(config.mature_age_seconds));
    const double spread =
        config.mature_spread == 0
            ? 1.0
            : std::min(1.0, static_cast<double>(s.agents.size()) / config.mature_spread);
    return config.base_prior + config.payment_prior * paid + config.age_prior * age +
           config.spread_prior * spread;
}

ReviewerWeight weight_of(const ReviewerStats& s, double standing, const TrustConfig& config) {
    ReviewerWeight w;
    w.standing = standing;
    w.prior = prior_of(s, config);
    w.weight = std::min(1.0, w.prior + w.standing);
    w.reviews = s.reviews;
    w.distinct_agents = static_cast<uint32_t>(s.agents.size());
    w.first_seen = s.first_seen;
    return w;
}

double edge_weight(const Review& r) {
    if (r.revoked) return 0.0;
    // An unrated tag (responseTime, ...) still links its reviewer to the agent, at half weight.
    const double w = rating_of(r.value, r.value_decimals, r.tag1).value_or(0.5);
    return w > 0 ? w : 0.0;  // a bad rating endorses nothing
}

bool make_teleport(size_t n_addr, size_t n_agents, std::vector<uint32_t> trusted,
                   bool trusted_configured, std::vector<uint32_t> payers,
                   const std::vector<char>* active, Teleport& out) {
    out.address.assign(n_addr, 0.0);
    out.agent = 0;
    std::vector<uint32_t>& seeds = trusted_configured ? trusted : payers;
    std::sort(seeds.begin(), seeds.end());
    seeds.erase(std::unique(seeds.begin(), seeds.end()), seeds.end());
    if (!seeds.empty()) {
        const double t = 1.0 / static_cast<double>(seeds.size());
        for (uint32_t u : seeds) out.address[u] = t;
        return true;
    }
    if (trusted_configured) return false;  // nobody trusted is in the graph: no standing
    size_t n = n_agents;
    for (size_t u = 0; u < n_addr; ++u) {
        if (active == nullptr || (*active)[u] != 0) ++n;
    }
    if (n == 0) return false;
    const double t = 1.0 / static_cast<double>(n);
    for (size_t u = 0; u < n_addr; ++u) {
        if (active == nullptr || (*active)[u] != 0) out.address[u] = t;
    }
    out.agent = t;
    return true;
}

double top_mass(const PageRankVector& p) {
    double top = 0;
    for (double x : p.address) top = std::max(top, x);
    return top;
}

unsigned power_iterate(const ReviewGraph& graph, const Teleport& teleport,
                       const TrustConfig& config, PageRankVector& p) {
    const size_t n_addr = graph.address_out.size();
    const size_t n_agent = graph.agent_out.size();
    // The address -> agent edges flattened (CSR): each step then reads them in one sweep of
    // contiguous memory, in the same order as the lists (the same sums, bit for bit).
    std::vector<size_t> first(n_addr + 1, 0);
    for (size_t u = 0; u < n_addr; ++u) first[u + 1] = first[u] + graph.address_out[u].size();
    std::vector<uint32_t> to(first[n_addr]);
    std::vector<double> weight(first[n_addr]);
    std::vector<double> addr_sum(n_addr, 0.0);
    for (size_t u = 0; u < n_addr; ++u) {
        size_t e = first[u];
        for (const auto& [v, w] : graph.address_out[u]) {
            to[e] = v;
            weight[e++] = w;
            addr_sum[u] += w;
        }
    }
    p.address.resize(n_addr, 0.0);
    p.agent.resize(n_agent, 0.0);
    double mass = 0;
    for (double x : p.address) mass += x;
    for (double x : p.agent) mass += x;
    if (!(mass > 0) || !std::isfinite(mass)) {
        p.address = teleport.address;
        p.agent.assign(n_agent, teleport.agent);
    } else if (mass != 1.0) {
        for (double& x : p.address) x /= mass;
        for (double& x : p.agent) x /= mass;
    }
    PageRankVector next{std::vector<double>(n_addr), std::vector<double>(n_agent)};
    const double d = std::clamp(config.damping, 0.0, 1.0);
    unsigned steps = 0;
    while (steps < config.iterations) {
        ++steps;
        double dangling = 0;
        std::fill(next.address.begin(), next.address.end(), 0.0);
        std::fill(next.agent.begin(), next.agent.end(), 0.0);
        for (size_t u = 0; u < n_addr; ++u) {
            if (addr_sum[u] == 0) {
                dangling += p.address[u];
                continue;
            }
            const double share = d * p.address[u] / addr_sum[u];
            for (size_t e = first[u]; e < first[u + 1]; ++e) next.agent[to[e]] += share * weight[e];
        }
        for (size_t g = 0; g < n_agent; ++g) {
            const auto& out = graph.agent_out[g];
            if (out.empty()) {
                dangling += p.agent[g];
                continue;
            }
            const double share = d * p.agent[g] / static_cast<double>(out.size());
            for (uint32_t v : out) next.address[v] += share;
        }
        const double base = (1.0 - d) + d * dangling;
        double delta = 0, top = 0;
        for (size_t u = 0; u < n_addr; ++u) {
            next.address[u] += base * teleport.address[u];
            delta += std::abs(next.address[u] - p.address[u]);
            top = std::max(top, next.address[u]);
        }
        for (size_t g = 0; g < n_agent; ++g) {
            next.agent[g] += base * teleport.agent;
            delta += std::abs(next.agent[g] - p.agent[g]);
        }
        std::swap(p, next);
        if (delta <= config.tolerance * top) break;
    }
    return steps;
}

}  // namespace credence::trust::detail
