// The feedback table's readers (feedback_table.hpp) against both real backends, over rows the real
// projector wrote: a devnet receives real ERC-8004 feedback, a revocation and responses, the
// indexer indexes them, and each reader's answer is compared with the ReputationRegistry's own
// view functions (readAllFeedback, getResponseCount) read by eth_call at the same head.
#include <credence/index/feedback_table.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include <credence/chain/bindings/identity_registry.hpp>
#include <credence/chain/bindings/reputation_registry.hpp>
#include <credence/core/keccak.hpp>
#include <credence/index/indexer.hpp>
#include <credence/index/verification_table.hpp>
#include <support/devnet.hpp>
#include <support/postgres.hpp>
#include <support/scratch.hpp>

namespace credence::index {
namespace {

namespace idr = chain::bindings::identity_registry;
namespace rep = chain::bindings::reputation_registry;

using core::Address;
using core::Bytes;
using core::Int256;
using core::Uint256;

// Accounts: 1 owns agent 0, 2 owns agent 1; 3, 4 and 5 are clients; 6 responds to feedback.
constexpr size_t kOwner0 = 1, kOwner1 = 2, kClientA = 3, kClientB = 4, kClientC = 5, kResponder = 6;

Bytes agent_word(uint64_t v) {
    const auto w = Uint256{v}.to_word();
    return {w.begin(), w.end()};
}

struct FeedbackScenario {
    std::string error;  // non-empty: the scenario could not be built
    std::unique_ptr<testing::Devnet> devnet;
    Address reputation;
    uint64_t revoke_block = 0;  // the block of client B's FeedbackRevoked
};

/// Agents 0 and 1; on agent 0: client A gives two feedback, B one (then revokes it), C one after
/// the revocation; two responses to A's first; on agent 1: one feedback from A.
std::unique_ptr<FeedbackScenario> build_feedback_scenario() {
    auto s = std::make_unique<FeedbackScenario>();
    auto devnet = testing::Devnet::start();
    if (!devnet) {
        s->error = "devnet: " + devnet.error();
        return s;
    }
    s->devnet = std::move(*devnet);
    const testing::Devnet& d = *s->devnet;
    const Address identity = d.address("IdentityRegistry");
    s->reputation = d.address("ReputationRegistry");
    const Uint256 agent0{0}, agent1{1};
    const auto give = [&](size_t client, const Uint256& agent, int64_t value, uint64_t decimals,
                          std::string_view tag1, std::string_view tag2, std::string_view uri) {
        return d.send(client, s->reputation,
                      rep::give_feedback(agent, Int256(value), decimals, tag1, tag2,
                                         "https://api.agent0.example", uri,
                                         uri.empty() ? core::Hash32{} : core::keccak256(uri))
                          .value());
    };
    d.send(kOwner0, identity, idr::register_1("https://agent0.example/a.json").value());
    d.send(kOwner1, identity, idr::register_1("https://agent1.example/a.json").value());
    give(kClientA, agent0, 9977, 2, "quality", "speed", "ipfs://fb-a1");
    give(kClientA, agent0, 5, 0, "uptime", "", "");
    give(kClientB, agent0, -32, 1, "quality", "", "");
    s->revoke_block =
        d.send(kClientB, s->reputation, rep::revoke_feedback(agent0, 1).value()).block_num;
    give(kClientC, agent0, 100, 0, "quality", "speed", "ipfs://fb-c1");
    give(kClientA, agent1, 1, 0, "", "", "");
    d.send(kOwner0, s->reputation,
           rep::append_response(agent0, d.dev_address(kClientA), 1, "ipfs://resp-1",
                                core::keccak256("resp-1"))
               .value());
    d.send(kResponder, s->reputation,
           rep::append_response(agent0, d.dev_address(kClientA), 1, "ipfs://resp-2",
                                core::keccak256("resp-2"))
               .value());
    if (::testing::Test::HasFailure()) s->error = "a transaction failed";
    return s;
}

/// Built once per test process (each test of a ctest run is its own process).
const FeedbackScenario& feedback_scenario() {
    static const std::unique_ptr<FeedbackScenario> kScenario = build_feedback_scenario();
    return *kScenario;
}

enum class FeedbackBackend { sqlite, postgres };

class feedback_table : public ::testing::TestWithParam<FeedbackBackend> {
protected:
    void SetUp() override {
        ASSERT_TRUE(feedback_scenario().error.empty()) << "scenario: " << feedback_scenario().error;
        static std::atomic<int> counter{0};
        std::string location;
        if (GetParam() == FeedbackBackend::sqlite) {
            location =
                (testing::scratch_dir() / ("feedback_" + std::to_string(counter++) + ".sqlite"))
                    .string();
        } else {
            auto url = testing::postgres_test_url();
            ASSERT_TRUE(url.has_value()) << url.error();
            location = *url;
        }
        auto db = open_database(location);
        ASSERT_TRUE(db.has_value()) << db.error().to_string();
        db_ = std::move(*db);
        // The real indexer and projector, up to the devnet's head.
        IndexerOptions options;
        options.chain_id = devnet().chain_id();
        options.sources = sources_from_deployment(devnet().deployment());
        Indexer indexer(options, devnet().rpc(), *db_);
        auto started = indexer.start();
        ASSERT_TRUE(started.has_value()) << started.error().message;
        auto ran = indexer.run(std::stop_token{}, false, std::chrono::milliseconds(10),
                               [](const StepReport&) {});
        ASSERT_TRUE(ran.has_value()) << ran.error().message;
    }

    static const testing::Devnet& devnet() { return *feedback_scenario().devnet; }
    static const Address& registry() { return feedback_scenario().reputation; }
    static uint64_t chain_id() { return devnet().chain_id(); }
    static Address client(size_t account) { return devnet().dev_address(account); }

    /// ReputationRegistry.readAllFeedback at the head.
    static rep::ReadAllFeedbackResult read_all(uint64_t agent, const std::vector<Address>& clients,
                                               std::string_view tag1, std::string_view tag2,
                                               bool include_revoked) {
        auto rpc = devnet().rpc();
        auto data = rpc.call(
            {{},
             registry(),
             rep::read_all_feedback(Uint256{agent}, clients, tag1, tag2, include_revoked).value(),
             {},
             {}});
        EXPECT_TRUE(data.has_value()) << data.error().message;
        if (!data) return {};
        auto decoded = rep::decode_read_all_feedback_result(*data);
        EXPECT_TRUE(decoded.has_value());
        return decoded ? *decoded : rep::ReadAllFeedbackResult{};
    }

    /// ReputationRegistry.getResponseCount(agent, client, index, []) at the head.
    static uint64_t response_count(uint64_t agent, const Address& client, uint64_t index) {
        auto rpc = devnet().rpc();
        auto data = rpc.call({{},
                              registry(),
                              rep::get_response_count(Uint256{agent}, client, index, {}).value(),
                              {},
                              {}});
        EXPECT_TRUE(data.has_value()) << data.error().message;
        if (!data) return 0;
        auto decoded = rep::decode_get_response_count_result(*data);
        EXPECT_TRUE(decoded.has_value());
        return decoded ? *decoded : 0;
    }

    std::unique_ptr<Database> db_;
};

INSTANTIATE_TEST_SUITE_P(backends, feedback_table,
                         ::testing::Values(FeedbackBackend::sqlite, FeedbackBackend::postgres),
                         [](const auto& p) {
                             return p.param == FeedbackBackend::sqlite ? "sqlite" : "postgres";
                         });

/// (client, feedback_index): a feedback's key within its agent.
using Key = std::tuple<std::string, uint64_t>;

Key key_of(const Address& client, uint64_t index) { return {client.to_checksum_hex(), index}; }

/// The contract's answer as keyed rows: (value, decimals, tag1, tag2, revoked) by key.
using Seen = std::set<std::tuple<Key, std::string, uint64_t, std::string, std::string, bool>>;

Seen seen_of(const rep::ReadAllFeedbackResult& r) {
    Seen out;
    for (size_t i = 0; i < r.clients.size(); ++i) {
        out.emplace(key_of(r.clients[i], r.feedback_indexes[i]), r.values[i].to_dec(),
                    r.value_decimals[i], r.tag1s[i], r.tag2s[i], r.revoked_statuses[i]);
    }
    return out;
}

TEST_P(feedback_table, agent_feedback_equals_read_all_feedback_in_chain_order) {
    auto rows = read_agent_feedback(*db_, chain_id(), registry(), agent_word(0));
    ASSERT_TRUE(rows.has_value()) << rows.error().to_string();
    Seen read;
    for (const FeedbackEntry& f : *rows) {
        read.emplace(key_of(f.client, f.feedback_index), f.value.to_dec(), f.value_decimals, f.tag1,
                     f.tag2, f.revoked);
    }
    EXPECT_EQ(read, seen_of(read_all(0, {}, "", "", true)));
    // Chain order: the order the scenario gave them in.
    ASSERT_EQ(rows->size(), 4U);
    EXPECT_EQ(key_of((*rows)[0].client, (*rows)[0].feedback_index), key_of(client(kClientA), 1));
    EXPECT_EQ(key_of((*rows)[1].client, (*rows)[1].feedback_index), key_of(client(kClientA), 2));
    EXPECT_EQ(key_of((*rows)[2].client, (*rows)[2].feedback_index), key_of(client(kClientB), 1));
    EXPECT_EQ(key_of((*rows)[3].client, (*rows)[3].feedback_index), key_of(client(kClientC), 1));
}

// ERC-8004 readAllFeedback's filters: clients, tag1, tag2 (empty: any) and includeRevoked.
TEST_P(feedback_table, page_filters_like_read_all_feedback) {
    const std::vector<std::vector<Address>> client_sets{
        {}, {client(kClientA)}, {client(kClientB), client(kClientC)}};
    for (const auto& clients : client_sets) {
        for (const std::string tag1 : {"", "quality", "none"}) {
            for (const std::string tag2 : {"", "speed"}) {
                for (const bool include_revoked : {false, true}) {
                    SCOPED_TRACE(::testing::Message()
                                 << clients.size() << " clients, tag1 '" << tag1 << "', tag2 '"
                                 << tag2 << "', revoked " << include_revoked);
                    FeedbackPageQuery query{chain_id(),      registry(),   agent_word(0),
                                            clients,         tag1,         tag2,
                                            include_revoked, std::nullopt, 100};
                    auto page = read_feedback_page(*db_, query);
                    ASSERT_TRUE(page.has_value()) << page.error().to_string();
                    Seen read;
                    for (const FeedbackRow& f : *page) {
                        read.emplace(key_of(f.client, f.feedback_index), f.value, f.value_decimals,
                                     f.tag1, f.tag2, f.revoked);
                    }
                    EXPECT_EQ(read, seen_of(read_all(0, clients, tag1, tag2, include_revoked)));
                }
            }
        }
    }
}

TEST_P(feedback_table, pages_follow_chain_order_without_gaps) {
    FeedbackPageQuery query{chain_id(), registry(), agent_word(0), {}, "",
                            "",         true,       std::nullopt,  100};
    auto all = read_feedback_page(*db_, query);
    ASSERT_TRUE(all.has_value()) << all.error().to_string();
    ASSERT_EQ(all->size(), 4U);
    std::vector<FeedbackRow> paged;
    query.limit = 3;
    for (int pages = 0; pages < 3; ++pages) {
        auto page = read_feedback_page(*db_, query);
        ASSERT_TRUE(page.has_value()) << page.error().to_string();
        if (page->empty()) break;
        query.after = std::pair{page->back().block_num, page->back().log_index};
        paged.insert(paged.end(), page->begin(), page->end());
    }
    ASSERT_EQ(paged.size(), all->size());
    for (size_t i = 0; i < paged.size(); ++i) {
        EXPECT_EQ(paged[i].txn_hash, (*all)[i].txn_hash) << i;
        if (i > 0) {
            EXPECT_LT(std::pair(paged[i - 1].block_num, paged[i - 1].log_index),
                      std::pair(paged[i].block_num, paged[i].log_index));
        }
    }
    // The columns readAllFeedback does not return, as the NewFeedback log carried them.
    const FeedbackRow& first = (*all)[0];
    EXPECT_EQ(first.value, "9977");
    EXPECT_EQ(first.normalized, 99.77);
    EXPECT_EQ(first.endpoint, "https://api.agent0.example");
    EXPECT_EQ(first.feedback_uri, "ipfs://fb-a1");
    const auto hash = core::keccak256("ipfs://fb-a1");
    EXPECT_EQ(first.feedback_hash, Bytes(hash.begin(), hash.end()));
    EXPECT_EQ(first.txn_hash.size(), 32U);
}

TEST_P(feedback_table, responses_and_counts_match_the_contract) {
    auto responses =
        read_feedback_responses(*db_, chain_id(), registry(), agent_word(0), client(kClientA), 1);
    ASSERT_TRUE(responses.has_value()) << responses.error().to_string();
    ASSERT_EQ(responses->size(), response_count(0, client(kClientA), 1));
    ASSERT_EQ(responses->size(), 2U);
    EXPECT_EQ((*responses)[0].responder, client(kOwner0));
    EXPECT_EQ((*responses)[0].response_uri, "ipfs://resp-1");
    EXPECT_EQ((*responses)[1].responder, client(kResponder));
    EXPECT_LT(std::pair((*responses)[0].block_num, (*responses)[0].log_index),
              std::pair((*responses)[1].block_num, (*responses)[1].log_index));

    const auto all = read_all(0, {}, "", "", true);
    int64_t revoked = 0;
    uint64_t answers = 0;
    for (size_t i = 0; i < all.clients.size(); ++i) {
        revoked += all.revoked_statuses[i] ? 1 : 0;
        answers += response_count(0, all.clients[i], all.feedback_indexes[i]);
    }
    auto counts = count_agent_feedback(*db_, chain_id(), registry(), agent_word(0));
    ASSERT_TRUE(counts.has_value()) << counts.error().to_string();
    EXPECT_EQ(counts->feedback, static_cast<int64_t>(all.clients.size()));
    EXPECT_EQ(counts->revoked, revoked);
    EXPECT_EQ(counts->responses, static_cast<int64_t>(answers));

    auto registry_counts = count_registry_feedback(*db_, chain_id(), registry());
    ASSERT_TRUE(registry_counts.has_value()) << registry_counts.error().to_string();
    EXPECT_EQ(
        registry_counts->feedback,
        static_cast<int64_t>(all.clients.size() + read_all(1, {}, "", "", true).clients.size()));
    EXPECT_EQ(registry_counts->responses, counts->responses);  // agent 1 has none
}

TEST_P(feedback_table, points_are_the_standing_feedback_in_chain_order) {
    auto points = read_feedback_points(*db_, chain_id(), registry(), agent_word(0));
    ASSERT_TRUE(points.has_value()) << points.error().to_string();
    const auto standing = read_all(0, {}, "", "", false);
    ASSERT_EQ(points->size(), standing.clients.size());
    ASSERT_EQ(points->size(), 3U);
    EXPECT_EQ(points->front().normalized, 99.77);  // A's first: 9977 with 2 decimals
    EXPECT_EQ(points->back().normalized, 100.0);   // C's, after the revocation
    EXPECT_GT(points->back().block_num, static_cast<int64_t>(feedback_scenario().revoke_block));
}

// The trust engine's readers: every review in chain order, and the ones a block changed, each
// with its latest check's flags as the verifier wrote them (verification_table.hpp).
TEST_P(feedback_table, reviews_carry_their_latest_checks_flags) {
    auto reviews = read_registry_reviews(*db_, chain_id(), registry());
    ASSERT_TRUE(reviews.has_value()) << reviews.error().to_string();
    ASSERT_EQ(reviews->size(), 5U);  // four on agent 0, one on agent 1
    for (size_t i = 1; i < reviews->size(); ++i) {
        EXPECT_LT(std::pair((*reviews)[i - 1].block_num, (*reviews)[i - 1].log_index),
                  std::pair((*reviews)[i].block_num, (*reviews)[i].log_index));
    }
    Seen read;
    for (const FeedbackReview& r : *reviews) {
        if (r.agent_id != agent_word(0)) continue;
        read.emplace(key_of(r.client, r.feedback_index), r.value.to_dec(), r.value_decimals, r.tag1,
                     "", r.revoked);
    }
    Seen want;
    for (const auto& [key, value, decimals, tag1, tag2, revoked] :
         seen_of(read_all(0, {}, "", "", true))) {
        want.emplace(key, value, decimals, tag1, "", revoked);
    }
    EXPECT_EQ(read, want);

    const auto check = [&](size_t account, VerificationFlags flags) {
        VerificationRecord rec;
        rec.subject = {SubjectKind::feedback, registry(), agent_word(0), client(account), 1};
        rec.status = VerificationStatus::verified;
        rec.flags = flags;
        rec.report_json = "{}";
        auto saved = save_verification(*db_, chain_id(), rec);
        ASSERT_TRUE(saved.has_value()) << saved.error().to_string();
    };
    check(kClientA, VerificationFlag::payment_verified);
    check(kClientC, VerificationFlags{});
    const std::vector<Bytes> agents{agent_word(0)};
    auto every = read_reviews_changed_after(*db_, chain_id(), registry(), -1, agents);
    ASSERT_TRUE(every.has_value()) << every.error().to_string();
    ASSERT_EQ(every->size(), 4U);
    for (const CheckedReview& r : *every) {
        const Key key = key_of(r.review.client, r.review.feedback_index);
        if (key == key_of(client(kClientA), 1)) {
            ASSERT_TRUE(r.flags.has_value());
            EXPECT_TRUE(r.flags->has(VerificationFlag::payment_verified));
        } else if (key == key_of(client(kClientC), 1)) {
            ASSERT_TRUE(r.flags.has_value());  // checked, without the flag
            EXPECT_FALSE(r.flags->has(VerificationFlag::payment_verified));
        } else {
            EXPECT_FALSE(r.flags.has_value());  // never checked
        }
    }
    // After the block before the revocation: B's revoked feedback and C's, given later.
    auto changed = read_reviews_changed_after(
        *db_, chain_id(), registry(), static_cast<int64_t>(feedback_scenario().revoke_block) - 1,
        agents);
    ASSERT_TRUE(changed.has_value()) << changed.error().to_string();
    std::set<Key> keys;
    for (const CheckedReview& r : *changed) {
        keys.insert(key_of(r.review.client, r.review.feedback_index));
    }
    EXPECT_EQ(keys, (std::set<Key>{key_of(client(kClientB), 1), key_of(client(kClientC), 1)}));
}

}  // namespace
}  // namespace credence::index
