// RFC 6455 framing, pure functions over bytes (no I/O): the client's frame encoder and an
// incremental decoder that turns the server's byte stream into messages.
//
// Invariants (each enforced rule cites its section):
//   - every frame a client sends is masked with a fresh key (§5.3); every frame a server sends
//     is unmasked, and a masked one is a protocol error (§5.1);
//   - RSV1-3 are zero: no extension is ever negotiated (§5.2); unknown opcodes are errors (§5.2);
//   - payload lengths use the minimal encoding and the 64-bit form has its top bit clear (§5.2);
//   - control frames carry at most 125 bytes and are never fragmented (§5.5); they may arrive
//     between the fragments of a data message (§5.4);
//   - a continuation frame only continues a started message, and a new data frame never starts
//     while one is open (§5.4);
//   - a text message is valid UTF-8 (§5.6, §8.1); a close payload is empty or a valid status code
//     (§7.4) followed by a UTF-8 reason (§5.5.1);
//   - a message larger than the decoder's limit is refused as soon as a frame header announces
//     it, before its bytes are buffered (the peer chooses the length: 16 MiB by default).
// An error is sticky: after one, the connection must be failed (§7.1.7).
// Thread-safety: MessageDecoder is a value owned by one reader; the free functions are pure.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <credence/core/bytes.hpp>
#include <credence/core/error.hpp>

namespace credence::chain {

enum class WsError {
    bad_url,    // not a ws:// or wss:// URL
    connect,    // DNS, TCP connect or its timeout
    tls,        // TLS handshake or certificate verification
    handshake,  // the server refused the upgrade (not 101) or answered it wrongly (§4.1)
    protocol,   // a frame or message broke RFC 6455 (§5, §7.4, §8.1)
    too_large,  // a message above the limit
    closed,     // the peer closed the connection (close frame or EOF)
    timeout,    // no progress within the I/O timeout
    io,         // a socket or TLS read/write failed
    rpc,        // JSON-RPC over the socket: an error answer or a malformed message
};

[[nodiscard]] std::string_view to_string(WsError e) noexcept;

template <typename T>
using WsResult = core::Result<T, WsError>;

/// §5.2 opcodes.
enum class WsOpcode : uint8_t {
    continuation = 0x0,
    text = 0x1,
    binary = 0x2,
    close = 0x8,
    ping = 0x9,
    pong = 0xA,
};

[[nodiscard]] constexpr bool is_control(WsOpcode op) noexcept {
    return (static_cast<uint8_t>(op) & 0x8) != 0;
}

/// §5.5: a control frame's payload is at most 125 bytes.
inline constexpr size_t kMaxControlPayload = 125;
/// The default limit on one (reassembled) message.
inline constexpr size_t kDefaultMaxMessage = size_t{16} << 20;

/// One frame as read from the wire (payload already unmasked).
struct WsFrame {
    bool fin = true;
    WsOpcode opcode = WsOpcode::text;
    bool masked = false;
    core::Bytes payload;
};

/// Which side wrote the frames being decoded: a client decodes server frames (never masked,
/// §5.1); a server decodes client frames (always masked). Tests decode the RFC's masked examples.
enum class WsSender : uint8_t { server, client };

/// A client frame (§5.2): FIN set unless `fin` is false, masked with `mask_key` (§5.3: the key
/// must come from a strong random source; the caller supplies it so this stays pure).
[[nodiscard]] core::Bytes encode_client_frame(WsOpcode opcode, core::ByteView payload,
                                              const std::array<uint8_t, 4>& mask_key,
                                              bool fin = true);

/// An unmasked frame as a server writes it (the test servers in this repository, fuzzing).
[[nodiscard]] core::Bytes encode_server_frame(WsOpcode opcode, core::ByteView payload,
                                              bool fin = true);

/// Decodes one frame at the start of `buffer`. nullopt: more bytes are needed; else the frame
/// and, in `consumed`, how many bytes it took. Frames whose announced payload exceeds
/// `max_payload` fail with too_large before the payload has arrived.
[[nodiscard]] WsResult<std::optional<WsFrame>> decode_frame(core::ByteView buffer, WsSender sender,
                                                            size_t max_payload, size_t& consumed);

/// A close frame's payload (§5.5.1): no code (empty payload: 1005 "no status received"
/// for the caller, §7.1.5) or a code and a reason.
struct WsClose {
    std::optional<uint16_t> code;
    std::string reason;
};

/// §7.4.1 / §7.4.2: may `code` appear in a close frame? 1000-1003, 1007-1014 (the IANA
/// registry) and 3000-4999; 1004-1006, 1015 and the rest are reserved or never sent.
[[nodiscard]] bool is_valid_close_code(uint16_t code) noexcept;

/// Parses a close frame's payload: empty, or 2+ bytes of code and a UTF-8 reason.
[[nodiscard]] WsResult<WsClose> parse_close_payload(core::ByteView payload);

/// A close payload: the code in network order and the reason (truncated to fit 125 bytes).
[[nodiscard]] core::Bytes make_close_payload(uint16_t code, std::string_view reason = {});

/// §8.1: strict UTF-8 (no overlongs, surrogates or values above U+10FFFF).
[[nodiscard]] bool is_valid_utf8(core::ByteView bytes) noexcept;

/// A complete message: a reassembled data message or a control frame.
struct WsMessage {
    WsOpcode opcode = WsOpcode::text;  // text, binary, close, ping or pong
    core::Bytes payload;
};

/// The byte stream of one connection in, messages out. feed() what the socket read, then call
/// next() until it returns nullopt (more bytes needed).
class MessageDecoder {
public:
    explicit MessageDecoder(WsSender sender = WsSender::server,
                            size_t max_message = kDefaultMaxMessage)
        : sender_(sender), max_message_(max_message) {}

    void feed(core::ByteView bytes);

    /// The next message, nullopt when incomplete, or the (sticky) protocol error.
    [[nodiscard]] WsResult<std::optional<WsMessage>> next();

    /// Bytes fed but not yet returned as (part of) a message.
    [[nodiscard]] size_t buffered() const noexcept { return buffer_.size() - offset_; }

private:
    WsSender sender_;
    size_t max_message_;
    core::Bytes buffer_;
    size_t offset_ = 0;             // consumed prefix of buffer_
    std::optional<WsOpcode> open_;  // the data message being reassembled (§5.4)
    core::Bytes partial_;
    std::optional<core::Error<WsError>> failed_;
};

}  // namespace credence::chain
