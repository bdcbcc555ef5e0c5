// ERC-8257 tool manifest schema: every field rule of §2 Tool Manifest, §3 Pricing, §4 Access,
// §5 Verifiability, §7 creatorAddress and the §Manifest Parser Hardening caps, as one validator
// shared by the producer (`credence tool register/check`, cmd/tool_manifest.hpp) and the consumer
// (`credence verify tool`, verify/verifiers/tool_verifier.hpp).
//
// validate_manifest() walks a document the strict parser (core/json.hpp) produced and reports
// every departure as an Issue (reason code, RFC 6901 JSON Pointer, message), in document-check
// order. Severity follows the text:
//   - error: a MUST is broken (a required field missing or of the wrong JSON type, a grammar or a
//     cap violated, `pricing: null`, an empty `access.requirements`, a zero `creatorAddress`, an
//     image URL with a script-capable scheme, ...) and, because §2 says consumers SHOULD reject
//     one, an unknown or missing `type`. Any error makes the tool unverified (§7 Handling).
//   - warning: what the text asks discovery layers to flag without rejecting: inconsistent
//     `verifiability` claims (§5 Trust Tiers: "SHOULD flag"), values outside the tables of §5,
//     bare (non-namespaced) unknown top-level fields (§2 Unknown Fields: ignored, but extensions
//     SHOULD be namespaced), a remote `$ref` in an embedded schema (§Remote $ref).
// The byte rules (BOM, NFC, lowercase hex, JCS) are core/manifest_checks.hpp's job; this file
// assumes a parsed document and checks grammars. Thread-safe, no I/O, nothing throws.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <credence/core/address.hpp>
#include <credence/core/json.hpp>
#include <credence/core/registration_file.hpp>

namespace credence::verify {

/// ERC-8257 §2: the v1 manifest `type` identifier.
inline constexpr std::string_view kToolManifestTypeV1 =
    "https://ercs.ethereum.org/ERCS/erc-8257#tool-manifest-v1";

// ERC-8257 §Manifest Parser Hardening.
inline constexpr size_t kMaxPricingEntries = 32;
inline constexpr size_t kMaxRequirements = 256;
inline constexpr size_t kMaxRequirementDataBytes = 4096;  // hex-decoded
inline constexpr size_t kMaxSchemaDepth = 16;
inline constexpr size_t kMaxSchemaNodes = 1024;  // inputs + outputs together
// ERC-8257 §2 / §4 field caps.
inline constexpr size_t kMaxNameCodePoints = 128;
inline constexpr size_t kMaxDescriptionCodePoints = 500;
inline constexpr size_t kMaxTags = 16;
inline constexpr size_t kMaxTagCodePoints = 32;
inline constexpr size_t kMaxLabelBytes = 256;

enum class ManifestReason {
    not_an_object,          ///< the document or a member that must be an object is not one
    missing_field,          ///< a required member is absent
    wrong_json_type,        ///< a member has the wrong JSON type
    unknown_type,           ///< `type` is not the v1 identifier (§2: SHOULD reject)
    bad_length,             ///< name / description / tag / label outside its length bounds
    control_character,      ///< a Cc character where the text forbids it (§2 name, description)
    bad_tag,                ///< tag grammar (§2)
    too_many_tags,          ///< more than 16 tags (§2)
    duplicate_tag,          ///< a repeated tag (§2: MUST reject)
    bad_url,                ///< an URL field that is not an https URL in canonical form
    url_not_normalized,     ///< endpoint not stored in G1-G3 form (§2 endpoint)
    url_too_long,           ///< an URL (or links key) over 2,048 bytes
    forbidden_scheme,       ///< image URL with javascript:, file:, vbscript:, data:text/html
    bad_creator_address,    ///< creatorAddress not ^0x[0-9a-f]{40}$ (§2, §7)
    zero_creator_address,   ///< creatorAddress is the zero address (§7: MUST reject)
    empty_array,            ///< pricing / access.requirements empty or null
    too_many_entries,       ///< pricing > 32, access.requirements > 256
    bad_amount,             ///< pricing amount grammar or range (§3)
    bad_asset,              ///< pricing asset not CAIP-19 (§3)
    bad_recipient,          ///< pricing recipient not CAIP-10, or the zero address (§3)
    chain_mismatch,         ///< asset and recipient on different chains (§3 Constraints)
    bad_logic,              ///< access.logic not "AND" / "OR" (§4)
    bad_kind,               ///< requirement kind not ^0x[0-9a-f]{8}$ (§4)
    bad_data,               ///< requirement data not ^0x([0-9a-f]{2})*$ (§4)
    data_too_large,         ///< requirement data over 4,096 decoded bytes
    bad_hex,                ///< enclaveHash / buildHash not ^0x([0-9a-f]{2})+$ (§5)
    bad_integer,            ///< attestation.maxAge not a non-negative integer (§5)
    schema_too_deep,        ///< inputs/outputs deeper than 16 levels
    too_many_schema_nodes,  ///< inputs + outputs over 1,024 schema nodes
    unknown_value,          ///< a §5 enumerated field outside its table (warning)
    inconsistent_tier,      ///< §5 Trust Tiers inconsistency (warning)
    unknown_field,          ///< a bare unknown top-level field (warning; ignored otherwise)
    remote_ref,             ///< a non-local `$ref` in inputs/outputs (warning)
};
[[nodiscard]] std::string_view to_string(ManifestReason r) noexcept;

using ManifestIssue = core::Issue<ManifestReason>;

/// §5 Trust Tiers, in increasing strength.
enum class TrustTier { self_attested, hardware_attested, verifiable };
[[nodiscard]] std::string_view to_string(TrustTier t) noexcept;

struct ManifestReport {
    std::vector<ManifestIssue> issues;
    /// creatorAddress when it passed its grammar (what §7 check 4 compares).
    std::optional<core::Address> creator;
    /// §5: the declared tier, and the lower of it and what the structured fields support (what
    /// "SHOULD treat ... as the effective tier" asks for). nullopt without `verifiability`.
    std::optional<TrustTier> declared_tier;
    std::optional<TrustTier> effective_tier;
    size_t schema_nodes = 0;  ///< inputs + outputs nodes counted

    [[nodiscard]] bool ok() const noexcept;  ///< no error (warnings allowed)
    [[nodiscard]] size_t error_count() const noexcept;
    /// The first error, if any (what a producer reports in one line).
    [[nodiscard]] const ManifestIssue* first_error() const noexcept;
};

/// Validates a parsed manifest. Never fails: every problem is an Issue.
[[nodiscard]] ManifestReport validate_manifest(const core::JsonValue& manifest);

}  // namespace credence::verify
