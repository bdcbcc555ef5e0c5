// RFC 6455 opening handshake: the §1.3 / §4.2.2 accept example, URLs (§3), the request (§4.1)
// and every way an upgrade response is refused.
#include <credence/chain/websocket_handshake.hpp>

#include <string>

#include <gtest/gtest.h>

namespace credence::chain {
namespace {

// §1.3 (and §11.3.3): key "dGhlIHNhbXBsZSBub25jZQ==" -> accept "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=",
// SHA-1 0xb3 0x7a 0x4f 0x2c 0xc0 0x62 0x4f 0x16 0x90 0xf6 0x46 0x06 0xcf 0x38 0x59 0x45 0xb2 0xbe
// 0xc4 0xea as the RFC prints it.
constexpr std::string_view kRfcKey = "dGhlIHNhbXBsZSBub25jZQ==";
constexpr std::string_view kRfcAccept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=";

TEST(chain_websocket_handshake, rfc_1_3_accept_example) {
    EXPECT_EQ(websocket_accept(kRfcKey), kRfcAccept);
}

TEST(chain_websocket_handshake, rfc_4_1_key_is_base64_of_16_bytes) {
    // §1.3: the sample nonce is the 16 bytes "the sample nonce".
    const std::string nonce = "the sample nonce";
    std::array<uint8_t, 16> bytes{};
    std::copy(nonce.begin(), nonce.end(), bytes.begin());
    EXPECT_EQ(websocket_key(bytes), kRfcKey);
}

TEST(chain_websocket_handshake, urls_section_3) {
    auto u = parse_ws_url("ws://127.0.0.1:8545");
    ASSERT_TRUE(u) << u.error().detail;
    EXPECT_FALSE(u->tls);
    EXPECT_EQ(u->host, "127.0.0.1");
    EXPECT_EQ(u->port, 8545);
    EXPECT_EQ(u->target, "/");
    EXPECT_EQ(u->host_header, "127.0.0.1:8545");
    u = parse_ws_url("WSS://node.example/v2/abc?x=1");
    ASSERT_TRUE(u) << u.error().detail;
    EXPECT_TRUE(u->tls);
    EXPECT_EQ(u->port, 443);
    EXPECT_EQ(u->target, "/v2/abc?x=1");
    u = parse_ws_url("ws://[::1]:9/?q");
    ASSERT_TRUE(u) << u.error().detail;
    EXPECT_EQ(u->host, "::1");
    EXPECT_EQ(u->host_header, "[::1]:9");
    u = parse_ws_url("ws://h?q");
    ASSERT_TRUE(u);
    EXPECT_EQ(u->target, "/?q");
    for (const char* bad :
         {"http://h", "ws://", "ws://h:0", "ws://h:70000", "ws://h:", "ws://h:x", "ws://h/#frag",
          "ws://u:p@h", "ws://[::1", "ws://[::1]x", "ws://h /", "ws://h/\r\nX: y"})
        EXPECT_FALSE(parse_ws_url(bad)) << bad;
}

TEST(chain_websocket_handshake, websocket_url_from_rpc_url) {
    EXPECT_EQ(websocket_url_for("http://127.0.0.1:8545"), "ws://127.0.0.1:8545");
    EXPECT_EQ(websocket_url_for("https://eth.example/v3/key"), "wss://eth.example/v3/key");
    EXPECT_EQ(websocket_url_for("ws://already"), std::nullopt);
    EXPECT_EQ(websocket_url_for("ipc:///tmp/x"), std::nullopt);
}

TEST(chain_websocket_handshake, request_section_4_1) {
    const auto u = parse_ws_url("ws://server.example.com/chat");
    ASSERT_TRUE(u);
    const auto req = upgrade_request(*u, kRfcKey);
    EXPECT_TRUE(req.starts_with("GET /chat HTTP/1.1\r\nHost: server.example.com\r\n")) << req;
    EXPECT_NE(req.find("\r\nUpgrade: websocket\r\n"), std::string::npos);
    EXPECT_NE(req.find("\r\nConnection: Upgrade\r\n"), std::string::npos);
    EXPECT_NE(req.find("\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"), std::string::npos);
    EXPECT_NE(req.find("\r\nSec-WebSocket-Version: 13\r\n"), std::string::npos);
    EXPECT_TRUE(req.ends_with("\r\n\r\n"));
}

// §1.3's server handshake, verbatim.
const std::string kRfcResponse =
    "HTTP/1.1 101 Switching Protocols\r\n"
    "Upgrade: websocket\r\n"
    "Connection: Upgrade\r\n"
    "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"
    "\r\n";

TEST(chain_websocket_handshake, rfc_response_accepted_and_frames_after_it_kept) {
    auto r = check_upgrade_response(kRfcResponse + "\x81\x00", kRfcKey);
    ASSERT_TRUE(r) << r.error().detail;
    ASSERT_TRUE(*r);
    EXPECT_EQ(**r, kRfcResponse.size());
    // Incomplete: wait for more.
    r = check_upgrade_response(kRfcResponse.substr(0, 40), kRfcKey);
    ASSERT_TRUE(r);
    EXPECT_FALSE(*r);
    // Header names and the Upgrade value are case-insensitive; Connection is a token list.
    r = check_upgrade_response(
        "HTTP/1.1 101 OK\r\nupgrade: WebSocket\r\nconnection: keep-alive, upgrade\r\n"
        "sec-websocket-accept:s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n",
        kRfcKey);
    ASSERT_TRUE(r) << r.error().detail;
    EXPECT_TRUE(*r);
}

TEST(chain_websocket_handshake, every_refusal_section_4_1) {
    auto with = [](std::string from, const std::string& to) {
        std::string s = kRfcResponse;
        s.replace(s.find(from), from.size(), to);
        return s;
    };
    const std::pair<const char*, std::string> cases[] = {
        // step 1: not 101 (a node that only speaks HTTP answers 400 / 404 / 405 / 200).
        {"400", "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"},
        {"200", "HTTP/1.1 200 OK\r\n\r\n"},
        {"not http", "SSH-2.0-OpenSSH\r\n\r\n"},
        {"bad status", "HTTP/1.1 1x1 Nope\r\n\r\n"},
        // step 2, 3: Upgrade and Connection.
        {"no upgrade", with("Upgrade: websocket\r\n", "")},
        {"upgrade h2c", with("Upgrade: websocket", "Upgrade: h2c")},
        {"no connection", with("Connection: Upgrade\r\n", "")},
        {"connection close", with("Connection: Upgrade", "Connection: close")},
        // step 4: the accept value.
        {"no accept", with("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n", "")},
        {"wrong accept", with("s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", "AAAAAAAAAAAAAAAAAAAAAAAAAAA=")},
        {"two accepts", with("\r\n\r\n", "\r\nSec-WebSocket-Accept: x\r\n\r\n")},
        // steps 5, 6: an extension or subprotocol we did not ask for.
        {"extension", with("\r\n\r\n", "\r\nSec-WebSocket-Extensions: permessage-deflate\r\n\r\n")},
        {"subprotocol", with("\r\n\r\n", "\r\nSec-WebSocket-Protocol: chat\r\n\r\n")},
        {"malformed header", with("Upgrade: websocket", "Upgrade websocket")},
        {"control char", with("Upgrade: websocket", std::string("Upgrade: web\x01socket"))},
    };
    for (const auto& [name, response] : cases) {
        auto r = check_upgrade_response(response, kRfcKey);
        ASSERT_FALSE(r) << name;
        EXPECT_EQ(r.error().code, WsError::handshake) << name;
        EXPECT_FALSE(r.error().detail.empty()) << name;
    }
    // The status reaches the message: the caller logs why the node offers no WebSocket.
    auto r = check_upgrade_response("HTTP/1.1 405 Method Not Allowed\r\n\r\n", kRfcKey);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().detail.find("405 Method Not Allowed"), std::string::npos);
    // An endless head is refused at 16 KiB, with or without its end.
    EXPECT_FALSE(check_upgrade_response(std::string(kMaxHandshakeResponse + 1, 'a'), kRfcKey));
    EXPECT_FALSE(check_upgrade_response(
        "HTTP/1.1 101 x\r\nX: " + std::string(kMaxHandshakeResponse, 'a') + "\r\n\r\n", kRfcKey));
}

}  // namespace
}  // namespace credence::chain
