#include <credence/core/caip.hpp>

#include <credence/core/bytes.hpp>
#include <credence/core/detail/hex_address.hpp>

namespace credence::core {

std::string_view to_string(CaipError e) noexcept {
    switch (e) {
        case CaipError::malformed:
            return "malformed identifier";
        case CaipError::bad_namespace:
            return "bad chain namespace";
        case CaipError::bad_reference:
            return "bad chain reference";
        case CaipError::bad_account_address:
            return "bad account address";
        case CaipError::bad_asset_namespace:
            return "bad asset namespace";
        case CaipError::bad_asset_reference:
            return "bad asset reference";
        case CaipError::bad_token_id:
            return "bad token id";
        case CaipError::wrong_namespace:
            return "wrong namespace";
        case CaipError::bad_chain_id:
            return "bad chain id";
        case CaipError::bad_address:
            return "bad address";
        case CaipError::not_lowercase:
            return "hex must be lowercase";
        case CaipError::bad_tool_id:
            return "bad tool id";
    }
    return "unknown error";
}

namespace {

bool is_lower_alnum(char c) noexcept { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool is_alnum(char c) noexcept { return is_lower_alnum(c) || (c >= 'A' && c <= 'Z'); }

// [-a-z0-9]{3,8}: CAIP-2 namespace and CAIP-19 asset_namespace.
bool valid_namespace(std::string_view s) noexcept {
    if (s.size() < 3 || s.size() > 8) return false;
    for (char c : s)
        if (!is_lower_alnum(c) && c != '-') return false;
    return true;
}

// [-_a-zA-Z0-9]{1,32}: CAIP-2 reference.
bool valid_reference(std::string_view s) noexcept {
    if (s.empty() || s.size() > 32) return false;
    for (char c : s)
        if (!is_alnum(c) && c != '-' && c != '_') return false;
    return true;
}

// [-.%a-zA-Z0-9]{1,max}: CAIP-10 account_address (128), CAIP-19 asset_reference (128) and
// token_id (78).
bool valid_address_like(std::string_view s, size_t max) noexcept {
    if (s.empty() || s.size() > max) return false;
    for (char c : s)
        if (!is_alnum(c) && c != '-' && c != '.' && c != '%') return false;
    return true;
}

// Canonical decimal: "0" or [1-9][0-9]*.
bool canonical_decimal(std::string_view s) noexcept {
    if (s.empty() || (s.size() > 1 && s[0] == '0')) return false;
    for (char c : s)
        if (c < '0' || c > '9') return false;
    return true;
}

Result<uint64_t, CaipError> parse_eip155_reference(std::string_view s) {
    // eip155 namespace (CAIP-3): the reference is the EIP-155 chain ID in decimal. The canonical
    // form (no leading zeros) keeps one chain from having several names. "0" stays valid: the
    // eip155 CAIP-10 profile uses it for chain-independent EOAs.
    if (!canonical_decimal(s)) return fail(CaipError::bad_chain_id, std::string(s));
    uint64_t v = 0;
    for (char c : s) {
        const auto digit = static_cast<uint64_t>(c - '0');
        if (v > (UINT64_MAX - digit) / 10)
            return fail(CaipError::bad_chain_id, "chain id exceeds 64 bits");
        v = v * 10 + digit;
    }
    return v;
}

Result<EvmAddress, CaipError> parse_evm_address(std::string_view s, detail::HexAddressCase rule) {
    const auto parsed = detail::parse_hex_address(s, rule);
    switch (parsed.status) {
        case detail::HexAddressStatus::ok:
            return parsed.bytes;
        case detail::HexAddressStatus::not_lowercase:
            return fail(CaipError::not_lowercase, std::string(s));
        case detail::HexAddressStatus::bad_checksum:
            return fail(CaipError::bad_address, "bad EIP-55 checksum: " + std::string(s));
        case detail::HexAddressStatus::bad_syntax:
            break;
    }
    return fail(CaipError::bad_address, "expected 0x and 40 hex digits: " + std::string(s));
}

}  // namespace

Result<ChainId, CaipError> parse_chain_id(std::string_view text) {
    // CAIP-2: chain_id = namespace ":" reference
    const size_t colon = text.find(':');
    if (colon == std::string_view::npos) return fail(CaipError::malformed, "missing ':'");
    const auto ns = text.substr(0, colon);
    const auto ref = text.substr(colon + 1);
    if (!valid_namespace(ns)) return fail(CaipError::bad_namespace, std::string(ns));
    if (!valid_reference(ref)) return fail(CaipError::bad_reference, std::string(ref));
    return ChainId{std::string(ns), std::string(ref)};
}

Result<AccountId, CaipError> parse_account_id(std::string_view text) {
    // CAIP-10: account_id = chain_id ":" account_address; neither part contains ':'.
    const size_t first = text.find(':');
    if (first == std::string_view::npos) return fail(CaipError::malformed, "missing ':'");
    const size_t second = text.find(':', first + 1);
    if (second == std::string_view::npos)
        return fail(CaipError::malformed, "missing account address");
    auto chain = parse_chain_id(text.substr(0, second));
    if (!chain) return std::unexpected(chain.error());
    const auto address = text.substr(second + 1);
    if (!valid_address_like(address, 128))
        return fail(CaipError::bad_account_address, std::string(address));
    return AccountId{std::move(*chain), std::string(address)};
}

Result<AssetId, CaipError> parse_asset_id(std::string_view text) {
    // CAIP-19: asset_type = chain_id "/" asset_namespace ":" asset_reference
    //          asset_id   = asset_type "/" token_id
    const size_t slash = text.find('/');
    if (slash == std::string_view::npos) return fail(CaipError::malformed, "missing '/'");
    auto chain = parse_chain_id(text.substr(0, slash));
    if (!chain) return std::unexpected(chain.error());
    std::string_view rest = text.substr(slash + 1);
    std::optional<std::string> token_id;
    if (const size_t slash2 = rest.find('/'); slash2 != std::string_view::npos) {
        const auto token = rest.substr(slash2 + 1);
        if (!valid_address_like(token, 78))
            return fail(CaipError::bad_token_id, std::string(token));
        token_id = std::string(token);
        rest = rest.substr(0, slash2);
    }
    const size_t colon = rest.find(':');
    if (colon == std::string_view::npos)
        return fail(CaipError::malformed, "missing asset namespace");
    const auto ns = rest.substr(0, colon);
    const auto ref = rest.substr(colon + 1);
    if (!valid_namespace(ns)) return fail(CaipError::bad_asset_namespace, std::string(ns));
    if (!valid_address_like(ref, 128))
        return fail(CaipError::bad_asset_reference, std::string(ref));
    return AssetId{std::move(*chain), std::string(ns), std::string(ref), std::move(token_id)};
}

std::string to_string(const ChainId& id) { return id.chain_namespace + ":" + id.reference; }

std::string to_string(const AccountId& id) { return to_string(id.chain) + ":" + id.address; }

std::string to_string(const AssetId& id) {
    std::string out = to_string(id.chain) + "/" + id.asset_namespace + ":" + id.asset_reference;
    if (id.token_id) out += "/" + *id.token_id;
    return out;
}

Result<uint64_t, CaipError> eip155_chain_id(const ChainId& chain) {
    if (chain.chain_namespace != "eip155")
        return fail(CaipError::wrong_namespace, chain.chain_namespace);
    return parse_eip155_reference(chain.reference);
}

Result<EvmAddress, CaipError> eip155_address(const AccountId& account) {
    auto chain = eip155_chain_id(account.chain);
    if (!chain) return std::unexpected(chain.error());
    return parse_evm_address(account.address, detail::HexAddressCase::checksum_or_lowercase);
}

ChainId make_eip155_chain_id(uint64_t chain_id) {
    return ChainId{"eip155", std::to_string(chain_id)};
}

AccountId make_eip155_account_id(uint64_t chain_id, const EvmAddress& address) {
    return AccountId{make_eip155_chain_id(chain_id), to_hex(address)};
}

Result<AgentRegistry, CaipError> parse_agent_registry(std::string_view text) {
    // ERC-8004 §Identity Registry: agentRegistry = {namespace}:{chainId}:{identityRegistry}, a
    // CAIP-10 account ID whose account is the registry contract.
    auto account = parse_account_id(text);
    if (!account) return std::unexpected(account.error());
    auto chain_id = eip155_chain_id(account->chain);
    if (!chain_id) return std::unexpected(chain_id.error());
    // A registry contract is deployed on one real chain; the EOA-only chain "0" cannot hold it.
    if (*chain_id == 0) return fail(CaipError::bad_chain_id, "chain id 0 names no chain");
    auto address =
        parse_evm_address(account->address, detail::HexAddressCase::checksum_or_lowercase);
    if (!address) return std::unexpected(address.error());
    return AgentRegistry{*chain_id, *address};
}

std::string to_string(const AgentRegistry& registry) {
    return "eip155:" + std::to_string(registry.chain_id) + ":" +
           detail::checksum_hex_address(registry.identity_registry);
}

Result<ToolReference, CaipError> parse_tool_reference(std::string_view text) {
    // ERC-8257 §1 Tool Registry: eip155:<chainId>/erc8257:<registryAddress>/<toolId>, a CAIP-19
    // asset ID with the registry address in lowercase hex and the tool ID in decimal.
    auto asset = parse_asset_id(text);
    if (!asset) return std::unexpected(asset.error());
    auto chain_id = eip155_chain_id(asset->chain);
    if (!chain_id) return std::unexpected(chain_id.error());
    if (*chain_id == 0) return fail(CaipError::bad_chain_id, "chain id 0 names no chain");
    if (asset->asset_namespace != "erc8257")
        return fail(CaipError::wrong_namespace, asset->asset_namespace);
    auto registry = parse_evm_address(asset->asset_reference, detail::HexAddressCase::lowercase);
    if (!registry) return std::unexpected(registry.error());
    const std::optional<std::string>& token = asset->token_id;
    if (!token.has_value()) return fail(CaipError::malformed, "missing tool id");
    const std::string& tool = *token;
    if (!canonical_decimal(tool)) return fail(CaipError::bad_tool_id, tool);
    auto tool_id = Uint256::from_dec(tool);  // overflow past 2^256 - 1 is an error too
    if (!tool_id) return fail(CaipError::bad_tool_id, "tool id exceeds uint256: " + tool);
    return ToolReference{*chain_id, *registry, *tool_id};
}

std::string to_string(const ToolReference& ref) {
    return "eip155:" + std::to_string(ref.chain_id) + "/erc8257:" + to_hex(ref.registry) + "/" +
           ref.tool_id.to_dec();
}

}  // namespace credence::core
