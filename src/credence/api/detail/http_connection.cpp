#include <credence/api/detail/http_connection.hpp>

#include <array>
#include <chrono>
#include <cmath>
#include <memory>
#include <optional>

#include <boost/asio/post.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <nlohmann/json.hpp>

#include <credence/api/client_key.hpp>
#include <credence/api/detail/json_body.hpp>
#include <credence/api/http_target.hpp>

namespace credence::api::detail {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using Tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

namespace {

/// After a refusal, what the client still sends is read and dropped for this long (at most
/// kDrainBytes), so its kernel does not turn our answer into a reset.
constexpr auto kDrainTime = std::chrono::milliseconds(500);
constexpr size_t kDrainBytes = 1 << 20;

std::string lowercase(std::string_view text) {
    std::string out(text);
    for (char& c : out) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return out;
}

std::string ip_of(const Tcp::endpoint& endpoint) {
    auto address = endpoint.address();
    if (address.is_v6() && address.to_v6().is_v4_mapped()) {
        address = asio::ip::make_address_v4(asio::ip::v4_mapped, address.to_v6());
    }
    return address.to_string();
}

bool is_disconnect(const boost::system::error_code& ec) {
    return ec == http::error::end_of_stream || ec == asio::error::eof ||
           ec == asio::error::connection_reset || ec == asio::error::operation_aborted ||
           ec == asio::error::broken_pipe || ec == http::error::partial_message;
}

}  // namespace

class Connection : public std::enable_shared_from_this<Connection> {
public:
    Connection(ConnectionShared& shared, asio::thread_pool& pool, Tcp::socket socket,
               std::string ip)
        : shared_(shared),
          pool_(pool),
          stream_(std::move(socket)),
          buffer_(shared.options.max_header_bytes + 64 * 1024),
          ip_(std::move(ip)),
          client_(client_key(ip_)) {}

    ~Connection() {
        set_idle(false);
        shared_.leave(client_);
        shared_.open.fetch_sub(1);
    }

    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;

    void start() { wait_request(); }

    [[nodiscard]] Clock::time_point idle_since() const noexcept { return idle_since_; }

    /// Closes an idle connection to make room for a new one (I/O thread).
    void reap() {
        shared_.idle_reaped.fetch_add(1);
        reaped_ = true;
        set_idle(false);
        boost::system::error_code ignored;
        stream_.socket().close(ignored);
    }

private:
    void set_idle(bool idle) {
        if (idle == idle_) return;
        idle_ = idle;
        if (idle) {
            idle_since_ = Clock::now();
            shared_.idle.insert(this);
        } else {
            shared_.idle.erase(this);
        }
    }

    /// Waits for the first byte of the next request (idle_timeout), unless one is buffered
    /// already (pipelining).
    void wait_request() {
        if (buffer_.size() > 0) {
            read_header();
            return;
        }
        set_idle(true);
        stream_.expires_after(shared_.options.idle_timeout);
        stream_.async_read_some(buffer_.prepare(4096), [self = shared_from_this()](
                                                           boost::system::error_code ec, size_t n) {
            self->on_first_bytes(ec, n);
        });
    }

    void on_first_bytes(boost::system::error_code ec, size_t n) {
        set_idle(false);
        if (reaped_) return;
        if (ec) {
            if (ec == beast::error::timeout) shared_.idle_reaped.fetch_add(1);
            close_now();
            return;
        }
        buffer_.commit(n);
        read_header();
    }

    void read_header() {
        parser_.emplace();
        parser_.value().header_limit(static_cast<uint32_t>(shared_.options.max_header_bytes));
        parser_.value().body_limit(shared_.options.max_body_bytes);
        // One deadline for the whole request line and headers, however the bytes trickle in.
        stream_.expires_after(shared_.options.header_timeout);
        http::async_read_header(stream_, buffer_, parser_.value(),
                                [self = shared_from_this()](boost::system::error_code ec, size_t) {
                                    self->on_header(ec);
                                });
    }

    void on_header(boost::system::error_code ec) {
        if (ec == beast::error::timeout) {
            shared_.header_timeouts.fetch_add(1);
            close_now();
            return;
        }
        if (is_disconnect(ec)) {
            close_now();
            return;
        }
        if (ec == http::error::header_limit || ec == http::error::buffer_overflow) {
            refuse(431, "request header fields too large", "header_too_large");
            return;
        }
        if (ec == http::error::body_limit) {
            refuse(413, "request body too large", "payload_too_large");
            return;
        }
        if (ec) {
            refuse(400, "malformed HTTP request", "bad_request");
            return;
        }
        if (!parser_) {
            close_now();
            return;
        }
        auto& request = parser_->get();
        head_ = request.method() == http::verb::head;
        if (request.target().size() > shared_.options.max_target_bytes) {
            refuse(414, "request target too long", "uri_too_long");
            return;
        }
        if (parser_->is_done()) {
            on_complete();
            return;
        }
        const auto expect = request[http::field::expect];
        if (beast::iequals(expect, "100-continue")) {
            stream_.expires_after(shared_.options.write_timeout);
            asio::async_write(
                stream_, asio::buffer(kContinue),
                [self = shared_from_this()](boost::system::error_code write_ec, size_t) {
                    if (write_ec) {
                        self->close_now();
                        return;
                    }
                    self->read_body();
                });
            return;
        }
        read_body();
    }

    void read_body() {
        if (!parser_) {
            close_now();
            return;
        }
        stream_.expires_after(shared_.options.body_timeout);
        http::async_read(stream_, buffer_, *parser_,
                         [self = shared_from_this()](boost::system::error_code ec, size_t) {
                             self->on_body(ec);
                         });
    }

    void on_body(boost::system::error_code ec) {
        if (ec == beast::error::timeout) {
            shared_.body_timeouts.fetch_add(1);
            close_now();
            return;
        }
        if (ec == http::error::body_limit) {
            refuse(413, "request body too large", "payload_too_large");
            return;
        }
        if (is_disconnect(ec)) {
            close_now();
            return;
        }
        if (ec) {
            refuse(400, "malformed HTTP request body", "bad_request");
            return;
        }
        on_complete();
    }

    void on_complete() {
        if (!parser_) {
            close_now();
            return;
        }
        auto& message = parser_->get();
        ++served_;
        close_after_ = !message.keep_alive() || served_ >= shared_.options.keep_alive_requests;
        auto target =
            parse_request_target(std::string_view(message.target().data(), message.target().size()),
                                 shared_.options.repeatable_params);
        if (!target) {
            refuse(400, target.error(), "bad_request");
            return;
        }
        HttpRequest request;
        // HEAD is answered as GET without the body (RFC 9110 §9.3.2), so handlers need not know.
        request.method = head_ ? std::string("GET") : std::string(message.method_string());
        request.path = std::move(target->path);
        request.query = std::move(target->query);
        for (const auto& field : message) {
            request.headers.emplace_back(lowercase(field.name_string()),
                                         std::string(field.value()));
        }
        request.body = std::move(message.body());
        request.remote_ip = ip_;
        parser_.reset();
        shared_.requests.fetch_add(1);
        if (const double wait = shared_.limiter.take(client_); wait > 0) {
            HttpResponse limited = json_error(429, "rate limit exceeded", "rate_limited");
            limited.headers.emplace_back("Retry-After",
                                         std::to_string(static_cast<int64_t>(std::ceil(wait))));
            respond(std::move(limited));
            return;
        }
        request.charge = [limiter = &shared_.limiter, client = client_](double tokens) {
            return limiter->take(client, tokens) == 0;
        };
        asio::post(pool_, [self = shared_from_this(), request = std::move(request)]() mutable {
            HttpResponse response;
            try {
                response = self->shared_.dispatch(request);
            } catch (...) {
                response = json_error(503, "internal failure", "unavailable");
            }
            // Nothing else touches this connection while its handler runs (no read is pending
            // and it is not idle), so the write starts here: one thread hop fewer per request.
            // Its completion runs on the I/O thread.
            self->respond(std::move(response));
        });
    }

    void refuse(int status, std::string_view message, std::string_view code) {
        shared_.bad_requests.fetch_add(1);
        close_after_ = true;
        parser_.reset();
        respond(json_error(status, message, code));
    }

    void respond(HttpResponse answer) {
        if (answer.status == 429) shared_.rate_limited.fetch_add(1);
        response_ = {};
        response_.version(11);
        response_.result(static_cast<unsigned>(answer.status));
        response_.set(http::field::content_type, answer.content_type);
        for (const auto& [name, value] : answer.headers) response_.set(name, value);
        response_.keep_alive(!close_after_);
        if (head_) {
            response_.content_length(answer.body.size());
        } else {
            response_.body() = std::move(answer.body);
            response_.prepare_payload();
        }
        stream_.expires_after(shared_.options.write_timeout);
        http::async_write(stream_, response_,
                          [self = shared_from_this()](boost::system::error_code ec, size_t) {
                              self->on_written(ec);
                          });
    }

    void on_written(boost::system::error_code ec) {
        response_ = {};
        if (ec) {
            close_now();
            return;
        }
        if (close_after_) {
            close_gracefully();
            return;
        }
        head_ = false;
        wait_request();
    }

    /// Sends FIN, then reads and drops what the client still sends for a moment before closing.
    void close_gracefully() {
        boost::system::error_code ignored;
        stream_.socket().shutdown(Tcp::socket::shutdown_send, ignored);
        stream_.expires_after(kDrainTime);
        drain();
    }

    void drain() {
        stream_.async_read_some(
            asio::buffer(drain_buffer_),
            [self = shared_from_this()](boost::system::error_code ec, size_t n) {
                self->drained_ += n;
                if (ec || self->drained_ > kDrainBytes) {
                    self->close_now();
                    return;
                }
                self->drain();
            });
    }

    void close_now() {
        boost::system::error_code ignored;
        stream_.socket().shutdown(Tcp::socket::shutdown_both, ignored);
        stream_.socket().close(ignored);
    }

    static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";

    ConnectionShared& shared_;
    asio::thread_pool& pool_;
    beast::tcp_stream stream_;
    beast::flat_buffer buffer_;
    std::optional<http::request_parser<http::string_body>> parser_;
    http::response<http::string_body> response_;
    std::array<char, 4096> drain_buffer_{};
    std::string ip_;
    std::string client_;  ///< client_key(ip_): what the per-client limits count
    size_t served_ = 0;
    size_t drained_ = 0;
    Clock::time_point idle_since_;
    bool idle_ = false;
    bool reaped_ = false;
    bool head_ = false;
    bool close_after_ = false;
};

ConnectionShared::ConnectionShared(HttpServerOptions o)
    : options(std::move(o)), limiter(options.rate_limit_per_second, options.rate_limit_burst) {}

HttpServerCounters ConnectionShared::snapshot() const noexcept {
    HttpServerCounters c;
    c.connections_accepted = accepted.load();
    c.connections_rejected_per_ip = rejected_per_ip.load();
    c.connections_rejected_total = rejected_total.load();
    c.header_timeouts = header_timeouts.load();
    c.body_timeouts = body_timeouts.load();
    c.idle_reaped = idle_reaped.load();
    c.requests = requests.load();
    c.rate_limited = rate_limited.load();
    c.bad_requests = bad_requests.load();
    c.open_connections = open.load();
    return c;
}

bool ConnectionShared::enter(const std::string& client) {
    const std::lock_guard lock(per_ip_mutex);
    size_t& count = per_ip[client];
    if (count >= options.max_connections_per_ip) {
        if (count == 0) per_ip.erase(client);
        return false;
    }
    ++count;
    return true;
}

void ConnectionShared::leave(const std::string& client) {
    const std::lock_guard lock(per_ip_mutex);
    auto it = per_ip.find(client);
    if (it == per_ip.end()) return;
    if (--it->second == 0) per_ip.erase(it);
}

void admit_connection(ConnectionShared& shared, Tcp::socket socket, asio::thread_pool& pool) {
    boost::system::error_code ec;
    const auto remote = socket.remote_endpoint(ec);
    if (ec) return;  // already gone; the socket closes here
    std::string ip = ip_of(remote);
    if (shared.open.load() >= shared.options.max_connections) {
        // Make room by closing the longest-idle connection; refuse only if none is idle.
        Connection* oldest = nullptr;
        for (Connection* c : shared.idle) {
            if (oldest == nullptr || c->idle_since() < oldest->idle_since()) oldest = c;
        }
        if (oldest == nullptr) {
            shared.rejected_total.fetch_add(1);
            return;
        }
        oldest->reap();
    }
    if (!shared.enter(client_key(ip))) {
        shared.rejected_per_ip.fetch_add(1);
        return;
    }
    shared.accepted.fetch_add(1);
    shared.open.fetch_add(1);
    socket.set_option(Tcp::no_delay(true), ec);
    std::make_shared<Connection>(shared, pool, std::move(socket), std::move(ip))->start();
}

}  // namespace credence::api::detail
