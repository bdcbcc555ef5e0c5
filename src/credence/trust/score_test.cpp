// The trust score (docs/architecture.md §trust/): exact value normalization, Sybil discounting,
// time decay, per-tag scores, intervals, agent-side evidence, explanations and the incremental
// path.
#include <credence/trust/score.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace credence::trust {
namespace {

using core::Int256;

constexpr int64_t kDay = 86'400;
constexpr int64_t kNow = 1'800'000'000;

core::Address addr(uint32_t n) {
    core::Address a;
    a.bytes[0] = 0xC0;
    for (size_t i = 0; i < 4; ++i) a.bytes[19 - i] = static_cast<uint8_t>(n >> (8 * i));
    return a;
}

AgentFacts agent(uint32_t n) {
    AgentFacts f;
    f.agent_id = core::Bytes(32, 0);
    f.agent_id.back() = static_cast<uint8_t>(n);
    f.owner = addr(100'000 + n);
    return f;
}

Review review(uint32_t agent_index, core::Address client, int64_t value, int64_t age_days,
              bool paid, std::string tag1 = "starred", uint8_t decimals = 0) {
    Review r;
    r.agent = agent_index;
    r.client = client;
    r.value = Int256(value);
    r.value_decimals = decimals;
    r.tag1 = std::move(tag1);
    r.timestamp = kNow - age_days * kDay;
    r.payment_verified = paid;
    return r;
}

TrustConfig config() {
    TrustConfig c;
    c.now = kNow;
    return c;
}

TEST(trust_score, values_with_different_decimals_normalize_exactly) {
    EXPECT_EQ(to_double(Int256(5), 0), to_double(Int256(500), 2));
    EXPECT_EQ(to_double(*Int256::parse("5000000000000000000"), 18), 5.0);
    EXPECT_EQ(to_double(Int256(9977), 2), 99.77);
    EXPECT_EQ(to_double(Int256(-32), 1), -3.2);
    EXPECT_EQ(rating_of(Int256(9977), 2, "uptime"), 0.9977);
    EXPECT_EQ(rating_of(Int256(87), 0, "starred"), 0.87);
    EXPECT_EQ(rating_of(Int256(1), 0, "reachable"), 1.0);
    EXPECT_EQ(rating_of(Int256(0), 0, "ownerVerified"), 0.0);
    EXPECT_FALSE(rating_of(Int256(560), 0, "responseTime").has_value());
    EXPECT_FALSE(rating_of(Int256(-32), 1, "tradingYield").has_value());
    EXPECT_EQ(rating_of(Int256(42), 0, ""), 0.42);
    EXPECT_FALSE(rating_of(Int256(420), 0, "custom").has_value());  // not a 0..100 score
    EXPECT_EQ(rating_of(Int256(250), 0, "starred"), 1.0);           // clamped
}

// A Sybil cluster (fresh addresses, no payments, reviewing one agent) is visibly
// discounted. Honest reviewers are old, paid, and review many agents.
TEST(trust_score, sybil_cluster_is_discounted) {
    TrustInputs in;
    for (uint32_t a = 0; a < 6; ++a) in.agents.push_back(agent(a));
    for (uint32_t c = 0; c < 10; ++c) {
        for (uint32_t a = 2; a < 6; ++a) in.reviews.push_back(review(a, addr(c), 70, 60, true));
        in.reviews.push_back(review(0, addr(c), 90, 60, true));  // agent 0: good
        in.reviews.push_back(review(1, addr(c), 20, 60, true));  // agent 1: bad ...
    }
    for (uint32_t s = 0; s < 40; ++s) {
        in.reviews.push_back(review(1, addr(1000 + s), 100, 1, false));  // ... boosted by Sybils
    }
    const TrustResult result = compute_trust(in, config());
    const AgentScore& good = result.agents[0];
    const AgentScore& boosted = result.agents[1];
    EXPECT_GT(good.score, 0.8);
    // The unweighted mean of agent 1's ratings is (10 x 0.2 + 40 x 1.0) / 50 = 0.84.
    EXPECT_LT(boosted.score, 0.45);
    EXPECT_LT(boosted.score, good.score);

    double sybil_share = 0;
    for (const Contribution& c : boosted.contributions) {
        const bool sybil = c.client.bytes[16] == 0 && c.client.bytes[18] >= 0x03;  // >= 1000
        if (!sybil) {
            EXPECT_TRUE(c.discounts.empty()) << c.client.to_lower_hex();
            continue;
        }
        sybil_share += c.share;
        for (Discount d : {Discount::no_verified_payment, Discount::new_reviewer,
                           Discount::narrow_spread, Discount::no_standing, Discount::pooled}) {
            EXPECT_NE(std::find(c.discounts.begin(), c.discounts.end(), d), c.discounts.end())
                << to_string(d);
        }
    }
    EXPECT_LT(sybil_share, 0.25);
    const ReviewerWeight& honest = result.reviewers.at(addr(0));
    const ReviewerWeight& sybil = result.reviewers.at(addr(1000));
    EXPECT_EQ(honest.weight, 1.0);
    EXPECT_LT(sybil.weight, 0.1);
    EXPECT_EQ(sybil.standing, 0.0);
}

TEST(trust_score, trusted_seed_set_gives_standing_through_the_graph) {
    TrustInputs in;
    in.agents.push_back(agent(0));
    in.agents.push_back(agent(1));
    // The seed rates agent 0 well; agent 0's owner reviews agent 1: it inherits standing.
    in.reviews.push_back(review(0, addr(1), 95, 1, false));
    in.reviews.push_back(review(1, in.agents[0].owner, 90, 1, false));
    in.reviews.push_back(review(1, addr(2), 90, 1, false));  // unconnected
    TrustConfig c = config();
    c.trusted = {addr(1)};
    const TrustResult result = compute_trust(in, c);
    EXPECT_EQ(result.reviewers.at(addr(1)).standing, 1.0);
    EXPECT_GT(result.reviewers.at(in.agents[0].owner).standing, 0.3);
    EXPECT_EQ(result.reviewers.at(addr(2)).standing, 0.0);
}

TEST(trust_score, old_ratings_decay) {
    TrustInputs in;
    in.agents.push_back(agent(0));
    for (uint32_t c = 0; c < 5; ++c) {
        in.reviews.push_back(review(0, addr(c), 0, 720, true));  // two years ago: bad
        in.reviews.push_back(review(0, addr(c), 100, 1, true));  // now: good
    }
    EXPECT_GT(compute_trust(in, config()).agents[0].score, 0.75);
    TrustConfig no_decay = config();
    no_decay.half_life_seconds = 0;
    EXPECT_NEAR(compute_trust(in, no_decay).agents[0].score, 0.5, 1e-9);
}

TEST(trust_score, interval_narrows_with_evidence_and_contains_the_score) {
    TrustInputs few, many;
    few.agents.push_back(agent(0));
    many.agents.push_back(agent(0));
    for (uint32_t c = 0; c < 3; ++c) few.reviews.push_back(review(0, addr(c), 80, 40, true));
    for (uint32_t c = 0; c < 60; ++c) many.reviews.push_back(review(0, addr(c), 80, 40, true));
    const AgentScore a = compute_trust(few, config()).agents[0];
    const AgentScore b = compute_trust(many, config()).agents[0];
    EXPECT_LE(a.low, a.score);
    EXPECT_GE(a.high, a.score);
    EXPECT_LT(b.high - b.low, (a.high - a.low) / 2);
    EXPECT_NEAR(b.score, 0.8, 0.02);
    EXPECT_GT(b.effective_reviewers, 50.0);
}

TEST(trust_score, per_tag_scores_keep_measures_out_of_the_overall_score) {
    TrustInputs in;
    in.agents.push_back(agent(0));
    for (uint32_t c = 0; c < 4; ++c) {
        in.reviews.push_back(review(0, addr(c), 9977, 40, true, "uptime", 2));
        in.reviews.push_back(review(0, addr(c), 400 + 100 * c, 40, true, "responseTime"));
    }
    const AgentScore s = compute_trust(in, config()).agents[0];
    ASSERT_EQ(s.tags.size(), 2U);
    const auto uptime = std::find_if(s.tags.begin(), s.tags.end(),
                                     [](const TagScore& t) { return t.tag == "uptime"; });
    const auto latency = std::find_if(s.tags.begin(), s.tags.end(),
                                      [](const TagScore& t) { return t.tag == "responseTime"; });
    ASSERT_NE(uptime, s.tags.end());
    ASSERT_NE(latency, s.tags.end());
    EXPECT_TRUE(uptime->is_rating);
    EXPECT_FALSE(latency->is_rating);
    EXPECT_NEAR(latency->score, 550.0, 1e-9);  // mean of 400, 500, 600, 700 ms
    EXPECT_LT(latency->low, 550.0);
    // Only uptime counts: Beta(1, 1) plus four ratings of 0.9977 at weight 2^(-40/90).
    const double w = std::exp2(-40.0 / 90.0);
    EXPECT_NEAR(s.score, (1.0 + 4 * w * 0.9977) / (2.0 + 4 * w), 1e-12);
    EXPECT_NEAR(s.evidence, 4.0 * w, 1e-9);
}

TEST(trust_score, validations_and_verified_domain_are_agent_side_evidence) {
    TrustInputs in;
    in.agents.push_back(agent(0));
    in.agents.push_back(agent(1));
    in.agents[0].validations = {{addr(50), 100}, {addr(51), 90}};
    in.agents[1].validations = {{addr(50), 0}};
    const TrustResult plain = compute_trust(in, config());
    EXPECT_GT(plain.agents[0].score, 0.7);
    EXPECT_LT(plain.agents[1].score, 0.4);
    EXPECT_EQ(plain.agents[0].validation_evidence, 2.0);
    in.agents[1].domain_verified = true;
    EXPECT_GT(compute_trust(in, config()).agents[1].score, plain.agents[1].score);
}

TEST(trust_score, revoked_feedback_is_explained_but_not_counted) {
    TrustInputs in;
    in.agents.push_back(agent(0));
    in.reviews.push_back(review(0, addr(1), 0, 40, true));
    in.reviews.back().revoked = true;
    const AgentScore s = compute_trust(in, config()).agents[0];
    EXPECT_EQ(s.reviews, 0U);
    EXPECT_EQ(s.score, 0.5);
    ASSERT_EQ(s.contributions.size(), 1U);
    EXPECT_EQ(s.contributions[0].weight, 0.0);
    EXPECT_EQ(s.contributions[0].discounts.front(), Discount::revoked);
}

// Updates are incremental. Rescoring one agent with the last pass's weights gives
// the full pass's answer, and new feedback moves only that agent.
TEST(trust_score, incremental_rescore_matches_the_full_pass) {
    TrustInputs in;
    for (uint32_t a = 0; a < 3; ++a) in.agents.push_back(agent(a));
    for (uint32_t c = 0; c < 8; ++c) {
        for (uint32_t a = 0; a < 3; ++a) {
            in.reviews.push_back(review(a, addr(c), 30 + 20 * a + c, 10 + c, c % 2 == 0));
        }
    }
    const TrustResult full = compute_trust(in, config());
    for (uint32_t a = 0; a < 3; ++a) {
        const AgentScore one = score_agent(in, a, full.reviewers, config());
        EXPECT_DOUBLE_EQ(one.score, full.agents[a].score);
        EXPECT_DOUBLE_EQ(one.low, full.agents[a].low);
    }
    in.reviews.push_back(review(2, addr(3), 0, 0, true));
    EXPECT_LT(score_agent(in, 2, full.reviewers, config()).score, full.agents[2].score);
    EXPECT_DOUBLE_EQ(score_agent(in, 1, full.reviewers, config()).score, full.agents[1].score);
}

}  // namespace
}  // namespace credence::trust
