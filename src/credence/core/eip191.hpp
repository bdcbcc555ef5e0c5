// EIP-191 signed data: the 0x19 prefix that keeps signed messages from ever being valid RLP
// transactions.
//
// - version 0x45 ('E'): personal_sign, "\x19Ethereum Signed Message:\n" + decimal byte length +
//   message, hashed with keccak256.
// - version 0x01: EIP-712 typed data, keccak256(0x19 0x01 ++ domainSeparator ++ hashStruct).
// - version 0x00: data with an intended validator, keccak256(0x19 0x00 ++ validator ++ data).
// All functions are pure and thread-safe.
#pragma once

#include <credence/core/address.hpp>
#include <credence/core/bytes.hpp>

namespace credence::core {

/// EIP-191 version 0x45 (personal_sign / eth_sign) digest of `message`.
[[nodiscard]] Hash32 eip191_personal_message_hash(ByteView message);

/// EIP-191 version 0x01, the EIP-712 digest: keccak256(0x1901 ++ domain_separator ++ struct_hash).
[[nodiscard]] Hash32 eip191_typed_data_hash(const Hash32& domain_separator,
                                            const Hash32& struct_hash) noexcept;

/// EIP-191 version 0x00: keccak256(0x1900 ++ validator ++ data).
[[nodiscard]] Hash32 eip191_validator_hash(const Address& validator, ByteView data) noexcept;

}  // namespace credence::core
