// Statements of fact in the docs that the docs runner cannot execute (tests/docs), checked
// against the code they describe: the finality defaults docs/node.md and docs/cli.md give, and
// the sample revert lines of docs/cli.md §Errors, whose function and error names must exist in
// Credence's contracts.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include <fmt/core.h>

#include <credence/chain/revert.hpp>
#include <credence/index/indexer.hpp>

namespace {

std::string read_doc(const std::string& relative) {
    std::ifstream in(std::string(CREDENCE_TEST_SOURCE_DIR) + "/" + relative);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

/// `text` with each run of spaces and newlines as one space (Markdown wraps lines anywhere).
std::string flattened(const std::string& text) {
    return std::regex_replace(text, std::regex("[ \\n]+"), " ");
}

TEST(docs_facts, the_finality_defaults_are_the_indexers) {
    using credence::index::default_finality_depth;
    // Ethereum, Base (a rollup), BSC, Sepolia and the devnet share one default.
    for (const uint64_t chain :
         {uint64_t{8453}, uint64_t{56}, uint64_t{11155111}, uint64_t{31337}}) {
        ASSERT_EQ(default_finality_depth(chain), default_finality_depth(1)) << chain;
    }
    const std::string sentence = fmt::format(
        "{} on the chains of ERC-8004's deployments (Ethereum, its rollups, BSC, their testnets) "
        "and the devnet, {} on Polygon, {} elsewhere",
        default_finality_depth(1), default_finality_depth(137), default_finality_depth(999'999));
    for (const char* doc : {"docs/node.md", "docs/cli.md"}) {
        EXPECT_NE(flattened(read_doc(doc)).find(sentence), std::string::npos)
            << doc << " does not say: " << sentence;
    }
}

TEST(docs_facts, sample_reverts_name_real_functions_and_errors) {
    const std::string cli = read_doc("docs/cli.md");
    const std::regex line("error: (\\w+) reverted: (\\w+)\\(");
    size_t samples = 0;
    for (std::sregex_iterator it(cli.begin(), cli.end(), line), end; it != end; ++it) {
        const std::string function = (*it)[1];
        const std::string error = (*it)[2];
        bool has_function = false;
        bool has_error = error == "panic";
        for (const auto& abi : credence::chain::credence_abis()) {
            has_function = has_function || abi.find_function(function) != nullptr;
            has_error = has_error || abi.find_error(error) != nullptr;
        }
        EXPECT_TRUE(has_function) << "docs/cli.md names no such function: " << function;
        EXPECT_TRUE(has_error) << "docs/cli.md names no such error: " << error;
        ++samples;
    }
    EXPECT_GE(samples, 2u);
}

}  // namespace
