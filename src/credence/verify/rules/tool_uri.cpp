#include <credence/verify/rules/tool_uri.hpp>

#include <algorithm>

#include <fmt/core.h>

#include <credence/verify/net/url.hpp>

namespace credence::verify {
namespace {

using core::fail;

constexpr std::string_view kWellKnownPrefix = "/.well-known/ai-tool/";
constexpr std::string_view kJsonSuffix = ".json";
constexpr size_t kMaxHostLength = 253;  // RFC 1035 §2.3.4 (without the root dot)
constexpr size_t kMaxLabelLength = 63;

char ascii_lower(char c) noexcept {
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}
bool is_alnum(char c) noexcept { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool is_hex(char c) noexcept {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/// RFC 3986 §3.3 pchar plus '/', '?' for query/fragment: unreserved, sub-delims, ':', '@', and
/// '%' followed by two hex digits. Anything else (space, non-ASCII, '<', '"'...) is malformed: a
/// URL written by a stranger must not carry bytes a browser or a log would interpret differently.
bool valid_url_tail(std::string_view s, bool allow_query_chars) noexcept {
    for (size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (c == '%') {
            if (i + 2 >= s.size() || !is_hex(s[i + 1]) || !is_hex(s[i + 2])) return false;
            i += 2;
            continue;
        }
        const bool unreserved =
            is_alnum(ascii_lower(c)) || c == '-' || c == '.' || c == '_' || c == '~';
        const bool sub_delim = c == '!' || c == '$' || c == '&' || c == '\'' || c == '(' ||
                               c == ')' || c == '*' || c == '+' || c == ',' || c == ';' || c == '=';
        const bool extra = c == ':' || c == '@' || c == '/' || (allow_query_chars && c == '?');
        if (!unreserved && !sub_delim && !extra) return false;
    }
    return true;
}

/// One DNS label in LDH form (RFC 5890 §2.3.1), with the IDNA rule for A-labels: an "xn--" label
/// must carry a non-empty LDH Punycode part (G3: "valid-looking" A-labels only).
bool valid_label(std::string_view label) noexcept {
    if (label.empty() || label.size() > kMaxLabelLength) return false;
    if (label.front() == '-' || label.back() == '-') return false;
    if (!std::all_of(label.begin(), label.end(), [](char c) { return is_alnum(c) || c == '-'; }))
        return false;
    if (label.starts_with("xn--")) return label.size() > 4;
    // RFC 5891 §4.2.3.1: "--" in positions 3-4 is reserved for A-labels ("xn--").
    return !(label.size() >= 4 && label[2] == '-' && label[3] == '-');
}

core::Result<void, UriError> check_host(std::string_view host) {
    if (host.empty()) return fail(UriError::bad_host, "empty host");
    if (host.front() == '[') {
        // IPv6 literal (RFC 3986 §3.2.2): hex digits, ':' and '.' (embedded IPv4).
        if (host.back() != ']' || host.size() < 4)
            return fail(UriError::bad_host, "bad IPv6 literal");
        const auto inner = host.substr(1, host.size() - 2);
        if (!std::all_of(inner.begin(), inner.end(),
                         [](char c) { return is_hex(c) || c == ':' || c == '.'; }))
            return fail(UriError::bad_host, "bad IPv6 literal");
        return {};
    }
    if (host.size() > kMaxHostLength) return fail(UriError::bad_host, "host longer than 253");
    size_t start = 0;
    while (true) {
        const size_t dot = host.find('.', start);
        const auto label =
            host.substr(start, dot == std::string_view::npos ? host.npos : dot - start);
        if (!valid_label(label))
            return fail(UriError::bad_host, fmt::format("bad host label \"{}\"", label));
        if (dot == std::string_view::npos) break;
        start = dot + 1;
    }
    return {};
}

}  // namespace

std::string_view to_string(UriError e) noexcept {
    switch (e) {
        case UriError::not_https:
            return "not_https";
        case UriError::malformed:
            return "malformed";
        case UriError::userinfo:
            return "userinfo";
        case UriError::bad_port:
            return "bad_port";
        case UriError::non_ace_host:
            return "non_ace_host";
        case UriError::bad_host:
            return "bad_host";
        case UriError::query_or_fragment:
            return "query_or_fragment";
        case UriError::not_well_known:
            return "not_well_known";
        case UriError::slug_grammar:
            return "slug_grammar";
        case UriError::too_long:
            return "too_long";
        case UriError::origin_mismatch:
            return "origin_mismatch";
    }
    return "unknown";
}

std::string HttpsUrl::origin() const {
    return port ? fmt::format("https://{}:{}", host, *port) : "https://" + host;
}

core::Result<HttpsUrl, UriError> normalize_https_url(std::string_view text) {
    const auto raw_scheme = url_scheme(text);
    if (!raw_scheme) return fail(UriError::malformed, "no scheme");
    std::string scheme(*raw_scheme);
    std::transform(scheme.begin(), scheme.end(), scheme.begin(), ascii_lower);  // G1
    if (scheme != "https")
        return fail(UriError::not_https, fmt::format("scheme \"{}\" is not https", scheme));
    const auto parts = split_url(text);
    if (!parts) return fail(UriError::malformed, "no //authority");
    if (parts->userinfo) return fail(UriError::userinfo, "userinfo in the authority");
    if (std::any_of(parts->authority.begin(), parts->authority.end(),
                    [](char c) { return static_cast<unsigned char>(c) >= 0x80; }))
        return fail(UriError::non_ace_host, "host is not in ASCII-compatible encoding (G3)");

    HttpsUrl url;
    url.host.assign(parts->host);
    std::transform(url.host.begin(), url.host.end(), url.host.begin(), ascii_lower);  // G1
    if (auto ok = check_host(url.host); !ok) return std::unexpected(ok.error());
    if (const auto& port = parts->port; port) {
        const auto p = *port;
        if (p.empty() || p.size() > 5 ||
            !std::all_of(p.begin(), p.end(), [](char c) { return c >= '0' && c <= '9'; }))
            return fail(UriError::bad_port, fmt::format("bad port \"{}\"", p));
        unsigned value = 0;
        for (char c : p) value = value * 10 + static_cast<unsigned>(c - '0');
        if (value == 0 || value > 65535)
            return fail(UriError::bad_port, fmt::format("port {} out of range", value));
        if (value != 443) url.port = static_cast<uint16_t>(value);  // G2
    }

    // path, query, fragment: kept byte for byte (W3 leaves percent-encoding as it is).
    url.path.assign(parts->path);
    url.query = parts->query;  // std::optional<std::string_view> into std::optional<std::string>
    url.fragment = parts->fragment;
    if (!valid_url_tail(url.path, false) || (url.query && !valid_url_tail(*url.query, true)) ||
        (url.fragment && !valid_url_tail(*url.fragment, true)))
        return fail(UriError::malformed, "path, query or fragment holds a character a URL cannot");

    url.normalized = url.origin() + url.path;
    if (url.query) url.normalized += "?" + *url.query;
    if (url.fragment) url.normalized += "#" + *url.fragment;
    return url;
}

bool is_normalized_https_url(std::string_view text) {
    auto url = normalize_https_url(text);
    return url && url->normalized == text;
}

bool is_valid_slug(std::string_view slug) noexcept {
    if (slug.empty() || slug.size() > kMaxSlugLength) return false;
    if (!is_alnum(slug.front()) || !is_alnum(slug.back())) return false;
    return std::all_of(slug.begin(), slug.end(), [](char c) { return is_alnum(c) || c == '-'; });
}

core::Result<ToolMetadataUri, UriError> parse_metadata_uri(std::string_view text) {
    if (text.size() > kMaxUrlBytes)
        return fail(UriError::too_long,
                    fmt::format("{} bytes, over the {}-byte cap", text.size(), kMaxUrlBytes));
    auto url = normalize_https_url(text);
    if (!url) return std::unexpected(url.error());
    // W2: no query, no fragment (an empty "?" or "#" counts: the character itself is refused).
    if (url->query || url->fragment)
        return fail(UriError::query_or_fragment, "metadataURI carries a query or a fragment");
    // W1: exactly /.well-known/ai-tool/<slug>.json, no trailing slash, no extra segment.
    const std::string& path = url->path;
    if (!path.starts_with(kWellKnownPrefix) || !path.ends_with(kJsonSuffix) ||
        path.size() < kWellKnownPrefix.size() + kJsonSuffix.size())
        return fail(UriError::not_well_known,
                    fmt::format("path \"{}\" is not /.well-known/ai-tool/<slug>.json", path));
    std::string slug = path.substr(kWellKnownPrefix.size(),
                                   path.size() - kWellKnownPrefix.size() - kJsonSuffix.size());
    if (!is_valid_slug(slug))
        return fail(UriError::slug_grammar,
                    fmt::format("slug \"{}\" does not match [a-z0-9]([a-z0-9-]*[a-z0-9])? "
                                "(1-64 characters)",
                                slug));
    return ToolMetadataUri{std::move(*url), std::move(slug)};
}

core::Result<ToolMetadataUri, UriError> check_origin_binding(std::string_view metadata_uri,
                                                             std::string_view endpoint) {
    // The pseudocode normalizes both, requires https on each, the metadataURI rules, then origin
    // equality; the same order here so the first failing `require` is the one reported.
    auto ep = normalize_https_url(endpoint);
    if (!ep) {
        auto e = ep.error();
        e.detail = "endpoint: " + e.detail;
        return std::unexpected(e);
    }
    auto mu = parse_metadata_uri(metadata_uri);
    if (!mu) return std::unexpected(mu.error());
    if (mu->url.host != ep->host || mu->url.port != ep->port)
        return fail(UriError::origin_mismatch,
                    fmt::format("metadataURI origin {} differs from endpoint origin {}",
                                mu->url.origin(), ep->origin()));
    return mu;
}

}  // namespace credence::verify
