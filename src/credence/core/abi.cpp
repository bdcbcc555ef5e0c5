#include <credence/core/abi.hpp>

#include <algorithm>
#include <cstring>

#include <credence/core/keccak.hpp>

namespace credence::core {

FixedBytes::FixedBytes(ByteView bytes) noexcept
    : size(static_cast<uint8_t>(std::min<size_t>(bytes.size(), 32))) {
    std::copy_n(bytes.begin(), size, data.begin());
}

Selector selector_of(std::string_view canonical_signature) noexcept {
    const Hash32 h = keccak256(canonical_signature);
    return {h[0], h[1], h[2], h[3]};
}

namespace {

// Head sizes saturate at 2^62 (abi_type.cpp); sums are clamped the same way so they cannot wrap.
constexpr uint64_t kHeadCap = uint64_t{1} << 62;

bool all_zero(const uint8_t* p, size_t n) noexcept {
    uint8_t acc = 0;
    for (size_t i = 0; i < n; ++i) acc |= p[i];
    return acc == 0;
}

bool all_equal(const uint8_t* p, size_t n, uint8_t v) noexcept {
    for (size_t i = 0; i < n; ++i)
        if (p[i] != v) return false;
    return true;
}

/// A length or offset word as a size; false when it does not fit in 62 bits (then it cannot
/// possibly be in bounds of any real input).
bool word_to_size(const uint8_t* w, uint64_t& out) noexcept {
    if (!all_zero(w, 24) || (w[24] & 0xc0) != 0) return false;
    uint64_t v = 0;
    for (size_t i = 24; i < 32; ++i) v = (v << 8) | w[i];
    out = v;
    return true;
}

void put_size_word(uint8_t* w, uint64_t v) noexcept {
    std::memset(w, 0, 24);
    for (size_t i = 0; i < 8; ++i) w[31 - i] = static_cast<uint8_t>(v >> (8 * i));
}

Result<void, AbiError> decode_value_word(const AbiType& t, const uint8_t* w, AbiValue& out) {
    switch (t.kind()) {
        case AbiKind::unsigned_int: {
            // ABI spec: uint<M> is padded on the higher-order side with zero bytes.
            const size_t pad = 32 - t.bits() / 8;
            if (!all_zero(w, pad))
                return fail(AbiError::out_of_range,
                            "uint" + std::to_string(t.bits()) + " value has high bits set");
            out.v = Uint256::from_word(w);
            return {};
        }
        case AbiKind::signed_int: {
            // ABI spec: int<M> is sign-extended to 32 bytes (0xff padding for negative values).
            const size_t pad = 32 - t.bits() / 8;
            const uint8_t fill = (w[pad] & 0x80) != 0 ? 0xff : 0x00;
            if (!all_equal(w, pad, fill))
                return fail(AbiError::out_of_range,
                            "int" + std::to_string(t.bits()) + " value not sign-extended");
            out.v = Int256(Uint256::from_word(w));
            return {};
        }
        case AbiKind::address: {
            // ABI spec: address is encoded as uint160.
            if (!all_zero(w, 12))
                return fail(AbiError::bad_padding, "address has non-zero high bytes");
            AbiValue::Address a;
            std::memcpy(a.data(), w + 12, 20);
            out.v = a;
            return {};
        }
        case AbiKind::boolean:
            // ABI spec: bool is encoded as uint8 restricted to 0 and 1.
            if (!all_zero(w, 31) || w[31] > 1)
                return fail(AbiError::out_of_range, "bool is neither 0 nor 1");
            out.v = (w[31] == 1);
            return {};
        case AbiKind::fixed_bytes: {
            // ABI spec: bytes<M> is padded on the lower-order side with zero bytes.
            const size_t n = t.size();
            if (!all_zero(w + n, 32 - n))
                return fail(AbiError::bad_padding,
                            "bytes" + std::to_string(n) + " has non-zero padding");
            out.v = FixedBytes(ByteView(w, n));
            return {};
        }
        default:
            return fail(AbiError::unsupported, "not a value type: " + t.canonical());
    }
}

using TypeAtFn = detail::AbiTypeAt;

const AbiType& span_type_at(const void* ctx, size_t i) {
    return (*static_cast<const std::span<const AbiType>*>(ctx))[i];
}
const AbiType& repeat_type_at(const void* ctx, size_t /*i*/) {
    return *static_cast<const AbiType*>(ctx);
}

class Decoder {
public:
    Decoder(ByteView data, DecodeOptions options) noexcept
        : data_(data), budget_(data.size()), canonical_(options.canonical) {}

    /// Decodes `count` values laid out as a tuple whose heads start at `region` into
    /// `out_at(i)`. Returns the canonical extent of the encoding (heads plus tails).
    template <typename TypeAt, typename OutAt>
    Result<uint64_t, AbiError> list(size_t count, const TypeAt& type_at, uint64_t heads,
                                    size_t region, unsigned depth, const OutAt& out_at) {
        const size_t avail = data_.size() - region;
        if (heads > avail) return fail(AbiError::short_data, "heads run past the end of the data");
        uint64_t tail = heads;
        size_t head_pos = region;
        for (size_t i = 0; i < count; ++i) {
            const AbiType& t = type_at(i);
            if (t.is_dynamic()) {
                uint64_t offset = 0;
                // ABI spec: a dynamic value's head is the offset of its tail from the start of
                // the enclosing tuple's encoding.
                if (!word_to_size(data_.data() + head_pos, offset) || offset > avail)
                    return fail(AbiError::bad_offset, "offset points outside the data");
                if (canonical_ && offset != tail)
                    return fail(AbiError::bad_offset, "non-canonical offset " +
                                                          std::to_string(offset) + ", expected " +
                                                          std::to_string(tail));
                auto used = value(t, region + offset, depth + 1, out_at(i));
                if (!used) return used;
                tail += *used;
            } else {
                auto used = value(t, head_pos, depth + 1, out_at(i));
                if (!used) return used;
            }
            head_pos += t.head_size();
        }
        return tail;
    }

    /// A nested list: checks the budget before allocating `count` values.
    template <typename TypeAt>
    Result<uint64_t, AbiError> nested(size_t count, const TypeAt& type_at, uint64_t heads,
                                      size_t pos, unsigned depth, AbiValue& out) {
        // Every value costs at least one word of budget; fail before allocating if it cannot fit.
        if (count > budget_ / 32)
            return fail(AbiError::too_large, "decoded size exceeds the input");
        auto& items = out.v.emplace<AbiValue::List>(count);
        return list(count, type_at, heads, pos, depth,
                    [&items](size_t i) -> AbiValue& { return items[i]; });
    }

    /// Decodes one value whose encoding starts at `pos` (the head for static types, the tail for
    /// dynamic ones). Returns the length of its encoding.
    Result<uint64_t, AbiError> value(const AbiType& t, size_t pos, unsigned depth, AbiValue& out) {
        if (depth > kMaxAbiDepth) return fail(AbiError::too_deep, "value nested too deeply");
        const size_t avail = data_.size() - pos;
        switch (t.kind()) {
            case AbiKind::unsigned_int:
            case AbiKind::signed_int:
            case AbiKind::address:
            case AbiKind::boolean:
            case AbiKind::fixed_bytes: {
                if (avail < 32)
                    return fail(AbiError::short_data, "word runs past the end of the data");
                if (auto c = charge(32); !c) return std::unexpected(std::move(c.error()));
                if (auto r = decode_value_word(t, data_.data() + pos, out); !r)
                    return std::unexpected(std::move(r.error()));
                return 32;
            }
            case AbiKind::bytes:
            case AbiKind::string: {
                if (avail < 32)
                    return fail(AbiError::short_data, "length word runs past the end of the data");
                uint64_t len = 0;
                // Length checked against the remaining data before anything is allocated.
                if (!word_to_size(data_.data() + pos, len) || len > avail - 32)
                    return fail(AbiError::bad_length, "length larger than the remaining data");
                const uint64_t padded = (len + 31) & ~uint64_t{31};
                if (padded > avail - 32)
                    return fail(AbiError::short_data, "padding runs past the end of the data");
                const uint8_t* p = data_.data() + pos + 32;
                // ABI spec: bytes are followed by the minimum number of zero bytes to reach a
                // multiple of 32.
                if (!all_zero(p + len, padded - len))
                    return fail(AbiError::bad_padding, "non-zero padding after bytes");
                if (auto c = charge(32 + padded); !c) return std::unexpected(std::move(c.error()));
                if (t.kind() == AbiKind::bytes)
                    out.v.emplace<Bytes>(p, p + len);
                else
                    out.v.emplace<std::string>(reinterpret_cast<const char*>(p), len);
                return 32 + padded;
            }
            case AbiKind::dynamic_array: {
                if (avail < 32)
                    return fail(AbiError::short_data, "length word runs past the end of the data");
                uint64_t count = 0;
                const uint64_t h = t.element().head_size();
                if (h == 0) return zero_size(t);
                if (!word_to_size(data_.data() + pos, count) || count > (avail - 32) / h)
                    return fail(AbiError::bad_length,
                                "array length larger than the remaining data");
                if (auto c = charge(32); !c) return std::unexpected(std::move(c.error()));
                const AbiType& elem = t.element();
                auto used = nested(
                    count, [&elem](size_t) -> const AbiType& { return elem; }, count* h, pos + 32,
                    depth, out);
                if (!used) return used;
                return 32 + *used;
            }
            case AbiKind::fixed_array: {
                const uint64_t h = t.element().head_size();
                if (h == 0) return zero_size(t);
                if (t.length() > avail / h)
                    return fail(AbiError::short_data, "fixed array runs past the end of the data");
                const AbiType& elem = t.element();
                return nested(
                    t.length(), [&elem](size_t) -> const AbiType& { return elem; }, t.length() * h,
                    pos, depth, out);
            }
            case AbiKind::tuple: {
                const auto comps = t.components();
                uint64_t heads = 0;
                for (const auto& c : comps) heads = std::min(heads + c.head_size(), kHeadCap);
                return nested(
                    comps.size(), [comps](size_t i) -> const AbiType& { return comps[i]; }, heads,
                    pos, depth, out);
            }
        }
        return fail(AbiError::unsupported, "unknown type kind");
    }

private:
    /// Only hand-built types (make_tuple({}), length 0) can have zero-size elements; the parser
    /// rejects them because a zero-size array element would let a length claim unbounded work.
    static std::unexpected<Error<AbiError>> zero_size(const AbiType& t) {
        return fail(AbiError::bad_type, "zero-size element type in " + t.canonical());
    }

    Result<void, AbiError> charge(uint64_t n) {
        // Canonical encodings never decode to more than their own size; only overlapping tails
        // can, which is how "ABI decode bombs" expand a few bytes into gigabytes.
        if (n > budget_)
            return fail(AbiError::too_large, "decoded size exceeds the input (overlapping tails)");
        budget_ -= n;
        return {};
    }

    ByteView data_;
    uint64_t budget_;
    bool canonical_;
};

/// Exact size of the encoding when `v` matches `t` (a best-effort estimate otherwise), so the
/// encoder can reserve once. Static types cost O(1); only dynamic parts are walked.
size_t encoded_size(const AbiType& t, const AbiValue& v, unsigned depth) noexcept {
    if (!t.is_dynamic()) return static_cast<size_t>(t.head_size());
    if (depth > kMaxAbiDepth) return 0;
    const auto padded = [](size_t n) { return 32 + ((n + 31) & ~size_t{31}); };
    switch (t.kind()) {
        case AbiKind::bytes:
        case AbiKind::string:
            if (const auto* s = v.as_string()) return padded(s->size());
            if (const auto* b = v.as_bytes()) return padded(b->size());
            return 32;
        default: {
            const auto* items = v.as_list();
            if (items == nullptr) return 0;
            size_t n = t.kind() == AbiKind::dynamic_array ? 32 : 0;
            const bool is_tuple = t.kind() == AbiKind::tuple;
            if (is_tuple && items->size() != t.components().size()) return n;
            for (size_t i = 0; i < items->size(); ++i) {
                const AbiType& c = is_tuple ? t.components()[i] : t.element();
                n += encoded_size(c, (*items)[i], depth + 1) + (c.is_dynamic() ? 32 : 0);
            }
            return n;
        }
    }
}

/// Reservation for encoding `values`, capped: a bogus static type (uint256[2^32]) must fail in the
/// encoder, not reserve 128 GiB here.
size_t list_size(std::span<const AbiType> types, std::span<const AbiValue> values) noexcept {
    size_t size = 0;
    for (size_t i = 0; i < std::min(types.size(), values.size()); ++i)
        size += encoded_size(types[i], values[i], 0) + (types[i].is_dynamic() ? 32 : 0);
    return std::min<size_t>(size, size_t{1} << 24);
}

class Encoder {
public:
    explicit Encoder(Bytes& out) noexcept : out_(out) {}

    Result<void, AbiError> list(size_t count, TypeAtFn type_at, const void* ctx,
                                const AbiValue* values, unsigned depth) {
        const size_t start = out_.size();
        // Heads first: static values in place, a placeholder word for each dynamic one.
        for (size_t i = 0; i < count; ++i) {
            const AbiType& t = type_at(ctx, i);
            if (t.is_dynamic()) {
                out_.resize(out_.size() + 32);
            } else if (auto r = put(t, values[i], depth + 1); !r) {
                return r;
            }
        }
        // Then tails, patching each offset (relative to the start of this tuple's encoding).
        size_t head_pos = start;
        for (size_t i = 0; i < count; ++i) {
            const AbiType& t = type_at(ctx, i);
            if (t.is_dynamic()) {
                put_size_word(out_.data() + head_pos, out_.size() - start);
                if (auto r = put(t, values[i], depth + 1); !r) return r;
            }
            head_pos += t.head_size();
        }
        return {};
    }

    Result<void, AbiError> put(const AbiType& t, const AbiValue& v, unsigned depth) {
        if (depth > kMaxAbiDepth) return fail(AbiError::too_deep, "value nested too deeply");
        switch (t.kind()) {
            case AbiKind::unsigned_int: {
                const Uint256* u = v.as_uint();
                Uint256 tmp;
                if (u == nullptr) {
                    const Int256* s = v.as_int();
                    if (s == nullptr) return mismatch(t, v);
                    if (s->is_negative())
                        return fail(AbiError::out_of_range, "negative value for " + t.canonical());
                    tmp = s->bits;
                    u = &tmp;
                }
                if (u->bit_width() > t.bits())
                    return fail(AbiError::out_of_range, "value does not fit in " + t.canonical());
                u->write_word(grow(32));
                return {};
            }
            case AbiKind::signed_int: {
                const Int256* s = v.as_int();
                Int256 tmp;
                if (s == nullptr) {
                    const Uint256* u = v.as_uint();
                    if (u == nullptr) return mismatch(t, v);
                    if (u->bit_width() >= t.bits())
                        return fail(AbiError::out_of_range,
                                    "value does not fit in " + t.canonical());
                    tmp = Int256(*u);
                    s = &tmp;
                }
                if (!s->fits_bits(t.bits()))
                    return fail(AbiError::out_of_range, "value does not fit in " + t.canonical());
                s->bits.write_word(grow(32));
                return {};
            }
            case AbiKind::address: {
                const auto* a = v.as_address();
                if (a == nullptr) return mismatch(t, v);
                std::memcpy(grow(32) + 12, a->data(), 20);
                return {};
            }
            case AbiKind::boolean: {
                const bool* b = v.as_bool();
                if (b == nullptr) return mismatch(t, v);
                grow(32)[31] = *b ? 1 : 0;
                return {};
            }
            case AbiKind::fixed_bytes: {
                ByteView bytes;
                if (const auto* f = v.as_fixed_bytes()) {
                    bytes = f->view();
                } else if (const auto* b = v.as_bytes()) {
                    bytes = *b;
                } else {
                    return mismatch(t, v);
                }
                if (bytes.size() != t.size())
                    return fail(AbiError::bad_value,
                                std::to_string(bytes.size()) + " bytes given for " + t.canonical());
                std::memcpy(grow(32), bytes.data(), bytes.size());
                return {};
            }
            case AbiKind::bytes:
            case AbiKind::string: {
                ByteView bytes;
                if (t.kind() == AbiKind::string) {
                    const auto* s = v.as_string();
                    if (s == nullptr) return mismatch(t, v);
                    bytes = as_bytes(*s);
                } else if (const auto* b = v.as_bytes()) {
                    bytes = *b;
                } else if (const auto* f = v.as_fixed_bytes()) {
                    bytes = f->view();
                } else {
                    return mismatch(t, v);
                }
                const size_t padded = (bytes.size() + 31) & ~size_t{31};
                uint8_t* p = grow(32 + padded);
                put_size_word(p, bytes.size());
                if (!bytes.empty()) std::memcpy(p + 32, bytes.data(), bytes.size());
                return {};
            }
            case AbiKind::dynamic_array: {
                const auto* items = v.as_list();
                if (items == nullptr) return mismatch(t, v);
                put_size_word(grow(32), items->size());
                return list(items->size(), repeat_type_at, &t.element(), items->data(), depth);
            }
            case AbiKind::fixed_array: {
                const auto* items = v.as_list();
                if (items == nullptr) return mismatch(t, v);
                if (items->size() != t.length())
                    return fail(AbiError::count_mismatch, std::to_string(items->size()) +
                                                              " values given for " + t.canonical());
                return list(items->size(), repeat_type_at, &t.element(), items->data(), depth);
            }
            case AbiKind::tuple: {
                const auto* items = v.as_list();
                if (items == nullptr) return mismatch(t, v);
                const auto comps = t.components();
                if (items->size() != comps.size())
                    return fail(AbiError::count_mismatch, std::to_string(items->size()) +
                                                              " values given for " + t.canonical());
                return list(comps.size(), span_type_at, &comps, items->data(), depth);
            }
        }
        return fail(AbiError::unsupported, "unknown type kind");
    }

private:
    uint8_t* grow(size_t n) {
        const size_t at = out_.size();
        out_.resize(at + n);
        return out_.data() + at;
    }

    static std::unexpected<Error<AbiError>> mismatch(const AbiType& t, const AbiValue& v) {
        static constexpr const char* kNames[] = {"uint",   "int",   "address", "bool",
                                                 "bytesN", "bytes", "string",  "list"};
        return fail(AbiError::bad_value,
                    std::string(kNames[v.v.index()]) + " value given for " + t.canonical());
    }

    Bytes& out_;
};

}  // namespace

Result<void, AbiError> encode_into(Bytes& out, std::span<const AbiType> types,
                                   std::span<const AbiValue> values) {
    if (types.size() != values.size())
        return fail(AbiError::count_mismatch, std::to_string(values.size()) + " values for " +
                                                  std::to_string(types.size()) + " types");
    const size_t start = out.size();
    out.reserve(start + list_size(types, values));
    Encoder enc(out);
    auto r = enc.list(types.size(), span_type_at, &types, values.data(), 0);
    if (!r) out.resize(start);
    return r;
}

Result<Bytes, AbiError> encode(std::span<const AbiType> types, std::span<const AbiValue> values) {
    Bytes out;
    if (auto r = encode_into(out, types, values); !r) return std::unexpected(std::move(r.error()));
    return out;
}

Result<Bytes, AbiError> encode_one(const AbiType& type, const AbiValue& value) {
    return encode(std::span<const AbiType>(&type, 1), std::span<const AbiValue>(&value, 1));
}

Result<Bytes, AbiError> encode_call(const Selector& selector, std::span<const AbiType> types,
                                    std::span<const AbiValue> values) {
    Bytes out;
    out.reserve(4 + list_size(types, values));
    out.insert(out.end(), selector.begin(), selector.end());
    if (auto r = encode_into(out, types, values); !r) return std::unexpected(std::move(r.error()));
    return out;
}

namespace detail {

Result<void, AbiError> decode_list_into(size_t count, AbiTypeAt type_at, const void* ctx,
                                        ByteView data, DecodeOptions options, AbiOutAt out_at,
                                        void* out_ctx) {
    uint64_t heads = 0;
    for (size_t i = 0; i < count; ++i)
        heads = std::min(heads + type_at(ctx, i).head_size(), kHeadCap);
    Decoder dec(data, options);
    auto used = dec.list(
        count, [&](size_t i) -> const AbiType& { return type_at(ctx, i); }, heads, 0, 0,
        [&](size_t i) -> AbiValue& { return out_at(out_ctx, i); });
    if (!used) return std::unexpected(std::move(used.error()));
    // Canonical form: the encoding is exactly heads plus tails, nothing after.
    if (options.canonical && *used != data.size())
        return fail(AbiError::trailing_data,
                    std::to_string(data.size() - *used) + " bytes after the encoding");
    return {};
}

Result<std::vector<AbiValue>, AbiError> decode_list(size_t count, AbiTypeAt type_at,
                                                    const void* ctx, ByteView data,
                                                    DecodeOptions options) {
    std::vector<AbiValue> out(count);
    auto r = decode_list_into(
        count, type_at, ctx, data, options,
        [](void* c, size_t i) -> AbiValue& { return (*static_cast<std::vector<AbiValue>*>(c))[i]; },
        &out);
    if (!r) return std::unexpected(std::move(r.error()));
    return out;
}

}  // namespace detail

Result<std::vector<AbiValue>, AbiError> decode(std::span<const AbiType> types, ByteView data,
                                               DecodeOptions options) {
    return detail::decode_list(types.size(), span_type_at, &types, data, options);
}

Result<AbiValue, AbiError> decode_one(const AbiType& type, ByteView data, DecodeOptions options) {
    auto values = decode(std::span<const AbiType>(&type, 1), data, options);
    if (!values) return std::unexpected(std::move(values.error()));
    return std::move(values->front());
}

Result<AbiValue, AbiError> decode_word(const AbiType& type, const Hash32& word) {
    AbiValue out;
    if (auto r = decode_value_word(type, word.data(), out); !r)
        return std::unexpected(std::move(r.error()));
    return out;
}

}  // namespace credence::core
