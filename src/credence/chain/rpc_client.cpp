#include <credence/chain/rpc_client.hpp>

#include <thread>

#include <credence/chain/rpc_codec.hpp>

namespace credence::chain {
namespace {

using nlohmann::json;

// Applies `reader` to a successful raw result, turning any stray nlohmann exception into
// bad_response so that nothing escapes the public API.
template <typename Reader>
auto decode(RpcResult<json> raw, Reader reader) -> decltype(reader(std::declval<const json&>())) {
    if (!raw) return std::unexpected(std::move(raw.error()));
    try {
        return reader(*raw);
    } catch (const std::exception& e) {
        return rpc_fail(RpcErrorKind::bad_response, e.what());
    }
}

// For methods whose result may be null (block or receipt not found).
template <typename Reader>
auto decode_nullable(RpcResult<json> raw, Reader reader) -> RpcResult<
    std::optional<typename decltype(reader(std::declval<const json&>()))::value_type>> {
    if (!raw) return std::unexpected(std::move(raw.error()));
    if (raw->is_null()) return std::nullopt;
    auto v = decode(std::move(raw), reader);
    if (!v) return std::unexpected(std::move(v.error()));
    return std::optional(std::move(*v));
}

}  // namespace

RpcClient::RpcClient(std::unique_ptr<RpcTransport> transport, RetryPolicy retry)
    : transport_(std::move(transport)), retry_(retry), jitter_rng_(std::random_device{}()) {}

RpcClient RpcClient::make_http(std::string url, HttpOptions http, RetryPolicy retry) {
    return RpcClient(std::make_unique<CurlTransport>(std::move(url), http), retry);
}

std::optional<RpcClient> RpcClient::clone() const {
    auto transport = transport_->clone();
    if (!transport) return std::nullopt;
    return RpcClient(std::move(transport), retry_);
}

RpcResult<std::string> RpcClient::post_with_retry(const std::string& body) {
    const int max_attempts = std::max(retry_.max_attempts, 1);
    for (int attempt = 1;; ++attempt) {
        auto r = transport_->post(body);
        if (r) return r;
        r.error().attempts = attempt;
        if (attempt >= max_attempts || !is_retryable(r.error())) return r;
        std::uniform_real_distribution<double> uniform(0.0, 1.0);
        std::this_thread::sleep_for(retry_delay(retry_, attempt, r.error(), uniform(jitter_rng_)));
    }
}

RpcResult<json> RpcClient::request(std::string_view method, json params) {
    try {
        const uint64_t id = next_id_++;
        const std::string body =
            encode_request(id, RpcCall{std::string(method), std::move(params)});
        auto raw = post_with_retry(body);
        if (!raw) return std::unexpected(std::move(raw.error()));
        return decode_response(*raw, id);
    } catch (const std::exception& e) {
        // json::dump throws on invalid UTF-8 in caller-supplied params; bad_alloc likewise.
        return rpc_fail(RpcErrorKind::invalid_argument, e.what());
    }
}

RpcResult<RawResponse> RpcClient::request_body(std::string_view method, const json& params) {
    try {
        const uint64_t id = next_id_++;
        const std::string body = encode_request(id, RpcCall{std::string(method), params});
        auto raw = post_with_retry(body);
        if (!raw) return std::unexpected(std::move(raw.error()));
        return RawResponse{id, std::move(*raw)};
    } catch (const std::exception& e) {
        return rpc_fail(RpcErrorKind::invalid_argument, e.what());
    }
}

RpcResult<std::vector<RpcResult<json>>> RpcClient::batch(std::span<const RpcCall> calls) {
    if (calls.empty()) return std::vector<RpcResult<json>>{};
    try {
        const uint64_t first_id = next_id_;
        next_id_ += calls.size();
        const std::string body = encode_batch(first_id, calls);
        auto raw = post_with_retry(body);
        if (!raw) return std::unexpected(std::move(raw.error()));
        return decode_batch(*raw, first_id, calls.size());
    } catch (const std::exception& e) {
        return rpc_fail(RpcErrorKind::invalid_argument, e.what());
    }
}

RpcResult<uint64_t> RpcClient::chain_id() { return decode(request("eth_chainId"), read_u64); }

RpcResult<uint64_t> RpcClient::block_number() {
    return decode(request("eth_blockNumber"), read_u64);
}

RpcResult<std::optional<Block>> RpcClient::get_block_by_number(BlockId block) {
    return decode_nullable(request("eth_getBlockByNumber", json::array({block.to_param(), false})),
                           read_block);
}

RpcResult<std::optional<Block>> RpcClient::get_block_by_hash(const core::Hash32& hash) {
    return decode_nullable(request("eth_getBlockByHash", json::array({core::to_hex(hash), false})),
                           read_block);
}

RpcResult<std::vector<Log>> RpcClient::get_logs(const LogFilter& filter) {
    return decode(request("eth_getLogs", json::array({to_json(filter)})), read_logs);
}

RpcResult<core::Bytes> RpcClient::call(const CallRequest& req, BlockId block) {
    return decode(request("eth_call", json::array({to_json(req), block.to_param()})), read_data);
}

RpcResult<uint64_t> RpcClient::estimate_gas(const CallRequest& req, std::optional<BlockId> block) {
    json params = json::array({to_json(req)});
    if (block) params.push_back(block->to_param());
    return decode(request("eth_estimateGas", std::move(params)), read_u64);
}

RpcResult<FeeHistory> RpcClient::fee_history(uint64_t block_count, BlockId newest,
                                             std::span<const double> percentiles) {
    json p = json::array();
    for (double v : percentiles) p.push_back(v);
    return decode(request("eth_feeHistory",
                          json::array({to_quantity(block_count), newest.to_param(), std::move(p)})),
                  read_fee_history);
}

RpcResult<core::Uint256> RpcClient::max_priority_fee_per_gas() {
    return decode(request("eth_maxPriorityFeePerGas"), read_quantity);
}

RpcResult<core::Uint256> RpcClient::gas_price() {
    return decode(request("eth_gasPrice"), read_quantity);
}

RpcResult<core::Uint256> RpcClient::get_balance(const core::Address& account, BlockId block) {
    return decode(
        request("eth_getBalance", json::array({account.to_lower_hex(), block.to_param()})),
        read_quantity);
}

RpcResult<uint64_t> RpcClient::get_transaction_count(const core::Address& account, BlockId block) {
    return decode(
        request("eth_getTransactionCount", json::array({account.to_lower_hex(), block.to_param()})),
        read_u64);
}

RpcResult<core::Hash32> RpcClient::send_raw_transaction(core::ByteView raw_txn) {
    return decode(request("eth_sendRawTransaction", json::array({core::to_hex(raw_txn)})),
                  read_hash);
}

RpcResult<std::optional<Receipt>> RpcClient::get_transaction_receipt(const core::Hash32& txn_hash) {
    return decode_nullable(
        request("eth_getTransactionReceipt", json::array({core::to_hex(txn_hash)})), read_receipt);
}

RpcResult<core::Bytes> RpcClient::get_code(const core::Address& account, BlockId block) {
    return decode(request("eth_getCode", json::array({account.to_lower_hex(), block.to_param()})),
                  read_data);
}

RpcResult<core::Hash32> RpcClient::get_storage_at(const core::Address& account,
                                                  const core::Uint256& slot, BlockId block) {
    return decode(request("eth_getStorageAt",
                          json::array({account.to_lower_hex(), slot.to_hex(), block.to_param()})),
                  read_hash);
}

}  // namespace credence::chain
