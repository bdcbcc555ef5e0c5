#include <credence/core/detail/json_tape.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <limits>
#include <string>
#include <system_error>

#include <credence/core/detail/huge_pages.hpp>
#include <credence/core/detail/utf8.hpp>
#include <credence/core/jcs.hpp>

namespace credence::core::detail {

namespace {

constexpr bool is_ws(char c) noexcept { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
constexpr bool is_json_digit(char c) noexcept { return c >= '0' && c <= '9'; }

// Bytes that end the plain run inside a string: quote, backslash, controls, non-ASCII.
constexpr auto kStringSpecial = [] {
    std::array<bool, 256> t{};
    for (size_t c = 0; c < 256; ++c) t[c] = c == '"' || c == '\\' || c < 0x20 || c >= 0x80;
    return t;
}();

constexpr bool string_special(char c) noexcept {
    return kStringSpecial[static_cast<unsigned char>(c)];
}

// First string-special byte at or after p, eight bytes at a time (the classic "has zero byte" /
// "has byte less than" word tricks; a hit only sends the tail to the byte loop).
const char* skip_plain(const char* p, const char* end) noexcept {
    constexpr uint64_t kOnes = 0x0101010101010101ULL;
    constexpr uint64_t kHigh = 0x8080808080808080ULL;
    while (end - p >= 8) {
        uint64_t w;
        std::memcpy(&w, p, 8);
        const uint64_t quote = w ^ (kOnes * '"');
        const uint64_t slash = w ^ (kOnes * '\\');
        const uint64_t hit = ((w - kOnes * 0x20) | (quote - kOnes) | (slash - kOnes)) & ~w & kHigh;
        if ((hit | (w & kHigh)) != 0) break;
        p += 8;
    }
    while (p != end && !string_special(*p)) ++p;
    return p;
}

// One open container. Its pending member keys (objects, canonical or duplicate checks) sit on
// the parser's shared key stack from index `keys_start` on.
struct Frame {
    uint32_t node = 0;
    uint32_t count = 0;
    uint32_t keys_start = 0;
    bool is_object = false;
};

class TapeParser {
public:
    TapeParser(std::string_view text, const ParseLimits& limits, TapeMode mode,
               JsonTape& out) noexcept
        : base_(text.data()),
          p_(text.data()),
          end_(text.data() + text.size()),
          limits_(limits),
          mode_(mode),
          tape_(out) {}

    Result<void, JsonError> run();
    /// Where parsing stopped: the byte offset of the input a failure points at.
    [[nodiscard]] size_t position() const noexcept { return static_cast<size_t>(p_ - base_); }

private:
    const char* const base_;
    const char* p_;
    const char* const end_;
    const ParseLimits& limits_;
    const TapeMode mode_;
    JsonTape& tape_;
    std::vector<Frame> stack_;
    std::vector<uint32_t> keys_;  // key node indices of the members of all open objects

    void skip_ws() noexcept {
        while (p_ != end_ && is_ws(*p_)) ++p_;
    }
    Result<uint32_t, JsonError> push(TapeNode n) {
        if (tape_.nodes.size() >= std::numeric_limits<uint32_t>::max())
            return fail(JsonError::too_large, "too many values");
        tape_.nodes.push_back(n);
        // RFC 8785 §3.2.2.2 escapes a byte as at most 6 ("\u001f"); literals are at most 5.
        switch (n.kind) {
            case JsonKind::string:
                tape_.output_bound +=
                    ((n.flags & TapeNode::kInScratch) != 0 ? size_t{6} * n.size : n.size) + 3;
                break;
            case JsonKind::number:
                tape_.output_bound += n.size + 1;
                break;
            default:
                tape_.output_bound += 6;
        }
        return static_cast<uint32_t>(tape_.nodes.size() - 1);
    }

    Result<void, JsonError> parse_string();
    Result<void, JsonError> unescape_rest(const char* start);
    Result<void, JsonError> parse_number();
    Result<void, JsonError> parse_literal();
    Result<void, JsonError> parse_key(Frame& f);
    Result<void, JsonError> close_object(Frame& f);
};

// RFC 8259 §7 strings, with UTF-8 validated per Unicode Table 3-7 (well-formed byte sequences).
// A string without escapes stays a view of the input: its canonical form (RFC 8785 §3.2.2.2) is
// its input bytes, since the input cannot hold a raw quote, backslash or control character.
Result<void, JsonError> TapeParser::parse_string() {
    ++p_;  // the opening quote
    const char* const start = p_;
    for (;;) {
        p_ = skip_plain(p_, end_);
        if (p_ == end_) return fail(JsonError::unexpected_end, "unterminated string");
        const char c = *p_;
        if (c == '"') {
            const auto size = static_cast<size_t>(p_ - start);
            if (size > std::numeric_limits<uint32_t>::max())
                return fail(JsonError::too_large, "string too long");
            ++p_;
            auto r = push(TapeNode{JsonKind::string, 0, static_cast<uint32_t>(size),
                                   static_cast<uint64_t>(start - base_)});
            if (!r) return std::unexpected(r.error());
            return {};
        }
        if (c == '\\') return unescape_rest(start);
        if (static_cast<unsigned char>(c) < 0x20)
            return fail(JsonError::control_character, "unescaped control character");
        // Non-ASCII: well-formed UTF-8 sequences (RFC 8259 §8.1, Unicode Table 3-7).
        do {
            const size_t len = utf8_sequence_length(reinterpret_cast<const unsigned char*>(p_),
                                                    static_cast<size_t>(end_ - p_));
            if (len == 0) return fail(JsonError::invalid_utf8, "malformed UTF-8 in a string");
            p_ += len;
        } while (p_ != end_ && static_cast<unsigned char>(*p_) >= 0x80);
    }
}

// The rest of a string from its first backslash (at p_), unescaped into the scratch buffer.
Result<void, JsonError> TapeParser::unescape_rest(const char* start) {
    std::string& out = tape_.scratch;
    const size_t out_start = out.size();
    out.append(start, p_);
    for (;;) {
        const char* run = p_;
        p_ = skip_plain(p_, end_);
        out.append(run, p_);
        if (p_ == end_) return fail(JsonError::unexpected_end, "unterminated string");
        const auto c = static_cast<unsigned char>(*p_);
        if (c == '"') {
            ++p_;
            const size_t size = out.size() - out_start;
            if (size > std::numeric_limits<uint32_t>::max())
                return fail(JsonError::too_large, "string too long");
            auto r = push(TapeNode{JsonKind::string, TapeNode::kInScratch,
                                   static_cast<uint32_t>(size), out_start});
            if (!r) return std::unexpected(r.error());
            return {};
        }
        if (c < 0x20) return fail(JsonError::control_character, "unescaped control character");
        if (c >= 0x80) {
            const size_t len = utf8_sequence_length(reinterpret_cast<const unsigned char*>(p_),
                                                    static_cast<size_t>(end_ - p_));
            if (len == 0) return fail(JsonError::invalid_utf8, "malformed UTF-8 in a string");
            out.append(p_, len);
            p_ += len;
            continue;
        }
        // c == '\\'
        ++p_;
        if (p_ == end_) return fail(JsonError::unexpected_end, "unterminated escape");
        const char e = *p_++;
        switch (e) {
            case '"':
            case '\\':
            case '/':
                out.push_back(e);
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
                const int32_t u = read_hex4();
                if (u == -2) return fail(JsonError::unexpected_end, "truncated \\u escape");
                if (u < 0) return fail(JsonError::invalid_escape, "bad hex digit in \\u escape");
                auto cp = static_cast<uint32_t>(u);
                if (cp >= 0xDC00 && cp <= 0xDFFF)
                    return fail(JsonError::lone_surrogate, "unpaired low surrogate");
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    // I-JSON §2.1: a high surrogate must be followed by an escaped low one.
                    if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u')
                        return fail(JsonError::lone_surrogate, "unpaired high surrogate");
                    p_ += 2;
                    const int32_t lo = read_hex4();
                    if (lo == -2) return fail(JsonError::unexpected_end, "truncated \\u escape");
                    if (lo < 0)
                        return fail(JsonError::invalid_escape, "bad hex digit in \\u escape");
                    if (lo < 0xDC00 || lo > 0xDFFF)
                        return fail(JsonError::lone_surrogate, "unpaired high surrogate");
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (static_cast<uint32_t>(lo) - 0xDC00);
                }
                append_utf8(out, cp);
                break;
            }
            default:
                return fail(JsonError::invalid_escape, "unknown escape");
        }
    }
}

// RFC 8259 §6: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
Result<void, JsonError> TapeParser::parse_number() {
    const char* start = p_;
    if (*p_ == '-') ++p_;
    if (p_ == end_) return fail(JsonError::unexpected_end, "truncated number");
    const char* int_begin = p_;
    if (*p_ == '0') {
        ++p_;
        if (p_ != end_ && is_json_digit(*p_))
            return fail(JsonError::invalid_number, "leading zero");
    } else if (is_json_digit(*p_)) {
        while (p_ != end_ && is_json_digit(*p_)) ++p_;
    } else {
        return fail(JsonError::invalid_number, "missing integer digits");
    }
    const char* int_end = p_;
    const char* frac_begin = p_;
    const char* frac_end = p_;
    if (p_ != end_ && *p_ == '.') {
        ++p_;
        frac_begin = p_;
        while (p_ != end_ && is_json_digit(*p_)) ++p_;
        frac_end = p_;
        if (frac_begin == frac_end)
            return fail(JsonError::invalid_number, "missing fraction digits");
    }
    bool has_exp = false;
    int64_t exp = 0;
    if (p_ != end_ && (*p_ == 'e' || *p_ == 'E')) {
        has_exp = true;
        ++p_;
        bool neg = false;
        if (p_ != end_ && (*p_ == '+' || *p_ == '-')) neg = *p_++ == '-';
        if (p_ == end_ || !is_json_digit(*p_))
            return fail(JsonError::invalid_number, "missing exponent digits");
        while (p_ != end_ && is_json_digit(*p_)) {
            if (exp < 1'000'000'000)
                exp = exp * 10 + (*p_ - '0');  // saturate; only the sign matters past this
            ++p_;
        }
        if (neg) exp = -exp;
    }
    const auto size = static_cast<size_t>(p_ - start);
    if (size > std::numeric_limits<uint32_t>::max())
        return fail(JsonError::too_large, "number too long");
    TapeNode node{JsonKind::number, 0, static_cast<uint32_t>(size),
                  static_cast<uint64_t>(start - base_)};

    // Text that is already its own ECMAScript form (RFC 8785 §3.2.2.3) needs no conversion:
    // no exponent, at most 15 significant digits (so it is the shortest round-trip form of its
    // double, DBL_DIG = 15), no trailing fraction zero, below 1e21 and not below 1e-6 (the
    // plain-notation range), and not "-0". Such a number is also far from overflow.
    const bool zero_int = int_end - int_begin == 1 && *int_begin == '0';
    const char* first_sig = int_begin;
    if (zero_int) first_sig = std::find_if(frac_begin, frac_end, [](char c) { return c != '0'; });
    const bool has_frac = frac_end != frac_begin;
    const char* last = has_frac ? frac_end : int_end;
    const ptrdiff_t sig_digits = (last - first_sig) - (has_frac && first_sig < int_end ? 1 : 0);
    const bool plain = !has_exp && sig_digits <= 15 && (!has_frac || frac_end[-1] != '0') &&
                       (!zero_int || !has_frac || first_sig - frac_begin <= 5) &&
                       !(zero_int && !has_frac && *start == '-');
    if (plain) {
        auto r = push(node);
        if (!r) return std::unexpected(r.error());
        return {};
    }

    double value = 0;
    const auto r = std::from_chars(start, p_, value);
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
        value = 0;
    } else if (r.ec != std::errc() || r.ptr != p_) {
        return fail(JsonError::invalid_number, "unparsable number");
    }
    if (mode_ == TapeMode::canonical) {
        std::string& out = tape_.scratch;
        const size_t at = out.size();
        append_es6_number(out, value);
        node.flags = TapeNode::kInScratch;
        node.size = static_cast<uint32_t>(out.size() - at);
        node.data = at;
    }
    auto pushed = push(node);
    if (!pushed) return std::unexpected(pushed.error());
    return {};
}

Result<void, JsonError> TapeParser::parse_literal() {
    auto match = [this](std::string_view word) {
        if (static_cast<size_t>(end_ - p_) < word.size()) return false;
        if (std::memcmp(p_, word.data(), word.size()) != 0) return false;
        p_ += word.size();
        return true;
    };
    TapeNode n;
    if (match("true")) {
        n = TapeNode{JsonKind::boolean, TapeNode::kTrue, 0, 0};
    } else if (match("false")) {
        n = TapeNode{JsonKind::boolean, 0, 0, 0};
    } else if (match("null")) {
        n = TapeNode{JsonKind::null, 0, 0, 0};
    } else {
        return fail(JsonError::invalid_literal, "expected true, false or null");
    }
    auto r = push(n);
    if (!r) return std::unexpected(r.error());
    return {};
}

// Expects `"name" :` at p_ (after whitespace), pushes the name's node and leaves p_ at the value.
Result<void, JsonError> TapeParser::parse_key(Frame& f) {
    skip_ws();
    if (p_ == end_) return fail(JsonError::unexpected_end, "expected member name");
    if (*p_ != '"') return fail(JsonError::unexpected_char, "expected member name");
    keys_.push_back(static_cast<uint32_t>(tape_.nodes.size()));
    if (auto r = parse_string(); !r) return r;
    ++f.count;
    skip_ws();
    if (p_ == end_) return fail(JsonError::unexpected_end, "expected ':'");
    if (*p_ != ':') return fail(JsonError::unexpected_char, "expected ':'");
    ++p_;
    return {};
}

// I-JSON §2.3 / RFC 8785 §3.1: member names must be unique. Names are compared unescaped, so
// "a" and "\u0061" collide. Canonical mode sorts the names anyway (RFC 8785 §3.2.3), so equal
// names end up side by side; otherwise small objects compare pairwise and large ones sort.
Result<void, JsonError> TapeParser::close_object(Frame& f) {
    const auto first = keys_.begin() + f.keys_start;
    const auto last = keys_.end();
    auto key = [this](uint32_t i) { return tape_.text(tape_.nodes[i]); };
    const auto dup = [] { return fail(JsonError::duplicate_key, "duplicate member name"); };
    if (mode_ == TapeMode::canonical) {
        std::sort(first, last,
                  [&key](uint32_t a, uint32_t b) { return compare_utf16(key(a), key(b)) < 0; });
        for (auto it = first; it != last && it + 1 != last; ++it)
            if (key(*it) == key(*(it + 1))) return dup();
        const size_t at = tape_.order.size();
        if (at > std::numeric_limits<uint32_t>::max())
            return fail(JsonError::too_large, "too many members");
        tape_.order.insert(tape_.order.end(), first, last);
        tape_.nodes[f.node].data |= static_cast<uint64_t>(at) << 32;
    } else if (last - first <= 8) {
        for (auto i = first; i != last; ++i)
            for (auto j = i + 1; j != last; ++j)
                if (key(*i) == key(*j)) return dup();
    } else {
        std::sort(first, last, [&key](uint32_t a, uint32_t b) { return key(a) < key(b); });
        for (auto it = first; it + 1 != last; ++it)
            if (key(*it) == key(*(it + 1))) return dup();
    }
    keys_.resize(f.keys_start);
    return {};
}

Result<void, JsonError> TapeParser::run() {
    if (static_cast<size_t>(end_ - p_) > limits_.max_bytes)
        return fail(JsonError::too_large, "document exceeds size limit");
    if (end_ - p_ >= 3 && std::memcmp(p_, "\xEF\xBB\xBF", 3) == 0)
        return fail(JsonError::bom, "document starts with a UTF-8 byte-order mark");
    // Every value but the last takes at least two input bytes ("1," or "1]"), so this reserve
    // never regrows. It is address space only: pages are touched as nodes are written.
    tape_.nodes.reserve(static_cast<size_t>(end_ - p_) / 2 + 2);
    advise_huge_pages(tape_.nodes.data(), tape_.nodes.capacity() * sizeof(TapeNode));

    for (;;) {
        // ---- parse one value at p_ (containers push a frame and loop back here) ----
        skip_ws();
        if (p_ == end_) return fail(JsonError::unexpected_end, "expected a value");
        const char c = *p_;
        bool have_value = true;
        if (c == '{' || c == '[') {
            // The limit holds before anything is built for the new level.
            if (stack_.size() >= limits_.max_depth)
                return fail(JsonError::too_deep,
                            "nesting deeper than " + std::to_string(limits_.max_depth));
            ++p_;
            const bool is_object = c == '{';
            auto idx = push(TapeNode{is_object ? JsonKind::object : JsonKind::array, 0, 0, 0});
            if (!idx) return std::unexpected(idx.error());
            skip_ws();
            if (p_ != end_ && *p_ == (is_object ? '}' : ']')) {
                ++p_;
                tape_.nodes[*idx].data = *idx + 1;  // end; an empty object has no order
            } else {
                stack_.push_back(Frame{*idx, 0, static_cast<uint32_t>(keys_.size()), is_object});
                if (is_object) {
                    if (auto r = parse_key(stack_.back()); !r) return r;
                } else {
                    stack_.back().count = 1;
                }
                have_value = false;
            }
        } else if (c == '"') {
            if (auto r = parse_string(); !r) return r;
        } else if (c == '-' || is_json_digit(c)) {
            if (auto r = parse_number(); !r) return r;
        } else if (c == 't' || c == 'f' || c == 'n') {
            if (auto r = parse_literal(); !r) return r;
        } else {
            return fail(JsonError::unexpected_char, "unexpected character");
        }
        if (!have_value) continue;

        // ---- a complete value: continue its container, closing containers as they end ----
        for (;;) {
            if (stack_.empty()) {
                skip_ws();
                if (p_ != end_) return fail(JsonError::trailing_garbage, "data after the value");
                return {};
            }
            Frame& f = stack_.back();
            skip_ws();
            if (p_ == end_) return fail(JsonError::unexpected_end, "unterminated container");
            if (*p_ == ',') {
                ++p_;
                if (f.is_object) {
                    if (auto r = parse_key(f); !r) return r;
                } else {
                    ++f.count;
                }
                break;  // parse the next element
            }
            if (*p_ != (f.is_object ? '}' : ']'))
                return fail(JsonError::unexpected_char, "expected ',' or a closing bracket");
            ++p_;
            if (f.is_object)
                if (auto r = close_object(f); !r) return r;
            TapeNode& node = tape_.nodes[f.node];
            node.size = f.count;
            node.data |= static_cast<uint32_t>(tape_.nodes.size());
            stack_.pop_back();
        }
    }
}

}  // namespace

TextPosition text_position(std::string_view text, size_t offset) noexcept {
    TextPosition at;
    const size_t end = std::min(offset, text.size());
    for (size_t i = 0; i < end; ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c == '\n') {
            ++at.line;
            at.column = 1;
        } else if ((c & 0xC0U) != 0x80U) {
            ++at.column;  // UTF-8 continuation bytes belong to the code point before them
        }
    }
    return at;
}

Result<void, JsonError> parse_tape(std::string_view text, const ParseLimits& limits, TapeMode mode,
                                   JsonTape& out) {
    out.input = text;
    out.nodes.clear();
    out.scratch.clear();
    out.order.clear();
    out.output_bound = 0;
    TapeParser parser(text, limits, mode, out);
    auto parsed = parser.run();
    if (!parsed) {
        // Every failure says where, as an editor counts: line and column (in code points) from 1.
        const TextPosition at = text_position(text, parser.position());
        parsed.error().detail +=
            " at line " + std::to_string(at.line) + ", column " + std::to_string(at.column);
    }
    return parsed;
}

}  // namespace credence::core::detail
