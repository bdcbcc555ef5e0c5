#include <credence/core/data_uri.hpp>

#include <algorithm>
#include <array>

namespace credence::core {

std::string_view to_string(DataUriError e) noexcept {
    switch (e) {
        case DataUriError::not_data_uri:
            return "not a data: URI";
        case DataUriError::missing_comma:
            return "data: URI without ','";
        case DataUriError::bad_media_type:
            return "bad media type";
        case DataUriError::bad_parameter:
            return "bad media type parameter";
        case DataUriError::bad_percent_escape:
            return "bad percent escape";
        case DataUriError::bad_character:
            return "character not allowed in data: URI";
        case DataUriError::bad_base64:
            return "bad base64";
        case DataUriError::too_large:
            return "data: URI payload too large";
    }
    return "unknown error";
}

namespace {

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

constexpr std::array<int8_t, 256> make_decode_table() {
    std::array<int8_t, 256> t{};
    for (auto& v : t) v = -1;
    for (size_t i = 0; i < kAlphabet.size(); ++i)
        t[static_cast<unsigned char>(kAlphabet[i])] = static_cast<int8_t>(i);
    return t;
}
constexpr auto kDecode = make_decode_table();

char ascii_lower(char c) noexcept {
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

std::string lowercase(std::string_view s) {
    std::string out(s);
    for (auto& c : out) c = ascii_lower(c);
    return out;
}

bool iequals(std::string_view a, std::string_view b) noexcept {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return ascii_lower(x) == ascii_lower(y);
           });
}

// RFC 2045 §5.1: token := 1*<any (US-ASCII) CHAR except SPACE, CTLs, or tspecials>.
bool is_token(std::string_view s) noexcept {
    if (s.empty()) return false;
    constexpr std::string_view kTspecials = "()<>@,;:\\\"/[]?=";
    for (char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if (u <= 0x20 || u >= 0x7f || kTspecials.find(c) != std::string_view::npos) return false;
    }
    return true;
}

struct Header {
    std::string media_type;
    std::vector<std::pair<std::string, std::string>> parameters;
    bool base64 = false;
};

// RFC 2397 §3: [ mediatype ] [ ";base64" ], mediatype := [ type "/" subtype ] *( ";" parameter ).
Result<Header, DataUriError> parse_header(std::string_view text, bool allow_base64) {
    Header h;
    size_t pos = text.find(';');
    const std::string_view type = text.substr(0, pos);
    if (type.empty()) {
        h.media_type = "text/plain";  // RFC 2397 §2 default
    } else {
        const size_t slash = type.find('/');
        if (slash == std::string_view::npos || !is_token(type.substr(0, slash)) ||
            !is_token(type.substr(slash + 1)))
            return fail(DataUriError::bad_media_type, std::string(type));
        h.media_type = lowercase(type);
    }
    while (pos != std::string_view::npos) {
        const size_t next = text.find(';', pos + 1);
        const std::string_view param =
            text.substr(pos + 1, next == std::string_view::npos ? next : next - pos - 1);
        if (allow_base64 && next == std::string_view::npos && iequals(param, "base64")) {
            h.base64 = true;  // only as the last item
            break;
        }
        const size_t eq = param.find('=');
        if (eq == std::string_view::npos || !is_token(param.substr(0, eq)) ||
            !is_token(param.substr(eq + 1)))
            return fail(DataUriError::bad_parameter, std::string(param));
        std::string attribute = lowercase(param.substr(0, eq));
        for (const auto& [a, v] : h.parameters)
            if (a == attribute) return fail(DataUriError::bad_parameter, "repeated " + attribute);
        h.parameters.emplace_back(std::move(attribute), std::string(param.substr(eq + 1)));
        pos = next;
    }
    if (type.empty()) {
        const bool has_charset = std::any_of(h.parameters.begin(), h.parameters.end(),
                                             [](const auto& p) { return p.first == "charset"; });
        if (!has_charset) h.parameters.emplace_back("charset", "US-ASCII");
    }
    return h;
}

Result<Bytes, DataUriError> percent_decode(std::string_view text, size_t max_bytes) {
    Bytes out;
    out.reserve(std::min(text.size(), max_bytes));
    for (size_t i = 0; i < text.size(); ++i) {
        if (out.size() >= max_bytes)
            return fail(DataUriError::too_large, "over " + std::to_string(max_bytes) + " bytes");
        const char c = text[i];
        const auto u = static_cast<unsigned char>(c);
        if (c == '%') {
            if (i + 2 >= text.size())
                return fail(DataUriError::bad_percent_escape, "truncated escape");
            const int hi = hex_digit_value(text[i + 1]);
            const int lo = hex_digit_value(text[i + 2]);
            if (hi < 0 || lo < 0)
                return fail(DataUriError::bad_percent_escape, std::string(text.substr(i, 3)));
            out.push_back(static_cast<uint8_t>(hi * 16 + lo));
            i += 2;
            continue;
        }
        // RFC 3986 §2: bytes outside visible ASCII must be percent-encoded; '#' would start a
        // fragment, which is not part of the data.
        if (u <= 0x20 || u >= 0x7f || c == '#')
            return fail(DataUriError::bad_character,
                        "byte " + std::to_string(u) + " at " + std::to_string(i));
        out.push_back(u);
    }
    return out;
}

bool keep_raw(uint8_t b) noexcept {
    // RFC 3986 unreserved and the sub-delims/gen-delims a data part may hold unescaped.
    if ((b >= 'A' && b <= 'Z') || (b >= 'a' && b <= 'z') || (b >= '0' && b <= '9')) return true;
    return std::string_view("-._~!$&'()*+,;=:@/?").find(static_cast<char>(b)) !=
           std::string_view::npos;
}

void write_header(std::string& out, std::string_view media_type,
                  const std::vector<std::pair<std::string, std::string>>& parameters, bool base64) {
    out += "data:";
    out += media_type;
    for (const auto& [a, v] : parameters) {
        out += ';';
        out += a;
        out += '=';
        out += v;
    }
    if (base64) out += ";base64";
    out += ',';
}

}  // namespace

std::optional<std::string_view> DataUri::parameter(std::string_view attribute) const {
    for (const auto& [a, v] : parameters)
        if (iequals(a, attribute)) return std::string_view(v);
    return std::nullopt;
}

std::string base64_encode(ByteView data) {
    std::string out;
    out.reserve((data.size() + 2) / 3 * 4);
    size_t i = 0;
    for (; i + 3 <= data.size(); i += 3) {
        const uint32_t n = (uint32_t{data[i]} << 16) | (uint32_t{data[i + 1]} << 8) | data[i + 2];
        out += kAlphabet[(n >> 18) & 63];
        out += kAlphabet[(n >> 12) & 63];
        out += kAlphabet[(n >> 6) & 63];
        out += kAlphabet[n & 63];
    }
    if (const size_t rest = data.size() - i; rest > 0) {
        const uint32_t n = (uint32_t{data[i]} << 16) | (rest == 2 ? uint32_t{data[i + 1]} << 8 : 0);
        out += kAlphabet[(n >> 18) & 63];
        out += kAlphabet[(n >> 12) & 63];
        out += rest == 2 ? kAlphabet[(n >> 6) & 63] : '=';
        out += '=';
    }
    return out;
}

Result<Bytes, DataUriError> base64_decode(std::string_view text, size_t max_bytes) {
    // RFC 4648 §3.2/§4: padded to a multiple of 4 characters.
    if (text.size() % 4 != 0) return fail(DataUriError::bad_base64, "length not a multiple of 4");
    size_t pad = 0;
    if (!text.empty() && text.back() == '=') pad = (text[text.size() - 2] == '=') ? 2 : 1;
    const size_t decoded_size = text.size() / 4 * 3 - pad;
    if (decoded_size > max_bytes)
        return fail(DataUriError::too_large, std::to_string(decoded_size) + " bytes");
    Bytes out;
    out.reserve(decoded_size);
    const size_t body = text.size() - pad;
    uint32_t acc = 0;
    unsigned bits = 0;
    for (size_t i = 0; i < body; ++i) {
        const int8_t v = kDecode[static_cast<unsigned char>(text[i])];
        if (v < 0) return fail(DataUriError::bad_base64, "character at " + std::to_string(i));
        acc = (acc << 6) | static_cast<uint32_t>(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out.push_back(static_cast<uint8_t>(acc >> bits));
            acc &= (1U << bits) - 1;
        }
    }
    // RFC 4648 §3.5: the pad bits of the last quantum must be zero (canonical encoding).
    if (acc != 0) return fail(DataUriError::bad_base64, "non-zero pad bits");
    return out;
}

Result<DataUri, DataUriError> parse_data_uri(std::string_view uri, size_t max_bytes) {
    if (uri.size() < 5 || !iequals(uri.substr(0, 5), "data:"))
        return fail(DataUriError::not_data_uri, "expected data: scheme");
    const size_t comma = uri.find(',', 5);
    if (comma == std::string_view::npos) return fail(DataUriError::missing_comma);
    auto header = parse_header(uri.substr(5, comma - 5), /*allow_base64=*/true);
    if (!header) return std::unexpected(header.error());
    const std::string_view body = uri.substr(comma + 1);
    auto data = header->base64 ? base64_decode(body, max_bytes) : percent_decode(body, max_bytes);
    if (!data) return std::unexpected(data.error());
    return DataUri{std::move(header->media_type), std::move(header->parameters), header->base64,
                   std::move(*data)};
}

Result<std::string, DataUriError> encode_data_uri(const DataUri& uri) {
    const size_t slash = uri.media_type.find('/');
    if (slash == std::string::npos ||
        !is_token(std::string_view(uri.media_type).substr(0, slash)) ||
        !is_token(std::string_view(uri.media_type).substr(slash + 1)))
        return fail(DataUriError::bad_media_type, uri.media_type);
    for (size_t i = 0; i < uri.parameters.size(); ++i) {
        const auto& [a, v] = uri.parameters[i];
        if (!is_token(a) || !is_token(v))
            return fail(DataUriError::bad_parameter, std::string(a).append("=").append(v));
        for (size_t j = 0; j < i; ++j)
            if (iequals(uri.parameters[j].first, a))
                return fail(DataUriError::bad_parameter, "repeated " + a);
    }
    std::string out = "data:" + lowercase(uri.media_type);
    for (const auto& [a, v] : uri.parameters) {
        out += ';';
        out += lowercase(a);
        out += '=';
        out += v;
    }
    if (uri.base64) {
        out += ";base64,";
        out += base64_encode(uri.data);
        return out;
    }
    out += ',';
    constexpr std::string_view kHex = "0123456789ABCDEF";
    for (uint8_t b : uri.data) {
        if (keep_raw(b)) {
            out += static_cast<char>(b);
        } else {
            out += '%';
            out += kHex[b >> 4];
            out += kHex[b & 15];
        }
    }
    return out;
}

Result<std::string, DataUriError> encode_base64_data_uri(std::string_view media_type,
                                                         ByteView data) {
    if (media_type.empty()) return fail(DataUriError::bad_media_type, "empty media type");
    auto header = parse_header(media_type, /*allow_base64=*/false);
    if (!header) return std::unexpected(header.error());
    std::string out;
    write_header(out, header->media_type, header->parameters, true);
    out += base64_encode(data);
    return out;
}

}  // namespace credence::core
