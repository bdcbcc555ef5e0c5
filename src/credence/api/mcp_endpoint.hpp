// The MCP endpoint (docs/api.md): Model Context Protocol over Streamable HTTP at /mcp, so an AI
// agent can ask Credence whom to trust. JSON-RPC 2.0 messages (initialize, notifications,
// tools/list, tools/call, ping); tools search_agents, get_agent, get_reputation, search_tools,
// verify_tool and trace_run answer by calling the REST API in-process (one source of truth for
// queries and their validation).
//
// Thread-safety: handle() may be called from many threads at once. Ownership: borrows the
// RestApi, which must outlive the endpoint.
#pragma once

#include <memory>
#include <string>

#include <credence/api/http_types.hpp>
#include <credence/api/rest_api.hpp>

namespace credence::api {

struct McpOptions {
    std::string server_name = "credence";
    std::string server_version;
};

class McpEndpoint {
public:
    McpEndpoint(RestApi& rest, McpOptions options);
    ~McpEndpoint();
    McpEndpoint(const McpEndpoint&) = delete;
    McpEndpoint& operator=(const McpEndpoint&) = delete;

    /// Answers POST, GET and DELETE on /mcp (Streamable HTTP transport).
    [[nodiscard]] HttpResponse handle(const HttpRequest& request);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace credence::api
