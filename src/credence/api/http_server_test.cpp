// The HTTP server under hostile clients (docs/node.md §HTTP server limits): a real HttpServer with
// the real RestApi and McpEndpoint over a real SQLite index, attacked over loopback with raw
// sockets. Attackers connect from 127.0.0.2 and up, so per-IP caps hit them and not the normal
// client on 127.0.0.1. Every loop is bounded (connections, bytes, seconds).
#include <credence/api/http_server.hpp>

#include <gtest/gtest.h>
#include <poll.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <credence/api/mcp_endpoint.hpp>
#include <credence/api/rest_api.hpp>
#include <credence/index/database.hpp>
#include <credence/index/store.hpp>

#include "support/raw_http.hpp"
#include "support/scratch.hpp"

namespace credence::api {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using testing::RawConnection;
using testing::RawResponse;

std::filesystem::path shared_index() {
    static const std::filesystem::path path = [] {
        auto p = testing::scratch_dir() / "http_hostile.sqlite";
        std::filesystem::remove(p);
        auto db = index::open_sqlite(p);
        EXPECT_TRUE(db);
        if (db) {
            EXPECT_TRUE(index::IndexStore::open(**db));
        }
        return p;
    }();
    return path;
}

RawConnection dial(uint16_t port, const std::string& source = "127.0.0.1") {
    auto c = RawConnection::open(port, source);
    if (!c) throw std::runtime_error(c.error());
    return std::move(*c);
}

std::string attacker_ip(size_t n) { return fmt::format("127.0.0.{}", 2 + n % 250); }

bool readable(const RawConnection& c) {
    pollfd p{c.fd(), POLLIN, 0};
    return ::poll(&p, 1, 0) > 0;
}

/// "POST <path>" with a chunked body of `chunks` chunks of `chunk` each; sends until the server
/// answers or stops reading. Returns the bytes of body sent.
size_t send_chunked(RawConnection& c, std::string_view path, const std::string& chunk,
                    size_t chunks) {
    if (!c.send(fmt::format("POST {} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                            "application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
                            path))) {
        return 0;
    }
    const std::string framed = fmt::format("{:x}\r\n{}\r\n", chunk.size(), chunk);
    size_t sent = 0;
    for (size_t i = 0; i < chunks; ++i) {
        if (readable(c) || !c.send(framed)) return sent;
        sent += chunk.size();
    }
    c.send("0\r\n\r\n");
    return sent;
}

/// Waits (at most 2 s) for `value()` to reach `expected`: the server counts a timed-out
/// connection right after closing it, so a client can see the close first.
template <typename Value>
uint64_t eventually(uint64_t expected, Value value) {
    const auto deadline = Clock::now() + 2s;
    while (value() < expected && Clock::now() < deadline) std::this_thread::sleep_for(5ms);
    return value();
}

class http_server_hostile : public ::testing::Test {
protected:
    void SetUp() override {
        RestApiOptions options;
        options.scope.chain_id = 31337;
        const auto path = shared_index();
        options.open_database = [path] { return index::open_sqlite(path); };
        rest_ = std::make_unique<RestApi>(std::move(options));
        mcp_ = std::make_unique<McpEndpoint>(*rest_, McpOptions{"credence", "test"});
    }
    void TearDown() override {
        if (server_) server_->stop();
    }

    static HttpServerOptions defaults() {
        HttpServerOptions o;
        o.port = 0;
        o.threads = 2;
        o.rate_limit_per_second = 0;
        return o;
    }

    void start(HttpServerOptions options) {
        server_ = std::make_unique<HttpServer>(*rest_, *mcp_, std::move(options));
        auto started = server_->start();
        ASSERT_TRUE(started) << started.error();
        port_ = server_->port();
    }

    /// One GET on a fresh connection from 127.0.0.1.
    std::optional<RawResponse> get(const std::string& path,
                                   std::chrono::milliseconds timeout = 5s) {
        auto c = dial(port_);
        if (!c.send(testing::http_get(path))) return std::nullopt;
        return c.read_response(timeout);
    }

    std::unique_ptr<RestApi> rest_;
    std::unique_ptr<McpEndpoint> mcp_;
    std::unique_ptr<HttpServer> server_;
    uint16_t port_ = 0;
};

TEST_F(http_server_hostile, chunked_body_past_the_limit_is_413_while_reading) {
    auto options = defaults();
    options.max_body_bytes = 64 * 1024;
    start(options);
    // 150,000 nested '[' in 4 KiB chunks: the limit stops it after 64 KiB, before any parse.
    auto c = dial(port_, attacker_ip(0));
    const size_t sent = send_chunked(c, "/mcp", std::string(4096, '['), 150'000 / 4096 + 1);
    auto answer = c.read_response(5s);
    if (answer) {
        EXPECT_EQ(answer->status, 413);
        EXPECT_NE(answer->body.find("payload_too_large"), std::string::npos);
    }
    EXPECT_GE(server_->counters().bad_requests, 1u);
    (void)sent;
    auto health = get("/healthz");
    ASSERT_TRUE(health);
    EXPECT_EQ(health->status, 200);
}

TEST_F(http_server_hostile, chunked_body_within_the_limit_is_served) {
    start(defaults());
    auto c = dial(port_);
    const std::string ping = R"({"jsonrpc":"2.0","id":1,"method":"ping"})";
    ASSERT_TRUE(
        c.send("POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
               "Accept: application/json, text/event-stream\r\n"
               "Transfer-Encoding: chunked\r\n\r\n"));
    ASSERT_TRUE(c.send(fmt::format("{:x}\r\n{}\r\n0\r\n\r\n", ping.size(), ping)));
    auto answer = c.read_response(5s);
    ASSERT_TRUE(answer);
    EXPECT_NE(answer->status, 413);
    EXPECT_LT(answer->status, 500);
}

// docs/node.md §HTTP server limits: peak RSS grows by at most 64 MB under 256 MiB of chunked
// bodies sent 16 at a time.
TEST_F(http_server_hostile, chunked_256_mib_flood_keeps_rss_bounded) {
    start(defaults());
    const auto before = testing::memory_use();
    const std::string chunk(64 * 1024, '7');
    std::atomic<size_t> total{0};
    std::atomic<int> answered_413{0};
    std::vector<std::thread> senders;
    for (size_t i = 0; i < 16; ++i) {
        senders.emplace_back([&, i] {
            auto c = RawConnection::open(port_, attacker_ip(i));
            if (!c) return;
            total += send_chunked(*c, "/api/v1/agents", chunk, 256);  // 16 MiB each
            auto answer = c->read_response(3s);
            if (answer && answer->status == 413) ++answered_413;
        });
    }
    for (auto& t : senders) t.join();
    const auto after = testing::memory_use();
    std::printf("peak RSS %lld -> %lld KiB, %zu body bytes sent\n",
                static_cast<long long>(before.hwm_kib), static_cast<long long>(after.hwm_kib),
                total.load());
    EXPECT_LT(after.hwm_kib - before.hwm_kib, 64 * 1024) << "peak RSS grew too much";
    EXPECT_LT(total.load(), size_t{128} << 20) << "the server kept reading past the limit";
    EXPECT_EQ(answered_413.load(), 16);
    auto health = get("/healthz");
    ASSERT_TRUE(health);
    EXPECT_EQ(health->status, 200);
}

TEST_F(http_server_hostile, slowloris_and_idle_keep_alives_do_not_starve_healthz) {
    auto options = defaults();
    options.header_timeout = 1000ms;
    options.max_connections_per_ip = 16;
    start(options);
    // 200 idle keep-alive connections (one request each, then silence) ...
    std::vector<RawConnection> idle;
    for (size_t i = 0; i < 200; ++i) {
        auto c = RawConnection::open(port_, attacker_ip(20 + i / 10));
        if (!c) continue;
        if (c->send(testing::http_get("/healthz")) && c->read_response(5s)) {
            idle.push_back(std::move(*c));
        }
    }
    EXPECT_GE(idle.size(), 150u);
    // ... and 300 slowloris connections from 10 addresses (16 admitted per address), one header
    // byte each per round, while the normal client measures /healthz.
    std::atomic<bool> stop{false};
    std::thread slowloris([&] {
        std::vector<RawConnection> slow;
        for (size_t i = 0; i < 300; ++i) {
            auto c = RawConnection::open(port_, attacker_ip(i % 10));
            if (c) slow.push_back(std::move(*c));
        }
        const std::string request = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: ";
        for (size_t round = 0; round < 30 && !stop; ++round) {
            for (auto& c : slow) c.send_some(request.substr(round % request.size(), 1));
            std::this_thread::sleep_for(100ms);
        }
    });
    std::this_thread::sleep_for(300ms);
    const auto samples = testing::measure_gets(port_, "/healthz", 100, 2000ms, 10ms);
    stop = true;
    slowloris.join();
    const int64_t p99 = testing::quantile(samples, 0.99);
    // The goal (docs/benchmarks.md) is 50 ms on an idle machine; shared CI cores get slack.
    EXPECT_LT(p99, 250'000) << "p99 " << p99 << " us";
    const auto counters = server_->counters();
    EXPECT_GT(counters.connections_rejected_per_ip, 0u);
    EXPECT_GT(counters.header_timeouts, 0u);
}

TEST_F(http_server_hostile, header_deadline_closes_a_slow_sender) {
    auto options = defaults();
    options.header_timeout = 500ms;
    start(options);
    auto c = dial(port_, attacker_ip(1));
    const auto begin = Clock::now();
    bool closed = false;
    ASSERT_TRUE(c.send("GET /healthz HTTP/1.1\r\n"));
    for (int i = 0; i < 30 && !closed; ++i) {  // one byte per 100 ms: at most 3 s
        c.send_some("X");
        closed = c.closed_within(100ms);
    }
    EXPECT_TRUE(closed);
    EXPECT_LT(Clock::now() - begin, 2s);
    EXPECT_EQ(eventually(1, [&] { return server_->counters().header_timeouts; }), 1u);
}

TEST_F(http_server_hostile, idle_connections_are_reaped) {
    auto options = defaults();
    options.idle_timeout = 300ms;
    start(options);
    auto fresh = dial(port_, attacker_ip(1));
    auto kept = dial(port_, attacker_ip(2));
    ASSERT_TRUE(kept.send(testing::http_get("/healthz")));
    auto first = kept.read_response(2s);
    ASSERT_TRUE(first);
    EXPECT_EQ(first->status, 200);
    EXPECT_TRUE(fresh.closed_within(2s));
    EXPECT_TRUE(kept.closed_within(2s));
    EXPECT_EQ(eventually(2, [&] { return server_->counters().idle_reaped; }), 2u);
}

TEST_F(http_server_hostile, per_ip_and_total_connection_caps) {
    auto options = defaults();
    options.max_connections_per_ip = 4;
    options.max_connections = 8;
    start(options);
    std::vector<RawConnection> held;
    for (int i = 0; i < 4; ++i) held.push_back(dial(port_, attacker_ip(1)));
    auto fifth = dial(port_, attacker_ip(1));
    EXPECT_TRUE(fifth.closed_within(2s));
    EXPECT_EQ(server_->counters().connections_rejected_per_ip, 1u);
    // At the total cap with idle connections, the longest-idle one makes room.
    for (int i = 0; i < 4; ++i) held.push_back(dial(port_, attacker_ip(2)));
    auto health = get("/healthz");
    ASSERT_TRUE(health);
    EXPECT_EQ(health->status, 200);
    EXPECT_GE(server_->counters().idle_reaped, 1u);
    // Mid-request connections are not idle: past the total, a newcomer is closed at once.
    held.clear();
    std::this_thread::sleep_for(200ms);
    std::vector<RawConnection> busy;
    for (size_t i = 0; i < 8; ++i) {
        busy.push_back(dial(port_, attacker_ip(3 + i / 4)));
        ASSERT_TRUE(busy.back().send("GET /healthz HTTP/1.1\r\n"));
    }
    std::this_thread::sleep_for(200ms);
    auto refused = dial(port_, attacker_ip(9));
    EXPECT_TRUE(refused.closed_within(2s));
    EXPECT_GE(server_->counters().connections_rejected_total, 1u);
}

TEST_F(http_server_hostile, head_answers_the_content_length_of_get) {
    start(defaults());
    auto c = dial(port_);
    ASSERT_TRUE(c.send(testing::http_get("/openapi.json")));
    auto full = c.read_response(5s);
    ASSERT_TRUE(full);
    ASSERT_EQ(full->status, 200);
    ASSERT_FALSE(full->body.empty());
    // HEAD then GET pipelined: the HEAD answer must carry no body, or the GET's would misparse.
    ASSERT_TRUE(
        c.send("HEAD /openapi.json HTTP/1.1\r\nHost: x\r\n\r\n" + testing::http_get("/healthz")));
    auto head = c.read_response(5s, true);
    ASSERT_TRUE(head);
    EXPECT_EQ(head->status, 200);
    EXPECT_EQ(head->header("content-length"), std::to_string(full->body.size()));
    auto next = c.read_response(5s);
    ASSERT_TRUE(next);
    EXPECT_EQ(next->status, 200);
    EXPECT_NE(next->body.find("\"status\""), std::string::npos);
}

TEST_F(http_server_hostile, post_without_content_length_is_answered_at_once) {
    start(defaults());
    auto c = dial(port_);
    const auto begin = Clock::now();
    ASSERT_TRUE(c.send("POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\r\n"));
    auto answer = c.read_response(5s);
    ASSERT_TRUE(answer);
    EXPECT_LT(answer->status, 500);
    EXPECT_LT(Clock::now() - begin, 1s);
}

TEST_F(http_server_hostile, half_closed_request_is_answered) {
    start(defaults());
    auto c = dial(port_);
    ASSERT_TRUE(c.send(testing::http_get("/healthz")));
    c.shutdown_write();
    auto answer = c.read_response(3s);
    ASSERT_TRUE(answer);
    EXPECT_EQ(answer->status, 200);
}

TEST_F(http_server_hostile, malformed_and_long_requests_do_not_hold_a_worker) {
    auto options = defaults();
    options.threads = 1;
    start(options);
    const auto begin = Clock::now();
    auto garbage = dial(port_, attacker_ip(1));
    ASSERT_TRUE(garbage.send("GARBAGE\r\n\r\n"));
    auto bad = garbage.read_response(2s);
    ASSERT_TRUE(bad);
    EXPECT_EQ(bad->status, 400);
    EXPECT_TRUE(garbage.closed_within(2s));
    auto long_target = dial(port_, attacker_ip(2));
    ASSERT_TRUE(long_target.send(testing::http_get("/api/v1/agents?q=" + std::string(9000, 'a'))));
    auto too_long = long_target.read_response(2s);
    ASSERT_TRUE(too_long);
    EXPECT_EQ(too_long->status, 414);
    auto huge_header = dial(port_, attacker_ip(3));
    ASSERT_TRUE(huge_header.send(
        testing::http_get("/healthz", "X-Big: " + std::string(20000, 'b') + "\r\n")));
    auto too_large = huge_header.read_response(2s);
    ASSERT_TRUE(too_large);
    EXPECT_EQ(too_large->status, 431);
    // Unfinished requests on other connections do not block the one handler thread.
    std::vector<RawConnection> partial;
    for (int i = 0; i < 8; ++i) {
        partial.push_back(dial(port_, attacker_ip(4)));
        partial.back().send("GET /healthz HTTP/1.1\r\nHost");
    }
    auto health = get("/healthz", 1s);
    ASSERT_TRUE(health);
    EXPECT_EQ(health->status, 200);
    EXPECT_LT(Clock::now() - begin, 2s);
}

TEST_F(http_server_hostile, repeated_query_parameters_are_400) {
    start(defaults());
    auto twice = get("/api/v1/agents?limit=1&limit=2");
    ASSERT_TRUE(twice);
    EXPECT_EQ(twice->status, 400);
    EXPECT_NE(twice->body.find("given twice"), std::string::npos);
    // docs/api.md: `client` is repeatable.
    const std::string client = "0x00000000000000000000000000000000000000aa";
    auto clients = get(fmt::format("/api/v1/agents/1/feedback?client={0}&client={0}", client));
    ASSERT_TRUE(clients);
    EXPECT_EQ(clients->body.find("given twice"), std::string::npos);
    auto bad_escape = get("/api/v1/agents?q=%zz");
    ASSERT_TRUE(bad_escape);
    EXPECT_EQ(bad_escape->status, 400);
    // The 400 names the parameter, whose bytes need not be UTF-8 (found by api_http_fuzz: the
    // JSON serializer threw on the I/O thread and the node aborted).
    for (const char* target :
         {"/api/v1/agents?lim\x8b=1&lim\x8b=2", "/api/v1/agents?lim%ED=1&lim%ED=2"}) {
        auto raw = get(target);
        ASSERT_TRUE(raw) << target;
        EXPECT_EQ(raw->status, 400);
        EXPECT_TRUE(nlohmann::json::accept(raw->body)) << raw->body;
    }
    auto alive = get("/healthz");
    ASSERT_TRUE(alive);
    EXPECT_EQ(alive->status, 200);
}

TEST_F(http_server_hostile, encoded_slash_is_not_decoded_before_routing) {
    start(defaults());
    auto plain = get("/api/v1/agents?limit=1");
    ASSERT_TRUE(plain);
    EXPECT_EQ(plain->status, 200);
    auto encoded = get("/api%2Fv1%2Fagents?limit=1");
    ASSERT_TRUE(encoded);
    EXPECT_EQ(encoded->status, 404);
    auto in_segment = get("/api/v1/agents/1%2F..%2F2");
    ASSERT_TRUE(in_segment);
    EXPECT_GE(in_segment->status, 400);
    EXPECT_LT(in_segment->status, 500);
}

TEST_F(http_server_hostile, pipelined_requests_are_answered_in_order) {
    start(defaults());
    auto c = dial(port_);
    ASSERT_TRUE(c.send(testing::http_get("/healthz") + testing::http_get("/api/v1/nothing") +
                       testing::http_get("/healthz")));
    auto a = c.read_response(3s);
    auto b = c.read_response(3s);
    auto d = c.read_response(3s);
    ASSERT_TRUE(a && b && d);
    EXPECT_EQ(a->status, 200);
    EXPECT_EQ(b->status, 404);
    EXPECT_EQ(d->status, 200);
}

TEST_F(http_server_hostile, rate_limited_answers_are_counted) {
    auto options = defaults();
    options.rate_limit_per_second = 1;
    options.rate_limit_burst = 3;
    start(options);
    auto c = dial(port_);
    int limited = 0;
    for (int i = 0; i < 6; ++i) {
        ASSERT_TRUE(c.send(testing::http_get("/healthz")));
        auto r = c.read_response(3s);
        ASSERT_TRUE(r);
        if (r->status == 429) {
            ++limited;
            EXPECT_TRUE(r->header("retry-after"));
        }
    }
    EXPECT_GE(limited, 2);
    EXPECT_EQ(server_->counters().rate_limited, static_cast<uint64_t>(limited));
    EXPECT_NE(
        server_->metrics().find(fmt::format("credence_http_server_rate_limited_total {}", limited)),
        std::string::npos);
}

}  // namespace
}  // namespace credence::api
