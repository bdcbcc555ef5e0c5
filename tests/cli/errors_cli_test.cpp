// One-line errors in which each layer adds its context once (docs/cli.md §Errors): the failures
// a user meets first, without a chain (the no-key case runs against a devnet in agent_cli_test).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/devnet.hpp"
#include "support/scratch.hpp"

namespace {

using credence::testing::CommandResult;
using credence::testing::run_command;

/// Occurrences of `word` in `text`.
size_t count(const std::string& text, const std::string& word) {
    size_t n = 0;
    for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) ++n;
    return n;
}

TEST(cli_errors, a_database_that_cannot_open_is_named_once) {
    const std::string zero = "0x" + std::string(40, '1');
    const std::string dir = (credence::testing::scratch_dir() / "not-a-db").string();
    std::filesystem::create_directories(dir);  // a directory where the SQLite file should be
    const CommandResult r =
        run_command(CREDENCE_BIN,
                    {"trust", "score", "1", "--database", dir, "--chain-id", "31337", "--identity",
                     zero, "--reputation", zero, "--validation", zero},
                    {{"CREDENCE_HOME", "/nonexistent"}});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_TRUE(r.err.starts_with("error: database open error: ")) << r.err;
    EXPECT_EQ(count(r.err, "database open"), 1u) << r.err;
    EXPECT_EQ(count(r.err, "database: database"), 0u) << r.err;
    EXPECT_EQ(count(r.err, "\n"), 1u) << r.err;
}

// The command line's own errors keep the same contract: one line, exit 1 (CLI11's own codes, 105
// to 109, are not part of it), and a "did you mean" for a mistyped command.
CommandResult run_without_home(const std::vector<std::string>& args) {
    return run_command(CREDENCE_BIN, args, {{"CREDENCE_HOME", "/nonexistent"}});
}

TEST(cli_errors, a_mistyped_command_gets_did_you_mean_on_one_line) {
    const CommandResult r = run_without_home({"agent", "shwo", "1"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err, "error: unknown command 'shwo' for 'credence agent' (did you mean 'show'?)\n");
    const CommandResult top = run_without_home({"agnet", "show", "1"});
    EXPECT_EQ(top.exit_code, 1);
    EXPECT_EQ(top.err, "error: unknown command 'agnet' for 'credence' (did you mean 'agent'?)\n");
}

TEST(cli_errors, a_word_that_is_no_command_lists_where_the_commands_are) {
    const CommandResult r = run_without_home({"frobnicate"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err, "error: unknown command 'frobnicate' for 'credence'; see 'credence --help'\n");
}

TEST(cli_errors, flags_a_command_does_not_take_are_one_line_and_exit_1) {
    const CommandResult r = run_without_home({"agent", "show", "1", "--no-such-flag"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_TRUE(r.err.starts_with("error: ")) << r.err;
    EXPECT_NE(r.err.find("--no-such-flag"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("see 'credence agent show --help'"), std::string::npos) << r.err;
    EXPECT_EQ(count(r.err, "\n"), 1u) << r.err;
    const CommandResult missing = run_without_home({"agent", "show"});
    EXPECT_EQ(missing.exit_code, 1);
    EXPECT_EQ(count(missing.err, "\n"), 1u) << missing.err;
}

TEST(cli_errors, with_json_errors_are_a_json_document) {
    const CommandResult usage = run_without_home({"agent", "shwo", "1", "--json"});
    EXPECT_EQ(usage.exit_code, 1);
    const auto doc = nlohmann::json::parse(usage.err, nullptr, false);
    ASSERT_TRUE(doc.is_object()) << usage.err;
    EXPECT_EQ(doc["error"]["message"],
              "unknown command 'shwo' for 'credence agent' (did you mean 'show'?)");
    // "--json anywhere": before the command too, with the same answer.
    const CommandResult first = run_without_home({"--json", "agent", "shwo", "1"});
    EXPECT_EQ(first.exit_code, 1);
    EXPECT_EQ(first.err, usage.err);
    const CommandResult between = run_without_home({"agent", "--json", "shwo", "1"});
    EXPECT_EQ(between.exit_code, 1);
    EXPECT_EQ(between.err, usage.err);
    const CommandResult offline = run_without_home({"--json", "util", "keccak", "hello"});
    ASSERT_EQ(offline.exit_code, 0) << offline.err;
    EXPECT_TRUE(nlohmann::json::parse(offline.out, nullptr, false).is_object()) << offline.out;

    const std::string zero = "0x" + std::string(40, '1');
    const std::string dir = (credence::testing::scratch_dir() / "not-a-db-json").string();
    std::filesystem::create_directories(dir);
    const CommandResult failed =
        run_without_home({"trust", "score", "1", "--json", "--database", dir, "--chain-id", "31337",
                          "--identity", zero, "--reputation", zero, "--validation", zero});
    EXPECT_EQ(failed.exit_code, 1);
    const auto failure = nlohmann::json::parse(failed.err, nullptr, false);
    ASSERT_TRUE(failure.is_object()) << failed.err;
    EXPECT_TRUE(failure["error"]["message"].get<std::string>().starts_with("database open error: "))
        << failed.err;
}

TEST(cli_errors, help_and_version_still_succeed) {
    const CommandResult help = run_without_home({"agent", "--help"});
    EXPECT_EQ(help.exit_code, 0);
    EXPECT_NE(help.out.find("show"), std::string::npos);
    const CommandResult version = run_without_home({"--version"});
    EXPECT_EQ(version.exit_code, 0);
    EXPECT_TRUE(version.out.starts_with("credence ")) << version.out;
}

TEST(cli_errors, no_node_at_the_rpc_url_says_how_to_get_one) {
    const std::string url = credence::testing::closed_loopback_url();
    const CommandResult r = run_without_home({"agent", "show", "1", "--rpc", url});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_TRUE(r.err.starts_with("error: ")) << r.err;
    EXPECT_NE(r.err.find("`credence devnet` starts a local one"), std::string::npos) << r.err;
    EXPECT_EQ(count(r.err, "\n"), 1u) << r.err;
}

}  // namespace
