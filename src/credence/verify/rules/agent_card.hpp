// A2A agent cards: the parser of `/.well-known/agent-card.json` and what binds a card to an
// on-chain agent.
//
// ERC-8004 §Agent URI and Agent Registration File lists an "A2A" service whose endpoint is the
// agent card ("https://agent.example/.well-known/agent-card.json"); the first draft
// (erc-8004-first-draft.md §Identity Registry) requires that "an Agent Card MUST be available at
// https://{AgentDomain}/.well-known/agent-card.json" and (§Agent Card Structure) that the card
// SHOULD carry a `registrations` array of {agentId, agentAddress (CAIP-10), signature} and MAY
// list `trustModels`. The A2A AgentCard itself holds `skills` (AgentSkill: id, name, description,
// tags, examples).
//
// parse_agent_card() is strict about the JSON (core/json.hpp: no duplicates, no BOM, depth 32) and
// lenient about the A2A schema: a card that is a JSON object always parses, and every departure
// from the A2A shape (a missing required member, a skill without an id) is a CardIssue, so callers
// can show the skills that are readable. Binding rules (card_binding()) are in the function's
// comment. Thread-safe, no I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <credence/core/address.hpp>
#include <credence/core/bytes.hpp>
#include <credence/core/caip.hpp>
#include <credence/core/error.hpp>
#include <credence/core/uint256.hpp>

namespace credence::verify {

enum class AgentCardError {
    not_json,       ///< not strict JSON, or nested deeper than kAgentCardMaxDepth
    not_an_object,  ///< the top level is not a JSON object
};
[[nodiscard]] std::string_view to_string(AgentCardError e) noexcept;

inline constexpr size_t kAgentCardMaxDepth = 32;

/// A2A AgentSkill.
struct AgentSkill {
    std::string id;
    std::string name;
    std::string description;
    std::vector<std::string> tags;
    std::vector<std::string> examples;
};

/// One entry of the card's `registrations` extension. The first draft's form is {agentId,
/// agentAddress (CAIP-10), signature}; the final text's registration-file form {agentId,
/// agentRegistry} is accepted too, since cards written against it reuse the same array.
struct CardRegistration {
    core::Uint256 agent_id;
    std::optional<core::AccountId> agent_address;       // first draft: CAIP-10
    std::optional<core::AgentRegistry> agent_registry;  // final text's form
    bool has_signature = false;  // present but not checked: its format is not specified
};

struct CardIssue {
    std::string path;  ///< RFC 6901 JSON Pointer
    std::string message;
};

struct AgentCard {
    std::string name;
    std::string description;
    std::string url;
    std::string version;
    std::string protocol_version;
    std::vector<AgentSkill> skills;
    std::vector<CardRegistration> registrations;
    std::vector<std::string> trust_models;
    std::vector<CardIssue> issues;  ///< departures from the A2A shape (never fatal)
};

/// Parses a card. Fails only when the bytes are not a JSON object.
[[nodiscard]] core::Result<AgentCard, AgentCardError> parse_agent_card(core::ByteView body);

/// How a card was tied to the on-chain agent.
enum class CardBinding {
    none,            ///< nothing in or around the card names this agent
    card_domain,     ///< the card's domain is a verified endpoint-domain of the agent
    agent_registry,  ///< a `registrations` entry {agentId, agentRegistry} matches
    agent_address,   ///< a first-draft entry {agentId, agentAddress} names owner or wallet
};
[[nodiscard]] std::string_view to_string(CardBinding b) noexcept;

/// The entry-based binding of a card to an agent (the caller decides card_domain, which needs the
/// domain results): an entry with the on-chain agentId and either agentRegistry equal to
/// "eip155:<chain_id>:<registry>" or (first draft §Agent Card Structure) an eip155 agentAddress on
/// this chain equal to the owner or the agentWallet. The first draft's signature has no specified
/// format, so it is neither required nor checked. Returns none when nothing matches.
[[nodiscard]] CardBinding card_entry_binding(const AgentCard& card, uint64_t chain_id,
                                             const core::EvmAddress& identity_registry,
                                             const core::Uint256& agent_id,
                                             const core::Address& owner,
                                             const std::optional<core::Address>& wallet);

}  // namespace credence::verify
