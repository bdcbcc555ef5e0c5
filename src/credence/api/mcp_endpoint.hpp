// The MCP endpoint (docs/api.md): Model Context Protocol over Streamable HTTP at /mcp, so an AI
// agent can ask Credence whom to trust. JSON-RPC 2.0 messages (initialize, notifications,
// tools/list, tools/call, ping); tools search_agents, get_agent, get_reputation, search_tools,
// verify_tool and trace_run answer by calling the REST API in-process (one source of truth for
// queries and their validation).
//
// Bounds (docs/api.md §MCP): a body nested deeper than max_depth is 400 before it is parsed; a
// batch holds at most max_batch messages, each after the first taking one more token of the
// client's rate limit (HttpRequest::charge_more); answers past max_response_bytes are replaced by
// a "response too large" error; sessions expire and are capped per client (api/mcp_sessions.hpp).
// A client's headers or body never cause a 5xx, and a 500 never carries an exception's text.
//
// Thread-safety: handle() may be called from many threads at once. Ownership: borrows the
// RestApi, which must outlive the endpoint.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <utility>

#include <credence/api/http_types.hpp>
#include <credence/api/mcp_sessions.hpp>
#include <credence/api/rest_api.hpp>

namespace credence::api {

struct McpOptions {
    McpOptions() = default;
    McpOptions(std::string name, std::string version)
        : server_name(std::move(name)), server_version(std::move(version)) {}

    std::string server_name = "credence";
    std::string server_version;
    McpSessionLimits sessions;
    /// As geth bounds its JSON-RPC batches: 1,000 messages, 25 MB of answers.
    size_t max_batch = 1000;
    size_t max_response_bytes = 25'000'000;
    /// Nesting of arrays and objects in a body (MCP messages are a few levels deep).
    size_t max_depth = 64;
};

class McpEndpoint {
public:
    McpEndpoint(RestApi& rest, McpOptions options);
    ~McpEndpoint();
    McpEndpoint(const McpEndpoint&) = delete;
    McpEndpoint& operator=(const McpEndpoint&) = delete;

    /// Answers POST, GET and DELETE on /mcp (Streamable HTTP transport).
    [[nodiscard]] HttpResponse handle(const HttpRequest& request);
    /// Prometheus text (credence_mcp_*): batch calls refused by the rate limit, answers replaced
    /// for size, live sessions. For the node's /metrics.
    [[nodiscard]] std::string metrics() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace credence::api
