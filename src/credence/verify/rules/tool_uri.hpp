// ERC-8257 URL grammar: the §6 URL Normalization rules for `metadataURI` and the manifest's URL
// fields, and the §7 check 2 origin binding.
//
// normalize_https_url() applies the general rules G1-G3 the way a consumer must: the scheme and
// host are lowercased (G1), an explicit port 443 is elided (G2), and the host must already be in
// ASCII-compatible encoding (G3: a raw U-label is rejected, never converted, since a consumer that
// converts could disagree with the producer about the bytes; `xn--` labels must be LDH labels).
// Only `https` is accepted; userinfo ("user@host") is refused because it has no place in an origin
// and is a classic way to disguise one. parse_metadata_uri() adds W1-W3 for `metadataURI`: no
// query or fragment, the path exactly /.well-known/ai-tool/<slug>.json, the slug grammar, and the
// 2,048-byte cap (§Metadata URI Length Cap). check_origin_binding() is the pseudocode of §7 check
// 2: after normalization, scheme, host and port must be byte-equal (RFC 6454 origin). The URL is
// cut into its parts by net/url.hpp, the splitter the fetcher and domain_check.hpp use too; what
// this file adds is ERC-8257's rules over those parts.
//
// Pure functions over strings: thread-safe, no I/O, nothing throws.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <credence/core/error.hpp>

namespace credence::verify {

enum class UriError {
    not_https,          ///< scheme is not https after normalization (§6, §2 endpoint)
    malformed,          ///< not scheme://authority[path][?query][#fragment], or bad characters
    userinfo,           ///< "user@host" authority
    bad_port,           ///< port not a decimal in 1..65535
    non_ace_host,       ///< a raw internationalized (non-ASCII) host: G3 wants the A-label form
    bad_host,           ///< host not LDH labels / IP literal, or an invalid xn-- label
    query_or_fragment,  ///< metadataURI with '?' or '#' (W2)
    not_well_known,     ///< path not /.well-known/ai-tool/<slug>.json (W1)
    slug_grammar,       ///< slug not [a-z0-9]([a-z0-9-]*[a-z0-9])? of 1-64 characters (§6)
    too_long,           ///< over 2,048 bytes (§Metadata URI Length Cap, §2 image)
    origin_mismatch,    ///< metadataURI and endpoint differ in scheme, host or port (§7 check 2)
};
[[nodiscard]] std::string_view to_string(UriError e) noexcept;

/// ERC-8257 §Metadata URI Length Cap and §2 image / featuredImage / §4 links: UTF-8 bytes.
inline constexpr size_t kMaxUrlBytes = 2048;
/// ERC-8257 §6: slug length 1-64.
inline constexpr size_t kMaxSlugLength = 64;

/// An https URL after G1-G3. `normalized` is the whole URL in canonical form.
struct HttpsUrl {
    std::string host;                     ///< lowercase, ACE
    std::optional<uint16_t> port;         ///< nullopt for the default 443 (G2)
    std::string path;                     ///< as written (may be empty)
    std::optional<std::string> query;     ///< after '?', when present
    std::optional<std::string> fragment;  ///< after '#', when present
    std::string normalized;

    /// "https://host[:port]": the RFC 6454 origin in canonical form.
    [[nodiscard]] std::string origin() const;
};

/// G1-G3 for any https URL field (endpoint, image, links, attestation endpoints...).
[[nodiscard]] core::Result<HttpsUrl, UriError> normalize_https_url(std::string_view text);

/// True when `text` is already in the G1-G3 canonical form (what §2 requires of `endpoint` as
/// stored in the manifest).
[[nodiscard]] bool is_normalized_https_url(std::string_view text);

/// ERC-8257 §6 slug grammar: ^[a-z0-9]([a-z0-9-]*[a-z0-9])?$ and 1-64 characters.
[[nodiscard]] bool is_valid_slug(std::string_view slug) noexcept;

struct ToolMetadataUri {
    HttpsUrl url;
    std::string slug;
};

/// `metadataURI` per §6: length cap, G1-G3, then W1-W3 and the slug grammar.
[[nodiscard]] core::Result<ToolMetadataUri, UriError> parse_metadata_uri(std::string_view text);

/// ERC-8257 §7 check 2 (`verifyOriginBinding`): both sides normalized, then the metadataURI
/// rules, then origin equality. Errors name the first `require` that failed.
[[nodiscard]] core::Result<ToolMetadataUri, UriError> check_origin_binding(
    std::string_view metadata_uri, std::string_view endpoint);

}  // namespace credence::verify
