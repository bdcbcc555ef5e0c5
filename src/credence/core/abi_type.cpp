#include <credence/core/abi_type.hpp>

#include <algorithm>

#include <credence/core/detail/abi_parser.hpp>

namespace credence::core {

std::string_view to_string(AbiError e) noexcept {
    switch (e) {
        case AbiError::bad_type:
            return "bad_type";
        case AbiError::bad_signature:
            return "bad_signature";
        case AbiError::bad_json:
            return "bad_json";
        case AbiError::too_deep:
            return "too_deep";
        case AbiError::bad_value:
            return "bad_value";
        case AbiError::count_mismatch:
            return "count_mismatch";
        case AbiError::short_data:
            return "short_data";
        case AbiError::bad_offset:
            return "bad_offset";
        case AbiError::bad_length:
            return "bad_length";
        case AbiError::bad_padding:
            return "bad_padding";
        case AbiError::out_of_range:
            return "out_of_range";
        case AbiError::trailing_data:
            return "trailing_data";
        case AbiError::too_large:
            return "too_large";
        case AbiError::topic_count:
            return "topic_count";
        case AbiError::topic0_mismatch:
            return "topic0_mismatch";
        case AbiError::unsupported:
            return "unsupported";
    }
    return "unknown";
}

namespace {

constexpr uint64_t kSizeCap = uint64_t{1} << 62;

uint64_t sat_mul(uint64_t a, uint64_t b) noexcept {
    if (a != 0 && b > kSizeCap / a) return kSizeCap;
    return std::min(a * b, kSizeCap);
}

uint64_t sat_add(uint64_t a, uint64_t b) noexcept { return std::min(a + b, kSizeCap); }

}  // namespace

AbiType AbiType::make_uint(unsigned bits) { return AbiType(AbiKind::unsigned_int, bits); }
AbiType AbiType::make_int(unsigned bits) { return AbiType(AbiKind::signed_int, bits); }
AbiType AbiType::make_address() { return AbiType(AbiKind::address, 160); }
AbiType AbiType::make_bool() { return AbiType(AbiKind::boolean, 8); }
AbiType AbiType::make_fixed_bytes(unsigned size) { return AbiType(AbiKind::fixed_bytes, size * 8); }

AbiType AbiType::make_bytes() {
    AbiType t(AbiKind::bytes, 0);
    t.dynamic_ = true;
    return t;
}

AbiType AbiType::make_string() {
    AbiType t(AbiKind::string, 0);
    t.dynamic_ = true;
    return t;
}

AbiType AbiType::make_array(AbiType element) {
    AbiType t(AbiKind::dynamic_array, 0);
    t.children_.push_back(std::move(element));
    t.finish();
    return t;
}

AbiType AbiType::make_fixed_array(AbiType element, uint64_t length) {
    AbiType t(AbiKind::fixed_array, 0);
    t.length_ = length;
    t.children_.push_back(std::move(element));
    t.finish();
    return t;
}

AbiType AbiType::make_tuple(std::vector<AbiType> components) {
    AbiType t(AbiKind::tuple, 0);
    t.children_ = std::move(components);
    t.finish();
    return t;
}

void AbiType::finish() noexcept {
    unsigned child_depth = 0;
    for (const auto& c : children_) child_depth = std::max(child_depth, unsigned{c.depth_});
    depth_ = static_cast<uint8_t>(std::min(child_depth + 1, 255u));
    switch (kind_) {
        case AbiKind::dynamic_array:
            dynamic_ = true;
            break;
        case AbiKind::fixed_array:
            dynamic_ = element().dynamic_;
            static_size_ = sat_mul(element().static_size_, length_);
            break;
        case AbiKind::tuple:
            dynamic_ = false;
            static_size_ = 0;
            for (const auto& c : children_) {
                dynamic_ = dynamic_ || c.dynamic_;
                static_size_ = sat_add(static_size_, c.head_size());
            }
            break;
        default:
            break;
    }
}

void AbiType::append_canonical(std::string& out) const {
    switch (kind_) {
        case AbiKind::unsigned_int:
            out += "uint";
            out += std::to_string(bits_);
            return;
        case AbiKind::signed_int:
            out += "int";
            out += std::to_string(bits_);
            return;
        case AbiKind::address:
            out += "address";
            return;
        case AbiKind::boolean:
            out += "bool";
            return;
        case AbiKind::fixed_bytes:
            out += "bytes";
            out += std::to_string(size());
            return;
        case AbiKind::bytes:
            out += "bytes";
            return;
        case AbiKind::string:
            out += "string";
            return;
        case AbiKind::dynamic_array:
            element().append_canonical(out);
            out += "[]";
            return;
        case AbiKind::fixed_array:
            element().append_canonical(out);
            out += '[';
            out += std::to_string(length_);
            out += ']';
            return;
        case AbiKind::tuple:
            out += '(';
            for (size_t i = 0; i < children_.size(); ++i) {
                if (i != 0) out += ',';
                children_[i].append_canonical(out);
            }
            out += ')';
            return;
    }
}

std::string AbiType::canonical() const {
    std::string out;
    append_canonical(out);
    return out;
}

bool operator==(const AbiType& a, const AbiType& b) noexcept {
    return a.kind_ == b.kind_ && a.bits_ == b.bits_ && a.length_ == b.length_ &&
           a.children_ == b.children_;
}

std::string canonical_list(std::span<const AbiType> types) {
    std::string out = "(";
    for (size_t i = 0; i < types.size(); ++i) {
        if (i != 0) out += ',';
        types[i].append_canonical(out);
    }
    out += ')';
    return out;
}

namespace detail {

namespace {

bool is_ident_start(char c) noexcept {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$';
}
bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

/// Strict decimal: no leading zeros, no sign, at most 19 digits (fits uint64).
bool parse_small_decimal(std::string_view s, uint64_t& out) noexcept {
    if (s.empty() || s.size() > 19 || (s.size() > 1 && s[0] == '0')) return false;
    uint64_t v = 0;
    for (char c : s) {
        if (!is_digit(c)) return false;
        v = v * 10 + static_cast<uint64_t>(c - '0');
    }
    out = v;
    return true;
}

Result<AbiType, AbiError> elementary(std::string_view id) {
    if (id == "address") return AbiType::make_address();
    if (id == "bool") return AbiType::make_bool();
    if (id == "string") return AbiType::make_string();
    if (id == "bytes") return AbiType::make_bytes();
    // Solidity docs §Types: `uint`/`int` are aliases for uint256/int256.
    if (id == "uint") return AbiType::make_uint(256);
    if (id == "int") return AbiType::make_int(256);
    uint64_t n = 0;
    if (id.starts_with("uint") && parse_small_decimal(id.substr(4), n)) {
        // ABI spec §Types: uint<M>, 0 < M <= 256, M % 8 == 0.
        if (n == 0 || n > 256 || n % 8 != 0)
            return fail(AbiError::bad_type, "bad integer width: " + std::string(id));
        return AbiType::make_uint(static_cast<unsigned>(n));
    }
    if (id.starts_with("int") && parse_small_decimal(id.substr(3), n)) {
        if (n == 0 || n > 256 || n % 8 != 0)
            return fail(AbiError::bad_type, "bad integer width: " + std::string(id));
        return AbiType::make_int(static_cast<unsigned>(n));
    }
    if (id.starts_with("bytes") && parse_small_decimal(id.substr(5), n)) {
        // ABI spec §Types: bytes<M>, 0 < M <= 32.
        if (n == 0 || n > 32)
            return fail(AbiError::bad_type, "bad bytes width: " + std::string(id));
        return AbiType::make_fixed_bytes(static_cast<unsigned>(n));
    }
    return fail(AbiError::bad_type, "unknown type: " + std::string(id));
}

}  // namespace

std::string_view AbiCursor::identifier() noexcept {
    if (done() || !is_ident_start(text[pos])) return {};
    const size_t start = pos;
    while (!done() && (is_ident_start(text[pos]) || is_digit(text[pos]))) ++pos;
    return text.substr(start, pos - start);
}

Result<AbiType, AbiError> parse_type_at(AbiCursor& cur, unsigned depth) {
    cur.skip_space();
    AbiType t;
    std::string_view id;
    if (cur.peek() != '(') {
        id = cur.identifier();
        if (id.empty())
            return fail(AbiError::bad_type,
                        "expected a type at position " + std::to_string(cur.pos));
    }
    if (id.empty() || (id == "tuple" && cur.peek() == '(')) {
        if (depth >= kMaxAbiDepth) return fail(AbiError::too_deep, "type nested too deeply");
        auto list = parse_list_at(cur, depth + 1, nullptr, nullptr);
        if (!list) return std::unexpected(std::move(list.error()));
        // Solidity has no empty structs; an empty tuple would also occupy zero bytes, letting
        // `()[]` claim 2^64 elements from no data.
        if (list->empty()) return fail(AbiError::bad_type, "empty tuple");
        t = AbiType::make_tuple(std::move(*list));
    } else {
        auto e = elementary(id);
        if (!e) return e;
        t = std::move(*e);
    }
    while (cur.peek() == '[') {
        ++cur.pos;
        const size_t start = cur.pos;
        while (!cur.done() && is_digit(cur.peek())) ++cur.pos;
        const std::string_view digits = cur.text.substr(start, cur.pos - start);
        if (cur.peek() != ']')
            return fail(AbiError::bad_type, "expected ']' at position " + std::to_string(cur.pos));
        ++cur.pos;
        if (digits.empty()) {
            t = AbiType::make_array(std::move(t));
        } else {
            uint64_t k = 0;
            // Fixed arrays must have a positive length (Solidity rejects T[0]).
            if (!parse_small_decimal(digits, k) || k == 0 || k > kMaxFixedArrayLength)
                return fail(AbiError::bad_type, "bad array length: " + std::string(digits));
            t = AbiType::make_fixed_array(std::move(t), k);
        }
        if (t.depth() + depth > kMaxAbiDepth)
            return fail(AbiError::too_deep, "type nested too deeply");
    }
    return t;
}

Result<std::vector<AbiType>, AbiError> parse_list_at(AbiCursor& cur, unsigned depth,
                                                     std::vector<std::string>* names,
                                                     std::vector<bool>* indexed) {
    if (!cur.eat('('))
        return fail(AbiError::bad_type, "expected '(' at position " + std::to_string(cur.pos));
    std::vector<AbiType> out;
    if (cur.eat(')')) return out;
    for (;;) {
        auto t = parse_type_at(cur, depth);
        if (!t) return std::unexpected(std::move(t.error()));
        out.push_back(std::move(*t));
        bool is_indexed = false;
        std::string_view name;
        if (cur.lenient) {
            // Human-readable form: `string calldata tag1`, `address indexed clientAddress`.
            for (;;) {
                cur.skip_space();
                const auto word = cur.identifier();
                if (word.empty()) break;
                if (!name.empty())
                    return fail(AbiError::bad_signature, "unexpected word: " + std::string(word));
                if (word == "indexed") {
                    is_indexed = true;
                } else if (word != "memory" && word != "calldata" && word != "storage") {
                    name = word;
                }
            }
        }
        if (names != nullptr) names->emplace_back(name);
        if (indexed != nullptr) indexed->push_back(is_indexed);
        if (cur.eat(',')) continue;
        if (cur.eat(')')) return out;
        return fail(AbiError::bad_type,
                    "expected ',' or ')' at position " + std::to_string(cur.pos));
    }
}

}  // namespace detail

Result<AbiType, AbiError> parse_type(std::string_view text) {
    detail::AbiCursor cur{text, 0, false};
    auto t = detail::parse_type_at(cur, 0);
    if (!t) return t;
    if (!cur.done())
        return fail(AbiError::bad_type, "trailing characters in type: " + std::string(text));
    return t;
}

Result<std::vector<AbiType>, AbiError> parse_type_list(std::string_view text) {
    detail::AbiCursor cur{text, 0, false};
    auto list = detail::parse_list_at(cur, 0, nullptr, nullptr);
    if (!list) return list;
    if (!cur.done())
        return fail(AbiError::bad_type, "trailing characters in type list: " + std::string(text));
    return list;
}

}  // namespace credence::core
