// The MCP endpoint's message parsing (api/mcp_endpoint.hpp) on arbitrary bytes: the body of a POST
// (JSON-RPC messages, batches, tools/call arguments) after a real initialize, and with arbitrary
// session and protocol-version headers. Properties: nothing throws or crashes; no answer is a 5xx
// other than the REST API's 503 for its (absent) database; every answer with a body is JSON.
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include <credence/api/mcp_endpoint.hpp>

using namespace credence::api;

namespace {

void check(bool condition) {
    if (!condition) std::abort();
}

struct World {
    std::unique_ptr<RestApi> rest;
    std::unique_ptr<McpEndpoint> mcp;
    std::string session;

    World() {
        RestApiOptions options;
        options.scope.chain_id = 31337;
        // No database: REST answers 503, which MCP must turn into an isError result.
        options.open_database = [] {
            return credence::index::DbResult<std::unique_ptr<credence::index::Database>>(
                std::unexpected(credence::index::DbError{credence::index::DbErrorKind::open,
                                                         "fuzz: no database"}));
        };
        rest = std::make_unique<RestApi>(std::move(options));
        mcp = std::make_unique<McpEndpoint>(*rest, McpOptions{"credence", "fuzz"});
        HttpRequest init;
        init.method = "POST";
        init.path = "/mcp";
        init.body =
            R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26"}})";
        const HttpResponse r = mcp->handle(init);
        for (const auto& [k, v] : r.headers) {
            if (k == "Mcp-Session-Id") session = v;
        }
        check(!session.empty());
    }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static World world;
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    HttpRequest r;
    r.method = "POST";
    r.path = "/mcp";
    r.remote_ip = "127.0.0.1";
    // First byte picks the headers: the real session, none, or the next line as the session id.
    const uint8_t mode = size > 0 ? data[0] % 4 : 0;
    std::string_view body = size > 0 ? input.substr(1) : input;
    if (mode == 0 || mode == 3) r.headers.emplace_back("mcp-session-id", world.session);
    if (mode == 2) {
        const size_t nl = body.find('\n');
        r.headers.emplace_back("mcp-session-id", std::string(body.substr(0, nl)));
        body = nl == std::string_view::npos ? std::string_view() : body.substr(nl + 1);
    }
    if (mode == 3) r.headers.emplace_back("mcp-protocol-version", "2025-06-18");
    r.body = std::string(body);
    const HttpResponse answer = world.mcp->handle(r);
    check(answer.status < 500);
    if (!answer.body.empty()) {
        check(!nlohmann::json::parse(answer.body, nullptr, false).is_discarded());
    }
    return 0;
}
