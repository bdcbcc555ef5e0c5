// First-draft agents verified for real (ERC-8004 first draft §Identity Registry, §Agent Card
// Structure): agents registered on a devnet with every revision (`credence devnet --revisions
// all`) through the DraftIdentityRegistry bindings, read back with read_draft_onchain_agent(),
// and their Agent Cards served at https://{AgentDomain}/.well-known/agent-card.json by a real
// HTTPS server on 127.0.0.1 with the test CA (tests/support/https_server.hpp), fetched by the real
// curl fetcher.
#include <credence/verify/verifiers/draft_agent_verifier.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <credence/chain/bindings/draft_identity_registry.hpp>

#include "support/devnet.hpp"
#include "support/https_server.hpp"

namespace credence::verify {
namespace {

namespace did = chain::bindings::draft_identity_registry;
using testing::HttpsServer;

class VerifyDraftAgent : public ::testing::Test {
protected:
    void SetUp() override {
        testing::DevnetOptions options;
        options.revisions = chain::DeployRevisions::all;
        auto started = testing::Devnet::start(options);
        ASSERT_TRUE(started) << started.error();
        devnet_ = std::move(*started);
        server_ = std::make_unique<HttpsServer>(
            std::vector<std::string>{"good-agent.test", "other-agent.test"});
        FetcherConfig config;
        config.connect_to = server_->connect_to();
        // No server: the name leads to a closed loopback port (refused at once, no DNS).
        config.connect_to.push_back("no-server.test:443:127.0.0.1:1");
        config.ca_file = server_->ca_file();
        config.allow_hosts = {"127.0.0.1"};
        fetcher_ = make_curl_fetcher(config);
        registry_ = devnet_->address("DraftIdentityRegistry");
    }

    /// New(AgentDomain, AgentAddress) from dev account `account` (the draft: the sender must be
    /// the AgentAddress), read back with Get.
    DraftOnChainAgent register_agent(const std::string& domain, size_t account) {
        devnet_->send(account, registry_,
                      did::new_agent(domain, devnet_->dev_address(account)).value());
        auto rpc = devnet_->rpc();
        // IDs are assigned incrementally from 1, in this test's order.
        auto agent = read_draft_onchain_agent(rpc, devnet_->chain_id(), registry_,
                                              core::Uint256{++registered_});
        EXPECT_TRUE(agent) << (agent ? "" : agent.error().message());
        EXPECT_EQ(agent->agent_domain, domain);
        EXPECT_EQ(agent->agent_address, devnet_->dev_address(account));
        return *agent;
    }

    /// A card whose one registration names `agent_id` at dev account `account` on this chain.
    std::string card(uint64_t agent_id, size_t account) const {
        return nlohmann::ordered_json{
            {"name", "draft agent"},
            {"registrations",
             nlohmann::ordered_json::array(
                 {{{"agentId", agent_id},
                   {"agentAddress", "eip155:" + std::to_string(devnet_->chain_id()) + ":" +
                                        devnet_->dev_address(account).to_checksum_hex()},
                   {"signature", "0x00"}}})},
            {"trustModels", {"feedback"}}}
            .dump();
    }

    std::unique_ptr<testing::Devnet> devnet_;
    std::unique_ptr<HttpsServer> server_;
    std::unique_ptr<Fetcher> fetcher_;
    core::Address registry_;
    uint64_t registered_ = 0;
};

TEST_F(VerifyDraftAgent, good_card_other_agents_card_and_no_server) {
    const auto good = register_agent("good-agent.test", 1);
    const auto other = register_agent("other-agent.test", 2);
    const auto gone = register_agent("no-server.test", 3);
    server_->serve("good-agent.test", std::string(kAgentCardPath), card(1, 1));
    // The second agent's card names the first agent: it does not name this one.
    server_->serve("other-agent.test", std::string(kAgentCardPath), card(1, 1));

    const auto reports = verify_draft_agents({good, other, gone}, *fetcher_);
    ASSERT_EQ(reports.size(), 3U);

    EXPECT_EQ(reports[0].status, AgentStatus::verified) << reports[0].detail;
    EXPECT_EQ(reports[0].reason, DraftAgentReason::none);
    EXPECT_EQ(reports[0].url, "https://good-agent.test/.well-known/agent-card.json");
    EXPECT_EQ(reports[0].registration_index, 0U);
    EXPECT_EQ(reports[0].verified_domains(), std::vector<std::string>{"good-agent.test"});
    const auto doc = reports[0].to_json();
    EXPECT_EQ(doc["revision"], "draft");
    EXPECT_EQ(doc["agentCard"]["trustModels"], nlohmann::ordered_json::array({"feedback"}));
    EXPECT_EQ(doc["agentCard"]["issues"][0]["reason"], "signature_unspecified");
    EXPECT_EQ(doc["registration"]["signatureChecked"], false);

    EXPECT_EQ(reports[1].status, AgentStatus::unverified);
    EXPECT_EQ(reports[1].reason, DraftAgentReason::no_matching_registration) << reports[1].detail;
    EXPECT_TRUE(reports[1].verified_domains().empty());

    EXPECT_EQ(reports[2].status, AgentStatus::unreachable);
    EXPECT_EQ(reports[2].reason, DraftAgentReason::fetch_failed);
    EXPECT_TRUE(reports[2].fetch_error.has_value());
}

// §Feedback Data Structure: the card's FeedbackDataURI is followed and its file checked; what it
// finds is reported and leaves the identity verdict alone.
TEST_F(VerifyDraftAgent, feedback_data_uri_is_fetched_and_checked) {
    const auto agent = register_agent("good-agent.test", 1);
    auto doc = nlohmann::ordered_json::parse(card(1, 1));
    doc["FeedbackDataURI"] = "https://good-agent.test/feedback.json";
    server_->serve("good-agent.test", std::string(kAgentCardPath), doc.dump());
    const std::string auth = "eip155:31337:0x" + std::string(62, '0') + "2a";
    server_->serve("good-agent.test", "/feedback.json",
                   R"([{"FeedbackAuthID": ")" + auth + R"(", "Rating": 95, "TaskId": "t-1"},
                       {"FeedbackAuthID": ")" +
                       auth + R"(", "Rating": 9.5}])");
    const auto report = verify_draft_agent(agent, *fetcher_);
    EXPECT_EQ(report.status, AgentStatus::verified) << report.detail;
    ASSERT_TRUE(report.feedback_data.has_value());
    ASSERT_TRUE(report.feedback_data->data.has_value()) << report.feedback_data->detail;
    EXPECT_EQ(report.feedback_data->data->entries.size(), 1U);
    EXPECT_FALSE(report.feedback_data->data->ok());
    const auto j = report.to_json()["feedbackData"];
    EXPECT_EQ(j["entries"][0]["rating"], 95);
    EXPECT_EQ(j["entries"][0]["taskId"], "t-1");
    EXPECT_EQ(j["issues"][0]["reason"], "bad_rating");
    EXPECT_EQ(j["issues"][0]["path"], "/1/Rating");

    // A file that cannot be fetched is reported; the agent stays verified.
    doc["FeedbackDataURI"] = "https://good-agent.test/missing.json";
    server_->serve("good-agent.test", std::string(kAgentCardPath), doc.dump());
    server_->serve("good-agent.test", "/missing.json", "nope", "text/plain", 404);
    const auto missing = verify_draft_agent(agent, *fetcher_);
    EXPECT_EQ(missing.status, AgentStatus::verified);
    ASSERT_TRUE(missing.feedback_data.has_value());
    EXPECT_EQ(missing.feedback_data->fetch_error, FetchError::http_status);
    EXPECT_FALSE(missing.feedback_data->data.has_value());
    EXPECT_TRUE(verify_draft_agent(agent, *fetcher_).to_json().contains("feedbackData"));
}

// The card's entry names this agent's id with another address (the draft's AgentAddress is the
// agent's identity: a card cannot bind with only the id).
TEST_F(VerifyDraftAgent, card_with_this_id_and_another_address_is_unverified) {
    const auto agent = register_agent("good-agent.test", 1);
    server_->serve("good-agent.test", std::string(kAgentCardPath), card(1, 2));
    const auto report = verify_draft_agent(agent, *fetcher_);
    EXPECT_EQ(report.status, AgentStatus::unverified);
    EXPECT_EQ(report.reason, DraftAgentReason::wrong_address);
}

TEST_F(VerifyDraftAgent, card_that_is_not_json_or_missing_is_unverified_or_unreachable) {
    const auto agent = register_agent("good-agent.test", 1);
    server_->serve("good-agent.test", std::string(kAgentCardPath), "<html></html>", "text/html");
    auto report = verify_draft_agent(agent, *fetcher_);
    EXPECT_EQ(report.status, AgentStatus::unverified);
    EXPECT_EQ(report.reason, DraftAgentReason::not_json);
    server_->serve("good-agent.test", std::string(kAgentCardPath), "{}", "application/json", 404);
    report = verify_draft_agent(agent, *fetcher_);
    EXPECT_EQ(report.status, AgentStatus::unreachable);
    EXPECT_EQ(report.fetch_error, FetchError::http_status);
}

TEST_F(VerifyDraftAgent, domain_that_is_not_a_dns_name_is_unverified_without_a_fetch) {
    DraftOnChainAgent agent;
    agent.chain_id = devnet_->chain_id();
    agent.identity_registry = registry_;
    agent.agent_id = core::Uint256{9};
    agent.agent_domain = "127.0.0.1";
    const auto report = verify_draft_agent(agent, *fetcher_);
    EXPECT_EQ(report.status, AgentStatus::unverified);
    EXPECT_EQ(report.reason, DraftAgentReason::bad_domain);
    EXPECT_TRUE(report.url.empty());
}

TEST_F(VerifyDraftAgent, missing_agent_is_the_registrys_revert) {
    auto rpc = devnet_->rpc();
    auto agent = read_draft_onchain_agent(rpc, devnet_->chain_id(), registry_, core::Uint256{42});
    ASSERT_FALSE(agent);
    EXPECT_EQ(agent.error().kind, chain::CallErrorKind::reverted);
}

}  // namespace
}  // namespace credence::verify
