#include <credence/chain/websocket_handshake.hpp>

#include <algorithm>
#include <charconv>
#include <vector>

#include <fmt/core.h>
#include <openssl/evp.h>

namespace credence::chain {
namespace {

using core::fail;

// §1.3: the GUID appended to the key before hashing.
constexpr std::string_view kAcceptGuid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

char ascii_lower(char c) noexcept { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }

bool iequals(std::string_view a, std::string_view b) noexcept {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return ascii_lower(x) == ascii_lower(y);
           });
}

std::string_view trim(std::string_view s) noexcept {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

std::string base64(const uint8_t* data, size_t size) {
    // EVP_EncodeBlock writes 4 characters per 3 bytes plus a NUL, without line breaks.
    std::string out(((size + 2) / 3) * 4 + 1, '\0');
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): OpenSSL's unsigned char API
    const int n =
        EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), data, static_cast<int>(size));
    out.resize(static_cast<size_t>(std::max(n, 0)));
    return out;
}

// Does the comma-separated header value `list` hold `token` (case-insensitive, RFC 7230 §7)?
bool has_token(std::string_view list, std::string_view token) {
    while (!list.empty()) {
        const size_t comma = list.find(',');
        if (iequals(trim(list.substr(0, comma)), token)) return true;
        if (comma == std::string_view::npos) break;
        list.remove_prefix(comma + 1);
    }
    return false;
}

bool printable_line(std::string_view s) noexcept {
    return std::all_of(s.begin(), s.end(), [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return u == '\t' || (u >= 0x20 && u != 0x7f);
    });
}

}  // namespace

WsResult<WsUrl> parse_ws_url(std::string_view url) {
    WsUrl out;
    std::string_view rest;
    if (url.size() >= 5 && iequals(url.substr(0, 5), "ws://")) {
        rest = url.substr(5);
    } else if (url.size() >= 6 && iequals(url.substr(0, 6), "wss://")) {
        out.tls = true;
        rest = url.substr(6);
    } else {
        return fail(WsError::bad_url, "the URL must start with ws:// or wss://");
    }
    // §3: fragment identifiers are meaningless in WebSocket URIs and MUST NOT be used.
    if (rest.find('#') != std::string_view::npos)
        return fail(WsError::bad_url, "a WebSocket URL has no fragment (RFC 6455 §3)");
    if (!printable_line(rest) || rest.find_first_of(" \t") != std::string_view::npos)
        return fail(WsError::bad_url, "spaces or control characters in the URL");
    const size_t slash = rest.find_first_of("/?");
    std::string_view authority = rest.substr(0, slash);
    const std::string_view target =
        slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
    if (authority.find('@') != std::string_view::npos)
        return fail(WsError::bad_url, "credentials in a WebSocket URL are not supported");
    std::string_view host;
    std::string_view port_text;
    if (authority.starts_with('[')) {
        const size_t close = authority.find(']');
        if (close == std::string_view::npos) return fail(WsError::bad_url, "unclosed IPv6 literal");
        host = authority.substr(1, close - 1);
        const auto after = authority.substr(close + 1);
        if (!after.empty()) {
            if (after.front() != ':') return fail(WsError::bad_url, "junk after the IPv6 literal");
            port_text = after.substr(1);
        }
    } else {
        const size_t colon = authority.find(':');
        host = authority.substr(0, colon);
        if (colon != std::string_view::npos) port_text = authority.substr(colon + 1);
    }
    if (host.empty()) return fail(WsError::bad_url, "no host");
    out.port = out.tls ? 443 : 80;
    if (!port_text.empty() || authority.ends_with(':')) {
        unsigned port = 0;
        const auto [end, ec] =
            std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
        if (ec != std::errc{} || end != port_text.data() + port_text.size() || port == 0 ||
            port > 65535)
            return fail(WsError::bad_url, fmt::format("bad port \"{}\"", port_text));
        out.port = static_cast<uint16_t>(port);
    }
    out.host.assign(host);
    out.host_header.assign(authority);
    out.target = target.empty() ? std::string("/") : std::string(target);
    if (out.target.front() == '?') out.target.insert(out.target.begin(), '/');
    return out;
}

std::optional<std::string> websocket_url_for(std::string_view http_url) {
    if (http_url.size() >= 7 && iequals(http_url.substr(0, 7), "http://"))
        return "ws://" + std::string(http_url.substr(7));
    if (http_url.size() >= 8 && iequals(http_url.substr(0, 8), "https://"))
        return "wss://" + std::string(http_url.substr(8));
    return std::nullopt;
}

std::string websocket_key(const std::array<uint8_t, 16>& nonce) {
    return base64(nonce.data(), nonce.size());
}

std::string websocket_accept(std::string_view key) {
    std::string input(key);
    input.append(kAcceptGuid);
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned int len = 0;
    if (EVP_Digest(input.data(), input.size(), digest.data(), &len, EVP_sha1(), nullptr) != 1)
        return {};
    return base64(digest.data(), len);
}

std::string upgrade_request(const WsUrl& url, std::string_view key) {
    // §4.1: a GET with Host, Upgrade, Connection, Sec-WebSocket-Key and -Version 13.
    return fmt::format(
        "GET {} HTTP/1.1\r\n"
        "Host: {}\r\n"
        "Upgrade: websocket\r\n"
        "Connection: Upgrade\r\n"
        "Sec-WebSocket-Key: {}\r\n"
        "Sec-WebSocket-Version: 13\r\n"
        "User-Agent: credence\r\n"
        "\r\n",
        url.target, url.host_header, key);
}

WsResult<std::optional<size_t>> check_upgrade_response(std::string_view received,
                                                       std::string_view key) {
    const size_t end = received.find("\r\n\r\n");
    if (end == std::string_view::npos) {
        if (received.size() > kMaxHandshakeResponse)
            return fail(WsError::handshake, "the upgrade response head is too large");
        return std::nullopt;
    }
    if (end + 4 > kMaxHandshakeResponse)
        return fail(WsError::handshake, "the upgrade response head is too large");
    std::string_view head = received.substr(0, end);
    const size_t eol = head.find("\r\n");
    const std::string_view status_line = head.substr(0, eol);
    head = eol == std::string_view::npos ? std::string_view() : head.substr(eol + 2);
    // "HTTP/1.1 101 Switching Protocols"
    if (!status_line.starts_with("HTTP/") || status_line.size() < 12 || status_line[8] != ' ' ||
        !printable_line(status_line))
        return fail(WsError::handshake, "not an HTTP response to the upgrade request");
    const std::string_view status = status_line.substr(9, 3);
    if (!std::all_of(status.begin(), status.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return fail(WsError::handshake, "not an HTTP response to the upgrade request");
    // §4.1 step 1: any status other than 101 means the handshake did not complete.
    if (status != "101")
        return fail(WsError::handshake,
                    fmt::format("the server refused the upgrade: {}", status_line.substr(9)));

    bool upgrade = false;
    bool connection = false;
    std::optional<std::string_view> accept;
    while (!head.empty()) {
        const size_t next = head.find("\r\n");
        const std::string_view line = head.substr(0, next);
        head = next == std::string_view::npos ? std::string_view() : head.substr(next + 2);
        const size_t colon = line.find(':');
        if (colon == std::string_view::npos || colon == 0 || !printable_line(line))
            return fail(WsError::handshake, "malformed header in the upgrade response");
        const std::string_view name = line.substr(0, colon);
        const std::string_view value = trim(line.substr(colon + 1));
        if (iequals(name, "Upgrade")) {
            upgrade = iequals(value, "websocket");  // §4.1 step 2
        } else if (iequals(name, "Connection")) {
            connection = has_token(value, "Upgrade");  // §4.1 step 3
        } else if (iequals(name, "Sec-WebSocket-Accept")) {
            if (accept) return fail(WsError::handshake, "two Sec-WebSocket-Accept headers");
            accept = value;
        } else if (iequals(name, "Sec-WebSocket-Extensions")) {
            // §4.1 step 5: an extension the client did not ask for fails the connection.
            return fail(WsError::handshake, "the server chose an extension we did not offer");
        } else if (iequals(name, "Sec-WebSocket-Protocol")) {
            // §4.1 step 6: likewise a subprotocol.
            return fail(WsError::handshake, "the server chose a subprotocol we did not offer");
        }
    }
    if (!upgrade) return fail(WsError::handshake, "no \"Upgrade: websocket\" in the response");
    if (!connection) return fail(WsError::handshake, "no \"Connection: Upgrade\" in the response");
    // §4.1 step 4: the accept value is base64(SHA-1(key + GUID)), compared exactly.
    if (!accept) return fail(WsError::handshake, "no Sec-WebSocket-Accept in the response");
    if (*accept != websocket_accept(key))
        return fail(WsError::handshake, "Sec-WebSocket-Accept does not match the key");
    return end + 4;
}

}  // namespace credence::chain
