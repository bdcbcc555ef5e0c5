#include <credence/index/log_source.hpp>

#include <algorithm>
#include <cctype>
#include <deque>
#include <future>
#include <iterator>
#include <limits>
#include <optional>
#include <string_view>
#include <thread>
#include <tuple>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <credence/chain/rpc_codec.hpp>
#include <credence/index/worker_thread.hpp>

namespace credence::index {
namespace {

using chain::RpcError;
using chain::RpcErrorKind;
using nlohmann::json;

// geth's default --rpc.batch-request-limit; Alchemy and Infura cap batches likewise.
constexpr size_t kMaxBatch = 1'000;

// Phrases with which providers refuse an eth_getLogs range as too wide or too full, lowercased:
//   geth, Infura:     "query returned more than 10000 results"
//   erigon:           "query exceeds max results 20000", "query exceeds max block range 1000000"
//   Alchemy:          "Log response size exceeded. You can make eth_getLogs requests with up to a
//                      2K block range ...", "...block range should work..."
//   QuickNode:        "eth_getLogs is limited to a 10,000 range", "... are limited to ..."
//   Ankr, BSC, Base:  "block range is too wide", "exceed maximum block range: 50000",
//                     "ranges over 10000 blocks are not supported"
//   Nethermind, reth: "too many logs", "response size exceeded", "query timeout exceeded"
// Matching is deliberately broad: a false positive only costs a halving, while a missed refusal
// stops the indexer on a provider limit it could have stepped around.
constexpr std::string_view kRefusalPhrases[] = {
    "more than",  "too many",      "exceed",          "block range", "range is too",
    "range too",  "ranges over",   "limited to",      "too large",   "too big",
    "size limit", "response size", "limit the query", "timeout",     "timed out",
};

std::string lowercase(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool says_too_much(std::string_view message) {
    const std::string lower = lowercase(message);
    return std::ranges::any_of(kRefusalPhrases, [&](std::string_view phrase) {
        return lower.find(phrase) != std::string::npos;
    });
}

// Whether the provider is rate-limiting this client: the same request passes later, and a
// smaller range would not help. Providers say so with -32005 too (the code of "limit exceeded"),
// or with a 429 that outlasted the client's own retries.
bool is_rate_limit(const RpcError& e) {
    if (e.kind == RpcErrorKind::http_status) return e.http_status == 429;
    if (e.kind != RpcErrorKind::rpc_error) return false;
    const std::string lower = lowercase(e.message);
    return lower.find("rate limit") != std::string::npos ||
           lower.find("too many requests") != std::string::npos ||
           lower.find("request rate") != std::string::npos;
}

// Whether the provider refused the range itself, so that a smaller one may pass
// (docs/architecture.md §index/).
bool is_refusal(const RpcError& e) {
    if (is_rate_limit(e)) return false;
    switch (e.kind) {
        case RpcErrorKind::too_large:  // our own cap on the body (HttpOptions::max_response_bytes)
            return true;
        case RpcErrorKind::http_status:
            // 413 Content Too Large (RFC 9110 §15.5.14); some gateways answer a range refusal
            // with a 400 whose body says why.
            return e.http_status == 413 || (e.http_status >= 400 && e.http_status < 500 &&
                                            e.http_status != 429 && says_too_much(e.message));
        case RpcErrorKind::rpc_error:
            // EIP-1474: -32005 "limit exceeded" (Infura's code for too many results).
            return e.code == -32005 || says_too_much(e.message) || says_too_much(e.data_json);
        default:
            return false;
    }
}

// Why a log is dropped, or empty when it is kept (log_source.hpp: address, range, topics, removed).
std::string check_log(const RawLog& log, uint64_t from_block, uint64_t to_block,
                      std::span<const core::Address> wanted) {
    if (!wanted.empty() && !std::ranges::binary_search(wanted, log.address)) {
        return "address not requested";
    }
    if (log.block_num < from_block || log.block_num > to_block) return "block outside range";
    // The EVM has LOG0..LOG4 only (Yellow Paper §9.4.8, Appendix H.2).
    if (log.topics.size() > 4) return fmt::format("{} topics", log.topics.size());
    if (log.removed) return "removed";
    return {};
}

// (block_num, log_index) first; the rest only orders the duplicates that a faulty node may send, so
// that which one is kept does not depend on the order of the response.
bool log_order(const RawLog& a, const RawLog& b) {
    return std::tie(a.block_num, a.log_index, a.address, a.txn_hash, a.block_hash) <
           std::tie(b.block_num, b.log_index, b.address, b.txn_hash, b.block_hash);
}

// The four header fields of an eth_getBlockByNumber result, strictly (chain/rpc_codec.hpp).
chain::RpcResult<BlockHeader> read_header(const json& j, uint64_t block_num) {
    if (j.is_null()) {
        return chain::rpc_fail(RpcErrorKind::bad_response,
                               fmt::format("block {} not found", block_num));
    }
    if (!j.is_object())
        return chain::rpc_fail(RpcErrorKind::bad_response, "block is not an object");
    auto field = [&](const char* name) -> const json* {
        auto it = j.find(name);
        return it == j.end() ? nullptr : &*it;
    };
    const json* number = field("number");
    const json* hash = field("hash");
    const json* parent = field("parentHash");
    const json* timestamp = field("timestamp");
    if (number == nullptr || hash == nullptr || parent == nullptr || timestamp == nullptr) {
        return chain::rpc_fail(
            RpcErrorKind::bad_response,
            fmt::format("block {}: missing number, hash, parentHash or timestamp", block_num));
    }
    auto n = chain::read_u64(*number);
    auto h = chain::read_hash(*hash);
    auto p = chain::read_hash(*parent);
    auto t = chain::read_u64(*timestamp);
    for (const chain::RpcError* e : {n ? nullptr : &n.error(), h ? nullptr : &h.error(),
                                     p ? nullptr : &p.error(), t ? nullptr : &t.error()}) {
        if (e != nullptr) {
            return chain::rpc_fail(RpcErrorKind::bad_response,
                                   fmt::format("block {}: {}", block_num, e->message));
        }
    }
    if (*n != block_num) {
        return chain::rpc_fail(RpcErrorKind::bad_response,
                               fmt::format("asked for block {}, got block {}", block_num, *n));
    }
    return BlockHeader{*n, *h, *p, *t};
}

// Appends `more`, the chunk that follows `into`, to it.
void append_chunk(LogChunk& into, LogChunk&& more) {
    into.to_block = more.to_block;
    into.requests += more.requests;
    into.body_bytes += more.body_bytes;
    into.rate_limited += more.rate_limited;
    if (into.logs.empty()) {
        into.logs = std::move(more.logs);
    } else {
        into.logs.insert(into.logs.end(), std::make_move_iterator(more.logs.begin()),
                         std::make_move_iterator(more.logs.end()));
    }
    into.skipped.insert(into.skipped.end(), std::make_move_iterator(more.skipped.begin()),
                        std::make_move_iterator(more.skipped.end()));
}

}  // namespace

// One range in flight at a time: a LogSource on its own connection, driven by its own thread
// (one malloc arena per lane, reused batch after batch: worker_thread.hpp).
struct LogSource::Lane {
    explicit Lane(LogSource s) : source(std::move(s)) {}
    LogSource source;
    WorkerThread thread;  // last: joined before the source goes
};

LogSource::~LogSource() = default;
LogSource::LogSource(LogSource&&) noexcept = default;
LogSource& LogSource::operator=(LogSource&&) noexcept = default;

LogSource::LogSource(chain::RpcClient client, RangePolicy policy)
    : client_(std::move(client)), policy_(policy) {
    policy_.min_blocks = std::max<uint64_t>(policy_.min_blocks, 1);
    policy_.max_blocks = std::max(policy_.max_blocks, policy_.min_blocks);
    range_blocks_ = std::clamp(policy_.initial_blocks, policy_.min_blocks, policy_.max_blocks);
}

chain::RpcResult<LogChunk> LogSource::next_chunk(uint64_t from_block, uint64_t to_block,
                                                 std::span<const core::Address> addresses) {
    if (from_block > to_block) {
        return chain::rpc_fail(RpcErrorKind::invalid_argument,
                               fmt::format("from_block {} > to_block {}", from_block, to_block));
    }
    try {
        chain::LogFilter filter;
        filter.addresses.assign(addresses.begin(), addresses.end());
        std::ranges::sort(filter.addresses);
        filter.addresses.erase(std::ranges::unique(filter.addresses).begin(),
                               filter.addresses.end());

        LogChunk chunk;
        chunk.from_block = from_block;
        unsigned rate_limited = 0;  // rate-limit answers to this chunk so far
        for (;;) {
            // Written so that [0, UINT64_MAX] does not overflow.
            const uint64_t span = std::min(range_blocks_ - 1, to_block - from_block) + 1;
            const uint64_t last = from_block + span - 1;
            filter.from_block = from_block;
            filter.to_block = last;
            ++chunk.requests;
            auto raw = client_.request_body("eth_getLogs", json::array({chain::to_json(filter)}));
            chain::RpcResult<std::vector<RawLog>> logs =
                raw ? parser_.parse_in_place(raw->body, raw->id)
                    : std::unexpected(std::move(raw.error()));
            const size_t body_bytes = raw ? raw->body.size() : 0;
            if (raw) std::string().swap(raw->body);  // free the body before validating
            if (!logs) {
                if (is_rate_limit(logs.error()) && rate_limited < policy_.rate_limit_retries) {
                    // The same range again, after a pause that doubles per answer.
                    std::this_thread::sleep_for(policy_.rate_limit_backoff * (1U << rate_limited));
                    ++rate_limited;
                    continue;
                }
                if (is_refusal(logs.error()) && span > policy_.min_blocks) {
                    range_blocks_ = std::max(policy_.min_blocks, span / 2);
                    continue;
                }
                logs.error().message = fmt::format("eth_getLogs blocks {}..{}: {}", from_block,
                                                   last, logs.error().message);
                return std::unexpected(std::move(logs.error()));
            }
            chunk.to_block = last;
            chunk.body_bytes = body_bytes;
            chunk.rate_limited = rate_limited;
            adapt_range(span, logs->size(), body_bytes);

            if (!std::ranges::is_sorted(*logs, log_order)) std::ranges::sort(*logs, log_order);
            chunk.logs.reserve(logs->size());
            for (RawLog& log : *logs) {
                std::string reason = check_log(log, from_block, last, filter.addresses);
                // A (block, log index) pair names one log: a repeat is a node bug; keep one.
                if (reason.empty() && !chunk.logs.empty() &&
                    chunk.logs.back().block_num == log.block_num &&
                    chunk.logs.back().log_index == log.log_index) {
                    reason = "duplicate log index";
                }
                if (reason.empty()) {
                    chunk.logs.push_back(std::move(log));
                } else {
                    chunk.skipped.push_back(SkippedLog{std::move(log), std::move(reason)});
                }
            }
            return chunk;
        }
    } catch (const std::exception& e) {  // bad_alloc; json::dump on our own filter cannot throw
        return chain::rpc_fail(RpcErrorKind::invalid_argument, e.what());
    }
}

void LogSource::make_lanes() {
    if (lanes_made_) return;
    lanes_made_ = true;
    if (policy_.in_flight <= 1) return;
    // The aims are shared among the lanes, so the bodies and parse buffers alive at once stay
    // those of one range, however many are in flight (peak RSS, docs/benchmarks.md).
    RangePolicy lane_policy = policy_;
    lane_policy.in_flight = 1;
    lane_policy.target_logs = std::max<uint64_t>(1, policy_.target_logs / policy_.in_flight);
    if (policy_.max_body_bytes > 0) {
        lane_policy.max_body_bytes =
            std::max<uint64_t>(1, policy_.max_body_bytes / policy_.in_flight);
    }
    for (unsigned i = 0; i < policy_.in_flight; ++i) {
        auto client = client_.clone();
        if (!client) {
            lanes_.clear();  // a transport that cannot be cloned: one request at a time
            return;
        }
        lanes_.push_back(std::make_unique<Lane>(LogSource(std::move(*client), lane_policy)));
    }
}

chain::RpcResult<LogChunk> LogSource::sweep(uint64_t from_block, uint64_t to_block,
                                            std::span<const core::Address> addresses,
                                            uint64_t max_logs) {
    if (from_block > to_block) {
        return chain::rpc_fail(RpcErrorKind::invalid_argument,
                               fmt::format("from_block {} > to_block {}", from_block, to_block));
    }
    // All of [from, to] through `source`, chunk after chunk: a lane's job.
    const auto cover = [addresses](LogSource& source, uint64_t from,
                                   uint64_t to) -> chain::RpcResult<LogChunk> {
        LogChunk all;
        all.from_block = from;
        for (uint64_t at = from;;) {
            auto chunk = source.next_chunk(at, to, addresses);
            if (!chunk) return chunk;
            append_chunk(all, std::move(*chunk));
            if (all.to_block >= to) return all;
            at = all.to_block + 1;
        }
    };
    make_lanes();
    LogChunk all;
    all.from_block = from_block;
    bool any = false;
    if (lanes_.empty()) {
        for (uint64_t at = from_block;;) {
            auto chunk = next_chunk(at, to_block, addresses);
            if (!chunk) {
                if (!any) return chunk;
                break;  // what came before commits; the next sweep meets the error again
            }
            append_chunk(all, std::move(*chunk));
            any = true;
            if (all.to_block >= to_block || all.logs.size() >= max_logs) break;
            at = all.to_block + 1;
        }
        return all;
    }

    struct Pending {
        std::future<chain::RpcResult<LogChunk>> result;
        size_t lane = 0;
    };
    std::deque<Pending> pending;
    size_t limit = lanes_.size();  // halved by a rate-limit answer
    size_t next_lane = 0;
    uint64_t next = from_block;
    bool launched_all = false;
    std::optional<RpcError> failure;
    const uint64_t lane_aim = lanes_.front()->source.policy_.target_logs;
    const auto want_more = [&] {
        // Each range in flight is aimed at target_logs: stop launching once they would fill the
        // caller's batch.
        return !failure && !launched_all && pending.size() < limit &&
               all.logs.size() + pending.size() * lane_aim < max_logs;
    };
    const auto launch = [&] {
        const uint64_t span = std::min(range_blocks_ - 1, to_block - next) + 1;
        const uint64_t last = next + span - 1;
        Lane& lane = *lanes_[next_lane];
        lane.source.range_blocks_ = range_blocks_;
        std::packaged_task<chain::RpcResult<LogChunk>()> task(
            [&cover, &lane, next, last] { return cover(lane.source, next, last); });
        pending.push_back({task.get_future(), next_lane});
        lane.thread.post(std::move(task));
        // The lanes in flight are consecutive, so the next one is never busy (fewer in flight
        // than lanes when it is launched).
        next_lane = (next_lane + 1) % lanes_.size();
        launched_all = last >= to_block;
        if (!launched_all) next = last + 1;
    };
    while (want_more()) launch();
    // Every future is waited for, even after a failure: the lanes' jobs borrow this frame.
    while (!pending.empty()) {
        auto result = pending.front().result.get();
        const size_t lane = pending.front().lane;
        pending.pop_front();
        if (failure) continue;
        if (!result) {
            failure = std::move(result.error());
            continue;
        }
        range_blocks_ = lanes_[lane]->source.range_blocks_;
        if (result->rate_limited > 0) limit = std::max<size_t>(1, limit / 2);
        append_chunk(all, std::move(*result));
        any = true;
        while (want_more()) launch();
    }
    if (!any) {
        // Nothing succeeded, so the first range failed: `failure` holds its error.
        if (failure) return std::unexpected(std::move(*failure));
        return chain::rpc_fail(RpcErrorKind::invalid_argument, "no range was fetched");
    }
    return all;
}

void LogSource::adapt_range(uint64_t span, size_t returned_logs, size_t body_bytes) {
    const uint64_t current = range_blocks_;
    // The aim in logs: target_logs, lowered when the logs are big enough that target_logs of them
    // would exceed max_body_bytes.
    uint64_t aim = policy_.target_logs;
    if (policy_.max_body_bytes > 0 && returned_logs > 0 && body_bytes > 0) {
        const double per_log = static_cast<double>(body_bytes) / static_cast<double>(returned_logs);
        aim = std::min<uint64_t>(
            aim, std::max<uint64_t>(1, static_cast<uint64_t>(
                                           static_cast<double>(policy_.max_body_bytes) / per_log)));
    }
    // Far under the aim (a sparse stretch, or the probe) the range grows fast; near it, by x2.
    const uint64_t growth =
        returned_logs * 4 <= aim ? std::max<uint64_t>(policy_.max_growth, 2) : 2;
    const uint64_t grown =
        current > std::numeric_limits<uint64_t>::max() / growth ? current : current * growth;
    uint64_t next = grown;
    if (returned_logs > 0 && aim > 0) {
        // Aim the next range at `aim` logs from the density just seen (over the span fetched,
        // which is shorter than the range near the caller's limit), shrinking by at most half per
        // step so that one odd chunk does not swing the range.
        const double ideal = static_cast<double>(span) * static_cast<double>(aim) /
                             static_cast<double>(returned_logs);
        const double lo = static_cast<double>(std::max<uint64_t>(current / 2, 1));
        next = static_cast<uint64_t>(std::clamp(ideal, lo, static_cast<double>(grown)));
    }
    range_blocks_ = std::clamp(next, policy_.min_blocks, policy_.max_blocks);
}

chain::RpcResult<std::vector<BlockHeader>> LogSource::headers(uint64_t from_block,
                                                              uint64_t to_block) {
    if (from_block > to_block) {
        return chain::rpc_fail(RpcErrorKind::invalid_argument,
                               fmt::format("from_block {} > to_block {}", from_block, to_block));
    }
    std::vector<uint64_t> nums;
    try {
        nums.reserve(to_block - from_block + 1);
        for (uint64_t n = from_block;; ++n) {
            nums.push_back(n);
            if (n == to_block) break;
        }
    } catch (const std::exception& e) {
        return chain::rpc_fail(RpcErrorKind::invalid_argument, e.what());
    }
    return headers_of(nums);
}

chain::RpcResult<std::vector<BlockHeader>> LogSource::headers_of(
    std::span<const uint64_t> block_nums) {
    try {
        std::vector<BlockHeader> out;
        out.reserve(block_nums.size());
        std::vector<chain::RpcCall> calls;
        for (size_t begin = 0; begin < block_nums.size(); begin += kMaxBatch) {
            const auto part =
                block_nums.subspan(begin, std::min(kMaxBatch, block_nums.size() - begin));
            calls.clear();
            for (uint64_t n : part) {
                calls.push_back(
                    {"eth_getBlockByNumber", json::array({chain::to_quantity(n), false})});
            }
            auto results = client_.batch(calls);
            if (!results) return std::unexpected(std::move(results.error()));
            for (size_t i = 0; i < part.size(); ++i) {
                auto& r = (*results)[i];
                if (!r) {
                    r.error().message = fmt::format("block {}: {}", part[i], r.error().message);
                    return std::unexpected(std::move(r.error()));
                }
                auto header = read_header(*r, part[i]);
                if (!header) return std::unexpected(std::move(header.error()));
                out.push_back(*header);
            }
        }
        return out;
    } catch (const std::exception& e) {
        return chain::rpc_fail(RpcErrorKind::bad_response, e.what());
    }
}

}  // namespace credence::index
