// ERC-8257 canonical manifest bytes: the pre-JCS rules, JCS and the manifest hash.
//
// ERC-8257 §Canonical Manifest Bytes commits `manifestHash = keccak256(JCS(manifest))` onchain.
// JCS (RFC 8785) does not normalize Unicode, hex case or byte-order marks, so the ERC adds three
// rules that consumers MUST enforce by rejecting, never by repairing (repairing would change the
// bytes that were hashed):
//   1. no UTF-8 byte-order mark (EF BB BF) at the start of the fetched bytes;
//   2. every JSON string in NFC per Unicode 16 or later (we use Unicode 17);
//   3. lowercase hex digits in the manifest's hex fields (creatorAddress, the 0x… part of
//      pricing[].asset / pricing[].recipient, access.requirements[].kind / .data,
//      verifiability.attestation.enclaveHash, verifiability.reproducibleBuild.buildHash).
// §7 Consumer Verification check 3 applies them in that order, then JCS and the hash compare.
// Each rule is callable on its own; canonicalize_manifest() runs the whole pipeline.
//
// These checks are about the bytes only. The field grammars (e.g. creatorAddress matching
// ^0x[0-9a-f]{40}$, non-zero address, schema depth 16) belong to the manifest schema validator.
#pragma once

#include <cstddef>
#include <string>

#include <credence/core/bytes.hpp>
#include <credence/core/error.hpp>
#include <credence/core/json.hpp>

namespace credence::core {

/// Why fetched manifest bytes fail ERC-8257 §7 check 3 (or the size cap of §Manifest Parser
/// Hardening). Each is a verification failure in the sense of §7 Handling Verification Failure.
enum class ManifestBytesError {
    too_large,      // more than 1 MiB (§Manifest Parser Hardening)
    bom,            // starts with a UTF-8 byte-order mark (§Canonical Manifest Bytes)
    invalid_json,   // not strict JSON / I-JSON; the detail names the JsonError
    not_nfc,        // a string (value or member name) not in NFC (§Canonical Manifest Bytes)
    uppercase_hex,  // an uppercase hex digit in a listed hex field (§Canonical Manifest Bytes)
    hash_mismatch,  // keccak256 of the JCS bytes differs from the onchain manifestHash (§7, 3)
};

[[nodiscard]] std::string_view to_string(ManifestBytesError e) noexcept;

struct ManifestLimits {
    /// ERC-8257 §Manifest Parser Hardening: 1 MiB (1,048,576 bytes).
    size_t max_bytes = size_t{1} << 20;
    /// Whole-document nesting bound for the parser. The ERC's 16-level cap is on the inputs /
    /// outputs *schema* depth (each level may take two JSON levels: properties → name →
    /// schema), which the schema validator enforces; this only keeps parsing bounded.
    size_t max_depth = 64;
};

/// Rule 1: rejects bytes that begin with EF BB BF.
[[nodiscard]] Result<void, ManifestBytesError> check_no_bom(ByteView bytes) noexcept;

/// Rule 2: every string value and every member name must be NFC. Member names are JSON strings
/// too (RFC 8259 §4) and a non-NFC name diverges the hash exactly like a value does.
/// The detail gives the JSON Pointer of the first offending string.
[[nodiscard]] Result<void, ManifestBytesError> check_nfc_strings(const JsonValue& document);

/// Rule 3: lowercase hex in the hex fields listed by §Canonical Manifest Bytes. Fields that are
/// absent or of another type are left to the schema validator.
[[nodiscard]] Result<void, ManifestBytesError> check_lowercase_hex(const JsonValue& manifest);

struct CanonicalManifest {
    JsonValue document;      // the parsed manifest, members in served order
    std::string jcs;         // RFC 8785 canonical bytes
    Hash32 manifest_hash{};  // keccak256(jcs)
};

/// The whole of §7 check 3 except the comparison: size cap, rule 1, strict parse, rule 2,
/// rule 3, then JCS and keccak256.
[[nodiscard]] Result<CanonicalManifest, ManifestBytesError> canonicalize_manifest(
    ByteView bytes, const ManifestLimits& limits = {});

/// canonicalize_manifest() and then the comparison with the onchain `manifestHash`.
[[nodiscard]] Result<CanonicalManifest, ManifestBytesError> verify_manifest_bytes(
    ByteView bytes, const Hash32& expected_manifest_hash, const ManifestLimits& limits = {});

}  // namespace credence::core
