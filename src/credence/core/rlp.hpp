// Recursive Length Prefix (RLP), Ethereum Yellow Paper appendix B.
//
// Encoding is always canonical. Decoding is strict: exactly one canonical encoding is accepted for
// every value, so decode(x) succeeding implies encode(decode(x)) == x. Rejected: a single byte
// below 0x80 wrapped as 0x81xx, the long form for payloads under 56 bytes, leading zeros in a
// length, lengths running past the input, and trailing bytes after the top item. Lengths are
// checked against the remaining input before anything is allocated, and nesting is limited to
// kRlpMaxDepth so hostile input cannot exhaust the stack.
//
// Scalars (nonces, values, gas) are big-endian with no leading zero bytes; zero is the empty
// string. Decoding a scalar rejects leading zeros and values too wide for the target type.
//
// Views (RlpItem, RlpReader) point into the caller's buffer and must not outlive it.
// Thread-safety: all functions are pure; types are plain values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <variant>
#include <vector>

#include <credence/core/bytes.hpp>
#include <credence/core/error.hpp>
#include <credence/core/uint256.hpp>

namespace credence::core {

enum class RlpError {
    input_too_short,         // a header or payload runs past the end of the input (or no input)
    trailing_bytes,          // bytes left after the top-level item (or after a list's items)
    non_canonical_size,      // single byte < 0x80 as 0x81xx, or long form for a length < 56
    leading_zero_in_length,  // long-form length with a leading zero byte
    length_overflow,         // long-form length does not fit in size_t
    too_deep,                // nesting past kRlpMaxDepth
    unexpected_list,         // a string was required
    unexpected_string,       // a list was required
    leading_zero_scalar,     // scalar with a leading zero byte (includes 0x00 for zero)
    scalar_overflow,         // scalar wider than the target integer
    wrong_size,              // fixed-size string (address, hash) of the wrong length
    wrong_field_count,       // a list with an unexpected number of items
};

[[nodiscard]] std::string_view to_string(RlpError e) noexcept;

/// Maximum list nesting accepted by rlp_decode (the top item is depth 0).
inline constexpr size_t kRlpMaxDepth = 64;

// ---------------------------------------------------------------------------------------------
// Encoding

/// Appends the header of a string (list=false) or list (list=true) whose payload is `length`.
void rlp_append_header(Bytes& out, bool list, size_t length);

/// Appends the encoding of byte string `data`.
void rlp_append_string(Bytes& out, ByteView data);

/// Appends a scalar: minimal big-endian bytes, zero as the empty string.
void rlp_append_uint(Bytes& out, const Uint256& value);
void rlp_append_uint(Bytes& out, uint64_t value);

/// Encoding of byte string `data`.
[[nodiscard]] Bytes rlp_encode_string(ByteView data);

/// Encoding of a scalar.
[[nodiscard]] Bytes rlp_encode_uint(const Uint256& value);

/// Wraps the concatenated encodings of the items (`payload`) into a list.
[[nodiscard]] Bytes rlp_encode_list_payload(ByteView payload);

/// Owned RLP value tree: a byte string or a list of values. Handy for tests and small structures.
struct RlpValue {
    std::variant<Bytes, std::vector<RlpValue>> value;

    RlpValue() = default;
    explicit RlpValue(Bytes b) : value(std::move(b)) {}
    explicit RlpValue(std::vector<RlpValue> items) : value(std::move(items)) {}

    [[nodiscard]] bool is_list() const noexcept { return value.index() == 1; }
    [[nodiscard]] const Bytes& bytes() const { return std::get<0>(value); }
    [[nodiscard]] const std::vector<RlpValue>& items() const { return std::get<1>(value); }

    friend bool operator==(const RlpValue&, const RlpValue&) = default;
};

/// Canonical encoding of a value tree.
[[nodiscard]] Bytes rlp_encode(const RlpValue& value);

// ---------------------------------------------------------------------------------------------
// Decoding

/// One parsed header: what the item is and where its payload sits.
struct RlpHeader {
    bool list = false;
    size_t header_size = 0;   // bytes of prefix (0 for a single byte < 0x80)
    size_t payload_size = 0;  // bytes of payload
};

/// Parses the header at the start of `in` and checks that the payload fits in `in`.
[[nodiscard]] Result<RlpHeader, RlpError> rlp_decode_header(ByteView in);

/// A decoded item whose bytes stay in the caller's buffer.
struct RlpItem {
    bool list = false;
    ByteView payload;            // string bytes, or the concatenated encodings of the items
    ByteView encoded;            // the whole item, header included
    std::vector<RlpItem> items;  // children when `list`
};

/// Decodes exactly one item spanning all of `in` (no trailing bytes), nested at most kRlpMaxDepth.
[[nodiscard]] Result<RlpItem, RlpError> rlp_decode(ByteView in);

/// Same as rlp_decode, copying into an owned tree.
[[nodiscard]] Result<RlpValue, RlpError> rlp_decode_value(ByteView in);

/// Reads a scalar with no leading zeros into a Uint256 (at most 32 bytes).
[[nodiscard]] Result<Uint256, RlpError> rlp_scalar_to_uint256(ByteView payload);
/// Reads a scalar with no leading zeros into a uint64_t (at most 8 bytes).
[[nodiscard]] Result<uint64_t, RlpError> rlp_scalar_to_u64(ByteView payload);

/// Sequential reader over the items of one list payload (or any concatenation of items).
/// Each next_* call consumes one item; nested lists are returned as new readers over their
/// payload. Call finish() to reject leftover items.
class RlpReader {
public:
    explicit RlpReader(ByteView items) noexcept : rest_(items) {}

    /// Reader over the payload of the list that must span all of `in`.
    [[nodiscard]] static Result<RlpReader, RlpError> open_list(ByteView in);

    [[nodiscard]] bool at_end() const noexcept { return rest_.empty(); }
    [[nodiscard]] ByteView rest() const noexcept { return rest_; }

    /// Next item, which must be a string; returns its payload.
    [[nodiscard]] Result<ByteView, RlpError> next_string();
    /// Next item, which must be a string of exactly `n` bytes.
    [[nodiscard]] Result<ByteView, RlpError> next_fixed(size_t n);
    /// Next item, which must be a list; returns a reader over its payload.
    [[nodiscard]] Result<RlpReader, RlpError> next_list();
    /// Next item as a canonical scalar.
    [[nodiscard]] Result<Uint256, RlpError> next_uint256();
    [[nodiscard]] Result<uint64_t, RlpError> next_u64();

    /// Fails with trailing_bytes unless every item was consumed.
    [[nodiscard]] Result<void, RlpError> finish() const;

private:
    ByteView rest_;
};

/// Decodes a list spanning all of `in` into the payloads of exactly `n` string fields.
[[nodiscard]] Result<std::vector<ByteView>, RlpError> rlp_decode_string_fields(ByteView in,
                                                                               size_t n);

}  // namespace credence::core
