// The fetcher's SSRF guard (ssrf_guard.hpp): IP literals, the refused address ranges, the allow
// list, and the URL check every hop passes (over url.hpp's parts). fetch.cpp runs them on each
// connection and hop.
#include <credence/verify/net/ssrf_guard.hpp>
#include <credence/verify/net/url.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <optional>
#include <string>
#include <utility>

#include <fmt/core.h>

namespace credence::verify {

using core::fail;

std::optional<IpAddress> parse_ip_address(std::string_view text) {
    if (text.size() >= 2 && text.front() == '[' && text.back() == ']')
        text = text.substr(1, text.size() - 2);
    if (text.empty() || text.size() > 45) return std::nullopt;
    const std::string s(text);
    IpAddress a;
    if (s.find(':') != std::string::npos) {
        a.v6 = true;
        if (inet_pton(AF_INET6, s.c_str(), a.bytes.data()) != 1) return std::nullopt;
        return a;
    }
    // inet_pton(AF_INET) accepts dotted-quad decimal only (no octal/hex/short forms).
    if (inet_pton(AF_INET, s.c_str(), a.bytes.data()) != 1) return std::nullopt;
    return a;
}

std::string to_string(const IpAddress& address) {
    std::array<char, INET6_ADDRSTRLEN> buf{};
    inet_ntop(address.v6 ? AF_INET6 : AF_INET, address.bytes.data(), buf.data(),
              static_cast<socklen_t>(buf.size()));
    return buf.data();
}

namespace {

bool in_prefix(const uint8_t* addr, const uint8_t* net, unsigned prefix) {
    for (unsigned i = 0; i < prefix / 8; ++i)
        if (addr[i] != net[i]) return false;
    if (prefix % 8 == 0) return true;
    const auto mask = static_cast<uint8_t>(0xff << (8 - prefix % 8));
    return (addr[prefix / 8] & mask) == (net[prefix / 8] & mask);
}

struct V4Range {
    std::array<uint8_t, 4> net;
    unsigned prefix;
    std::string_view name;
};

// Private, loopback, link-local, CGNAT and metadata addresses, plus the
// ranges that are never a public server (IANA special-purpose registry, RFC 6890).
constexpr std::array<V4Range, 13> kBlockedV4{{
    {{169, 254, 169, 254}, 32, "metadata"},   // cloud instance metadata (before link-local)
    {{0, 0, 0, 0}, 8, "this-network"},        // RFC 791
    {{10, 0, 0, 0}, 8, "private"},            // RFC 1918
    {{100, 64, 0, 0}, 10, "cgnat"},           // RFC 6598
    {{127, 0, 0, 0}, 8, "loopback"},          // RFC 1122
    {{169, 254, 0, 0}, 16, "link-local"},     // RFC 3927
    {{172, 16, 0, 0}, 12, "private"},         // RFC 1918
    {{192, 0, 0, 0}, 24, "ietf-protocol"},    // RFC 6890
    {{192, 168, 0, 0}, 16, "private"},        // RFC 1918
    {{198, 18, 0, 0}, 15, "benchmarking"},    // RFC 2544
    {{224, 0, 0, 0}, 4, "multicast"},         // RFC 5771
    {{255, 255, 255, 255}, 32, "broadcast"},  // RFC 919 (before 240/4 for the name)
    {{240, 0, 0, 0}, 4, "reserved"},          // RFC 1112
}};

std::optional<std::string_view> blocked_v4(const uint8_t* a) {
    for (const auto& r : kBlockedV4)
        if (in_prefix(a, r.net.data(), r.prefix)) return r.name;
    return std::nullopt;
}

}  // namespace

std::optional<std::string_view> blocked_range(const IpAddress& address) {
    const uint8_t* a = address.bytes.data();
    if (!address.v6) return blocked_v4(a);
    static constexpr std::array<uint8_t, 16> kZero{};
    static constexpr std::array<uint8_t, 16> kMapped{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    static constexpr std::array<uint8_t, 16> kNat64{0, 0x64, 0xff, 0x9b};
    static constexpr std::array<uint8_t, 16> kSixToFour{0x20, 0x02};
    static constexpr std::array<uint8_t, 16> kEc2Metadata{0xfd, 0x00, 0x0e, 0xc2, 0, 0, 0,    0,
                                                          0,    0,    0,    0,    0, 0, 0x02, 0x54};
    static constexpr std::array<uint8_t, 16> kUniqueLocal{0xfc};
    static constexpr std::array<uint8_t, 16> kLinkLocal{0xfe, 0x80};
    static constexpr std::array<uint8_t, 16> kSiteLocal{0xfe, 0xc0};
    static constexpr std::array<uint8_t, 16> kMulticast{0xff};
    if (address.bytes == kZero) return "unspecified";
    if (in_prefix(a, kZero.data(), 120) && a[15] == 1) return "loopback";  // ::1
    if (address.bytes == kEc2Metadata) return "metadata";
    // Forms that carry an IPv4 address are judged by it (RFC 4291 §2.5.5, RFC 6052, RFC 3056).
    if (in_prefix(a, kMapped.data(), 96)) return blocked_v4(a + 12);
    if (in_prefix(a, kZero.data(), 96)) return blocked_v4(a + 12);  // IPv4-compatible (deprecated)
    if (in_prefix(a, kNat64.data(), 96)) return blocked_v4(a + 12);
    if (in_prefix(a, kSixToFour.data(), 16)) return blocked_v4(a + 2);
    if (in_prefix(a, kUniqueLocal.data(), 7)) return "unique-local";  // RFC 4193
    if (in_prefix(a, kLinkLocal.data(), 10)) return "link-local";     // RFC 4291
    if (in_prefix(a, kSiteLocal.data(), 10)) return "site-local";     // RFC 3879 (deprecated)
    if (in_prefix(a, kMulticast.data(), 8)) return "multicast";       // RFC 4291
    return std::nullopt;
}

namespace {

std::string lowercase(std::string_view s) {
    std::string out(s);
    for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

}  // namespace

namespace {

/// "address", "address:port" or "[v6]:port" of a pinned entry; nullopt when malformed.
std::optional<std::pair<IpAddress, uint16_t>> parse_pin_target(std::string_view text) {
    if (auto ip = parse_ip_address(text)) return std::pair{*ip, uint16_t{0}};
    const size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) return std::nullopt;
    std::string_view host = text.substr(0, colon);
    const std::string_view port = text.substr(colon + 1);
    const bool bracketed = host.size() > 2 && host.front() == '[' && host.back() == ']';
    // An IPv6 address with a port must be bracketed ("[::1]:443").
    if (!bracketed && host.find(':') != std::string_view::npos) return std::nullopt;
    auto ip = parse_ip_address(host);
    if (!ip || port.empty() || port.size() > 5 ||
        !std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        return std::nullopt;
    }
    const int value = std::stoi(std::string(port));
    if (value < 1 || value > 65535) return std::nullopt;
    return std::pair{*ip, static_cast<uint16_t>(value)};
}

bool valid_hostname(std::string_view host);  // URL checks, below

}  // namespace

std::expected<HostAllowList, std::string> HostAllowList::parse(
    const std::vector<std::string>& entries) {
    HostAllowList list;
    for (const auto& entry : entries) {
        const auto bad = [&entry](std::string_view why) {
            return std::unexpected(fmt::format("allowed host \"{}\": {}", entry, why));
        };
        if (const auto eq = entry.find('='); eq != std::string::npos) {
            const std::string name = lowercase(std::string_view(entry).substr(0, eq));
            if (!valid_hostname(name)) return bad("the name before '=' is not a host name");
            const auto target = parse_pin_target(std::string_view(entry).substr(eq + 1));
            if (!target) return bad("a pin is name=address, name=address:port or name=[v6]:port");
            list.pins_.push_back({name, target->first, target->second});
            continue;
        }
        if (const auto slash = entry.find('/'); slash != std::string::npos) {
            const auto network = parse_ip_address(std::string_view(entry).substr(0, slash));
            const std::string_view bits = std::string_view(entry).substr(slash + 1);
            const unsigned max_bits = network && network->v6 ? 128U : 32U;
            unsigned prefix = 0;
            const auto [end, ec] = std::from_chars(bits.data(), bits.data() + bits.size(), prefix);
            if (!network)
                return bad("not a host name, an IP address, a range or a name=address pin");
            if (bits.empty() || ec != std::errc{} || end != bits.data() + bits.size() ||
                prefix > max_bits)
                return bad(fmt::format("a range is address/bits with bits 0..{}", max_bits));
            list.ranges_.push_back({*network, prefix});
            continue;
        }
        if (const auto ip = parse_ip_address(entry)) {
            list.ranges_.push_back({*ip, ip->v6 ? 128U : 32U});
            continue;
        }
        const std::string name = lowercase(entry);
        if (!valid_hostname(name))
            return bad("not a host name, an IP address, a range or a name=address pin");
        list.names_.push_back(name);
    }
    return list;
}

bool HostAllowList::allows(std::string_view host, const IpAddress& address, uint16_t port) const {
    for (const auto& name : names_)
        if (name == host) return true;
    for (const auto& pin : pins_) {
        if (pin.name == host && pin.address == address && (pin.port == 0 || pin.port == port))
            return true;
    }
    for (const auto& r : ranges_) {
        if (r.network.v6 == address.v6 &&
            in_prefix(address.bytes.data(), r.network.bytes.data(), r.prefix))
            return true;
        // An IPv4 range also covers the IPv4-mapped IPv6 form of its addresses.
        static constexpr std::array<uint8_t, 12> kMapped{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
        if (!r.network.v6 && address.v6 &&
            std::equal(kMapped.begin(), kMapped.end(), address.bytes.begin()) &&
            in_prefix(address.bytes.data() + 12, r.network.bytes.data(), r.prefix))
            return true;
    }
    return false;
}

// ---------------------------------------------------------------------------------------------
// URL checks

namespace {

bool is_host_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

// A DNS name: dot-separated labels of letters, digits, '-' and '_' (1..63 characters, no leading
// or trailing '-'), at most 253 characters, an optional final dot. A name whose last label is
// numeric must be a dotted-quad IPv4 literal: curl would otherwise read "2130706433" or
// "0x7f.1" as an address.
bool valid_hostname(std::string_view host) {
    if (host.empty() || host.size() > 254) return false;
    if (host.back() == '.') host.remove_suffix(1);
    if (host.empty() || host.size() > 253) return false;
    std::string_view last;
    size_t start = 0;
    while (true) {
        const size_t dot = host.find('.', start);
        const std::string_view label = host.substr(
            start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
        if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-')
            return false;
        if (!std::all_of(label.begin(), label.end(), is_host_char)) return false;
        last = label;
        if (dot == std::string_view::npos) break;
        start = dot + 1;
    }
    const bool numeric_last =
        std::all_of(last.begin(), last.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
        (last.size() > 1 && last[0] == '0' && last[1] == 'x');
    if (numeric_last) {
        const auto ip = parse_ip_address(host);
        return ip && !ip->v6;
    }
    return true;
}

}  // namespace

core::Result<FetchUrl, FetchError> parse_fetch_url(std::string_view url, bool allow_http) {
    constexpr size_t kMaxUrlLength = 8192;
    if (url.size() > kMaxUrlLength) return fail(FetchError::bad_url, "URL longer than 8192");
    for (char c : url) {
        const auto u = static_cast<unsigned char>(c);
        if (u <= 0x20 || u >= 0x7f)
            return fail(FetchError::bad_url, "URL has a space, control or non-ASCII character");
    }
    const auto scheme = url_scheme(url);
    if (!scheme) return fail(FetchError::bad_url, "no scheme");
    FetchUrl parts;
    parts.scheme = lowercase(*scheme);
    if (parts.scheme != "https" && parts.scheme != "http")
        return fail(FetchError::scheme_not_allowed, "scheme " + parts.scheme);
    if (parts.scheme == "http" && !allow_http)
        return fail(FetchError::scheme_not_allowed, "plain http is not allowed");
    const auto split = split_url(url);
    if (!split) return fail(FetchError::bad_url, "no authority");
    if (split->userinfo) return fail(FetchError::bad_url, "userinfo in URL");
    const std::string_view host = split->host;
    if (host.starts_with('[')) {
        const size_t close = host.find(']');
        if (close == std::string_view::npos) return fail(FetchError::bad_url, "unclosed '['");
        const auto ip = parse_ip_address(host.substr(0, close + 1));
        if (!ip || !ip->v6) return fail(FetchError::bad_url, "bad IPv6 literal");
        // Whatever follows the literal must be the port, which split_url() took already.
        if (close + 1 != host.size()) return fail(FetchError::bad_url, "bad port");
        parts.host = lowercase(host.substr(1, close - 1));
    } else {
        parts.host = lowercase(host);
        if (!valid_hostname(parts.host))
            return fail(FetchError::bad_url, "bad host '" + std::string(host) + "'");
    }
    if (const auto& split_port = split->port; split_port) {
        const std::string_view port = *split_port;
        if (port.empty() || port.size() > 5 ||
            !std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; }))
            return fail(FetchError::bad_url, "bad port");
        const int p = std::stoi(std::string(port));
        if (p < 1 || p > 65535) return fail(FetchError::bad_url, "bad port");
    }
    return parts;
}

}  // namespace credence::verify
