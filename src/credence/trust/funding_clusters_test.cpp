// Funding-aware clusters (trust/funding_clusters.hpp, docs/trust.md §Funding): Sybils funded from
// one source are one voice, reviewers funded by the agent's owner count for nothing, and an
// exchange that funds many unrelated reviewers clusters nobody.
#include <credence/trust/funding_clusters.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

// A named namespace: unity builds put this file beside score_test.cpp's helpers.
namespace credence::trust::funding_test {
namespace {

constexpr int64_t kFundingDay = 86'400;
constexpr int64_t kFundingNow = 1'800'000'000;

core::Address funding_addr(uint32_t space, uint32_t n) {
    core::Address a;
    a.bytes[0] = static_cast<uint8_t>(space);
    for (size_t i = 0; i < 4; ++i) a.bytes[19 - i] = static_cast<uint8_t>(n >> (8 * i));
    return a;
}
core::Address honest(uint32_t n) { return funding_addr(0xA1, n); }
core::Address sybil(uint32_t n) { return funding_addr(0x5B, n); }
const core::Address kExchange = funding_addr(0xEE, 1);
const core::Address kAttacker = funding_addr(0xBA, 1);

Review rate(uint32_t agent, const core::Address& client, int64_t value, bool paid,
            int64_t age_days) {
    Review r;
    r.agent = agent;
    r.client = client;
    r.value = core::Int256(value);
    r.tag1 = "starred";
    r.timestamp = kFundingNow - age_days * kFundingDay;
    r.payment_verified = paid;
    return r;
}

TrustConfig funding_config() {
    TrustConfig c;
    c.now = kFundingNow;
    return c;
}

// Eight agents; 24 honest clients funded by an exchange (which funds them all), each rating
// three agents and every fourth also the target (agent 0) low, paid. The demo's shape.
TrustInputs honest_world() {
    TrustInputs in;
    for (uint32_t a = 0; a < 8; ++a) {
        AgentFacts f;
        f.agent_id = core::Bytes(32, 0);
        f.agent_id.back() = static_cast<uint8_t>(a);
        f.owner = funding_addr(0x0A, a);
        in.agents.push_back(f);
    }
    for (uint32_t j = 0; j < 24; ++j) {
        for (uint32_t k = 0; k < 3; ++k)
            in.reviews.push_back(rate(1 + (j + 3 * k) % 7, honest(j), 80, true, 60));
        if (j % 4 == 0) in.reviews.push_back(rate(0, honest(j), 15, true, 60));
        in.fundings.push_back({honest(j), kExchange});
    }
    return in;
}

double target_score(const TrustInputs& in) {
    return compute_trust(in, funding_config()).agents[0].score;
}

TEST(trust_funding, an_exchange_that_funds_unrelated_reviewers_is_a_hub) {
    const TrustInputs in = honest_world();
    EXPECT_TRUE(is_funding_hub(in, funding_config(), kExchange));
    const FundingClusters clusters = funding_clusters(in, funding_config());
    ASSERT_EQ(clusters.size(), 24U);
    for (const auto& [reviewer, c] : clusters) {
        EXPECT_EQ(c.funder, kExchange);
        EXPECT_FALSE(c.key.has_value());  // no cluster: the exchange is a hub
    }
    // With the hub, the scores are those of a world with no funding evidence at all.
    TrustInputs bare = in;
    bare.fundings.clear();
    EXPECT_DOUBLE_EQ(target_score(in), target_score(bare));
}

// A single-funder Sybil cluster rating the target 100, at sizes 10, 100 and 1,000: with funding
// evidence the target stays within 5 points of its honest-only score.
TEST(trust_funding, a_single_funder_cluster_is_one_voice_at_every_size) {
    const double honest_only = target_score(honest_world());
    for (const uint32_t size : {10U, 100U, 1'000U}) {
        TrustInputs in = honest_world();
        for (uint32_t s = 0; s < size; ++s) {
            in.reviews.push_back(rate(0, sybil(s), 100, false, 1));
            in.fundings.push_back({sybil(s), kAttacker});
        }
        in.fundings.push_back({kAttacker, kExchange});  // the attacker withdrew from the exchange
        EXPECT_FALSE(is_funding_hub(in, funding_config(), kAttacker));
        // Without the funding evidence the unvouched pool alone lets the cluster move the target.
        TrustInputs blind = in;
        blind.fundings.clear();
        EXPECT_GT(std::abs(target_score(blind) - honest_only) * 100, 5.0) << size;
        const TrustResult r = compute_trust(in, funding_config());
        EXPECT_LE(std::abs(r.agents[0].score - honest_only) * 100, 5.0)
            << size << " Sybils: " << r.agents[0].score << " vs " << honest_only;
        // The explanation names the cluster and the funding path.
        const auto sybil_vote =
            std::find_if(r.agents[0].contributions.begin(), r.agents[0].contributions.end(),
                         [](const Contribution& c) { return c.client == sybil(0); });
        ASSERT_NE(sybil_vote, r.agents[0].contributions.end());
        EXPECT_EQ(sybil_vote->cluster, kAttacker);
        EXPECT_EQ(sybil_vote->funding_path, std::vector<core::Address>{kAttacker});
        EXPECT_NE(std::find(sybil_vote->discounts.begin(), sybil_vote->discounts.end(),
                            Discount::clustered),
                  sybil_vote->discounts.end());
    }
}

// Sybils that "pay" the owner with money the owner gave them: the payment goes round in a
// circle, and a reviewer funded by the owner speaks for the owner. They count for nothing.
TEST(trust_funding, reviewers_funded_by_the_owner_count_for_nothing) {
    const double honest_only = target_score(honest_world());
    TrustInputs in = honest_world();
    const core::Address owner = in.agents[0].owner;
    for (uint32_t s = 0; s < 50; ++s) {
        in.reviews.push_back(rate(0, sybil(s), 100, /*paid=*/true, 10));
        in.fundings.push_back({sybil(s), owner});
    }
    const TrustResult r = compute_trust(in, funding_config());
    EXPECT_NEAR(r.agents[0].score, honest_only, 0.01);
    for (const Contribution& c : r.agents[0].contributions) {
        if (c.client != sybil(7)) continue;
        EXPECT_EQ(c.weight, 0.0);
        EXPECT_EQ(c.funding_path, std::vector<core::Address>{owner});
        EXPECT_NE(std::find(c.discounts.begin(), c.discounts.end(), Discount::funded_by_owner),
                  c.discounts.end());
    }
}

// Slow drip: twenty intermediate funders, each funded from one root, each funding five Sybils
// over many blocks. The root is their common key: one cluster, one voice.
TEST(trust_funding, slow_drip_funders_share_their_root) {
    const double honest_only = target_score(honest_world());
    TrustInputs in = honest_world();
    const core::Address root = funding_addr(0xBB, 0);
    for (uint32_t f = 0; f < 20; ++f) {
        const core::Address funder = funding_addr(0xBC, f);
        in.fundings.push_back({funder, root});
        for (uint32_t s = 0; s < 5; ++s) {
            const core::Address who = sybil(f * 5 + s);
            in.reviews.push_back(rate(0, who, 100, false, static_cast<int64_t>(f)));
            in.fundings.push_back({who, funder});
        }
    }
    const FundingClusters clusters = funding_clusters(in, funding_config());
    EXPECT_EQ(clusters.at(sybil(0)).key, root);
    EXPECT_EQ(clusters.at(sybil(99)).key, root);
    EXPECT_EQ(clusters.at(sybil(99)).path,
              (std::vector<core::Address>{funding_addr(0xBC, 19), root}));
    EXPECT_LE(std::abs(target_score(in) - honest_only) * 100, 5.0);
}

// Funding cycles (A funded B, B funded A) and long chains end at funding_depth.
TEST(trust_funding, cycles_and_long_chains_are_bounded) {
    TrustInputs in = honest_world();
    const core::Address a = funding_addr(0xC1, 1), b = funding_addr(0xC1, 2);
    in.fundings.push_back({a, b});
    in.fundings.push_back({b, a});
    in.reviews.push_back(rate(0, sybil(1), 100, false, 1));
    in.fundings.push_back({sybil(1), a});
    for (uint32_t i = 0; i < 100; ++i) {
        in.fundings.push_back({funding_addr(0xC2, i), funding_addr(0xC2, i + 1)});
    }
    in.reviews.push_back(rate(0, sybil(2), 100, false, 1));
    in.fundings.push_back({sybil(2), funding_addr(0xC2, 0)});
    const FundingClusters clusters = funding_clusters(in, funding_config());
    EXPECT_EQ(clusters.at(sybil(1)).path, (std::vector<core::Address>{a, b}));
    EXPECT_EQ(clusters.at(sybil(2)).path.size(), funding_config().funding_depth);
}

}  // namespace
}  // namespace credence::trust::funding_test
