#include <credence/chain/websocket_client.hpp>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>

#include <fmt/core.h>
#include <openssl/err.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

namespace credence::chain {
namespace {

using core::fail;
using Clock = std::chrono::steady_clock;

struct SslFree {
    void operator()(SSL_CTX* ctx) const noexcept { SSL_CTX_free(ctx); }
    void operator()(SSL* ssl) const noexcept { SSL_free(ssl); }
};
using SslCtxPtr = std::unique_ptr<SSL_CTX, SslFree>;
using SslPtr = std::unique_ptr<SSL, SslFree>;

std::string openssl_error() {
    const unsigned long e = ERR_get_error();
    if (e == 0) return "unknown TLS error";
    std::array<char, 256> buf{};
    ERR_error_string_n(e, buf.data(), buf.size());
    ERR_clear_error();
    return buf.data();
}

std::string errno_text(int e) { return std::strerror(e); }  // NOLINT(concurrency-mt-unsafe)

// Writing to a socket the peer closed raises SIGPIPE, and OpenSSL writes with write(2), which
// cannot pass MSG_NOSIGNAL: block the signal on this thread while writing and consume one that
// the write raised (handler.cpp does the same for a command's stdin).
class SigpipeGuard {
public:
    SigpipeGuard() {
        sigemptyset(&set_);
        sigaddset(&set_, SIGPIPE);
        sigset_t pending;
        sigpending(&pending);
        was_pending_ = sigismember(&pending, SIGPIPE) == 1;
        pthread_sigmask(SIG_BLOCK, &set_, &old_);
    }
    ~SigpipeGuard() {
        sigset_t pending;
        sigpending(&pending);
        if (!was_pending_ && sigismember(&pending, SIGPIPE) == 1) {
            const timespec zero{};
            sigtimedwait(&set_, nullptr, &zero);
        }
        pthread_sigmask(SIG_SETMASK, &old_, nullptr);
    }
    SigpipeGuard(const SigpipeGuard&) = delete;
    SigpipeGuard& operator=(const SigpipeGuard&) = delete;
    SigpipeGuard(SigpipeGuard&&) = delete;
    SigpipeGuard& operator=(SigpipeGuard&&) = delete;

private:
    sigset_t set_{};
    sigset_t old_{};
    bool was_pending_ = false;
};

int ms_until(Clock::time_point deadline) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    return static_cast<int>(std::clamp<int64_t>(left.count(), 0, 1'000'000));
}

// Waits for `events` on `fd` until `deadline`. false: the deadline passed.
WsResult<bool> wait_fd(int fd, short events, Clock::time_point deadline) {
    while (true) {
        pollfd p{fd, events, 0};
        const int r = ::poll(&p, 1, ms_until(deadline));
        if (r > 0) return true;
        if (r == 0) return false;
        if (errno != EINTR) return fail(WsError::io, "poll: " + errno_text(errno));
    }
}

std::array<uint8_t, 4> random_mask() {
    std::array<uint8_t, 4> key{};
    // §5.3 / §10.3: the masking key must be unpredictable; RAND_bytes is the CSPRNG at hand.
    if (RAND_bytes(key.data(), static_cast<int>(key.size())) != 1) {
        // Cannot happen with a seeded OpenSSL; never send a predictable key silently.
        std::abort();
    }
    return key;
}

WsResult<int> tcp_connect(const WsUrl& url, Clock::time_point deadline) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    const std::string port = std::to_string(url.port);
    if (const int rc = ::getaddrinfo(url.host.c_str(), port.c_str(), &hints, &found); rc != 0)
        return fail(WsError::connect, fmt::format("{}: {}", url.host, ::gai_strerror(rc)));
    std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> list(found, &::freeaddrinfo);
    std::string last = "no address";
    for (const addrinfo* ai = found; ai != nullptr; ai = ai->ai_next) {
        const int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
                                ai->ai_protocol);
        if (fd < 0) {
            last = errno_text(errno);
            continue;
        }
        int rc = ::connect(fd, ai->ai_addr, ai->ai_addrlen);
        if (rc != 0 && errno == EINPROGRESS) {
            auto ready = wait_fd(fd, POLLOUT, deadline);
            if (!ready || !*ready) {
                ::close(fd);
                if (!ready) return std::unexpected(ready.error());
                return fail(WsError::connect,
                            fmt::format("{}:{}: connect timed out", url.host, url.port));
            }
            int err = 0;
            socklen_t len = sizeof err;
            ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
            rc = err == 0 ? 0 : -1;
            errno = err;
        }
        if (rc == 0) {
            const int one = 1;
            ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            return fd;
        }
        last = errno_text(errno);
        ::close(fd);
    }
    return fail(WsError::connect, fmt::format("{}:{}: {}", url.host, url.port, last));
}

bool is_ip_literal(const std::string& host) {
    std::array<unsigned char, sizeof(in6_addr)> buf{};
    return ::inet_pton(AF_INET, host.c_str(), buf.data()) == 1 ||
           ::inet_pton(AF_INET6, host.c_str(), buf.data()) == 1;
}

}  // namespace

struct WebSocketClient::Impl {
    WsUrl url;
    WsClientOptions options;
    int fd = -1;
    SslCtxPtr ctx;
    SslPtr ssl;
    MessageDecoder decoder;
    bool close_sent = false;
    bool finished = false;  // closed by either side or failed: nothing more is read or sent
    std::atomic<size_t> pongs{0};

    Impl(WsUrl u, WsClientOptions o)
        : url(std::move(u)),
          options(std::move(o)),
          decoder(WsSender::server, options.max_message) {}
    ~Impl() {
        ssl.reset();
        if (fd >= 0) ::close(fd);
    }
    Impl(const Impl&) = delete;
    Impl& operator=(const Impl&) = delete;
    Impl(Impl&&) = delete;
    Impl& operator=(Impl&&) = delete;

    // Reads what is available: >0 bytes; 0 with `want` set when the read would block; an error
    // (closed on EOF).
    WsResult<size_t> read_some(uint8_t* buf, size_t n, short& want) {
        want = 0;
        if (ssl) {
            size_t got = 0;
            ERR_clear_error();
            if (SSL_read_ex(ssl.get(), buf, n, &got) == 1) return got;
            const int e = SSL_get_error(ssl.get(), 0);
            if (e == SSL_ERROR_WANT_READ) {
                want = POLLIN;
                return 0;
            }
            if (e == SSL_ERROR_WANT_WRITE) {
                want = POLLOUT;
                return 0;
            }
            if (e == SSL_ERROR_ZERO_RETURN || (e == SSL_ERROR_SYSCALL && ERR_peek_error() == 0))
                return fail(WsError::closed, "the server closed the connection");
            return fail(WsError::io, "TLS read: " + openssl_error());
        }
        while (true) {
            const ssize_t r = ::recv(fd, buf, n, 0);
            if (r > 0) return static_cast<size_t>(r);
            if (r == 0) return fail(WsError::closed, "the server closed the connection");
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                want = POLLIN;
                return 0;
            }
            if (errno == ECONNRESET || errno == EPIPE || errno == ENOTCONN)
                return fail(WsError::closed, "connection reset: " + errno_text(errno));
            return fail(WsError::io, "recv: " + errno_text(errno));
        }
    }

    WsResult<void> write_all(core::ByteView data, Clock::time_point deadline) {
        const SigpipeGuard guard;
        size_t done = 0;
        while (done < data.size()) {
            short want = POLLOUT;
            if (ssl) {
                size_t wrote = 0;
                ERR_clear_error();
                if (SSL_write_ex(ssl.get(), data.data() + done, data.size() - done, &wrote) == 1) {
                    done += wrote;
                    continue;
                }
                const int e = SSL_get_error(ssl.get(), 0);
                if (e == SSL_ERROR_WANT_READ) {
                    want = POLLIN;
                } else if (e != SSL_ERROR_WANT_WRITE) {
                    finished = true;
                    return fail(WsError::closed, "TLS write: " + openssl_error());
                }
            } else {
                const ssize_t w = ::send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
                if (w > 0) {
                    done += static_cast<size_t>(w);
                    continue;
                }
                if (w < 0 && errno == EINTR) continue;
                if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
                    finished = true;
                    return fail(WsError::closed, "send: " + errno_text(errno));
                }
            }
            auto ready = wait_fd(fd, want, deadline);
            if (!ready) return std::unexpected(ready.error());
            if (!*ready) {
                finished = true;
                return fail(WsError::timeout, "send timed out");
            }
        }
        return {};
    }

    WsResult<void> send_frame(WsOpcode opcode, core::ByteView payload) {
        if (finished || close_sent) return fail(WsError::closed, "the connection is closed");
        // §5.3: a fresh masking key for every frame.
        const auto frame = encode_client_frame(opcode, payload, random_mask());
        return write_all(frame, Clock::now() + options.io_timeout);
    }

    // §7.1.7: fail the connection, telling the server why when we still can.
    std::unexpected<core::Error<WsError>> fail_connection(const core::Error<WsError>& error) {
        if (!finished && !close_sent &&
            (error.code == WsError::protocol || error.code == WsError::too_large)) {
            uint16_t code = 1002;                                              // protocol error
            if (error.code == WsError::too_large) code = 1009;                 // message too big
            if (error.detail.find("UTF-8") != std::string::npos) code = 1007;  // invalid data
            // Best effort: the connection is failed whether or not the frame goes out.
            close_sent = send_frame(WsOpcode::close, make_close_payload(code)).has_value();
        }
        finished = true;
        return std::unexpected(error);
    }

    WsResult<std::optional<WsMessage>> receive(std::chrono::milliseconds timeout) {
        const auto deadline = Clock::now() + timeout;
        std::array<uint8_t, 16384> buf{};
        while (true) {
            if (finished) return fail(WsError::closed, "the connection is closed");
            auto message = decoder.next();
            if (!message) return fail_connection(message.error());
            if (std::optional<WsMessage>& ready = *message; ready) {
                WsMessage& m = *ready;
                switch (m.opcode) {
                    case WsOpcode::ping:
                        // §5.5.2: answer with a pong carrying the ping's payload.
                        if (auto r = send_frame(WsOpcode::pong, m.payload); !r)
                            return std::unexpected(r.error());
                        ++pongs;
                        continue;
                    case WsOpcode::close: {
                        // §5.5.1: answer a close with a close (echoing its code), then the
                        // server closes TCP (§7.1.1).
                        const auto parsed = parse_close_payload(m.payload);
                        uint16_t code = 1000;  // echoed when the server sent none (§5.5.1)
                        std::string detail = "the server closed the WebSocket";
                        if (parsed && parsed->code.has_value()) {
                            code = parsed->code.value_or(code);
                            detail += fmt::format(" (code {}", code);
                            if (!parsed->reason.empty()) detail += ": " + parsed->reason;
                            detail += ")";
                        }
                        if (!close_sent) {
                            // Best effort: the server may be gone already.
                            close_sent =
                                send_frame(WsOpcode::close, make_close_payload(code)).has_value();
                        }
                        finished = true;
                        return fail(WsError::closed, std::move(detail));
                    }
                    default:
                        return std::move(m);
                }
            }
            short want = 0;
            auto n = read_some(buf.data(), buf.size(), want);
            if (!n) {
                finished = true;
                return std::unexpected(n.error());
            }
            if (*n > 0) {
                decoder.feed(core::ByteView(buf.data(), *n));
                continue;
            }
            auto ready = wait_fd(fd, want, deadline);
            if (!ready) return std::unexpected(ready.error());
            if (!*ready) return std::nullopt;
        }
    }

    WsResult<void> tls_handshake(Clock::time_point deadline) {
        ctx.reset(SSL_CTX_new(TLS_client_method()));
        if (!ctx) return fail(WsError::tls, openssl_error());
        SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
        SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
        // The same trust as the project's HTTPS fetches: the system store, plus a CA file.
        if (SSL_CTX_set_default_verify_paths(ctx.get()) != 1)
            return fail(WsError::tls, "system trust store: " + openssl_error());
        if (!options.ca_file.empty() &&
            SSL_CTX_load_verify_locations(ctx.get(), options.ca_file.c_str(), nullptr) != 1)
            return fail(WsError::tls,
                        fmt::format("CA file {}: {}", options.ca_file, openssl_error()));
        ssl.reset(SSL_new(ctx.get()));
        if (!ssl || SSL_set_fd(ssl.get(), fd) != 1) return fail(WsError::tls, openssl_error());
        // The certificate must name the host we asked for (RFC 6125): a DNS name or an IP.
        X509_VERIFY_PARAM* param = SSL_get0_param(ssl.get());
        if (is_ip_literal(url.host)) {
            if (X509_VERIFY_PARAM_set1_ip_asc(param, url.host.c_str()) != 1)
                return fail(WsError::tls, "bad IP for verification");
        } else {
            X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
            if (X509_VERIFY_PARAM_set1_host(param, url.host.c_str(), 0) != 1 ||
                // SNI; SSL_set_tlsext_host_name is this call behind a C cast.
                SSL_ctrl(ssl.get(), SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
                         const_cast<char*>(url.host.c_str())) != 1)
                return fail(WsError::tls, "bad host name for verification");
        }
        while (true) {
            ERR_clear_error();
            const int r = SSL_connect(ssl.get());
            if (r == 1) return {};
            const int e = SSL_get_error(ssl.get(), r);
            short want = 0;
            if (e == SSL_ERROR_WANT_READ) {
                want = POLLIN;
            } else if (e == SSL_ERROR_WANT_WRITE) {
                want = POLLOUT;
            } else {
                const long verify = SSL_get_verify_result(ssl.get());
                if (verify != X509_V_OK)
                    return fail(WsError::tls, fmt::format("certificate of {}: {}", url.host,
                                                          X509_verify_cert_error_string(verify)));
                return fail(WsError::tls,
                            fmt::format("TLS handshake with {}: {}", url.host, openssl_error()));
            }
            auto ready = wait_fd(fd, want, deadline);
            if (!ready) return std::unexpected(ready.error());
            if (!*ready) return fail(WsError::timeout, "TLS handshake timed out");
        }
    }

    WsResult<void> upgrade(Clock::time_point deadline) {
        std::array<uint8_t, 16> nonce{};
        // §4.1: the nonce MUST be randomly selected for each connection.
        if (RAND_bytes(nonce.data(), static_cast<int>(nonce.size())) != 1)
            return fail(WsError::connect, "no random bytes for Sec-WebSocket-Key");
        const std::string key = websocket_key(nonce);
        const std::string request = upgrade_request(url, key);
        if (auto w = write_all(core::as_bytes(request), deadline); !w) {
            auto e = w.error();
            e.code = e.code == WsError::timeout ? WsError::timeout : WsError::handshake;
            e.detail = "sending the upgrade request: " + e.detail;
            return std::unexpected(e);
        }
        std::string received;
        std::array<uint8_t, 4096> buf{};
        while (true) {
            short want = 0;
            auto n = read_some(buf.data(), buf.size(), want);
            if (!n) {
                // A node that closes instead of answering the upgrade does not offer WebSocket.
                return fail(WsError::handshake, "no answer to the upgrade: " + n.error().detail);
            }
            if (*n > 0) {
                // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): bytes as chars
                received.append(reinterpret_cast<const char*>(buf.data()), *n);
                auto checked = check_upgrade_response(received, key);
                if (!checked) return std::unexpected(checked.error());
                if (const std::optional<size_t>& head = *checked; head) {
                    // Frames the server sent right after its 101 are already here.
                    decoder.feed(core::as_bytes(std::string_view(received).substr(*head)));
                    return {};
                }
                continue;
            }
            auto ready = wait_fd(fd, want, deadline);
            if (!ready) return std::unexpected(ready.error());
            if (!*ready) return fail(WsError::timeout, "no answer to the upgrade in time");
        }
    }
};

WebSocketClient::WebSocketClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
WebSocketClient::~WebSocketClient() = default;

WsResult<std::unique_ptr<WebSocketClient>> WebSocketClient::connect(
    std::string_view url, const WsClientOptions& options) {
    auto parsed = parse_ws_url(url);
    if (!parsed) return std::unexpected(parsed.error());
    auto impl = std::make_unique<Impl>(std::move(*parsed), options);
    const auto deadline = Clock::now() + options.connect_timeout;
    auto fd = tcp_connect(impl->url, deadline);
    if (!fd) return std::unexpected(fd.error());
    impl->fd = *fd;
    if (impl->url.tls) {
        if (auto r = impl->tls_handshake(deadline); !r) return std::unexpected(r.error());
    }
    if (auto r = impl->upgrade(deadline); !r) return std::unexpected(r.error());
    return std::unique_ptr<WebSocketClient>(new WebSocketClient(std::move(impl)));
}

WsResult<void> WebSocketClient::send_text(std::string_view text) {
    return impl_->send_frame(WsOpcode::text, core::as_bytes(text));
}

WsResult<void> WebSocketClient::send_ping(core::ByteView payload) {
    if (payload.size() > kMaxControlPayload)
        return fail(WsError::protocol, "a ping carries at most 125 bytes");
    return impl_->send_frame(WsOpcode::ping, payload);
}

WsResult<std::optional<WsMessage>> WebSocketClient::receive(std::chrono::milliseconds timeout) {
    return impl_->receive(timeout);
}

void WebSocketClient::close(uint16_t code, std::chrono::milliseconds timeout) {
    Impl& s = *impl_;
    if (!s.finished && !s.close_sent) {
        // §7.1.2: send a close frame, then wait for the server's close frame (§7.1.1: the server
        // then closes TCP first). Messages still in flight are dropped.
        if (s.send_frame(WsOpcode::close, make_close_payload(code))) {
            s.close_sent = true;
            const auto deadline = Clock::now() + timeout;
            while (Clock::now() < deadline) {
                auto m = s.receive(std::chrono::milliseconds(ms_until(deadline)));
                if (!m || !*m) break;
            }
        }
    }
    s.finished = true;
    if (s.ssl) {
        const SigpipeGuard guard;
        SSL_shutdown(s.ssl.get());  // best effort close_notify
    }
    if (s.fd >= 0) ::shutdown(s.fd, SHUT_RDWR);
}

void WebSocketClient::interrupt() noexcept {
    if (impl_->fd >= 0) ::shutdown(impl_->fd, SHUT_RDWR);
}

const WsUrl& WebSocketClient::url() const noexcept { return impl_->url; }

size_t WebSocketClient::pongs_sent() const noexcept { return impl_->pongs.load(); }

}  // namespace credence::chain
