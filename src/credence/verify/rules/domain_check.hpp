// ERC-8004 endpoint domains: which domain an endpoint names, where that domain publishes its proof
// of control, and whether a published proof names the on-chain agent.
//
// ERC-8004 §Endpoint Domain Verification (Optional): an agent proves control of an HTTPS
// endpoint-domain by publishing `https://{endpoint-domain}/.well-known/agent-registration.json`
// "containing at least a `registrations` list (or the full agent registration file)"; the domain is
// verified when that file "is reachable over HTTPS and includes a `registrations` entry whose
// `agentRegistry` and `agentId` match the on-chain agent". The same paragraph's shortcut (an
// endpoint-domain equal to the domain serving the agentURI) is applied by registration_verifier.
//
// Everything here is pure (no I/O): endpoint_domain() judges a URL split by net/url.hpp (the
// splitter tool_uri.hpp and the fetcher use too, with their own rules), check_domain_file()
// judges the bytes a fetch returned. Thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <credence/core/bytes.hpp>
#include <credence/core/caip.hpp>
#include <credence/core/error.hpp>
#include <credence/core/registration_file.hpp>
#include <credence/core/uint256.hpp>

namespace credence::verify {

/// ERC-8004 §Endpoint Domain Verification: the well-known path a domain publishes.
inline constexpr std::string_view kAgentRegistrationPath = "/.well-known/agent-registration.json";
/// A2A / ERC-8004 first draft §Identity Registry: "an Agent Card MUST be available at
/// https://{AgentDomain}/.well-known/agent-card.json" (RFC 8615 well-known URI).
inline constexpr std::string_view kAgentCardPath = "/.well-known/agent-card.json";

enum class EndpointError {
    not_a_url,   ///< no "scheme://authority" (ENS names, DIDs, e-mail addresses, ...)
    not_https,   ///< a URL whose scheme is not https (http, ipfs, wss, ...)
    bad_host,    ///< empty host, or characters a DNS name cannot hold
    ip_literal,  ///< an IP address is not a domain
};
[[nodiscard]] std::string_view to_string(EndpointError e) noexcept;

/// The parts of an https URL this component needs.
struct EndpointUrl {
    std::string host;  ///< lowercase, no trailing dot, no port
    std::string path;  ///< "/" when empty; without query and fragment
};

/// Parses an `https://` URL's host and path. The host is lowercased (DNS names are
/// case-insensitive, RFC 4343) and a trailing root dot removed, so equal domains compare equal.
[[nodiscard]] core::Result<EndpointUrl, EndpointError> parse_endpoint_url(std::string_view url);

/// The endpoint-domain of a service endpoint (its host), or why it has none.
[[nodiscard]] core::Result<std::string, EndpointError> endpoint_domain(std::string_view endpoint);

/// "https://{domain}/.well-known/agent-registration.json".
[[nodiscard]] std::string agent_registration_url(std::string_view domain);
/// "https://{domain}/.well-known/agent-card.json".
[[nodiscard]] std::string agent_card_url(std::string_view domain);

/// Why a domain file does not verify the agent.
enum class DomainFileError {
    not_json,          ///< not strict JSON (core/json.hpp)
    not_an_object,     ///< the top level is not an object
    no_registrations,  ///< no `registrations` array ("containing at least a registrations
                       ///< list")
    wrong_agent_id,    ///< entries for this registry, none with this agentId (another agent)
    wrong_registry,    ///< entries with this agentId, none on this registry
    no_matching_registration,  ///< no entry names this agent at all
};
[[nodiscard]] std::string_view to_string(DomainFileError e) noexcept;

/// ERC-8004 §Endpoint Domain Verification: the index of the entry of `file` "whose agentRegistry
/// and agentId match the on-chain agent", or why none does (no_registrations when the file holds
/// no complete entry; wrong_agent_id / wrong_registry when entries share the registry / the id).
[[nodiscard]] core::Result<size_t, DomainFileError> match_registration(
    const core::RegistrationFile& file, uint64_t chain_id,
    const core::EvmAddress& identity_registry, const core::Uint256& agent_id);

/// Judges the bytes of a `/.well-known/agent-registration.json`: success when a `registrations`
/// entry's agentRegistry and agentId match the on-chain agent. Entries that do not parse are
/// skipped (they cannot match); the detail names the agents the file does list.
[[nodiscard]] core::Result<void, DomainFileError> check_domain_file(
    core::ByteView body, uint64_t chain_id, const core::EvmAddress& identity_registry,
    const core::Uint256& agent_id);

}  // namespace credence::verify
