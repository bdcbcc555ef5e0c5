// RFC 6455 framing against the RFC's own examples (§5.7, typed in from the RFC text, not made by
// our encoder) and every error path of the decoder.
#include <credence/chain/websocket_frame.hpp>

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace credence::chain {
namespace {

using core::Bytes;
using core::literals::operator""_hex;

std::string text(const Bytes& b) { return {b.begin(), b.end()}; }

// Decodes all of `wire` (server frames unless said otherwise) into messages.
std::vector<WsMessage> decode_all(const Bytes& wire, WsSender sender = WsSender::server) {
    MessageDecoder d(sender);
    d.feed(wire);
    std::vector<WsMessage> out;
    while (true) {
        auto m = d.next();
        EXPECT_TRUE(m) << m.error().detail;
        if (!m || !*m) break;
        out.push_back(std::move(**m));
    }
    return out;
}

core::Error<WsError> decode_error(const Bytes& wire, WsSender sender = WsSender::server,
                                  size_t max = kDefaultMaxMessage) {
    MessageDecoder d(sender, max);
    d.feed(wire);
    while (true) {
        auto m = d.next();
        if (!m) return m.error();
        if (!*m) break;
    }
    ADD_FAILURE() << "no error";
    return {WsError::io, ""};
}

// §5.7: "A single-frame unmasked text message  0x81 0x05 0x48 0x65 0x6c 0x6c 0x6f (contains
// "Hello")".
TEST(chain_websocket_frame, rfc_5_7_unmasked_hello) {
    const auto m = decode_all("810548656c6c6f"_hex);
    ASSERT_EQ(m.size(), 1u);
    EXPECT_EQ(m[0].opcode, WsOpcode::text);
    EXPECT_EQ(text(m[0].payload), "Hello");
    EXPECT_EQ(encode_server_frame(WsOpcode::text, core::as_bytes(std::string_view("Hello"))),
              "810548656c6c6f"_hex);
}

// §5.7: "A single-frame masked text message  0x81 0x85 0x37 0xfa 0x21 0x3d 0x7f 0x9f 0x4d 0x51
// 0x58 (contains "Hello")".
TEST(chain_websocket_frame, rfc_5_7_masked_hello_encodes_and_decodes) {
    const Bytes rfc = "818537fa213d7f9f4d5158"_hex;
    EXPECT_EQ(encode_client_frame(WsOpcode::text, core::as_bytes(std::string_view("Hello")),
                                  {0x37, 0xfa, 0x21, 0x3d}),
              rfc);
    const auto m = decode_all(rfc, WsSender::client);
    ASSERT_EQ(m.size(), 1u);
    EXPECT_EQ(text(m[0].payload), "Hello");
}

// §5.7: "A fragmented unmasked text message  0x01 0x03 0x48 0x65 0x6c (contains "Hel")
// 0x80 0x02 0x6c 0x6f (contains "lo")".
TEST(chain_websocket_frame, rfc_5_7_fragmented_message_reassembles) {
    const auto m = decode_all("010348656c80026c6f"_hex);
    ASSERT_EQ(m.size(), 1u);
    EXPECT_EQ(m[0].opcode, WsOpcode::text);
    EXPECT_EQ(text(m[0].payload), "Hello");
}

// §5.7: "Unmasked Ping request and masked Ping response  0x89 0x05 0x48 0x65 0x6c 0x6c 0x6f
// (contains a body of "Hello", but the contents of the body are arbitrary)  0x8a 0x85 0x37 0xfa
// 0x21 0x3d 0x7f 0x9f 0x4d 0x51 0x58".
TEST(chain_websocket_frame, rfc_5_7_ping_and_masked_pong) {
    const auto m = decode_all("890548656c6c6f"_hex);
    ASSERT_EQ(m.size(), 1u);
    EXPECT_EQ(m[0].opcode, WsOpcode::ping);
    EXPECT_EQ(encode_client_frame(WsOpcode::pong, m[0].payload, {0x37, 0xfa, 0x21, 0x3d}),
              "8a8537fa213d7f9f4d5158"_hex);
}

// §5.7: "256 bytes binary message in a single unmasked frame  0x82 0x7E 0x0100 [256 bytes]" and
// "64KiB binary message in a single unmasked frame  0x82 0x7F 0x0000000000010000 [65536 bytes]".
TEST(chain_websocket_frame, rfc_5_7_16_and_64_bit_lengths) {
    Bytes wire = "827e0100"_hex;
    wire.resize(wire.size() + 256, 0xab);
    auto m = decode_all(wire);
    ASSERT_EQ(m.size(), 1u);
    EXPECT_EQ(m[0].opcode, WsOpcode::binary);
    EXPECT_EQ(m[0].payload, Bytes(256, 0xab));
    EXPECT_EQ(encode_server_frame(WsOpcode::binary, Bytes(256, 0xab)), wire);

    Bytes big = "827f0000000000010000"_hex;
    big.resize(big.size() + 65536, 0x5a);
    m = decode_all(big);
    ASSERT_EQ(m.size(), 1u);
    EXPECT_EQ(m[0].payload.size(), 65536u);
    EXPECT_EQ(encode_server_frame(WsOpcode::binary, Bytes(65536, 0x5a)), big);
}

TEST(chain_websocket_frame, client_frames_are_always_masked) {
    // §5.3: the mask bit is set and the 4 key bytes follow the length.
    const auto f = encode_client_frame(WsOpcode::text, Bytes(300, 'x'), {1, 2, 3, 4});
    EXPECT_EQ(f[1], 0x80 | 126);
    EXPECT_EQ(f[2], 0x01);
    EXPECT_EQ(f[3], 0x2c);
    EXPECT_EQ(Bytes(f.begin() + 4, f.begin() + 8), "01020304"_hex);
}

TEST(chain_websocket_frame, decoder_waits_for_bytes_split_anywhere) {
    const Bytes wire = "010348656c"_hex;  // "Hel", not final
    const Bytes rest =
        "89026869"       // a ping in between (§5.4) ...
        "80026c6f"_hex;  // ... then "lo"
    Bytes all = wire;
    all.insert(all.end(), rest.begin(), rest.end());
    MessageDecoder d;
    std::vector<WsMessage> got;
    for (const uint8_t b : all) {
        d.feed(Bytes{b});
        while (true) {
            auto m = d.next();
            ASSERT_TRUE(m) << m.error().detail;
            if (!*m) break;
            got.push_back(std::move(**m));
        }
    }
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(got[0].opcode, WsOpcode::ping);
    EXPECT_EQ(text(got[0].payload), "hi");
    EXPECT_EQ(text(got[1].payload), "Hello");
    EXPECT_EQ(d.buffered(), 0u);
}

TEST(chain_websocket_frame, close_payloads) {
    // §5.5.1: empty, or a code in network order and a UTF-8 reason.
    auto c = parse_close_payload({});
    ASSERT_TRUE(c);
    EXPECT_FALSE(c->code);
    c = parse_close_payload("03e8627965"_hex);  // 1000 "bye"
    ASSERT_TRUE(c);
    EXPECT_EQ(c->code, 1000);
    EXPECT_EQ(c->reason, "bye");
    EXPECT_EQ(make_close_payload(1000, "bye"), "03e8627965"_hex);
    // The reason is cut to keep the frame at 125 bytes, never inside a UTF-8 sequence.
    const auto long_reason = make_close_payload(1001, std::string(200, 'a'));
    EXPECT_EQ(long_reason.size(), kMaxControlPayload);
    std::string euros;
    for (int i = 0; i < 60; ++i) euros += "\xe2\x82\xac";
    const auto cut = make_close_payload(1001, euros);
    EXPECT_LE(cut.size(), kMaxControlPayload);
    EXPECT_TRUE(parse_close_payload(cut));
}

TEST(chain_websocket_frame, close_codes_section_7_4) {
    for (const int ok : {1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 4999})
        EXPECT_TRUE(is_valid_close_code(static_cast<uint16_t>(ok))) << ok;
    // 1004 reserved; 1005, 1006, 1015 MUST NOT be sent; 0-999 unused; >= 5000 undefined.
    for (const int bad : {0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000, 65535})
        EXPECT_FALSE(is_valid_close_code(static_cast<uint16_t>(bad))) << bad;
}

TEST(chain_websocket_frame, utf8_section_8_1) {
    EXPECT_TRUE(
        is_valid_utf8(core::as_bytes(std::string_view("h\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"))));
    EXPECT_FALSE(is_valid_utf8("c0af"_hex));      // overlong '/'
    EXPECT_FALSE(is_valid_utf8("eda080"_hex));    // surrogate U+D800
    EXPECT_FALSE(is_valid_utf8("f4908080"_hex));  // above U+10FFFF
    EXPECT_FALSE(is_valid_utf8("e282"_hex));      // truncated
    EXPECT_FALSE(is_valid_utf8("80"_hex));        // lone continuation
}

struct ErrorCase {
    const char* name;
    const char* wire;
    WsError code;
};

TEST(chain_websocket_frame, every_error_path) {
    const ErrorCase cases[] = {
        // §5.2: RSV1, RSV2, RSV3 without an extension.
        {"rsv1", "c100", WsError::protocol},
        {"rsv2", "a100", WsError::protocol},
        {"rsv3", "9100", WsError::protocol},
        // §5.2: opcodes 0x3-0x7 and 0xB-0xF are reserved.
        {"opcode 3", "8300", WsError::protocol},
        {"opcode b", "8b00", WsError::protocol},
        // §5.1: a server MUST NOT mask.
        {"masked server frame", "818537fa213d7f9f4d5158", WsError::protocol},
        // §5.2: minimal length encoding; 64-bit top bit clear.
        {"16-bit length 5", "817e0005", WsError::protocol},
        {"64-bit length 5", "827f0000000000000005", WsError::protocol},
        {"64-bit top bit", "827f8000000000000000", WsError::protocol},
        // §5.5: control frames of at most 125 bytes, never fragmented.
        {"long ping", "897e007e", WsError::protocol},
        {"fragmented ping", "0900", WsError::protocol},
        // §5.4: continuation without a message; a new message inside a fragmented one.
        {"lone continuation", "80026c6f", WsError::protocol},
        {"interleaved message",
         "010148"
         "8101ff",
         WsError::protocol},
        // §8.1: text must be UTF-8 (here, after reassembly).
        {"bad utf8 text", "8102c0af", WsError::protocol},
        // §5.5.1 / §7.4: close payloads.
        {"close of one byte", "880103", WsError::protocol},
        {"close code 1005", "880203ed", WsError::protocol},
        {"close reason not utf8", "880303e8ff", WsError::protocol},
    };
    for (const auto& c : cases) {
        const auto e = decode_error(core::from_hex(c.wire).value());
        EXPECT_EQ(e.code, c.code) << c.name << ": " << e.detail;
        EXPECT_FALSE(e.detail.empty()) << c.name;
    }
    // §5.1 the other way: a server refuses unmasked client frames.
    EXPECT_EQ(decode_error("810548656c6c6f"_hex, WsSender::client).code, WsError::protocol);
}

TEST(chain_websocket_frame, size_limit_refused_from_the_header) {
    // A frame announcing 2^40 bytes is refused before any payload arrives.
    const auto e = decode_error("827f0000010000000000"_hex);
    EXPECT_EQ(e.code, WsError::too_large);
    EXPECT_NE(e.detail.find("limit"), std::string::npos) << e.detail;
    // Fragments that add up past the limit are refused too.
    Bytes wire = "0264"_hex;  // binary, not final, 100 bytes
    wire.resize(wire.size() + 100, 1);
    Bytes more = "8064"_hex;
    more.resize(more.size() + 100, 2);
    wire.insert(wire.end(), more.begin(), more.end());
    EXPECT_EQ(decode_error(wire, WsSender::server, 150).code, WsError::too_large);
}

TEST(chain_websocket_frame, errors_are_sticky) {
    MessageDecoder d;
    d.feed("c100"_hex);
    EXPECT_FALSE(d.next());
    d.feed("810548656c6c6f"_hex);
    EXPECT_FALSE(d.next());
}

}  // namespace
}  // namespace credence::chain
