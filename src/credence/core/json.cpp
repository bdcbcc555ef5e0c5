#include <credence/core/json.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <iterator>
#include <system_error>
#include <utility>

#include <credence/core/detail/json_tape.hpp>

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
JsonValue::JsonValue(JsonValue&&) noexcept = default;
JsonValue& JsonValue::operator=(JsonValue&&) noexcept = default;

namespace {

// A value whose destruction or copy would go more than one level down.
bool has_children(const JsonValue& v) noexcept {
    return (v.is_array() && !v.as_array().empty()) || (v.is_object() && !v.as_object().empty());
}

// Moves every child of `v` that has children of its own onto `out`, leaving `v` a tree of
// depth at most one, whose destruction cannot recurse further.
void detach_subtrees(JsonValue& v, std::vector<JsonValue>& out) {
    if (v.is_array()) {
        for (auto& e : v.as_array())
            if (has_children(e)) out.push_back(std::move(e));
    } else if (v.is_object()) {
        for (auto& m : v.as_object())
            if (has_children(m.value)) out.push_back(std::move(m.value));
    }
}

// Copies the shape (kind, reserved capacity) and the scalar children of `src` into `dst`, and
// queues its container children, so that a deep copy is a loop over a work list.
struct CopyTask {
    const JsonValue* src;
    JsonValue* dst;
};

void copy_one_level(const JsonValue& src, JsonValue& dst, std::vector<CopyTask>& work) {
    if (src.is_array()) {
        JsonValue::Array a;
        a.reserve(src.as_array().size());
        dst = JsonValue(std::move(a));
        auto& out = dst.as_array();  // reserved: element addresses stay put
        for (const auto& e : src.as_array()) {
            if (e.is_array() || e.is_object()) {
                out.emplace_back();
                work.push_back({&e, &out.back()});
            } else {
                out.push_back(e);
            }
        }
    } else if (src.is_object()) {
        JsonValue::Object o;
        o.reserve(src.as_object().size());
        dst = JsonValue(std::move(o));
        auto& out = dst.as_object();
        for (const auto& m : src.as_object()) {
            if (m.value.is_array() || m.value.is_object()) {
                out.push_back(JsonMember{m.key, JsonValue()});
                work.push_back({&m.value, &out.back().value});
            } else {
                out.push_back(m);
            }
        }
    }
}

}  // namespace

// Copies and destructors walk a work list instead of recursing, so a tree of any depth (a
// hand-built one, or one parsed with a large ParseLimits::max_depth) costs heap, not C++ stack.
JsonValue::JsonValue(const JsonValue& other) {
    if (!has_children(other)) {
        v_ = other.v_;
        return;
    }
    std::vector<CopyTask> work;
    copy_one_level(other, *this, work);
    while (!work.empty()) {
        const CopyTask t = work.back();
        work.pop_back();
        copy_one_level(*t.src, *t.dst, work);
    }
}

JsonValue& JsonValue::operator=(const JsonValue& other) {
    if (this != &other) *this = JsonValue(other);
    return *this;
}

JsonValue::~JsonValue() {
    if (!has_children(*this)) return;
    try {
        std::vector<JsonValue> pending;
        detach_subtrees(*this, pending);
        while (!pending.empty()) {
            JsonValue v = std::move(pending.back());
            pending.pop_back();
            detach_subtrees(v, pending);
        }  // each `v` dies holding scalars and emptied containers only
    } catch (...) {  // NOLINT(bugprone-empty-catch): out of memory for the work list
        // What is left is destroyed by the members' own destructors, one level at a time.
    }
}

const JsonValue* JsonValue::find(std::string_view key) const noexcept {
    const auto* obj = std::get_if<Object>(&v_);
    if (obj == nullptr) return nullptr;
    for (const auto& m : *obj)
        if (m.key == key) return &m.value;
    return nullptr;
}

// ---- Parser ----------------------------------------------------------------------------------

namespace {

// The double a validated number literal denotes. The tape parser has rejected overflow, so a
// range error here is underflow, which rounds to (signed) zero as ECMAScript's JSON.parse does.
double number_value(std::string_view text) noexcept {
    double value = 0;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), value);
    if (r.ec == std::errc::result_out_of_range) return text.front() == '-' ? -0.0 : 0.0;
    return value;
}

JsonValue leaf_value(const detail::JsonTape& tape, const detail::TapeNode& n) {
    switch (n.kind) {
        case JsonKind::boolean:
            return JsonValue((n.flags & detail::TapeNode::kTrue) != 0);
        case JsonKind::number: {
            const std::string_view text = tape.text(n);
            return JsonValue(JsonNumber{number_value(text), std::string(text)});
        }
        case JsonKind::string:
            return JsonValue(std::string(tape.text(n)));
        default:
            return JsonValue();
    }
}

// Builds the DOM in one pass over the tape. Containers get exactly their element count reserved
// before any element is added, so the addresses kept on the stack never move.
JsonValue build_dom(const detail::JsonTape& tape) {
    struct Open {
        JsonValue* value;
        uint32_t remaining;
    };
    std::vector<Open> stack;
    JsonValue root;
    const auto& nodes = tape.nodes;
    for (uint32_t i = 0; i < nodes.size(); ++i) {
        while (!stack.empty() && stack.back().remaining == 0) stack.pop_back();
        JsonValue* dst = &root;
        if (!stack.empty()) {
            Open& parent = stack.back();
            --parent.remaining;
            if (parent.value->is_array()) {
                dst = &parent.value->as_array().emplace_back();
            } else {
                auto& m = parent.value->as_object().emplace_back(
                    JsonMember{std::string(tape.text(nodes[i])), JsonValue()});
                dst = &m.value;
                ++i;  // the member's value follows its name
            }
        }
        const detail::TapeNode& n = nodes[i];
        if (n.kind == JsonKind::array) {
            JsonValue::Array a;
            a.reserve(n.size);
            *dst = JsonValue(std::move(a));
        } else if (n.kind == JsonKind::object) {
            JsonValue::Object o;
            o.reserve(n.size);
            *dst = JsonValue(std::move(o));
        } else {
            *dst = leaf_value(tape, n);
            continue;
        }
        if (n.size > 0) stack.push_back({dst, n.size});
    }
    return root;
}

}  // namespace

Result<JsonValue, JsonError> parse_json(std::string_view text, const ParseLimits& limits) {
    detail::JsonTape tape;
    if (auto r = detail::parse_tape(text, limits, detail::TapeMode::document, tape); !r)
        return std::unexpected(r.error());
    return build_dom(tape);
}

}  // namespace credence::core
