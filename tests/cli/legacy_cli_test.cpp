// End-to-end tests of `--revision score|draft` on `credence agent`, `credence feedback` and
// `credence validation` (docs/cli.md §Earlier ERC-8004 revisions): the real binary against a
// devnet deployed with `--revisions all`, each revision's story played through, and every result
// read back from the revision's registry with the real `cast`, never only from the CLI's output.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/erc8004_cli_helpers.hpp"
#include "support/devnet.hpp"

namespace {

using namespace credence::testing;
using namespace credence::testing::erc8004;

size_t newlines(const std::string& s) {
    return static_cast<size_t>(std::count(s.begin(), s.end(), '\n'));
}

/// One devnet per test with every revision's registries, as `credence devnet --revisions all`.
class LegacyCli : public ::testing::Test {
protected:
    void SetUp() override {
        DevnetOptions options;
        options.revisions = credence::chain::DeployRevisions::all;
        auto started = Devnet::start(options);
        ASSERT_TRUE(started) << started.error();
        devnet_ = std::move(*started);
    }
    Devnet& devnet() { return *devnet_; }
    credence::core::Address contract(const std::string& name) { return devnet().address(name); }
    std::string key(size_t i) { return devnet().dev_key(i); }
    std::string addr(size_t i) { return devnet().dev_address(i).to_checksum_hex(); }

    /// `credence <args> --private-key <account i> --json`, expecting success.
    nlohmann::json as(size_t account, std::vector<std::string> args) {
        args.insert(args.end(), {"--private-key", key(account)});
        return credence_json(devnet(), std::move(args));
    }
    nlohmann::json read(std::vector<std::string> args) {
        return credence_json(devnet(), std::move(args));
    }
    /// A command that must fail: exit 1 and one line on stderr.
    std::string failure(std::vector<std::string> args) {
        const CommandResult r = run_cli(devnet(), args);
        EXPECT_EQ(r.exit_code, 1) << r.out;
        EXPECT_EQ(newlines(r.err), 1u) << r.err;
        return r.err;
    }

private:
    std::unique_ptr<Devnet> devnet_;
};

// ---- first draft ------------------------------------------------------------------------------

// ERC-8004 first draft §Identity Registry: New, Update, Get, ResolveByDomain, ResolveByAddress;
// every write comes from the AgentAddress.
TEST_F(LegacyCli, draft_agents_register_update_and_resolve_by_domain_and_address) {
    const auto registry = contract("DraftIdentityRegistry");
    const auto alice =
        as(1, {"agent", "register", "--revision", "draft", "--domain", "alice.example"});
    ASSERT_TRUE(alice.contains("agentId")) << alice;
    EXPECT_EQ(alice["agentAddress"], addr(1));  // the signer by default
    EXPECT_EQ(alice["revision"], "draft");
    const std::string id = alice["agentId"];
    // The registry itself resolves the domain to the agent and address the CLI reported.
    const std::string by_domain = cast_call(
        devnet(), registry, "resolveByDomain(string)((uint256,string,address))", {"alice.example"});
    EXPECT_EQ(by_domain, "(" + id + ", \"alice.example\", " + addr(1) + ")");

    const auto updated = as(1, {"agent", "update", "--revision", "draft", id, "--domain",
                                "alice2.example", "--address", addr(3)});
    EXPECT_EQ(updated["agentDomain"], "alice2.example");
    EXPECT_EQ(updated["agentAddress"], addr(3));
    EXPECT_EQ(cast_call(devnet(), registry, "getAgent(uint256)((uint256,string,address))", {id}),
              "(" + id + ", \"alice2.example\", " + addr(3) + ")");

    // resolve and show read the chain (domains compare case-insensitively in the registry).
    const auto by_name =
        read({"agent", "resolve", "--revision", "draft", "--domain", "ALICE2.example"});
    EXPECT_EQ(by_name["agentId"], id);
    const auto by_address = read({"agent", "resolve", "--revision", "draft", "--address", addr(3)});
    EXPECT_EQ(by_address["agentDomain"], "alice2.example");
    const auto shown = read({"agent", "show", "--revision", "draft", id});
    EXPECT_EQ(shown["agentAddress"], addr(3));

    // The old AgentAddress may no longer write: the registry's revert, decoded, on one line.
    const std::string err = failure({"agent", "update", "--revision", "draft", id, "--domain",
                                     "mallory.example", "--private-key", key(1)});
    EXPECT_NE(err.find("updateAgent reverted: UnauthorizedCaller("), std::string::npos) << err;
    const std::string gone =
        failure({"agent", "resolve", "--revision", "draft", "--domain", "alice.example"});
    EXPECT_NE(gone.find("AgentNotFound()"), std::string::npos) << gone;
}

// ERC-8004 first draft §Reputation Registry: the server agent authorizes a client agent's
// feedback; the FeedbackAuthID is the AuthFeedback event's. §Validation Registry: the server
// asks a validator agent about a DataHash, the validator answers 0..100.
TEST_F(LegacyCli, draft_feedback_authorization_and_validation) {
    const std::string client = as(
        1, {"agent", "register", "--revision", "draft", "--domain", "client.example"})["agentId"];
    const std::string server = as(
        2, {"agent", "register", "--revision", "draft", "--domain", "server.example"})["agentId"];
    const auto reputation = contract("DraftReputationRegistry");

    // Only the server agent's address may authorize.
    const std::string refused = failure({"feedback", "accept", "--revision", "draft", "--client",
                                         client, "--server", server, "--private-key", key(1)});
    EXPECT_NE(refused.find("acceptFeedback reverted: UnauthorizedCaller("), std::string::npos)
        << refused;
    const auto auth = as(
        2, {"feedback", "accept", "--revision", "draft", "--client", client, "--server", server});
    ASSERT_TRUE(auth.contains("feedbackAuthId")) << auth;
    EXPECT_EQ(lower(auth["feedbackAuthId"]),
              cast_call(devnet(), reputation, "getFeedbackAuthId(uint256,uint256)(bytes32)",
                        {client, server}));
    EXPECT_EQ(lines(cast_call(devnet(), reputation, "getFeedbackAuth(bytes32)(uint256,uint256)",
                              {auth["feedbackAuthId"]})),
              (std::vector<std::string>{client, server}));

    const auto validation = contract("DraftValidationRegistry");
    const std::string data_hash = cast_offline({"keccak", "the server's work"});
    const auto requested = as(2, {"validation", "request", "--revision", "draft", "--validator",
                                  client, "--server", server, "--data-hash", data_hash});
    EXPECT_EQ(requested["dataHash"], data_hash);
    auto status = read({"validation", "status", "--revision", "draft", data_hash});
    EXPECT_EQ(status["pending"], true);
    EXPECT_TRUE(status["response"].is_null()) << status;
    EXPECT_EQ(lines(cast_call(devnet(), validation, "isValidationPending(bytes32)(bool,bool)",
                              {data_hash})),
              (std::vector<std::string>{"true", "true"}));

    // A response out of range never reaches the chain; the validator's in-range one does.
    const std::string out_of_range =
        failure({"validation", "respond", "--revision", "draft", data_hash, "--response", "101",
                 "--private-key", key(1)});
    EXPECT_NE(out_of_range.find("0..100"), std::string::npos) << out_of_range;
    const auto answered =
        as(1, {"validation", "respond", "--revision", "draft", data_hash, "--response", "77"});
    EXPECT_EQ(answered["response"], 77);
    EXPECT_EQ(lines(cast_call(devnet(), validation, "getValidationResponse(bytes32)(bool,uint8)",
                              {data_hash})),
              (std::vector<std::string>{"true", "77"}));
    status = read({"validation", "status", "--revision", "draft", data_hash});
    EXPECT_EQ(status["response"], 77);
    EXPECT_EQ(status["pending"], false);
    EXPECT_EQ(status["agentValidatorId"], client);
}

// The registry is the deployment's contract recorded with the revision, whatever its name; an
// entry without the recorded revision is no earlier revision's registry (chain/deployment.hpp).
TEST_F(LegacyCli, the_registry_is_the_one_the_deployment_records_with_the_revision) {
    const std::string id =
        as(1, {"agent", "register", "--revision", "draft", "--domain", "alice.example"})["agentId"];
    const auto written =
        nlohmann::json::parse(read_file(devnet().home() / "deployments" /
                                        (std::to_string(devnet().chain_id()) + ".json")),
                              nullptr, false);
    ASSERT_TRUE(written.contains("contracts")) << written;

    auto renamed = written;
    renamed["contracts"]["OldDraftIdentityRegistry"] =
        renamed["contracts"]["DraftIdentityRegistry"];
    renamed["contracts"].erase("DraftIdentityRegistry");
    const auto renamed_file = temp_file("renamed_deployment.json", renamed.dump());
    const auto shown =
        read({"agent", "show", "--revision", "draft", id, "--deployment", renamed_file.string()});
    EXPECT_EQ(shown["agentDomain"], "alice.example");

    auto unrecorded = written;
    unrecorded["contracts"]["DraftIdentityRegistry"].erase("revision");
    const auto unrecorded_file = temp_file("unrecorded_deployment.json", unrecorded.dump());
    const std::string err = failure(
        {"agent", "show", "--revision", "draft", id, "--deployment", unrecorded_file.string()});
    EXPECT_NE(err.find("the deployment has no DraftIdentityRegistry"), std::string::npos) << err;
}

// ---- intermediate revision --------------------------------------------------------------------

// ERC-8004 intermediate §Identity Registry: ERC-721 agents with agentURI, metadata and a
// reserved agentWallet read through getMetadata.
TEST_F(LegacyCli, score_agents_register_update_and_show) {
    const auto registry = contract("ScoreIdentityRegistry");
    const auto agent = as(
        1, {"agent", "register", "--revision", "score", "--uri", "https://agent.example/v1.json"});
    ASSERT_TRUE(agent.contains("agentId")) << agent;
    const std::string id = agent["agentId"];
    EXPECT_EQ(agent["revision"], "score");
    EXPECT_EQ(cast_call(devnet(), registry, "ownerOf(uint256)(address)", {id}), addr(1));
    as(1, {"agent", "set-uri", "--revision", "score", id, "https://agent.example/v2.json"});
    EXPECT_EQ(cast_call(devnet(), registry, "tokenURI(uint256)(string)", {id}),
              "\"https://agent.example/v2.json\"");
    // The current registry was not touched (it mints from 0): the revision picked the registry.
    EXPECT_EQ(
        first_word(cast_call(devnet(), contract("IdentityRegistry"), "nextAgentId()(uint256)")),
        "0");
    const auto shown = read({"agent", "show", "--revision", "score", id});
    EXPECT_EQ(shown["agentURI"], "https://agent.example/v2.json");
    EXPECT_EQ(shown["revision"], "score");
    EXPECT_EQ(lower(shown["agentWallet"]),
              lower(cast_call(devnet(), registry, "getMetadata(uint256,string)(bytes)",
                              {id, "agentWallet"})));
}

// ERC-8004 intermediate §Giving Feedback, §Revoking Feedback, §Appending Responses, §Read
// Functions: the story of one agent's feedback, with getSummary read from the contract itself.
TEST_F(LegacyCli, score_feedback_give_revoke_respond_and_summary_match_the_contract) {
    const auto reputation = contract("ScoreReputationRegistry");
    const std::string id = as(
        1, {"agent", "register", "--revision", "score", "--uri", "https://a.example"})["agentId"];
    const auto first = as(
        2, {"feedback", "give", "--revision", "score", id, "--score", "80", "--tag1", "quality"});
    EXPECT_EQ(first["feedbackIndex"], 1);
    EXPECT_EQ(first["score"], 80);
    as(3, {"feedback", "give", "--revision", "score", id, "--score", "41"});
    const auto third = as(3, {"feedback", "give", "--revision", "score", id, "--score", "20"});
    EXPECT_EQ(third["feedbackIndex"], 2);
    EXPECT_EQ(lines(cast_call(devnet(), reputation,
                              "readFeedback(uint256,address,uint64)(uint8,string,string,bool)",
                              {id, addr(2), "1"})),
              (std::vector<std::string>{"80", "\"quality\"", "\"\"", "false"}));

    as(3, {"feedback", "revoke", "--revision", "score", id, "2"});
    EXPECT_EQ(lines(cast_call(devnet(), reputation,
                              "readFeedback(uint256,address,uint64)(uint8,string,string,bool)",
                              {id, addr(3), "2"}))
                  .back(),
              "true");
    as(1, {"feedback", "respond", "--revision", "score", id, addr(2), "1",
           "https://agent.example/refund"});
    EXPECT_EQ(cast_call(devnet(), reputation,
                        "getResponseCount(uint256,address,uint64,address[])(uint64)",
                        {id, addr(2), "1", "[]"}),
              "1");

    const auto read_back = read({"feedback", "read", "--revision", "score", id, addr(3), "2"});
    EXPECT_EQ(read_back["score"], 20);
    EXPECT_EQ(read_back["isRevoked"], true);
    const auto listed = read({"feedback", "list", "--revision", "score", id, "--include-revoked"});
    EXPECT_EQ(listed["count"], 3);

    for (const std::vector<std::string>& filter :
         {std::vector<std::string>{}, std::vector<std::string>{"--tag1", "quality"}}) {
        std::vector<std::string> args{"feedback", "summary", "--revision", "score", id};
        args.insert(args.end(), filter.begin(), filter.end());
        const auto summary = read(args);
        const auto onchain = lines(cast_call(
            devnet(), reputation, "getSummary(uint256,address[],string,string)(uint64,uint8)",
            {id, "[]", filter.empty() ? "" : "quality", ""}));
        ASSERT_EQ(onchain.size(), 2u);
        EXPECT_EQ(std::to_string(summary["count"].get<uint64_t>()), onchain[0]) << summary;
        EXPECT_EQ(std::to_string(summary["averageScore"].get<uint64_t>()), onchain[1]) << summary;
    }

    // The owner may not rate its own agent: the contract's revert, decoded.
    const std::string self = failure(
        {"feedback", "give", "--revision", "score", id, "--score", "99", "--private-key", key(1)});
    EXPECT_NE(self.find("giveFeedback reverted: SelfFeedbackNotAllowed("), std::string::npos)
        << self;
}

// ERC-8004 intermediate §Validation Registry: request by the agent's owner, response by the
// named validator, status and summary read from that revision's registry.
TEST_F(LegacyCli, score_validation_request_respond_status_and_summary) {
    const auto validation = contract("ScoreValidationRegistry");
    const std::string id = as(
        1, {"agent", "register", "--revision", "score", "--uri", "https://a.example"})["agentId"];
    const auto file = temp_file("score_request.json", R"({"task":"translate"})");
    const auto requested = as(
        1, {"validation", "request", "--revision", "score", addr(4), id, "--file", file.string()});
    const std::string request_hash = requested["requestHash"];
    EXPECT_EQ(request_hash, cast_offline({"keccak", hex_of(read_file(file))}));
    EXPECT_EQ(requested["revision"], "score");

    const std::string stranger = failure({"validation", "respond", "--revision", "score",
                                          request_hash, "90", "--private-key", key(5)});
    EXPECT_NE(stranger.find("validationResponse reverted: NotValidator("), std::string::npos)
        << stranger;
    as(4, {"validation", "respond", "--revision", "score", request_hash, "90", "--tag", "hard"});
    const auto onchain = lines(cast_call(
        devnet(), validation, "getValidationStatus(bytes32)(address,uint256,uint8,string,uint256)",
        {request_hash}));
    ASSERT_EQ(onchain.size(), 5u);
    const auto status = read({"validation", "status", "--revision", "score", request_hash});
    EXPECT_EQ(status["validator"], onchain[0]);
    EXPECT_EQ(status["agentId"], onchain[1]);
    EXPECT_EQ(std::to_string(status["response"].get<uint64_t>()), onchain[2]);
    EXPECT_EQ("\"" + status["tag"].get<std::string>() + "\"", onchain[3]);

    const auto summary = read({"validation", "summary", "--revision", "score", id});
    EXPECT_EQ(
        lines(cast_call(devnet(), validation, "getSummary(uint256,address[],string)(uint64,uint8)",
                        {id, "[]", ""})),
        (std::vector<std::string>{std::to_string(summary["count"].get<uint64_t>()),
                                  std::to_string(summary["averageResponse"].get<uint64_t>())}));
}

// ---- bad input --------------------------------------------------------------------------------

TEST_F(LegacyCli, bad_input_gives_one_clear_line_and_sends_nothing) {
    const std::string id = as(
        1, {"agent", "register", "--revision", "score", "--uri", "https://a.example"})["agentId"];
    // ERC-8004 intermediate §Giving Feedback: the score MUST be between 0 and 100.
    const std::string too_high = failure(
        {"feedback", "give", "--revision", "score", id, "--score", "101", "--private-key", key(2)});
    EXPECT_NE(too_high.find("score 101"), std::string::npos) << too_high;
    EXPECT_NE(too_high.find("ERC-8004 intermediate §Giving Feedback"), std::string::npos);
    EXPECT_EQ(cast_call(devnet(), contract("ScoreReputationRegistry"),
                        "getLastIndex(uint256,address)(uint64)", {id, addr(2)}),
              "0");

    const std::string unknown = failure({"agent", "show", "--revision", "v2", id});
    EXPECT_NE(unknown.find("--revision 'v2': unknown ERC-8004 revision"), std::string::npos)
        << unknown;

    // Subcommands a revision does not have, each citing that revision's text.
    EXPECT_NE(failure({"feedback", "give", "--revision", "draft", "1", "--score", "5",
                       "--private-key", key(2)})
                  .find("the first draft has no on-chain feedback (ERC-8004 first draft "
                        "§Reputation Registry)"),
              std::string::npos);
    EXPECT_NE(failure({"feedback", "accept", "--revision", "score", "--client", "1", "--server",
                       "2", "--private-key", key(2)})
                  .find("the intermediate revision has no feedback authorization (ERC-8004 "
                        "intermediate §Giving Feedback)"),
              std::string::npos);
    EXPECT_NE(failure({"agent", "resolve", "--domain", "alice.example"})
                  .find("the current revision has no resolve by domain or address (ERC-8004 "
                        "§Identity Registry)"),
              std::string::npos);
    EXPECT_NE(failure({"agent", "set-uri", "--revision", "draft", "1", "https://x.example",
                       "--private-key", key(1)})
                  .find("the first draft has no `agent set-uri` (ERC-8004 first draft §Identity "
                        "Registry)"),
              std::string::npos);
    EXPECT_NE(failure({"agent", "unset-wallet", "--revision", "score", id, "--private-key", key(1)})
                  .find("the intermediate revision has no unsetAgentWallet"),
              std::string::npos);
    EXPECT_NE(failure({"validation", "summary", "--revision", "draft", "1"})
                  .find("the first draft has no validation summary (ERC-8004 first draft "
                        "§Validation Registry)"),
              std::string::npos);
    // A flag of one revision under another.
    EXPECT_NE(failure({"feedback", "give", id, "--score", "5", "--private-key", key(2)})
                  .find("--score is a flag of the intermediate revision: add --revision score"),
              std::string::npos);
}

// A deployment without the earlier revisions' registries names the missing one.
TEST(legacy_cli, a_deployment_without_the_revision_says_so) {
    auto started = Devnet::start();  // --revisions current
    ASSERT_TRUE(started) << started.error();
    const CommandResult r = run_cli(**started, {"agent", "show", "--revision", "draft", "1"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(newlines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("the deployment has no DraftIdentityRegistry (the first draft's Identity "
                         "Registry); deploy it with `credence devnet --revisions all`"),
              std::string::npos)
        << r.err;
}

}  // namespace
