// ERC-8004 agents: from the on-chain identity to a verdict on what its agentURI points to
// (docs/architecture.md §verify/).
//
// For each agent, verify_agents():
//   1. fetches the agentURI (https, ipfs or data:) through the Fetcher with registration_policy()
//      (256 KiB); all agents of a call are fetched concurrently with Fetcher::fetch_all;
//   2. validates the registration file's structure (core/registration_file.hpp);
//   3. checks that a `registrations` entry matches the on-chain agentRegistry
//      ("eip155:<chainId>:<identityRegistry>") and agentId (ERC-8004 §Endpoint Domain
//      Verification);
//   4. verifies every HTTPS endpoint-domain of `services[]` through
//      https://{domain}/.well-known/agent-registration.json, except where ERC-8004's same-domain
//      shortcut applies (see DomainCheck);
//   5. fetches the A2A agent card of each "A2A" service, extracts its skills and records what binds
//      it to the agent (verify/rules/agent_card.hpp).
// Each distinct URL is fetched once per call, however many agents or services name it.
//
// Verdict (AgentVerification::status): verified when steps 1-3 pass; unverified with an
// AgentReason when the file is invalid or names another agent; unreachable when the agentURI could
// not be fetched (the check could not run). Endpoint-domain verification is OPTIONAL in ERC-8004
// ("Users MAY treat the endpoint-domain as verified ..."), so a failed domain does not unverify the
// agent: the domain is reported unverified, and only verified domains count for resolve-by-domain.
//
// Nothing throws; every failure is a reason enum with a detail line. Thread-safety: the functions
// are reentrant; the Fetcher must be usable from the calling thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <credence/chain/contract_call.hpp>
#include <credence/chain/rpc_client.hpp>
#include <credence/core/address.hpp>
#include <credence/core/erc8004_revision.hpp>
#include <credence/core/registration_file.hpp>
#include <credence/core/uint256.hpp>
#include <credence/verify/net/fetch.hpp>
#include <credence/verify/rules/agent_card.hpp>
#include <credence/verify/rules/domain_check.hpp>

namespace credence::verify {

/// What the chain says about one agent (IdentityRegistry: ownerOf, tokenURI, getAgentWallet).
struct OnChainAgent {
    uint64_t chain_id = 0;
    core::Address identity_registry;
    core::Uint256 agent_id;
    core::Address owner;
    std::optional<core::Address> wallet;  ///< agentWallet; nullopt when unset or unknown
    std::string agent_uri;
    /// "eip155:<chainId>:<identityRegistry>" (ERC-8004 §Identity Registry, core/caip.hpp).
    [[nodiscard]] std::string agent_registry() const;
    /// agentId, agentRegistry, owner, agentWallet (null when unset) and agentURI: the fields every
    /// report about an agent starts with.
    [[nodiscard]] nlohmann::ordered_json to_json() const;
};

enum class AgentStatus { verified, unverified, unreachable };
[[nodiscard]] std::string_view to_string(AgentStatus s) noexcept;

/// Why an agent is not verified (AgentStatus::verified carries none).
enum class AgentReason {
    none,
    empty_agent_uri,            ///< tokenURI is "" (registered without a URI)
    fetch_failed,               ///< the agentURI could not be fetched (FetchError in the detail)
    not_json,                   ///< the registration file is not strict JSON
    invalid_registration_file,  ///< ERC-8004 §Agent URI and Agent Registration File: a MUST broken
    no_registrations,           ///< the file lists no complete registration entry
    wrong_agent_id,             ///< entries for this registry name another agentId
    wrong_registry,             ///< entries with this agentId name another registry or chain
    no_matching_registration,   ///< no entry names this agent
};
[[nodiscard]] std::string_view to_string(AgentReason r) noexcept;

/// The outcome of ERC-8004 §Endpoint Domain Verification for one endpoint-domain.
enum class DomainReason {
    verified,                  ///< the well-known file lists this agent
    same_domain,               ///< shortcut: the domain serves the agentURI, whose file matched
    fetch_failed,              ///< transport, TLS, SSRF, timeout, size... (fetch_error says which)
    not_found,                 ///< the well-known file answered a non-2xx status (404, ...)
    not_json,                  ///< the well-known file is not a JSON object
    no_registrations,          ///< it has no `registrations` list
    wrong_agent_id,            ///< it lists another agent of this registry
    wrong_registry,            ///< it lists this agentId on another registry
    no_matching_registration,  ///< it lists no entry for this agent
    not_https,                 ///< the endpoint is http(s)-like but not https: nothing to verify
    bad_host,                  ///< the endpoint's host is not a DNS name (IP literal, garbage)
};
[[nodiscard]] std::string_view to_string(DomainReason r) noexcept;

struct DomainCheck {
    std::string domain;                 ///< lowercase host ("" for not_https / bad_host)
    std::vector<std::string> services;  ///< names of the services whose endpoint is here
    std::vector<std::string> endpoints;
    bool verified = false;
    DomainReason reason = DomainReason::verified;
    std::optional<FetchError> fetch_error;
    std::string detail;
    std::string url;  ///< the well-known URL fetched ("" when none was)
};

struct AgentCardCheck {
    std::string service_endpoint;  ///< the A2A service's endpoint
    std::string url;               ///< the card URL fetched
    bool fetched = false;
    std::optional<FetchError> fetch_error;
    std::optional<AgentCardError> parse_error;
    std::string detail;
    std::optional<AgentCard> card;
    CardBinding binding = CardBinding::none;
};

struct AgentVerification {
    OnChainAgent agent;
    AgentStatus status = AgentStatus::unreachable;
    AgentReason reason = AgentReason::none;
    std::string detail;

    // Step 1: the agentURI.
    bool fetched = false;
    std::optional<FetchError> fetch_error;
    std::string final_url;
    size_t bytes = 0;
    // Step 2: the registration file (present when it parsed as JSON), and the document itself
    // when it is an object: readers that map the file's own members (the agent0 subgraph's
    // fields, docs/graphql.md) need more than the report keeps.
    std::optional<core::RegistrationReport> registration;
    std::optional<nlohmann::ordered_json> document;
    // Step 3: the entry that names this agent.
    bool registration_matches = false;
    std::optional<size_t> registration_index;
    // Step 4: one entry per distinct endpoint-domain (plus non-https URL endpoints).
    std::vector<DomainCheck> domains;
    // Step 5: one entry per A2A service.
    std::vector<AgentCardCheck> agent_cards;

    /// Domains counted as under the agent's control: verified endpoint-domains, and the domain of
    /// an https agentURI whose file matched (ERC-8004: "domain control is already demonstrated
    /// there").
    [[nodiscard]] std::vector<std::string> verified_domains() const;
    /// The whole report, stable keys (docs/cli.md `verify agent --json`).
    [[nodiscard]] nlohmann::ordered_json to_json() const;
};

/// Reads ownerOf, tokenURI and getAgentWallet of `agent_id` at the latest block. A nonexistent
/// agent is the registry's revert (CallErrorKind::reverted); undecodable answers are bad_answer.
/// The intermediate revision's registry (`revision` score) has no getAgentWallet: its wallet is
/// getMetadata(agentId, "agentWallet"), 20 bytes or empty (ERC-8004 intermediate §Onchain
/// metadata).
[[nodiscard]] chain::CallResult<OnChainAgent> read_onchain_agent(
    chain::RpcClient& rpc, uint64_t chain_id, const core::Address& registry,
    const core::Uint256& agent_id, core::Erc8004Revision revision = core::Erc8004Revision::current);

struct AgentVerifyOptions {
    bool check_domains = true;
    bool fetch_agent_cards = true;
    /// Used for every fetch (agentURI, domain files, cards); its max_bytes is the registration
    /// file cap (docs/architecture.md §verify/: 256 KiB).
    FetchPolicy policy = registration_policy();
};

/// Verifies every agent (see the header comment); result i is for agents[i]. Fetches all
/// agentURIs concurrently, then all well-known domain files, then all agent cards.
[[nodiscard]] std::vector<AgentVerification> verify_agents(const std::vector<OnChainAgent>& agents,
                                                           Fetcher& fetcher,
                                                           const AgentVerifyOptions& options = {});

/// verify_agents for one agent.
[[nodiscard]] AgentVerification verify_agent(const OnChainAgent& agent, Fetcher& fetcher,
                                             const AgentVerifyOptions& options = {});

/// Steps 2-3 on bytes already fetched (no I/O): fills registration, registration_matches,
/// status, reason and detail of `out` (whose agent must be set).
void judge_registration_bytes(core::ByteView body, AgentVerification& out);

/// The URL of the A2A agent card an "A2A" service endpoint points to: the endpoint itself when its
/// path is the well-known card path, else https://{endpoint-domain}/.well-known/agent-card.json
/// (first draft §Identity Registry). nullopt when the endpoint is not an https URL.
[[nodiscard]] std::optional<std::string> agent_card_url_for(std::string_view a2a_endpoint);

}  // namespace credence::verify
