// Fetching registration files in parallel (docs/benchmarks.md: "at least 50 registration files in
// parallel without blocking the indexer"): fetch_all of N ~4 KiB documents over HTTPS from a
// local server (tests/support/https_server.hpp, 4 host names, TLS 1.3 with the test CA) with the
// registration policy. One fetch_all runs one curl multi loop on the calling thread, so the
// indexer's thread is never involved. Reports documents/s (items_per_second); real time.
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include <credence/verify/net/fetch.hpp>

#include "support/https_server.hpp"

namespace {

std::string document(size_t i) {
    // A registration-file-shaped JSON body of about 4 KiB.
    std::string body =
        R"({"type":"https://eips.ethereum.org/EIPS/eip-8004#registration-v1","name":"agent )" +
        std::to_string(i) + R"(","description":")";
    while (body.size() < 4000) body += "An agent that answers questions about the chain. ";
    body += R"(","services":[],"active":true})";
    return body;
}

void BM_fetch_all_registration_files(benchmark::State& state) {
    const auto n = static_cast<size_t>(state.range(0));
    const std::vector<std::string> hosts = {"a.test", "b.test", "c.test", "d.test"};
    credence::testing::HttpsServer server(hosts);
    std::vector<std::string> urls;
    for (size_t i = 0; i < n; ++i) {
        const std::string& host = hosts[i % hosts.size()];
        const std::string path = "/agents/" + std::to_string(i) + ".json";
        server.serve(host, path, document(i));
        urls.push_back("https://" + host + path);
    }
    credence::verify::FetcherConfig config;
    config.ca_file = server.ca_file();
    config.connect_to = server.connect_to();
    config.allow_hosts = {"127.0.0.1"};
    const auto fetcher = credence::verify::make_curl_fetcher(config);
    const auto policy = credence::verify::registration_policy();
    size_t bytes = 0;
    for (auto _ : state) {
        const auto results = fetcher->fetch_all(urls, policy);
        for (const auto& r : results) {
            if (!r) {
                state.SkipWithError(
                    std::string(credence::verify::to_string(r.error().code)).c_str());
                return;
            }
            bytes += r->body.size();
        }
    }
    state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(n));
    state.SetBytesProcessed(static_cast<int64_t>(bytes));
}

}  // namespace

BENCHMARK(BM_fetch_all_registration_files)
    ->Arg(50)
    ->Arg(200)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
