// End-to-end tests of `credence verify agent --revision draft` (ERC-8004 first draft §Identity
// Registry, §Agent Card Structure): a devnet with every revision (`credence devnet --revisions
// all`), first-draft agents registered with `cast send newAgent(string,address)` (independent of
// credence), and their Agent Cards served by a real HTTPS server on loopback.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/erc8004_cli_helpers.hpp"
#include "cli/labeled_output.hpp"
#include "support/devnet.hpp"
#include "support/https_server.hpp"

namespace {

using namespace credence::testing;
using namespace credence::testing::erc8004;
using Json = nlohmann::json;

class VerifyDraftAgentCli : public ::testing::Test {
protected:
    void SetUp() override {
        DevnetOptions options;
        options.revisions = credence::chain::DeployRevisions::all;
        auto started = Devnet::start(options);
        ASSERT_TRUE(started) << started.error();
        devnet_ = std::move(*started);
        server_ = std::make_unique<HttpsServer>(std::vector<std::string>{"draft-agent.test"});
    }

    std::vector<std::string> fetch_flags() const {
        std::vector<std::string> f = {"--ca-file", server_->ca_file(), "--allow-host", "127.0.0.1"};
        for (const auto& c : server_->connect_to()) {
            f.emplace_back("--connect-to");
            f.push_back(c);
        }
        return f;
    }

    CommandResult run(std::vector<std::string> args) const {
        for (auto& f : fetch_flags()) args.push_back(std::move(f));
        return run_cli(*devnet_, args);
    }

    /// New(AgentDomain, AgentAddress) sent by the AgentAddress (dev account `account`) with cast.
    void new_agent(const std::string& domain, size_t account) const {
        (void)cast(*devnet_, {"send", devnet_->address("DraftIdentityRegistry").to_checksum_hex(),
                              "newAgent(string,address)", domain,
                              devnet_->dev_address(account).to_checksum_hex(), "--private-key",
                              devnet_->dev_key(account)});
    }

    std::string card(const std::string& agent_id, size_t account) const {
        return Json{
            {"name", "draft"},
            {"registrations",
             Json::array({{{"agentId", Json::parse(agent_id)},
                           {"agentAddress", "eip155:" + std::to_string(devnet_->chain_id()) + ":" +
                                                devnet_->dev_address(account).to_checksum_hex()},
                           {"signature", "0x00"}}})},
            {"trustModels", {"feedback"}}}
            .dump();
    }

    std::unique_ptr<Devnet> devnet_;
    std::unique_ptr<HttpsServer> server_;
};

TEST_F(VerifyDraftAgentCli, good_card_is_verified_with_its_report) {
    new_agent("draft-agent.test", 1);
    server_->serve("draft-agent.test", "/.well-known/agent-card.json", card("1", 1));
    const CommandResult r = run({"verify", "agent", "--revision", "draft", "1", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const Json j = Json::parse(r.out);
    EXPECT_EQ(j["status"], "verified") << r.out;
    EXPECT_EQ(j["revision"], "draft");
    EXPECT_EQ(j["agentDomain"], "draft-agent.test");
    EXPECT_EQ(j["agentAddress"], devnet_->dev_address(1).to_checksum_hex());
    EXPECT_EQ(j["agentCard"]["url"], "https://draft-agent.test/.well-known/agent-card.json");
    EXPECT_EQ(j["registration"]["matches"], true);
    EXPECT_EQ(j["agentCard"]["issues"][0]["reason"], "signature_unspecified");

    const CommandResult plain = run({"verify", "agent", "--revision", "draft", "1"});
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    EXPECT_EQ(labeled_value(plain.out, "status"), "verified") << plain.out;
    EXPECT_EQ(labeled_value(plain.out, "trustModels"), "feedback") << plain.out;
}

TEST_F(VerifyDraftAgentCli, card_naming_another_agent_is_unverified) {
    new_agent("draft-agent.test", 1);
    server_->serve("draft-agent.test", "/.well-known/agent-card.json", card("1", 2));
    const CommandResult r = run({"verify", "agent", "--revision", "draft", "1", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const Json j = Json::parse(r.out);
    EXPECT_EQ(j["status"], "unverified");
    EXPECT_EQ(j["reason"], "wrong_address");
}

TEST_F(VerifyDraftAgentCli, unknown_draft_agent_and_bad_revision_are_one_error_line) {
    CommandResult r = run({"verify", "agent", "--revision", "draft", "42"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(lines(r.err).size(), 1U) << r.err;
    EXPECT_NE(r.err.find("reading draft agent 42"), std::string::npos) << r.err;
    r = run({"verify", "agent", "--revision", "v0", "1"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("--revision"), std::string::npos) << r.err;
}

// The intermediate revision (ERC-8004 intermediate §Identity Registry): its registration file, with
// `endpoints`, read from ScoreIdentityRegistry's tokenURI and checked by the same rules; the
// agent's wallet comes from getMetadata("agentWallet"), since that registry has no getAgentWallet.
TEST_F(VerifyDraftAgentCli, an_intermediate_revision_agent_is_verified_by_its_file) {
    const std::string registry = devnet_->address("ScoreIdentityRegistry").to_checksum_hex();
    (void)cast(*devnet_,
               {"send", registry, "register(string)", "https://draft-agent.test/score.json",
                "--private-key", devnet_->dev_key(1)});
    const Json file{
        {"type", "https://eips.ethereum.org/EIPS/eip-8004#registration-v1"},
        {"name", "Score Agent"},
        {"description", "an intermediate-revision agent"},
        {"image", "https://draft-agent.test/icon.png"},
        {"endpoints", Json::array({{{"name", "MCP"},
                                    {"endpoint", "https://draft-agent.test/mcp"},
                                    {"version", "2025-06-18"}}})},
        {"registrations",
         Json::array({{{"agentId", 0},
                       {"agentRegistry",
                        "eip155:" + std::to_string(devnet_->chain_id()) + ":" + registry}}})},
        {"supportedTrust", {"reputation"}}};
    server_->serve("draft-agent.test", "/score.json", file.dump());
    const CommandResult r = run({"verify", "agent", "--revision", "score", "0", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const Json j = Json::parse(r.out);
    EXPECT_EQ(j["status"], "verified") << r.out;
    EXPECT_NE(r.out.find("earlier_revision"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("Score Agent"), std::string::npos) << r.out;
    // An id the intermediate registry never minted is one error line.
    const CommandResult wrong = run({"verify", "agent", "--revision", "score", "7", "--json"});
    EXPECT_EQ(wrong.exit_code, 1) << wrong.out;
    EXPECT_NE(wrong.err.find("reading agent 7"), std::string::npos) << wrong.err;
}

}  // namespace
