#include <credence/verify/net/url.hpp>

namespace credence::verify {

std::string_view to_string(UrlError e) noexcept {
    switch (e) {
        case UrlError::no_scheme:
            return "no_scheme";
        case UrlError::no_authority:
            return "no_authority";
    }
    return "unknown";
}

std::optional<std::string_view> url_scheme(std::string_view text) noexcept {
    const size_t colon = text.find(':');
    if (colon == std::string_view::npos || colon == 0) return std::nullopt;
    return text.substr(0, colon);
}

bool has_scheme(std::string_view text, std::string_view scheme) noexcept {
    const auto found = url_scheme(text);
    if (!found || found->size() != scheme.size()) return false;
    for (size_t i = 0; i < scheme.size(); ++i) {
        const char c = (*found)[i];
        const char lower = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
        if (lower != scheme[i]) return false;
    }
    return true;
}

core::Result<UrlParts, UrlError> split_url(std::string_view text) {
    const auto scheme = url_scheme(text);
    if (!scheme) return core::fail(UrlError::no_scheme, "no scheme");
    std::string_view rest = text.substr(scheme->size() + 1);
    if (!rest.starts_with("//")) return core::fail(UrlError::no_authority, "no //authority");
    rest.remove_prefix(2);

    UrlParts parts;
    parts.scheme = *scheme;
    const size_t authority_end = rest.find_first_of("/?#");
    parts.authority = rest.substr(0, authority_end);
    std::string_view tail =
        authority_end == std::string_view::npos ? std::string_view{} : rest.substr(authority_end);

    std::string_view host_port = parts.authority;
    if (const size_t at = host_port.rfind('@'); at != std::string_view::npos) {
        parts.userinfo = host_port.substr(0, at);
        host_port = host_port.substr(at + 1);
    }
    const size_t bracket = host_port.rfind(']');
    const size_t colon = host_port.rfind(':');
    if (colon != std::string_view::npos && (bracket == std::string_view::npos || colon > bracket)) {
        parts.port = host_port.substr(colon + 1);
        host_port = host_port.substr(0, colon);
    }
    parts.host = host_port;

    if (const size_t hash = tail.find('#'); hash != std::string_view::npos) {
        parts.fragment = tail.substr(hash + 1);
        tail = tail.substr(0, hash);
    }
    if (const size_t question = tail.find('?'); question != std::string_view::npos) {
        parts.query = tail.substr(question + 1);
        tail = tail.substr(0, question);
    }
    parts.path = tail;
    return parts;
}

}  // namespace credence::verify
