// synthetic_rpc_server: generates a SyntheticChain and serves it as JSON-RPC on 127.0.0.1, for
// the indexer benchmark (bench/index/run.sh, docs/benchmarks.md).
//
//   synthetic_rpc_server [--port P] [--events N] [--seed S] [--info FILE] [P]
//
// Port 0 (the default) picks a free port. Once listening it prints, one per line, shell
// assignments the benchmark script sources: url, chain_id, head, events, the registry addresses
// and the `credence index --registry ...` arguments; with --info FILE the same lines are written
// to FILE (atomically, so a reader never sees half of it). SIGINT/SIGTERM stop it cleanly.
#include <httplib.h>
#include <malloc.h>
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>
#include <thread>

#include "synthetic_chain.hpp"
#include "synthetic_rpc.hpp"

namespace {

using credence::bench::ChainParams;
using credence::bench::kEventKindCount;
using credence::bench::kRegistryCount;
using credence::bench::Registry;
using credence::bench::SyntheticChain;
using credence::bench::SyntheticRpc;

[[noreturn]] void usage(const char* why) {
    std::fprintf(stderr,
                 "synthetic_rpc_server: %s\nusage: synthetic_rpc_server [--port P] [--events N] "
                 "[--seed S] [--info FILE] [P]\n",
                 why);
    std::exit(2);
}

uint64_t parse_u64(std::string_view s) {
    uint64_t v = 0;
    if (s.empty()) usage("empty number");
    for (const char c : s) {
        if (c < '0' || c > '9') usage("not a number");
        v = v * 10 + static_cast<uint64_t>(c - '0');
    }
    return v;
}

}  // namespace

int main(int argc, char** argv) {
    ChainParams params;
    uint64_t port = 0;
    std::string info_path;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        const auto value = [&]() -> std::string_view {
            if (i + 1 >= argc) usage("missing value");
            return argv[++i];
        };
        if (arg == "--port")
            port = parse_u64(value());
        else if (arg == "--events")
            params.events = parse_u64(value());
        else if (arg == "--seed")
            params.seed = parse_u64(value());
        else if (arg == "--info")
            info_path = value();
        else if (!arg.empty() && arg[0] != '-')
            port = parse_u64(arg);
        else
            usage("unknown option");
    }
    if (port > 65535) usage("port out of range");

    const auto t0 = std::chrono::steady_clock::now();
    const SyntheticChain chain = SyntheticChain::generate(params);
    const double gen_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const uint64_t blocks = chain.head() + 1;
    std::fprintf(stderr, "generated %llu events in %llu blocks in %.2f s\n",
                 static_cast<unsigned long long>(chain.logs().size()),
                 static_cast<unsigned long long>(blocks), gen_seconds);
    for (size_t k = 0; k < kEventKindCount; ++k) {
        std::fprintf(stderr, "  %-24s %llu\n",
                     std::string(to_string(static_cast<credence::bench::EventKind>(k))).c_str(),
                     static_cast<unsigned long long>(chain.counts()[k]));
    }

    // Block the stop signals before any thread exists, so that only the waiter below sees them.
    // (During the generation above they still kill the process at once.)
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

    // Answers reach tens of MiB: keep them on the heap and the heap's pages mapped, instead of a
    // fresh mmap (and its page faults) per answer.
    mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
    mallopt(M_TRIM_THRESHOLD, 1024 * 1024 * 1024);

    const SyntheticRpc rpc(chain);
    httplib::Server server;
    server.set_keep_alive_max_count(1'000'000);
    server.set_keep_alive_timeout(60);
    server.set_tcp_nodelay(true);
    server.Post("/", [&rpc](const httplib::Request& req, httplib::Response& res) {
        // The body is moved in, not copied; and "application/json" exactly would let httplib
        // gzip or brotli-compress tens of MiB per answer, which would measure the compressor.
        res.body = rpc.handle(req.body);
        res.status = 200;
        res.set_header("Content-Type", "application/json; charset=utf-8");
    });

    const int bound = port == 0 ? server.bind_to_any_port("127.0.0.1")
                                : (server.bind_to_port("127.0.0.1", static_cast<int>(port))
                                       ? static_cast<int>(port)
                                       : -1);
    if (bound <= 0) {
        std::fprintf(stderr, "synthetic_rpc_server: cannot bind 127.0.0.1:%llu\n",
                     static_cast<unsigned long long>(port));
        return 1;
    }

    std::string info;
    info += "url=http://127.0.0.1:" + std::to_string(bound) + "\n";
    info += "chain_id=" + std::to_string(chain.params().chain_id) + "\n";
    info += "head=" + std::to_string(chain.head()) + "\n";
    info += "events=" + std::to_string(chain.logs().size()) + "\n";
    info += "generate_seconds=" + std::to_string(gen_seconds) + "\n";
    std::string registry_args;
    for (size_t i = 0; i < kRegistryCount; ++i) {
        const auto r = static_cast<Registry>(i);
        const std::string address = credence::bench::registry_address(r).to_checksum_hex();
        info += std::string(registry_kind(r)) + "=" + address + "\n";
        if (!registry_args.empty()) registry_args += ' ';
        registry_args += "--registry " + std::string(registry_kind(r)) + "=" + address;
    }
    info += "registry_args='" + registry_args + "'\n";
    std::fputs(info.c_str(), stdout);
    std::fflush(stdout);
    if (!info_path.empty()) {
        const std::string tmp = info_path + ".tmp";
        std::ofstream(tmp) << info;
        if (std::rename(tmp.c_str(), info_path.c_str()) != 0) {
            std::fprintf(stderr, "synthetic_rpc_server: cannot write %s\n", info_path.c_str());
            return 1;
        }
    }

    std::atomic<bool> listen_returned{false};
    std::thread stopper([&server, &stop_signals, &listen_returned] {
        int sig = 0;
        sigwait(&stop_signals, &sig);
        // stop() is a no-op until the accept loop runs: a signal that came early waits for it.
        while (!server.is_running() && !listen_returned)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        server.stop();
    });
    const bool ok = server.listen_after_bind();
    listen_returned = true;
    // listen_after_bind returns after stop(), or on a fatal socket error with the waiter still
    // in sigwait: leave that one to the process exit.
    if (!ok) {
        std::fprintf(stderr, "synthetic_rpc_server: the accept loop failed\n");
        stopper.detach();
        return 1;
    }
    stopper.join();
    return 0;
}
