// The pure parts of the one ERC-8301 reply protocol (reply_submitter.hpp, reply_prover.hpp): the
// reply timestamp rule and the proof encoding. The protocol itself runs against anvil in
// task_worker_test.cpp, tests/cli/workflow_cli_test.cpp and tests/cli/worker_cli_test.cpp.
#include <credence/agent/reply_prover.hpp>
#include <credence/agent/reply_submitter.hpp>

#include <gtest/gtest.h>

#include <credence/core/abi.hpp>
#include <credence/core/abi_type.hpp>

namespace credence::agent {
namespace {

TEST(agent_reply_timestamp, chain_time_when_it_is_past_the_anchor) {
    // ERC-8301 §onAgentReply step 4: max(anchor_time) < timestamp <= block.timestamp.
    EXPECT_EQ(reply_timestamp(1'000, 990, 5'000), 1'000U);
}

TEST(agent_reply_timestamp, anchor_plus_one_once_our_clock_left_the_anchor_second) {
    EXPECT_EQ(reply_timestamp(990, 990, 991), 991U);
    EXPECT_EQ(reply_timestamp(980, 990, 2'000), 991U);  // a stale latest block
}

TEST(agent_reply_timestamp, nothing_while_still_in_the_anchor_second) {
    EXPECT_FALSE(reply_timestamp(990, 990, 990).has_value());
    EXPECT_FALSE(reply_timestamp(990, 995, 994).has_value());  // a node clock ahead of ours
}

TEST(agent_reply_prover, one_proof_is_passed_as_is_several_as_abi_encoded_bytes_array) {
    const core::Bytes a(65, 0xaa);
    const core::Bytes b(65, 0xbb);
    EXPECT_EQ(combine_proofs({a}), a);
    const core::Bytes both = combine_proofs({a, b});
    auto decoded = core::decode_one(*core::parse_type("bytes[]"), both);
    ASSERT_TRUE(decoded.has_value());
    const auto* list = decoded->as_list();
    ASSERT_NE(list, nullptr);
    ASSERT_EQ(list->size(), 2U);
    EXPECT_EQ((*list)[0], core::AbiValue(a));
    EXPECT_EQ((*list)[1], core::AbiValue(b));
}

}  // namespace
}  // namespace credence::agent
