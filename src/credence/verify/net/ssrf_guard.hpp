// The fetcher's SSRF guard: which IP addresses a fetch may connect to (docs/architecture.md
// §verify/).
//
// URLs on-chain are written by strangers, so a fetch must not become a request into the operator's
// own network: loopback, private (RFC 1918), CGNAT (RFC 6598), link-local (including the cloud
// metadata address 169.254.169.254 and AWS's fd00:ec2::254), multicast, reserved and unspecified
// ranges are refused. IPv6 forms that embed an IPv4 address (IPv4-mapped ::ffff:a.b.c.d,
// IPv4-compatible ::a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16) are judged by the embedded IPv4.
// The check runs on the address actually connected to (fetch.cpp's socket callback), after DNS
// and on every redirect hop, so DNS rebinding cannot slip past it.
//
// HostAllowList lifts the guard for hosts named in FetcherConfig::allow_hosts: host names (matched
// against the URL's host, case-insensitively), IP literals and CIDR ranges (matched against the
// address connected to). Entries that are neither an IP literal nor a CIDR are taken as names.
// A pinned entry "name=address:port" (or "name=address", "name=[v6]:port") lifts the guard only
// for a URL naming `name` AND a connection to exactly that address (and port): `credence demo`
// serves its own names from 127.0.0.1 this way, while a URL naming 127.0.0.1, localhost or
// another loopback port stays refused (docs/demo.md). HostAllowList::parse refuses a malformed
// entry with one line naming it, so a typo never silently leaves the guard up or down.
// Everything here is pure and thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <credence/core/error.hpp>
#include <credence/verify/net/fetch.hpp>

namespace credence::verify {

/// An IPv4 or IPv6 address, in network byte order (IPv4 uses the first 4 bytes).
struct IpAddress {
    bool v6 = false;
    std::array<uint8_t, 16> bytes{};

    friend bool operator==(const IpAddress&, const IpAddress&) = default;
};

/// Parses a dotted-quad IPv4 or an IPv6 literal (optionally in brackets). Strict: no octal,
/// hex or short IPv4 forms ("0x7f.1", "2130706433" are not addresses).
[[nodiscard]] std::optional<IpAddress> parse_ip_address(std::string_view text);

/// "a.b.c.d" or RFC 5952 IPv6 text.
[[nodiscard]] std::string to_string(const IpAddress& address);

/// The refused range `address` falls in ("loopback", "private", "cgnat", "metadata", ...), or
/// nullopt when it is a public unicast address a fetch may connect to.
[[nodiscard]] std::optional<std::string_view> blocked_range(const IpAddress& address);

/// The parts of an http(s) URL the fetcher acts on.
struct FetchUrl {
    std::string scheme;  ///< "https" or "http", lowercase
    std::string host;    ///< lowercase; an IPv6 literal without brackets
};

/// The URL check every hop passes before curl sees it, over url.hpp's parts: printable ASCII only
/// (no spaces, controls or non-ASCII), at most 8 KiB, scheme https (http only when `allow_http`,
/// else scheme_not_allowed), an authority without userinfo, a valid DNS name or strict IP literal
/// as host (a numeric last label must be a dotted quad, so curl never reads "2130706433" as an
/// address), and a port 1..65535. Failures are bad_url or scheme_not_allowed.
[[nodiscard]] core::Result<FetchUrl, FetchError> parse_fetch_url(std::string_view url,
                                                                 bool allow_http);

/// FetcherConfig::allow_hosts, parsed once.
class HostAllowList {
public:
    HostAllowList() = default;
    /// The entries, or the first malformed one: a pin whose name is not a host name or whose
    /// target is not address[:port], a range whose bits exceed the family, or a name that is
    /// not a host name.
    [[nodiscard]] static std::expected<HostAllowList, std::string> parse(
        const std::vector<std::string>& entries);

    /// Whether a connection for URL host `host` (lowercase, no brackets) to `address`:`port` is
    /// exempt (`port` 0: unknown, which no pinned port matches).
    [[nodiscard]] bool allows(std::string_view host, const IpAddress& address,
                              uint16_t port = 0) const;

private:
    struct Range {
        IpAddress network;
        unsigned prefix = 0;
    };
    struct Pin {
        std::string name;  // lowercase
        IpAddress address;
        uint16_t port = 0;  // 0: any port of `address`
    };
    std::vector<std::string> names_;  // lowercase
    std::vector<Range> ranges_;
    std::vector<Pin> pins_;
};

}  // namespace credence::verify
