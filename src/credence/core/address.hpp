// Ethereum account addresses: the 20-byte Address type, EIP-55 mixed-case checksums, and the
// CREATE / CREATE2 contract-address derivations.
//
// Parsing is strict by default: 0x prefix, exactly 40 hex digits, and a mixed-case string must
// carry a correct EIP-55 checksum. All-lowercase and all-uppercase strings carry no checksum and
// are accepted as such. Printing uses the checksummed form.
// Thread-safety: plain value type; all functions are pure.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include <credence/core/bytes.hpp>
#include <credence/core/error.hpp>

namespace credence::core {

enum class AddressError {
    missing_prefix,  // no 0x prefix
    wrong_length,    // not 40 hex digits
    bad_digit,       // a non-hex character
    bad_checksum,    // mixed case that does not match EIP-55
};

[[nodiscard]] std::string_view to_string(AddressError e) noexcept;

/// How Address::from_hex treats letter case.
enum class ChecksumMode {
    strict,  // EIP-55: mixed case must match the checksum; all-lower / all-upper accepted
    ignore,  // any case accepted, checksum not checked
};

/// A 20-byte account address.
struct Address {
    static constexpr size_t kSize = 20;
    std::array<uint8_t, kSize> bytes{};

    /// Parses "0x" + 40 hex digits.
    [[nodiscard]] static Result<Address, AddressError> from_hex(
        std::string_view hex, ChecksumMode mode = ChecksumMode::strict);
    /// Exactly 20 bytes; nullopt-like failure with wrong_length otherwise.
    [[nodiscard]] static Result<Address, AddressError> from_bytes(ByteView b);

    /// EIP-55 checksummed "0x..." form.
    [[nodiscard]] std::string to_checksum_hex() const;
    /// Lowercase "0x..." form.
    [[nodiscard]] std::string to_lower_hex() const;

    [[nodiscard]] ByteView view() const noexcept { return {bytes.data(), bytes.size()}; }
    [[nodiscard]] bool is_zero() const noexcept;

    friend bool operator==(const Address&, const Address&) = default;
    friend auto operator<=>(const Address&, const Address&) = default;
};

/// True when `hex` (with 0x) is mixed-case and matches EIP-55, or is single-case (no checksum).
[[nodiscard]] bool is_valid_checksum(std::string_view hex);

/// Address of a contract made by CREATE: keccak256(rlp([sender, nonce]))[12:]
/// (Yellow Paper §7, eq. 85).
[[nodiscard]] Address create_address(const Address& sender, uint64_t nonce);

/// Address of a contract made by CREATE2 (EIP-1014):
/// keccak256(0xff ++ sender ++ salt ++ keccak256(init_code))[12:].
[[nodiscard]] Address create2_address(const Address& sender, const Hash32& salt,
                                      ByteView init_code);
/// Same, with keccak256(init_code) already computed.
[[nodiscard]] Address create2_address_from_hash(const Address& sender, const Hash32& salt,
                                                const Hash32& init_code_hash);

}  // namespace credence::core
