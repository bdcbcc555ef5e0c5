// Chain-agnostic identifiers: CAIP-2 chain IDs, CAIP-10 account IDs, CAIP-19 asset types and IDs,
// plus the two ERC-specific forms built on them: the ERC-8004 `agentRegistry` string and the
// ERC-8257 canonical tool reference.
//
// Parsing follows the CAIP grammars exactly (case-sensitive, no whitespace, no percent-decoding:
// a '%' is just an allowed character). The generic parsers accept any namespace; the eip155_*
// helpers add the EVM rules (chain ID as canonical decimal, address as 0x + 40 hex digits). A
// parsed value always formats back to the string it came from. Thread-safe; no I/O.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <credence/core/error.hpp>
#include <credence/core/uint256.hpp>

namespace credence::core {

enum class CaipError {
    malformed,            ///< separators missing, extra or misplaced
    bad_namespace,        ///< CAIP-2 namespace: [-a-z0-9]{3,8}
    bad_reference,        ///< CAIP-2 reference: [-_a-zA-Z0-9]{1,32}
    bad_account_address,  ///< CAIP-10 account_address: [-.%a-zA-Z0-9]{1,128}
    bad_asset_namespace,  ///< CAIP-19 asset_namespace: [-a-z0-9]{3,8}
    bad_asset_reference,  ///< CAIP-19 asset_reference: [-.%a-zA-Z0-9]{1,128}
    bad_token_id,         ///< CAIP-19 token_id: [-.%a-zA-Z0-9]{1,78}
    wrong_namespace,      ///< not the namespace the form requires (eip155, erc8257)
    bad_chain_id,         ///< eip155 reference not a canonical decimal in 0..2^64-1 (0: see below)
    bad_address,          ///< eip155 address not 0x + 40 hex digits, or not checksum/lowercase
    not_lowercase,        ///< ERC-8257 canonical forms need lowercase hex
    bad_tool_id,          ///< ERC-8257 toolId not a canonical decimal uint256
};

[[nodiscard]] std::string_view to_string(CaipError e) noexcept;

using EvmAddress = std::array<uint8_t, 20>;

/// CAIP-2 blockchain ID: namespace ":" reference, e.g. "eip155:1".
struct ChainId {
    std::string chain_namespace;
    std::string reference;
    friend bool operator==(const ChainId&, const ChainId&) = default;
};

/// CAIP-10 account ID: chain_id ":" account_address.
struct AccountId {
    ChainId chain;
    std::string address;
    friend bool operator==(const AccountId&, const AccountId&) = default;
};

/// CAIP-19 asset type (chain_id "/" asset_namespace ":" asset_reference) or asset ID (the same
/// plus "/" token_id).
struct AssetId {
    ChainId chain;
    std::string asset_namespace;
    std::string asset_reference;
    std::optional<std::string> token_id;
    friend bool operator==(const AssetId&, const AssetId&) = default;
};

[[nodiscard]] Result<ChainId, CaipError> parse_chain_id(std::string_view text);
[[nodiscard]] Result<AccountId, CaipError> parse_account_id(std::string_view text);
/// Accepts both the asset type and the asset ID form.
[[nodiscard]] Result<AssetId, CaipError> parse_asset_id(std::string_view text);

[[nodiscard]] std::string to_string(const ChainId& id);
[[nodiscard]] std::string to_string(const AccountId& id);
[[nodiscard]] std::string to_string(const AssetId& id);

// ---- eip155 namespace (CAIP-3 and the eip155 CAIP-10 profile) --------------------------------

/// The EIP-155 chain ID of an "eip155:<decimal>" chain. "0" is accepted: the eip155 CAIP-10
/// profile uses it for accounts not bound to one chain.
[[nodiscard]] Result<uint64_t, CaipError> eip155_chain_id(const ChainId& chain);
/// The 20-byte address of an eip155 account ID: legacy lowercase or EIP-55 checksum case (the
/// eip155 CAIP-10 profile's test cases reject an all-uppercase address).
[[nodiscard]] Result<EvmAddress, CaipError> eip155_address(const AccountId& account);
[[nodiscard]] ChainId make_eip155_chain_id(uint64_t chain_id);
/// Lowercase hex, the form ERC-8257 manifests require (ERC-8257 §3 Pricing, CAIP encoding).
[[nodiscard]] AccountId make_eip155_account_id(uint64_t chain_id, const EvmAddress& address);

// ---- ERC-8004 agentRegistry: "{namespace}:{chainId}:{identityRegistry}" -----------------------

/// ERC-8004 §Identity Registry: the registry half of an agent's global identity.
struct AgentRegistry {
    uint64_t chain_id = 0;
    EvmAddress identity_registry{};
    friend bool operator==(const AgentRegistry&, const AgentRegistry&) = default;
};

/// Parses "eip155:<chainId>:<0x address>" (address lowercase or EIP-55; chain ID not 0). Only
/// eip155 is accepted: the identity registry is an ERC-721 contract, so it lives on an EVM chain.
[[nodiscard]] Result<AgentRegistry, CaipError> parse_agent_registry(std::string_view text);
/// "eip155:<chainId>:<EIP-55 checksummed address>".
[[nodiscard]] std::string to_string(const AgentRegistry& registry);

// ---- ERC-8257 tool reference: "eip155:<chainId>/erc8257:<registry>/<toolId>" ------------------

/// ERC-8257 §1 Tool Registry: a tool ID qualified by the registry deployment that assigned it.
struct ToolReference {
    uint64_t chain_id = 0;
    EvmAddress registry{};
    Uint256 tool_id;
    friend bool operator==(const ToolReference&, const ToolReference&) = default;
};

/// Parses the canonical form only: decimal chain ID (not 0) and tool ID without leading zeros,
/// and the registry address in lowercase hex.
[[nodiscard]] Result<ToolReference, CaipError> parse_tool_reference(std::string_view text);
[[nodiscard]] std::string to_string(const ToolReference& ref);

}  // namespace credence::core
