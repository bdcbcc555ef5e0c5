// libFuzzer target for RFC 6455 framing (chain/websocket_frame.hpp): the bytes a WebSocket
// server sends are untrusted (eth_subscribe notifications come from the node).
//
// Checks: MessageDecoder never crashes or hangs, however the input is split into reads (the first
// byte picks the read size); every message it returns obeys the RFC (control frames of at most
// 125 bytes, §5.5; text is UTF-8, §8.1; close payloads parse, §5.5.1) and no message is larger
// than the limit or than the input; an error is sticky (§7.1.7). The encoder round-trips: a
// client frame decodes (as a server would) to its payload, a server frame likewise.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>

#include <credence/chain/websocket_frame.hpp>

using namespace credence;

namespace {

constexpr size_t kLimit = 4096;

void check_decoder(const uint8_t* data, size_t size) {
    if (size == 0) return;
    const size_t chunk = 1 + data[0] % 64;
    chain::MessageDecoder decoder(chain::WsSender::server, kLimit);
    size_t total = 0;
    bool failed = false;
    for (size_t at = 1; at < size && !failed; at += chunk) {
        decoder.feed(core::ByteView(data + at, std::min(chunk, size - at)));
        while (true) {
            auto m = decoder.next();
            if (!m) {
                failed = true;
                if (decoder.next()) std::abort();  // sticky
                break;
            }
            if (!*m) break;
            const chain::WsMessage& msg = **m;
            total += msg.payload.size();
            if (msg.payload.size() > kLimit || total > size) std::abort();
            if (chain::is_control(msg.opcode) && msg.payload.size() > chain::kMaxControlPayload)
                std::abort();
            if (msg.opcode == chain::WsOpcode::continuation) std::abort();
            if (msg.opcode == chain::WsOpcode::text && !chain::is_valid_utf8(msg.payload))
                std::abort();
            if (msg.opcode == chain::WsOpcode::close) {
                auto c = chain::parse_close_payload(msg.payload);
                if (!c) std::abort();
                if (c->code && !chain::is_valid_close_code(*c->code)) std::abort();
            }
        }
    }
}

void check_round_trip(const uint8_t* data, size_t size) {
    if (size < 5) return;
    const std::array<uint8_t, 4> key{data[0], data[1], data[2], data[3]};
    const core::ByteView payload(data + 4, size - 4);
    const auto client = chain::encode_client_frame(chain::WsOpcode::binary, payload, key);
    size_t consumed = 0;
    auto f = chain::decode_frame(client, chain::WsSender::client, size, consumed);
    if (!f || !*f || consumed != client.size() || !(*f)->masked ||
        !std::equal(payload.begin(), payload.end(), (*f)->payload.begin(), (*f)->payload.end()))
        std::abort();
    const auto server = chain::encode_server_frame(chain::WsOpcode::binary, payload);
    f = chain::decode_frame(server, chain::WsSender::server, size, consumed);
    if (!f || !*f || consumed != server.size() || (*f)->masked ||
        !std::equal(payload.begin(), payload.end(), (*f)->payload.begin(), (*f)->payload.end()))
        std::abort();
    // Any strict prefix is incomplete, never an error.
    for (size_t cut : {size_t{0}, size_t{1}, server.size() / 2, server.size() - 1}) {
        auto partial = chain::decode_frame(core::ByteView(server.data(), cut),
                                           chain::WsSender::server, size, consumed);
        if (!partial || *partial) std::abort();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    check_decoder(data, size);
    check_round_trip(data, size);
    return 0;
}
