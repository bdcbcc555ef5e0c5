#include <credence/core/decimal_value.hpp>

#include <algorithm>
#include <string>

namespace credence::core {

std::string_view to_string(DecimalValueError e) noexcept {
    switch (e) {
        case DecimalValueError::malformed:
            return "malformed decimal value";
        case DecimalValueError::too_many_decimals:
            return "more than 18 decimals";
        case DecimalValueError::out_of_range:
            return "value beyond +-1e38";
    }
    return "unknown decimal value error";
}

namespace {

Uint256 pow10(unsigned n) {
    Uint256 r{1};
    for (unsigned i = 0; i < n; ++i) r = r * Uint256{10};
    return r;
}

bool is_decimal_digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

Uint256 max_abs_feedback_value() noexcept {
    static const Uint256 kMax = pow10(38);
    return kMax;
}

Result<DecimalValue, DecimalValueError> make_decimal_value(const Int256& value, unsigned decimals) {
    // ERC-8004 §Giving Feedback: "The valueDecimals MUST be between 0 and 18."
    if (decimals > kMaxValueDecimals) {
        return fail(DecimalValueError::too_many_decimals,
                    "valueDecimals " + std::to_string(decimals) + " > 18");
    }
    // Deployed ReputationRegistry: `if (value > 1e38 || value < -1e38) revert ValueOutOfRange`.
    if (value.magnitude() > max_abs_feedback_value()) {
        return fail(DecimalValueError::out_of_range, "|" + value.to_dec() + "| > 1e38");
    }
    return DecimalValue{value, static_cast<uint8_t>(decimals)};
}

Result<DecimalValue, DecimalValueError> parse_decimal_value(std::string_view text) {
    const std::string_view original = text;
    auto malformed = [&](const char* why) {
        std::string shown(original.substr(0, 64));
        if (original.size() > 64) shown += "...";
        return fail(DecimalValueError::malformed, "\"" + shown + "\": " + why);
    };
    bool negative = false;
    if (!text.empty() && text.front() == '-') {
        negative = true;
        text.remove_prefix(1);
    }
    const size_t point = text.find('.');
    const std::string_view int_part = text.substr(0, point);
    const std::string_view frac_part =
        point == std::string_view::npos ? std::string_view{} : text.substr(point + 1);
    if (int_part.empty()) return malformed("missing integer digits");
    if (!std::all_of(int_part.begin(), int_part.end(), is_decimal_digit)) {
        return malformed("only digits, one '.' and a leading '-' are allowed");
    }
    if (int_part.size() > 1 && int_part.front() == '0') return malformed("leading zero");
    if (point != std::string_view::npos) {
        if (frac_part.empty()) return malformed("missing fraction digits after '.'");
        if (!std::all_of(frac_part.begin(), frac_part.end(), is_decimal_digit)) {
            return malformed("only digits, one '.' and a leading '-' are allowed");
        }
    }
    if (frac_part.size() > kMaxValueDecimals) {
        return fail(DecimalValueError::too_many_decimals,
                    std::to_string(frac_part.size()) + " fraction digits > 18");
    }
    std::string digits;
    digits.reserve(int_part.size() + frac_part.size());
    digits.append(int_part);
    digits.append(frac_part);
    const size_t first = digits.find_first_not_of('0');
    digits.erase(0, first == std::string::npos ? digits.size() : first);
    // 1e38 has 39 digits; anything longer is out of range (and would not fit Uint256 parsing).
    if (digits.size() > 39) {
        return fail(DecimalValueError::out_of_range, "more than 39 significant digits");
    }
    Uint256 magnitude{0};
    for (char c : digits) {
        magnitude = magnitude * Uint256{10} + Uint256{static_cast<uint64_t>(c - '0')};
    }
    if (magnitude > max_abs_feedback_value()) {
        return fail(DecimalValueError::out_of_range,
                    std::string(negative ? "-" : "") + magnitude.to_dec() + " beyond 1e38");
    }
    Int256 value(magnitude);
    if (negative) value = value.negate();  // -0 stays 0
    return DecimalValue{value, static_cast<uint8_t>(frac_part.size())};
}

std::string format_decimal_value(const DecimalValue& v) {
    std::string digits = v.value.magnitude().to_dec();
    const size_t d = v.decimals;
    if (digits.size() <= d) digits.insert(0, d + 1 - digits.size(), '0');
    if (d > 0) digits.insert(digits.size() - d, 1, '.');
    if (v.value.is_negative()) digits.insert(0, 1, '-');
    return digits;
}

Int256 to_wad(const DecimalValue& v) {
    const unsigned scale = v.decimals >= kMaxValueDecimals ? 0U : kMaxValueDecimals - v.decimals;
    // Wrapping multiply is exact here: |value| <= 1e38 and 10^18 give at most 1e56.
    return Int256(v.value.bits * pow10(scale));
}

}  // namespace credence::core
