// One HTTP/1.1 connection of api::HttpServer, and the state every connection shares (limits,
// counters, the per-IP table, the idle list). docs/node.md §HTTP server describes the limits.
//
// A connection's life, on the server's single I/O thread except the handler (pool thread), which
// also starts writing its answer (nothing else touches the connection meanwhile; the write
// completes on the I/O thread): wait for a request's first byte
// (idle_timeout; reapable), read the request line and headers (header_timeout, max_header_bytes),
// read the body (body_timeout, max_body_bytes for Content-Length and chunked alike, checked while
// reading), take a rate-limit token, hand the request to the pool, write the answer
// (write_timeout), then loop (keep-alive) or close. A refusal writes a JSON error with
// "Connection: close", shuts down the sending side and drains what the client still sends for a
// moment, so the client reads the answer rather than a reset.
//
// Thread-safety: ConnectionShared's counters and per-IP table may be read from any thread;
// everything else belongs to the I/O thread, or to the pool thread running the connection's
// handler while it runs. Ownership: connections own themselves
// (shared_ptr held by their pending operation); they borrow ConnectionShared.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/thread_pool.hpp>

#include <credence/api/http_server.hpp>
#include <credence/api/http_types.hpp>
#include <credence/api/rate_limiter.hpp>
#include <credence/api/static_files.hpp>

namespace credence::api::detail {

class Connection;

struct ConnectionShared {
    explicit ConnectionShared(HttpServerOptions o);

    HttpServerOptions options;
    RateLimiter limiter;
    /// Answers one request; runs on the pool. Must not throw (the caller catches anyway).
    std::function<HttpResponse(const HttpRequest&)> dispatch;

    std::atomic<uint64_t> accepted{0};
    std::atomic<uint64_t> rejected_per_ip{0};
    std::atomic<uint64_t> rejected_total{0};
    std::atomic<uint64_t> header_timeouts{0};
    std::atomic<uint64_t> body_timeouts{0};
    std::atomic<uint64_t> idle_reaped{0};
    std::atomic<uint64_t> requests{0};
    std::atomic<uint64_t> rate_limited{0};
    std::atomic<uint64_t> bad_requests{0};
    std::atomic<uint64_t> open{0};

    std::mutex per_ip_mutex;
    std::unordered_map<std::string, size_t> per_ip;
    /// Connections waiting for a request's first byte (I/O thread only).
    std::unordered_set<Connection*> idle;

    [[nodiscard]] HttpServerCounters snapshot() const noexcept;
    /// Counts a connection from `client` (a client_key) in, or refuses it (the per-client cap);
    /// true when admitted.
    bool enter(const std::string& client);
    void leave(const std::string& client);
};

/// Applies the connection caps to an accepted socket and starts serving it, or closes it.
void admit_connection(ConnectionShared& shared, boost::asio::ip::tcp::socket socket,
                      boost::asio::thread_pool& pool);

}  // namespace credence::api::detail
