// The key a client is counted under by every per-client limit of the HTTP front (docs/node.md
// §HTTP server limits): connections per client, the rate limiter and MCP sessions. An IPv4
// address counts as itself, also when written IPv4-mapped (::ffff:a.b.c.d); an IPv6 address
// counts by its first 64 bits, the block one host or one subscriber usually holds (RFC 6177), so
// one machine cannot multiply its share by cycling through the addresses of its /64.
//
// Thread-safety: pure. Ownership: values.
#pragma once

#include <string>
#include <string_view>

namespace credence::api {

/// "10.1.2.3" for IPv4 (plain or mapped), "2001:0db8:0001:0002::/64" for IPv6, else the text.
[[nodiscard]] std::string client_key(std::string_view remote_ip);

}  // namespace credence::api
