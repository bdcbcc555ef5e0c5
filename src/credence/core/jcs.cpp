#include <credence/core/jcs.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <numeric>
#include <vector>

#include <credence/core/detail/huge_pages.hpp>
#include <credence/core/detail/json_tape.hpp>
#include <credence/core/detail/utf8.hpp>

namespace credence::core {

namespace {

using detail::utf8_decode;
using detail::utf8_sequence_length;

// Code point of the UTF-8 sequence at s (avail bytes left). Malformed input (only possible
// when compare_utf16's precondition is broken) yields the lead byte, never a read past the end.
uint32_t decode_at(const unsigned char* s, size_t avail) noexcept {
    const size_t len = utf8_sequence_length(s, avail);
    return len == 0 ? s[0] : utf8_decode(s, len);
}

// First UTF-16 code unit of a code point: the high surrogate for supplementary characters.
constexpr uint32_t first_utf16_unit(uint32_t cp) noexcept {
    return cp < 0x10000 ? cp : 0xD800 + ((cp - 0x10000) >> 10);
}

bool valid_utf8(std::string_view s) noexcept {
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    size_t i = 0;
    while (i < s.size()) {
        const size_t len = utf8_sequence_length(p + i, s.size() - i);
        if (len == 0) return false;
        i += len;
    }
    return true;
}

// RFC 8785 §3.2.2.2: escape only what JSON requires; the short forms where they exist, else
// \u00xx with lowercase hex. Everything else (including U+007F and non-ASCII) stays literal.
void append_string(std::string& out, std::string_view s) {
    static constexpr char kHex[] = "0123456789abcdef";
    out.push_back('"');
    size_t run = 0;
    for (size_t i = 0; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        out.append(s.data() + run, i - run);
        run = i + 1;
        switch (c) {
            case '"':
                out.append("\\\"");
                break;
            case '\\':
                out.append("\\\\");
                break;
            case '\b':
                out.append("\\b");
                break;
            case '\f':
                out.append("\\f");
                break;
            case '\n':
                out.append("\\n");
                break;
            case '\r':
                out.append("\\r");
                break;
            case '\t':
                out.append("\\t");
                break;
            default: {
                const char esc[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
                out.append(esc, 6);
            }
        }
    }
    out.append(s.data() + run, s.size() - run);
    out.push_back('"');
}

// RFC 8785 §3.2.3: members in UTF-16 code-unit order of their names. The DOM keeps input order,
// so this sorts indices; equal neighbours mean a duplicate name (hand-built DOMs only).
Result<std::vector<uint32_t>, JcsError> sorted_members(const JsonValue::Object& obj) {
    std::vector<uint32_t> order(obj.size());
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(),
              [&obj](uint32_t a, uint32_t b) { return compare_utf16(obj[a].key, obj[b].key) < 0; });
    for (size_t i = 1; i < order.size(); ++i)
        if (obj[order[i - 1]].key == obj[order[i]].key)
            return fail(JcsError::duplicate_key, "duplicate member name");
    return order;
}

// Serializes a DOM with an explicit stack (no recursion, whatever the depth). Nothing in a DOM
// is trusted: a hand-built one may hold invalid UTF-8, NaN or repeated names.
Result<void, JcsError> write_dom(const JsonValue& root, std::string& out) {
    struct Open {
        const JsonValue* value;
        std::vector<uint32_t> order;  // objects: member indices in canonical order
        size_t next = 0;
    };
    std::vector<Open> stack;
    const JsonValue* v = &root;
    for (;;) {
        // ---- write the value v (containers write their opening and push a frame) ----
        switch (v->kind()) {
            case JsonKind::null:
                out.append("null");
                break;
            case JsonKind::boolean:
                out.append(v->as_bool() ? "true" : "false");
                break;
            case JsonKind::number: {
                const double d = v->as_number().value;
                if (!std::isfinite(d))
                    return fail(JcsError::non_finite_number, "NaN or infinity has no JSON form");
                append_es6_number(out, d);
                break;
            }
            case JsonKind::string:
                if (!valid_utf8(v->as_string()))
                    return fail(JcsError::invalid_utf8, "string is not valid UTF-8");
                append_string(out, v->as_string());
                break;
            case JsonKind::array:
                out.push_back('[');
                stack.push_back({v, {}});
                break;
            case JsonKind::object: {
                for (const auto& m : v->as_object())
                    if (!valid_utf8(m.key))
                        return fail(JcsError::invalid_utf8, "member name is not valid UTF-8");
                auto order = sorted_members(v->as_object());
                if (!order) return std::unexpected(order.error());
                out.push_back('{');
                stack.push_back({v, std::move(*order)});
                break;
            }
        }
        // ---- find the next value to write, closing finished containers ----
        for (;;) {
            if (stack.empty()) return {};
            Open& top = stack.back();
            if (top.value->is_array()) {
                const auto& arr = top.value->as_array();
                if (top.next < arr.size()) {
                    if (top.next > 0) out.push_back(',');
                    v = &arr[top.next++];
                    break;
                }
                out.push_back(']');
            } else {
                const auto& obj = top.value->as_object();
                if (top.next < obj.size()) {
                    if (top.next > 0) out.push_back(',');
                    const JsonMember& m = obj[top.order[top.next++]];
                    append_string(out, m.key);
                    out.push_back(':');
                    v = &m.value;
                    break;
                }
                out.push_back('}');
            }
            stack.pop_back();
        }
    }
}

// RFC 8785 §3.2.2.2 escaping (as append_string) into a buffer with room for 6 bytes per byte.
char* write_escaped(char* w, std::string_view s) noexcept {
    static constexpr char kHex[] = "0123456789abcdef";
    *w++ = '"';
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if (c >= 0x20 && c != '"' && c != '\\') {
            *w++ = ch;
            continue;
        }
        *w++ = '\\';
        switch (c) {
            case '"':
            case '\\':
                *w++ = ch;
                break;
            case '\b':
                *w++ = 'b';
                break;
            case '\f':
                *w++ = 'f';
                break;
            case '\n':
                *w++ = 'n';
                break;
            case '\r':
                *w++ = 'r';
                break;
            case '\t':
                *w++ = 't';
                break;
            default:
                *w++ = 'u';
                *w++ = '0';
                *w++ = '0';
                *w++ = kHex[c >> 4];
                *w++ = kHex[c & 0xF];
        }
    }
    *w++ = '"';
    return w;
}

constexpr size_t kSlack = 16;  // the buffer's tail room for fixed-size short copies

// Serializes a canonical-mode tape: names are already sorted and numbers already in their
// ECMAScript form, so this is copying with commas, colons and brackets, into one buffer sized
// by JsonTape::output_bound. A string whose text is a view of the input is written as is (see
// json_tape.hpp); an unescaped one is escaped again.
std::string write_tape(const detail::JsonTape& tape) {
    using detail::TapeNode;
    struct Open {
        uint32_t node;
        uint32_t next;       // arrays: next element node; objects: next position in tape.order
        uint32_t remaining;  // elements left to write
    };
    std::vector<Open> stack;
    const auto& nodes = tape.nodes;
    const char* const input_end = tape.input.data() + tape.input.size();
    const char* const scratch_end = tape.scratch.data() + tape.scratch.size();
    // Most texts are short: one fixed 16-byte copy (into the slack) beats a memcpy call.
    auto copy_text = [&](char* w, const TapeNode& n) noexcept {
        const std::string_view t = tape.text(n);
        const char* end = (n.flags & TapeNode::kInScratch) != 0 ? scratch_end : input_end;
        if (t.size() <= kSlack && end - t.data() >= static_cast<ptrdiff_t>(kSlack))
            std::memcpy(w, t.data(), kSlack);
        else
            std::memcpy(w, t.data(), t.size());
        return w + t.size();
    };
    auto write_string = [&](char* w, const TapeNode& n) noexcept {
        if ((n.flags & TapeNode::kInScratch) != 0) return write_escaped(w, tape.text(n));
        *w++ = '"';
        w = copy_text(w, n);
        *w++ = '"';
        return w;
    };
    std::string out;
    out.reserve(tape.output_bound + kSlack);
    detail::advise_huge_pages(out.data(), out.capacity());
    out.resize_and_overwrite(tape.output_bound + kSlack, [&](char* buf, size_t) {
        char* w = buf;
        uint32_t i = 0;
        for (;;) {
            const TapeNode& n = nodes[i];
            switch (n.kind) {
                case JsonKind::null:
                    w = std::ranges::copy(std::string_view("null"), w).out;
                    break;
                case JsonKind::boolean:
                    w = std::ranges::copy(
                            std::string_view((n.flags & TapeNode::kTrue) != 0 ? "true" : "false"),
                            w)
                            .out;
                    break;
                case JsonKind::number:
                    w = copy_text(w, n);
                    break;
                case JsonKind::string:
                    w = write_string(w, n);
                    break;
                case JsonKind::array:
                    *w++ = '[';
                    stack.push_back({i, i + 1, n.size});
                    break;
                case JsonKind::object:
                    *w++ = '{';
                    stack.push_back({i, n.order(), n.size});
                    break;
            }
            for (;;) {
                if (stack.empty()) return static_cast<size_t>(w - buf);
                Open& top = stack.back();
                const TapeNode& c = nodes[top.node];
                if (top.remaining > 0) {
                    if (top.remaining != c.size) *w++ = ',';
                    --top.remaining;
                    if (c.kind == JsonKind::array) {
                        i = top.next;
                        top.next = tape.next(i);
                    } else {
                        const uint32_t key = tape.order[top.next++];
                        w = write_string(w, nodes[key]);
                        *w++ = ':';
                        i = key + 1;
                    }
                    break;
                }
                *w++ = c.kind == JsonKind::array ? ']' : '}';
                stack.pop_back();
            }
        }
    });
    return out;
}

}  // namespace

int compare_utf16(std::string_view a, std::string_view b) noexcept {
    const size_t n = std::min(a.size(), b.size());
    size_t i = 0;
    for (uint64_t x = 0, y = 0; i + 8 <= n; i += 8) {
        std::memcpy(&x, a.data() + i, 8);
        std::memcpy(&y, b.data() + i, 8);
        if (x != y) break;
    }
    while (i < n && a[i] == b[i]) ++i;
    if (i == n) return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
    const auto ai = static_cast<unsigned char>(a[i]), bi = static_cast<unsigned char>(b[i]);
    if (ai < 0x80 && bi < 0x80) return ai < bi ? -1 : 1;  // ASCII: code unit order is byte order
    // Back up to the start of the code point holding the first difference; the common prefix
    // means both strings have a code point boundary there.
    while (i > 0 && (static_cast<unsigned char>(a[i]) & 0xC0) == 0x80) --i;
    const uint32_t ca =
        decode_at(reinterpret_cast<const unsigned char*>(a.data()) + i, a.size() - i);
    const uint32_t cb =
        decode_at(reinterpret_cast<const unsigned char*>(b.data()) + i, b.size() - i);
    const uint32_t ua = first_utf16_unit(ca), ub = first_utf16_unit(cb);
    // Same high surrogate: low surrogates order like the code points themselves.
    if (ua == ub) return ca < cb ? -1 : (ca > cb ? 1 : 0);
    return ua < ub ? -1 : 1;
}

// ECMAScript Number::toString (ECMA-262 §6.1.6.1.20), as RFC 8785 §3.2.2.3 requires. With
// s the shortest round-trip digit string (k digits) and n the decimal point position
// (value = 0.s × 10^n): plain notation for -6 < n <= 21, exponent notation otherwise.
void append_es6_number(std::string& out, double value) {
    if (value == 0) {  // +0 and -0 both print "0"
        out.push_back('0');
        return;
    }
    if (value < 0) {
        out.push_back('-');
        value = -value;
    }
    // Shortest round-trip digits; to_chars picks the closest candidate on ties, as ES requires.
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
    // buf: d[.ddd]e[+-]XX
    char digits[20];
    int k = 0;
    const char* p = buf;
    for (; p != r.ptr && *p != 'e'; ++p)
        if (*p != '.') digits[k++] = *p;
    int exp10 = 0;
    std::from_chars(p + (p[1] == '+' ? 2 : 1), r.ptr, exp10);
    const int n = exp10 + 1;

    if (k <= n && n <= 21) {
        out.append(digits, static_cast<size_t>(k));
        out.append(static_cast<size_t>(n - k), '0');
    } else if (0 < n && n <= 21) {
        out.append(digits, static_cast<size_t>(n));
        out.push_back('.');
        out.append(digits + n, static_cast<size_t>(k - n));
    } else if (-6 < n && n <= 0) {
        out.append("0.");
        out.append(static_cast<size_t>(-n), '0');
        out.append(digits, static_cast<size_t>(k));
    } else {
        out.push_back(digits[0]);
        if (k > 1) {
            out.push_back('.');
            out.append(digits + 1, static_cast<size_t>(k - 1));
        }
        out.push_back('e');
        out.push_back(n - 1 < 0 ? '-' : '+');
        char eb[8];
        const auto er = std::to_chars(eb, eb + sizeof eb, n - 1 < 0 ? 1 - n : n - 1);
        out.append(eb, er.ptr);
    }
}

Result<std::string, JcsError> es6_number_to_string(double value) {
    if (!std::isfinite(value))
        return fail(JcsError::non_finite_number, "NaN or infinity has no JSON form");
    std::string out;
    append_es6_number(out, value);
    return out;
}

Result<std::string, JcsError> canonicalize(const JsonValue& value) {
    std::string out;
    if (auto r = write_dom(value, out); !r) return std::unexpected(r.error());
    return out;
}

Result<std::string, JcsError> canonicalize(std::string_view text, const ParseLimits& limits) {
    detail::JsonTape tape;
    if (auto r = detail::parse_tape(text, limits, detail::TapeMode::canonical, tape); !r)
        return std::unexpected(r.error());
    return write_tape(tape);
}

Result<std::string, JcsError> canonicalize(ByteView bytes, const ParseLimits& limits) {
    return canonicalize(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                        limits);
}

}  // namespace credence::core
