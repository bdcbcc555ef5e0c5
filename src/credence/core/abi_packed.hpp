// abi.encodePacked: Solidity's non-standard packed mode
// (https://docs.soliditylang.org/en/latest/abi-spec.html#non-standard-packed-mode).
//
// - value types take their own width: uintN/intN in N/8 bytes (intN two's complement, i.e.
//   sign-extended to N/8 bytes), address 20 bytes, bool 1 byte, bytesN N bytes unpadded;
// - bytes and string are their raw contents, without length;
// - array elements are padded to 32 bytes as in the standard encoding, with no length prefix,
//   nested arrays flattened.
// Solidity rejects structs and arrays of dynamic types (string[], bytes[]) in packed mode; so do
// we (AbiError::unsupported).
#pragma once

#include <span>

#include <credence/core/abi.hpp>

namespace credence::core {

[[nodiscard]] Result<Bytes, AbiError> encode_packed(std::span<const AbiType> types,
                                                    std::span<const AbiValue> values);

/// keccak256(abi.encodePacked(...)), Solidity's usual hashing idiom.
[[nodiscard]] Result<Hash32, AbiError> keccak256_packed(std::span<const AbiType> types,
                                                        std::span<const AbiValue> values);

}  // namespace credence::core
