// Sends transactions the way a wallet does (docs/cli.md): nonce, EIP-1559 fees from fee history,
// gas estimation with a margin, signing, eth_sendRawTransaction, then waiting for the receipt and
// N confirmations.
//
//   prepare()  one batched JSON-RPC request (eth_getTransactionCount pending, eth_feeHistory,
//              eth_estimateGas) -> a signed EIP-1559 transaction; nothing is sent (--dry-run).
//   submit()   eth_sendRawTransaction -> the hash.
//   wait()     polls eth_getTransactionReceipt, then eth_blockNumber until `confirmations` blocks
//              hold it (the receipt is re-read then, so a reorg that dropped it is noticed).
//   dispatch() submit + wait, recovering a mined revert's data by replaying the call.
//   send()     prepare + dispatch.
//
// Fees (EIP-1559 §Specification, the wallet convention of ethers and viem): the priority fee is
// the median of the fee-history reward at `priority_percentile` over the last blocks (at least
// `min_priority_fee`), and max_fee = 2 * next base fee + priority fee, so the transaction stays
// valid through six full blocks of base-fee growth.
// Gas: eth_estimateGas * (100 + gas_margin_percent) / 100. A revert during estimation fails with
// SendError::reverted and the revert bytes, so the caller can decode them (revert.hpp); a mined
// transaction with status 0 is replayed with eth_call at its block to recover the same bytes.
// Nonces: the first prepare() reads the pending count; later ones use the local counter, which
// submit() advances only when the node accepted the transaction.
// Polling: nodes (anvil too) may answer a block number before the receipt is queryable, so wait()
// polls rather than trusting any one answer, until `receipt_timeout`.
//
// Thread-safety: not thread-safe (owns nonce state; the RpcClient is not thread-safe either).
// Ownership: borrows the RpcClient, which must outlive the sender. Key material stays in the
// caller's SecretKey and never appears in errors.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <credence/chain/rpc_client.hpp>
#include <credence/core/address.hpp>
#include <credence/core/bytes.hpp>
#include <credence/core/secp256k1.hpp>
#include <credence/core/txn.hpp>
#include <credence/core/uint256.hpp>

namespace credence::chain {

enum class SendError {
    rpc,                // the node could not be reached or answered with an error (see rpc)
    chain_id_mismatch,  // the node's chain id is not the expected one
    reverted,           // estimation or execution reverted; revert_data holds the bytes
    receipt_timeout,    // no receipt (or not enough confirmations) within receipt_timeout
    dropped,            // the receipt disappeared while waiting for confirmations (reorg)
    bad_fee_data,       // the node returned fee history that cannot price a transaction
    signing,            // signing failed (never for a valid SecretKey)
};

[[nodiscard]] std::string_view to_string(SendError e) noexcept;

struct SendFailure {
    SendError code = SendError::rpc;
    std::string detail;       // one line
    core::Bytes revert_data;  // for reverted: the revert bytes (may be empty)
    std::optional<RpcError> rpc;
    std::optional<core::Hash32> txn_hash;  // set once the transaction was submitted
};

template <typename T>
using SendResult = std::expected<T, SendFailure>;

/// What to send. `to` nullopt creates a contract from `data`.
struct TxnRequest {
    std::optional<core::Address> to;
    core::Bytes data;
    core::Uint256 value;
    std::optional<uint64_t> gas_limit;  // skips estimation when set
    std::optional<uint64_t> nonce;      // overrides the managed nonce
};

struct SenderOptions {
    /// The chain id to sign for, checked against the node's eth_chainId on the first prepare();
    /// nullopt: use the node's.
    std::optional<uint64_t> chain_id;
    unsigned gas_margin_percent = 20;
    unsigned confirmations = 1;  // 1: the block that includes it
    double priority_percentile = 50.0;
    uint64_t fee_history_blocks = 5;
    core::Uint256 min_priority_fee = core::Uint256{1};
    std::chrono::milliseconds poll_interval{20};
    std::chrono::milliseconds receipt_timeout{60'000};
};

class TxnSender {
public:
    TxnSender(RpcClient& rpc, const core::SecretKey& key, SenderOptions options = {});

    [[nodiscard]] const core::Address& address() const noexcept { return address_; }

    /// Fills in nonce, fees and gas, and signs. Sends nothing.
    [[nodiscard]] SendResult<core::SignedTxn> prepare(const TxnRequest& request);
    /// Broadcasts a signed transaction; returns its hash. Advances the managed nonce on success.
    [[nodiscard]] SendResult<core::Hash32> submit(const core::SignedTxn& signed_txn);
    /// Waits for the receipt and the configured confirmations. status 0 fails with reverted.
    [[nodiscard]] SendResult<Receipt> wait(const core::Hash32& txn_hash);
    /// submit + wait; a mined revert is replayed with eth_call to recover its revert data.
    [[nodiscard]] SendResult<Receipt> dispatch(const core::SignedTxn& signed_txn);
    /// prepare + dispatch.
    [[nodiscard]] SendResult<Receipt> send(const TxnRequest& request);

private:
    RpcClient& rpc_;
    const core::SecretKey& key_;
    core::Address address_;
    SenderOptions options_;
    std::optional<uint64_t> next_nonce_;
    bool chain_checked_ = false;
};

}  // namespace credence::chain
