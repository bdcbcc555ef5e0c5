#include <credence/api/detail/rest_common.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

#include <fmt/format.h>

#include <credence/core/uint256.hpp>
#include <credence/index/verification_table.hpp>

namespace credence::api::detail {

namespace {

constexpr size_t kMaxTextParam = 256;
constexpr size_t kMaxAddresses = 1000;

}  // namespace

ApiError bad_parameter(std::string message) { return {400, "bad_parameter", std::move(message)}; }

ApiError not_found(std::string message) { return {404, "not_found", std::move(message)}; }

ApiError unknown_chain(uint64_t chain_id) {
    return {404, "unknown_chain", fmt::format("this node follows no chain {}", chain_id)};
}

std::string agent_registry_of(uint64_t chain_id, const core::Address& identity) {
    return fmt::format("eip155:{}:{}", chain_id, identity.to_checksum_hex());
}

ApiResult<uint64_t> parse_chain_id(std::string_view text) {
    uint64_t value = 0;
    const std::string digits(text);
    const char* end = digits.data() + digits.size();
    const auto [at, ec] = std::from_chars(digits.data(), end, value);
    // Canonical decimal (CAIP-2 eip155 reference): no sign, no leading zero, no trailing text.
    const bool canonical = !text.empty() && ec == std::errc{} && at == end &&
                           (text.size() == 1 || text.front() != '0');
    if (!canonical || value == 0 ||
        value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        return std::unexpected(bad_parameter("chain must be a chain id: decimal, 1..2^63-1"));
    }
    return value;
}

ApiError unavailable(const index::DbError& error) {
    // docs/api.md §Errors: the client learns only that the database failed.
    return {503, "unavailable", "database unavailable", error.to_string(),
            error.kind == index::DbErrorKind::corrupt};
}

index::DbValue chain(const Ctx& ctx) { return static_cast<int64_t>(ctx.scope.chain_id); }

bool is_valid_utf8(std::string_view text) noexcept {
    // Structural check (RFC 3629): no overlongs, no surrogates, nothing above U+10FFFF.
    size_t i = 0;
    const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
    while (i < text.size()) {
        const unsigned char c = byte(i);
        if (c < 0x80) {
            ++i;
            continue;
        }
        size_t extra = 0;
        uint32_t cp = 0;
        uint32_t min = 0;
        if ((c & 0xE0) == 0xC0) {
            extra = 1;
            cp = c & 0x1FU;
            min = 0x80;
        } else if ((c & 0xF0) == 0xE0) {
            extra = 2;
            cp = c & 0x0FU;
            min = 0x800;
        } else if ((c & 0xF8) == 0xF0) {
            extra = 3;
            cp = c & 0x07U;
            min = 0x10000;
        } else {
            return false;
        }
        if (i + extra >= text.size()) return false;
        for (size_t k = 1; k <= extra; ++k) {
            const unsigned char cc = byte(i + k);
            if ((cc & 0xC0) != 0x80) return false;
            cp = (cp << 6) | (cc & 0x3FU);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
        i += extra + 1;
    }
    return true;
}

ApiResult<void> check_params(const HttpRequest& request,
                             std::initializer_list<std::string_view> allowed) {
    for (const auto& [name, value] : request.query) {
        if (std::ranges::find(allowed, std::string_view(name)) == allowed.end()) {
            std::string shown = is_valid_utf8(name) ? name.substr(0, 64) : "<bad UTF-8>";
            return std::unexpected(
                ApiError{400, "unknown_parameter", fmt::format("unknown parameter '{}'", shown)});
        }
    }
    return {};
}

ApiResult<std::optional<std::string>> text_param(const HttpRequest& request,
                                                 std::string_view name) {
    const std::string* value = request.param(name);
    if (value == nullptr) return std::optional<std::string>{};
    if (value->size() > kMaxTextParam) {
        return std::unexpected(
            bad_parameter(fmt::format("{} is longer than {} bytes", name, kMaxTextParam)));
    }
    if (!is_valid_utf8(*value)) {
        return std::unexpected(bad_parameter(fmt::format("{} is not valid UTF-8", name)));
    }
    return std::optional<std::string>{*value};
}

ApiResult<std::optional<bool>> bool_param(const HttpRequest& request, std::string_view name) {
    const std::string* value = request.param(name);
    if (value == nullptr) return std::optional<bool>{};
    if (*value == "true" || *value == "1") return std::optional<bool>{true};
    if (*value == "false" || *value == "0") return std::optional<bool>{false};
    return std::unexpected(bad_parameter(fmt::format("{} must be true or false", name)));
}

ApiResult<int64_t> int_param(const HttpRequest& request, std::string_view name, int64_t min,
                             int64_t max, int64_t fallback) {
    const std::string* value = request.param(name);
    if (value == nullptr) return fallback;
    int64_t parsed = 0;
    const char* end = value->data() + value->size();
    const auto [ptr, ec] = std::from_chars(value->data(), end, parsed);
    if (ec != std::errc{} || ptr != end || parsed < min || parsed > max) {
        return std::unexpected(
            bad_parameter(fmt::format("{} must be an integer from {} to {}", name, min, max)));
    }
    return parsed;
}

ApiResult<std::optional<double>> number_param(const HttpRequest& request, std::string_view name) {
    const std::string* value = request.param(name);
    if (value == nullptr) return std::optional<double>{};
    double parsed = 0;
    const char* end = value->data() + value->size();
    const auto [ptr, ec] = std::from_chars(value->data(), end, parsed);
    if (value->empty() || ec != std::errc{} || ptr != end || !std::isfinite(parsed)) {
        return std::unexpected(bad_parameter(fmt::format("{} must be a number", name)));
    }
    return std::optional<double>{parsed};
}

ApiResult<size_t> limit_param(const HttpRequest& request) {
    auto limit = int_param(request, "limit", 1, 100, 20);
    if (!limit) return std::unexpected(limit.error());
    return static_cast<size_t>(*limit);
}

ApiResult<core::Address> parse_address(std::string_view text, std::string_view what) {
    auto address = core::Address::from_hex(text, core::ChecksumMode::ignore);
    if (!address) {
        return std::unexpected(bad_parameter(fmt::format("{} is not an address", what)));
    }
    return *address;
}

ApiResult<std::vector<core::Address>> address_list(const HttpRequest& request,
                                                   std::string_view name) {
    std::vector<core::Address> out;
    for (const auto& [key, value] : request.query) {
        if (key != name) continue;
        std::string_view rest = value;
        while (true) {
            const size_t comma = rest.find(',');
            const std::string_view item = rest.substr(0, comma);
            if (!item.empty()) {
                auto address = parse_address(item, name);
                if (!address) return std::unexpected(address.error());
                out.push_back(*address);
                if (out.size() > kMaxAddresses) {
                    return std::unexpected(
                        bad_parameter(fmt::format("at most {} {} values", kMaxAddresses, name)));
                }
            }
            if (comma == std::string_view::npos) break;
            rest.remove_prefix(comma + 1);
        }
    }
    return out;
}

ApiResult<core::Bytes> parse_uint256_id(std::string_view text, std::string_view what) {
    // Uint256::parse reads 0x-hex or decimal and refuses values past 2^256 - 1.
    const bool digits_only =
        !text.empty() && text.size() <= 80 && std::ranges::all_of(text, [](char c) {
            return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') ||
                   c == 'x' || c == 'X';
        });
    if (!digits_only) {
        return std::unexpected(bad_parameter(fmt::format("{} is not a uint256", what)));
    }
    auto value = core::Uint256::parse(text);
    if (!value) return std::unexpected(bad_parameter(fmt::format("{} is not a uint256", what)));
    const core::Hash32 word = value->to_word();
    return core::Bytes(word.begin(), word.end());
}

ApiResult<core::Bytes> parse_hash32(std::string_view text, std::string_view what) {
    if (text.size() != 66 || !text.starts_with("0x")) {
        return std::unexpected(bad_parameter(fmt::format("{} is not a 32-byte hash", what)));
    }
    auto bytes = core::from_prefixed_hex(text);
    if (!bytes || bytes->size() != 32) {
        return std::unexpected(bad_parameter(fmt::format("{} is not a 32-byte hash", what)));
    }
    return std::move(*bytes);
}

std::string encode_cursor(std::string_view route, std::span<const std::string> parts) {
    std::string text(route);
    for (const auto& part : parts) {
        text += '|';
        text += part;
    }
    return core::to_hex(core::as_bytes(text), false);
}

ApiResult<std::vector<std::string>> decode_cursor(std::string_view cursor, std::string_view route,
                                                  size_t parts) {
    const auto bad = [] { return std::unexpected(ApiError{400, "bad_cursor", "bad cursor"}); };
    if (cursor.size() > 1024) return bad();
    auto bytes = core::from_hex(cursor);
    if (!bytes) return bad();
    const std::string text(bytes->begin(), bytes->end());
    std::vector<std::string> out;
    size_t start = 0;
    while (true) {
        const size_t bar = text.find('|', start);
        out.push_back(
            text.substr(start, bar == std::string::npos ? std::string::npos : bar - start));
        if (bar == std::string::npos) break;
        start = bar + 1;
    }
    if (out.size() != parts + 1 || out.front() != route) return bad();
    out.erase(out.begin());
    return out;
}

std::string ascii_lower(std::string_view text) {
    std::string out(text);
    std::ranges::transform(out, out.begin(), [](char c) {
        return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
    });
    return out;
}

std::string like_substring(std::string_view value) {
    std::string out = "%";
    for (char c : ascii_lower(value)) {
        if (c == '%' || c == '_' || c == '\\') out += '\\';
        out += c;
    }
    out += "%";
    return out;
}

Json comma_list(std::string_view wrapped) {
    Json out = Json::array();
    size_t start = 0;
    while (start < wrapped.size()) {
        const size_t comma = wrapped.find(',', start);
        const size_t end = comma == std::string_view::npos ? wrapped.size() : comma;
        if (end > start) out.push_back(std::string(wrapped.substr(start, end - start)));
        start = end + 1;
    }
    return out;
}

std::optional<int64_t> as_int(const index::DbValue& value) noexcept {
    if (const auto* v = std::get_if<int64_t>(&value)) return *v;
    return std::nullopt;
}

std::optional<double> as_real(const index::DbValue& value) noexcept {
    if (const auto* v = std::get_if<double>(&value)) return *v;
    if (const auto* v = std::get_if<int64_t>(&value)) return static_cast<double>(*v);
    return std::nullopt;
}

std::optional<std::string> as_text(const index::DbValue& value) {
    if (const auto* v = std::get_if<std::string>(&value)) return *v;
    return std::nullopt;
}

core::Bytes as_bytes(const index::DbValue& value) {
    if (const auto* v = std::get_if<core::Bytes>(&value)) return *v;
    return {};
}

Json int_or_null(const index::DbValue& value) {
    auto v = as_int(value);
    return v ? Json(*v) : Json(nullptr);
}

Json real_or_null(const index::DbValue& value) {
    auto v = as_real(value);
    return v ? Json(*v) : Json(nullptr);
}

Json text_or_null(const index::DbValue& value) {
    auto v = as_text(value);
    return v ? Json(std::move(*v)) : Json(nullptr);
}

Json nonempty_text_or_null(const index::DbValue& value) {
    auto v = as_text(value);
    return v && !v->empty() ? Json(std::move(*v)) : Json(nullptr);
}

Json address_or_null(const index::DbValue& value) {
    const auto* bytes = std::get_if<core::Bytes>(&value);
    if (bytes == nullptr) return nullptr;
    auto address = core::Address::from_bytes(*bytes);
    return address ? Json(address->to_checksum_hex()) : Json(nullptr);
}

Json hex_or_null(const index::DbValue& value) {
    const auto* bytes = std::get_if<core::Bytes>(&value);
    return bytes == nullptr ? Json(nullptr) : Json(core::to_hex(*bytes));
}

Json uint256_or_null(const index::DbValue& value) {
    const auto* bytes = std::get_if<core::Bytes>(&value);
    if (bytes == nullptr) return nullptr;
    auto v = core::Uint256::from_be_bytes(*bytes);
    return v ? Json(v->to_dec()) : Json(nullptr);
}

index::DbValue blob(const core::Address& address) {
    return core::Bytes(address.bytes.begin(), address.bytes.end());
}

index::DbValue blob(core::ByteView bytes) { return core::Bytes(bytes.begin(), bytes.end()); }

Json stored_json(const std::string& text) {
    Json parsed = Json::parse(text, nullptr, false);
    if (parsed.is_discarded()) return text;
    return parsed;
}

Json verification_json(const index::VerificationRecord& record) {
    return Json{{"status", std::string(index::to_string(record.status))},
                {"reason", record.reason},
                {"detail", record.detail},
                {"checked_at", record.checked_at},
                {"covers_block_num", record.covers_block_num},
                {"report", stored_json(record.report_json)}};
}

std::string placeholders(size_t first, size_t count) {
    std::string out = "(";
    for (size_t i = 0; i < count; ++i) {
        if (i > 0) out += ", ";
        out += fmt::format("${}", first + i);
    }
    out += ")";
    return out;
}

}  // namespace credence::api::detail
