#include <credence/core/json.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <iterator>
#include <system_error>
#include <utility>

#include <credence/core/detail/utf8.hpp>

namespace credence::core {

std::string_view to_string(JsonError e) noexcept {
    switch (e) {
        case JsonError::too_large:
            return "too_large";
        case JsonError::too_deep:
            return "too_deep";
        case JsonError::bom:
            return "bom";
        case JsonError::unexpected_end:
            return "unexpected_end";
        case JsonError::unexpected_char:
            return "unexpected_char";
        case JsonError::trailing_garbage:
            return "trailing_garbage";
        case JsonError::invalid_literal:
            return "invalid_literal";
        case JsonError::invalid_number:
            return "invalid_number";
        case JsonError::number_out_of_range:
            return "number_out_of_range";
        case JsonError::invalid_utf8:
            return "invalid_utf8";
        case JsonError::invalid_escape:
            return "invalid_escape";
        case JsonError::lone_surrogate:
            return "lone_surrogate";
        case JsonError::control_character:
            return "control_character";
        case JsonError::duplicate_key:
            return "duplicate_key";
        case JsonError::non_finite_number:
            return "non_finite_number";
    }
    return "unknown";
}

// ---- JsonValue -------------------------------------------------------------------------------

JsonValue::JsonValue() noexcept : v_(nullptr) {}
JsonValue::JsonValue(std::nullptr_t) noexcept : v_(nullptr) {}
JsonValue::JsonValue(bool b) noexcept : v_(b) {}
JsonValue::JsonValue(double d) : v_(JsonNumber{d, {}}) {}
JsonValue::JsonValue(JsonNumber n) noexcept : v_(std::move(n)) {}
JsonValue::JsonValue(std::string s) noexcept : v_(std::move(s)) {}
JsonValue::JsonValue(Array a) noexcept : v_(std::move(a)) {}
JsonValue::JsonValue(Object o) noexcept : v_(std::move(o)) {}
JsonValue::JsonValue(const JsonValue&) = default;
JsonValue::JsonValue(JsonValue&&) noexcept = default;
JsonValue& JsonValue::operator=(const JsonValue&) = default;
JsonValue& JsonValue::operator=(JsonValue&&) noexcept = default;
JsonValue::~JsonValue() = default;

const JsonValue* JsonValue::find(std::string_view key) const noexcept {
    const auto* obj = std::get_if<Object>(&v_);
    if (obj == nullptr) return nullptr;
    for (const auto& m : *obj)
        if (m.key == key) return &m.value;
    return nullptr;
}

// ---- Parser ----------------------------------------------------------------------------------

namespace {

constexpr bool is_ws(char c) noexcept { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
constexpr bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

// Bytes that end the fast ASCII run inside a string: quote, backslash, controls, non-ASCII.
constexpr auto kStringSpecial = [] {
    std::array<bool, 256> t{};
    for (size_t c = 0; c < 256; ++c) t[c] = c == '"' || c == '\\' || c < 0x20 || c >= 0x80;
    return t;
}();

constexpr bool string_special(unsigned char c) noexcept { return kStringSpecial[c]; }

// One container being built. Its elements sit on the parser's shared scratch stacks from
// index `start` on (values_ for arrays, members_ for objects) and move into an exactly sized
// vector when it closes: one allocation per container, no regrowth (as RapidJSON does).
struct Frame {
    bool is_object = false;
    size_t start = 0;
};

class Parser {
public:
    Parser(std::string_view text, const ParseLimits& limits) noexcept
        : p_(text.data()), end_(text.data() + text.size()), limits_(limits) {}

    Result<JsonValue, JsonError> run();

private:
    const char* p_;
    const char* end_;
    const ParseLimits& limits_;
    std::vector<Frame> stack_;
    std::vector<JsonValue> values_;    // pending array elements of all open arrays
    std::vector<JsonMember> members_;  // pending members of all open objects
    std::vector<const std::string*> key_scratch_;

    void skip_ws() noexcept {
        while (p_ != end_ && is_ws(*p_)) ++p_;
    }
    size_t offset(const char* base) const noexcept { return static_cast<size_t>(p_ - base); }

    Result<void, JsonError> parse_string(std::string& out);
    Result<JsonValue, JsonError> parse_number();
    Result<JsonValue, JsonError> parse_literal();
    Result<void, JsonError> check_duplicates(size_t start);
    Result<void, JsonError> parse_key();
};

// RFC 8259 §7 strings, with UTF-8 validated per Unicode Table 3-7 (well-formed byte sequences).
Result<void, JsonError> Parser::parse_string(std::string& out) {
    // *p_ == '"'
    ++p_;
    out.clear();
    for (;;) {
        const char* run = p_;
        while (p_ != end_ && !string_special(static_cast<unsigned char>(*p_))) ++p_;
        out.append(run, p_);
        if (p_ == end_) return fail(JsonError::unexpected_end, "unterminated string");
        const auto c = static_cast<unsigned char>(*p_);
        if (c == '"') {
            ++p_;
            return {};
        }
        if (c < 0x20) return fail(JsonError::control_character, "unescaped control character");
        if (c == '\\') {
            ++p_;
            if (p_ == end_) return fail(JsonError::unexpected_end, "unterminated escape");
            const char e = *p_++;
            switch (e) {
                case '"':
                    out.push_back('"');
                    break;
                case '\\':
                    out.push_back('\\');
                    break;
                case '/':
                    out.push_back('/');
                    break;
                case 'b':
                    out.push_back('\b');
                    break;
                case 'f':
                    out.push_back('\f');
                    break;
                case 'n':
                    out.push_back('\n');
                    break;
                case 'r':
                    out.push_back('\r');
                    break;
                case 't':
                    out.push_back('\t');
                    break;
                case 'u': {
                    // -2: input ended, -1: a non-hex character.
                    auto read_hex4 = [this]() -> int32_t {
                        int32_t v = 0;
                        for (ptrdiff_t i = 0; i < 4; ++i) {
                            if (i == end_ - p_) return -2;
                            const int d = hex_digit_value(p_[i]);
                            if (d < 0) return -1;
                            v = (v << 4) | d;
                        }
                        p_ += 4;
                        return v;
                    };
                    int32_t u = read_hex4();
                    if (u == -2) return fail(JsonError::unexpected_end, "truncated \\u escape");
                    if (u < 0)
                        return fail(JsonError::invalid_escape, "bad hex digit in \\u escape");
                    auto cp = static_cast<uint32_t>(u);
                    if (cp >= 0xDC00 && cp <= 0xDFFF)
                        return fail(JsonError::lone_surrogate, "unpaired low surrogate");
                    if (cp >= 0xD800 && cp <= 0xDBFF) {
                        // I-JSON §2.1: a high surrogate must be followed by an escaped low one.
                        if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u')
                            return fail(JsonError::lone_surrogate, "unpaired high surrogate");
                        p_ += 2;
                        const int32_t lo = read_hex4();
                        if (lo == -2)
                            return fail(JsonError::unexpected_end, "truncated \\u escape");
                        if (lo < 0)
                            return fail(JsonError::invalid_escape, "bad hex digit in \\u escape");
                        if (lo < 0xDC00 || lo > 0xDFFF)
                            return fail(JsonError::lone_surrogate, "unpaired high surrogate");
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (static_cast<uint32_t>(lo) - 0xDC00);
                    }
                    detail::append_utf8(out, cp);
                    break;
                }
                default:
                    return fail(JsonError::invalid_escape, "unknown escape");
            }
            continue;
        }
        // Non-ASCII: one well-formed UTF-8 sequence (RFC 8259 §8.1, Unicode Table 3-7).
        const size_t len = detail::utf8_sequence_length(reinterpret_cast<const unsigned char*>(p_),
                                                        static_cast<size_t>(end_ - p_));
        if (len == 0) return fail(JsonError::invalid_utf8, "malformed UTF-8 in a string");
        out.append(p_, len);
        p_ += len;
    }
}

// RFC 8259 §6: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
Result<JsonValue, JsonError> Parser::parse_number() {
    const char* start = p_;
    if (*p_ == '-') ++p_;
    if (p_ == end_) return fail(JsonError::unexpected_end, "truncated number");
    const char* int_begin = p_;
    if (*p_ == '0') {
        ++p_;
        if (p_ != end_ && is_digit(*p_)) return fail(JsonError::invalid_number, "leading zero");
    } else if (is_digit(*p_)) {
        while (p_ != end_ && is_digit(*p_)) ++p_;
    } else {
        return fail(JsonError::invalid_number, "missing integer digits");
    }
    const char* int_end = p_;
    const char* frac_begin = p_;
    const char* frac_end = p_;
    if (p_ != end_ && *p_ == '.') {
        ++p_;
        frac_begin = p_;
        while (p_ != end_ && is_digit(*p_)) ++p_;
        frac_end = p_;
        if (frac_begin == frac_end)
            return fail(JsonError::invalid_number, "missing fraction digits");
    }
    int64_t exp = 0;
    if (p_ != end_ && (*p_ == 'e' || *p_ == 'E')) {
        ++p_;
        bool neg = false;
        if (p_ != end_ && (*p_ == '+' || *p_ == '-')) neg = *p_++ == '-';
        if (p_ == end_ || !is_digit(*p_))
            return fail(JsonError::invalid_number, "missing exponent digits");
        while (p_ != end_ && is_digit(*p_)) {
            if (exp < 1'000'000'000)
                exp = exp * 10 + (*p_ - '0');  // saturate; only the sign matters past this
            ++p_;
        }
        if (neg) exp = -exp;
    }
    JsonNumber n;
    n.text.assign(start, p_);
    const auto r = std::from_chars(start, p_, n.value);
    if (r.ec == std::errc::result_out_of_range) {
        // from_chars reports both overflow and underflow. Underflow rounds to (signed) zero, as
        // ECMAScript's JSON.parse does; overflow would be infinity, which RFC 8785 §3.2.2.3 and
        // I-JSON §2.2 exclude. Decide by the decimal magnitude of the first non-zero digit.
        int64_t magnitude = 0;
        const char* nz = std::find_if(int_begin, int_end, [](char c) { return c != '0'; });
        if (nz != int_end) {
            magnitude = (int_end - nz) - 1 + exp;
        } else {
            nz = std::find_if(frac_begin, frac_end, [](char c) { return c != '0'; });
            magnitude = -(nz - frac_begin) - 1 + exp;
        }
        if (magnitude >= 0) return fail(JsonError::number_out_of_range, "number overflows double");
        n.value = *start == '-' ? -0.0 : 0.0;
    } else if (r.ec != std::errc() || r.ptr != p_) {
        return fail(JsonError::invalid_number, "unparsable number");
    }
    return JsonValue(std::move(n));
}

Result<JsonValue, JsonError> Parser::parse_literal() {
    auto match = [this](std::string_view word) {
        if (static_cast<size_t>(end_ - p_) < word.size()) return false;
        if (std::memcmp(p_, word.data(), word.size()) != 0) return false;
        p_ += word.size();
        return true;
    };
    if (match("true")) return JsonValue(true);
    if (match("false")) return JsonValue(false);
    if (match("null")) return JsonValue(nullptr);
    return fail(JsonError::invalid_literal, "expected true, false or null");
}

// I-JSON §2.3 / RFC 8785 §3.1: member names must be unique. Names are already unescaped, so
// "a" and "\u0061" collide. Sorting pointers keeps large objects O(n log n).
Result<void, JsonError> Parser::check_duplicates(size_t start) {
    const size_t n = members_.size() - start;
    if (n < 2) return {};
    if (n <= 8) {
        for (size_t i = start; i < members_.size(); ++i)
            for (size_t j = i + 1; j < members_.size(); ++j)
                if (members_[i].key == members_[j].key)
                    return fail(JsonError::duplicate_key, "duplicate member name");
        return {};
    }
    key_scratch_.clear();
    for (size_t i = start; i < members_.size(); ++i) key_scratch_.push_back(&members_[i].key);
    std::sort(key_scratch_.begin(), key_scratch_.end(),
              [](const std::string* x, const std::string* y) { return *x < *y; });
    for (size_t i = 1; i < key_scratch_.size(); ++i)
        if (*key_scratch_[i - 1] == *key_scratch_[i])
            return fail(JsonError::duplicate_key, "duplicate member name");
    return {};
}

// Expects `"name" :` at p_ (after whitespace), pushes a member with that name and a null value
// (filled in when the value is complete), and leaves p_ at the value.
Result<void, JsonError> Parser::parse_key() {
    skip_ws();
    if (p_ == end_) return fail(JsonError::unexpected_end, "expected member name");
    if (*p_ != '"') return fail(JsonError::unexpected_char, "expected member name");
    if (auto r = parse_string(members_.emplace_back().key); !r) return std::unexpected(r.error());
    skip_ws();
    if (p_ == end_) return fail(JsonError::unexpected_end, "expected ':'");
    if (*p_ != ':') return fail(JsonError::unexpected_char, "expected ':'");
    ++p_;
    return {};
}

Result<JsonValue, JsonError> Parser::run() {
    const char* const base = p_;
    if (static_cast<size_t>(end_ - p_) > limits_.max_bytes)
        return fail(JsonError::too_large, "document exceeds size limit");
    if (end_ - p_ >= 3 && std::memcmp(p_, "\xEF\xBB\xBF", 3) == 0)
        return fail(JsonError::bom, "document starts with a UTF-8 byte-order mark");

    JsonValue value;
    for (;;) {
        // ---- parse one value at p_ (containers push a frame and loop back here) ----
        skip_ws();
        if (p_ == end_) return fail(JsonError::unexpected_end, "expected a value");
        const char c = *p_;
        bool have_value = true;
        if (c == '{' || c == '[') {
            if (stack_.size() >= limits_.max_depth)
                return fail(JsonError::too_deep,
                            "nesting deeper than " + std::to_string(limits_.max_depth));
            ++p_;
            const bool is_object = c == '{';
            skip_ws();
            if (p_ != end_ && *p_ == (is_object ? '}' : ']')) {
                ++p_;
                value = is_object ? JsonValue(JsonValue::Object{}) : JsonValue(JsonValue::Array{});
            } else {
                stack_.push_back(Frame{is_object, is_object ? members_.size() : values_.size()});
                if (is_object)
                    if (auto r = parse_key(); !r) return std::unexpected(r.error());
                have_value = false;
            }
        } else if (c == '"') {
            std::string s;
            if (auto r = parse_string(s); !r) return std::unexpected(r.error());
            value = JsonValue(std::move(s));
        } else if (c == '-' || is_digit(c)) {
            auto r = parse_number();
            if (!r) return std::unexpected(r.error());
            value = std::move(*r);
        } else if (c == 't' || c == 'f' || c == 'n') {
            auto r = parse_literal();
            if (!r) return std::unexpected(r.error());
            value = std::move(*r);
        } else {
            return fail(JsonError::unexpected_char,
                        "unexpected character at offset " + std::to_string(offset(base)));
        }
        if (!have_value) continue;

        // ---- a complete value: attach it to its container, closing containers as they end ----
        for (;;) {
            if (stack_.empty()) {
                skip_ws();
                if (p_ != end_)
                    return fail(JsonError::trailing_garbage,
                                "data after the value at offset " + std::to_string(offset(base)));
                return value;
            }
            const Frame f = stack_.back();
            if (f.is_object)
                members_.back().value = std::exchange(value, JsonValue());
            else
                values_.push_back(std::exchange(value, JsonValue()));
            skip_ws();
            if (p_ == end_) return fail(JsonError::unexpected_end, "unterminated container");
            if (*p_ == ',') {
                ++p_;
                if (f.is_object)
                    if (auto r = parse_key(); !r) return std::unexpected(r.error());
                break;  // parse the next element
            }
            if (*p_ != (f.is_object ? '}' : ']'))
                return fail(
                    JsonError::unexpected_char,
                    "expected ',' or a closing bracket at offset " + std::to_string(offset(base)));
            ++p_;
            const auto from = static_cast<ptrdiff_t>(f.start);
            if (f.is_object) {
                if (auto r = check_duplicates(f.start); !r) return std::unexpected(r.error());
                value =
                    JsonValue(JsonValue::Object(std::make_move_iterator(members_.begin() + from),
                                                std::make_move_iterator(members_.end())));
                members_.resize(f.start);
            } else {
                value = JsonValue(JsonValue::Array(std::make_move_iterator(values_.begin() + from),
                                                   std::make_move_iterator(values_.end())));
                values_.resize(f.start);
            }
            stack_.pop_back();
        }
    }
}

}  // namespace

Result<JsonValue, JsonError> parse_json(std::string_view text, const ParseLimits& limits) {
    Parser parser(text, limits);
    return parser.run();
}

}  // namespace credence::core
