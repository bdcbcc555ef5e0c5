// ERC-8004 off-chain feedback file: deterministic building and validation against the chain.
//
// ERC-8004 §Off-Chain Feedback File Structure lists the MUST fields agentRegistry, agentId,
// clientAddress, createdAt, value and valueDecimals, the optional tag1, tag2, endpoint, mcp, a2a,
// oasf and proofOfPayment, and allows any other field ("Other fields ... MAY").
//
// Building: build_feedback_file() turns a FeedbackFile (plus an optional JSON object of extra
// members) into RFC 8785 (JCS) canonical bytes, so the same content always gives the same bytes
// and feedbackHash = keccak256(bytes) (ERC-8004 §Giving Feedback) is reproducible by anyone who
// re-canonicalizes the file. Extra members may add fields but never replace one the struct sets
// (a MUST field, or an optional field that is set): that is an error, not a silent override.
// Integers: agentId and value are JSON numbers when they are exact in IEEE-754 double (|x| <
// 2^53); larger ones are written as decimal strings, as I-JSON (RFC 7493 §2.2) recommends and
// because JCS would otherwise round them (RFC 8785 §3.2.2.3). The validator accepts both forms.
// clientAddress is CAIP-10 with an EIP-55 address; agentRegistry as caip.hpp formats it.
//
// Validation: validate_feedback_file() checks the MUST fields' presence and form and the optional
// fields' JSON types, reporting Issues like registration_file.hpp; check_feedback_file() compares
// the MUST fields with the values read on-chain and lists every mismatch.
//
// Thread-safe, no I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <credence/core/bytes.hpp>
#include <credence/core/caip.hpp>
#include <credence/core/decimal_value.hpp>
#include <credence/core/error.hpp>
#include <credence/core/json.hpp>
#include <credence/core/registration_file.hpp>
#include <credence/core/uint256.hpp>

namespace credence::core {

enum class FeedbackError {
    bad_input,         ///< a struct field cannot be written (e.g. createdAt not RFC 3339)
    extra_not_object,  ///< the extra JSON is not an object
    extra_conflict,    ///< an extra member would replace a MUST field or a field already set
    serialization,     ///< JCS failed (a hand-built extra DOM with NaN, invalid UTF-8, ...)
};

[[nodiscard]] std::string_view to_string(FeedbackError e) noexcept;

/// mcp: { "tool": ... } or { "prompt": ... } or { "resource": ... }
struct McpContext {
    enum class Kind : uint8_t { tool, prompt, resource };
    Kind kind = Kind::tool;
    std::string name;
    friend bool operator==(const McpContext&, const McpContext&) = default;
};

struct A2aContext {
    std::vector<std::string> skills;
    std::optional<std::string> context_id;
    std::optional<std::string> task_id;
    friend bool operator==(const A2aContext&, const A2aContext&) = default;
};

struct OasfContext {
    std::vector<std::string> skills;
    std::vector<std::string> domains;
    friend bool operator==(const OasfContext&, const OasfContext&) = default;
};

/// "this can be used for x402 proof of payment"; the spec writes every member as a string.
struct ProofOfPayment {
    std::string from_address;
    std::string to_address;
    std::string chain_id;
    std::string tx_hash;
    friend bool operator==(const ProofOfPayment&, const ProofOfPayment&) = default;
};

struct FeedbackFile {
    // MUST fields.
    AgentRegistry agent_registry;
    Uint256 agent_id;
    uint64_t client_chain_id = 0;  // CAIP-10 chain of clientAddress
    EvmAddress client_address{};
    std::string created_at;  // RFC 3339, e.g. "2025-09-23T12:00:00Z"
    DecimalValue value;      // value and valueDecimals
    // Optional fields.
    std::optional<std::string> tag1;
    std::optional<std::string> tag2;
    std::optional<std::string> endpoint;
    std::optional<McpContext> mcp;
    std::optional<A2aContext> a2a;
    std::optional<OasfContext> oasf;
    std::optional<ProofOfPayment> proof_of_payment;
    friend bool operator==(const FeedbackFile&, const FeedbackFile&) = default;
};

struct BuiltFeedbackFile {
    std::string bytes;       // JCS canonical JSON
    Hash32 feedback_hash{};  // keccak256(bytes)
};

/// Builds the canonical file. `extra` (may be null) must be an object; its members are merged in.
[[nodiscard]] Result<BuiltFeedbackFile, FeedbackError> build_feedback_file(
    const FeedbackFile& file, const JsonValue* extra = nullptr);

/// RFC 3339 §5.6 date-time ("2025-09-23T12:00:00Z", fraction and numeric offset allowed).
[[nodiscard]] bool is_rfc3339_date_time(std::string_view s) noexcept;

enum class FeedbackReason {
    not_an_object,       ///< the document is not a JSON object
    missing_field,       ///< a MUST field is absent
    wrong_json_type,     ///< a field has the wrong JSON type
    bad_agent_registry,  ///< not {namespace}:{chainId}:{identityRegistry}
    bad_agent_id,        ///< not a non-negative integer < 2^256
    bad_client_address,  ///< not an eip155 CAIP-10 account ID
    bad_created_at,      ///< not an RFC 3339 date-time (warning: the spec only shows an example)
    bad_value,           ///< not an integer, or |value| > 1e38
    bad_value_decimals,  ///< not an integer in 0..18
    bad_optional_field,  ///< an optional field's inner structure is off (warning)
};

[[nodiscard]] std::string_view to_string(FeedbackReason r) noexcept;

using FeedbackIssue = Issue<FeedbackReason>;

struct FeedbackReport {
    FeedbackFile file;  // fields that failed are left default
    std::vector<FeedbackIssue> issues;
    [[nodiscard]] bool ok() const noexcept;  // no errors
};

[[nodiscard]] FeedbackReport validate_feedback_file(const JsonValue& doc);
/// Parses strictly (json.hpp), then validates. Fails only when `text` is not JSON.
[[nodiscard]] Result<FeedbackReport, JsonError> validate_feedback_file(std::string_view text);

/// What the chain says about one feedback (NewFeedback event / readFeedback).
struct OnchainFeedback {
    AgentRegistry agent_registry;  // chain ID and the identity registry of the reputation registry
    Uint256 agent_id;
    EvmAddress client_address{};
    DecimalValue value;
};

enum class FeedbackField { agent_registry, agent_id, client_address, value, value_decimals };

[[nodiscard]] std::string_view to_string(FeedbackField f) noexcept;

struct FeedbackMismatch {
    FeedbackField field;
    std::string expected;  // on-chain
    std::string found;     // in the file
};

/// Every MUST field of `file` that differs from the chain (empty: all match). The clientAddress
/// must name the same chain as the registry and the same address.
[[nodiscard]] std::vector<FeedbackMismatch> check_feedback_file(const FeedbackFile& file,
                                                                const OnchainFeedback& chain);

}  // namespace credence::core
