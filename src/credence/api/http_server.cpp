// HttpServer on Boost.Beast: one io_context run by one I/O thread owns the acceptor and every
// connection (api/detail/http_connection.hpp); requests go to a thread pool and their answers
// come back to the I/O thread to be written.
#include <credence/api/http_server.hpp>

#include <algorithm>
#include <thread>
#include <utility>

#include <fmt/format.h>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include <credence/api/detail/http_connection.hpp>
#include <credence/api/graphql_endpoint.hpp>

namespace credence::api {

namespace asio = boost::asio;
using Tcp = asio::ip::tcp;

namespace {

bool is_api_path(std::string_view path) {
    return path == "/healthz" || path == "/metrics" || path == "/openapi.json" || path == "/api" ||
           path.starts_with("/api/");
}

}  // namespace

struct HttpServer::Impl {
    RestApi& rest;
    McpEndpoint& mcp;
    StaticFiles static_files;
    GraphqlEndpoint* graphql = nullptr;
    detail::ConnectionShared shared;
    std::unique_ptr<asio::io_context> io;
    std::unique_ptr<asio::thread_pool> pool;
    std::unique_ptr<Tcp::acceptor> acceptor;
    std::unique_ptr<asio::steady_timer> accept_backoff;
    std::thread io_thread;
    uint16_t port = 0;
    bool running = false;

    Impl(RestApi& r, McpEndpoint& m, HttpServerOptions o)
        : rest(r), mcp(m), static_files(o.static_dir), graphql(o.graphql), shared(std::move(o)) {
        shared.dispatch = [this](const HttpRequest& request) { return route(request); };
    }

    HttpResponse route(const HttpRequest& request) {
        if (request.path == "/mcp") return mcp.handle(request);
        if (graphql != nullptr && request.path == kAgent0SubgraphPath) {
            return graphql->handle(request);
        }
        if (graphql != nullptr) {
            if (const auto chain = agent0_subgraph_chain(request.path)) {
                const auto it = shared.options.graphql_chains.find(*chain);
                return it == shared.options.graphql_chains.end()
                           ? unknown_subgraph_chain(request.path)
                           : it->second->handle(request);
            }
        }
        if (is_api_path(request.path)) return rest.handle(request);
        return static_files.serve(request);
    }

    void accept() {
        acceptor->async_accept(*io, [this](boost::system::error_code ec, Tcp::socket socket) {
            if (ec == asio::error::operation_aborted) return;
            if (ec) {
                // Out of descriptors (EMFILE) or a transient error: retry shortly, never spin.
                accept_backoff->expires_after(std::chrono::milliseconds(20));
                accept_backoff->async_wait([this](boost::system::error_code wait_ec) {
                    if (!wait_ec) accept();
                });
                return;
            }
            detail::admit_connection(shared, std::move(socket), *pool);
            accept();
        });
    }
};

HttpServer::HttpServer(RestApi& rest, McpEndpoint& mcp, HttpServerOptions options)
    : impl_(std::make_unique<Impl>(rest, mcp, std::move(options))) {}

HttpServer::~HttpServer() { stop(); }

std::expected<void, std::string> HttpServer::start() {
    Impl& s = *impl_;
    if (s.running) return {};
    const HttpServerOptions& options = s.shared.options;
    s.io = std::make_unique<asio::io_context>(1);
    s.pool = std::make_unique<asio::thread_pool>(std::max(1U, options.threads));
    boost::system::error_code ec;
    const auto address = asio::ip::make_address(options.bind_address, ec);
    if (ec)
        return std::unexpected(
            fmt::format("cannot bind {}: not an IP address", options.bind_address));
    const Tcp::endpoint endpoint(address, options.port);
    s.acceptor = std::make_unique<Tcp::acceptor>(*s.io);
    if (s.acceptor->open(endpoint.protocol(), ec); !ec) {
        s.acceptor->set_option(asio::socket_base::reuse_address(true), ec);
        if (!ec) s.acceptor->bind(endpoint, ec);
        if (!ec) s.acceptor->listen(asio::socket_base::max_listen_connections, ec);
    }
    if (ec) {
        s.acceptor.reset();
        s.pool->join();
        s.pool.reset();
        s.io.reset();
        return std::unexpected(
            fmt::format("cannot bind {}:{}: {}", options.bind_address, options.port, ec.message()));
    }
    s.port = s.acceptor->local_endpoint().port();
    s.accept_backoff = std::make_unique<asio::steady_timer>(*s.io);
    s.accept();
    s.running = true;
    s.io_thread = std::thread([&s] { s.io->run(); });
    return {};
}

void HttpServer::stop() {
    Impl& s = *impl_;
    if (!s.running) return;
    s.io->stop();
    if (s.io_thread.joinable()) s.io_thread.join();
    // Running handlers finish; their answers are posted to the stopped io_context and dropped
    // with it, which also closes every connection.
    s.pool->join();
    s.accept_backoff.reset();
    s.acceptor.reset();
    s.io.reset();
    s.pool.reset();
    s.running = false;
}

uint16_t HttpServer::port() const noexcept { return impl_->port; }

HttpServerCounters HttpServer::counters() const noexcept { return impl_->shared.snapshot(); }

std::string HttpServer::metrics() const {
    const HttpServerCounters c = counters();
    std::string out;
    const auto metric = [&out](std::string_view type, std::string_view name, std::string_view help,
                               uint64_t value) {
        out += fmt::format("# HELP {0} {1}\n# TYPE {0} {2}\n{0} {3}\n", name, help, type, value);
    };
    metric("counter", "credence_http_server_connections_accepted_total", "Connections accepted",
           c.connections_accepted);
    metric("counter", "credence_http_server_connections_rejected_per_ip_total",
           "Connections closed at once: the client IP was at max_connections_per_ip",
           c.connections_rejected_per_ip);
    metric("counter", "credence_http_server_connections_rejected_total",
           "Connections closed at once: the server was at max_connections",
           c.connections_rejected_total);
    metric("counter", "credence_http_server_header_timeouts_total",
           "Connections closed: request line and headers not complete within header_timeout",
           c.header_timeouts);
    metric("counter", "credence_http_server_body_timeouts_total",
           "Connections closed: body not complete within body_timeout", c.body_timeouts);
    metric("counter", "credence_http_server_idle_reaped_total",
           "Idle connections closed (idle_timeout, or to make room at max_connections)",
           c.idle_reaped);
    metric("counter", "credence_http_server_requests_total", "Requests answered", c.requests);
    metric("counter", "credence_http_server_rate_limited_total", "Requests answered 429",
           c.rate_limited);
    metric("counter", "credence_http_server_bad_requests_total",
           "Requests refused by the transport (400, 413, 414, 431)", c.bad_requests);
    metric("gauge", "credence_http_server_open_connections", "Open connections",
           c.open_connections);
    return out;
}

}  // namespace credence::api
