// McpEndpoint's protocol edges (MCP 2025-06-18 §Transports "Streamable HTTP", §Lifecycle,
// §Tools; JSON-RPC 2.0 §5.1 error codes), driven in-process against a RestApi over a real, empty
// SQLite index. The MCP SDK client test (tests/mcp/) covers the tools with data.
#include <credence/api/mcp_endpoint.hpp>

#include <atomic>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <credence/index/store.hpp>
#include <support/scratch.hpp>

namespace credence::api {
namespace {

using Json = nlohmann::json;

class mcp_endpoint : public ::testing::Test {
protected:
    void SetUp() override {
        static std::atomic<int> counter{0};
        const auto path = testing::scratch_dir() / ("mcp_" + std::to_string(counter++) + ".sqlite");
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
        mcp_ = std::make_unique<McpEndpoint>(*rest_, McpOptions{"credence", "0.1.0"});
    }

    HttpResponse post(const std::string& body, const std::string* session = nullptr,
                      const std::string& version = "") {
        HttpRequest r;
        r.method = "POST";
        r.path = "/mcp";
        r.body = body;
        r.remote_ip = "127.0.0.1";
        r.headers.emplace_back("content-type", "application/json");
        r.headers.emplace_back("accept", "application/json, text/event-stream");
        if (session != nullptr) r.headers.emplace_back("mcp-session-id", *session);
        if (!version.empty()) r.headers.emplace_back("mcp-protocol-version", version);
        return mcp_->handle(r);
    }

    /// initialize + notifications/initialized; returns the session id.
    std::string open_session(const std::string& version = "2025-06-18") {
        const HttpResponse init =
            post(Json{{"jsonrpc", "2.0"},
                      {"id", 1},
                      {"method", "initialize"},
                      {"params",
                       {{"protocolVersion", version},
                        {"capabilities", Json::object()},
                        {"clientInfo", {{"name", "test"}, {"version", "1"}}}}}}
                     .dump());
        EXPECT_EQ(init.status, 200) << init.body;
        std::string id;
        for (const auto& [k, v] : init.headers) {
            if (k == "Mcp-Session-Id") id = v;
        }
        EXPECT_FALSE(id.empty());
        const HttpResponse note =
            post(R"({"jsonrpc":"2.0","method":"notifications/initialized"})", &id);
        EXPECT_EQ(note.status, 202);
        return id;
    }

    Json call(const std::string& session, const Json& message) {
        const HttpResponse r = post(message.dump(), &session, "2025-06-18");
        return Json::parse(r.body, nullptr, false);
    }

    static int error_code(const Json& answer) {
        if (!answer.contains("error")) return 0;
        return answer["error"]["code"].get<int>();
    }

    std::unique_ptr<RestApi> rest_;
    std::unique_ptr<McpEndpoint> mcp_;
};

TEST_F(mcp_endpoint, initialize_negotiates_the_version_and_issues_a_session) {
    const HttpResponse r = post(
        R"({"jsonrpc":"2.0","id":"a","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})");
    ASSERT_EQ(r.status, 200);
    const Json answer = Json::parse(r.body);
    EXPECT_EQ(answer["id"], "a");
    EXPECT_EQ(answer["result"]["protocolVersion"], "2025-06-18");
    EXPECT_TRUE(answer["result"]["capabilities"].contains("tools"));
    EXPECT_EQ(answer["result"]["serverInfo"]["name"], "credence");
    bool has_session = false;
    for (const auto& [k, v] : r.headers) {
        if (k == "Mcp-Session-Id") {
            has_session = true;
            // Streamable HTTP §Session management: visible ASCII only.
            for (char c : v) EXPECT_TRUE(c >= 0x21 && c <= 0x7E);
        }
    }
    EXPECT_TRUE(has_session);
}

TEST_F(mcp_endpoint, lifecycle_older_version_accepted_unknown_version_gets_ours) {
    const HttpResponse old = post(
        R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26"}})");
    EXPECT_EQ(Json::parse(old.body)["result"]["protocolVersion"], "2025-03-26");
    const HttpResponse future = post(
        R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2099-01-01"}})");
    EXPECT_EQ(Json::parse(future.body)["result"]["protocolVersion"], "2025-06-18");
    const HttpResponse none = post(R"({"jsonrpc":"2.0","id":1,"method":"initialize"})");
    EXPECT_EQ(error_code(Json::parse(none.body)), -32602);
}

TEST_F(mcp_endpoint, transport_session_header_required_and_unknown_session_is_404) {
    const HttpResponse missing = post(R"({"jsonrpc":"2.0","id":2,"method":"ping"})");
    EXPECT_EQ(missing.status, 400);
    const std::string bogus = "no-such-session";
    const HttpResponse unknown = post(R"({"jsonrpc":"2.0","id":2,"method":"ping"})", &bogus);
    EXPECT_EQ(unknown.status, 404);
}

TEST_F(mcp_endpoint, transport_unsupported_protocol_version_header_is_400) {
    const std::string s = open_session();
    const HttpResponse r = post(R"({"jsonrpc":"2.0","id":2,"method":"ping"})", &s, "1999-01-01");
    EXPECT_EQ(r.status, 400);
}

TEST_F(mcp_endpoint, ping_answers_an_empty_result) {
    const std::string s = open_session();
    const Json answer = call(s, {{"jsonrpc", "2.0"}, {"id", 7}, {"method", "ping"}});
    EXPECT_EQ(answer["id"], 7);
    EXPECT_TRUE(answer["result"].is_object());
    EXPECT_TRUE(answer["result"].empty());
}

TEST_F(mcp_endpoint, jsonrpc_parse_error_is_32700) {
    const std::string s = open_session();
    const HttpResponse r = post("{not json", &s);
    EXPECT_EQ(r.status, 400);
    const Json answer = Json::parse(r.body);
    EXPECT_EQ(error_code(answer), -32700);
    EXPECT_TRUE(answer["id"].is_null());
}

TEST_F(mcp_endpoint, jsonrpc_invalid_requests_are_32600) {
    const std::string s = open_session();
    EXPECT_EQ(error_code(call(s, {{"id", 1}, {"method", "ping"}})), -32600);  // no jsonrpc
    EXPECT_EQ(error_code(call(s, {{"jsonrpc", "1.0"}, {"id", 1}, {"method", "ping"}})), -32600);
    EXPECT_EQ(error_code(call(s, {{"jsonrpc", "2.0"}, {"id", 1}, {"method", 5}})), -32600);
    EXPECT_EQ(error_code(call(s, {{"jsonrpc", "2.0"}, {"id", Json::object()}, {"method", "ping"}})),
              -32600);
    EXPECT_EQ(error_code(call(s, Json("just a string"))), -32600);
    // 2025-06-18 has no batches.
    EXPECT_EQ(
        error_code(call(s, Json::array({{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "ping"}}}))),
        -32600);
}

TEST_F(mcp_endpoint, jsonrpc_batches_only_under_2025_03_26) {
    const std::string s = open_session("2025-03-26");
    const HttpResponse r = post(
        R"([{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":2,"method":"nope"}])",
        &s);
    ASSERT_EQ(r.status, 200);
    const Json answers = Json::parse(r.body);
    ASSERT_TRUE(answers.is_array());
    ASSERT_EQ(answers.size(), 2u);  // the notification gets no answer
    EXPECT_EQ(answers[0]["id"], 1);
    EXPECT_EQ(error_code(answers[1]), -32601);
}

TEST_F(mcp_endpoint, jsonrpc_unknown_method_is_32601) {
    const std::string s = open_session();
    const Json answer = call(s, {{"jsonrpc", "2.0"}, {"id", 3}, {"method", "resources/list"}});
    EXPECT_EQ(error_code(answer), -32601);
    EXPECT_EQ(answer["id"], 3);
}

TEST_F(mcp_endpoint, notifications_and_client_responses_get_202) {
    const std::string s = open_session();
    EXPECT_EQ(
        post(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{}})", &s).status,
        202);
    EXPECT_EQ(post(R"({"jsonrpc":"2.0","id":9,"result":{}})", &s).status, 202);
}

TEST_F(mcp_endpoint, tools_list_has_the_six_tools_with_input_schemas) {
    const std::string s = open_session();
    const Json answer = call(s, {{"jsonrpc", "2.0"}, {"id", 4}, {"method", "tools/list"}});
    const Json& tools = answer["result"]["tools"];
    ASSERT_TRUE(tools.is_array());
    std::vector<std::string> names;
    for (const Json& t : tools) {
        names.push_back(t["name"]);
        EXPECT_EQ(t["inputSchema"]["type"], "object") << t["name"];
        EXPECT_FALSE(t["description"].get<std::string>().empty());
    }
    EXPECT_EQ(names, (std::vector<std::string>{"search_agents", "get_agent", "get_reputation",
                                               "search_tools", "verify_tool", "trace_run"}));
    EXPECT_EQ(tools[1]["inputSchema"]["required"], Json::array({"agent_id"}));
}

TEST_F(mcp_endpoint, tools_call_bad_params_are_32602) {
    const std::string s = open_session();
    auto call_tool = [&](const Json& params) {
        return error_code(
            call(s, {{"jsonrpc", "2.0"}, {"id", 5}, {"method", "tools/call"}, {"params", params}}));
    };
    EXPECT_EQ(call_tool({{"name", "no_such_tool"}}), -32602);
    EXPECT_EQ(call_tool({{"arguments", Json::object()}}), -32602);  // no name
    EXPECT_EQ(call_tool({{"name", "get_agent"}, {"arguments", Json::object()}}),
              -32602);  // missing
    EXPECT_EQ(call_tool({{"name", "get_agent"}, {"arguments", {{"agent_id", true}}}}), -32602);
    EXPECT_EQ(call_tool({{"name", "get_agent"}, {"arguments", {{"agent_id", "1"}, {"x", 1}}}}),
              -32602);
    EXPECT_EQ(call_tool({{"name", "search_agents"}, {"arguments", {{"min_score", "high"}}}}),
              -32602);
    EXPECT_EQ(call_tool({{"name", "get_reputation"},
                         {"arguments", {{"agent_id", "1"}, {"clients", "0xabc"}}}}),
              -32602);
    EXPECT_EQ(call_tool({{"name", "search_agents"}, {"arguments", Json::array()}}), -32602);
}

TEST_F(mcp_endpoint, tools_call_rest_failure_is_a_result_with_is_error) {
    const std::string s = open_session();
    const Json answer =
        call(s, {{"jsonrpc", "2.0"},
                 {"id", 6},
                 {"method", "tools/call"},
                 {"params", {{"name", "get_agent"}, {"arguments", {{"agent_id", "424242"}}}}}});
    ASSERT_TRUE(answer.contains("result")) << answer.dump();
    EXPECT_TRUE(answer["result"]["isError"].get<bool>());
    ASSERT_EQ(answer["result"]["content"][0]["type"], "text");
    // The REST error JSON, as text and as structured content.
    const Json text = Json::parse(answer["result"]["content"][0]["text"].get<std::string>());
    EXPECT_TRUE(text.contains("code"));
    EXPECT_EQ(answer["result"]["structuredContent"], text);
}

TEST_F(mcp_endpoint, transport_get_is_405_and_delete_ends_the_session) {
    HttpRequest get;
    get.method = "GET";
    get.path = "/mcp";
    EXPECT_EQ(mcp_->handle(get).status, 405);

    const std::string s = open_session();
    HttpRequest del;
    del.method = "DELETE";
    del.path = "/mcp";
    del.headers.emplace_back("mcp-session-id", s);
    EXPECT_EQ(mcp_->handle(del).status, 204);
    EXPECT_EQ(mcp_->handle(del).status, 404);  // already ended
    EXPECT_EQ(post(R"({"jsonrpc":"2.0","id":2,"method":"ping"})", &s).status, 404);
}

TEST_F(mcp_endpoint, transport_rejects_non_json_bodies) {
    HttpRequest r;
    r.method = "POST";
    r.path = "/mcp";
    r.headers.emplace_back("content-type", "text/plain");
    r.body = "hello";
    EXPECT_EQ(mcp_->handle(r).status, 415);
}

}  // namespace
}  // namespace credence::api
