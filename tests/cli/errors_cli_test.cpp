// One-line errors in which each layer adds its context once (docs/cli.md §Errors): the failures
// a user meets first, without a chain (the no-key case runs against a devnet in agent_cli_test).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

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

}  // namespace
