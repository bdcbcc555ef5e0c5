// The JSON-RPC client against a real anvil node: every typed method, real signed EIP-1559
// transfers, contracts deployed from hand-written init code, reverts with data, logs and batches.
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <credence/chain/rpc_client.hpp>
#include <credence/core/keccak.hpp>
#include <credence/core/txn.hpp>

#include "support/anvil.hpp"

namespace credence::chain {
namespace {

using core::Address;
using core::Bytes;
using core::literals::operator""_hex;
using nlohmann::json;

constexpr uint64_t kChainId = 4242;
constexpr uint64_t kGwei = 1'000'000'000;

// Init code that returns `runtime` as the contract's code, after running `prelude`:
// PUSH1 len PUSH1 off PUSH1 0 CODECOPY PUSH1 len PUSH1 0 RETURN, runtime appended.
Bytes init_code(const Bytes& runtime, const Bytes& prelude = {}) {
    const auto len = static_cast<uint8_t>(runtime.size());
    const auto off = static_cast<uint8_t>(prelude.size() + 12);
    Bytes code = prelude;
    for (uint8_t b : Bytes{0x60, len, 0x60, off, 0x60, 0x00, 0x39, 0x60, len, 0x60, 0x00, 0xf3}) {
        code.push_back(b);
    }
    code.insert(code.end(), runtime.begin(), runtime.end());
    return code;
}

// Runtime: return the 32-byte word 42.
const Bytes kReturn42 = "602a60005260206000f3"_hex;
// Runtime: revert with the 4 bytes 0xdeadbeef (PUSH4 .. PUSH1 0 MSTORE PUSH1 4 PUSH1 28 REVERT).
const Bytes kRevertDeadbeef = "63deadbeef6000526004601cfd"_hex;
// Prelude: SSTORE(0, 0x2a).
const Bytes kStore42 = "602a600055"_hex;

core::Hash32 ping_topic() { return core::keccak256(std::string_view("Ping()")); }

// Runtime: MSTORE(0, 42); LOG1(0, 32, keccak256("Ping()")); STOP.
Bytes log_runtime() {
    Bytes code = "602a600052"_hex;
    code.push_back(0x7f);  // PUSH32 topic
    const auto topic = ping_topic();
    code.insert(code.end(), topic.begin(), topic.end());
    for (uint8_t b :
         "602060"
         "00a100"_hex)
        code.push_back(b);
    return code;
}

class ChainRpcAnvil : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        credence::testing::AnvilOptions options;
        options.chain_id = kChainId;
        auto started = credence::testing::AnvilProcess::start(options);
        ASSERT_TRUE(started) << started.error();
        anvil_ = std::move(*started).release();
    }
    static void TearDownTestSuite() {
        delete anvil_;
        anvil_ = nullptr;
    }
    void SetUp() override {
        ASSERT_NE(anvil_, nullptr);
        client_ = std::make_unique<RpcClient>(RpcClient::make_http(anvil_->url()));
    }

    static core::SecretKey dev_key() {
        return std::move(*core::SecretKey::from_hex(credence::testing::kAnvilDevKeys[0]));
    }
    static Address dev_address() {
        return *Address::from_hex(credence::testing::kAnvilDevAddresses[0]);
    }

    // Signs and sends an EIP-1559 txn from dev key 0; returns its mined receipt (automine).
    Receipt send(std::optional<Address> to, Bytes data, core::Uint256 value = {}) {
        auto nonce = client_->get_transaction_count(dev_address(), BlockId::pending());
        EXPECT_TRUE(nonce) << nonce.error().to_string();
        core::Txn txn;
        txn.type = core::TxnType::dynamic_fee;
        txn.chain_id = kChainId;
        txn.nonce = nonce.value_or(0);
        txn.max_priority_fee_per_gas = kGwei;
        txn.max_fee_per_gas = 20 * kGwei;
        txn.gas_limit = 300'000;
        txn.to = to;
        txn.value = value;
        txn.data = std::move(data);
        auto signed_txn = core::sign_txn(txn, dev_key());
        EXPECT_TRUE(signed_txn);
        const Bytes raw = core::encode_signed(*signed_txn);
        auto hash = client_->send_raw_transaction(raw);
        EXPECT_TRUE(hash) << hash.error().to_string();
        EXPECT_EQ(*hash, core::txn_hash(*signed_txn));
        // Automine mines at once, but the receipt may be indexed a moment later: poll briefly.
        for (int i = 0; i < 250; ++i) {
            auto receipt = client_->get_transaction_receipt(*hash);
            EXPECT_TRUE(receipt) << receipt.error().to_string();
            if (!receipt) break;
            if (receipt->has_value()) return **receipt;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        ADD_FAILURE() << "no receipt within 5 s";
        return {};
    }

    Address deploy(const Bytes& init) {
        Receipt r = send(std::nullopt, init);
        EXPECT_TRUE(r.status);
        EXPECT_TRUE(r.contract_address.has_value());
        return r.contract_address.value_or(Address{});
    }

    static credence::testing::AnvilProcess* anvil_;
    std::unique_ptr<RpcClient> client_;
};

credence::testing::AnvilProcess* ChainRpcAnvil::anvil_ = nullptr;
// Suites are snake_case (the style guide); gtest takes the suite name from the fixture type.
using chain_rpc_anvil = ChainRpcAnvil;  // NOLINT(readability-identifier-naming)

TEST_F(chain_rpc_anvil, chain_id_matches_anvil_flag) {
    auto id = client_->chain_id();
    ASSERT_TRUE(id) << id.error().to_string();
    EXPECT_EQ(*id, kChainId);
}

TEST_F(chain_rpc_anvil, block_number_follows_anvil_mine_and_evm_mine) {
    auto before = client_->block_number();
    ASSERT_TRUE(before) << before.error().to_string();
    ASSERT_TRUE(client_->request("anvil_mine", json::array({"0x5"})));
    auto after_anvil = client_->block_number();
    ASSERT_TRUE(after_anvil);
    EXPECT_EQ(*after_anvil, *before + 5);
    ASSERT_TRUE(client_->request("evm_mine"));
    auto after_evm = client_->block_number();
    ASSERT_TRUE(after_evm);
    EXPECT_EQ(*after_evm, *before + 6);
}

TEST_F(chain_rpc_anvil, block_by_number_and_by_hash_agree) {
    ASSERT_TRUE(client_->request("anvil_mine", json::array({"0x2"})));
    auto latest = client_->get_block_by_number(BlockId::latest());
    ASSERT_TRUE(latest) << latest.error().to_string();
    ASSERT_TRUE(latest->has_value());
    const Block& b = **latest;
    auto by_num = client_->get_block_by_number(b.number);
    ASSERT_TRUE(by_num && by_num->has_value());
    EXPECT_EQ(**by_num, b);
    auto by_hash = client_->get_block_by_hash(b.hash);
    ASSERT_TRUE(by_hash && by_hash->has_value());
    EXPECT_EQ(**by_hash, b);
    auto parent = client_->get_block_by_number(b.number - 1);
    ASSERT_TRUE(parent && parent->has_value());
    EXPECT_EQ((*parent)->hash, b.parent_hash);
    EXPECT_LE((*parent)->timestamp, b.timestamp);
    EXPECT_TRUE(b.base_fee_per_gas.has_value());
    EXPECT_GT(b.gas_limit, 0u);
    // A block that does not exist yet is null, not an error.
    auto future = client_->get_block_by_number(b.number + 1000);
    ASSERT_TRUE(future);
    EXPECT_FALSE(future->has_value());
}

TEST_F(chain_rpc_anvil, signed_transfer_is_mined_with_receipt_and_nonce_increments) {
    const Address to = *Address::from_hex(credence::testing::kAnvilDevAddresses[1]);
    auto nonce_before = client_->get_transaction_count(dev_address(), BlockId::latest());
    ASSERT_TRUE(nonce_before);
    auto balance_before = client_->get_balance(to);
    ASSERT_TRUE(balance_before);
    const Receipt r = send(to, {}, core::Uint256(12345));
    EXPECT_TRUE(r.status);
    EXPECT_EQ(r.gas_used, 21'000u);  // a plain transfer costs exactly G_transaction
    EXPECT_EQ(r.from, dev_address());
    EXPECT_EQ(r.to, to);
    EXPECT_FALSE(r.contract_address.has_value());
    EXPECT_GT(r.effective_gas_price, core::Uint256(0));
    auto nonce_after = client_->get_transaction_count(dev_address(), BlockId::latest());
    ASSERT_TRUE(nonce_after);
    EXPECT_EQ(*nonce_after, *nonce_before + 1);
    auto balance_after = client_->get_balance(to);
    ASSERT_TRUE(balance_after);
    EXPECT_EQ(*balance_after, *balance_before + core::Uint256(12345));
    auto block = client_->get_block_by_number(r.block_num);
    ASSERT_TRUE(block && block->has_value());
    ASSERT_EQ((*block)->txn_hashes.size(), 1u);
    EXPECT_EQ((*block)->txn_hashes[0], r.txn_hash);
}

TEST_F(chain_rpc_anvil, unknown_receipt_is_null) {
    auto r = client_->get_transaction_receipt(core::Hash32{});
    ASSERT_TRUE(r) << r.error().to_string();
    EXPECT_FALSE(r->has_value());
}

TEST_F(chain_rpc_anvil, code_storage_and_call_of_deployed_contract) {
    const Address c = deploy(init_code(kReturn42, kStore42));
    auto code = client_->get_code(c);
    ASSERT_TRUE(code) << code.error().to_string();
    EXPECT_EQ(*code, kReturn42);
    auto slot0 = client_->get_storage_at(c, 0);
    ASSERT_TRUE(slot0);
    EXPECT_EQ(core::Uint256::from_word(slot0->data()), core::Uint256(42));
    auto slot1 = client_->get_storage_at(c, 1);
    ASSERT_TRUE(slot1);
    EXPECT_EQ(*slot1, core::Hash32{});
    CallRequest req;
    req.to = c;
    auto out = client_->call(req);
    ASSERT_TRUE(out) << out.error().to_string();
    const core::Hash32 word42 = core::Uint256(42).to_word();
    EXPECT_EQ(*out, Bytes(word42.begin(), word42.end()));
    auto gas = client_->estimate_gas(req);
    ASSERT_TRUE(gas) << gas.error().to_string();
    EXPECT_GT(*gas, 21'000u);
    // The code did not exist one block earlier.
    auto bn = client_->block_number();
    ASSERT_TRUE(bn);
    auto old_code = client_->get_code(c, *bn - 1);
    ASSERT_TRUE(old_code);
    EXPECT_TRUE(old_code->empty());
}

TEST_F(chain_rpc_anvil, reverting_call_returns_rpc_error_with_revert_bytes) {
    const Address c = deploy(init_code(kRevertDeadbeef));
    CallRequest req;
    req.to = c;
    req.from = dev_address();
    auto out = client_->call(req);
    ASSERT_FALSE(out);
    EXPECT_EQ(out.error().kind, RpcErrorKind::rpc_error);
    EXPECT_EQ(out.error().data, "deadbeef"_hex) << out.error().to_string();
    auto gas = client_->estimate_gas(req);
    ASSERT_FALSE(gas);
    EXPECT_EQ(gas.error().kind, RpcErrorKind::rpc_error);
    EXPECT_EQ(gas.error().data, "deadbeef"_hex) << gas.error().to_string();
    EXPECT_EQ(gas.error().attempts, 1);
}

TEST_F(chain_rpc_anvil, get_logs_returns_emitted_log) {
    const Address c = deploy(init_code(log_runtime()));
    const Receipt r = send(c, {});
    ASSERT_TRUE(r.status);
    ASSERT_EQ(r.logs.size(), 1u);

    LogFilter filter;
    filter.from_block = r.block_num;
    filter.to_block = r.block_num;
    filter.addresses = {c};
    filter.topics = {std::vector<core::Hash32>{core::Hash32{}, ping_topic()}};  // OR list
    auto logs = client_->get_logs(filter);
    ASSERT_TRUE(logs) << logs.error().to_string();
    ASSERT_EQ(logs->size(), 1u);
    const Log& l = logs->front();
    EXPECT_EQ(l, r.logs[0]);
    EXPECT_EQ(l.address, c);
    ASSERT_EQ(l.topics.size(), 1u);
    EXPECT_EQ(l.topics[0], ping_topic());
    EXPECT_EQ(core::Uint256::from_word(l.data.data()), core::Uint256(42));
    EXPECT_EQ(l.block_num, r.block_num);
    EXPECT_EQ(l.block_hash, r.block_hash);
    EXPECT_EQ(l.txn_hash, r.txn_hash);
    EXPECT_FALSE(l.removed);

    // A topic that never occurs filters everything out; a null position matches anything.
    filter.topics = {std::vector<core::Hash32>{core::Hash32{}}};
    auto none = client_->get_logs(filter);
    ASSERT_TRUE(none);
    EXPECT_TRUE(none->empty());
    filter.topics = {std::nullopt};
    auto any = client_->get_logs(filter);
    ASSERT_TRUE(any);
    EXPECT_EQ(any->size(), 1u);
    // By block hash (EIP-234).
    LogFilter by_hash;
    by_hash.block_hash = r.block_hash;
    auto by_hash_logs = client_->get_logs(by_hash);
    ASSERT_TRUE(by_hash_logs);
    EXPECT_EQ(*by_hash_logs, *logs);
}

TEST_F(chain_rpc_anvil, fee_history_has_the_spec_shape) {
    ASSERT_TRUE(client_->request("anvil_mine", json::array({"0x4"})));
    // anvil 1.7 answers anvil_mine before its fee-history cache has every new block: poll until
    // the four blocks are there (or give up after 2 s and let the assertions below report it).
    const double percentiles[] = {10.0, 50.0, 90.0};
    auto fh = client_->fee_history(4, BlockId::latest(), percentiles);
    for (int i = 0; i < 100 && fh && fh->base_fee_per_gas.size() < 5; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        fh = client_->fee_history(4, BlockId::latest(), percentiles);
    }
    ASSERT_TRUE(fh) << fh.error().to_string();
    EXPECT_EQ(fh->base_fee_per_gas.size(), 5u);  // EIP-1559: one more than blockCount
    EXPECT_EQ(fh->gas_used_ratio.size(), 4u);
    ASSERT_EQ(fh->reward.size(), 4u);
    for (const auto& row : fh->reward) EXPECT_EQ(row.size(), 3u);
    auto bn = client_->block_number();
    ASSERT_TRUE(bn);
    EXPECT_EQ(fh->oldest_block, *bn - 3);
    auto tip = client_->max_priority_fee_per_gas();
    ASSERT_TRUE(tip) << tip.error().to_string();
    EXPECT_GT(*tip, core::Uint256(0));
}

TEST_F(chain_rpc_anvil, batch_of_ten_matches_individual_calls) {
    const std::string addr = dev_address().to_lower_hex();
    const std::vector<RpcCall> calls = {
        {"eth_chainId", json::array()},
        {"eth_blockNumber", json::array()},
        {"eth_getBalance", json::array({addr, "latest"})},
        {"eth_getTransactionCount", json::array({addr, "latest"})},
        {"eth_getCode", json::array({addr, "latest"})},
        {"eth_getStorageAt", json::array({addr, "0x0", "latest"})},
        {"eth_getBlockByNumber", json::array({"0x0", false})},
        {"eth_getBlockByNumber", json::array({"latest", false})},
        {"eth_no_such_method", json::array()},
        {"eth_gasPrice", json::array()},
    };
    auto batched = client_->batch(calls);
    ASSERT_TRUE(batched) << batched.error().to_string();
    ASSERT_EQ(batched->size(), calls.size());
    for (size_t i = 0; i < calls.size(); ++i) {
        auto single = client_->request(calls[i].method, calls[i].params);
        const auto& b = (*batched)[i];
        ASSERT_EQ(single.has_value(), b.has_value()) << calls[i].method;
        if (single) {
            EXPECT_EQ(*single, *b) << calls[i].method;
        } else {
            EXPECT_EQ(single.error().kind, RpcErrorKind::rpc_error);
            EXPECT_EQ(single.error().code, b.error().code);
        }
    }
    EXPECT_FALSE((*batched)[8]);
}

TEST(chain_rpc_anvil_harness, stop_kills_the_process_and_url_stops_answering) {
    auto started = credence::testing::AnvilProcess::start();
    ASSERT_TRUE(started) << started.error();
    auto& anvil = **started;
    HttpOptions http;
    http.total_timeout = std::chrono::milliseconds(2'000);
    RetryPolicy once;
    once.max_attempts = 1;
    auto client = RpcClient::make_http(anvil.url(), http, once);
    auto id = client.chain_id();
    ASSERT_TRUE(id) << id.error().to_string();
    EXPECT_EQ(*id, 31337u);
    const pid_t pid = anvil.pid();
    anvil.stop();
    EXPECT_NE(::kill(pid, 0), 0);  // reaped: the pid no longer exists
    auto after = client.chain_id();
    ASSERT_FALSE(after);
    EXPECT_EQ(after.error().kind, RpcErrorKind::transport);
}

TEST(chain_rpc_anvil_harness, bad_flag_fails_start_with_log) {
    credence::testing::AnvilOptions options;
    options.extra_args = {"--no-such-flag"};
    options.start_timeout = std::chrono::milliseconds(5'000);
    auto started = credence::testing::AnvilProcess::start(options);
    ASSERT_FALSE(started);
    EXPECT_NE(started.error().find("no-such-flag"), std::string::npos) << started.error();
}

}  // namespace
}  // namespace credence::chain
