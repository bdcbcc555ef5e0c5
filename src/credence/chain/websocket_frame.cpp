#include <credence/chain/websocket_frame.hpp>

#include <algorithm>

#include <fmt/core.h>

namespace credence::chain {

std::string_view to_string(WsError e) noexcept {
    switch (e) {
        case WsError::bad_url:
            return "bad_url";
        case WsError::connect:
            return "connect";
        case WsError::tls:
            return "tls";
        case WsError::handshake:
            return "handshake";
        case WsError::protocol:
            return "protocol";
        case WsError::too_large:
            return "too_large";
        case WsError::closed:
            return "closed";
        case WsError::timeout:
            return "timeout";
        case WsError::io:
            return "io";
        case WsError::rpc:
            return "rpc";
    }
    return "unknown";
}

namespace {

using core::fail;

bool known_opcode(uint8_t op) noexcept { return op <= 0x2 || (op >= 0x8 && op <= 0xA); }

core::Bytes encode_frame(WsOpcode opcode, core::ByteView payload,
                         const std::array<uint8_t, 4>* mask_key, bool fin) {
    core::Bytes out;
    out.reserve(payload.size() + 14);
    out.push_back(static_cast<uint8_t>((fin ? 0x80 : 0x00) | static_cast<uint8_t>(opcode)));
    const uint8_t mask_bit = mask_key ? 0x80 : 0x00;
    // §5.2: 7-bit length up to 125, else 126 + 16-bit or 127 + 64-bit, network byte order.
    if (payload.size() <= 125) {
        out.push_back(static_cast<uint8_t>(mask_bit | payload.size()));
    } else if (payload.size() <= 0xFFFF) {
        out.push_back(mask_bit | 126);
        out.push_back(static_cast<uint8_t>(payload.size() >> 8));
        out.push_back(static_cast<uint8_t>(payload.size()));
    } else {
        out.push_back(mask_bit | 127);
        const auto n = static_cast<uint64_t>(payload.size());
        for (int shift = 56; shift >= 0; shift -= 8)
            out.push_back(static_cast<uint8_t>(n >> shift));
    }
    if (!mask_key) {
        out.insert(out.end(), payload.begin(), payload.end());
        return out;
    }
    out.insert(out.end(), mask_key->begin(), mask_key->end());
    // §5.3: transformed-octet-i = original-octet-i XOR masking-key-octet-(i MOD 4).
    for (size_t i = 0; i < payload.size(); ++i) out.push_back(payload[i] ^ (*mask_key)[i % 4]);
    return out;
}

}  // namespace

core::Bytes encode_client_frame(WsOpcode opcode, core::ByteView payload,
                                const std::array<uint8_t, 4>& mask_key, bool fin) {
    return encode_frame(opcode, payload, &mask_key, fin);
}

core::Bytes encode_server_frame(WsOpcode opcode, core::ByteView payload, bool fin) {
    return encode_frame(opcode, payload, nullptr, fin);
}

WsResult<std::optional<WsFrame>> decode_frame(core::ByteView buffer, WsSender sender,
                                              size_t max_payload, size_t& consumed) {
    consumed = 0;
    if (buffer.size() < 2) return std::nullopt;
    const uint8_t b0 = buffer[0];
    const uint8_t b1 = buffer[1];
    // §5.2: RSV1-3 MUST be 0 unless an extension defines them; we negotiate none.
    if ((b0 & 0x70) != 0)
        return fail(WsError::protocol, "reserved bits set without a negotiated extension");
    const uint8_t op = b0 & 0x0F;
    if (!known_opcode(op)) return fail(WsError::protocol, fmt::format("unknown opcode {:#x}", op));
    WsFrame frame;
    frame.fin = (b0 & 0x80) != 0;
    frame.opcode = static_cast<WsOpcode>(op);
    frame.masked = (b1 & 0x80) != 0;
    // §5.1: a server MUST NOT mask; a client MUST mask.
    if (sender == WsSender::server && frame.masked)
        return fail(WsError::protocol, "masked frame from the server");
    if (sender == WsSender::client && !frame.masked)
        return fail(WsError::protocol, "unmasked frame from the client");
    size_t pos = 2;
    uint64_t length = b1 & 0x7F;
    if (length == 126) {
        if (buffer.size() < 4) return std::nullopt;
        length = (uint64_t{buffer[2]} << 8) | buffer[3];
        pos = 4;
        // §5.2: "the minimal number of bytes MUST be used to encode the length".
        if (length < 126) return fail(WsError::protocol, "16-bit length below 126");
    } else if (length == 127) {
        if (buffer.size() < 10) return std::nullopt;
        length = 0;
        for (size_t i = 2; i < 10; ++i) length = (length << 8) | buffer[i];
        pos = 10;
        // §5.2: the most significant bit of the 64-bit length MUST be 0.
        if ((length >> 63) != 0)
            return fail(WsError::protocol, "64-bit length with its top bit set");
        if (length <= 0xFFFF) return fail(WsError::protocol, "64-bit length below 65536");
    }
    if (is_control(frame.opcode)) {
        // §5.5: control frames have payloads of 125 bytes or less and MUST NOT be fragmented.
        if (length > kMaxControlPayload)
            return fail(WsError::protocol, fmt::format("control frame of {} bytes", length));
        if (!frame.fin) return fail(WsError::protocol, "fragmented control frame");
    }
    if (length > max_payload)
        return fail(WsError::too_large,
                    fmt::format("frame of {} bytes, above the limit of {}", length, max_payload));
    std::array<uint8_t, 4> key{};
    if (frame.masked) {
        if (buffer.size() < pos + 4) return std::nullopt;
        for (size_t i = 0; i < 4; ++i) key[i] = buffer[pos + i];
        pos += 4;
    }
    if (buffer.size() - pos < length) return std::nullopt;
    const auto n = static_cast<size_t>(length);
    frame.payload.assign(buffer.begin() + static_cast<std::ptrdiff_t>(pos),
                         buffer.begin() + static_cast<std::ptrdiff_t>(pos + n));
    if (frame.masked)
        for (size_t i = 0; i < n; ++i) frame.payload[i] ^= key[i % 4];
    consumed = pos + n;
    return frame;
}

bool is_valid_close_code(uint16_t code) noexcept {
    // §7.4.1: 1004 reserved; 1005, 1006 and 1015 MUST NOT be sent in a close frame. §7.4.2:
    // 0-999 unused, 1000-2999 for this protocol and its extensions (registered: up to 1014),
    // 3000-3999 registered libraries, 4000-4999 private use.
    if (code >= 1000 && code <= 1003) return true;
    if (code >= 1007 && code <= 1014) return true;
    return code >= 3000 && code <= 4999;
}

WsResult<WsClose> parse_close_payload(core::ByteView payload) {
    WsClose close;
    if (payload.empty()) return close;
    // §5.5.1: if there is a body, its first two bytes are the status code.
    if (payload.size() == 1) return fail(WsError::protocol, "close payload of one byte");
    const auto code = static_cast<uint16_t>((payload[0] << 8) | payload[1]);
    if (!is_valid_close_code(code))
        return fail(WsError::protocol, fmt::format("invalid close code {}", code));
    const auto reason = payload.subspan(2);
    if (!is_valid_utf8(reason)) return fail(WsError::protocol, "close reason is not UTF-8");
    close.code = code;
    close.reason.assign(reason.begin(), reason.end());
    return close;
}

core::Bytes make_close_payload(uint16_t code, std::string_view reason) {
    // Keep the frame a valid control frame (§5.5) without cutting a UTF-8 sequence in two.
    size_t n = std::min(reason.size(), kMaxControlPayload - 2);
    while (n > 0 && n < reason.size() && (static_cast<uint8_t>(reason[n]) & 0xC0) == 0x80) --n;
    core::Bytes out;
    out.reserve(2 + n);
    out.push_back(static_cast<uint8_t>(code >> 8));
    out.push_back(static_cast<uint8_t>(code));
    for (size_t i = 0; i < n; ++i) out.push_back(static_cast<uint8_t>(reason[i]));
    return out;
}

bool is_valid_utf8(core::ByteView s) noexcept {
    // Unicode Table 3-7 (well-formed UTF-8 byte sequences).
    size_t i = 0;
    while (i < s.size()) {
        const uint8_t c = s[i];
        if (c < 0x80) {
            ++i;
            continue;
        }
        size_t len = 0;
        uint8_t lo = 0x80;
        uint8_t hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF) {
            len = 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            len = 3;
            if (c == 0xE0) lo = 0xA0;  // no overlongs
            if (c == 0xED) hi = 0x9F;  // no surrogates
        } else if (c >= 0xF0 && c <= 0xF4) {
            len = 4;
            if (c == 0xF0) lo = 0x90;  // no overlongs
            if (c == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
        } else {
            return false;
        }
        if (s.size() - i < len) return false;
        if (s[i + 1] < lo || s[i + 1] > hi) return false;
        for (size_t k = 2; k < len; ++k)
            if (s[i + k] < 0x80 || s[i + k] > 0xBF) return false;
        i += len;
    }
    return true;
}

void MessageDecoder::feed(core::ByteView bytes) {
    // Drop the consumed prefix before growing, so the buffer holds at most one frame's worth.
    if (offset_ > 0 && offset_ == buffer_.size()) {
        buffer_.clear();
        offset_ = 0;
    } else if (offset_ > 65536 && offset_ * 2 > buffer_.size()) {
        buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(offset_));
        offset_ = 0;
    }
    buffer_.insert(buffer_.end(), bytes.begin(), bytes.end());
}

WsResult<std::optional<WsMessage>> MessageDecoder::next() {
    if (failed_) return std::unexpected(*failed_);
    auto failed = [this](WsError code,
                         std::string detail) -> std::unexpected<core::Error<WsError>> {
        failed_ = core::Error<WsError>{code, std::move(detail)};
        return std::unexpected(*failed_);
    };
    while (true) {
        size_t consumed = 0;
        // A data frame may only bring the message up to the limit.
        const size_t room = open_ ? max_message_ - partial_.size() : max_message_;
        const core::ByteView rest(buffer_.data() + offset_, buffer_.size() - offset_);
        auto frame = decode_frame(rest, sender_, std::max(room, kMaxControlPayload), consumed);
        if (!frame) {
            auto detail = frame.error().detail;
            if (frame.error().code == WsError::too_large)
                detail =
                    fmt::format("message above the limit of {} bytes ({})", max_message_, detail);
            return failed(frame.error().code, std::move(detail));
        }
        std::optional<WsFrame>& maybe = *frame;
        if (!maybe) return std::nullopt;
        offset_ += consumed;
        WsFrame& f = *maybe;
        if (is_control(f.opcode)) {
            // §5.4: control frames MAY be injected in the middle of a fragmented message.
            if (f.opcode == WsOpcode::close) {
                if (auto c = parse_close_payload(f.payload); !c)
                    return failed(c.error().code, c.error().detail);
            }
            return WsMessage{f.opcode, std::move(f.payload)};
        }
        if (!is_control(f.opcode) && f.payload.size() > room)
            return failed(WsError::too_large,
                          fmt::format("message above the limit of {} bytes", max_message_));
        if (f.opcode == WsOpcode::continuation) {
            // §5.4: a continuation frame continues a started fragmented message, nothing else.
            if (!open_) return failed(WsError::protocol, "continuation frame without a message");
            partial_.insert(partial_.end(), f.payload.begin(), f.payload.end());
        } else {
            // §5.4: fragments of one message are not interleaved with another data message.
            if (open_)
                return failed(WsError::protocol, "new data frame inside a fragmented message");
            open_ = f.opcode;
            partial_ = std::move(f.payload);
        }
        if (!f.fin) continue;
        WsMessage message{open_.value_or(WsOpcode::binary), std::move(partial_)};
        open_.reset();
        partial_ = {};
        // §5.6 / §8.1: a text message that is not valid UTF-8 fails the connection.
        if (message.opcode == WsOpcode::text && !is_valid_utf8(message.payload))
            return failed(WsError::protocol, "text message is not valid UTF-8");
        return message;
    }
}

}  // namespace credence::chain
