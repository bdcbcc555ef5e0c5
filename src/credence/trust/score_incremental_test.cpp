// The in-memory incremental engine (docs/architecture.md §trust/: "updates are incremental as
// events arrive"): after any sequence of changes, the scores it keeps (only the agents refresh()
// returns are rescored) equal compute_trust over the same graph, up to the stated tolerances; and
// it rescores few agents for a small change.
#include <credence/trust/score_incremental.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace credence::trust {
namespace {

using core::Int256;

constexpr int64_t kIncrementalDay = 86'400;
constexpr int64_t kIncrementalNow = 1'800'000'000;
// Scores kept by the engine vs a full computation: PageRank within 5.7e-9 of its fixed point on
// both sides, and stale agents within 2 x rescore_tolerance of their reviewers' current weights.
constexpr double kScoreTolerance = 1e-6;

core::Address numbered_addr(uint32_t n, uint8_t tag = 0xC0) {
    core::Address a;
    a.bytes[0] = tag;
    for (size_t i = 0; i < 4; ++i) a.bytes[19 - i] = static_cast<uint8_t>(n >> (8 * i));
    return a;
}

core::Bytes id_of(uint32_t n) {
    core::Bytes b(32, 0);
    for (size_t i = 0; i < 4; ++i) b[31 - i] = static_cast<uint8_t>(n >> (8 * i));
    return b;
}

core::Bytes request_of(uint32_t n) {
    core::Bytes b(32, 0xEE);
    b[0] = static_cast<uint8_t>(n);
    b[1] = static_cast<uint8_t>(n >> 8);
    return b;
}

/// What a full load of the same index would hold, kept by the test beside the engine.
struct Model {
    TrustInputs in;

    uint32_t agent_index(const core::Bytes& id) const {
        for (uint32_t g = 0; g < in.agents.size(); ++g) {
            if (in.agents[g].agent_id == id) return g;
        }
        return UINT32_MAX;
    }
};

void expect_near_scores(const AgentScore& kept, const AgentScore& full, uint32_t agent) {
    EXPECT_NEAR(kept.score, full.score, kScoreTolerance) << "agent " << agent;
    EXPECT_NEAR(kept.low, full.low, kScoreTolerance) << "agent " << agent;
    EXPECT_NEAR(kept.high, full.high, kScoreTolerance) << "agent " << agent;
    EXPECT_NEAR(kept.evidence, full.evidence, kScoreTolerance * std::max(1.0, full.evidence))
        << "agent " << agent;
    EXPECT_EQ(kept.reviews, full.reviews) << "agent " << agent;
    ASSERT_EQ(kept.contributions.size(), full.contributions.size()) << "agent " << agent;
    for (size_t i = 0; i < kept.contributions.size(); ++i) {
        EXPECT_EQ(kept.contributions[i].client, full.contributions[i].client);
        EXPECT_EQ(kept.contributions[i].discounts, full.contributions[i].discounts)
            << "agent " << agent << " contribution " << i;
    }
}

class Harness {
public:
    explicit Harness(const TrustConfig& config) : config_(config), engine_(config) {}

    void load(TrustInputs in) {
        model_.in = in;
        engine_.reset(std::move(in));
        apply();
    }

    void add_agent(uint32_t n, const core::Address& owner) {
        AgentFacts f;
        f.agent_id = id_of(n);
        f.owner = owner;
        model_.in.agents.push_back(f);
        engine_.upsert_agent(f.agent_id, f.owner, f.wallet);
    }

    void set_wallet(uint32_t agent, const core::Address& wallet) {
        AgentFacts& f = model_.in.agents.at(agent);
        f.wallet = wallet;
        engine_.upsert_agent(f.agent_id, f.owner, f.wallet);
    }

    void add_review(Review r) {
        r.feedback_index = ++next_index_;
        model_.in.reviews.push_back(r);
        EXPECT_TRUE(engine_.upsert_review(model_.in.agents.at(r.agent).agent_id, r));
    }

    void revoke(size_t review) {
        Review& r = model_.in.reviews.at(review);
        r.revoked = true;
        EXPECT_TRUE(engine_.upsert_review(model_.in.agents.at(r.agent).agent_id, r));
    }

    void pay(size_t review, bool paid) {
        Review& r = model_.in.reviews.at(review);
        r.payment_verified = paid;
        engine_.set_payment_verified(model_.in.agents.at(r.agent).agent_id, r.client,
                                     r.feedback_index, paid);
    }

    void validate(uint32_t agent, uint32_t request, uint8_t response) {
        AgentFacts& f = model_.in.agents.at(agent);
        const core::Bytes hash = request_of(agent * 32 + request);  // a request names one agent
        auto at = std::lower_bound(f.validation_requests.begin(), f.validation_requests.end(), hash,
                                   [](const core::Bytes& x, const core::Bytes& y) {
                                       return std::lexicographical_compare(x.begin(), x.end(),
                                                                           y.begin(), y.end());
                                   });
        const auto i = at - f.validation_requests.begin();
        if (at != f.validation_requests.end() && *at == hash) {
            f.validations[static_cast<size_t>(i)] = {numbered_addr(request, 0xB0), response};
        } else {
            f.validation_requests.insert(at, hash);
            f.validations.insert(f.validations.begin() + i,
                                 {numbered_addr(request, 0xB0), response});
        }
        engine_.set_validation(f.agent_id, hash, numbered_addr(request, 0xB0), response);
    }

    /// Refreshes, rescores what the engine returns, and checks every kept score against a full
    /// computation. Returns how many agents were rescored.
    size_t apply() {
        const IncrementalTrust::Refresh r = engine_.refresh();
        kept_.resize(engine_.agent_count());
        for (uint32_t g : r.agents) kept_[g] = engine_.score(g);
        const TrustResult full = compute_trust(model_.in, config_);
        EXPECT_EQ(engine_.agent_count(), full.agents.size());
        for (uint32_t g = 0; g < full.agents.size(); ++g) {
            expect_near_scores(kept_[g], full.agents[g], g);
        }
        EXPECT_EQ(engine_.weights().size(), full.reviewers.size());
        for (const auto& [client, w] : full.reviewers) {
            auto it = engine_.weights().find(client);
            if (it == engine_.weights().end()) {
                ADD_FAILURE() << "reviewer missing";
                continue;
            }
            EXPECT_NEAR(it->second.weight, w.weight, 1e-7);
            EXPECT_NEAR(it->second.standing, w.standing, 1e-7);
        }
        last_iterations_ = r.iterations;
        return r.agents.size();
    }

    Model& model() { return model_; }
    [[nodiscard]] unsigned last_iterations() const { return last_iterations_; }

private:
    TrustConfig config_;
    IncrementalTrust engine_;
    Model model_;
    std::vector<AgentScore> kept_;
    uint64_t next_index_ = 1'000'000;
    unsigned last_iterations_ = 0;
};

Review make_review(uint32_t agent, const core::Address& client, int64_t value, int64_t age_days,
                   bool paid, std::string tag1 = "starred") {
    Review r;
    r.agent = agent;
    r.client = client;
    r.value = Int256(value);
    r.tag1 = std::move(tag1);
    r.timestamp = kIncrementalNow - age_days * kIncrementalDay;
    r.payment_verified = paid;
    return r;
}

TrustInputs random_graph(std::mt19937_64& rng, uint32_t agents, uint32_t reviewers,
                         size_t reviews) {
    TrustInputs in;
    for (uint32_t g = 0; g < agents; ++g) {
        AgentFacts f;
        f.agent_id = id_of(g);
        f.owner = numbered_addr(g, 0xA0);
        in.agents.push_back(f);
    }
    const char* tags[] = {"starred", "uptime", "", "responseTime", "reachable"};
    for (size_t i = 0; i < reviews; ++i) {
        const auto client = static_cast<uint32_t>(rng() % reviewers);
        Review r = make_review(static_cast<uint32_t>(rng() % agents), numbered_addr(client),
                               static_cast<int64_t>(rng() % 101), static_cast<int64_t>(rng() % 400),
                               client % 7 == 0, tags[rng() % 5]);
        r.feedback_index = i + 1;
        r.revoked = rng() % 50 == 0;
        in.reviews.push_back(r);
    }
    return in;
}

TrustConfig config_at_now() {
    TrustConfig c;
    c.now = kIncrementalNow;
    return c;
}

// A random sequence of appends, revocations, payment flags, wallets, new agents and
// validation responses; after each step the kept scores equal a full recomputation.
TEST(trust_incremental, random_changes_keep_scores_equal_to_a_full_computation) {
    for (const bool with_trusted : {false, true}) {
        std::mt19937_64 rng(with_trusted ? 8004 : 8257);
        TrustConfig config = config_at_now();
        if (with_trusted) config.trusted = {numbered_addr(3), numbered_addr(11)};
        Harness h(config);
        h.load(random_graph(rng, 40, 120, 900));
        uint32_t next_agent = 40;
        for (int step = 0; step < 60; ++step) {
            const int ops = 1 + static_cast<int>(rng() % 4);
            for (int k = 0; k < ops; ++k) {
                Model& m = h.model();
                switch (rng() % 7) {
                    case 0:
                    case 1:
                    case 2:
                        h.add_review(make_review(static_cast<uint32_t>(rng() % m.in.agents.size()),
                                                 numbered_addr(static_cast<uint32_t>(rng() % 150)),
                                                 static_cast<int64_t>(rng() % 101), 0,
                                                 rng() % 3 == 0));
                        break;
                    case 3:
                        h.revoke(rng() % m.in.reviews.size());
                        break;
                    case 4:
                        h.pay(rng() % m.in.reviews.size(), rng() % 2 == 0);
                        break;
                    case 5:
                        if (rng() % 2 == 0) {
                            h.add_agent(next_agent, numbered_addr(next_agent, 0xA0));
                            ++next_agent;
                        } else {
                            // An agent's wallet that is also a reviewer: standing flows to it.
                            h.set_wallet(static_cast<uint32_t>(rng() % m.in.agents.size()),
                                         numbered_addr(static_cast<uint32_t>(rng() % 150)));
                        }
                        break;
                    default:
                        h.validate(static_cast<uint32_t>(rng() % m.in.agents.size()),
                                   static_cast<uint32_t>(rng() % 20),
                                   static_cast<uint8_t>(rng() % 101));
                        break;
                }
            }
            h.apply();
            if (::testing::Test::HasFailure()) return;
        }
    }
}

// The point of the engine: one new review rescores its agent and the agents of reviewers whose
// weight it moved, not the whole graph; and the warm-started PageRank needs fewer steps than a
// cold one.
TEST(trust_incremental, one_review_rescores_few_agents_in_few_iterations) {
    std::mt19937_64 rng(42);
    Harness h(config_at_now());
    h.load(random_graph(rng, 300, 2'000, 6'000));
    const unsigned cold = h.last_iterations();
    h.add_review(make_review(5, numbered_addr(77), 90, 0, false));
    const size_t rescored = h.apply();
    EXPECT_GE(rescored, 1u);
    EXPECT_LT(rescored, 300u);
    EXPECT_LT(h.last_iterations(), cold);
    // Nothing changed: nothing to rescore.
    EXPECT_EQ(h.apply(), 0u);
}

TEST(trust_incremental, unknown_agent_feedback_is_ignored_like_a_full_load) {
    IncrementalTrust engine(config_at_now());
    engine.reset({});
    Review r = make_review(0, numbered_addr(1), 80, 1, true);
    EXPECT_FALSE(engine.upsert_review(id_of(9), r));
    EXPECT_EQ(engine.review_count(), 0u);
    engine.upsert_agent(id_of(9), numbered_addr(9, 0xA0), std::nullopt);
    EXPECT_TRUE(engine.upsert_review(id_of(9), r));
    const auto refresh = engine.refresh();
    ASSERT_EQ(refresh.agents.size(), 1u);
    EXPECT_GT(engine.score(0).score, 0.5);
}

}  // namespace
}  // namespace credence::trust
