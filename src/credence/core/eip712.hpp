// EIP-712 typed structured data hashing, as eth_signTypedData_v4 computes it.
// https://eips.ethereum.org/EIPS/eip-712
//
// Input is the wallet JSON document {types, primaryType, domain, message}. The output is the
// 32-byte digest keccak256(0x19 0x01 ‖ domainSeparator ‖ hashStruct(message)) that a signer signs;
// intermediate steps (encodeType, typeHash, encodeData, hashStruct, domainSeparator) are exposed
// too. Where MetaMask and ethers differ, this follows the stricter one (ethers v6): every field
// must be present, bytes and bytesN values are 0x-hex (bytesN of exactly N bytes), addresses are 0x
// + 40 hex digits with a valid EIP-55 checksum when mixed-case, integers are range-checked. Like
// MetaMask, a `types.EIP712Domain` given in the document is used as is; without one the domain
// type is made of the domain fields present, in the EIP's order (ethers). Recursive struct types
// are allowed (EIP-712 §Definition of encodeType); value nesting is capped at kMaxEip712Depth.
//
// Nothing here throws: nlohmann exceptions are caught inside. All functions are thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <credence/core/bytes.hpp>
#include <credence/core/error.hpp>
#include <credence/core/uint256.hpp>

namespace credence::core {

enum class Eip712Error {
    malformed_document,   ///< not JSON, wrong member kinds, duplicate keys, unknown domain key
    bad_type_definition,  ///< bad struct or field name, duplicate field, struct named like an
                          ///< atomic
    unknown_type,         ///< a referenced type is neither atomic nor a declared struct
    missing_field,        ///< a struct value lacks a declared field (or it is null)
    bad_value,            ///< wrong JSON kind for the type, or an unparsable number
    out_of_range,         ///< integer does not fit uintN/intN
    bad_hex,              ///< bytes/bytesN value is not 0x-prefixed even-length hex
    length_mismatch,      ///< bytesN of the wrong size, fixed array of the wrong length
    bad_address,          ///< not 0x + 40 hex digits, or a wrong EIP-55 checksum
    recursion_limit,      ///< value nesting deeper than kMaxEip712Depth
};

[[nodiscard]] std::string_view to_string(Eip712Error e) noexcept;

/// Deepest nesting of structs and arrays in one value (the document's own nesting).
inline constexpr size_t kMaxEip712Depth = 64;

using Eip712Address = std::array<uint8_t, 20>;

struct Eip712Field {
    std::string name;
    std::string type;  ///< as written: "uint256", "Person[]", "bytes32[2][]"
};

/// The `types` member: struct name -> fields in declaration order.
using Eip712Types = std::map<std::string, std::vector<Eip712Field>, std::less<>>;

/// A typed-data document, validated for shape (not yet for values).
struct TypedData {
    Eip712Types types;  ///< always holds "EIP712Domain" (declared, or made from the domain)
    std::string primary_type;
    nlohmann::json domain;
    nlohmann::json message;
};

/// Validates and converts a `types` object: {"Name": [{"name": "...", "type": "..."}, ...]}.
[[nodiscard]] Result<Eip712Types, Eip712Error> parse_eip712_types(const nlohmann::json& types);

/// Reads a document from JSON text (duplicate object keys are rejected).
[[nodiscard]] Result<TypedData, Eip712Error> parse_typed_data(std::string_view json_text);
/// Reads a document already parsed by the caller.
[[nodiscard]] Result<TypedData, Eip712Error> typed_data_from_json(const nlohmann::json& document);

/// encodeType: "Primary(fields)" followed by every referenced struct type, sorted by name.
[[nodiscard]] Result<std::string, Eip712Error> encode_type(const Eip712Types& types,
                                                           std::string_view type_name);
/// typeHash = keccak256(encodeType).
[[nodiscard]] Result<Hash32, Eip712Error> type_hash(const Eip712Types& types,
                                                    std::string_view type_name);
/// encodeData with the typeHash in front: typeHash ‖ enc(field_1) ‖ ... ‖ enc(field_n).
[[nodiscard]] Result<Bytes, Eip712Error> encode_data(const Eip712Types& types,
                                                     std::string_view type_name,
                                                     const nlohmann::json& value);
/// hashStruct = keccak256(typeHash ‖ encodeData(value)).
[[nodiscard]] Result<Hash32, Eip712Error> hash_struct(const Eip712Types& types,
                                                      std::string_view type_name,
                                                      const nlohmann::json& value);

/// hashStruct(EIP712Domain, domain).
[[nodiscard]] Result<Hash32, Eip712Error> domain_separator(const TypedData& typed_data);
/// The digest to sign. A primaryType of "EIP712Domain" signs the domain alone (as v4 does).
[[nodiscard]] Result<Hash32, Eip712Error> typed_data_digest(const TypedData& typed_data);
/// parse_typed_data + typed_data_digest.
[[nodiscard]] Result<Hash32, Eip712Error> typed_data_digest(std::string_view json_text);

/// keccak256(0x19 ‖ 0x01 ‖ domain_separator ‖ struct_hash).
[[nodiscard]] Hash32 eip712_digest(const Hash32& domain_separator,
                                   const Hash32& struct_hash) noexcept;

/// The standard domain fields; absent ones are left out of the type, in this order.
struct Eip712Domain {
    std::optional<std::string> name;
    std::optional<std::string> version;
    std::optional<Uint256> chain_id;
    std::optional<Eip712Address> verifying_contract;
    std::optional<Hash32> salt;
};

/// Domain separator of a domain built in C++ (no JSON involved).
[[nodiscard]] Hash32 domain_separator(const Eip712Domain& domain);

// ---- ERC-8004 IdentityRegistry: setAgentWallet authorisation --------------------------------

inline constexpr std::string_view kErc8004DomainName = "ERC8004IdentityRegistry";
inline constexpr std::string_view kErc8004DomainVersion = "1";
inline constexpr std::string_view kAgentWalletSetType =
    "AgentWalletSet(uint256 agentId,address newWallet,address owner,uint256 deadline)";

/// Domain separator of {name "ERC8004IdentityRegistry", version "1", chainId, verifyingContract}.
[[nodiscard]] Hash32 erc8004_domain_separator(const Uint256& chain_id,
                                              const Eip712Address& verifying_contract) noexcept;

/// hashStruct(AgentWalletSet{agentId, newWallet, owner, deadline}).
[[nodiscard]] Hash32 agent_wallet_set_struct_hash(const Uint256& agent_id,
                                                  const Eip712Address& new_wallet,
                                                  const Eip712Address& owner,
                                                  const Uint256& deadline) noexcept;

/// The digest the new wallet signs for IdentityRegistry.setAgentWallet (ERC-8004 §Identity
/// Registry: agentWallet is set with an EIP-712 signature from the new wallet).
[[nodiscard]] Hash32 agent_wallet_set_digest(
    const Uint256& chain_id, const Eip712Address& verifying_contract, const Uint256& agent_id,
    const Eip712Address& new_wallet, const Eip712Address& owner, const Uint256& deadline) noexcept;

}  // namespace credence::core
