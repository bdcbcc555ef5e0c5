#include <credence/core/abi_text.hpp>

#include <credence/core/address.hpp>

namespace credence::core {

namespace {

bool is_space(char c) noexcept { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::string_view trim(std::string_view s) noexcept {
    while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
    return s;
}

Result<AbiValue, AbiError> scalar(const AbiType& t, std::string_view text, std::string&& unquoted,
                                  bool quoted) {
    const std::string shown(text.substr(0, 80));
    if (quoted && t.kind() != AbiKind::string)
        return fail(AbiError::bad_value, "quoted value for " + t.canonical() + ": " + shown);
    switch (t.kind()) {
        case AbiKind::unsigned_int: {
            auto v = Uint256::parse(text);
            if (!v) return fail(AbiError::bad_value, "not an unsigned integer: " + shown);
            if (v->bit_width() > t.bits())
                return fail(AbiError::out_of_range, shown + " does not fit in " + t.canonical());
            return AbiValue(*v);
        }
        case AbiKind::signed_int: {
            auto v = Int256::parse(text);
            if (!v) return fail(AbiError::bad_value, "not an integer: " + shown);
            if (!v->fits_bits(t.bits()))
                return fail(AbiError::out_of_range, shown + " does not fit in " + t.canonical());
            return AbiValue(*v);
        }
        case AbiKind::address: {
            if (!text.starts_with("0x") && !text.starts_with("0X"))
                return fail(AbiError::bad_value, "address needs 0x: " + shown);
            auto a = from_hex_fixed<20>(text);
            if (!a) return fail(AbiError::bad_value, "not a 20-byte hex address: " + shown);
            return AbiValue(*a);
        }
        case AbiKind::boolean:
            if (text == "true") return AbiValue(true);
            if (text == "false") return AbiValue(false);
            return fail(AbiError::bad_value, "not a bool (true or false): " + shown);
        case AbiKind::fixed_bytes: {
            auto b = from_prefixed_hex(text);
            if (!b || b->size() != t.size())
                return fail(AbiError::bad_value,
                            "not " + std::to_string(t.size()) + " bytes of 0x-hex: " + shown);
            return AbiValue(FixedBytes(*b));
        }
        case AbiKind::bytes: {
            auto b = from_prefixed_hex(text);
            if (!b) return fail(AbiError::bad_value, "not 0x-hex bytes: " + shown);
            return AbiValue(std::move(*b));
        }
        case AbiKind::string:
            return AbiValue(std::move(unquoted));
        default:
            return fail(AbiError::bad_value, "not a scalar type: " + t.canonical());
    }
}

class TextParser {
public:
    explicit TextParser(std::string_view text) noexcept : text_(text) {}

    Result<AbiValue, AbiError> top(const AbiType& t) {
        if (t.is_value_type() || t.kind() == AbiKind::bytes || t.kind() == AbiKind::string) {
            const std::string_view s = t.kind() == AbiKind::string ? text_ : trim(text_);
            return scalar(t, s, std::string(s), false);
        }
        auto v = value(t, 0);
        if (!v) return v;
        skip_space();
        if (pos_ != text_.size())
            return fail(AbiError::bad_value,
                        "trailing characters after " + t.canonical() + " value");
        return v;
    }

private:
    void skip_space() noexcept {
        while (pos_ < text_.size() && is_space(text_[pos_])) ++pos_;
    }

    Result<AbiValue, AbiError> value(const AbiType& t, unsigned depth) {
        if (depth > kMaxAbiDepth) return fail(AbiError::too_deep, "value nested too deeply");
        skip_space();
        const bool is_tuple = t.kind() == AbiKind::tuple;
        if (!is_tuple && t.kind() != AbiKind::dynamic_array && t.kind() != AbiKind::fixed_array)
            return element(t);
        const char open = is_tuple ? '(' : '[';
        const char close = is_tuple ? ')' : ']';
        if (pos_ >= text_.size() || text_[pos_] != open)
            return fail(AbiError::bad_value,
                        std::string("expected '") + open + "' for " + t.canonical());
        ++pos_;
        AbiValue::List items;
        skip_space();
        if (pos_ < text_.size() && text_[pos_] == close) {
            ++pos_;
        } else {
            for (;;) {
                if (is_tuple && items.size() >= t.components().size())
                    return fail(AbiError::count_mismatch, "too many values for " + t.canonical());
                const AbiType& child = is_tuple ? t.components()[items.size()] : t.element();
                auto v = value(child, depth + 1);
                if (!v) return v;
                items.push_back(std::move(*v));
                skip_space();
                if (pos_ < text_.size() && text_[pos_] == ',') {
                    ++pos_;
                    continue;
                }
                if (pos_ < text_.size() && text_[pos_] == close) {
                    ++pos_;
                    break;
                }
                return fail(AbiError::bad_value, std::string("expected ',' or '") + close +
                                                     "' in " + t.canonical() + " value");
            }
        }
        const size_t want = is_tuple                           ? t.components().size()
                            : t.kind() == AbiKind::fixed_array ? t.length()
                                                               : items.size();
        if (items.size() != want)
            return fail(AbiError::count_mismatch,
                        std::to_string(items.size()) + " values for " + t.canonical());
        return AbiValue(std::move(items));
    }

    /// A scalar inside an array or tuple: a "quoted" string or text up to the next , ] or ).
    Result<AbiValue, AbiError> element(const AbiType& t) {
        if (pos_ < text_.size() && text_[pos_] == '"') {
            std::string s;
            for (++pos_;; ++pos_) {
                if (pos_ >= text_.size())
                    return fail(AbiError::bad_value, "unterminated quoted string");
                char c = text_[pos_];
                if (c == '"') break;
                if (c == '\\') {
                    if (++pos_ >= text_.size())
                        return fail(AbiError::bad_value, "unterminated quoted string");
                    c = text_[pos_];
                    if (c == 'n')
                        c = '\n';
                    else if (c == 't')
                        c = '\t';
                    else if (c == 'r')
                        c = '\r';
                }
                s += c;
            }
            ++pos_;
            const std::string_view raw = s;
            return scalar(t, raw, std::string(s), true);
        }
        const size_t start = pos_;
        while (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != ']' &&
               text_[pos_] != ')')
            ++pos_;
        const std::string_view token = trim(text_.substr(start, pos_ - start));
        return scalar(t, token, std::string(token), false);
    }

    std::string_view text_;
    size_t pos_ = 0;
};

void append_quoted(std::string& out, const std::string& s) {
    out += '"';
    for (char c : s) {
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\t':
                out += "\\t";
                break;
            case '\r':
                out += "\\r";
                break;
            default:
                out += c;
        }
    }
    out += '"';
}

void format_into(std::string& out, const AbiType& t, const AbiValue& v, bool nested,
                 unsigned depth) {
    if (depth > kMaxAbiDepth) {
        out += "<invalid>";
        return;
    }
    switch (t.kind()) {
        case AbiKind::unsigned_int:
            if (const auto* u = v.as_uint()) return void(out += u->to_dec());
            if (const auto* s = v.as_int()) return void(out += s->to_dec());
            break;
        case AbiKind::signed_int:
            if (const auto* s = v.as_int()) return void(out += s->to_dec());
            if (const auto* u = v.as_uint()) return void(out += u->to_dec());
            break;
        case AbiKind::address:
            if (const auto* a = v.as_address()) return void(out += Address{*a}.to_checksum_hex());
            break;
        case AbiKind::boolean:
            if (const bool* b = v.as_bool()) return void(out += *b ? "true" : "false");
            break;
        case AbiKind::fixed_bytes:
        case AbiKind::bytes:
            if (const auto* f = v.as_fixed_bytes()) return void(out += to_hex(f->view()));
            if (const auto* b = v.as_bytes()) return void(out += to_hex(*b));
            break;
        case AbiKind::string:
            if (const auto* s = v.as_string()) {
                if (nested)
                    append_quoted(out, *s);
                else
                    out += *s;
                return;
            }
            break;
        case AbiKind::dynamic_array:
        case AbiKind::fixed_array:
        case AbiKind::tuple: {
            const auto* items = v.as_list();
            if (items == nullptr) break;
            const bool is_tuple = t.kind() == AbiKind::tuple;
            if (is_tuple && items->size() != t.components().size()) break;
            out += is_tuple ? '(' : '[';
            for (size_t i = 0; i < items->size(); ++i) {
                if (i != 0) out += ", ";
                format_into(out, is_tuple ? t.components()[i] : t.element(), (*items)[i], true,
                            depth + 1);
            }
            out += is_tuple ? ')' : ']';
            return;
        }
    }
    out += "<invalid>";
}

}  // namespace

Result<AbiValue, AbiError> parse_value(const AbiType& type, std::string_view text) {
    return TextParser(text).top(type);
}

Result<std::vector<AbiValue>, AbiError> parse_values(std::span<const AbiType> types,
                                                     std::span<const std::string> args) {
    if (types.size() != args.size())
        return fail(AbiError::count_mismatch, std::to_string(args.size()) + " arguments for " +
                                                  std::to_string(types.size()) + " params");
    std::vector<AbiValue> out;
    out.reserve(types.size());
    for (size_t i = 0; i < types.size(); ++i) {
        auto v = parse_value(types[i], args[i]);
        if (!v) {
            v.error().detail = "argument " + std::to_string(i + 1) + ": " + v.error().detail;
            return std::unexpected(std::move(v.error()));
        }
        out.push_back(std::move(*v));
    }
    return out;
}

std::string format_value(const AbiType& type, const AbiValue& value) {
    std::string out;
    format_into(out, type, value, false, 0);
    return out;
}

}  // namespace credence::core
