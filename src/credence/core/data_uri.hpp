// data: URIs (RFC 2397) and strict base64 (RFC 4648 §4).
//
// ERC-8004 lets an agentURI carry the whole registration file on-chain as
// `data:application/json;base64,...`; this is the parser the indexer runs on such URIs and the
// encoder the CLI uses to write them. Parsing is strict and bounded:
//   - the scheme is "data:" (any case, RFC 3986 §3.1), then [type/subtype] *(;attribute=value)
//     [;base64] "," data; type, subtype, attribute and value are RFC 2045 tokens (no quoted
//     strings), attributes are unique;
//   - base64 data is canonical RFC 4648 base64: the standard alphabet, '=' padding to a multiple
//     of 4, zero pad bits, no whitespace, no percent-escapes;
//   - other data is percent-decoded; raw bytes must be visible ASCII other than '%' and '#';
//   - the decoded payload is at most `max_bytes`, checked before any large allocation.
// Type, subtype and attribute names are case-insensitive and returned lowercase; values keep
// their case. A parsed URI re-encodes to one that parses to the same value. Thread-safe; no I/O.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <credence/core/bytes.hpp>
#include <credence/core/error.hpp>

namespace credence::core {

enum class DataUriError {
    not_data_uri,        ///< does not start with "data:"
    missing_comma,       ///< no ',' between the header and the data
    bad_media_type,      ///< type/subtype is not two RFC 2045 tokens
    bad_parameter,       ///< parameter not attribute=value tokens, or a repeated attribute
    bad_percent_escape,  ///< '%' not followed by two hex digits
    bad_character,       ///< a byte that may not appear raw in the data
    bad_base64,          ///< alphabet, length, padding or non-zero pad bits
    too_large,           ///< decoded payload over the size limit
};

[[nodiscard]] std::string_view to_string(DataUriError e) noexcept;

/// Default payload limit: registration files are a few KiB; 1 MiB leaves ample room.
inline constexpr size_t kDefaultDataUriMaxBytes = size_t{1} << 20;

struct DataUri {
    /// Lowercase "type/subtype". RFC 2397 §2: "text/plain" when the URI omits it.
    std::string media_type = "text/plain";
    /// In order of appearance; attributes lowercase. When the URI has no media type and no
    /// charset, RFC 2397's default charset=US-ASCII is filled in.
    std::vector<std::pair<std::string, std::string>> parameters;
    /// Whether the data was (or is to be) written in base64.
    bool base64 = false;
    Bytes data;

    /// Value of a parameter (attribute compared case-insensitively).
    [[nodiscard]] std::optional<std::string_view> parameter(std::string_view attribute) const;

    friend bool operator==(const DataUri&, const DataUri&) = default;
};

/// Parses a data: URI; the decoded payload may be at most `max_bytes`.
[[nodiscard]] Result<DataUri, DataUriError> parse_data_uri(
    std::string_view uri, size_t max_bytes = kDefaultDataUriMaxBytes);

/// Writes a data: URI (base64 or percent-encoded per `uri.base64`). Fails when the media type or a
/// parameter is not made of RFC 2045 tokens, so every output parses back.
[[nodiscard]] Result<std::string, DataUriError> encode_data_uri(const DataUri& uri);

/// "data:<media_type>;base64,<base64(data)>", e.g. for media_type "application/json".
/// `media_type` may carry parameters ("text/plain;charset=utf-8").
[[nodiscard]] Result<std::string, DataUriError> encode_base64_data_uri(std::string_view media_type,
                                                                       ByteView data);

/// RFC 4648 §4 base64 with padding.
[[nodiscard]] std::string base64_encode(ByteView data);
/// Strict RFC 4648 §4 decoding: canonical input only (see the header comment).
[[nodiscard]] Result<Bytes, DataUriError> base64_decode(std::string_view text,
                                                        size_t max_bytes = kDefaultDataUriMaxBytes);

}  // namespace credence::core
