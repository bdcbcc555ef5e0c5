// The first ERC-8004 draft's Agent Card: where it is, what its extensions hold, and whether it
// names the on-chain agent (docs/formats.md §ERC-8004 first draft).
//
// ERC-8004 first draft §Identity Registry: an agent is (AgentID, AgentDomain, AgentAddress) and
// the Agent Card is served at https://{AgentDomain}/.well-known/agent-card.json (a MUST).
// §Agent Card Structure: the card SHOULD carry `registrations` (entries {agentId, agentAddress as
// CAIP-10, signature}) and SHOULD carry `trustModels` ("feedback", "inference-validation",
// "tee-attestation"). The A2A members of the card (name, skills, ...) are agent_card.hpp's.
//
// parse_draft_agent_card() checks those extensions and reports every departure as an Issue with
// a reason, an RFC 6901 JSON Pointer and a message; it also reads `FeedbackDataURI` (§Feedback
// Data Structure), which the verifier follows. Severity:
//   - error: an entry that cannot be read as the draft shows it (not an object, agentId missing
//     or not a non-negative integer, agentAddress missing or not CAIP-10), a member of the wrong
//     JSON type;
//   - warning: a SHOULD not met (no `registrations`, no `trustModels`), an unknown trust model, a
//     duplicate entry, and `signature_unspecified` on every entry with a signature: the draft calls
//     it a proof that the address is owned but never says what message is signed or how it is
//     encoded, so Credence cannot check it and does not guess (the binding stands on the on-chain
//     AgentAddress alone).
// match_draft_card() is the binding: an entry with the on-chain AgentID and an eip155 agentAddress
// on this chain equal to the on-chain AgentAddress. Entries hold no registry address, so the
// chain, id and address together are the agent's name. Pure, thread-safe, no I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <credence/core/bytes.hpp>
#include <credence/core/caip.hpp>
#include <credence/core/error.hpp>
#include <credence/core/registration_file.hpp>
#include <credence/core/uint256.hpp>
#include <credence/verify/rules/agent_card.hpp>
#include <credence/verify/rules/domain_check.hpp>

namespace credence::verify {

enum class DraftCardReason {
    not_an_object,          ///< an entry of `registrations` is not an object (error)
    wrong_json_type,        ///< a member has the wrong JSON type (error)
    missing_field,          ///< an entry lacks agentId or agentAddress (error)
    bad_agent_id,           ///< agentId is not a non-negative integer below 2^256 (error)
    bad_agent_address,      ///< agentAddress is not a CAIP-10 account id (error)
    no_registrations,       ///< SHOULD include a registrations array (warning)
    no_trust_models,        ///< SHOULD describe the trust models (warning)
    unknown_trust_model,    ///< not one of the draft's three models (warning)
    duplicate_entry,        ///< the same registration or trust model twice (warning)
    signature_unspecified,  ///< a signature the draft gives no rule to check (warning)
    /// the agent has given feedback (an AuthFeedback names it as the client) and its card has no
    /// FeedbackDataURI, which a feedback-providing client's card MUST carry (error; set by the
    /// verifier, which knows the authorizations: draft_agent_verifier.hpp)
    no_feedback_data_uri,
};
[[nodiscard]] std::string_view to_string(DraftCardReason r) noexcept;

using DraftCardIssue = core::Issue<DraftCardReason>;

/// One complete entry of `registrations`.
struct DraftCardRegistration {
    core::Uint256 agent_id;
    core::AccountId agent_address;
    std::optional<std::string> signature;  ///< kept as written; never checked (see above)
};

struct DraftAgentCard {
    std::string name;  ///< the A2A `name` when it is a string, for reports
    /// ERC-8004 first draft §Feedback Data Structure: a client agent's card carries a
    /// FeedbackDataURI (the member of that name), the URL of its feedback file (feedback_data.hpp).
    std::optional<std::string> feedback_data_uri;
    std::vector<DraftCardRegistration> registrations;
    std::vector<std::string> trust_models;
    std::vector<DraftCardIssue> issues;
    /// True when no issue is an error (warnings allowed).
    [[nodiscard]] bool ok() const noexcept;
    [[nodiscard]] size_t error_count() const noexcept;
};

/// Parses a card (strict JSON, depth kAgentCardMaxDepth). Fails only when the bytes are not a JSON
/// object; everything else is an issue.
[[nodiscard]] core::Result<DraftAgentCard, AgentCardError> parse_draft_agent_card(
    core::ByteView body);

/// Whether the card names the on-chain agent, and if not, how close it came.
enum class DraftCardMatch {
    matches,                   ///< an entry names this AgentID and AgentAddress on this chain
    no_registrations,          ///< the card holds no complete entry
    wrong_address,             ///< this AgentID on this chain, another address
    wrong_agent_id,            ///< this address on this chain, another AgentID (another agent)
    wrong_chain,               ///< this AgentID and address, on another chain only
    no_matching_registration,  ///< no entry comes close
};
[[nodiscard]] std::string_view to_string(DraftCardMatch m) noexcept;

struct DraftCardBinding {
    DraftCardMatch match = DraftCardMatch::no_registrations;
    std::optional<size_t> index;  ///< the matching entry of DraftAgentCard::registrations
};

/// ERC-8004 first draft §Agent Card Structure: the entry whose agentId is `agent_id` and whose
/// agentAddress is "eip155:<chain_id>:<agent_address>" (address compared as 20 bytes, so either
/// case of hex matches), or why none is.
[[nodiscard]] DraftCardBinding match_draft_card(const DraftAgentCard& card, uint64_t chain_id,
                                                const core::Uint256& agent_id,
                                                const core::EvmAddress& agent_address);

/// ERC-8004 first draft §Identity Registry: "https://{AgentDomain}/.well-known/agent-card.json".
/// The AgentDomain must be a DNS name alone (no scheme, port, path or IP literal); it is
/// lowercased. EndpointError says why a domain is not one.
[[nodiscard]] core::Result<std::string, EndpointError> draft_agent_card_url(
    std::string_view agent_domain);

}  // namespace credence::verify
