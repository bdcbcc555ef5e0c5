// The node's own eth_getLogs ceiling, with no database (docs/benchmarks.md §Sync speed): sweeps
// [from, to] of one contract's logs in fixed windows, `in_flight` requests at a time (one thread
// and one connection each), and parses every body with the indexer's parser (index/log_json), so
// the figure is what any indexer could reach from this node on this machine. Prints one JSON line:
// {"window":W,"in_flight":K,"logs":N,"requests":R,"bytes":B,"seconds":S,"logs_per_s":X}.
//
//   getlogs_ceiling RPC_URL ADDRESS FROM TO [WINDOW (25)] [IN_FLIGHT (4)]
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <credence/chain/rpc_client.hpp>
#include <credence/chain/rpc_codec.hpp>
#include <credence/core/address.hpp>
#include <credence/index/log_json.hpp>

namespace {

namespace chain = credence::chain;
namespace core = credence::core;
namespace index = credence::index;

uint64_t number(const char* text, const char* what) {
    char* end = nullptr;
    const unsigned long long n = std::strtoull(text, &end, 10);
    if (end == text || *end != '\0') {
        fmt::print(stderr, "getlogs_ceiling: {} is not a number: {}\n", what, text);
        std::exit(2);
    }
    return n;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 5 || argc > 7) {
        fmt::print(
            stderr,
            "usage: getlogs_ceiling RPC_URL ADDRESS FROM TO [WINDOW (25)] [IN_FLIGHT (4)]\n");
        return 2;
    }
    const std::string url = argv[1];
    const auto address = core::Address::from_hex(argv[2], core::ChecksumMode::ignore);
    if (!address) {
        fmt::print(stderr, "getlogs_ceiling: bad address {}\n", argv[2]);
        return 2;
    }
    const uint64_t from = number(argv[3], "FROM");
    const uint64_t to = number(argv[4], "TO");
    const uint64_t window = argc > 5 ? number(argv[5], "WINDOW") : 25;
    const uint64_t in_flight = argc > 6 ? number(argv[6], "IN_FLIGHT") : 4;
    if (from > to || window == 0 || in_flight == 0 || in_flight > 64) {
        fmt::print(stderr, "getlogs_ceiling: need FROM <= TO, WINDOW >= 1, 1 <= IN_FLIGHT <= 64\n");
        return 2;
    }

    std::atomic<uint64_t> next{from};
    std::atomic<uint64_t> logs{0};
    std::atomic<uint64_t> requests{0};
    std::atomic<uint64_t> bytes{0};
    std::atomic<bool> failed{false};
    const auto started = std::chrono::steady_clock::now();
    std::vector<std::thread> threads;
    for (uint64_t t = 0; t < in_flight; ++t) {
        threads.emplace_back([&] {
            chain::HttpOptions http;
            http.total_timeout = std::chrono::milliseconds(120'000);
            http.max_response_bytes = size_t{1} << 30;
            auto client = chain::RpcClient::make_http(url, http);
            index::LogJsonParser parser;
            while (!failed) {
                const uint64_t first = next.fetch_add(window);
                if (first > to) return;
                chain::LogFilter filter;
                filter.from_block = first;
                filter.to_block = std::min(to, first + window - 1);
                filter.addresses = {*address};
                auto raw = client.request_body("eth_getLogs",
                                               nlohmann::json::array({chain::to_json(filter)}));
                if (!raw) {
                    fmt::print(stderr, "getlogs_ceiling: {}\n", raw.error().to_string());
                    failed = true;
                    return;
                }
                const size_t size = raw->body.size();
                auto parsed = parser.parse_in_place(raw->body, raw->id);
                if (!parsed) {
                    fmt::print(stderr, "getlogs_ceiling: {}\n", parsed.error().to_string());
                    failed = true;
                    return;
                }
                logs += parsed->size();
                bytes += size;
                ++requests;
            }
        });
    }
    for (auto& t : threads) t.join();
    if (failed) return 1;
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    fmt::print(
        "{{\"window\":{},\"in_flight\":{},\"logs\":{},\"requests\":{},\"bytes\":{},"
        "\"seconds\":{:.3f},\"logs_per_s\":{:.0f}}}\n",
        window, in_flight, logs.load(), requests.load(), bytes.load(), seconds,
        static_cast<double>(logs.load()) / seconds);
    return 0;
}
