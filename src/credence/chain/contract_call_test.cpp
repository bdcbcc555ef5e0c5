// The generated call helpers through chain::ContractCaller against a real devnet (anvil with every
// Credence contract): typed answers, a revert named by its selector and described in one line,
// return data that does not decode, a node that does not answer, an argument that does not
// encode, a pinned block, and batched answers decoded by the same code as single calls.
#include <credence/chain/contract_call.hpp>

#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <credence/chain/bindings/identity_registry.hpp>
#include <credence/chain/bindings/reputation_registry.hpp>
#include <credence/chain/rpc_codec.hpp>

#include "support/devnet.hpp"

namespace credence::chain {
namespace {

namespace idr = bindings::identity_registry;
namespace rep = bindings::reputation_registry;

class ContractCall : public testing::SharedDevnetFixture {};

// A client of a port nothing listens on (1 is privileged), without retries.
RpcClient unreachable_node() {
    RetryPolicy once;
    once.max_attempts = 1;
    return RpcClient::make_http("http://127.0.0.1:1", {}, once);
}

TEST_F(ContractCall, helpers_return_typed_answers) {
    auto rpc = devnet().rpc();
    ContractCaller caller(rpc);
    const core::Address identity = devnet().address("IdentityRegistry");
    auto bound = rep::call::get_identity_registry(caller, devnet().address("ReputationRegistry"));
    ASSERT_TRUE(bound) << bound.error().message();
    EXPECT_EQ(*bound, identity);

    const std::string uri = "https://agent.example/contract-call.json";
    const Receipt registered = devnet().send(2, identity, *idr::register_1(uri));
    std::optional<core::Uint256> agent_id;
    for (const auto& log : registered.logs)
        if (auto ev = idr::decode_registered_event(log.topics, log.data)) agent_id = ev->agent_id;
    ASSERT_TRUE(agent_id);
    auto owner = idr::call::owner_of(caller, identity, *agent_id);
    ASSERT_TRUE(owner) << owner.error().message();
    EXPECT_EQ(*owner, devnet().dev_address(2));
    auto agent_uri = idr::call::token_uri(caller, identity, *agent_id);
    ASSERT_TRUE(agent_uri) << agent_uri.error().message();
    EXPECT_EQ(*agent_uri, uri);
}

// The revert of OpenZeppelin's ERC721 for a token that does not exist: matched by the generated
// selector constant, described by the one describer of Credence reverts.
TEST_F(ContractCall, revert_is_matched_by_selector_and_described_in_one_line) {
    auto rpc = devnet().rpc();
    ContractCaller caller(rpc);
    auto owner =
        idr::call::owner_of(caller, devnet().address("IdentityRegistry"), core::Uint256{424242});
    ASSERT_FALSE(owner);
    const CallError& e = owner.error();
    EXPECT_EQ(e.kind, CallErrorKind::reverted);
    EXPECT_EQ(e.function, "ownerOf(uint256)");
    EXPECT_EQ(e.name(), "ownerOf");
    EXPECT_TRUE(e.is(idr::kERC721NonexistentTokenError));
    EXPECT_FALSE(e.is(idr::kNotAuthorizedError));
    EXPECT_EQ(e.revert_data.size(), 36U);  // selector + uint256 tokenId
    EXPECT_EQ(e.detail, "ERC721NonexistentToken(tokenId=424242)");
    EXPECT_EQ(e.message(), "ownerOf reverted: ERC721NonexistentToken(tokenId=424242)");
}

// An address without code answers an eth_call with no data: not an address, so bad_answer.
TEST_F(ContractCall, return_data_that_does_not_decode_is_a_bad_answer) {
    auto rpc = devnet().rpc();
    ContractCaller caller(rpc);
    auto owner = idr::call::owner_of(caller, devnet().dev_address(1), core::Uint256{1});
    ASSERT_FALSE(owner);
    EXPECT_EQ(owner.error().kind, CallErrorKind::bad_answer);
    EXPECT_TRUE(owner.error().revert_data.empty());
    EXPECT_TRUE(owner.error().message().starts_with("ownerOf: bad return data: "))
        << owner.error().message();
}

// The caller reads the block it was given: at genesis no Credence contract has code yet.
TEST_F(ContractCall, caller_reads_its_block) {
    auto rpc = devnet().rpc();
    const core::Address reputation = devnet().address("ReputationRegistry");
    ContractCaller genesis(rpc, BlockId(0));
    auto then = rep::call::get_identity_registry(genesis, reputation);
    ASSERT_FALSE(then);
    EXPECT_EQ(then.error().kind, CallErrorKind::bad_answer);
    ContractCaller latest(rpc);
    EXPECT_TRUE(rep::call::get_identity_registry(latest, reputation));
}

TEST(chain_contract_call, node_that_does_not_answer_is_an_rpc_failure) {
    auto rpc = unreachable_node();
    ContractCaller caller(rpc);
    auto bound = rep::call::get_identity_registry(caller, core::Address{});
    ASSERT_FALSE(bound);
    EXPECT_EQ(bound.error().kind, CallErrorKind::rpc_failure);
    EXPECT_TRUE(bound.error().message().starts_with("getIdentityRegistry: transport"))
        << bound.error().message();
}

// An encoding failure happens before anything is sent: the unreachable node is never asked.
TEST(chain_contract_call, arguments_that_do_not_encode_send_nothing) {
    auto rpc = unreachable_node();
    ContractCaller caller(rpc);
    auto out = bindings::detail::call_function(
        caller, core::Address{}, "f(uint8)",
        core::fail(core::AbiError::bad_value, "300 does not fit uint8"));
    ASSERT_FALSE(out);
    EXPECT_EQ(out.error().kind, CallErrorKind::encoding);
    EXPECT_EQ(out.error().message(), "f: cannot encode the arguments: 300 does not fit uint8");
}

// Answers of a JSON-RPC batch go through call_answer and call::<f>_answer: the same errors as
// a single call.
TEST_F(ContractCall, batched_answers_decode_like_single_calls) {
    auto rpc = devnet().rpc();
    const auto eth_call = [](const core::Address& to, core::Bytes data) {
        CallRequest req;
        req.to = to;
        req.data = std::move(data);
        return RpcCall{"eth_call", nlohmann::json::array({to_json(req), "latest"})};
    };
    const std::vector<RpcCall> calls{
        eth_call(devnet().address("ReputationRegistry"), *rep::get_identity_registry()),
        eth_call(devnet().address("IdentityRegistry"), *idr::owner_of(core::Uint256{424242}))};
    auto answers = rpc.batch(calls);
    ASSERT_TRUE(answers) << answers.error().to_string();
    ASSERT_EQ(answers->size(), 2U);
    auto bound = rep::call::get_identity_registry_answer(call_answer((*answers)[0]));
    ASSERT_TRUE(bound) << bound.error().message();
    EXPECT_EQ(*bound, devnet().address("IdentityRegistry"));
    auto owner = idr::call::owner_of_answer(call_answer((*answers)[1]));
    ASSERT_FALSE(owner);
    EXPECT_TRUE(owner.error().is(idr::kERC721NonexistentTokenError));
    EXPECT_EQ(owner.error().message(), "ownerOf reverted: ERC721NonexistentToken(tokenId=424242)");
}

}  // namespace
}  // namespace credence::chain
