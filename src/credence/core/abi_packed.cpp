#include <credence/core/abi_packed.hpp>

#include <credence/core/keccak.hpp>

namespace credence::core {

namespace {

Result<void, AbiError> pack(Bytes& out, const AbiType& t, const AbiValue& v, bool in_array,
                            unsigned depth) {
    if (depth > kMaxAbiDepth) return fail(AbiError::too_deep, "value nested too deeply");
    if (t.is_value_type()) {
        // Reuse the standard encoder for range and type checks, then keep the right bytes.
        const auto word = encode_one(t, v);
        if (!word) return std::unexpected(word.error());
        if (in_array) {
            // Packed mode: array elements are padded to 32 bytes.
            out.insert(out.end(), word->begin(), word->end());
            return {};
        }
        switch (t.kind()) {
            case AbiKind::unsigned_int:
            case AbiKind::signed_int: {
                const size_t n = t.bits() / 8;
                out.insert(out.end(), word->end() - static_cast<std::ptrdiff_t>(n), word->end());
                return {};
            }
            case AbiKind::address:
                out.insert(out.end(), word->begin() + 12, word->end());
                return {};
            case AbiKind::boolean:
                out.push_back(word->back());
                return {};
            default:  // bytesN: left-aligned, N bytes
                out.insert(out.end(), word->begin(), word->begin() + t.size());
                return {};
        }
    }
    switch (t.kind()) {
        case AbiKind::bytes:
        case AbiKind::string: {
            if (in_array)
                return fail(AbiError::unsupported, "packed encoding of arrays of dynamic types");
            if (const auto* s = v.as_string(); s != nullptr && t.kind() == AbiKind::string) {
                out.insert(out.end(), s->begin(), s->end());
                return {};
            }
            if (const auto* b = v.as_bytes(); b != nullptr && t.kind() == AbiKind::bytes) {
                out.insert(out.end(), b->begin(), b->end());
                return {};
            }
            return fail(AbiError::bad_value, "wrong value for " + t.canonical());
        }
        case AbiKind::dynamic_array:
        case AbiKind::fixed_array: {
            const auto* items = v.as_list();
            if (items == nullptr)
                return fail(AbiError::bad_value, "list expected for " + t.canonical());
            if (t.kind() == AbiKind::fixed_array && items->size() != t.length())
                return fail(AbiError::count_mismatch,
                            std::to_string(items->size()) + " values given for " + t.canonical());
            for (const auto& item : *items) {
                if (auto r = pack(out, t.element(), item, true, depth + 1); !r) return r;
            }
            return {};
        }
        default:
            return fail(AbiError::unsupported, "packed encoding of tuples");
    }
}

}  // namespace

Result<Bytes, AbiError> encode_packed(std::span<const AbiType> types,
                                      std::span<const AbiValue> values) {
    if (types.size() != values.size())
        return fail(AbiError::count_mismatch, std::to_string(values.size()) + " values for " +
                                                  std::to_string(types.size()) + " types");
    Bytes out;
    for (size_t i = 0; i < types.size(); ++i) {
        if (auto r = pack(out, types[i], values[i], false, 0); !r)
            return std::unexpected(std::move(r.error()));
    }
    return out;
}

Result<Hash32, AbiError> keccak256_packed(std::span<const AbiType> types,
                                          std::span<const AbiValue> values) {
    auto packed = encode_packed(types, values);
    if (!packed) return std::unexpected(std::move(packed.error()));
    return keccak256(*packed);
}

}  // namespace credence::core
