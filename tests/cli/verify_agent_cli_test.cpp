// End-to-end tests of `credence verify agent` and `credence verify resolve` (docs/architecture.md
// §verify/): agents registered with `cast send` (independent of credence) on a devnet, their
// registration files, domain files and agent cards served by a real HTTPS server on loopback, the
// index built by the real `credence index --once` into a SQLite file.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/erc8004_cli_helpers.hpp"
#include "cli/labeled_output.hpp"
#include "support/devnet.hpp"
#include "support/https_server.hpp"
#include "support/scratch.hpp"

namespace {

using namespace credence::testing;
using namespace credence::testing::erc8004;
using Json = nlohmann::json;

class VerifyAgentCli : public DevnetFixture {
protected:
    void SetUp() override {
        DevnetFixture::SetUp();
        if (HasFatalFailure()) return;
        server_ = std::make_unique<HttpsServer>(std::vector<std::string>{"agent.test", "mcp.test"});
    }
    void TearDown() override {
        server_.reset();
        DevnetFixture::TearDown();
    }
    std::vector<std::string> fetch_flags() {
        std::vector<std::string> f = {"--ca-file", server_->ca_file(), "--allow-host", "127.0.0.1"};
        for (const auto& c : server_->connect_to()) {
            f.emplace_back("--connect-to");
            f.push_back(c);
        }
        return f;
    }
    CommandResult run(std::vector<std::string> args, bool fetches = true) {
        if (fetches)
            for (auto& f : fetch_flags()) args.push_back(std::move(f));
        return run_cli(devnet(), args);
    }
    std::string registry() {
        return "eip155:" + std::to_string(devnet().chain_id()) + ":" +
               devnet().address("IdentityRegistry").to_checksum_hex();
    }
    /// A registration file naming agent `id` with an MCP endpoint on mcp.test and an A2A card on
    /// agent.test.
    std::string file(const std::string& id) {
        Json doc = Json::parse(registration_file("cli-agent"));
        doc["services"] = Json::array(
            {Json{{"name", "MCP"}, {"endpoint", "https://mcp.test/mcp"}, {"version", "1"}},
             Json{{"name", "A2A"},
                  {"endpoint", "https://agent.test/.well-known/agent-card.json"},
                  {"version", "0.3.0"}}});
        doc["registrations"] =
            Json::array({Json{{"agentId", Json::parse(id)}, {"agentRegistry", registry()}}});
        return doc.dump();
    }
    void serve_agent(const std::string& id, const std::string& path) {
        server_->serve("agent.test", path, file(id));
        server_->serve("agent.test", "/.well-known/agent-card.json",
                       R"({"name": "A", "description": "d", "url": "https://agent.test/a2a",
                           "version": "1", "skills": [{"id": "summarize", "name": "S",
                           "description": "d", "tags": ["text"]}]})");
    }
    void serve_domain_file(const std::vector<std::string>& ids) {
        Json regs = Json::array();
        for (const auto& id : ids)
            regs.push_back({{"agentId", Json::parse(id)}, {"agentRegistry", registry()}});
        server_->serve("mcp.test", "/.well-known/agent-registration.json",
                       Json{{"registrations", regs}}.dump());
    }

    std::unique_ptr<HttpsServer> server_;
};

TEST_F(VerifyAgentCli, verify_agent_reports_file_domains_and_card) {
    const std::string id = cast_register(devnet(), 1, "https://agent.test/agent-0.json");
    serve_agent(id, "/agent-0.json");
    serve_domain_file({id});
    const CommandResult r = run({"verify", "agent", id, "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const Json j = Json::parse(r.out);
    EXPECT_EQ(j["status"], "verified") << r.out;
    EXPECT_EQ(j["agentId"], id);
    EXPECT_EQ(j["agentRegistry"], registry());
    EXPECT_EQ(j["owner"], devnet().dev_address(1).to_checksum_hex());
    EXPECT_EQ(j["registration"]["matches"], true);
    ASSERT_EQ(j["domains"].size(), 2U);
    EXPECT_EQ(j["domains"][0]["domain"], "mcp.test");
    EXPECT_EQ(j["domains"][0]["reason"], "verified");
    EXPECT_EQ(j["domains"][1]["domain"], "agent.test");
    EXPECT_EQ(j["domains"][1]["reason"], "same_domain");
    EXPECT_EQ(j["agentCards"][0]["skills"][0]["id"], "summarize");
    EXPECT_EQ(j["agentCards"][0]["binding"], "card_domain");

    // Plain output: the status first, labeled, one line per domain and card.
    const CommandResult plain = run({"verify", "agent", id});
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    ASSERT_FALSE(credence::testing::labels(plain.out).empty()) << plain.out;
    EXPECT_EQ(credence::testing::labels(plain.out)[0], "status") << plain.out;
    EXPECT_EQ(credence::testing::labeled_value(plain.out, "status"), "verified") << plain.out;
    EXPECT_NE(plain.out.find("mcp.test verified"), std::string::npos) << plain.out;
    EXPECT_NE(plain.out.find("skills=summarize"), std::string::npos) << plain.out;
}

TEST_F(VerifyAgentCli, wrong_agent_id_is_unverified_with_its_reason) {
    const std::string id = cast_register(devnet(), 1, "https://agent.test/agent-x.json");
    server_->serve("agent.test", "/agent-x.json", file(std::to_string(std::stoull(id) + 7)));
    const CommandResult r = run({"verify", "agent", id, "--json", "--no-card"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const Json j = Json::parse(r.out);
    EXPECT_EQ(j["status"], "unverified");
    EXPECT_EQ(j["reason"], "wrong_agent_id");
    EXPECT_TRUE(j["agentCards"].empty());
}

TEST_F(VerifyAgentCli, unknown_agent_is_one_error_line) {
    const CommandResult r = run({"verify", "agent", "999999"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(lines(r.err).size(), 1U) << r.err;
    EXPECT_NE(r.err.find("reading agent 999999"), std::string::npos) << r.err;
}

TEST_F(VerifyAgentCli, resolvers_read_the_index) {
    const std::string a = cast_register(devnet(), 1, "https://agent.test/agent-a.json");
    const std::string b = cast_register(devnet(), 2, "https://agent.test/agent-b.json");
    serve_agent(a, "/agent-a.json");
    serve_agent(b, "/agent-b.json");
    serve_domain_file({b});  // only b proves mcp.test
    const std::string db = (scratch_dir() / ("verify-agent-cli-" + a + ".sqlite")).string();
    const CommandResult indexed = run({"index", "--once", "--database", db}, false);
    ASSERT_EQ(indexed.exit_code, 0) << indexed.err;

    CommandResult r = run({"verify", "resolve", "address",
                           devnet().dev_address(1).to_checksum_hex(), "--database", db, "--json"},
                          false);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    Json j = Json::parse(r.out);
    ASSERT_EQ(j["agents"].size(), 1U) << r.out;
    EXPECT_EQ(j["agents"][0]["agentId"], a);
    EXPECT_EQ(j["agents"][0]["matchedBy"], Json::array({"owner", "wallet"}));

    r = run({"verify", "resolve", "domain", "mcp.test", "--database", db, "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    j = Json::parse(r.out);
    ASSERT_EQ(j["agents"].size(), 1U) << r.out;
    EXPECT_EQ(j["agents"][0]["agentId"], b);
    EXPECT_EQ(j["agents"][0]["matchedBy"], Json::array({"domain"}));

    // Both serve their matching file from agent.test.
    r = run({"verify", "resolve", "domain", "https://agent.test/", "--database", db, "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(Json::parse(r.out)["agents"].size(), 2U) << r.out;

    r = run({"verify", "resolve", "domain", "not a domain", "--database", db});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("not a DNS name"), std::string::npos) << r.err;
}

}  // namespace
