// The node's HTTP server (docs/node.md §HTTP server): an event-driven HTTP/1.1 server on
// Boost.Beast / Asio. One I/O thread owns every socket (accepts, reads, writes, deadlines); the
// handlers run on a small pool, so a slow handler never holds up accepts or other connections.
// It routes /mcp to the MCP endpoint, /subgraphs/agent0 to the GraphQL endpoint, /api/v1/*,
// /openapi.json, /healthz and /metrics to the REST API, and everything else to the explorer's
// static files.
//
// Limits (docs/node.md §HTTP server limits), none of which holds a worker:
//   - connections: at most max_connections in total and max_connections_per_ip from one address;
//     past the total, the longest-idle keep-alive connection is closed to make room, else the
//     newcomer is closed at once;
//   - time: idle_timeout for the first byte of a request (new or keep-alive connection), then
//     header_timeout for the whole request line and headers (slow senders), body_timeout for the
//     whole body, write_timeout for the whole response;
//   - size: request line + headers <= max_header_bytes (431), target <= max_target_bytes (414),
//     body <= max_body_bytes for every transfer encoding, checked while reading (413);
//   - rate: rate_limit_per_second per IP (token bucket of rate_limit_burst) -> 429 + Retry-After;
//     handlers charge more through HttpRequest::charge.
// Every refusal is a JSON error and the connection closes; nothing a client sends causes a 5xx.
// HEAD answers the GET's headers (its Content-Length) without the body.
//
// Thread-safety: start() and stop() from one owning thread; counters() from any thread.
// Ownership: borrows the RestApi and McpEndpoint, which must outlive the server.
#pragma once

#include <chrono>
#include <cstdint>
#include <expected>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <credence/api/mcp_endpoint.hpp>
#include <credence/api/rest_api.hpp>

namespace credence::api {

class GraphqlEndpoint;

struct HttpServerOptions {
    std::string bind_address = "127.0.0.1";
    /// Serves /subgraphs/agent0 (api/graphql_endpoint.hpp) when set; borrowed, must outlive
    /// the server.
    GraphqlEndpoint* graphql = nullptr;
    /// Serves /subgraphs/agent0/<chainId>, one subgraph per chain followed (docs/graphql.md
    /// §Chains); borrowed, must outlive the server. Any other chain id there is a 404.
    std::map<uint64_t, GraphqlEndpoint*> graphql_chains;
    uint16_t port = 8004;              ///< 0 picks a free port (see HttpServer::port())
    std::filesystem::path static_dir;  ///< the built explorer (web/dist); empty: no static files
    size_t max_body_bytes = 64 * 1024;
    double rate_limit_per_second = 50;
    double rate_limit_burst = 100;
    /// Handler threads (the I/O thread is one more). Open connections cost no thread.
    unsigned threads = 8;
    /// Requests served on one keep-alive connection before it is closed.
    size_t keep_alive_requests = 1000;
    size_t max_connections = 4096;
    size_t max_connections_per_ip = 64;
    std::chrono::milliseconds idle_timeout{5000};
    std::chrono::milliseconds header_timeout{10000};
    std::chrono::milliseconds body_timeout{10000};
    std::chrono::milliseconds write_timeout{10000};
    size_t max_header_bytes = 16 * 1024;
    size_t max_target_bytes = 8 * 1024;
    /// Query parameters that may repeat (docs/api.md); any other repeat is a 400.
    std::vector<std::string> repeatable_params{"client", "validator", "chain"};
};

/// Totals since start (Prometheus counters, docs/node.md §Metrics), plus the open connections.
struct HttpServerCounters {
    uint64_t connections_accepted = 0;
    uint64_t connections_rejected_per_ip = 0;
    uint64_t connections_rejected_total = 0;
    uint64_t header_timeouts = 0;  ///< request line + headers not complete in time
    uint64_t body_timeouts = 0;
    uint64_t idle_reaped = 0;   ///< closed waiting for a request's first byte (or to make room)
    uint64_t requests = 0;      ///< requests answered by a handler (or refused by the limiter)
    uint64_t rate_limited = 0;  ///< 429 answers
    uint64_t bad_requests = 0;  ///< 400 / 413 / 414 / 431 from the transport
    uint64_t open_connections = 0;
};

class HttpServer {
public:
    HttpServer(RestApi& rest, McpEndpoint& mcp, HttpServerOptions options);
    ~HttpServer();  ///< stops if running
    HttpServer(const HttpServer&) = delete;
    HttpServer& operator=(const HttpServer&) = delete;

    /// Binds and starts serving on background threads; an error says why binding failed.
    [[nodiscard]] std::expected<void, std::string> start();
    /// Stops accepting, closes every connection, waits for running handlers. Idempotent.
    void stop();
    /// The bound port (after start()).
    [[nodiscard]] uint16_t port() const noexcept;
    [[nodiscard]] HttpServerCounters counters() const noexcept;
    /// counters() in the Prometheus text format (credence_http_server_*), for the node's /metrics.
    [[nodiscard]] std::string metrics() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace credence::api
