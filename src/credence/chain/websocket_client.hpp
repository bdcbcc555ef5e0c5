// A blocking RFC 6455 client over POSIX sockets, with TLS for wss:// (OpenSSL, peer and host name
// verified against the system trust store plus an optional CA file).
//
// Invariants: every frame sent is masked with a key from the CSPRNG (§5.3, §10.3); pings are
// answered with a pong carrying the same payload (§5.5.2, §5.5.3); a close frame from the server
// is answered with a close frame and ends the connection (§5.5.1, §7.1.2); any protocol error
// from the frame decoder fails the connection with close code 1002 (or 1009 for a message above
// the limit, 1007 for bad UTF-8 text) before the error is returned (§7.1.7). Connecting and every
// read and write have deadlines (poll(), non-blocking sockets), so no call blocks forever; name
// resolution (getaddrinfo) is the one step without a deadline of our own.
//
// Thread-safety: one thread uses a client (connect, send, receive, close). interrupt() is the
// one call that may come from another thread: it shuts the socket down so that a blocked
// receive() returns `closed` at once.
// Ownership: the client owns its socket and TLS session; the destructor closes them without a
// close handshake (call close() first for a clean one).
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <credence/chain/websocket_frame.hpp>
#include <credence/chain/websocket_handshake.hpp>

namespace credence::chain {

struct WsClientOptions {
    std::chrono::milliseconds connect_timeout{5'000};  // TCP connect, TLS and the upgrade
    std::chrono::milliseconds io_timeout{10'000};      // each send
    size_t max_message = kDefaultMaxMessage;
    /// wss://: a PEM file of extra trust anchors (a private CA); empty: the system store only.
    std::string ca_file;
};

class WebSocketClient {
public:
    /// Connects to `url` (ws:// or wss://) and completes the opening handshake (§4.1).
    [[nodiscard]] static WsResult<std::unique_ptr<WebSocketClient>> connect(
        std::string_view url, const WsClientOptions& options = {});

    ~WebSocketClient();
    WebSocketClient(const WebSocketClient&) = delete;
    WebSocketClient& operator=(const WebSocketClient&) = delete;
    WebSocketClient(WebSocketClient&&) = delete;
    WebSocketClient& operator=(WebSocketClient&&) = delete;

    [[nodiscard]] WsResult<void> send_text(std::string_view text);
    [[nodiscard]] WsResult<void> send_ping(core::ByteView payload = {});

    /// The next text, binary or pong message within `timeout`; nullopt when none came. Pings are
    /// answered on the way. A close from the server is answered and returned as `closed` (its
    /// code and reason in the detail), as is EOF.
    [[nodiscard]] WsResult<std::optional<WsMessage>> receive(std::chrono::milliseconds timeout);

    /// The close handshake (§7.1.2): sends a close frame with `code`, waits up to `timeout` for
    /// the server's, then closes the TCP connection. Safe to call more than once.
    void close(uint16_t code = 1000, std::chrono::milliseconds timeout = std::chrono::seconds(1));

    /// From any thread: shuts the socket down so a blocked receive() returns.
    void interrupt() noexcept;

    [[nodiscard]] const WsUrl& url() const noexcept;
    /// Pings the server sent that were answered.
    [[nodiscard]] size_t pongs_sent() const noexcept;

private:
    struct Impl;
    explicit WebSocketClient(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace credence::chain
