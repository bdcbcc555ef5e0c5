// Ethereum JSON-RPC client: typed eth_* methods over an injectable transport, with batching and
// retries.
//
// Every method returns RpcResult<T>; no exception escapes. Failures the network may heal
// (transport errors, timeouts, HTTP 429/5xx) are retried per RetryPolicy (rpc_retry.hpp); answers
// (JSON-RPC error objects such as reverts, other 4xx, malformed responses) are returned at once.
// Request ids increase per client, so a response is always checked against its request.
//
// Thread-safety: NOT thread-safe (the id counter, the jitter source and the CurlTransport's easy
// handle are mutable state). Use one client per thread, or serialize calls with a mutex.
// Ownership: the client owns its transport.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <credence/chain/rpc_error.hpp>
#include <credence/chain/rpc_jsonrpc.hpp>
#include <credence/chain/rpc_retry.hpp>
#include <credence/chain/rpc_transport.hpp>
#include <credence/chain/rpc_types.hpp>

namespace credence::chain {

/// A response body as the node sent it, with the id of the request it answers (for callers that
/// parse large bodies themselves, e.g. index/log_json.hpp on eth_getLogs).
struct RawResponse {
    uint64_t id = 0;
    std::string body;
};

class RpcClient {
public:
    explicit RpcClient(std::unique_ptr<RpcTransport> transport, RetryPolicy retry = {});

    /// A client over libcurl for `url` (e.g. "http://127.0.0.1:8545").
    [[nodiscard]] static RpcClient make_http(std::string url, HttpOptions http = {},
                                             RetryPolicy retry = {});

    /// A second client to the same endpoint (its own connection, ids and retry policy like this
    /// one's), for another thread; nullopt when the transport cannot be cloned.
    [[nodiscard]] std::optional<RpcClient> clone() const;

    /// Any method (anvil_*, evm_*, debug_*...): the raw `result` JSON. `params` must be an array.
    [[nodiscard]] RpcResult<nlohmann::json> request(
        std::string_view method, nlohmann::json params = nlohmann::json::array());

    /// Posts one request, retried per RetryPolicy like request(), and returns the body unparsed:
    /// the caller checks the envelope and the id. `params` must be an array.
    [[nodiscard]] RpcResult<RawResponse> request_body(std::string_view method,
                                                      const nlohmann::json& params);

    /// Sends all calls in one HTTP request (JSON-RPC 2.0 §6). The outer result fails only when the
    /// whole exchange failed; element i is the outcome of calls[i]. An empty batch sends nothing.
    [[nodiscard]] RpcResult<std::vector<RpcResult<nlohmann::json>>> batch(
        std::span<const RpcCall> calls);

    [[nodiscard]] RpcResult<uint64_t> chain_id();
    [[nodiscard]] RpcResult<uint64_t> block_number();
    /// nullopt when the node has no such block. Transactions come as hashes only.
    [[nodiscard]] RpcResult<std::optional<Block>> get_block_by_number(BlockId block);
    [[nodiscard]] RpcResult<std::optional<Block>> get_block_by_hash(const core::Hash32& hash);
    [[nodiscard]] RpcResult<std::vector<Log>> get_logs(const LogFilter& filter);
    /// eth_call: the return data. A revert is rpc_error with the revert data in error().data.
    [[nodiscard]] RpcResult<core::Bytes> call(const CallRequest& req,
                                              BlockId block = BlockId::latest());
    [[nodiscard]] RpcResult<uint64_t> estimate_gas(const CallRequest& req,
                                                   std::optional<BlockId> block = std::nullopt);
    /// eth_feeHistory over `block_count` blocks ending at `newest`, with reward percentiles
    /// (monotonically increasing, 0..100; EIP-1559 fee estimation).
    [[nodiscard]] RpcResult<FeeHistory> fee_history(uint64_t block_count, BlockId newest,
                                                    std::span<const double> percentiles);
    [[nodiscard]] RpcResult<core::Uint256> max_priority_fee_per_gas();
    [[nodiscard]] RpcResult<core::Uint256> gas_price();
    [[nodiscard]] RpcResult<core::Uint256> get_balance(const core::Address& account,
                                                       BlockId block = BlockId::latest());
    /// The next nonce: use BlockId::pending() to count transactions still in the mempool.
    [[nodiscard]] RpcResult<uint64_t> get_transaction_count(const core::Address& account,
                                                            BlockId block = BlockId::latest());
    /// Returns the transaction hash the node reports.
    [[nodiscard]] RpcResult<core::Hash32> send_raw_transaction(core::ByteView raw_txn);
    /// nullopt while the transaction is pending or unknown.
    [[nodiscard]] RpcResult<std::optional<Receipt>> get_transaction_receipt(
        const core::Hash32& txn_hash);
    [[nodiscard]] RpcResult<core::Bytes> get_code(const core::Address& account,
                                                  BlockId block = BlockId::latest());
    [[nodiscard]] RpcResult<core::Hash32> get_storage_at(const core::Address& account,
                                                         const core::Uint256& slot,
                                                         BlockId block = BlockId::latest());

private:
    // One HTTP exchange with retries; records the attempt count on failure.
    RpcResult<std::string> post_with_retry(const std::string& body);

    std::unique_ptr<RpcTransport> transport_;
    RetryPolicy retry_;
    uint64_t next_id_ = 1;
    std::minstd_rand jitter_rng_;
};

}  // namespace credence::chain
