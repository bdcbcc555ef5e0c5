// The getSummary mirrors: the rules of ERC-8004 §Reputation Registry / §Validation Registry on
// hand-made rows, then the mirror against the contract's own answer (eth_call) on a devnet whose
// feedback and validations were indexed by the real indexer (docs/architecture.md §trust/).
#include <credence/trust/summary.hpp>

#include <credence/trust/score_index.hpp>

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include <credence/chain/bindings/identity_registry.hpp>
#include <credence/chain/bindings/reputation_registry.hpp>
#include <credence/chain/bindings/validation_registry.hpp>
#include <credence/chain/txn_sender.hpp>
#include <credence/index/indexer.hpp>
#include <credence/index/sources.hpp>
#include <credence/index/verification_table.hpp>

#include "support/devnet.hpp"
#include "support/scratch.hpp"

namespace credence::trust {
namespace {

using core::Int256;
constexpr SummaryRules kCredence = SummaryRules::credence;
constexpr SummaryRules kV2 = SummaryRules::erc8004_v2;

core::Address summary_addr(uint8_t fill) {
    core::Address a;
    a.bytes.fill(fill);
    return a;
}

FeedbackEntry fb(uint8_t client, int64_t value, uint8_t decimals, std::string tag1 = "",
                 std::string tag2 = "", bool revoked = false) {
    return FeedbackEntry{summary_addr(client), 1,      Int256(value), decimals, std::move(tag1),
                         std::move(tag2),      revoked};
}

TEST(trust_summary, client_list_is_required) {
    const std::vector<FeedbackEntry> rows{fb(1, 5, 0)};
    auto r = reputation_summary(rows, {}, "", "", kCredence);
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().code, SummaryError::client_addresses_required);
}

TEST(trust_summary, revoked_and_unlisted_clients_do_not_count_and_credence_counts_a_repeat_once) {
    const std::vector<FeedbackEntry> rows{fb(1, 80, 0), fb(1, 10, 0, "", "", true), fb(2, 60, 0),
                                          fb(3, 0, 0)};
    const std::vector<core::Address> clients{summary_addr(1), summary_addr(2), summary_addr(1)};
    auto r = reputation_summary(rows, clients, "", "", kCredence);
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->count, 2U);
    EXPECT_EQ(r->summary_value, Int256(70));
    EXPECT_EQ(r->summary_value_decimals, 0);
}

// The deployed v2.0.0 registries loop over the list as given: a client listed twice has its
// feedback counted twice (docs/compatibility.md §Defects of the deployed registries that we fix).
TEST(trust_summary, deployed_v2_rules_count_a_repeated_client_again) {
    const std::vector<FeedbackEntry> rows{fb(1, 80, 0), fb(1, 10, 0, "", "", true), fb(2, 60, 0),
                                          fb(3, 0, 0)};
    const std::vector<core::Address> clients{summary_addr(1), summary_addr(2), summary_addr(1)};
    auto r = reputation_summary(rows, clients, "", "", kV2);
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->count, 3U);
    EXPECT_EQ(r->summary_value, Int256(73));  // (80 + 60 + 80) / 3, truncated
    EXPECT_EQ(r->summary_value_decimals, 0);
    // Without a repeat both rules agree.
    const std::vector<core::Address> once{summary_addr(1), summary_addr(2)};
    EXPECT_EQ(reputation_summary(rows, once, "", "", kV2).value(),
              reputation_summary(rows, once, "", "", kCredence).value());
    // The mode counts repeats too: 2 x (1 at 2 decimals) beats 1 x (5 at 0 decimals).
    const std::vector<FeedbackEntry> mixed{fb(1, 150, 2), fb(2, 5, 0)};
    const std::vector<core::Address> twice1{summary_addr(1), summary_addr(2), summary_addr(1)};
    EXPECT_EQ(reputation_summary(mixed, twice1, "", "", kV2)->summary_value_decimals, 2);
    EXPECT_EQ(reputation_summary(mixed, twice1, "", "", kV2)->summary_value, Int256(266));
    EXPECT_EQ(reputation_summary(mixed, twice1, "", "", kCredence)->summary_value_decimals, 0);
    // "clientAddresses required" in both.
    EXPECT_EQ(reputation_summary(rows, {}, "", "", kV2).error().code,
              SummaryError::client_addresses_required);
}

// An average outside int128: Credence reverts SummaryOverflow(), the deployed v2.0.0 cast wraps.
// 1e38 at 0 decimals and two 0s at 18 decimals: mode 18, average 1e56 / 3 at 18 decimals.
TEST(trust_summary, int128_overflow_reverts_in_credence_and_wraps_in_v2) {
    const Int256 big = Int256::parse("100000000000000000000000000000000000000").value();
    std::vector<FeedbackEntry> rows{fb(1, 0, 18), fb(1, 0, 18)};
    rows.push_back(FeedbackEntry{summary_addr(1), 3, big, 0, "", "", false});
    const std::vector<core::Address> clients{summary_addr(1)};
    auto credence = reputation_summary(rows, clients, "", "", kCredence);
    ASSERT_FALSE(credence.has_value());
    EXPECT_EQ(credence.error().code, SummaryError::summary_overflow);
    auto v2 = reputation_summary(rows, clients, "", "", kV2);
    ASSERT_TRUE(v2.has_value());
    EXPECT_EQ(v2->count, 3U);
    EXPECT_EQ(v2->summary_value_decimals, 18);
    // int128(33333333333333333333333333333333333333333333333333333333): the low 128 bits.
    EXPECT_EQ(v2->summary_value.to_dec(), "-886533759346574857640019685980940971");
}

// Which rules an address follows: the deployed registries by their vanity addresses.
TEST(trust_summary, known_rules_by_address) {
    const auto mainnet = core::Address::from_hex("0x8004BAa17C55a88189AE136b182e5fdA19dE9b63");
    const auto testnet = core::Address::from_hex("0x8004B663056A597Dffe9eCcC1965A193B7388713");
    ASSERT_TRUE(mainnet && testnet);
    EXPECT_EQ(known_summary_rules(1, *mainnet), kV2);
    EXPECT_EQ(known_summary_rules(8453, *mainnet), kV2);
    EXPECT_EQ(known_summary_rules(11155111, *testnet), kV2);
    EXPECT_EQ(known_summary_rules(1, *testnet), std::nullopt);  // the testnet set on a mainnet
    EXPECT_EQ(known_summary_rules(31337, *mainnet), std::nullopt);
    EXPECT_EQ(parse_summary_rules("erc8004-v2"), kV2);
    EXPECT_EQ(parse_summary_rules(to_string(kCredence)), kCredence);
    EXPECT_EQ(parse_summary_rules("v2"), std::nullopt);
}

TEST(trust_summary, tags_filter_by_exact_match_each_when_given) {
    const std::vector<FeedbackEntry> rows{fb(1, 10, 0, "quality", "speed"),
                                          fb(1, 20, 0, "quality", "cost"), fb(1, 90, 0, "uptime")};
    const std::vector<core::Address> clients{summary_addr(1)};
    EXPECT_EQ(reputation_summary(rows, clients, "quality", "", kCredence)->count, 2U);
    EXPECT_EQ(reputation_summary(rows, clients, "quality", "cost", kCredence)->summary_value,
              Int256(20));
    EXPECT_EQ(reputation_summary(rows, clients, "", "speed", kCredence)->count, 1U);
    EXPECT_EQ(reputation_summary(rows, clients, "Quality", "", kCredence)->count, 0U);
}

// Values are averaged at 18 decimals and returned at the most common valueDecimals; the smallest
// wins a tie. 9977/2 (99.77) and 5/0 (5): mean 52.385 -> at 0 decimals 52.
TEST(trust_summary, mixed_decimals_average_at_the_mode_with_truncation_toward_zero) {
    const std::vector<core::Address> clients{summary_addr(1)};
    const std::vector<FeedbackEntry> tie{fb(1, 9977, 2), fb(1, 5, 0)};
    auto r = reputation_summary(tie, clients, "", "", kCredence);
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->summary_value_decimals, 0);
    EXPECT_EQ(r->summary_value, Int256(52));
    const std::vector<FeedbackEntry> two_dec{fb(1, 9977, 2), fb(1, 5, 0), fb(1, 1, 2)};
    r = reputation_summary(two_dec, clients, "", "", kCredence);
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->summary_value_decimals, 2);
    EXPECT_EQ(r->summary_value, Int256(3492));  // (99.77 + 5 + 0.01) / 3 = 34.926666...
    const std::vector<FeedbackEntry> negative{fb(1, -7, 0), fb(1, 0, 0)};
    r = reputation_summary(negative, clients, "", "", kCredence);
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->summary_value, Int256(-3));  // -3.5 truncates toward zero
}

TEST(trust_summary, validation_summary_counts_responses_only) {
    const std::vector<ValidationEntry> rows{{summary_addr(1), true, 90, "hard"},
                                            {summary_addr(2), true, 45, "soft"},
                                            {summary_addr(1), false, 0, ""},
                                            {summary_addr(3), true, 100, "hard"}};
    EXPECT_EQ(validation_summary(rows, {}, ""), (ValidationSummary{3, 78}));
    const std::vector<core::Address> only1{summary_addr(1)};
    EXPECT_EQ(validation_summary(rows, only1, ""), (ValidationSummary{1, 90}));
    EXPECT_EQ(validation_summary(rows, {}, "hard"), (ValidationSummary{2, 95}));
    EXPECT_EQ(validation_summary(rows, {}, "none"), (ValidationSummary{0, 0}));
}

namespace ir = chain::bindings::identity_registry;
namespace rr = chain::bindings::reputation_registry;
namespace vr = chain::bindings::validation_registry;

class trust_summary_devnet : public testing::DevnetFixture {};

// The mirror equals eth_call getSummary for random client subsets and tag filters.
TEST_F(trust_summary_devnet, mirror_equals_the_contract) {
    chain::RpcClient rpc = devnet().rpc();
    chain::SenderOptions options;
    options.poll_interval = std::chrono::milliseconds(5);
    std::vector<core::SecretKey> keys;  // TxnSender borrows its key
    for (size_t i = 0; i < 10; ++i) keys.push_back(devnet().secret_key(i));
    auto send = [&](size_t account, const core::Address& to, core::Bytes data) {
        chain::TxnSender sender(rpc, keys[account], options);
        auto r = sender.send({to, std::move(data), {}, {}, {}});
        ASSERT_TRUE(r) << r.error().detail;
    };
    const core::Address identity = devnet().address("IdentityRegistry");
    const core::Address reputation = devnet().address("ReputationRegistry");
    const core::Address validation = devnet().address("ValidationRegistry");
    send(1, identity, ir::register_1("https://agent.example/a.json").value());  // agent 0
    const core::Uint256 agent{0};

    std::mt19937 rng(8004);
    const std::vector<std::string> tags{"", "quality", "speed"};
    std::vector<core::Address> clients;
    for (size_t c = 2; c <= 7; ++c) {
        clients.push_back(devnet().dev_address(c));
        for (int f = 0; f < 3; ++f) {
            const auto decimals = static_cast<uint64_t>(rng() % 4);
            const auto value = static_cast<int64_t>(rng() % 20001) - 10000;
            send(c, reputation,
                 rr::give_feedback(agent, Int256(value), decimals, tags[rng() % 3], tags[rng() % 3],
                                   "", "", core::Hash32{})
                     .value());
        }
        if (c % 2 == 0) send(c, reputation, rr::revoke_feedback(agent, 2).value());
    }
    // Validations: the owner asks validators 8 and 9; 8 answers twice (progressive), 9 once.
    for (size_t v = 8; v <= 9; ++v) {
        for (uint8_t n = 1; n <= 2; ++n) {
            core::Hash32 request{};
            request[0] = static_cast<uint8_t>(v);
            request[1] = n;
            send(1, validation,
                 vr::validation_request(devnet().dev_address(v), agent, "", request).value());
            send(v, validation,
                 vr::validation_response(request, 40 + v * n, "", core::Hash32{},
                                         n == 1 ? "soft" : "hard")
                     .value());
        }
    }

    auto db = index::open_sqlite(testing::scratch_dir() / "trust_summary.sqlite");
    ASSERT_TRUE(db) << db.error().to_string();
    index::IndexerOptions io;
    io.chain_id = devnet().chain_id();
    io.sources = index::sources_from_deployment(devnet().deployment());
    index::Indexer indexer(io, devnet().rpc(), **db);
    ASSERT_TRUE(indexer.start());
    ASSERT_TRUE(indexer.run(std::stop_token{}, false, std::chrono::milliseconds(10),
                            [](const index::StepReport&) {}));

    const core::Bytes agent_key(32, 0);
    auto rows = load_feedback(**db, devnet().chain_id(), reputation, agent_key);
    ASSERT_TRUE(rows) << rows.error().to_string();
    ASSERT_EQ(rows->size(), 18U);
    int compared = 0;
    int nonzero = 0;
    for (int trial = 0; trial < 40; ++trial) {
        std::vector<core::Address> subset;
        for (const auto& c : clients) {
            if (rng() % 2 == 0) subset.push_back(c);
        }
        if (subset.empty()) subset.push_back(clients[static_cast<size_t>(trial) % clients.size()]);
        if (trial % 5 == 0) subset.push_back(subset.front());  // a duplicate
        const std::string& t1 = tags[rng() % 3];
        const std::string& t2 = tags[rng() % 3];
        auto onchain =
            rpc.call({{}, reputation, rr::get_summary(agent, subset, t1, t2).value(), {}, {}});
        ASSERT_TRUE(onchain) << onchain.error().message;
        auto expected = rr::decode_get_summary_result(*onchain);
        ASSERT_TRUE(expected);
        auto mirror = reputation_summary(*rows, subset, t1, t2, kCredence);
        ASSERT_TRUE(mirror) << mirror.error().detail;
        EXPECT_EQ(mirror->count, expected->count);
        EXPECT_EQ(mirror->summary_value, expected->summary_value) << mirror->summary_value.to_dec();
        EXPECT_EQ(mirror->summary_value_decimals, expected->summary_value_decimals);
        ++compared;
        if (expected->count > 0) ++nonzero;
    }
    EXPECT_EQ(compared, 40);
    EXPECT_GE(nonzero, 10);  // the comparisons are not all of empty selections

    auto vrows = load_validations(**db, devnet().chain_id(), validation, agent_key);
    ASSERT_TRUE(vrows) << vrows.error().to_string();
    ASSERT_EQ(vrows->size(), 4U);
    const std::vector<std::vector<core::Address>> validator_sets{
        {}, {devnet().dev_address(8)}, {devnet().dev_address(9), devnet().dev_address(3)}};
    for (const auto& set : validator_sets) {
        for (std::string tag : {"", "soft", "hard", "other"}) {
            auto onchain =
                rpc.call({{}, validation, vr::get_summary(agent, set, tag).value(), {}, {}});
            ASSERT_TRUE(onchain) << onchain.error().message;
            auto expected = vr::decode_get_summary_result(*onchain);
            ASSERT_TRUE(expected);
            const auto mirror = validation_summary(*vrows, set, tag);
            EXPECT_EQ(mirror.count, expected->count) << tag;
            EXPECT_EQ(mirror.average_response, expected->average_response) << tag;
        }
    }

    // The trust engine's graph from the same index, with two checks written the way the
    // reverifier writes them (index/verification_table.hpp): client 3's first feedback paid, the
    // agent's domain verified.
    const auto save_check = [&](index::VerificationSubject subject, index::VerificationFlag flag) {
        index::VerificationRecord rec;
        rec.subject = std::move(subject);
        rec.status = index::VerificationStatus::verified;
        rec.flags = flag;
        rec.report_json = "{}";
        auto saved = index::save_verification(**db, devnet().chain_id(), rec);
        ASSERT_TRUE(saved) << saved.error().to_string();
    };
    save_check({index::SubjectKind::feedback, reputation, agent_key, clients[1], 1},
               index::VerificationFlag::payment_verified);
    save_check({index::SubjectKind::agent, identity, agent_key, {}, 0},
               index::VerificationFlag::domain_verified);
    TrustSources sources{devnet().chain_id(), identity, reputation, validation, 1000,
                         1'800'000'000,       12.0};
    auto inputs = load_trust_inputs(**db, sources);
    ASSERT_TRUE(inputs) << inputs.error().to_string();
    ASSERT_EQ(inputs->agents.size(), 1U);
    EXPECT_EQ(inputs->agents[0].owner, devnet().dev_address(1));
    EXPECT_TRUE(inputs->agents[0].domain_verified);
    EXPECT_EQ(inputs->agents[0].validations.size(), 4U);
    ASSERT_EQ(inputs->reviews.size(), 18U);
    size_t revoked = 0, verified_payments = 0;
    for (const Review& r : inputs->reviews) {
        revoked += r.revoked ? 1 : 0;
        verified_payments += r.payment_verified ? 1 : 0;
        EXPECT_LE(r.timestamp, sources.now);
        EXPECT_GT(r.timestamp, sources.now - 1000 * 12);
    }
    EXPECT_EQ(revoked, 3U);            // clients 2, 4 and 6 revoked their second feedback
    EXPECT_EQ(verified_payments, 1U);  // client 3's first feedback
    TrustConfig config;
    config.now = sources.now;
    const TrustResult trust = compute_trust(*inputs, config);
    ASSERT_EQ(trust.agents.size(), 1U);
    EXPECT_EQ(trust.agents[0].reviews, 15U);
}

}  // namespace
}  // namespace credence::trust
