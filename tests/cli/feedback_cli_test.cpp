// End-to-end tests of `credence feedback` (docs/cli.md): the real binary against a devnet, every
// result read back with the real `cast`; feedback-file hashes checked with `cast keccak`.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/erc8004_cli_helpers.hpp"
#include "cli/labeled_output.hpp"
#include "support/devnet.hpp"

namespace {

using namespace credence::testing;
using namespace credence::testing::erc8004;

class FeedbackCli : public DevnetFixture {
protected:
    credence::core::Address reputation() { return devnet().address("ReputationRegistry"); }
    /// An agent owned by dev account 0, registered with cast.
    std::string make_agent() { return cast_register(devnet(), 0, "ipfs://agent"); }
    std::string addr(size_t i) { return devnet().dev_address(i).to_checksum_hex(); }
    std::vector<std::string> read_onchain(const std::string& agent, size_t client,
                                          const std::string& index) {
        return lines(
            cast_call(devnet(), reputation(),
                      "readFeedback(uint256,address,uint64)(int128,uint8,string,string,bool)",
                      {agent, addr(client), index}));
    }
    /// The NewFeedback event's non-indexed fields, decoded by cast from the receipt's log.
    std::vector<std::string> new_feedback_event(const std::string& txn_hash) {
        const std::string data = cast(devnet(), {"receipt", txn_hash, "logs", "--json"});
        const auto logs = nlohmann::json::parse(data, nullptr, false);
        EXPECT_TRUE(logs.is_array() && !logs.empty()) << data;
        if (!logs.is_array() || logs.empty()) return {};
        return lines(cast_offline({"decode-abi", "--input",
                                   "f(uint64,int128,uint8,string,string,string,string,bytes32)",
                                   logs[0]["data"].get<std::string>()}));
    }
};

TEST_F(FeedbackCli, give_converts_the_decimal_value_exactly) {
    const std::string agent = make_agent();
    const auto doc =
        credence_json(devnet(), {"feedback", "give", agent, "99.77", "--tag1", "quality", "--tag2",
                                 "speed", "--endpoint", "https://agent.example/mcp",
                                 "--private-key", devnet().dev_key(1)});
    EXPECT_EQ(doc["feedbackIndex"], 1);
    EXPECT_EQ(doc["value"], "99.77");
    EXPECT_EQ(doc["rawValue"], "9977");
    EXPECT_EQ(doc["valueDecimals"], 2);
    EXPECT_EQ(read_onchain(agent, 1, "1"),
              (std::vector<std::string>{"9977", "2", "\"quality\"", "\"speed\"", "false"}));
    const auto ev = new_feedback_event(doc["txHash"]);
    ASSERT_EQ(ev.size(), 8u);
    EXPECT_EQ(ev[5], "\"https://agent.example/mcp\"");

    // A negative value, given as a plain positional argument.
    const auto neg = credence_json(
        devnet(), {"feedback", "give", agent, "-3.2", "--private-key", devnet().dev_key(1)});
    EXPECT_EQ(neg["feedbackIndex"], 2);
    EXPECT_EQ(read_onchain(agent, 1, "2"),
              (std::vector<std::string>{"-32", "1", "\"\"", "\"\"", "false"}));

    // Trailing zeros are kept as written (value 150, 2 decimals), and 18 decimals is the maximum.
    credence_json(devnet(),
                  {"feedback", "give", agent, "1.50", "--private-key", devnet().dev_key(1)});
    EXPECT_EQ(read_onchain(agent, 1, "3")[0], "150");
    credence_json(devnet(), {"feedback", "give", agent, "0.000000000000000001", "--private-key",
                             devnet().dev_key(1)});
    EXPECT_EQ(read_onchain(agent, 1, "4")[1], "18");
}

// "decimals 19" (and the ±1e38 bound); nothing is sent.
TEST_F(FeedbackCli, give_rejects_19_decimals_and_out_of_range_values) {
    const std::string agent = make_agent();
    const CommandResult d19 = run_cli(devnet(), {"feedback", "give", agent, "0.1234567890123456789",
                                                 "--private-key", devnet().dev_key(1)});
    EXPECT_EQ(d19.exit_code, 1);
    EXPECT_EQ(d19.err,
              "error: value 0.1234567890123456789 has 19 decimals; ERC-8004 allows at most 18\n");
    const CommandResult big =
        run_cli(devnet(), {"feedback", "give", agent, "100000000000000000000000000000000000000.1",
                           "--private-key", devnet().dev_key(1)});
    EXPECT_EQ(big.exit_code, 1);
    EXPECT_EQ(big.err,
              "error: value 100000000000000000000000000000000000000.1 is out of range; the "
              "registry accepts |value| <= 1e38\n");
    const CommandResult bad =
        run_cli(devnet(), {"feedback", "give", agent, "1e2", "--private-key", devnet().dev_key(1)});
    EXPECT_EQ(bad.exit_code, 1);
    EXPECT_NE(bad.err.find("not a plain decimal number"), std::string::npos) << bad.err;
    EXPECT_EQ(cast_call(devnet(), reputation(), "getLastIndex(uint256,address)(uint64)",
                        {agent, addr(1)}),
              "0");
    // Exactly 1e38 is accepted.
    credence_json(devnet(), {"feedback", "give", agent, "100000000000000000000000000000000000000",
                             "--private-key", devnet().dev_key(1)});
    EXPECT_EQ(first_word(read_onchain(agent, 1, "1")[0]),
              "100000000000000000000000000000000000000");
}

// "self-feedback".
TEST_F(FeedbackCli, self_feedback_is_refused_with_the_decoded_revert) {
    const std::string agent = make_agent();
    const CommandResult r =
        run_cli(devnet(), {"feedback", "give", agent, "100", "--private-key", devnet().dev_key(0)});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err, "error: giveFeedback reverted: SelfFeedbackNotAllowed(agentId=" + agent +
                         ", caller=" + addr(0) + ")\n");
}

TEST_F(FeedbackCli, give_builds_the_feedback_file_and_hashes_its_exact_bytes) {
    const std::string agent = make_agent();
    const auto extra = temp_file("extra.json", R"({"mcp":{"tool":"search"},"note":"x"})");
    const auto out_path = temp_file("feedback.json", "");
    const auto doc = credence_json(
        devnet(), {"feedback", "give", agent, "87.5", "--tag1", "quality", "--file-out",
                   out_path.string(), "--uri", "ipfs://bafyfeedback", "--extra", extra.string(),
                   "--field", "comment=fast and right", "--created-at", "2026-01-02T03:04:05Z",
                   "--private-key", devnet().dev_key(2)});
    const std::string bytes = read_file(out_path);
    ASSERT_FALSE(bytes.empty());
    const std::string keccak = cast_offline({"keccak", hex_of(bytes)});
    EXPECT_EQ(doc["feedbackHash"], keccak);
    EXPECT_EQ(doc["feedbackURI"], "ipfs://bafyfeedback");
    // On-chain: the event carries the URI and the hash.
    const auto ev = new_feedback_event(doc["txHash"]);
    ASSERT_EQ(ev.size(), 8u);
    EXPECT_EQ(ev[6], "\"ipfs://bafyfeedback\"");
    EXPECT_EQ(ev[7], keccak);

    // ERC-8004 §Off-Chain Feedback File Structure: the MUST fields.
    const auto file = nlohmann::json::parse(bytes);
    EXPECT_EQ(file["agentRegistry"], "eip155:" + std::to_string(devnet().chain_id()) + ":" +
                                         devnet().address("IdentityRegistry").to_checksum_hex());
    EXPECT_EQ(file["agentId"], std::stoull(agent));
    EXPECT_EQ(lower(file["clientAddress"].get<std::string>()),
              lower("eip155:" + std::to_string(devnet().chain_id()) + ":" + addr(2)));
    EXPECT_EQ(file["createdAt"], "2026-01-02T03:04:05Z");
    EXPECT_EQ(file["value"], 875);
    EXPECT_EQ(file["valueDecimals"], 1);
    EXPECT_EQ(file["tag1"], "quality");
    EXPECT_EQ(file["mcp"]["tool"], "search");
    EXPECT_EQ(file["comment"], "fast and right");
    EXPECT_EQ(file["note"], "x");

    // An extra member may not replace a MUST field.
    const CommandResult clash =
        run_cli(devnet(),
                {"feedback", "give", agent, "1", "--file-out", out_path.string(), "--uri",
                 "ipfs://bafyclash", "--field", "agentId=7", "--private-key", devnet().dev_key(2)});
    EXPECT_EQ(clash.exit_code, 1);
    EXPECT_TRUE(clash.err.starts_with("error: feedback file: ")) << clash.err;
}

// feedbackURI is what readers fetch to check feedbackHash (ERC-8004 §Giving Feedback); the path
// of a file on this machine is not one, so --file-out alone is refused before anything is sent.
TEST_F(FeedbackCli, file_out_without_a_uri_is_refused_before_sending) {
    const std::string agent = make_agent();
    const auto out_path = credence::testing::scratch_dir() / "erc8004_unpublished.json";
    const CommandResult r =
        run_cli(devnet(), {"feedback", "give", agent, "5", "--file-out", out_path.string(),
                           "--private-key", devnet().dev_key(2)});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("--uri URL"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--file-data-uri"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(std::filesystem::exists(out_path));
    EXPECT_EQ(cast_call(devnet(), devnet().address("ReputationRegistry"),
                        "getLastIndex(uint256,address)(uint64)", {agent, addr(2)}),
              "0");

    // With --file-data-uri the same file is written and its data: URI goes on chain.
    const auto doc =
        credence_json(devnet(), {"feedback", "give", agent, "5", "--file-out", out_path.string(),
                                 "--file-data-uri", "--private-key", devnet().dev_key(2)});
    EXPECT_TRUE(doc["feedbackURI"].get<std::string>().starts_with("data:application/json;base64,"));
    EXPECT_EQ(doc["feedbackHash"], cast_offline({"keccak", hex_of(read_file(out_path))}));
}

TEST_F(FeedbackCli, give_with_a_data_uri_feedback_file) {
    const std::string agent = make_agent();
    const auto doc = credence_json(devnet(), {"feedback", "give", agent, "42", "--file-data-uri",
                                              "--private-key", devnet().dev_key(1)});
    const std::string uri = doc["feedbackURI"];
    const std::string prefix = "data:application/json;base64,";
    ASSERT_TRUE(uri.starts_with(prefix)) << uri;
    const auto b64 = temp_file("uri.b64", uri.substr(prefix.size()));
    const CommandResult decoded = run_command("/usr/bin/base64", {"-d", b64.string()});
    ASSERT_EQ(decoded.exit_code, 0);
    EXPECT_EQ(doc["feedbackHash"], cast_offline({"keccak", hex_of(decoded.out)}));
    const auto ev = new_feedback_event(doc["txHash"]);
    ASSERT_EQ(ev.size(), 8u);
    EXPECT_EQ(ev[6], "\"" + uri + "\"");
    EXPECT_EQ(nlohmann::json::parse(decoded.out)["value"], 42);
}

TEST_F(FeedbackCli, revoke_respond_list_and_summary) {
    const std::string agent = make_agent();
    credence_json(devnet(), {"feedback", "give", agent, "80", "--tag1", "a", "--private-key",
                             devnet().dev_key(1)});
    credence_json(devnet(), {"feedback", "give", agent, "90.5", "--tag1", "b", "--private-key",
                             devnet().dev_key(2)});
    credence_json(devnet(), {"feedback", "give", agent, "70", "--tag1", "a", "--private-key",
                             devnet().dev_key(3)});

    // summary: every client by default; compare with getSummary through cast.
    const auto all = credence_json(devnet(), {"feedback", "summary", agent});
    const auto want = lines(cast_call(
        devnet(), reputation(), "getSummary(uint256,address[],string,string)(uint64,int128,uint8)",
        {agent, "[" + addr(1) + "," + addr(2) + "," + addr(3) + "]", "", ""}));
    ASSERT_EQ(want.size(), 3u);
    EXPECT_EQ(all["count"], std::stoull(want[0]));
    EXPECT_EQ(all["summaryValue"], want[1]);
    EXPECT_EQ(all["summaryValueDecimals"], std::stoull(want[2]));
    EXPECT_EQ(all["summary"], "80");  // (80 + 90.5 + 70) / 3 = 80.1666…, shown at 0 decimals
    const auto tagged = credence_json(devnet(), {"feedback", "summary", agent, "--client", addr(1),
                                                 "--client", addr(2), "--tag1", "b"});
    EXPECT_EQ(tagged["count"], 1);
    EXPECT_EQ(tagged["summary"], "90.5");

    // revoke client 1's feedback.
    credence_json(devnet(),
                  {"feedback", "revoke", agent, "1", "--private-key", devnet().dev_key(1)});
    EXPECT_EQ(read_onchain(agent, 1, "1")[4], "true");
    const CommandResult again =
        run_cli(devnet(), {"feedback", "revoke", agent, "1", "--private-key", devnet().dev_key(1)});
    EXPECT_EQ(again.exit_code, 1);
    EXPECT_EQ(again.err,
              "error: revokeFeedback reverted: FeedbackAlreadyRevoked(feedbackIndex=1)\n");

    // list: revoked rows only on request; filters by client and tag.
    const auto live = credence_json(devnet(), {"feedback", "list", agent});
    EXPECT_EQ(live["count"], 2);
    const auto with_revoked =
        credence_json(devnet(), {"feedback", "list", agent, "--include-revoked"});
    ASSERT_EQ(with_revoked["count"], 3);
    EXPECT_EQ(with_revoked["feedback"][0]["client"], addr(1));
    EXPECT_TRUE(with_revoked["feedback"][0]["isRevoked"].get<bool>());
    EXPECT_EQ(with_revoked["feedback"][1]["value"], "90.5");
    const auto by_tag =
        credence_json(devnet(), {"feedback", "list", agent, "--tag1", "a", "--include-revoked"});
    EXPECT_EQ(by_tag["count"], 2);
    const auto by_client =
        credence_json(devnet(), {"feedback", "list", agent, "--client", addr(3)});
    ASSERT_EQ(by_client["count"], 1);
    EXPECT_EQ(by_client["feedback"][0]["value"], "70");

    // read matches the chain.
    const auto one = credence_json(devnet(), {"feedback", "read", agent, addr(2), "1"});
    EXPECT_EQ(one["value"], "90.5");
    EXPECT_EQ(one["tag1"], "b");
    EXPECT_EQ(one["isRevoked"], false);

    // respond (by the agent owner) with a response file hashed into responseHash.
    const auto response = temp_file("response.json", R"({"reply":"thanks"})");
    const auto resp = credence_json(
        devnet(), {"feedback", "respond", agent, addr(2), "1", "ipfs://bafyresponse",
                   "--response-file", response.string(), "--private-key", devnet().dev_key(0)});
    EXPECT_EQ(resp["responseHash"], cast_offline({"keccak", hex_of(read_file(response))}));
    EXPECT_EQ(cast_call(devnet(), reputation(),
                        "getResponseCount(uint256,address,uint64,address[])(uint64)",
                        {agent, addr(2), "1", "[]"}),
              "1");
}

TEST_F(FeedbackCli, plain_output_and_one_line_errors) {
    const std::string agent = make_agent();
    const CommandResult give =
        run_cli(devnet(), {"feedback", "give", agent, "5", "--private-key", devnet().dev_key(1)});
    ASSERT_EQ(give.exit_code, 0) << give.err;
    // Labeled with the --json names (docs/cli.md §Output).
    EXPECT_EQ(labeled_value(give.out, "feedbackIndex"), "1") << give.out;
    EXPECT_EQ(labeled_value(give.out, "value"), "5") << give.out;
    const CommandResult summary = run_cli(devnet(), {"feedback", "summary", agent});
    EXPECT_EQ(labeled_value(summary.out, "count"), "1") << summary.out;
    EXPECT_EQ(labeled_value(summary.out, "summary"), "5") << summary.out;
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"feedback", "read", agent, addr(1), "9"},
             {"feedback", "give", "x", "1", "--private-key", devnet().dev_key(1)},
             {"feedback", "list", agent, "--client", "0x123"}}) {
        const CommandResult r = run_cli(devnet(), args);
        EXPECT_EQ(r.exit_code, 1) << args[1];
        EXPECT_TRUE(r.err.starts_with("error: ")) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
}

}  // namespace
