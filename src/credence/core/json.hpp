// Strict JSON (RFC 8259) parser into a small DOM, for untrusted documents.
//
// The parser accepts exactly the RFC 8259 grammar plus the I-JSON (RFC 7493) restrictions that
// RFC 8785 (JCS) relies on, and rejects everything else rather than repairing it: invalid UTF-8
// (overlongs, UTF-8-encoded surrogates, code points above U+10FFFF, truncated sequences), lone
// surrogates in \u escapes, duplicate object member names (compared after unescaping), numbers
// that overflow IEEE-754 double, leading zeros, control characters in strings, a byte-order mark
// and trailing garbage. It is single-pass and iterative (an explicit stack, never recursion), so
// nesting depth costs heap, bounded by ParseLimits::max_depth, never C++ stack. The parser writes
// a flat tape first (detail/json_tape.hpp), which parse_json turns into a JsonValue and
// canonicalize (jcs.hpp) serializes directly.
//
// Invariants of a parsed JsonValue: every string (value or member name) is valid UTF-8 holding
// Unicode scalar values only; every number is finite; object members keep input order and have
// distinct names. A JsonValue built by hand may break these; the JCS serializer re-checks them.
//
// Copying and destroying a JsonValue walk a heap work list, never the C++ stack, whatever the
// depth.
//
// Thread-safety: JsonValue is a plain value type; const access from several threads is safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <credence/core/bytes.hpp>
#include <credence/core/error.hpp>

namespace credence::core {

enum class JsonError {
    too_large,            // input longer than ParseLimits::max_bytes
    too_deep,             // more nested arrays/objects than ParseLimits::max_depth
    bom,                  // input starts with a UTF-8 byte-order mark (RFC 8259 §8.1)
    unexpected_end,       // input ended inside a value
    unexpected_char,      // a byte that the grammar does not allow here
    trailing_garbage,     // non-whitespace after the top-level value
    invalid_literal,      // misspelt true / false / null
    invalid_number,       // number grammar (RFC 8259 §6): leading zero, missing digits, ...
    number_out_of_range,  // magnitude overflows IEEE-754 double (RFC 8785 §3.2.2.3, I-JSON §2.2)
    invalid_utf8,         // malformed UTF-8 in a string (RFC 8259 §8.1, Unicode Table 3-7)
    invalid_escape,       // unknown escape or bad \u hex digits
    lone_surrogate,       // unpaired UTF-16 surrogate in \u escapes (I-JSON §2.1)
    control_character,    // unescaped U+0000..U+001F inside a string (RFC 8259 §7)
    duplicate_key,        // two members with the same name (I-JSON §2.3, RFC 8785 §3.1)
    non_finite_number,    // serializing NaN or infinity (hand-built DOM only)
};

[[nodiscard]] std::string_view to_string(JsonError e) noexcept;

/// Parser limits. Every limit is a hard rejection, never a truncation.
struct ParseLimits {
    size_t max_bytes = size_t{64} << 20;
    /// Maximum number of nested arrays/objects; a top-level scalar has depth 0, `[]` depth 1.
    /// Checked when a container opens, before anything is built for it. Nothing recurses per
    /// level (parsing, building, copying, destroying and serializing all use heap work lists),
    /// so a larger limit costs memory, not C++ stack.
    size_t max_depth = 128;
};

enum class JsonKind : uint8_t { null, boolean, number, string, array, object };

/// A JSON number: the IEEE-754 double it denotes and the literal as written in the input
/// (empty for numbers built by hand). The text lets callers see integers beyond 2^53 exactly.
struct JsonNumber {
    double value = 0;
    std::string text;
};

struct JsonMember;

class JsonValue {
public:
    using Array = std::vector<JsonValue>;
    using Object = std::vector<JsonMember>;  // input order, distinct names

    JsonValue() noexcept;  // null
    JsonValue(std::nullptr_t) noexcept;
    explicit JsonValue(bool b) noexcept;
    explicit JsonValue(double d);
    explicit JsonValue(JsonNumber n) noexcept;
    explicit JsonValue(std::string s) noexcept;
    explicit JsonValue(std::string_view s) : JsonValue(std::string(s)) {}
    explicit JsonValue(const char* s) : JsonValue(std::string(s)) {}  // not the bool overload
    explicit JsonValue(Array a) noexcept;
    explicit JsonValue(Object o) noexcept;
    JsonValue(const JsonValue&);
    JsonValue(JsonValue&&) noexcept;
    JsonValue& operator=(const JsonValue&);
    JsonValue& operator=(JsonValue&&) noexcept;
    ~JsonValue();

    [[nodiscard]] JsonKind kind() const noexcept { return static_cast<JsonKind>(v_.index()); }
    [[nodiscard]] bool is_null() const noexcept { return kind() == JsonKind::null; }
    [[nodiscard]] bool is_bool() const noexcept { return kind() == JsonKind::boolean; }
    [[nodiscard]] bool is_number() const noexcept { return kind() == JsonKind::number; }
    [[nodiscard]] bool is_string() const noexcept { return kind() == JsonKind::string; }
    [[nodiscard]] bool is_array() const noexcept { return kind() == JsonKind::array; }
    [[nodiscard]] bool is_object() const noexcept { return kind() == JsonKind::object; }

    // Accessors; calling one for the wrong kind is a programming error (std::get throws, which
    // core code avoids by checking kind() first).
    [[nodiscard]] bool as_bool() const { return std::get<bool>(v_); }
    [[nodiscard]] const JsonNumber& as_number() const { return std::get<JsonNumber>(v_); }
    [[nodiscard]] const std::string& as_string() const { return std::get<std::string>(v_); }
    [[nodiscard]] const Array& as_array() const { return std::get<Array>(v_); }
    [[nodiscard]] const Object& as_object() const { return std::get<Object>(v_); }
    [[nodiscard]] Array& as_array() { return std::get<Array>(v_); }
    [[nodiscard]] Object& as_object() { return std::get<Object>(v_); }

    /// Member `key` of an object, or nullptr (also when this is not an object).
    [[nodiscard]] const JsonValue* find(std::string_view key) const noexcept;

private:
    std::variant<std::nullptr_t, bool, JsonNumber, std::string, Array, Object> v_;
};

struct JsonMember {
    std::string key;
    JsonValue value;
};

/// Parses one JSON text (RFC 8259 §2) that must span all of `text` (surrounding whitespace only).
[[nodiscard]] Result<JsonValue, JsonError> parse_json(std::string_view text,
                                                      const ParseLimits& limits = {});

/// Same, over raw bytes.
[[nodiscard]] inline Result<JsonValue, JsonError> parse_json(ByteView bytes,
                                                             const ParseLimits& limits = {}) {
    return parse_json(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                      limits);
}

}  // namespace credence::core
