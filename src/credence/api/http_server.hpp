// The node's HTTP server (docs/api.md): binds one address, applies the request limits, and
// routes /mcp to the MCP endpoint, /api/v1/*, /openapi.json, /healthz and /metrics to the REST
// API, and everything else to the explorer's static files (index.html for unknown paths without
// a file extension, so the single-page app's routes load).
//
// Limits (answered as JSON errors, never 5xx): request bodies over max_body_bytes -> 413; more
// than rate_limit_per_second sustained requests from one IP (token bucket of rate_limit_burst)
// -> 429 with Retry-After; request line and headers bounded by the transport.
//
// Thread-safety: start() and stop() from one owning thread; handlers run on the server's pool.
// Ownership: borrows the RestApi and McpEndpoint, which must outlive the server.
#pragma once

#include <cstdint>
#include <expected>
#include <filesystem>
#include <memory>
#include <string>

#include <credence/api/mcp_endpoint.hpp>
#include <credence/api/rest_api.hpp>

namespace credence::api {

struct HttpServerOptions {
    std::string bind_address = "127.0.0.1";
    uint16_t port = 8004;              ///< 0 picks a free port (see HttpServer::port())
    std::filesystem::path static_dir;  ///< the built explorer (web/dist); empty: no static files
    size_t max_body_bytes = 64 * 1024;
    double rate_limit_per_second = 50;
    double rate_limit_burst = 100;
    /// Worker threads. cpp-httplib keeps a thread per open keep-alive connection, so a client
    /// past this many connections waits until one closes (keep_alive_requests, or 5 s idle).
    unsigned threads = 8;
    /// Requests served on one keep-alive connection before it is closed (httplib's default of 5
    /// made a load generator reconnect every fifth request).
    size_t keep_alive_requests = 100;
};

class HttpServer {
public:
    HttpServer(RestApi& rest, McpEndpoint& mcp, HttpServerOptions options);
    ~HttpServer();  ///< stops if running
    HttpServer(const HttpServer&) = delete;
    HttpServer& operator=(const HttpServer&) = delete;

    /// Binds and starts serving on background threads; an error says why binding failed.
    [[nodiscard]] std::expected<void, std::string> start();
    /// Stops accepting, finishes in-flight requests, joins the threads. Idempotent.
    void stop();
    /// The bound port (after start()).
    [[nodiscard]] uint16_t port() const noexcept;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace credence::api
