// RFC 6455 opening handshake, pure functions (no I/O): ws:// and wss:// URLs (§3), the client's
// upgrade request (§4.1), and the check of the server's answer (§4.1 steps 1-6, §4.2.2).
//
// Invariants:
//   - the URL has no fragment (§3) and no userinfo; the port defaults to 80 / 443;
//   - the request carries a fresh 16-byte Sec-WebSocket-Key (base64) and asks for version 13,
//     no subprotocol and no extension;
//   - the answer is accepted only when it is "HTTP/1.1 101", has Upgrade: websocket and a
//     Connection header with the "Upgrade" token, Sec-WebSocket-Accept equal to
//     base64(SHA-1(key + GUID)), and neither an extension nor a subprotocol (we asked for none);
//   - a response head above 16 KiB is refused (the server chooses its size).
// Thread-safety: pure functions.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <credence/chain/websocket_frame.hpp>

namespace credence::chain {

/// A parsed ws:// or wss:// URL.
struct WsUrl {
    bool tls = false;         // wss://
    std::string host;         // as written, without IPv6 brackets
    uint16_t port = 0;        // explicit or 80 / 443
    std::string target;       // path and query, "/" when empty (§4.1: the request-target)
    std::string host_header;  // host[:port] as the Host header carries it
};

/// Parses `url` (§3). Errors name what is wrong.
[[nodiscard]] WsResult<WsUrl> parse_ws_url(std::string_view url);

/// The WebSocket URL of a JSON-RPC node from its HTTP URL: http:// -> ws://, https:// -> wss://,
/// same host, port and path (anvil, geth, reth and most providers serve both on one endpoint).
/// nullopt for any other scheme.
[[nodiscard]] std::optional<std::string> websocket_url_for(std::string_view http_url);

/// The base64 form of a 16-byte nonce (§4.1: Sec-WebSocket-Key).
[[nodiscard]] std::string websocket_key(const std::array<uint8_t, 16>& nonce);

/// base64(SHA-1(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11")) (§1.3, §4.2.2 step 5.4).
[[nodiscard]] std::string websocket_accept(std::string_view key);

/// The GET request that asks `url` to upgrade (§4.1), `key` from websocket_key().
[[nodiscard]] std::string upgrade_request(const WsUrl& url, std::string_view key);

/// Largest response head accepted.
inline constexpr size_t kMaxHandshakeResponse = 16 * 1024;

/// Checks the server's answer to a request made with `key`. `received` is what the socket gave
/// so far. nullopt: the head (up to CRLF CRLF) is not complete yet; else the head's length (the
/// bytes after it already belong to the frame stream). A status other than 101 is `handshake`
/// with the status in the detail.
[[nodiscard]] WsResult<std::optional<size_t>> check_upgrade_response(std::string_view received,
                                                                     std::string_view key);

}  // namespace credence::chain
