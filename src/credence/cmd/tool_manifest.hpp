// The producer side of an ERC-8257 tool manifest, for `credence tool register` / `update`:
// reads a manifest file, applies the pre-JCS byte rules (core/manifest_checks.hpp: 1 MiB cap, no
// BOM, strict JSON, NFC strings, lowercase hex fields), then the field grammar of ERC-8257 §2-§5
// and the §Manifest Parser Hardening caps (verify/rules/manifest_schema.hpp, shared with the
// consumer), and returns the JCS bytes with their keccak256 (the `manifestHash` the registry
// commits to, ERC-8257 §8).
//
// Rules are applied by rejecting, never by repairing (ERC-8257 §Canonical Manifest Bytes): the
// hash must commit to what the user wrote, so a non-NFC name or an uppercase hex digit is an
// error that names the JSON Pointer of the offending field, not something we silently fix.
//
// Errors: every failure throws CliError with one line ("manifest.json: not_nfc: …").
// Thread-safety: pure functions (apart from reading the file).
#pragma once

#include <string>

#include <credence/core/address.hpp>
#include <credence/core/manifest_checks.hpp>
#include <credence/verify/rules/manifest_schema.hpp>

namespace credence::cmd {

/// ERC-8257 §2: the v1 manifest `type` identifier (defined with the schema).
using verify::kToolManifestTypeV1;

/// A manifest that passed every check, with its canonical bytes and hash.
struct ToolManifest {
    std::string source;  // the file name, for messages
    core::CanonicalManifest canonical;
    core::Address creator;  // creatorAddress
};

/// The byte rules only (what `manifestHash` commits to): size cap, BOM, strict JSON, NFC,
/// lowercase hex, then JCS and keccak256. Throws CliError naming `source`.
[[nodiscard]] core::CanonicalManifest canonical_manifest_bytes(const std::string& bytes,
                                                               const std::string& source);

/// Byte rules plus the field grammar (ERC-8257 §2 Required/Optional Fields, §3 Pricing, §4
/// Access, §7 creatorAddress, §Manifest Parser Hardening). Throws CliError on the first issue.
[[nodiscard]] ToolManifest load_tool_manifest(const std::string& path);

/// The field grammar alone (verify::validate_manifest), over a parsed manifest; throws
/// CliError("<source>: not a valid ERC-8257 tool manifest (N errors): <pointer>: …; …") naming
/// every error; warnings pass.
void check_manifest_fields(const core::JsonValue& manifest, const std::string& source);

}  // namespace credence::cmd
