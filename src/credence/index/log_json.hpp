// Fast parser of eth_getLogs response bodies: the whole JSON-RPC envelope
// {"jsonrpc":"2.0","id":N,"result":[log, ...]} straight into RawLog values, with simdjson instead
// of nlohmann (docs/architecture.md §index/: "use simdjson or an equally fast parser on the large
// eth_getLogs responses"; bench/log_json_bench.cpp measures both). simdjson's DOM API, not
// On-Demand: the DOM parser picks its SIMD kernel (AVX2, SSE4.2, scalar) at run time, whereas
// On-Demand is compiled for the build's baseline target (scalar on plain x86-64), and the DOM
// validates the whole body, unknown members included.
//
// Strictness is that of the nlohmann path (chain/rpc_codec.hpp, execution-apis "Value encoding"):
// QUANTITY is 0x plus hex digits without leading zeros and must fit 64 bits; DATA is 0x plus an
// even number of hex digits; hashes are 0x plus 64 hex digits; addresses 0x plus 40 (any case, no
// EIP-55 check on the wire); `removed` is a boolean (absent or null: false). Every log must carry
// address, topics, data, blockNumber, blockHash, transactionHash, transactionIndex and logIndex;
// `blockTimestamp` (a QUANTITY, sent by newer nodes) is read when present; other unknown members
// are ignored, repeated members are refused. The parser does
// not judge the logs (topic count, address, range): LogSource does, so that it can skip a bad log
// with a reason instead of failing the chunk.
//
// Errors: a body that is not JSON is bad_json; JSON of the wrong shape (not an object, jsonrpc not
// "2.0", id not the request's, no result, a malformed log) is bad_response with a one-line message
// naming the log and field ("log 17: blockNumber: quantity has leading zeros"); a JSON-RPC error
// object is rpc_error with its code, message and data, decoded exactly as chain::decode_response
// does (it is handed to it: error bodies are small).
//
// Thread-safety: a LogJsonParser is NOT thread-safe (it reuses simdjson's buffers); use one per
// thread. The free function is thread-safe. Ownership: the parser owns its buffers, which grow to
// the largest body seen.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <credence/chain/rpc_error.hpp>
#include <credence/index/raw_log.hpp>

namespace credence::index {

class LogJsonParser {
public:
    LogJsonParser();
    ~LogJsonParser();
    LogJsonParser(LogJsonParser&&) noexcept;
    LogJsonParser& operator=(LogJsonParser&&) noexcept;
    LogJsonParser(const LogJsonParser&) = delete;
    LogJsonParser& operator=(const LogJsonParser&) = delete;

    /// Parses the body of the eth_getLogs call with request id `id`. `body` may get its capacity
    /// grown by simdjson's padding (64 bytes); its contents are not changed. No copy of the body.
    [[nodiscard]] chain::RpcResult<std::vector<RawLog>> parse_in_place(std::string& body,
                                                                       uint64_t id);
    /// The same for a body the caller cannot let grow: copied into a padded buffer first.
    [[nodiscard]] chain::RpcResult<std::vector<RawLog>> parse(std::string_view body, uint64_t id);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// One-shot parse with a fresh parser (tests, fuzzing). Prefer a long-lived LogJsonParser.
[[nodiscard]] chain::RpcResult<std::vector<RawLog>> parse_logs_response(std::string_view body,
                                                                        uint64_t id);

}  // namespace credence::index
