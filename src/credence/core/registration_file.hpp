// ERC-8004 agent registration file: structural validation and typed extraction.
//
// ERC-8004 §Agent URI and Agent Registration File: "The registration file MUST have the following
// structure" (type, name, description, image, services[], x402Support, active, registrations[],
// supportedTrust[]). validate_registration_file() walks a document parsed by the strict parser of
// json.hpp and reports every departure from that structure as an Issue with a reason code, an RFC
// 6901 JSON Pointer and a message. Severity:
//   - error: a MUST of the text is broken (wrong `type`, a required member missing or of the wrong
//     JSON type, a registration entry missing agentId/agentRegistry or holding a bad one);
//   - warning: a SHOULD is not met (no registrations, a service without `version`), an unknown
//     member, an unknown trust model, a duplicate.
// Judgment calls, all from the text: `type`, `name`, `description`, `image` and `services` are
// required (the structure is a MUST; `services` may be empty since "The number and type of
// endpoints are fully customizable"); `x402Support` and `active` are checked for type when present
// and only warned about when absent (the prose never states a rule for them); `supportedTrust` is
// OPTIONAL; `registrations` SHOULD hold at least one entry, and "all fields in the registration are
// mandatory".
//
// The report always carries the extracted RegistrationFile (fields that failed are left empty), so
// callers can show what was readable. Thread-safe, no I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <credence/core/caip.hpp>
#include <credence/core/error.hpp>
#include <credence/core/json.hpp>
#include <credence/core/uint256.hpp>

namespace credence::core {

enum class IssueSeverity : uint8_t { error, warning };

[[nodiscard]] std::string_view to_string(IssueSeverity s) noexcept;

/// One finding of a document validator: `path` is an RFC 6901 JSON Pointer ("" = the root).
template <typename Reason>
struct Issue {
    Reason reason;
    IssueSeverity severity = IssueSeverity::error;
    std::string path;
    std::string message;
};

/// Escapes one reference token for a JSON Pointer (RFC 6901 §3: '~' -> "~0", '/' -> "~1").
[[nodiscard]] std::string json_pointer_token(std::string_view key);

enum class RegistrationReason {
    not_an_object,        ///< the document (or an entry) is not a JSON object
    missing_field,        ///< a required member is absent (error)
    missing_recommended,  ///< a member the structure shows / the text recommends is absent
    wrong_json_type,      ///< a member has the wrong JSON type
    wrong_type_uri,       ///< `type` is not the ERC-8004 registration-v1 URI
    empty_string,         ///< a required string is empty
    bad_agent_id,         ///< agentId not a non-negative integer below 2^256
    bad_agent_registry,   ///< agentRegistry not "{namespace}:{chainId}:{identityRegistry}"
    no_registrations,     ///< SHOULD have at least one registration
    unknown_field,        ///< a member the spec does not define (warning)
    unknown_trust_model,  ///< supportedTrust value not among the spec's three (warning)
    duplicate_entry,      ///< the same registration / trust model twice (warning)
    earlier_revision,     ///< a member under an earlier revision's name, read as today's (warning)
};

[[nodiscard]] std::string_view to_string(RegistrationReason r) noexcept;

using RegistrationIssue = Issue<RegistrationReason>;

/// ERC-8004 §Agent URI and Agent Registration File: the exact `type` value.
inline constexpr std::string_view kRegistrationTypeV1 =
    "https://eips.ethereum.org/EIPS/eip-8004#registration-v1";

struct RegistrationService {
    std::string name;
    std::string endpoint;
    std::optional<std::string> version;  // "The version field in endpoints is a SHOULD"
    std::vector<std::string> skills;     // OASF service, OPTIONAL
    std::vector<std::string> domains;    // OASF service, OPTIONAL
};

struct RegistrationEntry {
    Uint256 agent_id;
    AgentRegistry agent_registry;
    friend bool operator==(const RegistrationEntry&, const RegistrationEntry&) = default;
};

struct RegistrationFile {
    std::string type;
    std::string name;
    std::string description;
    std::string image;
    std::vector<RegistrationService> services;
    /// The member the services were read from: "services", or "endpoints" for a file written to
    /// the earlier revisions' shape (their name for the same list).
    std::string services_member = "services";
    std::optional<bool> x402_support;
    std::optional<bool> active;
    std::vector<RegistrationEntry> registrations;
    std::vector<std::string> supported_trust;
};

struct RegistrationReport {
    RegistrationFile file;
    std::vector<RegistrationIssue> issues;
    /// True when no issue is an error (warnings allowed).
    [[nodiscard]] bool ok() const noexcept;
    [[nodiscard]] size_t error_count() const noexcept;
};

/// Validates a parsed document. Never fails: every problem is an Issue.
[[nodiscard]] RegistrationReport validate_registration_file(const JsonValue& doc);

/// Parses `text` with the strict JSON parser, then validates. Fails only when the text is not JSON.
[[nodiscard]] Result<RegistrationReport, JsonError> validate_registration_file(
    std::string_view text);

/// ERC-8004 §Endpoint Domain Verification: an entry "whose agentRegistry and agentId match the
/// on-chain agent".
[[nodiscard]] bool registration_matches(const RegistrationEntry& entry, uint64_t chain_id,
                                        const EvmAddress& identity_registry,
                                        const Uint256& agent_id) noexcept;

/// Index of the first entry of `file` matching the on-chain agent, if any.
[[nodiscard]] std::optional<size_t> find_registration(const RegistrationFile& file,
                                                      uint64_t chain_id,
                                                      const EvmAddress& identity_registry,
                                                      const Uint256& agent_id) noexcept;

/// Reads a JSON number that must be a non-negative integer written without fraction or exponent
/// (the literal text is used, so values beyond 2^53 are exact). Shared with feedback_file.
[[nodiscard]] std::optional<Uint256> json_uint256(const JsonValue& v);

}  // namespace credence::core
