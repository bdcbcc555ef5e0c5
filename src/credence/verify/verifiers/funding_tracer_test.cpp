// The funding tracer (verify/verifiers/funding_tracer.hpp) against a real anvil: transfers from a
// dev account, an address that sent its whole balance away, genesis accounts, a balance set
// without a transaction, and the request bound.
#include <credence/verify/verifiers/funding_tracer.hpp>

#include <chrono>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <credence/chain/rpc_codec.hpp>

#include "support/anvil.hpp"

namespace {

namespace chain = credence::chain;
namespace core = credence::core;
namespace verify = credence::verify;
using nlohmann::json;

core::Address address_of_byte(uint8_t b) {
    core::Address a;
    a.bytes.fill(b);
    return a;
}

class FundingTracer : public ::testing::Test {
protected:
    void SetUp() override {
        auto started = chain::AnvilProcess::start();
        ASSERT_TRUE(started) << started.error();
        anvil_ = std::move(*started);
        rpc_.emplace(chain::RpcClient::make_http(anvil_->url()));
    }
    chain::RpcClient& rpc() { return *rpc_; }
    void mine(uint64_t blocks) {
        ASSERT_TRUE(rpc().request("anvil_mine", json::array({chain::to_quantity(blocks)})));
    }
    // A value transfer from `from` (an unlocked or impersonated account), mined at once; its hash.
    core::Hash32 transfer(const core::Address& from, const core::Address& to,
                          const std::string& wei_hex) {
        auto hash = rpc().request(
            "eth_sendTransaction",
            json::array({json{
                {"from", from.to_lower_hex()}, {"to", to.to_lower_hex()}, {"value", wei_hex}}}));
        EXPECT_TRUE(hash) << hash.error().to_string();
        auto h = hash ? chain::read_hash(*hash) : chain::RpcResult<core::Hash32>{};
        if (!h) return core::Hash32{};
        // Automine answers before the block is sealed at times: wait for the receipt.
        for (int i = 0; i < 200; ++i) {
            auto receipt = rpc().get_transaction_receipt(*h);
            if (receipt && receipt->has_value()) return *h;
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        ADD_FAILURE() << "transfer not mined";
        return *h;
    }
    uint64_t head() {
        auto n = rpc().block_number();
        EXPECT_TRUE(n);
        return n ? *n : 0;
    }
    core::Address dev(size_t i) const { return anvil_->dev_accounts().at(i).address; }

    std::unique_ptr<chain::AnvilProcess> anvil_;
    std::optional<chain::RpcClient> rpc_;
};

TEST_F(FundingTracer, a_transfer_names_its_sender_block_and_amount) {
    mine(37);
    const core::Address reviewer = address_of_byte(0x51);
    const core::Hash32 txn = transfer(dev(1), reviewer, "0xde0b6b3a7640000");  // 1 ETH
    const uint64_t funded_at = head();
    mine(100);
    auto f = verify::trace_first_funding(rpc(), reviewer, head());
    ASSERT_TRUE(f) << f.error().to_string();
    EXPECT_EQ(f->source, verify::FundingSource::transfer);
    ASSERT_TRUE(f->funder.has_value());
    EXPECT_EQ(*f->funder, dev(1));
    EXPECT_EQ(f->block_num, funded_at);
    EXPECT_EQ(f->txn_hash, txn);
    EXPECT_EQ(f->amount.to_dec(), "1000000000000000000");
    // About log2(head) batches, plus the two ends and the block.
    EXPECT_LE(f->requests, 12U);
}

// Once funded, an account either holds a balance or has sent a transaction: one that sent its
// whole balance away is still found at its first funding, not at a later one.
TEST_F(FundingTracer, an_emptied_account_is_found_at_its_first_funding) {
    mine(5);
    const core::Address reviewer = address_of_byte(0x52);
    transfer(dev(2), reviewer, "0x2386f26fc10000");  // 0.01 ETH
    const uint64_t funded_at = head();
    mine(20);
    ASSERT_TRUE(rpc().request("anvil_impersonateAccount", json::array({reviewer.to_lower_hex()})));
    // It sends a transaction (nonce 1), then its balance drops to zero: the account is emptied
    // but its nonce still says it was funded.
    transfer(reviewer, dev(2), "0x1");
    ASSERT_TRUE(rpc().request("anvil_setBalance", json::array({reviewer.to_lower_hex(), "0x0"})));
    mine(20);
    auto empty = rpc().get_balance(reviewer);
    ASSERT_TRUE(empty);
    EXPECT_TRUE(empty->is_zero());
    transfer(dev(3), reviewer, "0x2386f26fc10000");  // a second funding later
    mine(20);
    auto f = verify::trace_first_funding(rpc(), reviewer, head());
    ASSERT_TRUE(f) << f.error().to_string();
    EXPECT_EQ(f->source, verify::FundingSource::transfer);
    EXPECT_EQ(f->block_num, funded_at);
    ASSERT_TRUE(f->funder.has_value());
    EXPECT_EQ(*f->funder, dev(2));
}

TEST_F(FundingTracer, genesis_never_and_internal_fundings) {
    mine(10);
    auto genesis = verify::trace_first_funding(rpc(), dev(0), head());
    ASSERT_TRUE(genesis) << genesis.error().to_string();
    EXPECT_EQ(genesis->source, verify::FundingSource::genesis);
    EXPECT_FALSE(genesis->funder.has_value());

    auto never = verify::trace_first_funding(rpc(), address_of_byte(0x53), head());
    ASSERT_TRUE(never) << never.error().to_string();
    EXPECT_EQ(never->source, verify::FundingSource::never);

    // A balance that appears with no transfer to the address (here set by the node; on a real
    // chain, a contract's internal call): the block is found, the funder is not known.
    const core::Address minted = address_of_byte(0x54);
    ASSERT_TRUE(rpc().request("anvil_setBalance", json::array({minted.to_lower_hex(), "0x64"})));
    mine(1);
    const uint64_t appeared_by = head();
    mine(10);
    auto internal = verify::trace_first_funding(rpc(), minted, head());
    ASSERT_TRUE(internal) << internal.error().to_string();
    EXPECT_EQ(internal->source, verify::FundingSource::internal);
    EXPECT_FALSE(internal->funder.has_value());
    EXPECT_LE(internal->block_num, appeared_by);
}

TEST_F(FundingTracer, the_request_bound_is_an_error_not_a_long_search) {
    mine(1'000);
    const core::Address reviewer = address_of_byte(0x55);
    transfer(dev(1), reviewer, "0x1");
    verify::FundingLimits tight;
    tight.max_requests = 4;
    auto f = verify::trace_first_funding(rpc(), reviewer, head(), tight);
    ASSERT_FALSE(f);
    EXPECT_NE(f.error().message.find("more than 4 requests"), std::string::npos)
        << f.error().message;
}

}  // namespace
