// Solidity ABI types: the grammar of type strings and the shape of a parsed type.
//
// A type is one of uintN/intN (N = 8..256, step 8), address, bool, bytesN (N = 1..32), bytes,
// string, T[] (dynamic array), T[k] (fixed array, k >= 1) or a tuple (T1,...,Tn) with n >= 1.
// Parsing is strict: "uint7", "uint264", "bytes0", "bytes33", leading zeros, whitespace and
// trailing garbage are rejected. The aliases "uint"/"int" mean uint256/int256 and "tuple(...)" is
// accepted for "(...)"; canonical() always prints the canonical form used in selectors.
//
// Invariants (kept by the parser and the make_* factories, relied on by the decoder):
// - nesting depth is at most kMaxAbiDepth;
// - every type occupies at least one 32-byte word (no empty tuples, no T[0]), so the number of
//   values a decoder allocates is bounded by the input size;
// - fixed-array lengths are at most kMaxFixedArrayLength and static sizes saturate instead of
//   overflowing.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <credence/core/error.hpp>

namespace credence::core {

/// Every failure of the ABI code: type grammar, signatures, JSON ABI, encoding, decoding, logs.
enum class AbiError {
    bad_type,         // type string outside the grammar
    bad_signature,    // human-readable signature malformed
    bad_json,         // JSON ABI document malformed
    too_deep,         // nesting past kMaxAbiDepth
    bad_value,        // value does not match its type (encode, text parse)
    count_mismatch,   // number of values differs from number of types / array length
    short_data,       // a head, word or tail runs past the end of the data
    bad_offset,       // offset word points outside the data (or is non-canonical)
    bad_length,       // length word larger than the remaining data
    bad_padding,      // non-zero bytes where the encoding requires zeros
    out_of_range,     // value outside its type (uint8 high bits, bool 2, bad sign extension)
    trailing_data,    // canonical decode: bytes left after the encoding
    too_large,        // decoded size exceeds the input (overlapping tails, decode bomb)
    topic_count,      // log: wrong number of topics
    topic0_mismatch,  // log: topic0 is not the event's signature hash
    unsupported,      // valid Solidity, but not representable in the requested encoding
};

[[nodiscard]] std::string_view to_string(AbiError e) noexcept;

/// Nesting limit for types (arrays and tuples each add one level). Also the decoder's recursion
/// limit, so hostile input cannot exhaust the stack.
inline constexpr unsigned kMaxAbiDepth = 32;
/// Largest k accepted in T[k]. Anything bigger cannot occur in real calldata or logs.
inline constexpr uint64_t kMaxFixedArrayLength = uint64_t{1} << 32;

enum class AbiKind : uint8_t {
    unsigned_int,  // uintN
    signed_int,    // intN
    address,
    boolean,
    fixed_bytes,  // bytesN
    bytes,
    string,
    dynamic_array,  // T[]
    fixed_array,    // T[k]
    tuple,
};

/// A parsed ABI type. Immutable once built; cheap queries (is_dynamic, head_size) are cached.
class AbiType {
public:
    /// uint256, the default.
    AbiType() noexcept : kind_(AbiKind::unsigned_int), bits_(256) {}

    // Factories. Preconditions (not checked): bits in 8..256 step 8; size in 1..32;
    // length in 1..kMaxFixedArrayLength; at least one component. Use parse_type for untrusted
    // strings.
    [[nodiscard]] static AbiType make_uint(unsigned bits);
    [[nodiscard]] static AbiType make_int(unsigned bits);
    [[nodiscard]] static AbiType make_address();
    [[nodiscard]] static AbiType make_bool();
    [[nodiscard]] static AbiType make_fixed_bytes(unsigned size);
    [[nodiscard]] static AbiType make_bytes();
    [[nodiscard]] static AbiType make_string();
    [[nodiscard]] static AbiType make_array(AbiType element);
    [[nodiscard]] static AbiType make_fixed_array(AbiType element, uint64_t length);
    [[nodiscard]] static AbiType make_tuple(std::vector<AbiType> components);

    [[nodiscard]] AbiKind kind() const noexcept { return kind_; }
    /// N of uintN/intN.
    [[nodiscard]] unsigned bits() const noexcept { return bits_; }
    /// N of bytesN.
    [[nodiscard]] unsigned size() const noexcept { return bits_ / 8; }
    /// k of T[k].
    [[nodiscard]] uint64_t length() const noexcept { return length_; }
    /// Element type of T[] and T[k].
    [[nodiscard]] const AbiType& element() const noexcept { return children_.front(); }
    /// Components of a tuple.
    [[nodiscard]] std::span<const AbiType> components() const noexcept { return children_; }

    /// bytes, string, T[], and arrays/tuples containing one of them.
    [[nodiscard]] bool is_dynamic() const noexcept { return dynamic_; }
    /// Types of at most one word: uintN, intN, address, bool, bytesN.
    [[nodiscard]] bool is_value_type() const noexcept { return kind_ <= AbiKind::fixed_bytes; }
    /// Bytes this type takes in the head of an enclosing tuple: 32 if dynamic, else its full static
    /// size (saturating at 2^62, which no real input reaches).
    [[nodiscard]] uint64_t head_size() const noexcept { return dynamic_ ? 32 : static_size_; }
    /// Nesting depth: 0 for value types, bytes and string.
    [[nodiscard]] unsigned depth() const noexcept { return depth_; }

    /// Canonical type string, e.g. "(uint256,string)[]".
    [[nodiscard]] std::string canonical() const;
    void append_canonical(std::string& out) const;

    friend bool operator==(const AbiType& a, const AbiType& b) noexcept;

private:
    AbiType(AbiKind kind, unsigned bits) noexcept
        : kind_(kind), bits_(static_cast<uint16_t>(bits)) {}
    void finish() noexcept;

    AbiKind kind_;
    uint16_t bits_ = 0;  // N of uintN/intN; 8*N of bytesN
    bool dynamic_ = false;
    uint8_t depth_ = 0;
    uint64_t length_ = 0;
    uint64_t static_size_ = 32;
    std::vector<AbiType> children_;
};

/// Parses one canonical-or-alias type string ("uint256", "(bytes32,string)[2][]", "uint").
[[nodiscard]] Result<AbiType, AbiError> parse_type(std::string_view text);

/// Parses a parenthesized, comma-separated list of types: "(uint256,string)" or "()".
[[nodiscard]] Result<std::vector<AbiType>, AbiError> parse_type_list(std::string_view text);

/// Canonical "(T1,T2,...)" of a list of types (the parameter part of a signature).
[[nodiscard]] std::string canonical_list(std::span<const AbiType> types);

}  // namespace credence::core
