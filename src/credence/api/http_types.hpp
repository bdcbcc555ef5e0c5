// The transport-neutral request and response that every HTTP surface of the node speaks
// (docs/api.md): the REST API (api/rest_api.hpp), the MCP endpoint (api/mcp_endpoint.hpp) and the
// server that binds them to a socket (api/http_server.hpp). Keeping httplib out of the handlers
// lets the MCP tools call the REST handlers in-process, and lets tests drive a handler without a
// socket.
//
// Ownership: plain values (`charge` calls back into the server that built the request).
// Thread-safety: none needed (values).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace credence::api {

struct HttpRequest {
    std::string method;  ///< "GET", "POST", ...
    std::string path;    ///< decoded path without the query string, e.g. "/api/v1/agents/7"
    /// Decoded query parameters in request order; a name may repeat (?client=0x..&client=0x..).
    std::vector<std::pair<std::string, std::string>> query;
    /// Header names lowercased.
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    std::string remote_ip;
    /// Takes `tokens` more from the client's rate-limit bucket, beyond the one the server took for
    /// the request itself (an MCP batch is charged per call); false when the bucket is empty.
    /// Unset when no server is involved (handlers driven directly by tests): always allowed.
    std::function<bool(double tokens)> charge;

    [[nodiscard]] bool charge_more(double tokens) const { return !charge || charge(tokens); }

    /// The first value of query parameter `name`, or nullptr.
    [[nodiscard]] const std::string* param(std::string_view name) const noexcept {
        for (const auto& [key, value] : query) {
            if (key == name) return &value;
        }
        return nullptr;
    }
    /// The first value of header `name` (lowercase), or nullptr.
    [[nodiscard]] const std::string* header(std::string_view name) const noexcept {
        for (const auto& [key, value] : headers) {
            if (key == name) return &value;
        }
        return nullptr;
    }
};

struct HttpResponse {
    int status = 200;
    std::string content_type = "application/json";
    std::string body;
    /// Extra headers (e.g. "Mcp-Session-Id", "Retry-After").
    std::vector<std::pair<std::string, std::string>> headers;
};

}  // namespace credence::api
