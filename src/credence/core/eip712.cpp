#include <credence/core/eip712.hpp>

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include <credence/core/detail/hex_address.hpp>
#include <credence/core/keccak.hpp>

namespace credence::core {

std::string_view to_string(Eip712Error e) noexcept {
    switch (e) {
        case Eip712Error::malformed_document:
            return "malformed typed-data document";
        case Eip712Error::bad_type_definition:
            return "bad type definition";
        case Eip712Error::unknown_type:
            return "unknown type";
        case Eip712Error::missing_field:
            return "missing field";
        case Eip712Error::bad_value:
            return "bad value";
        case Eip712Error::out_of_range:
            return "value out of range";
        case Eip712Error::bad_hex:
            return "bad hex";
        case Eip712Error::length_mismatch:
            return "length mismatch";
        case Eip712Error::bad_address:
            return "bad address";
        case Eip712Error::recursion_limit:
            return "nesting too deep";
    }
    return "unknown error";
}

namespace {

using nlohmann::json;
constexpr std::string_view kDomainType = "EIP712Domain";

// ---- atomic types -------------------------------------------------------------------------

enum class AtomicKind { uint_n, int_n, boolean, address, fixed_bytes, string, bytes };

struct Atomic {
    AtomicKind kind;
    unsigned size;  // bits for uintN/intN, bytes for bytesN
};

// Decimal without sign or leading zeros, at most 3 digits (every width here is <= 256).
std::optional<unsigned> parse_small_decimal(std::string_view s) noexcept {
    if (s.empty() || s.size() > 3 || (s[0] == '0')) return std::nullopt;
    unsigned v = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return std::nullopt;
        v = v * 10 + static_cast<unsigned>(c - '0');
    }
    return v;
}

// EIP-712 §Definition of typed structured data: the atomic types are bytes1..bytes32,
// uint8..uint256 and int8..int256 in steps of 8, bool and address; string and bytes are the
// dynamic types. "uint"/"int" aliases are not types here (as in ethers).
std::optional<Atomic> parse_atomic(std::string_view t) noexcept {
    if (t == "bool") return Atomic{AtomicKind::boolean, 0};
    if (t == "address") return Atomic{AtomicKind::address, 0};
    if (t == "string") return Atomic{AtomicKind::string, 0};
    if (t == "bytes") return Atomic{AtomicKind::bytes, 0};
    if (t.starts_with("bytes")) {
        auto n = parse_small_decimal(t.substr(5));
        if (n && *n >= 1 && *n <= 32) return Atomic{AtomicKind::fixed_bytes, *n};
        return std::nullopt;
    }
    const bool is_unsigned = t.starts_with("uint");
    if (is_unsigned || t.starts_with("int")) {
        auto n = parse_small_decimal(t.substr(is_unsigned ? 4 : 3));
        if (n && *n >= 8 && *n <= 256 && *n % 8 == 0)
            return Atomic{is_unsigned ? AtomicKind::uint_n : AtomicKind::int_n, *n};
    }
    return std::nullopt;
}

// ---- type strings -------------------------------------------------------------------------

// "Base[2][]" -> "Base"; nullopt when the bracket suffix is not a sequence of "[digits?]".
std::optional<std::string_view> base_type(std::string_view t) noexcept {
    const size_t open = t.find('[');
    if (open == std::string_view::npos) return t;
    for (size_t i = open; i < t.size();) {
        if (t[i] != '[') return std::nullopt;
        const size_t close = t.find(']', i);
        if (close == std::string_view::npos) return std::nullopt;
        for (size_t j = i + 1; j < close; ++j)
            if (t[j] < '0' || t[j] > '9') return std::nullopt;
        i = close + 1;
    }
    return t.substr(0, open);
}

// Names end up inside encodeType, so they must not contain its punctuation.
bool valid_name(std::string_view s, std::string_view forbidden) noexcept {
    if (s.empty()) return false;
    for (char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x21 || u == 0x7f || forbidden.find(c) != std::string_view::npos) return false;
    }
    return true;
}

[[nodiscard]] std::unexpected<Error<Eip712Error>> prefixed(Error<Eip712Error> e,
                                                           std::string_view where) {
    e.detail = std::string(where) + (e.detail.empty() ? "" : ": ") + e.detail;
    return std::unexpected(std::move(e));
}

// ---- the encoder --------------------------------------------------------------------------

class TypedDataEncoder {
public:
    explicit TypedDataEncoder(const Eip712Types& types) : types_(types) {}

    // EIP-712 §Definition of encodeType: the primary type, then the struct types it references
    // (directly or not) sorted by name, each once. The walk is iterative so that long or cyclic
    // chains of types cannot exhaust the stack.
    Result<std::string, Eip712Error> encode_type(std::string_view name) {
        const auto primary = types_.find(name);
        if (primary == types_.end()) return fail(Eip712Error::unknown_type, std::string(name));
        std::set<std::string_view> deps;
        std::vector<std::string_view> stack{primary->first};
        std::set<std::string_view> seen{primary->first};
        while (!stack.empty()) {
            const std::string_view cur = stack.back();
            stack.pop_back();
            const auto& fields = types_.find(cur)->second;
            for (const auto& f : fields) {
                const auto base = base_type(f.type);
                if (!base) return fail(Eip712Error::unknown_type, f.type);
                if (parse_atomic(*base)) continue;
                const auto it = types_.find(*base);
                if (it == types_.end()) return fail(Eip712Error::unknown_type, f.type);
                if (seen.insert(it->first).second) {
                    deps.insert(it->first);
                    stack.push_back(it->first);
                }
            }
        }
        std::string out;
        append_struct_signature(out, primary->first, primary->second);
        for (auto dep : deps) append_struct_signature(out, dep, types_.find(dep)->second);
        return out;
    }

    Result<Hash32, Eip712Error> type_hash(std::string_view name) {
        if (auto it = hash_cache_.find(name); it != hash_cache_.end()) return it->second;
        auto enc = encode_type(name);
        if (!enc) return std::unexpected(enc.error());
        const Hash32 h = keccak256(std::string_view(*enc));
        hash_cache_.emplace(types_.find(name)->first, h);
        return h;
    }

    // EIP-712 §Definition of encodeData: typeHash ‖ enc(value_1) ‖ ... ‖ enc(value_n).
    Result<void, Eip712Error> encode_struct(std::string_view name, const json& value, size_t depth,
                                            Bytes& out) {
        if (depth > kMaxEip712Depth)
            return fail(Eip712Error::recursion_limit,
                        "more than " + std::to_string(kMaxEip712Depth) + " levels");
        const auto it = types_.find(name);
        if (it == types_.end()) return fail(Eip712Error::unknown_type, std::string(name));
        if (!value.is_object())
            return fail(Eip712Error::bad_value, "expected an object for " + std::string(name));
        auto th = type_hash(name);
        if (!th) return std::unexpected(th.error());
        out.insert(out.end(), th->begin(), th->end());
        for (const auto& field : it->second) {
            const auto member = value.find(field.name);
            if (member == value.end() || member->is_null())
                return fail(Eip712Error::missing_field, std::string(name) + "." + field.name);
            auto word = encode_value(field.type, *member, depth + 1);
            if (!word) return prefixed(word.error(), field.name);
            out.insert(out.end(), word->begin(), word->end());
        }
        return {};
    }

    Result<Hash32, Eip712Error> hash_struct(std::string_view name, const json& value,
                                            size_t depth) {
        Bytes enc;
        auto r = encode_struct(name, value, depth, enc);
        if (!r) return std::unexpected(r.error());
        return keccak256(enc);
    }

private:
    static void append_struct_signature(std::string& out, std::string_view name,
                                        const std::vector<Eip712Field>& fields) {
        out += name;
        out += '(';
        for (size_t i = 0; i < fields.size(); ++i) {
            if (i) out += ',';
            out += fields[i].type;
            out += ' ';
            out += fields[i].name;
        }
        out += ')';
    }

    // One 32-byte word of encodeData for a value of type `type`.
    Result<Hash32, Eip712Error> encode_value(std::string_view type, const json& value,
                                             size_t depth) {
        if (depth > kMaxEip712Depth)
            return fail(Eip712Error::recursion_limit,
                        "more than " + std::to_string(kMaxEip712Depth) + " levels");
        if (!type.empty() && type.back() == ']') return encode_array(type, value, depth);
        if (auto atomic = parse_atomic(type)) return encode_atomic(*atomic, value);
        if (types_.find(type) == types_.end())
            return fail(Eip712Error::unknown_type, std::string(type));
        return hash_struct(type, value, depth);
    }

    // EIP-712 §Definition of encodeData: arrays are the keccak256 of the concatenated encodings
    // of their elements (structs as hashStruct, nested arrays recursively).
    Result<Hash32, Eip712Error> encode_array(std::string_view type, const json& value,
                                             size_t depth) {
        const size_t open = type.rfind('[');
        if (open == std::string_view::npos)
            return fail(Eip712Error::unknown_type, std::string(type));
        const std::string_view element = type.substr(0, open);
        const std::string_view len_text = type.substr(open + 1, type.size() - open - 2);
        if (!base_type(type)) return fail(Eip712Error::unknown_type, std::string(type));
        if (!value.is_array())
            return fail(Eip712Error::bad_value, "expected an array for " + std::string(type));
        if (!len_text.empty()) {
            size_t n = 0;
            for (char c : len_text) {
                if (n > value.size()) break;  // already too long to match; avoids overflow
                n = n * 10 + static_cast<size_t>(c - '0');
            }
            if (n != value.size())
                return fail(
                    Eip712Error::length_mismatch,
                    std::string(type) + " got " + std::to_string(value.size()) + " elements");
        }
        Keccak256 h;
        size_t index = 0;
        for (const auto& item : value) {
            auto word = encode_value(element, item, depth + 1);
            if (!word) return prefixed(word.error(), "[" + std::to_string(index) + "]");
            h.update(*word);
            ++index;
        }
        return h.finalize();
    }

    static Result<Hash32, Eip712Error> encode_atomic(const Atomic& a, const json& value) {
        Hash32 word{};
        switch (a.kind) {
            case AtomicKind::boolean:
                if (!value.is_boolean())
                    return fail(Eip712Error::bad_value, "expected true or false");
                word[31] = value.get<bool>() ? 1 : 0;
                return word;
            case AtomicKind::address: {
                if (!value.is_string()) return fail(Eip712Error::bad_address, "expected a string");
                const auto parsed = detail::parse_hex_address(value.get_ref<const std::string&>());
                if (parsed.status == detail::HexAddressStatus::bad_checksum)
                    return fail(Eip712Error::bad_address, "bad EIP-55 checksum");
                if (parsed.status != detail::HexAddressStatus::ok)
                    return fail(Eip712Error::bad_address, "expected 0x and 40 hex digits");
                std::copy(parsed.bytes.begin(), parsed.bytes.end(), word.begin() + 12);
                return word;
            }
            case AtomicKind::string:
                if (!value.is_string()) return fail(Eip712Error::bad_value, "expected a string");
                return keccak256(std::string_view(value.get_ref<const std::string&>()));
            case AtomicKind::bytes:
            case AtomicKind::fixed_bytes: {
                if (!value.is_string())
                    return fail(Eip712Error::bad_hex, "expected a 0x hex string");
                auto bytes = from_prefixed_hex(value.get_ref<const std::string&>());
                if (!bytes)
                    return fail(Eip712Error::bad_hex, std::string(to_string(bytes.error().code)));
                if (a.kind == AtomicKind::bytes) return keccak256(*bytes);
                if (bytes->size() != a.size)
                    return fail(Eip712Error::length_mismatch, "expected " + std::to_string(a.size) +
                                                                  " bytes, got " +
                                                                  std::to_string(bytes->size()));
                std::copy(bytes->begin(), bytes->end(), word.begin());  // bytesN is left-aligned
                return word;
            }
            case AtomicKind::uint_n:
            case AtomicKind::int_n:
                return encode_integer(a.kind == AtomicKind::int_n, a.size, value);
        }
        return fail(Eip712Error::unknown_type);
    }

    // uintN/intN from a JSON integer, a safe-integer float (JavaScript numbers), or a decimal or
    // 0x-hex string with an optional '-'. Encoded as the 256-bit two's complement word.
    static Result<Hash32, Eip712Error> encode_integer(bool is_signed, unsigned bits,
                                                      const json& value) {
        Int256 v;
        bool big_positive = false;  // above int256 max: only a uint256 can hold it
        Uint256 big;
        if (value.is_number_unsigned()) {
            big = Uint256{value.get<uint64_t>()};
            big_positive = true;
        } else if (value.is_number_integer()) {
            v = Int256{value.get<int64_t>()};
        } else if (value.is_number_float()) {
            const double d = value.get<double>();
            if (!std::isfinite(d) || std::floor(d) != d)
                return fail(Eip712Error::bad_value, "not an integer");
            // JavaScript numbers beyond 2^53 - 1 are not exact; ethers rejects them too.
            if (std::fabs(d) > 9007199254740991.0)
                return fail(Eip712Error::out_of_range,
                            "number is not a safe integer; use a string");
            v = Int256{static_cast<int64_t>(d)};
        } else if (value.is_string()) {
            const auto& s = value.get_ref<const std::string&>();
            if (!s.empty() && s[0] == '-') {
                auto parsed = Int256::parse(s);
                if (!parsed)
                    return fail(parsed.error().code == IntError::overflow
                                    ? Eip712Error::out_of_range
                                    : Eip712Error::bad_value,
                                "integer \"" + s + "\"");
                v = *parsed;
            } else {
                auto parsed = Uint256::parse(s);
                if (!parsed)
                    return fail(parsed.error().code == IntError::overflow
                                    ? Eip712Error::out_of_range
                                    : Eip712Error::bad_value,
                                "integer \"" + s + "\"");
                big = *parsed;
                big_positive = true;
            }
        } else {
            return fail(Eip712Error::bad_value, "expected an integer or a string");
        }

        if (big_positive) {
            const unsigned limit = is_signed ? bits - 1 : bits;
            if (big.bit_width() > limit)
                return fail(Eip712Error::out_of_range,
                            (is_signed ? "int" : "uint") + std::to_string(bits));
            return big.to_word();
        }
        if (is_signed ? !v.fits_bits(bits) : (v.is_negative() || v.bits.bit_width() > bits))
            return fail(Eip712Error::out_of_range,
                        (is_signed ? "int" : "uint") + std::to_string(bits));
        return v.bits.to_word();
    }

    const Eip712Types& types_;
    std::map<std::string_view, Hash32, std::less<>> hash_cache_;
};

// The standard domain fields, in the order EIP-712 §Definition of domainSeparator lists them.
struct DomainFieldSpec {
    std::string_view name;
    std::string_view type;
};
constexpr std::array<DomainFieldSpec, 5> kDomainFields{{
    {"name", "string"},
    {"version", "string"},
    {"chainId", "uint256"},
    {"verifyingContract", "address"},
    {"salt", "bytes32"},
}};

}  // namespace

Result<Eip712Types, Eip712Error> parse_eip712_types(const json& types) {
    if (!types.is_object()) return fail(Eip712Error::malformed_document, "types must be an object");
    Eip712Types out;
    for (const auto& [name, fields] : types.items()) {
        if (!valid_name(name, "()[],"))
            return fail(Eip712Error::bad_type_definition, "struct name \"" + name + "\"");
        if (parse_atomic(name))
            return fail(Eip712Error::bad_type_definition,
                        "struct named like an atomic type: " + name);
        if (!fields.is_array())
            return fail(Eip712Error::malformed_document, "types." + name + " must be an array");
        std::vector<Eip712Field> list;
        list.reserve(fields.size());
        std::set<std::string_view> field_names;
        for (const auto& f : fields) {
            if (!f.is_object()) return fail(Eip712Error::malformed_document, "field of " + name);
            const auto fname = f.find("name");
            const auto ftype = f.find("type");
            if (fname == f.end() || ftype == f.end() || !fname->is_string() || !ftype->is_string())
                return fail(Eip712Error::malformed_document,
                            "field of " + name + " needs name and type strings");
            const auto& n = fname->get_ref<const std::string&>();
            const auto& t = ftype->get_ref<const std::string&>();
            if (!valid_name(n, "()[],") || !valid_name(t, "(),"))
                return fail(
                    Eip712Error::bad_type_definition,
                    std::string(name).append(" field ").append(n).append(" of type ").append(t));
            list.push_back({n, t});
        }
        for (const auto& f : list)
            if (!field_names.insert(f.name).second)
                return fail(Eip712Error::bad_type_definition,
                            "duplicate field " + name + "." + f.name);
        out.emplace(name, std::move(list));
    }
    return out;
}

Result<TypedData, Eip712Error> parse_typed_data(std::string_view json_text) {
    // Duplicate keys would let two readers of the same text see different documents; nlohmann
    // keeps the last one silently, so they are caught with the parser callback.
    std::vector<std::set<std::string>> open_objects;
    bool duplicate = false;
    const json::parser_callback_t on_event = [&](int /*depth*/, json::parse_event_t event,
                                                 json& parsed) {
        switch (event) {
            case json::parse_event_t::object_start:
                open_objects.emplace_back();
                break;
            case json::parse_event_t::object_end:
                if (!open_objects.empty()) open_objects.pop_back();
                break;
            case json::parse_event_t::key:
                if (!open_objects.empty() && parsed.is_string() &&
                    !open_objects.back().insert(parsed.get<std::string>()).second)
                    duplicate = true;
                break;
            default:
                break;
        }
        return true;
    };
    json doc;
    try {
        doc = json::parse(json_text.begin(), json_text.end(), on_event, /*allow_exceptions=*/false);
    } catch (const std::exception& e) {  // e.g. bad_alloc, or a throw from inside the callback
        return fail(Eip712Error::malformed_document, e.what());
    }
    if (doc.is_discarded()) return fail(Eip712Error::malformed_document, "not valid JSON");
    if (duplicate) return fail(Eip712Error::malformed_document, "duplicate object key");
    return typed_data_from_json(doc);
}

Result<TypedData, Eip712Error> typed_data_from_json(const json& doc) {
    try {
        if (!doc.is_object())
            return fail(Eip712Error::malformed_document, "document must be an object");
        const auto types = doc.find("types");
        const auto primary = doc.find("primaryType");
        const auto domain = doc.find("domain");
        const auto message = doc.find("message");
        if (types == doc.end()) return fail(Eip712Error::malformed_document, "missing types");
        if (primary == doc.end() || !primary->is_string())
            return fail(Eip712Error::malformed_document, "primaryType must be a string");
        if (domain == doc.end() || !domain->is_object())
            return fail(Eip712Error::malformed_document, "domain must be an object");

        TypedData out;
        auto parsed_types = parse_eip712_types(*types);
        if (!parsed_types) return std::unexpected(parsed_types.error());
        out.types = std::move(*parsed_types);
        out.primary_type = primary->get<std::string>();
        out.domain = *domain;

        if (out.types.find(kDomainType) == out.types.end()) {
            // No declared EIP712Domain: the type is the standard fields the domain has (ethers).
            for (const auto& [key, value] : domain->items()) {
                const bool known = std::any_of(kDomainFields.begin(), kDomainFields.end(),
                                               [&](const auto& f) { return f.name == key; });
                if (!known)
                    return fail(Eip712Error::malformed_document, "unknown domain key " + key);
            }
            std::vector<Eip712Field> fields;
            for (const auto& f : kDomainFields) {
                const auto it = domain->find(f.name);
                if (it != domain->end() && !it->is_null())
                    fields.push_back({std::string(f.name), std::string(f.type)});
            }
            out.types.emplace(std::string(kDomainType), std::move(fields));
        }
        if (out.types.find(out.primary_type) == out.types.end())
            return fail(Eip712Error::unknown_type, "primaryType " + out.primary_type);
        if (out.primary_type != kDomainType) {
            if (message == doc.end())
                return fail(Eip712Error::malformed_document, "missing message");
            out.message = *message;
        }
        return out;
    } catch (const std::exception& e) {
        return fail(Eip712Error::malformed_document, e.what());
    }
}

Result<std::string, Eip712Error> encode_type(const Eip712Types& types, std::string_view type_name) {
    try {
        return TypedDataEncoder(types).encode_type(type_name);
    } catch (const std::exception& e) {
        return fail(Eip712Error::malformed_document, e.what());
    }
}

Result<Hash32, Eip712Error> type_hash(const Eip712Types& types, std::string_view type_name) {
    try {
        return TypedDataEncoder(types).type_hash(type_name);
    } catch (const std::exception& e) {
        return fail(Eip712Error::malformed_document, e.what());
    }
}

Result<Bytes, Eip712Error> encode_data(const Eip712Types& types, std::string_view type_name,
                                       const json& value) {
    try {
        Bytes out;
        auto r = TypedDataEncoder(types).encode_struct(type_name, value, 0, out);
        if (!r) return std::unexpected(r.error());
        return out;
    } catch (const std::exception& e) {
        return fail(Eip712Error::malformed_document, e.what());
    }
}

Result<Hash32, Eip712Error> hash_struct(const Eip712Types& types, std::string_view type_name,
                                        const json& value) {
    try {
        return TypedDataEncoder(types).hash_struct(type_name, value, 0);
    } catch (const std::exception& e) {
        return fail(Eip712Error::malformed_document, e.what());
    }
}

Result<Hash32, Eip712Error> domain_separator(const TypedData& typed_data) {
    auto r = hash_struct(typed_data.types, kDomainType, typed_data.domain);
    if (!r) return prefixed(r.error(), "domain");
    return r;
}

Result<Hash32, Eip712Error> typed_data_digest(const TypedData& typed_data) {
    try {
        TypedDataEncoder enc(typed_data.types);
        auto ds = enc.hash_struct(kDomainType, typed_data.domain, 0);
        if (!ds) return prefixed(ds.error(), "domain");
        if (typed_data.primary_type == kDomainType) {
            // eth_signTypedData_v4 signs keccak256(0x1901 ‖ domainSeparator) in this case.
            std::array<uint8_t, 34> buf{0x19, 0x01};
            std::copy(ds->begin(), ds->end(), buf.begin() + 2);
            return keccak256(buf);
        }
        auto hs = enc.hash_struct(typed_data.primary_type, typed_data.message, 0);
        if (!hs) return prefixed(hs.error(), "message");
        return eip712_digest(*ds, *hs);
    } catch (const std::exception& e) {
        return fail(Eip712Error::malformed_document, e.what());
    }
}

Result<Hash32, Eip712Error> typed_data_digest(std::string_view json_text) {
    auto td = parse_typed_data(json_text);
    if (!td) return std::unexpected(td.error());
    return typed_data_digest(*td);
}

Hash32 eip712_digest(const Hash32& domain_separator, const Hash32& struct_hash) noexcept {
    // EIP-712 §Specification: "\x19\x01" ‖ domainSeparator ‖ hashStruct(message).
    std::array<uint8_t, 66> buf{0x19, 0x01};
    std::copy(domain_separator.begin(), domain_separator.end(), buf.begin() + 2);
    std::copy(struct_hash.begin(), struct_hash.end(), buf.begin() + 34);
    return keccak256(buf);
}

namespace {

void put_address(uint8_t* word, const Eip712Address& a) noexcept {
    std::fill(word, word + 12, uint8_t{0});
    std::copy(a.begin(), a.end(), word + 12);
}

void put_hash(uint8_t* word, const Hash32& h) noexcept { std::copy(h.begin(), h.end(), word); }

}  // namespace

Hash32 domain_separator(const Eip712Domain& d) {
    std::string type = "EIP712Domain(";
    std::array<uint8_t, 32 * 6> buf{};
    size_t words = 1;
    auto add_field = [&](std::string_view decl) {
        if (words > 1) type += ',';
        type += decl;
    };
    if (d.name) {
        add_field("string name");
        put_hash(buf.data() + 32 * words++, keccak256(std::string_view(*d.name)));
    }
    if (d.version) {
        add_field("string version");
        put_hash(buf.data() + 32 * words++, keccak256(std::string_view(*d.version)));
    }
    if (d.chain_id) {
        add_field("uint256 chainId");
        d.chain_id->write_word(buf.data() + 32 * words++);
    }
    if (d.verifying_contract) {
        add_field("address verifyingContract");
        put_address(buf.data() + 32 * words++, *d.verifying_contract);
    }
    if (d.salt) {
        add_field("bytes32 salt");
        put_hash(buf.data() + 32 * words++, *d.salt);
    }
    type += ')';
    put_hash(buf.data(), keccak256(std::string_view(type)));
    return keccak256(ByteView(buf.data(), 32 * words));
}

Hash32 erc8004_domain_separator(const Uint256& chain_id,
                                const Eip712Address& verifying_contract) noexcept {
    static const Hash32 kTypeHash = keccak256(std::string_view(
        "EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"));
    static const Hash32 kNameHash = keccak256(kErc8004DomainName);
    static const Hash32 kVersionHash = keccak256(kErc8004DomainVersion);
    std::array<uint8_t, 32 * 5> buf{};
    put_hash(buf.data(), kTypeHash);
    put_hash(buf.data() + 32, kNameHash);
    put_hash(buf.data() + 64, kVersionHash);
    chain_id.write_word(buf.data() + 96);
    put_address(buf.data() + 128, verifying_contract);
    return keccak256(buf);
}

Hash32 agent_wallet_set_struct_hash(const Uint256& agent_id, const Eip712Address& new_wallet,
                                    const Eip712Address& owner, const Uint256& deadline) noexcept {
    static const Hash32 kTypeHash = keccak256(kAgentWalletSetType);
    std::array<uint8_t, 32 * 5> buf{};
    put_hash(buf.data(), kTypeHash);
    agent_id.write_word(buf.data() + 32);
    put_address(buf.data() + 64, new_wallet);
    put_address(buf.data() + 96, owner);
    deadline.write_word(buf.data() + 128);
    return keccak256(buf);
}

Hash32 agent_wallet_set_digest(const Uint256& chain_id, const Eip712Address& verifying_contract,
                               const Uint256& agent_id, const Eip712Address& new_wallet,
                               const Eip712Address& owner, const Uint256& deadline) noexcept {
    return eip712_digest(erc8004_domain_separator(chain_id, verifying_contract),
                         agent_wallet_set_struct_hash(agent_id, new_wallet, owner, deadline));
}

}  // namespace credence::core
