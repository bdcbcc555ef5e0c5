// Solidity ABI encoding and decoding (the standard head/tail layout of the Solidity ABI spec,
// https://docs.soliditylang.org/en/latest/abi-spec.html#formal-specification-of-the-encoding).
//
// Values are dynamic (AbiValue) and are checked against their AbiType on encode. Decoding is
// strict:
// - every offset, length, head and tail must lie inside the data; lengths are checked against the
//   remaining bytes before anything is allocated;
// - padding must be zero (uintN high bytes, address high 12 bytes, bytesN low bytes, bool's 31
//   high bytes, the tail of bytes/string) and values must be in range (bool is 0 or 1, intN is
//   properly sign-extended);
// - the total decoded size may not exceed the input (tails shared through overlapping offsets
//   would otherwise let a few bytes expand into gigabytes);
// - recursion follows the type, whose depth is at most kMaxAbiDepth.
// With DecodeOptions::canonical the decoder additionally requires the exact layout the encoder
// produces (each offset where the previous tail ended, no trailing bytes): decode then encode is
// the identity.
//
// Thread-safety: all functions are pure; AbiType and AbiValue are plain values.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include <credence/core/abi_type.hpp>
#include <credence/core/bytes.hpp>
#include <credence/core/uint256.hpp>

namespace credence::core {

/// Value of a bytesN (N = size, 1..32); stored inline so decoding a bytes32 does not allocate.
struct FixedBytes {
    std::array<uint8_t, 32> data{};
    uint8_t size = 0;

    FixedBytes() noexcept = default;
    /// Copies `bytes` (at most 32; longer input is truncated, callers check size first).
    explicit FixedBytes(ByteView bytes) noexcept;
    explicit FixedBytes(const Hash32& h) noexcept : data(h), size(32) {}

    [[nodiscard]] ByteView view() const noexcept { return {data.data(), size}; }
    friend bool operator==(const FixedBytes& a, const FixedBytes& b) noexcept {
        return a.size == b.size && a.data == b.data;
    }
};

/// A dynamically typed ABI value. Which alternative goes with which type:
///   uintN -> Uint256, intN -> Int256, address -> Address, bool -> bool, bytesN -> FixedBytes,
///   bytes -> Bytes, string -> std::string (raw bytes, not checked as UTF-8),
///   T[], T[k] and tuples -> List.
/// On encode, Uint256 is also accepted for intN (and Int256 for uintN) when in range, and Bytes of
/// exactly N bytes for bytesN. The decoder always produces the alternatives above.
struct AbiValue {
    using Address = std::array<uint8_t, 20>;
    using List = std::vector<AbiValue>;
    using Variant =
        std::variant<Uint256, Int256, Address, bool, FixedBytes, Bytes, std::string, List>;

    Variant v;

    AbiValue() = default;
    AbiValue(Uint256 x) : v(x) {}                   // NOLINT: implicit by design
    AbiValue(Int256 x) : v(x) {}                    // NOLINT
    AbiValue(const Address& x) : v(x) {}            // NOLINT
    AbiValue(FixedBytes x) : v(x) {}                // NOLINT
    AbiValue(Bytes x) : v(std::move(x)) {}          // NOLINT
    AbiValue(std::string x) : v(std::move(x)) {}    // NOLINT
    AbiValue(const char* x) : v(std::string(x)) {}  // NOLINT: or it would become a bool
    AbiValue(List x) : v(std::move(x)) {}           // NOLINT
    /// Only a real bool, never a pointer or integer converted to one.
    template <typename B, std::enable_if_t<std::is_same_v<B, bool>, int> = 0>
    AbiValue(B x) : v(x) {}  // NOLINT

    [[nodiscard]] const Uint256* as_uint() const noexcept { return std::get_if<Uint256>(&v); }
    [[nodiscard]] const Int256* as_int() const noexcept { return std::get_if<Int256>(&v); }
    [[nodiscard]] const Address* as_address() const noexcept { return std::get_if<Address>(&v); }
    [[nodiscard]] const bool* as_bool() const noexcept { return std::get_if<bool>(&v); }
    [[nodiscard]] const FixedBytes* as_fixed_bytes() const noexcept {
        return std::get_if<FixedBytes>(&v);
    }
    [[nodiscard]] const Bytes* as_bytes() const noexcept { return std::get_if<Bytes>(&v); }
    [[nodiscard]] const std::string* as_string() const noexcept {
        return std::get_if<std::string>(&v);
    }
    [[nodiscard]] const List* as_list() const noexcept { return std::get_if<List>(&v); }

    friend bool operator==(const AbiValue& a, const AbiValue& b) = default;
};

struct DecodeOptions {
    /// Require the exact layout the encoder produces (offsets in order, no gaps, no trailing
    /// bytes). Off by default: Solidity's own decoder accepts any in-bounds offsets.
    bool canonical = false;
};

/// 4-byte function or error selector.
using Selector = std::array<uint8_t, 4>;

/// keccak256(signature)[0..4]: the ABI spec's function selector. `signature` must be canonical,
/// e.g. "transfer(address,uint256)".
[[nodiscard]] Selector selector_of(std::string_view canonical_signature) noexcept;

/// abi.encode(values...) with one value per type.
[[nodiscard]] Result<Bytes, AbiError> encode(std::span<const AbiType> types,
                                             std::span<const AbiValue> values);
/// Appends the encoding to `out` (for building calldata without an extra copy).
[[nodiscard]] Result<void, AbiError> encode_into(Bytes& out, std::span<const AbiType> types,
                                                 std::span<const AbiValue> values);
/// abi.encode of a single value (equivalent to encode({type}, {value})).
[[nodiscard]] Result<Bytes, AbiError> encode_one(const AbiType& type, const AbiValue& value);
/// Calldata: selector followed by the encoded params (abi.encodeWithSelector).
[[nodiscard]] Result<Bytes, AbiError> encode_call(const Selector& selector,
                                                  std::span<const AbiType> types,
                                                  std::span<const AbiValue> values);

/// abi.decode(data, (types...)): one value per type.
[[nodiscard]] Result<std::vector<AbiValue>, AbiError> decode(std::span<const AbiType> types,
                                                             ByteView data,
                                                             DecodeOptions options = {});
/// Decodes a single value (the encoding of a one-element list).
[[nodiscard]] Result<AbiValue, AbiError> decode_one(const AbiType& type, ByteView data,
                                                    DecodeOptions options = {});

/// Decodes one word holding a value type (uintN, intN, address, bool, bytesN), with the same
/// padding and range checks as decode. Used for indexed event params.
[[nodiscard]] Result<AbiValue, AbiError> decode_word(const AbiType& type, const Hash32& word);

/// Decodes a list of types given by a callback (`type_at(i)` for i < count), so callers that keep
/// types inside bigger structures (event params) need not copy them.
template <typename TypeAt>
[[nodiscard]] Result<std::vector<AbiValue>, AbiError> decode_with(size_t count, TypeAt&& type_at,
                                                                  ByteView data,
                                                                  DecodeOptions options = {});

namespace detail {
using AbiTypeAt = const AbiType& (*)(const void* ctx, size_t i);
using AbiOutAt = AbiValue& (*)(void* ctx, size_t i);
/// Decodes value i into out_at(out_ctx, i), so callers can place values without moving them.
[[nodiscard]] Result<void, AbiError> decode_list_into(size_t count, AbiTypeAt type_at,
                                                      const void* ctx, ByteView data,
                                                      DecodeOptions options, AbiOutAt out_at,
                                                      void* out_ctx);
[[nodiscard]] Result<std::vector<AbiValue>, AbiError> decode_list(size_t count, AbiTypeAt type_at,
                                                                  const void* ctx, ByteView data,
                                                                  DecodeOptions options);
}  // namespace detail

template <typename TypeAt>
Result<std::vector<AbiValue>, AbiError> decode_with(size_t count, TypeAt&& type_at, ByteView data,
                                                    DecodeOptions options) {
    using Fn = std::remove_reference_t<TypeAt>;
    return detail::decode_list(
        count,
        [](const void* ctx, size_t i) -> const AbiType& {
            return (*static_cast<const Fn*>(ctx))(i);
        },
        &type_at, data, options);
}

}  // namespace credence::core
