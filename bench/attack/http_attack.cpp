// A hostile-client driver (docs/benchmarks.md "HTTP server under slow and idle clients"): holds
// slowloris connections (one header byte per connection per tick, never finishing) and idle
// keep-alive connections (one request, then silence) against a server on 127.0.0.1, reconnecting
// whatever the server closes, while a normal client on 127.0.0.1 measures the latency of the
// probe paths, each request on a fresh connection (so accepting is measured too). Attackers use
// source addresses 127.0.0.2 and up.
//
//   http_attack port=<n> [slowloris=1000] [idle=1000] [sources=1] [seconds=20] [tick_ms=1000]
//               [probe=/healthz] [probe=/api/v1/agents/1 ...] [idle_path=/healthz]
//
// Prints one line per probe path: requests, failures, p50 / p90 / p99 / max in ms; and the
// attack's totals (connections opened, closed by the server).
#include <poll.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "support/raw_http.hpp"

namespace {

using credence::testing::RawConnection;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

struct Options {
    uint16_t port = 0;
    size_t slowloris = 1000;
    size_t idle = 1000;
    size_t sources = 1;
    int seconds = 20;
    int tick_ms = 1000;
    std::vector<std::string> probes;
    std::string idle_path = "/healthz";
};

std::optional<Options> parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const size_t eq = arg.find('=');
        if (eq == std::string::npos) return std::nullopt;
        const std::string key = arg.substr(0, eq);
        const std::string value = arg.substr(eq + 1);
        if (key == "port") {
            o.port = static_cast<uint16_t>(std::stoul(value));
        } else if (key == "slowloris") {
            o.slowloris = std::stoul(value);
        } else if (key == "idle") {
            o.idle = std::stoul(value);
        } else if (key == "sources") {
            o.sources = std::max<size_t>(1, std::stoul(value));
        } else if (key == "seconds") {
            o.seconds = std::stoi(value);
        } else if (key == "tick_ms") {
            o.tick_ms = std::stoi(value);
        } else if (key == "probe") {
            o.probes.push_back(value);
        } else if (key == "idle_path") {
            o.idle_path = value;
        } else {
            return std::nullopt;
        }
    }
    if (o.port == 0) return std::nullopt;
    if (o.probes.empty()) o.probes.emplace_back("/healthz");
    return o;
}

struct Attacker {
    std::optional<RawConnection> connection;
    std::string source;
    bool slow = false;
    size_t sent = 0;
};

/// Opens (or reopens) one attacker connection; an idle one makes its one request first.
void open(Attacker& a, const Options& o, std::atomic<uint64_t>& opened) {
    a.connection.reset();
    a.sent = 0;
    auto c = RawConnection::open(o.port, a.source);
    if (!c) return;
    ++opened;
    if (!a.slow) {
        if (!c->send(credence::testing::http_get(o.idle_path))) return;
        if (!c->read_response(2s)) return;
    }
    a.connection.emplace(std::move(*c));
}

}  // namespace

int main(int argc, char** argv) {
    const auto options = parse(argc, argv);
    if (!options) {
        std::fprintf(stderr,
                     "usage: http_attack port=<n> [slowloris=1000] [idle=1000] [sources=1] "
                     "[seconds=20] [tick_ms=1000] [probe=<path> ...] [idle_path=<path>]\n");
        return 2;
    }
    const Options& o = *options;
    std::vector<Attacker> attackers(o.slowloris + o.idle);
    for (size_t i = 0; i < attackers.size(); ++i) {
        attackers[i].source = fmt::format("127.0.0.{}", 2 + i % o.sources);
        attackers[i].slow = i < o.slowloris;
    }
    std::atomic<uint64_t> opened{0};
    std::atomic<uint64_t> closed_by_server{0};
    std::atomic<bool> stop{false};
    const std::string slow_header = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ";
    std::thread attack([&] {
        while (!stop) {
            const auto tick = Clock::now();
            // Reap what the server closed, then reopen it; slow ones send one more byte.
            std::vector<pollfd> fds;
            for (auto& a : attackers) {
                fds.push_back({a.connection ? a.connection->fd() : -1, POLLIN, 0});
            }
            ::poll(fds.data(), fds.size(), 0);
            for (size_t i = 0; i < attackers.size() && !stop; ++i) {
                Attacker& a = attackers[i];
                if (a.connection && (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
                    ++closed_by_server;
                    a.connection.reset();
                }
                if (!a.connection) open(a, o, opened);
                if (a.connection && a.slow) {
                    const char byte = a.sent < slow_header.size() ? slow_header[a.sent] : 'a';
                    a.connection->send_some(std::string_view(&byte, 1));
                    ++a.sent;
                }
            }
            std::this_thread::sleep_until(tick + std::chrono::milliseconds(o.tick_ms));
        }
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(o.tick_ms) * 2);  // the attack is up
    std::map<std::string, std::vector<int64_t>> samples;
    const auto end = Clock::now() + std::chrono::seconds(o.seconds);
    size_t failures = 0;
    while (Clock::now() < end) {
        for (const auto& path : o.probes) {
            auto one = credence::testing::measure_gets(o.port, path, 1, 2000ms, 0ms);
            if (one.front() >= 2'000'000) ++failures;
            samples[path].push_back(one.front());
        }
        std::this_thread::sleep_for(10ms);
    }
    stop = true;
    attack.join();
    size_t held = 0;
    for (const auto& a : attackers) held += a.connection ? size_t{1} : size_t{0};
    for (const auto& [path, values] : samples) {
        const auto ms = [&values](double q) {
            return static_cast<double>(credence::testing::quantile(values, q)) / 1000.0;
        };
        std::printf(
            "probe %-24s requests %6zu  p50 %7.2f ms  p90 %7.2f ms  p99 %7.2f ms  max %8.2f "
            "ms\n",
            path.c_str(), values.size(), ms(0.5), ms(0.9), ms(0.99), ms(1.0));
    }
    std::printf("probe failures (no 200 within 2 s): %zu\n", failures);
    std::printf(
        "attack: %zu slowloris + %zu idle from %zu source(s); connections opened %llu, "
        "closed by the server %llu, held at the end %zu\n",
        o.slowloris, o.idle, o.sources, static_cast<unsigned long long>(opened.load()),
        static_cast<unsigned long long>(closed_by_server.load()), held);
    return 0;
}
