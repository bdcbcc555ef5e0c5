#include <credence/verify/verifiers/tool_verifier.hpp>

#include <span>
#include <utility>

#include <fmt/core.h>

#include <credence/chain/bindings/i_access_predicate.hpp>
#include <credence/chain/contract_call.hpp>
#include <credence/core/jcs.hpp>
#include <credence/core/json.hpp>
#include <credence/core/keccak.hpp>
#include <credence/core/manifest_checks.hpp>
#include <credence/verify/rules/manifest_summary.hpp>
#include <credence/verify/rules/tool_uri.hpp>

namespace credence::verify {
namespace {

namespace tr = chain::bindings::tool_registry;
namespace ap = chain::bindings::i_access_predicate;

constexpr size_t kFetch = 0, kOrigin = 1, kBytes = 2, kCreator = 3;
/// ERC-165 §How Interfaces are Identified: supportsInterface must use less than 30,000 gas; the
/// registry probes with the same bound (§Predicate Validation at Registration, step 3).
constexpr uint64_t kErc165ProbeGas = 30'000;
constexpr std::array<uint8_t, 4> kErc165InterfaceId = {0x01, 0xff, 0xc9, 0xa7};

void fail_check(ToolVerification& v, size_t check, ToolReason reason, std::string detail) {
    v.checks[check] = CheckStatus::failed;
    v.verdict = ToolVerdict::unverified;
    v.reason = reason;
    v.detail = std::move(detail);
}

ToolReason reason_of(UriError e) noexcept {
    switch (e) {
        case UriError::not_https:
            return ToolReason::not_https;
        case UriError::non_ace_host:
            return ToolReason::non_ace_host;
        case UriError::query_or_fragment:
            return ToolReason::query_or_fragment;
        case UriError::not_well_known:
            return ToolReason::not_well_known;
        case UriError::slug_grammar:
            return ToolReason::slug_grammar;
        case UriError::too_long:
            return ToolReason::uri_too_long;
        case UriError::origin_mismatch:
            return ToolReason::origin_mismatch;
        case UriError::malformed:
        case UriError::userinfo:
        case UriError::bad_port:
        case UriError::bad_host:
            return ToolReason::bad_uri;
    }
    return ToolReason::bad_uri;
}

ToolReason reason_of(FetchError e) noexcept {
    switch (e) {
        case FetchError::scheme_not_allowed:
            return ToolReason::not_https;
        case FetchError::bad_url:
            return ToolReason::bad_uri;
        case FetchError::blocked_address:
            return ToolReason::blocked_address;
        case FetchError::tls_failure:
            return ToolReason::tls_error;
        case FetchError::timeout:
            return ToolReason::timeout;
        case FetchError::too_large:
            return ToolReason::too_large;
        case FetchError::redirect_refused:
        case FetchError::too_many_redirects:
            return ToolReason::redirect;
        case FetchError::http_status:
            return ToolReason::http_status;
        case FetchError::truncated:
            return ToolReason::truncated;
        case FetchError::dns_failure:
        case FetchError::connect_failed:
        case FetchError::content_mismatch:
        case FetchError::bad_cid:
        case FetchError::no_gateway:
        case FetchError::bad_data_uri:
        case FetchError::transport:
            return ToolReason::network_error;
    }
    return ToolReason::network_error;
}

ToolReason reason_of(core::ManifestBytesError e) noexcept {
    switch (e) {
        case core::ManifestBytesError::too_large:
            return ToolReason::too_large;
        case core::ManifestBytesError::bom:
            return ToolReason::bom;
        case core::ManifestBytesError::invalid_json:
            return ToolReason::invalid_json;
        case core::ManifestBytesError::not_nfc:
            return ToolReason::not_nfc;
        case core::ManifestBytesError::uppercase_hex:
            return ToolReason::uppercase_hex;
        case core::ManifestBytesError::hash_mismatch:
            return ToolReason::hash_mismatch;
    }
    return ToolReason::invalid_json;
}

/// getToolConfig over eth_call. A revert (unknown or deregistered tool) is tool_not_found.
core::Result<ToolConfig, ToolReason> read_config(chain::RpcClient& rpc,
                                                 const core::Address& registry,
                                                 const core::Uint256& tool_id) {
    chain::ContractCaller caller(rpc);
    auto config = tr::call::get_tool_config(caller, registry, tool_id);
    if (!config) {
        const bool reverted = config.error().kind == chain::CallErrorKind::reverted;
        return core::fail(reverted ? ToolReason::tool_not_found : ToolReason::rpc_error,
                          config.error().message());
    }
    return *config;
}

std::string hex(const core::Address& a) { return a.to_lower_hex(); }

}  // namespace

std::string_view to_string(ToolVerdict v) noexcept {
    return v == ToolVerdict::canonical ? "canonical" : "unverified";
}

std::string_view to_string(ToolReason r) noexcept {
    switch (r) {
        case ToolReason::none:
            return "none";
        case ToolReason::rpc_error:
            return "rpc_error";
        case ToolReason::tool_not_found:
            return "tool_not_found";
        case ToolReason::network_error:
            return "network_error";
        case ToolReason::blocked_address:
            return "blocked_address";
        case ToolReason::tls_error:
            return "tls_error";
        case ToolReason::timeout:
            return "timeout";
        case ToolReason::http_status:
            return "http_status";
        case ToolReason::redirect:
            return "redirect";
        case ToolReason::truncated:
            return "truncated";
        case ToolReason::too_large:
            return "too_large";
        case ToolReason::not_https:
            return "not_https";
        case ToolReason::bad_uri:
            return "bad_uri";
        case ToolReason::non_ace_host:
            return "non_ace_host";
        case ToolReason::query_or_fragment:
            return "query_or_fragment";
        case ToolReason::not_well_known:
            return "not_well_known";
        case ToolReason::slug_grammar:
            return "slug_grammar";
        case ToolReason::uri_too_long:
            return "uri_too_long";
        case ToolReason::bad_endpoint:
            return "bad_endpoint";
        case ToolReason::origin_mismatch:
            return "origin_mismatch";
        case ToolReason::bom:
            return "bom";
        case ToolReason::invalid_json:
            return "invalid_json";
        case ToolReason::not_nfc:
            return "not_nfc";
        case ToolReason::uppercase_hex:
            return "uppercase_hex";
        case ToolReason::hash_mismatch:
            return "hash_mismatch";
        case ToolReason::creator_mismatch:
            return "creator_mismatch";
        case ToolReason::schema_violation:
            return "schema_violation";
    }
    return "unknown";
}

std::string_view describe(ToolReason r) noexcept {
    switch (r) {
        case ToolReason::none:
            return "all four checks passed";
        case ToolReason::rpc_error:
            return "the registry could not be read";
        case ToolReason::tool_not_found:
            return "no such tool (unknown or deregistered)";
        case ToolReason::network_error:
            return "the manifest could not be fetched (network error)";
        case ToolReason::blocked_address:
            return "the manifest host resolves to a private or reserved address";
        case ToolReason::tls_error:
            return "TLS handshake or certificate verification failed";
        case ToolReason::timeout:
            return "the manifest fetch timed out";
        case ToolReason::http_status:
            return "the server answered with an error status";
        case ToolReason::redirect:
            return "the server answered with a redirect (never followed)";
        case ToolReason::truncated:
            return "the response was truncated";
        case ToolReason::too_large:
            return "the manifest is larger than 1 MiB";
        case ToolReason::not_https:
            return "metadataURI is not https";
        case ToolReason::bad_uri:
            return "metadataURI is not a well-formed URL";
        case ToolReason::non_ace_host:
            return "metadataURI host is a raw internationalized name";
        case ToolReason::query_or_fragment:
            return "metadataURI has a query or a fragment";
        case ToolReason::not_well_known:
            return "metadataURI is not at /.well-known/ai-tool/<slug>.json";
        case ToolReason::slug_grammar:
            return "the slug breaks the slug grammar";
        case ToolReason::uri_too_long:
            return "metadataURI is longer than 2,048 bytes";
        case ToolReason::bad_endpoint:
            return "the manifest endpoint is missing or not https";
        case ToolReason::origin_mismatch:
            return "metadataURI is not on the origin of the manifest endpoint";
        case ToolReason::bom:
            return "the manifest starts with a byte-order mark";
        case ToolReason::invalid_json:
            return "the manifest is not strict JSON";
        case ToolReason::not_nfc:
            return "a manifest string is not in NFC";
        case ToolReason::uppercase_hex:
            return "a manifest hex field has uppercase digits";
        case ToolReason::hash_mismatch:
            return "keccak256(JCS(manifest)) differs from manifestHash";
        case ToolReason::creator_mismatch:
            return "creatorAddress differs from the onchain creator";
        case ToolReason::schema_violation:
            return "the manifest breaks the ERC-8257 schema";
    }
    return "unknown";
}

std::string_view to_string(CheckStatus s) noexcept {
    switch (s) {
        case CheckStatus::not_run:
            return "not_run";
        case CheckStatus::passed:
            return "passed";
        case CheckStatus::failed:
            return "failed";
    }
    return "unknown";
}

std::string_view to_string(PredicateRisk r) noexcept {
    switch (r) {
        case PredicateRisk::no_code:
            return "no_code";
        case PredicateRisk::erc1967_proxy:
            return "erc1967_proxy";
        case PredicateRisk::no_iaccesspredicate:
            return "no_iaccesspredicate";
        case PredicateRisk::probe_failed:
            return "probe_failed";
    }
    return "unknown";
}

std::array<uint8_t, 4> access_predicate_interface_id() noexcept {
    // ERC-165: the XOR of the interface's selectors (ERC-8257 §9 lists 0xbdf9dc18).
    std::array<uint8_t, 4> id{};
    for (const auto& sel :
         {ap::kHasAccessSelector, ap::kNameSelector, ap::kGetRequirementsSelector})
        for (size_t i = 0; i < id.size(); ++i) id[i] = static_cast<uint8_t>(id[i] ^ sel[i]);
    return id;
}

ToolVerification verify_manifest_bytes(core::ByteView bytes, const ToolConfig& config,
                                       const ConfigReread& reread) {
    ToolVerification v;
    v.config = config;
    v.checks[kFetch] = CheckStatus::passed;  // the caller fetched these bytes
    const core::ManifestLimits limits;

    // §Manifest Parser Hardening: the 1 MiB cap is a fetch limit (check 1).
    if (bytes.size() > limits.max_bytes) {
        fail_check(v, kFetch, ToolReason::too_large,
                   fmt::format("{} bytes, over the {}-byte cap", bytes.size(), limits.max_bytes));
        return v;
    }
    // Check 2 needs the endpoint, so the document is parsed first; bytes that cannot be parsed
    // (a BOM, not JSON) fail check 3 and check 2 is not reached.
    if (auto r = core::check_no_bom(bytes); !r) {
        fail_check(v, kBytes, ToolReason::bom, r.error().detail);
        return v;
    }
    auto doc = core::parse_json(
        bytes, core::ParseLimits{.max_bytes = limits.max_bytes, .max_depth = limits.max_depth});
    if (!doc) {
        fail_check(v, kBytes, ToolReason::invalid_json,
                   fmt::format("{}: {}", core::to_string(doc.error().code), doc.error().detail));
        return v;
    }
    // The API's tool profile (store/profile_store.hpp): the searchable fields, whatever the
    // verdict (rules/manifest_summary.hpp).
    v.manifest_summary = tool_manifest_summary(nlohmann::json::parse(
        std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), nullptr,
        false));

    // Check 2: §7 verifyOriginBinding.
    const core::JsonValue* endpoint = doc->is_object() ? doc->find("endpoint") : nullptr;
    if (endpoint == nullptr || !endpoint->is_string()) {
        fail_check(v, kOrigin, ToolReason::bad_endpoint, "the manifest has no endpoint string");
        return v;
    }
    if (auto bound = check_origin_binding(config.metadata_uri, endpoint->as_string()); !bound) {
        const bool endpoint_side = bound.error().detail.starts_with("endpoint: ");
        fail_check(v, kOrigin,
                   endpoint_side ? ToolReason::bad_endpoint : reason_of(bound.error().code),
                   bound.error().detail);
        return v;
    } else {
        v.slug = bound->slug;
        v.checks[kOrigin] = CheckStatus::passed;
    }

    // Check 3: NFC, hex casing, JCS, keccak256 (the BOM was checked above).
    if (auto r = core::check_nfc_strings(*doc); !r) {
        fail_check(v, kBytes, reason_of(r.error().code), r.error().detail);
        return v;
    }
    if (auto r = core::check_lowercase_hex(*doc); !r) {
        fail_check(v, kBytes, reason_of(r.error().code), r.error().detail);
        return v;
    }
    auto jcs = core::canonicalize(*doc);
    if (!jcs) {
        fail_check(v, kBytes, ToolReason::invalid_json, jcs.error().detail);
        return v;
    }
    const core::Hash32 hash = core::keccak256(*jcs);
    v.manifest_hash = hash;
    if (hash != config.manifest_hash) {
        // §7 Handling item 5: re-read getToolConfig exactly once, never loop. The bytes were
        // fetched from the old metadataURI, so a re-read that moved the URI cannot vouch for them.
        std::optional<ToolConfig> fresh;
        if (reread) {
            v.config_reread = true;
            fresh = reread();
        }
        if (!fresh || fresh->manifest_hash != hash || fresh->metadata_uri != config.metadata_uri) {
            if (fresh) v.config = fresh;
            fail_check(v, kBytes, ToolReason::hash_mismatch,
                       fmt::format("keccak256(JCS) is {}, onchain manifestHash is {}{}",
                                   core::to_hex(hash), core::to_hex(v.config->manifest_hash),
                                   v.config_reread ? " (after one re-read of getToolConfig)" : ""));
            return v;
        }
        v.config = fresh;
    }
    v.checks[kBytes] = CheckStatus::passed;

    // Check 4: byte-equal lowercase comparison with the onchain creator.
    const core::JsonValue* creator = doc->find("creatorAddress");
    const std::string onchain = hex(v.config->creator);
    if (creator == nullptr || !creator->is_string() || creator->as_string() != onchain) {
        fail_check(v, kCreator, ToolReason::creator_mismatch,
                   fmt::format(
                       "manifest creatorAddress {} differs from the onchain creator {}",
                       creator != nullptr && creator->is_string() ? creator->as_string() : "(none)",
                       onchain));
        return v;
    }
    v.checks[kCreator] = CheckStatus::passed;

    // The full schema: any error makes the tool unverified.
    ManifestReport schema = validate_manifest(*doc);
    v.declared_tier = schema.declared_tier;
    v.effective_tier = schema.effective_tier;
    v.issues = std::move(schema.issues);
    for (const auto& issue : v.issues) {
        if (issue.severity != core::IssueSeverity::error) continue;
        v.verdict = ToolVerdict::unverified;
        v.reason = ToolReason::schema_violation;
        v.detail = fmt::format("{}: {}: {}", issue.path.empty() ? "/" : issue.path,
                               to_string(issue.reason), issue.message);
        return v;
    }
    v.verdict = ToolVerdict::canonical;
    v.reason = ToolReason::none;
    return v;
}

PredicateReport assess_predicate(chain::RpcClient& rpc, const core::Address& predicate) {
    PredicateReport p;
    p.predicate = predicate;
    if (predicate.is_zero()) {
        p.open_access = true;
        return p;
    }
    auto probe_failed = [&](std::string what) {
        p.risks.push_back(PredicateRisk::probe_failed);
        p.detail = std::move(what);
        return p;
    };
    auto code = rpc.get_code(predicate);
    if (!code) return probe_failed("eth_getCode: " + code.error().message);
    if (code->empty()) {
        // §Zero-Code Access Predicates: "not yet available", never "open access".
        p.risks.push_back(PredicateRisk::no_code);
        return p;
    }
    // §Predicate Upgradeability: an ERC-1967 implementation slot that is set.
    const auto slot = core::Uint256::from_hex(kErc1967ImplementationSlot);
    auto word = rpc.get_storage_at(predicate, *slot);
    if (!word) return probe_failed("eth_getStorageAt: " + word.error().message);
    if (*word != core::Hash32{}) {
        p.risks.push_back(PredicateRisk::erc1967_proxy);
        core::Address impl;
        std::copy(word->begin() + 12, word->end(), impl.bytes.begin());
        p.implementation = impl;
    }
    // §Predicate Validation at Registration: "surface 'predicate does not advertise
    // IAccessPredicate' as a warning". A revert or a non-bool answer counts as not advertising.
    // Not through a call helper: ERC-165 caps the call at 30,000 gas, and any error the node
    // answers with (a revert, or running out of that gas) means "not supported"; only a node that
    // does not answer fails the probe, a distinction CallError's rpc_failure does not keep.
    auto supports = [&](const std::array<uint8_t, 4>& id) -> std::optional<bool> {
        auto data = tr::supports_interface(id);
        if (!data) return std::nullopt;
        chain::CallRequest req;
        req.to = predicate;
        req.data = std::move(*data);
        req.gas = kErc165ProbeGas;
        auto out = rpc.call(req);
        if (!out) {
            if (out.error().kind == chain::RpcErrorKind::rpc_error) return false;  // reverted
            return std::nullopt;
        }
        auto answer = tr::decode_supports_interface_result(*out);
        return answer && *answer;
    };
    const auto erc165 = supports(kErc165InterfaceId);
    const auto iap = erc165.value_or(false) ? supports(access_predicate_interface_id())
                                            : std::optional<bool>(false);
    if (!erc165 || !iap) return probe_failed("supportsInterface: the node did not answer");
    if (!*iap) p.risks.push_back(PredicateRisk::no_iaccesspredicate);
    return p;
}

ToolVerification verify_tool(chain::RpcClient& rpc, const core::Address& registry,
                             const core::Uint256& tool_id, Fetcher& fetcher,
                             const ToolVerifyOptions& options) {
    ToolVerification v;
    auto config = read_config(rpc, registry, tool_id);
    if (!config) {
        v.tool_id = tool_id;
        v.reason = config.error().code;
        v.detail = config.error().detail;
        return v;
    }
    auto finish = [&](ToolVerification out) {
        out.tool_id = tool_id;
        if (options.check_predicate)
            out.predicate = assess_predicate(
                rpc, out.config ? out.config->access_predicate : config->access_predicate);
        return out;
    };

    // The metadataURI grammar (the URI half of check 2) before any fetch: a URL the checks would
    // refuse is never requested (it is attacker-written).
    v.config = *config;
    if (auto uri = parse_metadata_uri(config->metadata_uri); !uri) {
        fail_check(v, kOrigin, reason_of(uri.error().code), uri.error().detail);
        return finish(std::move(v));
    }
    // Check 1: the fetch, with the manifest policy (1 MiB, no redirects).
    FetchPolicy policy = options.policy;
    policy.max_redirects = 0;  // §7 Handling item 1, whatever the caller passed
    auto fetched = fetcher.fetch(config->metadata_uri, policy);
    if (!fetched) {
        fail_check(v, kFetch, reason_of(fetched.error().code),
                   fmt::format("{}: {}", to_string(fetched.error().code), fetched.error().detail));
        return finish(std::move(v));
    }
    if (fetched->status < 200 || fetched->status >= 300) {
        fail_check(v, kFetch,
                   fetched->status >= 300 && fetched->status < 400 ? ToolReason::redirect
                                                                   : ToolReason::http_status,
                   fmt::format("HTTP {}", fetched->status));
        return finish(std::move(v));
    }
    const ConfigReread reread = [&]() -> std::optional<ToolConfig> {
        auto fresh = read_config(rpc, registry, tool_id);
        return fresh ? std::optional<ToolConfig>(*fresh) : std::nullopt;
    };
    return finish(verify_manifest_bytes(fetched->body, *config, reread));
}

nlohmann::json ToolVerification::to_json() const {
    nlohmann::json j;
    if (tool_id) {
        // A number when it fits 64 bits (as the CLI prints ids), else the decimal string.
        if (tool_id->fits_u64()) {
            j["toolId"] = tool_id->limbs[0];
        } else {
            j["toolId"] = tool_id->to_dec();
        }
    }
    j["verdict"] = to_string(verdict);
    j["reason"] = to_string(reason);
    j["reasonText"] = describe(reason);
    if (!detail.empty()) j["detail"] = detail;
    static constexpr std::array<std::string_view, 4> kNames = {"fetch", "originBinding",
                                                               "canonicalBytes", "creatorBinding"};
    nlohmann::json checks_json = nlohmann::json::object();
    for (size_t i = 0; i < checks.size(); ++i)
        checks_json[std::string(kNames[i])] = to_string(checks[i]);
    j["checks"] = checks_json;
    j["configReread"] = config_reread;
    if (config) {
        j["onchain"] = {{"creator", hex(config->creator)},
                        {"metadataURI", config->metadata_uri},
                        {"manifestHash", core::to_hex(config->manifest_hash)},
                        {"accessPredicate", hex(config->access_predicate)}};
    }
    if (manifest_hash) j["manifestHash"] = core::to_hex(*manifest_hash);
    if (slug) j["slug"] = *slug;
    nlohmann::json list = nlohmann::json::array();
    for (const auto& i : issues)
        list.push_back({{"reason", to_string(i.reason)},
                        {"severity", core::to_string(i.severity)},
                        {"path", i.path},
                        {"message", i.message}});
    j["issues"] = list;
    if (declared_tier) j["declaredTier"] = to_string(*declared_tier);
    if (effective_tier) j["effectiveTier"] = to_string(*effective_tier);
    if (predicate) {
        nlohmann::json p = {{"address", hex(predicate->predicate)},
                            {"openAccess", predicate->open_access}};
        nlohmann::json risks = nlohmann::json::array();
        for (auto r : predicate->risks) risks.push_back(to_string(r));
        p["risks"] = risks;
        if (predicate->implementation) p["implementation"] = hex(*predicate->implementation);
        if (!predicate->detail.empty()) p["detail"] = predicate->detail;
        j["predicate"] = p;
    }
    if (manifest_summary) j["manifestSummary"] = *manifest_summary;
    return j;
}

}  // namespace credence::verify
