// The verifier loop over first-draft agents, end to end: a devnet with every revision (`credence
// devnet --revisions all`), the draft agents indexed into SQLite and PostgreSQL, their Agent Cards
// served over real HTTPS on loopback, and reverify_due() with the agent check the node and
// `credence verify pending` run. A good card is verified, a card naming another agent unverified,
// a domain with no server unreachable; an AgentUpdated with a new domain makes the agent due again
// (ERC-8004 first draft §Identity Registry, §Agent Card Structure).
#include <credence/verify/store/index_checks.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <credence/chain/bindings/draft_identity_registry.hpp>
#include <credence/chain/bindings/draft_reputation_registry.hpp>
#include <credence/index/indexer.hpp>
#include <credence/index/store.hpp>
#include <credence/verify/store/profile_store.hpp>
#include <credence/verify/store/reverifier.hpp>

#include "support/devnet.hpp"
#include "support/https_server.hpp"
#include "support/postgres.hpp"
#include "support/scratch.hpp"

namespace credence::verify {
namespace {

namespace did = chain::bindings::draft_identity_registry;
namespace drep = chain::bindings::draft_reputation_registry;

enum class DraftBackend { sqlite, postgres };

class verify_draft_agent_check : public ::testing::TestWithParam<DraftBackend> {
protected:
    void SetUp() override {
        testing::DevnetOptions options;
        options.revisions = chain::DeployRevisions::all;
        auto started = testing::Devnet::start(options);
        ASSERT_TRUE(started) << started.error();
        devnet_ = std::move(*started);
        std::string location;
        if (GetParam() == DraftBackend::sqlite) {
            static std::atomic<int> counter{0};
            location =
                (testing::scratch_dir() / ("draft_check_" + std::to_string(counter++) + ".sqlite"))
                    .string();
        } else {
            auto url = testing::postgres_test_url();
            ASSERT_TRUE(url.has_value()) << url.error();
            location = *url;
        }
        auto db = index::open_database(location);
        ASSERT_TRUE(db.has_value()) << db.error().to_string();
        db_ = std::move(*db);
        server_ = std::make_unique<testing::HttpsServer>(
            std::vector<std::string>{"good-agent.test", "other-agent.test", "moved-agent.test"});
        FetcherConfig config;
        config.connect_to = server_->connect_to();
        config.connect_to.push_back("no-server.test:443:127.0.0.1:1");
        config.ca_file = server_->ca_file();
        config.allow_hosts = {"127.0.0.1"};
        fetcher_ = make_curl_fetcher(config);
        registry_ = devnet_->address("DraftIdentityRegistry");
    }

    std::string card(uint64_t agent_id, size_t account) const {
        return nlohmann::ordered_json{
            {"registrations",
             nlohmann::ordered_json::array(
                 {{{"agentId", agent_id},
                   {"agentAddress", "eip155:" + std::to_string(devnet_->chain_id()) + ":" +
                                        devnet_->dev_address(account).to_checksum_hex()}}})},
            {"trustModels", {"feedback"}}}
            .dump();
    }

    void index_all() {
        index::IndexerOptions o;
        o.chain_id = devnet_->chain_id();
        o.sources = index::sources_from_deployment(devnet_->deployment());
        index::Indexer indexer(o, devnet_->rpc(), *db_);
        auto started = indexer.start();
        ASSERT_TRUE(started) << started.error().message;
        std::stop_source stop;
        auto done = indexer.run(stop.get_token(), false, std::chrono::milliseconds(10),
                                [](const index::StepReport&) {});
        ASSERT_TRUE(done) << done.error().message;
    }

    ReverifyCounts pass(int64_t now) {
        auto rpc = devnet_->rpc();
        const std::map<SubjectKind, BatchCheck> checks{
            {SubjectKind::agent,
             make_agent_check(*fetcher_, rpc, devnet_->chain_id(), {}, db_.get())}};
        auto r = reverify_due(*db_, devnet_->chain_id(), checks, ReverifyOptions{now, 0, 8});
        EXPECT_TRUE(r) << r.error().to_string();
        return r ? *r : ReverifyCounts{};
    }

    /// The stored record of draft agent `id`, through the store's one reader.
    static core::Bytes key_of(uint8_t id) {
        core::Bytes key(32, 0);
        key.back() = id;
        return key;
    }

    VerificationRecord record(uint8_t id) {
        auto r = load_verification(*db_, devnet_->chain_id(),
                                   Subject{SubjectKind::agent, registry_, key_of(id), {}, 0});
        EXPECT_TRUE(r && r->has_value());
        return r && r->has_value() ? **r : VerificationRecord{};
    }

    std::unique_ptr<testing::Devnet> devnet_;
    std::unique_ptr<index::Database> db_;
    std::unique_ptr<testing::HttpsServer> server_;
    std::unique_ptr<Fetcher> fetcher_;
    core::Address registry_;
};

INSTANTIATE_TEST_SUITE_P(backends, verify_draft_agent_check,
                         ::testing::Values(DraftBackend::sqlite, DraftBackend::postgres),
                         [](const auto& p) {
                             return p.param == DraftBackend::sqlite ? "sqlite" : "postgres";
                         });

TEST_P(verify_draft_agent_check, loop_verifies_draft_agents_and_rechecks_on_a_new_domain) {
    auto& d = *devnet_;
    d.send(1, registry_, did::new_agent("good-agent.test", d.dev_address(1)).value());
    d.send(2, registry_, did::new_agent("other-agent.test", d.dev_address(2)).value());
    d.send(3, registry_, did::new_agent("no-server.test", d.dev_address(3)).value());
    server_->serve("good-agent.test", std::string(kAgentCardPath), card(1, 1));
    server_->serve("other-agent.test", std::string(kAgentCardPath), card(1, 1));
    server_->serve("moved-agent.test", std::string(kAgentCardPath), card(2, 2));
    ASSERT_NO_FATAL_FAILURE(index_all());

    const auto first = pass(100);
    EXPECT_EQ(first.checked, 3U);
    EXPECT_EQ(first.verified, 1U);
    EXPECT_EQ(first.unverified, 1U);
    EXPECT_EQ(first.unreachable, 1U);

    const auto good = record(1);
    EXPECT_EQ(good.status, VerificationStatus::verified) << good.detail;
    EXPECT_TRUE(good.flags.has(VerificationFlag::domain_verified));
    EXPECT_TRUE(good.flags.has(VerificationFlag::agent_card));
    const auto report = nlohmann::json::parse(good.report_json);
    EXPECT_EQ(report["revision"], "draft");
    EXPECT_EQ(report["agentDomain"], "good-agent.test");
    // The API's read model (profile_store.hpp), written next to the record.
    auto profile = load_agent_profile(*db_, devnet_->chain_id(), registry_, key_of(1));
    ASSERT_TRUE(profile && profile->has_value());
    EXPECT_EQ((*profile)->status, "verified");
    EXPECT_EQ((*profile)->trust_models, std::vector<std::string>{"feedback"});
    EXPECT_EQ((*profile)->domains, std::vector<std::string>{"good-agent.test"});
    const auto other = record(2);
    EXPECT_EQ(other.status, VerificationStatus::unverified);
    EXPECT_EQ(other.reason, "no_matching_registration");
    const auto gone = record(3);
    EXPECT_EQ(gone.status, VerificationStatus::unreachable);
    EXPECT_EQ(gone.reason, "fetch_failed");

    EXPECT_EQ(pass(101).checked, 0U);  // nothing changed on chain

    // Update(AgentID, NewAgentDomain): the agent is due again and checked at its new domain.
    d.send(2, registry_,
           did::update_agent(core::Uint256{2}, "moved-agent.test", core::Address{}).value());
    ASSERT_NO_FATAL_FAILURE(index_all());
    const auto again = pass(102);
    EXPECT_EQ(again.checked, 1U);
    EXPECT_EQ(again.verified, 1U);
    const auto moved = record(2);
    EXPECT_EQ(moved.status, VerificationStatus::verified) << moved.detail;
    EXPECT_EQ(nlohmann::json::parse(moved.report_json)["agentDomain"], "moved-agent.test");
}

// ERC-8004 first draft §Feedback Data Structure: a client agent that was authorized to give
// feedback (an AuthFeedback names it) MUST carry a FeedbackDataURI on its card; the verifier finds
// the authorizations in the index and reports the card's error without changing the verdict.
TEST_P(verify_draft_agent_check, a_feedback_client_without_a_feedback_data_uri_is_an_error) {
    auto& d = *devnet_;
    d.send(1, registry_, did::new_agent("good-agent.test", d.dev_address(1)).value());   // server
    d.send(2, registry_, did::new_agent("other-agent.test", d.dev_address(2)).value());  // client
    d.send(3, registry_, did::new_agent("moved-agent.test", d.dev_address(3)).value());  // idle
    d.send(1, devnet_->address("DraftReputationRegistry"),
           drep::accept_feedback(core::Uint256{2}, core::Uint256{1}).value());
    server_->serve("good-agent.test", std::string(kAgentCardPath), card(1, 1));
    server_->serve("other-agent.test", std::string(kAgentCardPath), card(2, 2));
    server_->serve("moved-agent.test", std::string(kAgentCardPath), card(3, 3));
    ASSERT_NO_FATAL_FAILURE(index_all());
    EXPECT_EQ(pass(100).verified, 3U);
    const auto has_issue = [](const VerificationRecord& r) {
        return r.report_json.find("no_feedback_data_uri") != std::string::npos;
    };
    const auto client = record(2);
    EXPECT_EQ(client.status, VerificationStatus::verified);
    EXPECT_TRUE(has_issue(client)) << client.report_json;
    EXPECT_FALSE(has_issue(record(1)));  // the server gave none
    EXPECT_FALSE(has_issue(record(3)));  // nor did the idle agent (and 3 is no prefix of 2's id)
}

// ERC-8004 first draft §Feedback Registry: each entry of a client's feedback file names the
// FeedbackAuthID of an AuthFeedback that authorized it; the verifier matches them against the
// chain's events (here, the id the registry emitted, read from the node's logs).
TEST_P(verify_draft_agent_check, feedback_entries_are_matched_to_the_chains_authorizations) {
    auto& d = *devnet_;
    d.send(1, registry_, did::new_agent("good-agent.test", d.dev_address(1)).value());   // server
    d.send(2, registry_, did::new_agent("other-agent.test", d.dev_address(2)).value());  // client
    const core::Address reputation = devnet_->address("DraftReputationRegistry");
    d.send(1, reputation, drep::accept_feedback(core::Uint256{2}, core::Uint256{1}).value());
    chain::LogFilter filter;
    filter.from_block = chain::BlockId::earliest();
    filter.addresses = {reputation};
    auto rpc = d.rpc();
    auto logs = rpc.get_logs(filter);
    ASSERT_TRUE(logs && logs->size() == 1 && logs->front().topics.size() == 4);
    const std::string authorized = core::to_hex(core::ByteView(logs->front().topics[3]));
    const std::string forged = "0x" + std::string(64, 'e');
    const std::string chain = "eip155:" + std::to_string(d.chain_id()) + ":";
    auto client_card = nlohmann::ordered_json::parse(card(2, 2));
    client_card["FeedbackDataURI"] = "https://other-agent.test/feedback.json";
    server_->serve("good-agent.test", std::string(kAgentCardPath), card(1, 1));
    server_->serve("other-agent.test", std::string(kAgentCardPath), client_card.dump());
    server_->serve("other-agent.test", "/feedback.json",
                   nlohmann::json::array({{{"FeedbackAuthID", chain + authorized}, {"Rating", 90}},
                                          {{"FeedbackAuthID", chain + forged}, {"Rating", 10}}})
                       .dump());
    ASSERT_NO_FATAL_FAILURE(index_all());
    EXPECT_EQ(pass(100).verified, 2U);
    const auto report = nlohmann::json::parse(record(2).report_json);
    const auto& data = report["feedbackData"];
    EXPECT_EQ(data["authorized"], 1) << data.dump();
    EXPECT_EQ(data["valid"], false);
    ASSERT_EQ(data["issues"].size(), 1U) << data.dump();
    EXPECT_EQ(data["issues"][0]["reason"], "not_authorized");
    EXPECT_EQ(data["issues"][0]["path"], "/1/FeedbackAuthID");
}

}  // namespace
}  // namespace credence::verify
