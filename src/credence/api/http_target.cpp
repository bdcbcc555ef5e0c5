#include <credence/api/http_target.hpp>

#include <algorithm>
#include <optional>
#include <unordered_set>

#include <fmt/format.h>

namespace credence::api {

namespace {

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/// Percent-decodes `text`; '+' becomes a space in query components; "%2F" stays as written in
/// paths. nullopt on a malformed escape or a decoded NUL.
std::optional<std::string> decode(std::string_view text, bool is_query) {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '+' && is_query) {
            out.push_back(' ');
            continue;
        }
        if (c != '%') {
            out.push_back(c);
            continue;
        }
        if (i + 2 >= text.size()) return std::nullopt;
        const int high = hex_value(text[i + 1]);
        const int low = hex_value(text[i + 2]);
        if (high < 0 || low < 0) return std::nullopt;
        const auto byte = static_cast<char>(high * 16 + low);
        if (byte == '\0') return std::nullopt;
        if (byte == '/' && !is_query) {
            out.append(text.substr(i, 3));
        } else {
            out.push_back(byte);
        }
        i += 2;
    }
    return out;
}

}  // namespace

std::expected<RequestTarget, std::string> parse_request_target(
    std::string_view target, std::span<const std::string> repeatable) {
    if (target.empty() || target.front() != '/') {
        return std::unexpected("request target must be an absolute path");
    }
    if (const size_t hash = target.find('#'); hash != std::string_view::npos) {
        return std::unexpected("request target must not hold a fragment");
    }
    const size_t question = target.find('?');
    RequestTarget out;
    auto path = decode(target.substr(0, question), false);
    if (!path) return std::unexpected("malformed percent escape in the path");
    out.path = std::move(*path);
    if (question == std::string_view::npos) return out;
    std::string_view rest = target.substr(question + 1);
    std::unordered_set<std::string> names;
    while (!rest.empty()) {
        const size_t amp = rest.find('&');
        const std::string_view pair = rest.substr(0, amp);
        rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
        if (pair.empty()) continue;
        const size_t eq = pair.find('=');
        auto name = decode(pair.substr(0, eq), true);
        auto value =
            decode(eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1), true);
        if (!name || !value) return std::unexpected("malformed percent escape in the query");
        const bool seen = !names.insert(*name).second;
        if (seen && std::ranges::find(repeatable, *name) == repeatable.end()) {
            std::string shown = name->substr(0, 64);
            std::ranges::replace_if(
                shown, [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; },
                '?');
            return std::unexpected(fmt::format("query parameter '{}' given twice", shown));
        }
        out.query.emplace_back(std::move(*name), std::move(*value));
    }
    return out;
}

}  // namespace credence::api
