// McpEndpoint's bounds (docs/api.md §MCP; api/mcp_endpoint.hpp): deep bodies, batch size and
// per-call rate-limit charges, response size, session expiry and the per-client session cap, and
// headers that never cause a 5xx. Driven in-process against a RestApi over a real, empty SQLite
// index, as a server would call it (remote_ip, charge).
#include <credence/api/mcp_endpoint.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <credence/index/store.hpp>
#include <support/scratch.hpp>

namespace credence::api {
namespace {

using Json = nlohmann::json;

class mcp_limits : public ::testing::Test {
protected:
    void SetUp() override {
        static std::atomic<int> counter{0};
        const auto path =
            testing::scratch_dir() / ("mcp_limits_" + std::to_string(counter++) + ".sqlite");
        {
            auto db = index::open_sqlite(path);
            ASSERT_TRUE(db.has_value()) << db.error().to_string();
            auto store = index::IndexStore::open(**db);  // migrations
            ASSERT_TRUE(store.has_value()) << store.error().to_string();
        }
        RestApiOptions options;
        options.scope.chain_id = 31337;
        options.open_database = [path]() { return index::open_sqlite(path); };
        rest_ = std::make_unique<RestApi>(std::move(options));
        make({});
    }

    void make(McpOptions options) {
        options.server_name = "credence";
        mcp_ = std::make_unique<McpEndpoint>(*rest_, std::move(options));
    }

    HttpResponse post(const std::string& body, const std::string& session = "",
                      const std::string& ip = "127.0.0.1", const std::string& version = "",
                      std::function<bool(double)> charge = {}) {
        HttpRequest r;
        r.method = "POST";
        r.path = "/mcp";
        r.body = body;
        r.remote_ip = ip;
        r.charge = std::move(charge);
        r.headers.emplace_back("content-type", "application/json");
        if (!session.empty()) r.headers.emplace_back("mcp-session-id", session);
        if (!version.empty()) r.headers.emplace_back("mcp-protocol-version", version);
        return mcp_->handle(r);
    }

    std::string open_session(const std::string& ip = "127.0.0.1",
                             const std::string& version = "2025-06-18") {
        const HttpResponse init =
            post(Json{{"jsonrpc", "2.0"},
                      {"id", 1},
                      {"method", "initialize"},
                      {"params", {{"protocolVersion", version}, {"capabilities", Json::object()}}}}
                     .dump(),
                 "", ip);
        EXPECT_EQ(init.status, 200) << init.body;
        for (const auto& [k, v] : init.headers) {
            if (k == "Mcp-Session-Id") return v;
        }
        ADD_FAILURE() << "no session id";
        return {};
    }

    int ping(const std::string& session, const std::string& ip = "127.0.0.1") {
        return post(R"({"jsonrpc":"2.0","id":2,"method":"ping"})", session, ip).status;
    }

    static std::string batch_of(size_t n, const std::string& method) {
        std::string body = "[";
        for (size_t i = 0; i < n; ++i) {
            if (i > 0) body += ',';
            body += Json{{"jsonrpc", "2.0"}, {"id", i}, {"method", method}}.dump();
        }
        return body + "]";
    }

    std::unique_ptr<RestApi> rest_;
    std::unique_ptr<McpEndpoint> mcp_;
};

// Streamable HTTP §Protocol version header: an unsupported version is 400, whatever its bytes;
// it is not echoed (bad UTF-8 in the answer made the JSON dump throw: a 500 with its text).
TEST_F(mcp_limits, a_protocol_version_header_of_any_bytes_is_400) {
    const std::string s = open_session();
    for (const std::string& version :
         {std::string("\xff\xfe"), std::string("2025-06-18\x80"), std::string(4096, 'x')}) {
        const HttpResponse r =
            post(R"({"jsonrpc":"2.0","id":2,"method":"ping"})", s, "127.0.0.1", version);
        EXPECT_EQ(r.status, 400) << r.body;
        const Json body = Json::parse(r.body, nullptr, false);
        ASSERT_FALSE(body.is_discarded()) << r.body;
        EXPECT_EQ(body["error"]["code"], -32600);
        EXPECT_EQ(r.body.find(version), std::string::npos);
    }
}

// A body nested deeper than max_depth is refused before it is parsed or copied (a tools/call
// whose params nest 150,000 arrays crashed the node: the copy recursed once per level).
TEST_F(mcp_limits, a_deep_body_is_400_before_any_recursion) {
    const std::string s = open_session();
    constexpr size_t kDepth = 150'000;
    const std::string deep = std::string(kDepth, '[') + std::string(kDepth, ']');
    const HttpResponse r = post(
        R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_agent","arguments":)" +
            deep + "}}",
        s);
    EXPECT_EQ(r.status, 400) << r.body.substr(0, 200);
    EXPECT_EQ(Json::parse(r.body)["error"]["code"], -32600);
    // Brackets inside strings do not count; 64 levels are allowed.
    const std::string text = Json{{"jsonrpc", "2.0"},
                                  {"id", 4},
                                  {"method", "ping"},
                                  {"params", {{"note", std::string(1000, '[')}}}}
                                 .dump();
    EXPECT_EQ(post(text, s).status, 200);
    const std::string allowed = R"({"jsonrpc":"2.0","id":5,"method":"ping","params":{"a":)" +
                                std::string(62, '[') + std::string(62, ']') + "}}";
    EXPECT_EQ(post(allowed, s).status, 200);
}

// JSON-RPC batches (MCP 2025-03-26) are capped at 1,000 messages, as geth caps them.
TEST_F(mcp_limits, a_batch_past_1000_messages_is_400) {
    const std::string s = open_session("127.0.0.1", "2025-03-26");
    const HttpResponse big = post(batch_of(1001, "ping"), s);
    EXPECT_EQ(big.status, 400);
    EXPECT_NE(big.body.find("at most 1000"), std::string::npos) << big.body;
    const HttpResponse ok = post(batch_of(1000, "ping"), s);
    ASSERT_EQ(ok.status, 200);
    EXPECT_EQ(Json::parse(ok.body).size(), 1000U);
}

// Each message of a batch after the first takes one more rate-limit token (the server took one
// for the request): once the bucket is empty the rest are answered with an error, not run.
TEST_F(mcp_limits, a_batch_is_charged_per_call) {
    const std::string s = open_session("127.0.0.1", "2025-03-26");
    double tokens = 4;
    size_t asked = 0;
    const auto charge = [&](double n) {
        ++asked;
        if (tokens < n) return false;
        tokens -= n;
        return true;
    };
    const HttpResponse r = post(batch_of(10, "ping"), s, "127.0.0.1", "", charge);
    ASSERT_EQ(r.status, 200) << r.body;
    const Json answers = Json::parse(r.body);
    ASSERT_EQ(answers.size(), 10U);
    for (size_t i = 0; i < answers.size(); ++i) {
        EXPECT_EQ(answers[i]["id"], i);
        if (i < 5) {
            EXPECT_TRUE(answers[i].contains("result")) << answers[i].dump();
        } else {
            EXPECT_EQ(answers[i]["error"]["code"], -32005) << answers[i].dump();
        }
    }
    EXPECT_EQ(asked, 5U);  // the bucket is not asked again once empty
    // Counted for /metrics.
    EXPECT_NE(mcp_->metrics().find("credence_mcp_rate_limited_total 5\n"), std::string::npos)
        << mcp_->metrics();
}

// The answers to one POST are bounded (geth: 25 MB); past the bound each answer is a
// "response too large" error instead.
TEST_F(mcp_limits, batch_answers_are_bounded_in_size) {
    McpOptions options;
    options.max_response_bytes = 20'000;
    make(options);
    const std::string s = open_session("127.0.0.1", "2025-03-26");
    const HttpResponse r = post(batch_of(20, "tools/list"), s);
    ASSERT_EQ(r.status, 200);
    const Json answers = Json::parse(r.body);
    ASSERT_EQ(answers.size(), 20U);
    EXPECT_TRUE(answers[0].contains("result"));
    EXPECT_EQ(answers[19]["error"]["code"], -32005);
    EXPECT_LT(r.body.size(), 20'000U + 20 * 200);
    // A single answer past the bound is the error too.
    McpOptions tiny;
    tiny.max_response_bytes = 100;
    make(tiny);
    const std::string t = open_session();
    const Json one = Json::parse(post(R"({"jsonrpc":"2.0","id":9,"method":"tools/list"})", t).body);
    EXPECT_EQ(one["error"]["code"], -32005) << one.dump();
    EXPECT_EQ(one["id"], 9);
}

// Streamable HTTP §Session management: the server may end a session; an idle one expires.
TEST_F(mcp_limits, an_idle_session_expires) {
    McpOptions options;
    options.sessions.idle_ttl = std::chrono::milliseconds(300);
    make(options);
    const std::string s = open_session();
    for (int i = 0; i < 3; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(150));
        EXPECT_EQ(ping(s), 200);  // use keeps it alive
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
    EXPECT_EQ(ping(s), 404);
}

// One client (an IPv4 address or an IPv6 /64) can only evict its own sessions: a flood of
// initializes from one address leaves another client's session working.
TEST_F(mcp_limits, one_client_cannot_evict_another_clients_sessions) {
    McpOptions options;
    options.sessions.max_total = 64;
    options.sessions.max_per_client = 4;
    make(options);
    const std::string mine = open_session("127.0.0.1");
    std::vector<std::string> flood;
    for (int i = 0; i < 10'000; ++i) flood.push_back(open_session("127.0.0.2"));
    EXPECT_EQ(ping(mine), 200);
    EXPECT_EQ(ping(flood.front(), "127.0.0.2"), 404);  // the flood evicted its own
    EXPECT_EQ(ping(flood.back(), "127.0.0.2"), 200);
    // IPv6 clients count per /64; the IPv4-mapped form counts as the IPv4 address.
    const std::string v6 = open_session("2001:db8:1:2::1");
    for (int i = 0; i < 100; ++i) (void)open_session(fmt::format("2001:db8:1:2::{:x}", i + 2));
    EXPECT_EQ(ping(v6), 404);
    EXPECT_EQ(ping(mine), 200);
    for (int i = 0; i < 100; ++i) (void)open_session("::ffff:127.0.0.1");
    EXPECT_EQ(ping(mine), 404);
}

}  // namespace
}  // namespace credence::api
