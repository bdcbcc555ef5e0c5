// `credence agent check` and `credence feedback check` (docs/cli.md): offline checks of ERC-8004
// registration and feedback files, with no node and no key, on the ERC's own examples
// (tests/data/erc-examples) and broken copies of them. Exit code 1 on errors, for CI and editors.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/erc8004_cli_helpers.hpp"
#include "cli/labeled_output.hpp"
#include "support/devnet.hpp"
#include "support/erc_examples.hpp"
#include "support/scratch.hpp"
#include "support/vectors.hpp"

namespace {

using namespace credence::testing;
using namespace credence::testing::erc8004;
using nlohmann::json;

// No node is reachable: a check that contacted one would fail.
const std::map<std::string, std::string> kNoNode{{"ETH_RPC_URL", "http://127.0.0.1:1"},
                                                 {"CREDENCE_HOME", "/nonexistent"}};

CommandResult run_offline(const std::vector<std::string>& args) {
    return run_command(CREDENCE_BIN, args, kNoNode);
}

std::string write_scratch(const std::string& name, const std::string& text) {
    const auto path = scratch_dir() / name;
    std::ofstream(path, std::ios::binary) << text;
    return path.string();
}

std::string mainnet_identity() {
    return read_vector_json("erc8004.json")["deployed"]["mainnets"]["identity"].get<std::string>();
}

/// ERC-8004 §Agent URI and Agent Registration File, its example with the placeholders filled.
std::string registration_example() {
    std::string doc = drop_trailing_commas(
        strip_jsonc_comments(read_erc_example("erc8004-registration-file.jsonc")));
    replace_all(doc, "{namespace}:{chainId}:{identityRegistry}", "eip155:1:" + mainnet_identity());
    return doc;
}

/// ERC-8004 §Off-Chain Feedback File Structure, its example with the placeholders filled and the
/// "Other fields" ellipsis dropped.
std::string feedback_example() {
    std::string doc = strip_jsonc_comments(read_erc_example("erc8004-feedback-file.jsonc"));
    std::string kept;
    std::istringstream lines(doc);
    for (std::string line; std::getline(lines, line);) {
        if (line.find("\" ... \"") == std::string::npos) kept += line + "\n";
    }
    kept = drop_trailing_commas(kept);
    replace_all(kept, "{identityRegistry}", mainnet_identity());
    replace_all(kept, "{clientAddress}",
                read_vector_json("ethers/accounts.json")[0]["address"].get<std::string>());
    return kept;
}

TEST(cli_agent_check, the_spec_example_passes_offline) {
    const std::string file = write_scratch("agent.json", registration_example());
    const CommandResult r = run_offline({"agent", "check", file});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(r.err.empty()) << r.err;
    EXPECT_EQ(labeled_value(r.out, "file"), file) << r.out;
    EXPECT_TRUE(labeled_value(r.out, "validation").starts_with("valid (0 errors")) << r.out;

    const CommandResult j = run_offline({"agent", "check", file, "--json"});
    EXPECT_EQ(j.exit_code, 0) << j.err;
    const json doc = json::parse(j.out, nullptr, false);
    ASSERT_TRUE(doc.is_object()) << j.out;
    EXPECT_EQ(doc["ok"], true);
    EXPECT_EQ(doc["errors"], 0);
    EXPECT_EQ(doc["warnings"].get<size_t>(), doc["issues"].size());
}

// The same rules and the same error line as `agent register` (agent_cli_test), every issue listed.
TEST(cli_agent_check, errors_are_listed_and_exit_1) {
    auto bad = json::parse(registration_example());
    bad["type"] = "https://example.com/not-8004";
    bad.erase("name");
    const std::string file = write_scratch("bad-agent.json", bad.dump());
    const CommandResult r = run_offline({"agent", "check", file});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(
        r.err.rfind("error: " + file + ": not a valid ERC-8004 registration file (2 errors)", 0),
        0u)
        << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(labeled_value(r.out, "validation").starts_with("invalid (2 errors")) << r.out;
    EXPECT_NE(r.out.find("error /type: "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("error /name: "), std::string::npos) << r.out;

    const CommandResult j = run_offline({"agent", "check", file, "--json"});
    EXPECT_EQ(j.exit_code, 1);
    const json doc = json::parse(j.out, nullptr, false);
    ASSERT_TRUE(doc.is_object()) << j.out;
    EXPECT_EQ(doc["ok"], false);
    EXPECT_EQ(doc["errors"], 2);

    // The example as printed (placeholders in agentRegistry) is not a valid file either.
    const std::string raw =
        write_scratch("raw-agent.json", drop_trailing_commas(strip_jsonc_comments(
                                            read_erc_example("erc8004-registration-file.jsonc"))));
    EXPECT_EQ(run_offline({"agent", "check", raw}).exit_code, 1);
    // Not JSON: one line, exit 1, and where the syntax broke as an editor counts it.
    const CommandResult nj =
        run_offline({"agent", "check", write_scratch("nj.json", "{\n  \"name\": \"é\", x\n}")});
    EXPECT_EQ(nj.exit_code, 1);
    EXPECT_TRUE(nj.err.starts_with("error: ")) << nj.err;
    EXPECT_NE(nj.err.find("not JSON: unexpected_char: expected member name at line 2, column 16"),
              std::string::npos)
        << nj.err;
    EXPECT_EQ(run_offline({"agent", "check", (scratch_dir() / "missing.json").string()}).exit_code,
              1);
}

TEST(cli_feedback_check, the_spec_example_passes_with_its_hash) {
    const std::string text = feedback_example();
    const std::string file = write_scratch("feedback.json", text);
    const CommandResult r = run_offline({"feedback", "check", file});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(labeled_value(r.out, "validation").starts_with("valid (0 errors")) << r.out;
    // feedbackHash = keccak256 of the exact bytes (ERC-8004 §Giving Feedback), by cast.
    EXPECT_EQ(labeled_value(r.out, "feedbackHash"), cast_offline({"keccak", hex_of(text)}));

    const CommandResult j = run_offline({"feedback", "check", file, "--json"});
    const json doc = json::parse(j.out, nullptr, false);
    ASSERT_TRUE(doc.is_object()) << j.out;
    EXPECT_EQ(doc["ok"], true);
    EXPECT_EQ(doc["feedbackHash"], labeled_value(r.out, "feedbackHash"));
}

TEST(cli_feedback_check, missing_must_fields_fail) {
    auto bad = json::parse(feedback_example());
    bad.erase("clientAddress");
    bad["valueDecimals"] = 19;
    const std::string file = write_scratch("bad-feedback.json", bad.dump());
    const CommandResult r = run_offline({"feedback", "check", file});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_TRUE(
        r.err.starts_with("error: " + file + ": not a valid ERC-8004 feedback file (2 errors)"))
        << r.err;
    EXPECT_NE(r.out.find("error /clientAddress: "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("error /valueDecimals: "), std::string::npos) << r.out;
    const json doc =
        json::parse(run_offline({"feedback", "check", file, "--json"}).out, nullptr, false);
    ASSERT_TRUE(doc.is_object());
    EXPECT_EQ(doc["errors"], 2);
}

}  // namespace
