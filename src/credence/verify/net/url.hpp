// The one URL parser of verify/: a URL split into its RFC 3986 §3 parts. The fetcher's check of
// every hop (ssrf_guard.hpp parse_fetch_url), its ipfs:// URLs (fetch.cpp), the ERC-8257 §6 URL
// rules (rules/tool_uri.hpp) and the ERC-8004 endpoint domains (rules/domain_check.hpp) all
// start from split_url(), then judge the parts by their own spec: which schemes, whether
// userinfo is refused or skipped, the host grammar (ERC-8257 G3 refuses names a fetch may
// follow) and the ports. So a URL is cut the same way everywhere, and only the rules differ.
//
//   scheme ":" "//" authority path [ "?" query ] [ "#" fragment ]
//   authority = [ userinfo "@" ] host [ ":" port ]
//
// split_url() judges nothing but that shape. The scheme is what precedes the first ':'; the
// authority runs from "//" to the first '/', '?' or '#'; userinfo is what precedes its last '@';
// the port follows the last ':' that comes after the last ']' (so an IPv6 literal keeps its
// brackets and colons in the host); the fragment follows the first '#', and the query the first
// '?' before it. Every part is a view into the input, as written (no case folding, no decoding).
// Pure, thread-safe, nothing throws.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include <credence/core/error.hpp>

namespace credence::verify {

enum class UrlError {
    no_scheme,     ///< no ':', or nothing before the first one
    no_authority,  ///< the scheme's ':' is not followed by "//"
};
[[nodiscard]] std::string_view to_string(UrlError e) noexcept;

struct UrlParts {
    std::string_view scheme;
    std::string_view authority;                ///< userinfo, host and port, as written
    std::optional<std::string_view> userinfo;  ///< present when the authority has an '@'
    std::string_view host;                     ///< may be empty; "[...]" for an IP literal
    std::optional<std::string_view> port;      ///< present (maybe empty) after a ':'
    std::string_view path;                     ///< may be empty
    std::optional<std::string_view> query;
    std::optional<std::string_view> fragment;
};

/// The scheme of `text` (what precedes its first ':'), or nullopt when there is none.
[[nodiscard]] std::optional<std::string_view> url_scheme(std::string_view text) noexcept;

/// Whether the scheme of `text` is `scheme` (given in lowercase), case-insensitively
/// (RFC 3986 §3.1).
[[nodiscard]] bool has_scheme(std::string_view text, std::string_view scheme) noexcept;

/// `text` split into its parts; fails only when it has no scheme or no authority.
[[nodiscard]] core::Result<UrlParts, UrlError> split_url(std::string_view text);

}  // namespace credence::verify
