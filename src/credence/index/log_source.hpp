// Fetches registry logs and block headers from a JSON-RPC node for the indexer.
//
// Logs come from eth_getLogs over adaptive block ranges (docs/architecture.md §index/): the first
// range is a small probe of the chain's density, and every later one is aimed at
// RangePolicy::target_logs logs and max_body_bytes of JSON from the density and the bytes per log
// just seen (growing fast over sparse blocks, by at most x2 near the target, shrinking by at most
// /2 per step), up to max_blocks. A range halves, retried at once, when the provider refuses it,
// either with a "too many results" / "block range too large" / "response size exceeded" JSON-RPC
// error (the wording of geth, erigon, anvil, Alchemy, Infura, QuickNode, ...) or with an oversized
// body (RpcErrorKind::too_large, HTTP 413). A one-block range that is still refused is an error.
// The response body is parsed with simdjson (log_json.hpp), not nlohmann, because these bodies
// reach tens of MiB. Transport failures, timeouts and HTTP 429/5xx are retried with backoff by the
// RpcClient's RetryPolicy; what still fails is returned, never thrown.
//
// Far behind the head, sweep() keeps up to RangePolicy::in_flight ranges in flight at once, each on
// its own connection and thread (a lane: a LogSource over a clone of the client), and returns
// them merged strictly in chain order. The lanes share the aims (each aims at target_logs /
// in_flight logs and max_body_bytes / in_flight bytes), so the memory in flight is that of one
// range however many lanes there are. A range aimed like next_chunk's, refused or rate-limited,
// is handled by its lane the same way, and a rate-limit answer halves the ranges in flight for the
// rest of the sweep.
//
// Every returned log is checked: its address is one of the requested ones, its block is inside the
// requested range, it has 0..4 topics and `removed` is false. A log that fails a check is
// dropped and counted in LogChunk::skipped with a reason (the indexer logs it); the chunk is
// otherwise complete. Logs are returned sorted by (block_num, log_index).
//
// Thread-safety: one LogSource per thread (it owns an RpcClient). Ownership: owns the client.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <credence/chain/rpc_client.hpp>
#include <credence/index/log_json.hpp>
#include <credence/index/raw_log.hpp>

namespace credence::index {

struct RangePolicy {
    /// The probe: small enough that even a dense chain (80 logs of 545 bytes a block) answers it in
    /// a few MB, where a 2,000-block first range asked a permissive node for 270 MB in one body.
    uint64_t initial_blocks = 32;
    uint64_t max_blocks = 100'000;  // many providers cap at 10k; the range shrinks on refusal
    uint64_t min_blocks = 1;
    /// After a success with n logs, the next range is scaled to hold about this many logs (at most
    /// x2 and at least /2 per step, within [min_blocks, max_blocks]), so that one chunk's body and
    /// its RawLogs stay bounded however dense the chain is (docs/architecture.md §index/: peak RSS
    /// <= 300 MB). 2,000: the JSON parser keeps buffers sized for the largest body it has read, and
    /// 10,000 logs (a 14 MB body) measured 306-314 MB peak for a 1,000,000-event sync against 263
    /// MB, at the same speed (docs/benchmarks.md).
    uint64_t target_logs = 2'000;
    /// The body each request aims under, from the bytes per log of the last body: big logs lower
    /// the log target (0: no byte aim). A body over the client's own limit is a refusal anyway.
    uint64_t max_body_bytes = 8ULL << 20;
    /// Growth per step after a chunk that held under a quarter of its aim (a sparse stretch): the
    /// probe reaches 100,000-block ranges in five steps. Near the aim the growth is x2.
    uint64_t max_growth = 8;
    /// A provider that rate-limits (-32005 or an error saying "rate limit", a 429 past the
    /// client's retries) gets the same range again after this pause, doubled per answer, up to
    /// rate_limit_retries times; the range is not halved, which would only mean more requests.
    std::chrono::milliseconds rate_limit_backoff{250};
    unsigned rate_limit_retries = 6;
    /// eth_getLogs requests in flight at once during sweep(): a node answers several ranges on
    /// its cores while this process parses and commits (docs/benchmarks.md). 1: one at a time.
    unsigned in_flight = 4;
};

struct SkippedLog {
    RawLog log;
    std::string reason;  // e.g. "address not requested", "block outside range", "5 topics"
};

struct LogChunk {
    uint64_t from_block = 0;
    uint64_t to_block = 0;  // inclusive; <= the caller's limit
    std::vector<RawLog> logs;
    std::vector<SkippedLog> skipped;
    uint64_t requests = 0;      // eth_getLogs requests made, splits included
    uint64_t body_bytes = 0;    // JSON received for the logs returned
    unsigned rate_limited = 0;  // rate-limit answers met (each waited for and retried)
};

class LogSource {
public:
    explicit LogSource(chain::RpcClient client, RangePolicy policy = {});

    /// Logs of `addresses` from `from_block` up to at most `to_block` (inclusive): the chunk covers
    /// [from_block, chunk.to_block] completely, where chunk.to_block is chosen by the adaptive
    /// range. Fails only when even a min_blocks range cannot be fetched.
    [[nodiscard]] chain::RpcResult<LogChunk> next_chunk(uint64_t from_block, uint64_t to_block,
                                                        std::span<const core::Address> addresses);

    /// Logs of [from_block, to_block], or of a prefix of it holding about `max_logs` logs, with up
    /// to RangePolicy::in_flight ranges in flight (see above), merged in chain order: the chunk
    /// covers [from_block, chunk.to_block] completely. A range that still fails ends the sweep
    /// after the ranges before it; the error is returned only when no range succeeded. Without
    /// a clonable client (or with in_flight 1) it is next_chunk in a loop.
    [[nodiscard]] chain::RpcResult<LogChunk> sweep(uint64_t from_block, uint64_t to_block,
                                                   std::span<const core::Address> addresses,
                                                   uint64_t max_logs);

    /// Headers of blocks [from_block, to_block] in one batched request (eth_getBlockByNumber,
    /// without transactions). Fails if any block is missing (beyond the node's head).
    [[nodiscard]] chain::RpcResult<std::vector<BlockHeader>> headers(uint64_t from_block,
                                                                     uint64_t to_block);
    /// Headers of the given block numbers, in the same order, one batched request.
    [[nodiscard]] chain::RpcResult<std::vector<BlockHeader>> headers_of(
        std::span<const uint64_t> block_nums);

    /// The current adaptive range size, for progress reporting and tests.
    [[nodiscard]] uint64_t range_blocks() const noexcept { return range_blocks_; }
    /// The underlying client, for the indexer's other calls (eth_blockNumber, eth_call,
    /// eth_getCode).
    [[nodiscard]] chain::RpcClient& client() noexcept { return client_; }

    ~LogSource();
    LogSource(LogSource&&) noexcept;
    LogSource& operator=(LogSource&&) noexcept;

private:
    struct Lane;
    // The lanes of sweep(), made on first use (fewer when the client cannot be cloned).
    void make_lanes();

    // Sets range_blocks_ after a success that returned `returned_logs` logs in `body_bytes` of
    // JSON from a range of `span` blocks (RangePolicy).
    void adapt_range(uint64_t span, size_t returned_logs, size_t body_bytes);

    chain::RpcClient client_;
    RangePolicy policy_;
    uint64_t range_blocks_;
    LogJsonParser parser_;  // reused: simdjson keeps its buffers between chunks
    std::vector<std::unique_ptr<Lane>> lanes_;
    bool lanes_made_ = false;
};

}  // namespace credence::index
