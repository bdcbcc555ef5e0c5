// `credence trust` end to end: feedback given with the real CLI on a devnet, indexed with
// `credence index --once`, then the offline getSummary mirror checked against `cast call
// getSummary` (the contract's own answer) and the trust score's explanation read back.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/erc8004_cli_helpers.hpp"
#include "support/devnet.hpp"
#include "support/scratch.hpp"

namespace {

using namespace credence::testing;
using namespace credence::testing::erc8004;

class TrustCli : public DevnetFixture {
protected:
    void give(size_t client, const std::string& agent, const std::string& value,
              const std::string& tag1) {
        const auto r = run_cli(devnet(), {"feedback", "give", agent, value, "--tag1", tag1,
                                          "--private-key", devnet().dev_key(client)});
        ASSERT_EQ(r.exit_code, 0) << r.err;
    }
    std::string index_db() {
        static int counter = 0;  // one scratch directory per process: names must not repeat
        const std::string db =
            (scratch_dir() / ("trust_" + std::to_string(counter++) + ".sqlite")).string();
        const auto r = run_cli(devnet(), {"index", "--once", "--database", db});
        EXPECT_EQ(r.exit_code, 0) << r.err;
        return db;
    }
};

TEST_F(TrustCli, summary_mirror_equals_cast_call_and_score_explains_reviewers) {
    const std::string agent = cast_register(devnet(), 0, "ipfs://agent");
    give(1, agent, "99.77", "uptime");
    give(2, agent, "87", "starred");
    give(3, agent, "-3.2", "starred");
    give(2, agent, "560", "responseTime");
    const std::string db = index_db();

    const std::string c1 = devnet().dev_address(1).to_checksum_hex();
    const std::string c2 = devnet().dev_address(2).to_checksum_hex();
    const std::string c3 = devnet().dev_address(3).to_checksum_hex();
    const std::vector<std::vector<std::string>> cases{{c1, c2, c3}, {c2}, {c1, c3}, {c2, c2, c1}};
    for (const auto& clients : cases) {
        for (const std::string tag1 : {"", "starred"}) {
            std::vector<std::string> args{"trust", "summary", agent, "--database", db};
            std::string list = "[";
            for (const auto& c : clients) {
                args.insert(args.end(), {"--client", c});
                list += (list.size() > 1 ? "," : "") + c;
            }
            list += "]";
            if (!tag1.empty()) args.insert(args.end(), {"--tag1", tag1});
            const auto doc = credence_json(devnet(), args);
            const auto onchain =
                lines(cast_call(devnet(), devnet().address("ReputationRegistry"),
                                "getSummary(uint256,address[],string,string)(uint64,int128,uint8)",
                                {agent, list, tag1, ""}));
            ASSERT_EQ(onchain.size(), 3U);
            EXPECT_EQ(std::to_string(doc["count"].get<uint64_t>()), first_word(onchain[0]));
            EXPECT_EQ(doc["summaryValue"].get<std::string>(), first_word(onchain[1])) << list;
            EXPECT_EQ(std::to_string(doc["summaryValueDecimals"].get<int>()),
                      first_word(onchain[2]));
            EXPECT_EQ(doc["rules"], "credence");  // the deployment file's registry
        }
    }
    // The deployed v2.0.0 rules, asked for by name: c2 listed twice counts twice
    // (docs/compatibility.md §The getSummary mirror); the contract here counts it once.
    const auto v2 =
        credence_json(devnet(), {"trust", "summary", agent, "--database", db, "--client", c2,
                                 "--client", c2, "--client", c1, "--rules", "erc8004-v2"});
    EXPECT_EQ(v2["rules"], "erc8004-v2");
    EXPECT_EQ(v2["count"], 5);  // c2's two feedbacks twice, c1's once
    const auto once = credence_json(devnet(), {"trust", "summary", agent, "--database", db,
                                               "--client", c2, "--client", c2, "--client", c1});
    EXPECT_EQ(once["count"], 3);

    const auto score = credence_json(devnet(), {"trust", "score", agent, "--database", db,
                                                "--explain", "--seconds-per-block", "1"});
    ASSERT_TRUE(score.is_object());
    EXPECT_EQ(score["reviews"], 4);
    EXPECT_GT(score["score"].get<double>(), 0.0);
    EXPECT_LT(score["score"].get<double>(), 1.0);
    EXPECT_LE(score["interval95"][0].get<double>(), score["score"].get<double>());
    EXPECT_GE(score["interval95"][1].get<double>(), score["score"].get<double>());
    ASSERT_EQ(score["contributions"].size(), 4U);
    bool saw_measure = false;
    for (const auto& c : score["contributions"]) {
        for (const auto& d : c["discounts"]) saw_measure |= d == "not_a_rating";
        // Nobody paid and no seed is set: every reviewer is unpaid and narrow.
        EXPECT_NE(std::find(c["discounts"].begin(), c["discounts"].end(), "no_verified_payment"),
                  c["discounts"].end());
    }
    EXPECT_TRUE(saw_measure);  // responseTime is a measure, not a rating
    bool tagged = false;
    for (const auto& t : score["tags"]) {
        if (t["tag"] == "responseTime") {
            tagged = true;
            EXPECT_EQ(t["isRating"], false);
            EXPECT_DOUBLE_EQ(t["score"].get<double>(), 560.0);
        }
    }
    EXPECT_TRUE(tagged);
}

TEST_F(TrustCli, summary_without_clients_is_refused_like_the_contract) {
    const std::string agent = cast_register(devnet(), 0, "ipfs://agent");
    const std::string db = index_db();
    const auto r = run_cli(devnet(), {"trust", "summary", agent, "--database", db});
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.err.find("--client is required"), std::string::npos) << r.err;
    const auto missing = run_cli(devnet(), {"trust", "score", "77", "--database", db});
    EXPECT_NE(missing.exit_code, 0);
    EXPECT_NE(missing.err.find("not in the index"), std::string::npos) << missing.err;
    // With every registry and the chain id named, the index alone answers: no node needed.
    const auto offline = run_command(
        CREDENCE_BIN, {"trust", "score", agent, "--database", db, "--json", "--rpc",
                       "http://127.0.0.1:1", "--chain-id", std::to_string(devnet().chain_id()),
                       "--identity", devnet().address("IdentityRegistry").to_checksum_hex(),
                       "--reputation", devnet().address("ReputationRegistry").to_checksum_hex(),
                       "--validation", devnet().address("ValidationRegistry").to_checksum_hex()});
    EXPECT_EQ(offline.exit_code, 0) << offline.err;
    const auto doc = nlohmann::json::parse(offline.out, nullptr, false);
    ASSERT_TRUE(doc.is_object()) << offline.out;
    EXPECT_EQ(doc["reviews"], 0);
    EXPECT_EQ(doc["score"], 0.5);  // no evidence: the Beta(1, 1) prior
    // Offline, an address that is neither a deployed registry nor known from a deployment file:
    // the summary does not guess whose rules apply.
    std::vector<std::string> offline_summary{
        "trust",
        "summary",
        agent,
        "--database",
        db,
        "--client",
        devnet().dev_address(1).to_checksum_hex(),
        "--rpc",
        "http://127.0.0.1:1",
        "--chain-id",
        std::to_string(devnet().chain_id()),
        "--identity",
        devnet().address("IdentityRegistry").to_checksum_hex(),
        "--reputation",
        devnet().address("ReputationRegistry").to_checksum_hex(),
        "--validation",
        devnet().address("ValidationRegistry").to_checksum_hex()};
    // A home with no deployment file, whatever this machine's own ~/.credence holds.
    const std::map<std::string, std::string> no_deployments{
        {"CREDENCE_HOME", (credence::testing::scratch_dir() / "no-deployments").string()}};
    const auto unknown = run_command(CREDENCE_BIN, offline_summary, no_deployments);
    EXPECT_EQ(unknown.exit_code, 1);
    EXPECT_NE(unknown.err.find("pass --rules credence or --rules erc8004-v2"), std::string::npos)
        << unknown.err;
    offline_summary.insert(offline_summary.end(), {"--rules", "credence", "--json"});
    const auto named = run_command(CREDENCE_BIN, offline_summary, no_deployments);
    EXPECT_EQ(named.exit_code, 0) << named.err;
}

// README.md §The CLI: `trust` and `index status` read only the index. With no node, the chain is
// the index's one chain and the registries are the deployment file's (whose ReputationRegistry
// is a Credence one, so getSummary's rules need no --rules).
TEST_F(TrustCli, the_index_answers_with_no_node) {
    const std::string agent = cast_register(devnet(), 0, "ipfs://agent");
    give(2, agent, "80", "quality");
    const std::string db = index_db();
    auto env = devnet().env();
    env["ETH_RPC_URL"] = credence::testing::closed_loopback_url();
    const std::string client = devnet().dev_address(2).to_checksum_hex();
    const auto score =
        run_command(CREDENCE_BIN, {"trust", "score", agent, "--database", db, "--json"}, env);
    ASSERT_EQ(score.exit_code, 0) << score.err;
    EXPECT_EQ(nlohmann::json::parse(score.out)["reviews"], 1) << score.out;
    const auto summary = run_command(
        CREDENCE_BIN, {"trust", "summary", agent, "--client", client, "--database", db, "--json"},
        env);
    ASSERT_EQ(summary.exit_code, 0) << summary.err;
    EXPECT_EQ(nlohmann::json::parse(summary.out)["rules"], "credence") << summary.out;

    const auto status =
        run_command(CREDENCE_BIN, {"index", "status", "--database", db, "--json"}, env);
    ASSERT_EQ(status.exit_code, 0) << status.err;
    EXPECT_EQ(nlohmann::json::parse(status.out)["chainId"], devnet().chain_id()) << status.out;
    // A node on another chain than the one asked gives no head to that chain.
    const auto other =
        run_cli(devnet(), {"index", "status", "--database", db, "--chain-id", "1", "--json"});
    ASSERT_EQ(other.exit_code, 0) << other.err;
    EXPECT_TRUE(nlohmann::json::parse(other.out)["head"].is_null()) << other.out;
    // A mistyped index is an error, never a new empty one.
    const std::string missing = (credence::testing::scratch_dir() / "typo.sqlite").string();
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"index", "status", "--database", missing},
             {"trust", "score", agent, "--database", missing},
             {"verify", "resolve", "address", client, "--database", missing}}) {
        const auto r = run_cli(devnet(), args);
        EXPECT_EQ(r.exit_code, 1) << args[0];
        EXPECT_NE(r.err.find("no index at " + missing), std::string::npos) << r.err;
    }
    EXPECT_FALSE(std::filesystem::exists(missing));
}

}  // namespace

// `trust summary --revision score` mirrors ScoreReputationRegistry.getSummary (every client when
// none is listed) and ScoreValidationRegistry.getSummary, each against `cast call` on a devnet
// with every revision; the first draft, which has no getSummary, is refused with the reason.
class TrustCliRevisions : public ::testing::Test {
protected:
    void SetUp() override {
        DevnetOptions options;
        options.revisions = credence::chain::DeployRevisions::all;
        auto started = Devnet::start(options);
        ASSERT_TRUE(started) << started.error();
        devnet_ = std::move(*started);
    }
    std::unique_ptr<Devnet> devnet_;
};

TEST_F(TrustCliRevisions, score_summary_equals_cast_call_and_the_draft_is_refused) {
    const Devnet& d = *devnet_;
    const std::string identity = d.address("ScoreIdentityRegistry").to_checksum_hex();
    const std::string reputation = d.address("ScoreReputationRegistry").to_checksum_hex();
    const std::string validation = d.address("ScoreValidationRegistry").to_checksum_hex();
    cast(d, {"send", identity, "register(string)", "ipfs://score-agent", "--private-key",
             d.dev_key(1)});
    const std::string give = "giveFeedback(uint256,uint8,string,string,string,string,bytes32)";
    const std::string no_hash = "0x" + std::string(64, '0');
    for (const auto& [client, score, tag] :
         std::vector<std::tuple<size_t, std::string, std::string>>{
             {2, "87", "quality"}, {2, "40", ""}, {3, "100", "quality"}, {4, "13", "speed"}}) {
        cast(d, {"send", reputation, give, "0", score, tag, "", "", "", no_hash, "--private-key",
                 d.dev_key(client)});
    }
    cast(d, {"send", reputation, "revokeFeedback(uint256,uint64)", "0", "2", "--private-key",
             d.dev_key(2)});
    const std::string request = "0x" + std::string(63, '0') + "7";
    cast(d, {"send", validation, "validationRequest(address,uint256,string,bytes32)",
             d.dev_address(5).to_checksum_hex(), "0", "", request, "--private-key", d.dev_key(1)});
    cast(d, {"send", validation, "validationResponse(bytes32,uint8,string,bytes32,string)", request,
             "77", "", no_hash, "hard", "--private-key", d.dev_key(5)});
    const std::string db = (scratch_dir() / "trust_revisions.sqlite").string();
    const auto indexed = run_cli(d, {"index", "--once", "--database", db});
    ASSERT_EQ(indexed.exit_code, 0) << indexed.err;

    const std::string c2 = d.dev_address(2).to_checksum_hex();
    const std::string c4 = d.dev_address(4).to_checksum_hex();
    const std::vector<std::vector<std::string>> cases{{}, {c2}, {c2, c4, c2}};
    int nonzero = 0;
    for (const auto& clients : cases) {
        for (const std::string tag1 : {"", "quality"}) {
            std::vector<std::string> args{"trust", "summary",    "0",    "--database",
                                          db,      "--revision", "score"};
            std::string list = "[";
            for (const auto& c : clients) {
                args.insert(args.end(), {"--client", c});
                list += (list.size() > 1 ? "," : "") + c;
            }
            list += "]";
            if (!tag1.empty()) args.insert(args.end(), {"--tag1", tag1});
            const auto doc = credence_json(d, args);
            const auto onchain =
                lines(cast_call(d, d.address("ScoreReputationRegistry"),
                                "getSummary(uint256,address[],string,string)(uint64,uint8)",
                                {"0", list, tag1, ""}));
            ASSERT_EQ(onchain.size(), 2U);
            EXPECT_EQ(std::to_string(doc["count"].get<uint64_t>()), first_word(onchain[0])) << list;
            EXPECT_EQ(std::to_string(doc["averageScore"].get<int>()), first_word(onchain[1]))
                << list;
            EXPECT_EQ(doc["revision"], "score");
            nonzero += doc["count"].get<int>() > 0 ? 1 : 0;
        }
    }
    EXPECT_GE(nonzero, 4);

    const auto v = credence_json(d, {"trust", "summary", "0", "--database", db, "--revision",
                                     "score", "--validations", "--tag", "hard"});
    const auto von =
        lines(cast_call(d, d.address("ScoreValidationRegistry"),
                        "getSummary(uint256,address[],string)(uint64,uint8)", {"0", "[]", "hard"}));
    ASSERT_EQ(von.size(), 2U);
    EXPECT_EQ(std::to_string(v["count"].get<uint64_t>()), first_word(von[0]));
    EXPECT_EQ(std::to_string(v["averageResponse"].get<int>()), first_word(von[1]));
    EXPECT_EQ(v["count"], 1);

    const auto draft =
        run_cli(d, {"trust", "summary", "0", "--database", db, "--revision", "draft"});
    EXPECT_EQ(draft.exit_code, 1);
    EXPECT_NE(draft.err.find("the first draft has no getSummary"), std::string::npos) << draft.err;
    const auto rules = run_cli(d, {"trust", "summary", "0", "--database", db, "--revision", "score",
                                   "--rules", "credence"});
    EXPECT_EQ(rules.exit_code, 1);
    EXPECT_NE(rules.err.find("--rules applies to the current revision only"), std::string::npos)
        << rules.err;
    const auto typo = run_cli(d, {"trust", "summary", "0", "--database", db, "--revision", "v1"});
    EXPECT_NE(typo.exit_code, 0);
    EXPECT_NE(typo.err.find("--revision"), std::string::npos) << typo.err;
}
