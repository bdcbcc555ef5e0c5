// TxnSender against a real anvil: nonces, fees, estimation, receipts, confirmations, reverts.
#include <credence/chain/txn_sender.hpp>

#include <memory>

#include <gtest/gtest.h>

#include <credence/core/address.hpp>
#include <support/anvil.hpp>

namespace credence::chain {
namespace {

using credence::testing::AnvilProcess;
using credence::testing::kAnvilDevKeys;

// Init code whose constructor reverts with no data: PUSH1 0 PUSH1 0 REVERT.
const core::Bytes kRevertingInitCode{0x60, 0x00, 0x60, 0x00, 0xfd};
// Init code that deploys a contract whose code is the single byte 0x00 (STOP):
// PUSH1 1 PUSH1 0 RETURN over zeroed memory.
const core::Bytes kTinyInitCode{0x60, 0x01, 0x60, 0x00, 0xf3};

class chain_txn_sender : public ::testing::Test {
protected:
    void SetUp() override {
        auto started = AnvilProcess::start();
        ASSERT_TRUE(started) << started.error();
        anvil_ = std::move(*started);
        client_ = std::make_unique<RpcClient>(RpcClient::make_http(anvil_->url()));
        auto key = core::SecretKey::from_hex(kAnvilDevKeys[0]);
        ASSERT_TRUE(key);
        key_ = std::make_unique<core::SecretKey>(std::move(*key));
    }

    std::unique_ptr<AnvilProcess> anvil_;
    std::unique_ptr<RpcClient> client_;
    std::unique_ptr<core::SecretKey> key_;
};

core::Address recipient() {
    return *core::Address::from_hex("0x000000000000000000000000000000000000bEEF");
}

TEST_F(chain_txn_sender, transfers_are_mined_with_consecutive_nonces) {
    TxnSender sender(*client_, *key_);
    TxnRequest request;
    request.to = recipient();
    request.value = core::Uint256{1000};
    auto first = sender.send(request);
    ASSERT_TRUE(first) << first.error().detail;
    auto second = sender.send(request);
    ASSERT_TRUE(second) << second.error().detail;
    EXPECT_TRUE(first->status);
    EXPECT_EQ(first->from, sender.address());
    EXPECT_GT(second->block_num, first->block_num);

    auto balance = client_->get_balance(recipient());
    ASSERT_TRUE(balance);
    EXPECT_EQ(*balance, core::Uint256{2000});
    auto count = client_->get_transaction_count(sender.address());
    ASSERT_TRUE(count);
    EXPECT_EQ(*count, 2U);
}

TEST_F(chain_txn_sender, prepare_signs_an_eip1559_txn_without_sending) {
    TxnSender sender(*client_, *key_);
    TxnRequest request;
    request.to = recipient();
    auto signed_txn = sender.prepare(request);
    ASSERT_TRUE(signed_txn) << signed_txn.error().detail;
    EXPECT_EQ(signed_txn->txn.type, core::TxnType::dynamic_fee);
    EXPECT_EQ(signed_txn->txn.chain_id, 31337U);
    EXPECT_EQ(signed_txn->txn.nonce, 0U);
    // A plain transfer estimates at 21000; the default margin is 20%.
    EXPECT_EQ(signed_txn->txn.gas_limit, 25200U);
    auto block = client_->get_block_by_number(BlockId::latest());
    ASSERT_TRUE(block && *block && (*block)->base_fee_per_gas);
    EXPECT_GE(signed_txn->txn.max_fee_per_gas, *(*block)->base_fee_per_gas);
    EXPECT_GE(signed_txn->txn.max_fee_per_gas, signed_txn->txn.max_priority_fee_per_gas);

    auto decoded = core::decode_signed(core::encode_signed(*signed_txn));
    ASSERT_TRUE(decoded);
    auto from = core::recover_sender(*decoded);
    ASSERT_TRUE(from);
    EXPECT_EQ(*from, sender.address());
    auto count = client_->get_transaction_count(sender.address(), BlockId::pending());
    ASSERT_TRUE(count);
    EXPECT_EQ(*count, 0U) << "prepare must not send";
}

TEST_F(chain_txn_sender, contract_creation_reports_the_address) {
    TxnSender sender(*client_, *key_);
    TxnRequest request;
    request.data = kTinyInitCode;
    auto receipt = sender.send(request);
    ASSERT_TRUE(receipt) << receipt.error().detail;
    ASSERT_TRUE(receipt->contract_address);
    EXPECT_EQ(*receipt->contract_address, core::create_address(sender.address(), 0));
    auto code = client_->get_code(*receipt->contract_address);
    ASSERT_TRUE(code);
    EXPECT_EQ(code->size(), 1U);
}

TEST_F(chain_txn_sender, revert_during_estimation_fails_before_sending) {
    TxnSender sender(*client_, *key_);
    TxnRequest request;
    request.data = kRevertingInitCode;
    auto receipt = sender.send(request);
    ASSERT_FALSE(receipt);
    EXPECT_EQ(receipt.error().code, SendError::reverted);
    EXPECT_FALSE(receipt.error().txn_hash);
    auto count = client_->get_transaction_count(sender.address(), BlockId::pending());
    ASSERT_TRUE(count);
    EXPECT_EQ(*count, 0U);
}

TEST_F(chain_txn_sender, mined_failure_is_reported_as_reverted_with_its_hash) {
    TxnSender sender(*client_, *key_);
    TxnRequest request;
    request.data = kRevertingInitCode;
    request.gas_limit = 100'000;  // skips estimation, so the failing transaction is mined
    auto receipt = sender.send(request);
    ASSERT_FALSE(receipt);
    EXPECT_EQ(receipt.error().code, SendError::reverted);
    ASSERT_TRUE(receipt.error().txn_hash);
    auto mined = client_->get_transaction_receipt(*receipt.error().txn_hash);
    ASSERT_TRUE(mined && *mined);
    EXPECT_FALSE((*mined)->status);
}

TEST_F(chain_txn_sender, waits_for_confirmations) {
    SenderOptions options;
    options.confirmations = 3;
    options.receipt_timeout = std::chrono::milliseconds(300);
    TxnSender sender(*client_, *key_, options);
    TxnRequest request;
    request.to = recipient();
    auto signed_txn = sender.prepare(request);
    ASSERT_TRUE(signed_txn);
    auto hash = sender.submit(*signed_txn);
    ASSERT_TRUE(hash) << hash.error().detail;
    // Automine put it in one block; two more are needed and nobody mines them.
    auto early = sender.wait(*hash);
    ASSERT_FALSE(early);
    EXPECT_EQ(early.error().code, SendError::receipt_timeout);
    ASSERT_TRUE(client_->request("anvil_mine", nlohmann::json::array({"0x2"})));
    auto confirmed = sender.wait(*hash);
    ASSERT_TRUE(confirmed) << confirmed.error().detail;
    EXPECT_EQ(confirmed->txn_hash, *hash);
}

TEST_F(chain_txn_sender, wrong_chain_id_is_refused_before_signing) {
    SenderOptions options;
    options.chain_id = 1;
    TxnSender sender(*client_, *key_, options);
    TxnRequest request;
    request.to = recipient();
    auto signed_txn = sender.prepare(request);
    ASSERT_FALSE(signed_txn);
    EXPECT_EQ(signed_txn.error().code, SendError::chain_id_mismatch);
    EXPECT_NE(signed_txn.error().detail.find("31337"), std::string::npos);
}

TEST(chain_txn_sender_offline, unreachable_node_is_an_rpc_error) {
    RetryPolicy once;
    once.max_attempts = 1;
    // Port 9 (discard) on loopback: nothing listens there in the test environment.
    auto client = RpcClient::make_http("http://127.0.0.1:9", {}, once);
    auto key = core::SecretKey::from_hex(kAnvilDevKeys[0]);
    ASSERT_TRUE(key);
    TxnSender sender(client, *key);
    TxnRequest request;
    request.to = recipient();
    auto signed_txn = sender.prepare(request);
    ASSERT_FALSE(signed_txn);
    EXPECT_EQ(signed_txn.error().code, SendError::rpc);
    ASSERT_TRUE(signed_txn.error().rpc);
    EXPECT_EQ(signed_txn.error().rpc->kind, RpcErrorKind::transport);
}

}  // namespace
}  // namespace credence::chain
