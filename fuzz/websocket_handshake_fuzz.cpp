// libFuzzer target for the WebSocket opening handshake (chain/websocket_handshake.hpp): the
// server's answer to the upgrade and the --ws-url flag are untrusted text.
//
// Checks: check_upgrade_response never crashes; when it accepts, the head it measured lies
// within the input, ends with CRLF CRLF, is a 101 and carries the accept value of the key
// (§4.1 step 4); parse_ws_url never crashes and every URL it accepts has a host, a port and a
// request-target that starts with '/' and holds no space or control character.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include <credence/chain/websocket_handshake.hpp>

using namespace credence;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): bytes as text
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    constexpr std::string_view kKey = "dGhlIHNhbXBsZSBub25jZQ==";
    if (auto r = chain::check_upgrade_response(text, kKey); r && *r) {
        const size_t head = **r;
        if (head > size || head < 4 || text.substr(head - 4, 4) != "\r\n\r\n") std::abort();
        if (text.substr(9, 3) != "101") std::abort();
        if (text.substr(0, head).find(chain::websocket_accept(kKey)) == std::string_view::npos)
            std::abort();
    }
    if (auto u = chain::parse_ws_url(text)) {
        if (u->host.empty() || u->port == 0 || u->target.empty() || u->target[0] != '/')
            std::abort();
        for (const char c : u->target)
            if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) std::abort();
        const auto request = chain::upgrade_request(*u, kKey);
        if (request.find("\r\n\r\n") != request.size() - 4) std::abort();
    }
    return 0;
}
