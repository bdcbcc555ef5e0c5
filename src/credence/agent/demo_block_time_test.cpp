// The demo (agent/demo_seed) on a devnet that mines a block every second instead of one per
// transaction (`credence devnet --block-time 1`), the timing real chains have: every phase must
// still finish, the six ERC-8301 scenarios must complete with valid evidence, and the validators
// must answer. tests/cli/demo_cli_test.cpp covers the automine devnet and the verifiers.
#include <credence/agent/demo_seed.hpp>

#include <chrono>
#include <iostream>
#include <string>

#include <gtest/gtest.h>

#include <support/devnet.hpp>
#include <support/scratch.hpp>

namespace {

using namespace credence;  // NOLINT(google-build-using-namespace): test file
using Clock = std::chrono::steady_clock;

TEST(agent_demo, seeds_and_completes_every_scenario_with_one_second_blocks) {
    credence::testing::DevnetOptions devnet_options;
    devnet_options.block_time = 1;
    auto devnet = credence::testing::Devnet::start(devnet_options);
    ASSERT_TRUE(devnet) << devnet.error();
    agent::DemoOptions options;
    options.rpc_url = (*devnet)->rpc_url();
    options.chain_id = (*devnet)->chain_id();
    options.contracts = (*devnet)->deployment().contracts;
    options.state_dir = credence::testing::scratch_dir() / "demo-block-time";
    options.progress = [start = Clock::now()](std::string_view line) {
        const auto s = std::chrono::duration_cast<std::chrono::seconds>(Clock::now() - start);
        std::cerr << "demo [" << s.count() << " s]: " << line << "\n";
    };
    const auto t0 = Clock::now();
    auto demo = agent::Demo::start(options, (*devnet)->secret_key(0));
    const auto took = std::chrono::duration_cast<std::chrono::seconds>(Clock::now() - t0);
    ASSERT_TRUE(demo) << agent::to_string(demo.error().code) << ": " << demo.error().detail;
    std::cerr << "demo with 1 s blocks: seeded in " << took.count() << " s\n";
    const agent::DemoSummary& s = (*demo)->summary();
    EXPECT_FALSE(s.already_seeded);
    EXPECT_GE(s.agents.size(), 20U);
    EXPECT_GE(s.clients, 50U);
    EXPECT_GE(s.tools.size(), 5U);
    EXPECT_GE(s.validations_answered, 4U);
    EXPECT_EQ(s.validations_refused, 1U);
    ASSERT_EQ(s.runs.size(), 6U);
    for (const auto& r : s.runs) {
        EXPECT_TRUE(r.completed) << r.workflow;
        EXPECT_TRUE(r.evidence_valid) << r.workflow;
    }
}

}  // namespace
