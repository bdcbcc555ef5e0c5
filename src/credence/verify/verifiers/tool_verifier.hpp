// ERC-8257 §7 Consumer Verification of a registered tool: the four checks in the text's order,
// then the full manifest schema, then predicate risk flags.
//
//   check 1  fetch the manifest from the onchain metadataURI, no redirects (§7 Handling item 1);
//            the URI grammar is checked first, so a URL check 2 would refuse is never fetched;
//   check 2  origin binding (§7 pseudocode `verifyOriginBinding`, §6 URL Normalization);
//   check 3  byte rules (no BOM, NFC, lowercase hex), JCS, keccak256 == manifestHash; on a
//            mismatch getToolConfig is re-read exactly once and the hash compared against the
//            fresh commitment (§7 Handling item 5);
//   check 4  manifest.creatorAddress == onchain creator;
//   schema   every rule of verify/rules/manifest_schema.hpp: an error makes the tool unverified;
//   risks    the access predicate: no code, an ERC-1967 proxy (implementation slot non-zero), not
//            advertising IAccessPredicate via ERC-165 (§Security Considerations). These are
//            flags for the user and never change the verdict: the text asks consumers to surface
//            them ("SHOULD treat upgradeable predicates as higher risk", "SHOULD surface ... as a
//            warning", a zero-code predicate as "not yet available"), not to reject.
// The verdict is `canonical` only when all four checks pass and the schema has no error;
// otherwise `unverified` with one ToolReason (the first failure in that order) and a detail line.
//
// verify_manifest_bytes() is the pure part (checks 2-4 and the schema over bytes already fetched;
// what the benchmark measures); verify_tool() adds the chain reads and the fetch.
// Thread-safety: the functions are reentrant; verify_tool uses the RpcClient (not thread-safe)
// and the Fetcher it is given. Nothing throws.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <credence/chain/bindings/tool_registry.hpp>
#include <credence/chain/rpc_client.hpp>
#include <credence/core/address.hpp>
#include <credence/core/bytes.hpp>
#include <credence/core/uint256.hpp>
#include <credence/verify/net/fetch.hpp>
#include <credence/verify/rules/manifest_schema.hpp>

namespace credence::verify {

using ToolConfig = chain::bindings::tool_registry::ToolConfig;

enum class ToolVerdict { canonical, unverified };
[[nodiscard]] std::string_view to_string(ToolVerdict v) noexcept;

/// Why a tool is unverified: one value per failure §7 Handling Verification Failure lists, plus
/// the reads a consumer needs before the checks can start.
enum class ToolReason {
    none,  ///< canonical
    // Reading the onchain ToolConfig.
    rpc_error,       ///< getToolConfig could not be read (node unreachable, bad answer)
    tool_not_found,  ///< getToolConfig reverted (unknown or deregistered tool)
    // Check 1: the fetch (§7 Handling: network error, 4xx/5xx, 3xx, TLS, truncated, timeout).
    network_error,    ///< DNS, connect, transport failure
    blocked_address,  ///< the host resolves to an address the SSRF guard refuses
    tls_error,
    timeout,
    http_status,  ///< a 4xx / 5xx answer
    redirect,     ///< a 3xx answer: never followed (§7 Handling item 1)
    truncated,
    too_large,  ///< over 1 MiB (§Manifest Parser Hardening)
    // Check 2: URL normalization and origin binding (§6, §7 check 2).
    not_https,          ///< metadataURI not https after normalization
    bad_uri,            ///< metadataURI malformed (userinfo, bad port, bad host, characters)
    non_ace_host,       ///< a raw IDN host (§6 G3)
    query_or_fragment,  ///< '?' or '#' in metadataURI (§6 W2)
    not_well_known,     ///< path not /.well-known/ai-tool/<slug>.json (§6 W1)
    slug_grammar,       ///< slug grammar or length (§6)
    uri_too_long,       ///< metadataURI over 2,048 bytes (§Metadata URI Length Cap)
    bad_endpoint,       ///< manifest endpoint missing, not https, or malformed (§2, §7 check 2)
    origin_mismatch,    ///< metadataURI origin != endpoint origin
    // Check 3: the bytes (§Canonical Manifest Bytes) and the hash.
    bom,
    invalid_json,  ///< not strict JSON (I-JSON)
    not_nfc,
    uppercase_hex,
    hash_mismatch,  ///< also after the one re-read of getToolConfig
    // Check 4.
    creator_mismatch,
    // After the four checks.
    schema_violation,  ///< a manifest_schema error
};
[[nodiscard]] std::string_view to_string(ToolReason r) noexcept;
/// The reason in words, for humans ("the server answered with a redirect").
[[nodiscard]] std::string_view describe(ToolReason r) noexcept;

enum class CheckStatus { not_run, passed, failed };
[[nodiscard]] std::string_view to_string(CheckStatus s) noexcept;

/// §Security Considerations: what the predicate's onchain state says about its risk.
enum class PredicateRisk {
    no_code,              ///< Zero-Code Access Predicates: "not yet available", not open access
    erc1967_proxy,        ///< Predicate Upgradeability: `predicateIsProxy`
    no_iaccesspredicate,  ///< Predicate Validation at Registration: does not advertise 0xbdf9dc18
    probe_failed,         ///< a read failed; the risk is unknown
};
[[nodiscard]] std::string_view to_string(PredicateRisk r) noexcept;

/// ERC-1967 implementation slot: bytes32(uint256(keccak256("eip1967.proxy.implementation")) - 1).
inline constexpr std::string_view kErc1967ImplementationSlot =
    "0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc";

struct PredicateReport {
    core::Address predicate;
    bool open_access = false;  ///< address(0)
    std::vector<PredicateRisk> risks;
    std::optional<core::Address> implementation;  ///< when erc1967_proxy
    std::string detail;                           ///< for probe_failed
};

struct ToolVerification {
    std::optional<core::Uint256> tool_id;
    std::optional<ToolConfig> config;  ///< the ToolConfig the checks ran against
    ToolVerdict verdict = ToolVerdict::unverified;
    ToolReason reason = ToolReason::none;
    std::string detail;  ///< one line: what failed, where
    std::array<CheckStatus, 4> checks{};
    bool config_reread = false;                 ///< §7 Handling item 5 happened
    std::optional<core::Hash32> manifest_hash;  ///< keccak256(JCS(manifest)) when computed
    std::optional<std::string> slug;
    std::vector<ManifestIssue> issues;  ///< the schema's, errors and warnings
    std::optional<TrustTier> declared_tier;
    std::optional<TrustTier> effective_tier;
    std::optional<PredicateReport> predicate;
    /// The manifest's searchable fields (rules/manifest_summary.hpp) when it parsed,
    /// for the API's tool profiles; in to_json() as "manifestSummary".
    std::optional<nlohmann::json> manifest_summary;

    [[nodiscard]] bool canonical() const noexcept { return verdict == ToolVerdict::canonical; }
    [[nodiscard]] nlohmann::json to_json() const;
};

/// Re-reads getToolConfig after a hash mismatch (§7 Handling item 5); nullopt if the read failed.
using ConfigReread = std::function<std::optional<ToolConfig>()>;

/// Checks 2-4 and the schema over fetched bytes, without network. `reread`, when given, is called
/// at most once, on a hash mismatch.
[[nodiscard]] ToolVerification verify_manifest_bytes(core::ByteView bytes, const ToolConfig& config,
                                                     const ConfigReread& reread = {});

struct ToolVerifyOptions {
    FetchPolicy policy = manifest_policy();
    bool check_predicate = true;
};

/// The whole §7 procedure for `tool_id` on `registry`: getToolConfig, the URI grammar, the fetch
/// (no redirects), checks 2-4, the schema, and the predicate risk flags.
[[nodiscard]] ToolVerification verify_tool(chain::RpcClient& rpc, const core::Address& registry,
                                           const core::Uint256& tool_id, Fetcher& fetcher,
                                           const ToolVerifyOptions& options = {});

/// The predicate risk flags alone (eth_getCode, eth_getStorageAt, ERC-165 eth_call).
[[nodiscard]] PredicateReport assess_predicate(chain::RpcClient& rpc,
                                               const core::Address& predicate);

/// ERC-8257 §9: IAccessPredicate's interface id, the XOR of its function selectors.
[[nodiscard]] std::array<uint8_t, 4> access_predicate_interface_id() noexcept;

}  // namespace credence::verify
