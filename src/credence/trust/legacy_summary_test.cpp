// The intermediate revision's getSummary mirror (legacy_summary.hpp): rules on hand-made rows,
// then the mirror against ScoreReputationRegistry's and ScoreValidationRegistry's own answers
// (eth_call) on a devnet with every revision deployed, over the rows the indexer projected.
#include <credence/trust/legacy_summary.hpp>

#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include <credence/chain/bindings/score_identity_registry.hpp>
#include <credence/chain/bindings/score_reputation_registry.hpp>
#include <credence/chain/bindings/score_validation_registry.hpp>
#include <credence/index/indexer.hpp>
#include <credence/index/sources.hpp>
#include <credence/trust/summary.hpp>

#include "support/devnet.hpp"
#include "support/scratch.hpp"

namespace credence::trust {
namespace {

core::Address score_client(uint8_t fill) {
    core::Address a;
    a.bytes.fill(fill);
    return a;
}

index::FeedbackEntry scored(uint8_t client, int64_t score, std::string tag1 = "",
                            std::string tag2 = "", bool revoked = false) {
    return index::FeedbackEntry{
        score_client(client), 1, core::Int256(score), 0, std::move(tag1), std::move(tag2), revoked};
}

TEST(trust_score_summary, empty_client_list_reads_every_client_and_truncates_the_mean) {
    const std::vector<index::FeedbackEntry> rows{scored(1, 80), scored(2, 75), scored(1, 1),
                                                 scored(3, 0, "", "", true)};
    auto r = score_summary(rows, {}, "", "");
    ASSERT_TRUE(r) << r.error().detail;
    EXPECT_EQ(r->count, 3U);
    EXPECT_EQ(r->average_score, 52);  // 156 / 3 = 52, truncated
}

TEST(trust_score_summary, a_listed_client_counts_once_per_listing) {
    const std::vector<index::FeedbackEntry> rows{scored(1, 90), scored(2, 30)};
    const std::vector<core::Address> twice{score_client(1), score_client(1), score_client(2)};
    auto r = score_summary(rows, twice, "", "");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->count, 3U);
    EXPECT_EQ(r->average_score, 70);
}

TEST(trust_score_summary, tags_filter_by_exact_match_and_nothing_selected_is_zero) {
    const std::vector<index::FeedbackEntry> rows{scored(1, 90, "quality", "fast"),
                                                 scored(1, 20, "quality", ""),
                                                 scored(2, 50, "Quality", "fast")};
    auto q = score_summary(rows, {}, "quality", "");
    ASSERT_TRUE(q);
    EXPECT_EQ(q->count, 2U);
    EXPECT_EQ(q->average_score, 55);
    auto both = score_summary(rows, {}, "quality", "fast");
    ASSERT_TRUE(both);
    EXPECT_EQ(both->count, 1U);
    auto none = score_summary(rows, {}, "speed", "");
    ASSERT_TRUE(none);
    EXPECT_EQ(*none, ScoreSummary{});
}

TEST(trust_score_summary, a_row_that_is_no_score_is_refused) {
    auto over = score_summary(std::vector{scored(1, 101)}, {}, "", "");
    ASSERT_FALSE(over);
    EXPECT_EQ(over.error().code, ScoreSummaryError::not_a_score);
    auto decimals = std::vector{scored(1, 50)};
    decimals[0].value_decimals = 2;
    EXPECT_FALSE(score_summary(decimals, {}, "", ""));
    EXPECT_FALSE(score_summary(std::vector{scored(1, -1)}, {}, "", ""));
}

namespace sid = chain::bindings::score_identity_registry;
namespace srep = chain::bindings::score_reputation_registry;
namespace sval = chain::bindings::score_validation_registry;

class trust_score_summary_devnet : public ::testing::Test {
protected:
    void SetUp() override {
        testing::DevnetOptions options;
        options.revisions = chain::DeployRevisions::all;
        auto started = testing::Devnet::start(options);
        ASSERT_TRUE(started) << started.error();
        devnet_ = std::move(*started);
    }
    std::unique_ptr<testing::Devnet> devnet_;
};

TEST_F(trust_score_summary_devnet, mirrors_equal_the_intermediate_contracts) {
    auto& d = *devnet_;
    chain::RpcClient rpc = d.rpc();
    const core::Address identity = d.address("ScoreIdentityRegistry");
    const core::Address reputation = d.address("ScoreReputationRegistry");
    const core::Address validation = d.address("ScoreValidationRegistry");
    d.send(1, identity, sid::register_1("https://agent.example/a.json").value());  // agent 0
    const core::Uint256 agent{0};

    std::mt19937 rng(8004);
    const std::vector<std::string> tags{"", "quality", "speed"};
    std::vector<core::Address> clients;
    for (size_t c = 2; c <= 7; ++c) {
        clients.push_back(d.dev_address(c));
        for (int f = 0; f < 3; ++f) {
            d.send(c, reputation,
                   srep::give_feedback(agent, static_cast<uint8_t>(rng() % 101), tags[rng() % 3],
                                       tags[rng() % 3], "", "", core::Hash32{})
                       .value());
        }
        if (c % 2 == 0) d.send(c, reputation, srep::revoke_feedback(agent, 2).value());
    }
    for (size_t v = 8; v <= 9; ++v) {
        for (uint8_t n = 1; n <= 2; ++n) {
            core::Hash32 request{};
            request[0] = static_cast<uint8_t>(v);
            request[1] = n;
            d.send(1, validation,
                   sval::validation_request(d.dev_address(v), agent, "", request).value());
            d.send(v, validation,
                   sval::validation_response(request, static_cast<uint8_t>(40 + v * n), "",
                                             core::Hash32{}, n == 1 ? "soft" : "hard")
                       .value());
        }
    }

    auto db = index::open_sqlite(testing::scratch_dir() / "trust_score_summary.sqlite");
    ASSERT_TRUE(db) << db.error().to_string();
    index::IndexerOptions io;
    io.chain_id = d.chain_id();
    io.sources = index::sources_from_deployment(d.deployment());
    index::Indexer indexer(io, d.rpc(), **db);
    ASSERT_TRUE(indexer.start());
    ASSERT_TRUE(indexer.run(std::stop_token{}, false, std::chrono::milliseconds(10),
                            [](const index::StepReport&) {}));

    const core::Bytes agent_key(32, 0);
    auto rows = load_feedback(**db, d.chain_id(), reputation, agent_key);
    ASSERT_TRUE(rows) << rows.error().to_string();
    ASSERT_EQ(rows->size(), 18U);
    int nonzero = 0;
    for (int trial = 0; trial < 40; ++trial) {
        std::vector<core::Address> subset;
        // A fifth of the trials ask for every client (the empty list), as the revision allows.
        if (trial % 5 != 1) {
            for (const auto& c : clients) {
                if (rng() % 2 == 0) subset.push_back(c);
            }
            if (subset.empty()) subset.push_back(clients[static_cast<size_t>(trial) % 6]);
            if (trial % 5 == 0) subset.push_back(subset.front());  // a repeat counts again
        }
        const std::string& t1 = tags[rng() % 3];
        const std::string& t2 = tags[rng() % 3];
        auto onchain =
            rpc.call({{}, reputation, srep::get_summary(agent, subset, t1, t2).value(), {}, {}});
        ASSERT_TRUE(onchain) << onchain.error().message;
        auto expected = srep::decode_get_summary_result(*onchain);
        ASSERT_TRUE(expected);
        auto mirror = score_summary(*rows, subset, t1, t2);
        ASSERT_TRUE(mirror) << mirror.error().detail;
        EXPECT_EQ(mirror->count, expected->count) << trial;
        EXPECT_EQ(mirror->average_score, expected->average_score) << trial;
        if (expected->count > 0) ++nonzero;
    }
    EXPECT_GE(nonzero, 10);  // the comparisons are not all of empty selections

    auto vrows = load_validations(**db, d.chain_id(), validation, agent_key);
    ASSERT_TRUE(vrows) << vrows.error().to_string();
    ASSERT_EQ(vrows->size(), 4U);
    const std::vector<std::vector<core::Address>> validator_sets{
        {}, {d.dev_address(8)}, {d.dev_address(9), d.dev_address(3)}};
    for (const auto& set : validator_sets) {
        for (std::string tag : {"", "soft", "hard", "other"}) {
            auto onchain =
                rpc.call({{}, validation, sval::get_summary(agent, set, tag).value(), {}, {}});
            ASSERT_TRUE(onchain) << onchain.error().message;
            auto expected = sval::decode_get_summary_result(*onchain);
            ASSERT_TRUE(expected);
            const auto mirror = validation_summary(*vrows, set, tag);
            EXPECT_EQ(mirror.count, expected->count) << tag;
            EXPECT_EQ(mirror.average_response, expected->average_response) << tag;
        }
    }
}

}  // namespace
}  // namespace credence::trust
