// The shared flags, as README.md §The CLI and docs/cli.md promise them, checked on every command
// the binary has (found by walking `--help`, so a new command is covered the day it is added):
// a command that reads a chain takes --rpc, --chain-id and --deployment; one that sends also
// --private-key and --keystore; every command but `node` takes --json.
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/process.hpp"

namespace {

using credence::testing::CommandResult;
using credence::testing::run_command;

/// The subcommands `credence <path> --help` lists: its lines indented by exactly two spaces.
std::vector<std::string> subcommands_of(const std::string& help) {
    std::vector<std::string> names;
    std::istringstream in(help.substr(std::min(help.find("Subcommands:"), help.size())));
    std::string line;
    std::getline(in, line);  // the heading
    while (std::getline(in, line)) {
        if (line.size() < 3 || line.compare(0, 2, "  ") != 0 || line[2] == ' ') continue;
        std::string name = line.substr(2, line.find_first_of(" ,", 2) - 2);
        names.push_back(name);
    }
    return names;
}

struct Command {
    std::vector<std::string> path;
    std::string help;
};

/// Every command that runs (has no subcommands of its own), depth first.
void collect(std::vector<std::string> path, std::vector<Command>& out) {
    std::vector<std::string> args = path;
    args.emplace_back("--help");
    const CommandResult r = run_command(CREDENCE_BIN, args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto subs = subcommands_of(r.out);
    // `index` runs itself and has `status` beneath it: both are commands.
    if (subs.empty() || path == std::vector<std::string>{"index"}) out.push_back({path, r.out});
    for (const auto& s : subs) {
        auto next = path;
        next.push_back(s);
        collect(next, out);
    }
}

bool takes(const std::string& help, const std::string& flag) {
    for (size_t at = help.find(flag); at != std::string::npos; at = help.find(flag, at + 1)) {
        const size_t end = at + flag.size();
        if (end == help.size() || help[end] == ' ' || help[end] == ',' || help[end] == '\n')
            return true;
    }
    return false;
}

std::string joined(const std::vector<std::string>& path) {
    std::string s;
    for (const auto& p : path) s += (s.empty() ? "" : " ") + p;
    return s;
}

TEST(cli_flags, every_command_takes_the_shared_flags_the_docs_promise) {
    std::vector<Command> commands;
    collect({}, commands);
    ASSERT_GT(commands.size(), 60u);  // every group was walked
    // The documented exceptions (README.md §The CLI): the node serves and prints one line for
    // people; the demo's funding key has a default of its own; util signs offline.
    const std::set<std::string> no_json{"node"};
    const std::set<std::string> key_without_keystore{"demo", "util sign", "util sign-typed-data",
                                                     "util wallet-address"};
    size_t chain = 0;
    size_t senders = 0;
    for (const auto& c : commands) {
        const std::string name = joined(c.path);
        if (!no_json.contains(name)) {
            EXPECT_TRUE(takes(c.help, "--json")) << name;
        }
        if (takes(c.help, "--rpc")) {
            ++chain;
            EXPECT_TRUE(takes(c.help, "--chain-id")) << name;
            EXPECT_TRUE(takes(c.help, "--deployment")) << name;
        }
        if (takes(c.help, "--private-key")) {
            ++senders;
            if (!key_without_keystore.contains(name)) {
                EXPECT_TRUE(takes(c.help, "--keystore")) << name;
                EXPECT_TRUE(takes(c.help, "--rpc")) << name;
            }
        }
    }
    EXPECT_GT(chain, 40u);
    EXPECT_GT(senders, 15u);
}

}  // namespace
