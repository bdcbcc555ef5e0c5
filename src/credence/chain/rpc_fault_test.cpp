// The JSON-RPC client against real HTTP servers on 127.0.0.1 that misbehave on purpose: retries
// (only on transport errors, 429 and 5xx), timeouts, size caps, malformed bodies and batch
// responses out of order.
#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <credence/chain/rpc_client.hpp>

#include "support/anvil.hpp"

namespace credence::chain {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

// An httplib server on 127.0.0.1 and a kernel-chosen port, run on its own thread.
class FaultServer {
public:
    explicit FaultServer(httplib::Server::Handler handler) {
        server_.Post("/", std::move(handler));
        port_ = server_.bind_to_any_port("127.0.0.1");
        thread_ = std::thread([this] { server_.listen_after_bind(); });
        while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ~FaultServer() {
        server_.stop();
        thread_.join();
    }
    FaultServer(const FaultServer&) = delete;
    FaultServer& operator=(const FaultServer&) = delete;

    [[nodiscard]] std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

private:
    httplib::Server server_;
    int port_ = 0;
    std::thread thread_;
};

// A success response echoing the request's id.
std::string ok_for(const std::string& request_body, const json& result) {
    const json req = json::parse(request_body);
    return json{{"jsonrpc", "2.0"}, {"id", req["id"]}, {"result", result}}.dump();
}

RetryPolicy fast_retry(int attempts) {
    RetryPolicy p;
    p.max_attempts = attempts;
    p.base_delay = milliseconds(1);
    p.max_delay = milliseconds(5);
    p.max_retry_after = milliseconds(20);
    return p;
}

RpcClient client_for(const FaultServer& server, int attempts = 4, HttpOptions http = {}) {
    return RpcClient::make_http(server.url(), http, fast_retry(attempts));
}

TEST(chain_rpc_fault, status_429_then_success_is_retried) {
    std::atomic<int> hits{0};
    FaultServer server([&](const httplib::Request& req, httplib::Response& res) {
        if (hits++ == 0) {
            res.status = 429;
            res.set_header("Retry-After", "100");  // capped to max_retry_after (20 ms)
            res.set_content("slow down", "text/plain");
            return;
        }
        res.set_content(ok_for(req.body, "0x7a69"), "application/json");
    });
    auto client = client_for(server);
    const auto start = Clock::now();
    auto id = client.chain_id();
    ASSERT_TRUE(id) << id.error().to_string();
    EXPECT_EQ(*id, 31337u);
    EXPECT_EQ(hits.load(), 2);
    // Retry-After was honoured but capped: 100 s requested, at most 20 ms waited.
    EXPECT_LT(Clock::now() - start, std::chrono::seconds(5));
}

TEST(chain_rpc_fault, status_503_then_success_is_retried) {
    std::atomic<int> hits{0};
    FaultServer server([&](const httplib::Request& req, httplib::Response& res) {
        if (hits++ < 2) {
            res.status = 503;
            return;
        }
        res.set_content(ok_for(req.body, "0x10"), "application/json");
    });
    auto client = client_for(server);
    auto n = client.block_number();
    ASSERT_TRUE(n) << n.error().to_string();
    EXPECT_EQ(*n, 16u);
    EXPECT_EQ(hits.load(), 3);
}

TEST(chain_rpc_fault, retry_after_is_waited) {
    std::atomic<int> hits{0};
    FaultServer server([&](const httplib::Request& req, httplib::Response& res) {
        if (hits++ == 0) {
            res.status = 503;
            res.set_header("Retry-After", "1");
            return;
        }
        res.set_content(ok_for(req.body, "0x1"), "application/json");
    });
    RetryPolicy policy = fast_retry(2);
    policy.max_retry_after = milliseconds(5'000);
    auto client = RpcClient::make_http(server.url(), {}, policy);
    const auto start = Clock::now();
    ASSERT_TRUE(client.block_number());
    EXPECT_GE(Clock::now() - start, milliseconds(950));
}

TEST(chain_rpc_fault, status_500_forever_gives_up_after_max_attempts) {
    std::atomic<int> hits{0};
    FaultServer server([&](const httplib::Request&, httplib::Response& res) {
        ++hits;
        res.status = 500;
        res.set_content("internal", "text/plain");
    });
    auto client = client_for(server, 3);
    auto n = client.block_number();
    ASSERT_FALSE(n);
    EXPECT_EQ(n.error().kind, RpcErrorKind::http_status);
    EXPECT_EQ(n.error().http_status, 500);
    EXPECT_EQ(n.error().attempts, 3);
    EXPECT_EQ(hits.load(), 3);
    EXPECT_EQ(n.error().to_string(), "http_status 500: internal after 3 attempts");
}

TEST(chain_rpc_fault, status_400_is_not_retried) {
    std::atomic<int> hits{0};
    FaultServer server([&](const httplib::Request&, httplib::Response& res) {
        ++hits;
        res.status = 400;
    });
    auto client = client_for(server);
    auto n = client.block_number();
    ASSERT_FALSE(n);
    EXPECT_EQ(n.error().kind, RpcErrorKind::http_status);
    EXPECT_EQ(n.error().http_status, 400);
    EXPECT_EQ(hits.load(), 1);
}

TEST(chain_rpc_fault, garbage_body_is_bad_json) {
    FaultServer server([](const httplib::Request&, httplib::Response& res) {
        res.set_content("<html>gateway</html>", "text/html");
    });
    auto client = client_for(server);
    auto n = client.block_number();
    ASSERT_FALSE(n);
    EXPECT_EQ(n.error().kind, RpcErrorKind::bad_json);
}

TEST(chain_rpc_fault, truncated_json_is_bad_json) {
    FaultServer server([](const httplib::Request&, httplib::Response& res) {
        res.set_content(R"({"jsonrpc":"2.0","id":1,"result":"0x)", "application/json");
    });
    auto client = client_for(server);
    auto n = client.block_number();
    ASSERT_FALSE(n);
    EXPECT_EQ(n.error().kind, RpcErrorKind::bad_json);
}

TEST(chain_rpc_fault, wrong_id_is_bad_response) {
    FaultServer server([](const httplib::Request&, httplib::Response& res) {
        res.set_content(R"({"jsonrpc":"2.0","id":999,"result":"0x1"})", "application/json");
    });
    auto client = client_for(server);
    auto n = client.block_number();
    ASSERT_FALSE(n);
    EXPECT_EQ(n.error().kind, RpcErrorKind::bad_response);
}

TEST(chain_rpc_fault, non_canonical_quantity_is_bad_response) {
    FaultServer server([](const httplib::Request& req, httplib::Response& res) {
        res.set_content(ok_for(req.body, "0x010"), "application/json");
    });
    auto client = client_for(server);
    auto n = client.block_number();
    ASSERT_FALSE(n);
    EXPECT_EQ(n.error().kind, RpcErrorKind::bad_response);
}

TEST(chain_rpc_fault, rpc_error_object_is_not_retried_and_keeps_revert_data) {
    std::atomic<int> hits{0};
    FaultServer server([&](const httplib::Request& req, httplib::Response& res) {
        ++hits;
        const json r = json::parse(req.body);
        res.set_content(json{{"jsonrpc", "2.0"},
                             {"id", r["id"]},
                             {"error",
                              {{"code", 3},
                               {"message", "execution reverted: nope"},
                               {"data", "0x08c379a0dead"}}}}
                            .dump(),
                        "application/json");
    });
    auto client = client_for(server);
    auto out = client.call(CallRequest{});
    ASSERT_FALSE(out);
    EXPECT_EQ(out.error().kind, RpcErrorKind::rpc_error);
    EXPECT_EQ(out.error().code, 3);
    EXPECT_EQ(out.error().message, "execution reverted: nope");
    EXPECT_EQ(out.error().data, (core::Bytes{0x08, 0xc3, 0x79, 0xa0, 0xde, 0xad}));
    EXPECT_EQ(hits.load(), 1);
    EXPECT_EQ(out.error().to_string(),
              "rpc_error 3: execution reverted: nope (data 0x08c379a0dead)");
}

TEST(chain_rpc_fault, slow_server_times_out_quickly) {
    std::atomic<bool> release{false};
    FaultServer server([&](const httplib::Request& req, httplib::Response& res) {
        // Sleeps until the test is over (bounded), far past the client's total timeout.
        for (int i = 0; i < 500 && !release.load(); ++i) {
            std::this_thread::sleep_for(milliseconds(10));
        }
        res.set_content(ok_for(req.body, "0x1"), "application/json");
    });
    HttpOptions http;
    http.total_timeout = milliseconds(200);
    auto client = client_for(server, 2, http);
    const auto start = Clock::now();
    auto n = client.block_number();
    const auto elapsed = Clock::now() - start;
    release = true;
    ASSERT_FALSE(n);
    EXPECT_EQ(n.error().kind, RpcErrorKind::timeout);
    EXPECT_EQ(n.error().attempts, 2);  // timeouts are retried
    EXPECT_GE(elapsed, milliseconds(390));
    EXPECT_LT(elapsed, milliseconds(2'000));
}

TEST(chain_rpc_fault, oversize_body_is_too_large) {
    FaultServer server([](const httplib::Request& req, httplib::Response& res) {
        res.set_content(ok_for(req.body, std::string(2u << 20, 'a')), "application/json");
    });
    HttpOptions http;
    http.max_response_bytes = size_t{1} << 20;
    auto client = client_for(server, 4, http);
    auto n = client.request("eth_whatever");
    ASSERT_FALSE(n);
    EXPECT_EQ(n.error().kind, RpcErrorKind::too_large);
    EXPECT_EQ(n.error().attempts, 1);
}

TEST(chain_rpc_fault, connection_refused_is_transport_and_retried) {
    // A port with nothing listening: bound to learn it, then released.
    const uint16_t port = credence::testing::pick_free_port();
    ASSERT_NE(port, 0);
    HttpOptions http;
    http.total_timeout = milliseconds(2'000);
    auto client =
        RpcClient::make_http("http://127.0.0.1:" + std::to_string(port), http, fast_retry(3));
    auto n = client.block_number();
    ASSERT_FALSE(n);
    EXPECT_EQ(n.error().kind, RpcErrorKind::transport);
    EXPECT_EQ(n.error().attempts, 3);
}

TEST(chain_rpc_fault, requests_reuse_one_connection) {
    std::atomic<int> first_port{-1};
    std::atomic<int> same{0};
    FaultServer server([&](const httplib::Request& req, httplib::Response& res) {
        int expected = -1;
        if (!first_port.compare_exchange_strong(expected, req.remote_port) &&
            expected == req.remote_port) {
            ++same;
        }
        res.set_content(ok_for(req.body, "0x1"), "application/json");
    });
    auto client = client_for(server);
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(client.block_number());
    EXPECT_EQ(same.load(), 2);  // HTTP keep-alive: same client port for all three
}

// A server that answers batches with the elements reordered and optionally one dropped or a
// foreign id added.
std::string batch_reply(const std::string& body, bool drop_second, bool add_unknown) {
    const json reqs = json::parse(body);
    json out = json::array();
    for (auto it = reqs.rbegin(); it != reqs.rend(); ++it) {
        const auto id = (*it)["id"].get<uint64_t>();
        if (drop_second && id == reqs[1]["id"].get<uint64_t>()) continue;
        if ((*it)["method"] == "bad_method") {
            out.push_back({{"jsonrpc", "2.0"},
                           {"id", id},
                           {"error", {{"code", -32601}, {"message", "method not found"}}}});
        } else {
            out.push_back({{"jsonrpc", "2.0"}, {"id", id}, {"result", (*it)["params"][0]}});
        }
    }
    if (add_unknown) out.push_back({{"jsonrpc", "2.0"}, {"id", 123456}, {"result", "x"}});
    return out.dump();
}

std::vector<RpcCall> echo_calls(int n) {
    std::vector<RpcCall> calls;
    calls.reserve(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) calls.push_back({"echo", json::array({i})});
    return calls;
}

TEST(chain_rpc_fault, batch_out_of_order_is_matched_by_id) {
    FaultServer server([](const httplib::Request& req, httplib::Response& res) {
        res.set_content(batch_reply(req.body, false, false), "application/json");
    });
    auto client = client_for(server);
    auto calls = echo_calls(5);
    calls[3].method = "bad_method";
    auto out = client.batch(calls);
    ASSERT_TRUE(out) << out.error().to_string();
    ASSERT_EQ(out->size(), 5u);
    for (int i = 0; i < 5; ++i) {
        const auto& r = (*out)[static_cast<size_t>(i)];
        if (i == 3) {
            ASSERT_FALSE(r);
            EXPECT_EQ(r.error().kind, RpcErrorKind::rpc_error);
            EXPECT_EQ(r.error().code, -32601);
        } else {
            ASSERT_TRUE(r) << r.error().to_string();
            EXPECT_EQ(*r, json(i));
        }
    }
}

TEST(chain_rpc_fault, batch_missing_id_fails_only_that_call) {
    FaultServer server([](const httplib::Request& req, httplib::Response& res) {
        res.set_content(batch_reply(req.body, true, false), "application/json");
    });
    auto client = client_for(server);
    auto out = client.batch(echo_calls(3));
    ASSERT_TRUE(out) << out.error().to_string();
    ASSERT_EQ(out->size(), 3u);
    EXPECT_EQ((*out)[0], json(0));
    ASSERT_FALSE((*out)[1]);
    EXPECT_EQ((*out)[1].error().kind, RpcErrorKind::bad_response);
    EXPECT_EQ((*out)[2], json(2));
}

TEST(chain_rpc_fault, batch_unknown_id_is_bad_response) {
    FaultServer server([](const httplib::Request& req, httplib::Response& res) {
        res.set_content(batch_reply(req.body, false, true), "application/json");
    });
    auto client = client_for(server);
    auto out = client.batch(echo_calls(3));
    ASSERT_FALSE(out);
    EXPECT_EQ(out.error().kind, RpcErrorKind::bad_response);
}

}  // namespace
}  // namespace credence::chain
