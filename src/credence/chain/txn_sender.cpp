#include <credence/chain/txn_sender.hpp>

#include <algorithm>
#include <array>
#include <thread>
#include <utility>

#include <fmt/core.h>

#include <credence/chain/rpc_codec.hpp>

namespace credence::chain {

namespace {

using core::Uint256;
using nlohmann::json;

std::unexpected<SendFailure> send_fail(SendError code, std::string detail) {
    SendFailure f;
    f.code = code;
    f.detail = std::move(detail);
    return std::unexpected(std::move(f));
}

// An RPC failure; an error object that carries revert data (or says "revert") is a revert.
std::unexpected<SendFailure> rpc_failure(RpcError e, std::string_view what) {
    SendFailure f;
    f.code = is_revert(e) ? SendError::reverted : SendError::rpc;
    f.detail = fmt::format("{}: {}", what, e.to_string());
    f.revert_data = e.data;
    f.rpc = std::move(e);
    return std::unexpected(std::move(f));
}

// Median of the non-zero rewards at the one requested percentile (ethers/viem style); zero rewards
// come from empty blocks and say nothing about the market.
Uint256 median_reward(const FeeHistory& history) {
    std::vector<Uint256> rewards;
    for (const auto& block : history.reward)
        if (!block.empty() && block.front() != Uint256{}) rewards.push_back(block.front());
    if (rewards.empty()) return {};
    std::ranges::sort(rewards);
    return rewards[rewards.size() / 2];
}

}  // namespace

std::string_view to_string(SendError e) noexcept {
    switch (e) {
        case SendError::rpc:
            return "rpc error";
        case SendError::chain_id_mismatch:
            return "chain id mismatch";
        case SendError::reverted:
            return "reverted";
        case SendError::receipt_timeout:
            return "receipt timeout";
        case SendError::dropped:
            return "dropped by a reorg";
        case SendError::bad_fee_data:
            return "bad fee data";
        case SendError::signing:
            return "signing failed";
    }
    return "unknown send error";
}

TxnSender::TxnSender(RpcClient& rpc, const core::SecretKey& key, SenderOptions options)
    : rpc_(rpc), key_(key), address_(core::address_of(key)), options_(options) {}

SendResult<core::SignedTxn> TxnSender::prepare(const TxnRequest& request) {
    // One round trip for everything the transaction needs (JSON-RPC 2.0 §6 batch).
    CallRequest call;
    call.from = address_;
    call.to = request.to;
    call.data = request.data;
    if (request.value != Uint256{}) call.value = request.value;

    std::vector<RpcCall> calls;
    const auto add = [&calls](std::string method, json params) {
        calls.push_back({std::move(method), std::move(params)});
        return calls.size() - 1;
    };
    const size_t fee_i =
        add("eth_feeHistory", json::array({to_quantity(options_.fee_history_blocks), "latest",
                                           json::array({options_.priority_percentile})}));
    // The chain id is asked once: to sign for it, or to check the one we were given.
    const size_t chain_i = chain_checked_ ? SIZE_MAX : add("eth_chainId", json::array());
    const bool need_nonce = !request.nonce && !next_nonce_;
    const size_t nonce_i =
        need_nonce ? add("eth_getTransactionCount",
                         json::array({address_.to_lower_hex(), BlockId::pending().to_param()}))
                   : SIZE_MAX;
    const size_t gas_i =
        request.gas_limit ? SIZE_MAX : add("eth_estimateGas", json::array({to_json(call)}));

    auto answers = rpc_.batch(calls);
    if (!answers) return rpc_failure(std::move(answers.error()), "batch request");
    auto& a = *answers;

    if (chain_i != SIZE_MAX) {
        if (!a[chain_i]) return rpc_failure(std::move(a[chain_i].error()), "eth_chainId");
        auto id = read_u64(*a[chain_i]);
        if (!id) return rpc_failure(std::move(id.error()), "eth_chainId");
        if (options_.chain_id && *options_.chain_id != *id)
            return send_fail(
                SendError::chain_id_mismatch,
                fmt::format("the node is on chain {}, not {}", *id, *options_.chain_id));
        options_.chain_id = *id;
        chain_checked_ = true;
    }
    if (!a[fee_i]) return rpc_failure(std::move(a[fee_i].error()), "eth_feeHistory");
    auto history = read_fee_history(*a[fee_i]);
    if (!history) return rpc_failure(std::move(history.error()), "eth_feeHistory");
    if (history->base_fee_per_gas.empty())
        return send_fail(SendError::bad_fee_data, "eth_feeHistory returned no base fee");

    if (need_nonce) {
        if (!a[nonce_i])
            return rpc_failure(std::move(a[nonce_i].error()), "eth_getTransactionCount");
        auto n = read_u64(*a[nonce_i]);
        if (!n) return rpc_failure(std::move(n.error()), "eth_getTransactionCount");
        next_nonce_ = *n;
    }

    uint64_t gas = 0;
    if (request.gas_limit) {
        gas = *request.gas_limit;
    } else {
        if (!a[gas_i]) return rpc_failure(std::move(a[gas_i].error()), "eth_estimateGas");
        auto estimate = read_u64(*a[gas_i]);
        if (!estimate) return rpc_failure(std::move(estimate.error()), "eth_estimateGas");
        // The margin covers state that changes between estimation and inclusion.
        const uint64_t factor = 100U + options_.gas_margin_percent;
        gas = *estimate > UINT64_MAX / factor ? UINT64_MAX : *estimate * factor / 100U;
    }

    // EIP-1559: the last base fee in the history is the next block's.
    const Uint256 base_fee = history->base_fee_per_gas.back();
    const Uint256 priority = std::max(median_reward(*history), options_.min_priority_fee);
    const auto doubled = Uint256::checked_mul(base_fee, Uint256{2});
    const auto max_fee = doubled ? Uint256::checked_add(*doubled, priority) : std::nullopt;
    if (!max_fee) return send_fail(SendError::bad_fee_data, "base fee overflows");

    core::Txn txn;
    txn.type = core::TxnType::dynamic_fee;
    txn.chain_id = options_.chain_id;
    txn.nonce = request.nonce ? *request.nonce : *next_nonce_;
    txn.max_priority_fee_per_gas = priority;
    txn.max_fee_per_gas = *max_fee;
    txn.gas_limit = gas;
    txn.to = request.to;
    txn.value = request.value;
    txn.data = request.data;
    auto signed_txn = core::sign_txn(txn, key_);
    if (!signed_txn)
        return send_fail(SendError::signing, std::string(to_string(signed_txn.error().code)));
    return std::move(*signed_txn);
}

SendResult<core::Hash32> TxnSender::submit(const core::SignedTxn& signed_txn) {
    const auto raw = core::encode_signed(signed_txn);
    auto hash = rpc_.send_raw_transaction(raw);
    if (!hash) return rpc_failure(std::move(hash.error()), "eth_sendRawTransaction");
    // The node accepted it: the next transaction takes the following nonce.
    if (next_nonce_ && signed_txn.txn.nonce == *next_nonce_) ++*next_nonce_;
    return *hash;
}

SendResult<Receipt> TxnSender::wait(const core::Hash32& txn_hash) {
    const auto deadline = std::chrono::steady_clock::now() + options_.receipt_timeout;
    const auto with_hash = [&txn_hash](std::unexpected<SendFailure> f) {
        f.error().txn_hash = txn_hash;
        return f;
    };
    std::optional<Receipt> receipt;
    for (;;) {
        auto r = rpc_.get_transaction_receipt(txn_hash);
        if (!r) return with_hash(rpc_failure(std::move(r.error()), "eth_getTransactionReceipt"));
        if (receipt && !*r)
            return with_hash(send_fail(SendError::dropped, "the receipt disappeared (reorg)"));
        receipt = std::move(*r);
        if (receipt) {
            const uint64_t needed = receipt->block_num + options_.confirmations - 1;
            auto head =
                options_.confirmations <= 1 ? RpcResult<uint64_t>{needed} : rpc_.block_number();
            if (!head) return with_hash(rpc_failure(std::move(head.error()), "eth_blockNumber"));
            if (*head >= needed) break;
        }
        if (std::chrono::steady_clock::now() >= deadline)
            return with_hash(
                send_fail(SendError::receipt_timeout,
                          fmt::format("no {} after {} ms", receipt ? "confirmations" : "receipt",
                                      options_.receipt_timeout.count())));
        std::this_thread::sleep_for(options_.poll_interval);
    }
    if (!receipt->status) {
        auto f = send_fail(SendError::reverted, "transaction reverted");
        f.error().txn_hash = txn_hash;
        return f;
    }
    return std::move(*receipt);
}

SendResult<Receipt> TxnSender::dispatch(const core::SignedTxn& signed_txn) {
    auto hash = submit(signed_txn);
    if (!hash) return std::unexpected(std::move(hash.error()));
    auto receipt = wait(*hash);
    if (!receipt && receipt.error().code == SendError::reverted) {
        // A receipt carries no revert data; replaying the call recovers it. A failed transaction
        // changes only the sender's nonce and balance, so the replay sees the same contract state.
        CallRequest call;
        call.from = address_;
        call.to = signed_txn.txn.to;
        call.data = signed_txn.txn.data;
        call.gas = signed_txn.txn.gas_limit;
        if (signed_txn.txn.value != Uint256{}) call.value = signed_txn.txn.value;
        auto replay = rpc_.call(call, BlockId::latest());
        if (!replay && !replay.error().data.empty())
            receipt.error().revert_data = replay.error().data;
    }
    return receipt;
}

SendResult<Receipt> TxnSender::send(const TxnRequest& request) {
    auto signed_txn = prepare(request);
    if (!signed_txn) return std::unexpected(std::move(signed_txn.error()));
    return dispatch(*signed_txn);
}

}  // namespace credence::chain
