// First-draft ERC-8004 agents: from the on-chain (AgentID, AgentDomain, AgentAddress) to a verdict
// on the Agent Card the domain serves (docs/formats.md §ERC-8004 first draft).
//
// For each agent, verify_draft_agents():
//   1. builds https://{AgentDomain}/.well-known/agent-card.json (ERC-8004 first draft §Identity
//      Registry; rules/draft_agent_card.hpp draft_agent_card_url);
//   2. fetches it through the Fetcher with registration_policy() (256 KiB, SSRF guard, time
//      limits); all agents of a call are fetched concurrently with Fetcher::fetch_all;
//   3. parses the card's `registrations` and `trustModels` (§Agent Card Structure);
//   4. looks for an entry naming this AgentID and AgentAddress on this chain (match_draft_card);
//   5. when the card carries a FeedbackDataURI (§Feedback Data Structure), fetches that file with
//      feedback_policy() (all agents' files in one more fetch_all) and checks it
//      (rules/feedback_data.hpp), each entry's FeedbackAuthID against the agent's AuthFeedback
//      events when they are known. The file is the agent's feedback as a client: its findings are
//      reported and never change the verdict, which is about the agent's identity.
//
// Verdict: verified when step 4 finds the entry (the card at the on-chain domain names the agent:
// the check the draft's Security Considerations leave to the protocol's users); unverified
// when the AgentDomain is not a bare DNS name, the card is not a JSON object, or no entry names
// the agent (the reason says how close one came); unreachable when the card could not be fetched
// (any FetchError, a non-2xx answer included), so the schedule retries it. Entry signatures are
// reported, never checked: the draft does not define what is signed.
//
// Nothing throws; every failure is a reason enum with a detail line. Thread-safety: reentrant;
// the Fetcher must be usable from the calling thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <credence/chain/contract_call.hpp>
#include <credence/chain/rpc_client.hpp>
#include <credence/core/address.hpp>
#include <credence/core/uint256.hpp>
#include <credence/verify/net/fetch.hpp>
#include <credence/verify/rules/draft_agent_card.hpp>
#include <credence/verify/rules/feedback_data.hpp>
#include <credence/verify/verifiers/registration_verifier.hpp>

namespace credence::verify {

/// What the first draft's IdentityRegistry says about one agent: Get(AgentID) → AgentID,
/// AgentDomain, AgentAddress.
struct DraftOnChainAgent {
    uint64_t chain_id = 0;
    core::Address identity_registry;
    core::Uint256 agent_id;
    std::string agent_domain;
    core::Address agent_address;
    /// The FeedbackAuthIDs of the AuthFeedback events naming the agent as the client, when the
    /// index was read (nullopt: not known; the chain has no reverse lookup). Each entry of the
    /// card's feedback file must name one (rules/feedback_data.hpp match_authorizations).
    std::optional<std::vector<core::Hash32>> feedback_auth_ids;
    /// An AuthFeedback names the agent as the client: its card must then carry a FeedbackDataURI
    /// (ERC-8004 first draft §Feedback Data Structure).
    [[nodiscard]] bool feedback_client() const {
        return feedback_auth_ids && !feedback_auth_ids->empty();
    }
    /// agentId, identityRegistry ("eip155:<chainId>:<registry>"), revision "draft", agentDomain,
    /// agentAddress: the fields every draft report starts with.
    [[nodiscard]] nlohmann::ordered_json to_json() const;
};

/// Why a draft agent is not verified (AgentStatus::verified carries none).
enum class DraftAgentReason {
    none,
    bad_domain,                ///< the AgentDomain is not a bare DNS name: no card URL
    fetch_failed,              ///< the card could not be fetched (FetchError in the detail)
    not_json,                  ///< the card is not strict JSON
    not_an_object,             ///< the card is not a JSON object
    no_registrations,          ///< the card lists no complete registration entry
    wrong_address,             ///< entries with this AgentID on this chain name another address
    wrong_agent_id,            ///< entries with this address on this chain name another AgentID
    wrong_chain,               ///< the entry naming this agent is for another chain
    no_matching_registration,  ///< no entry names this agent
};
[[nodiscard]] std::string_view to_string(DraftAgentReason r) noexcept;

/// Step 5: the card's FeedbackDataURI, fetched and checked.
struct DraftFeedbackDataCheck {
    std::string uri;
    bool fetched = false;
    std::optional<FetchError> fetch_error;
    std::string detail;                     ///< why it was not read ("" when it was)
    std::optional<DraftFeedbackData> data;  ///< present when the file is JSON
    /// How many entries name one of the agent's AuthFeedback ids (nullopt: not matched, the
    /// ids being unknown).
    std::optional<size_t> authorized;
};

struct DraftAgentVerification {
    DraftOnChainAgent agent;
    AgentStatus status = AgentStatus::unreachable;
    DraftAgentReason reason = DraftAgentReason::none;
    std::string detail;

    std::string url;  ///< the card URL ("" when the domain gave none)
    bool fetched = false;
    std::optional<FetchError> fetch_error;
    std::string final_url;
    size_t bytes = 0;
    std::optional<DraftAgentCard> card;  ///< present when the card is a JSON object
    std::optional<size_t> registration_index;
    std::optional<DraftFeedbackDataCheck> feedback_data;  ///< when the card has a FeedbackDataURI

    /// The AgentDomain when verified (a card at that domain names the agent), else empty.
    [[nodiscard]] std::vector<std::string> verified_domains() const;
    /// The whole report, stable keys (docs/cli.md `verify agent --revision draft --json`).
    [[nodiscard]] nlohmann::ordered_json to_json() const;
};

/// Reads getAgent(agentId) of a first-draft IdentityRegistry at the latest block. A nonexistent
/// agent is the registry's AgentNotFound revert (CallErrorKind::reverted).
[[nodiscard]] chain::CallResult<DraftOnChainAgent> read_draft_onchain_agent(
    chain::RpcClient& rpc, uint64_t chain_id, const core::Address& registry,
    const core::Uint256& agent_id);

/// Verifies every agent (see the header comment); result i is for agents[i]. Each distinct card
/// URL is fetched once; so is each distinct FeedbackDataURI. `policy` is the cards' (the feedback
/// files use feedback_policy()).
[[nodiscard]] std::vector<DraftAgentVerification> verify_draft_agents(
    const std::vector<DraftOnChainAgent>& agents, Fetcher& fetcher,
    const FetchPolicy& policy = registration_policy());

/// verify_draft_agents for one agent.
[[nodiscard]] DraftAgentVerification verify_draft_agent(
    const DraftOnChainAgent& agent, Fetcher& fetcher,
    const FetchPolicy& policy = registration_policy());

/// Steps 3-4 on bytes already fetched (no I/O): fills card, registration_index, status, reason
/// and detail of `out` (whose agent must be set).
void judge_draft_card_bytes(core::ByteView body, DraftAgentVerification& out);

}  // namespace credence::verify
