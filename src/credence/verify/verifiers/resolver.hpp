// The ERC-8004 first draft's public resolvers, served off-chain from the index
// (docs/architecture.md §verify/).
//
// erc-8004-first-draft.md §Identity Registry, Public Resolvers:
//   Get(AgentID) → AgentID, AgentDomain, AgentAddress
//   ResolveByDomain(AgentDomain) → AgentID, AgentDomain, AgentAddress
//   ResolveByAddress(AgentAddress) → AgentID, AgentDomain, AgentAddress
// The final ERC-8004 dropped them from the contract: an agent's address is its owner (ERC-721
// ownerOf) or its agentWallet, and its domains are claims of its registration file. So:
//   - resolve_by_address() reads the index's `agents` table (index/schema.cpp): owner and wallet
//     (the agentWallet the projector keeps from the reserved MetadataSet key);
//   - a domain is only an agent's when verification showed it (AgentVerification::verified_domains:
//     a verified endpoint-domain, or the https domain serving a matching agentURI), so
//     resolve_by_domain() filters verification outcomes; resolve_domain_live() produces them by
//     verifying the index's agents with verify_agents().
// Thread-safety: none beyond the Database's (one per thread). Nothing throws.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <credence/core/address.hpp>
#include <credence/core/uint256.hpp>
#include <credence/index/database.hpp>
#include <credence/verify/verifiers/registration_verifier.hpp>

namespace credence::verify {

enum class ResolveMatch { owner, wallet, domain };
[[nodiscard]] std::string_view to_string(ResolveMatch m) noexcept;

/// One answer of a resolver: the first draft's (AgentID, AgentDomain, AgentAddress) triple, with
/// the final text's names (several domains may be verified; the address is owner and wallet).
struct ResolvedAgent {
    OnChainAgent agent;
    std::vector<std::string> domains;  ///< verified domains; empty when not verified here
    std::vector<ResolveMatch> matched_by;
    [[nodiscard]] nlohmann::ordered_json to_json() const;
};

struct IndexFilter {
    std::optional<uint64_t> chain_id;
    std::optional<core::Address> registry;
};

/// Every agent of the index (optionally of one chain / registry), ordered by chain, registry and
/// agentId. Agents whose owner is unknown (a NULL owner) are skipped.
[[nodiscard]] index::DbResult<std::vector<OnChainAgent>> load_indexed_agents(
    index::Database& db, const IndexFilter& filter = {});

/// First draft ResolveByAddress: agents whose owner or agentWallet is `address`.
[[nodiscard]] index::DbResult<std::vector<ResolvedAgent>> resolve_by_address(
    index::Database& db, const core::Address& address, const IndexFilter& filter = {});

/// Normalizes a domain the way endpoint_domain() does ("Agent.Example." → "agent.example"); a URL
/// is reduced to its host. nullopt when it is not a DNS name.
[[nodiscard]] std::optional<std::string> normalize_domain(std::string_view domain_or_url);

/// First draft ResolveByDomain over verification outcomes: the agents for which `domain` is a
/// verified domain.
[[nodiscard]] std::vector<ResolvedAgent> resolve_by_domain(
    std::span<const AgentVerification> verifications, std::string_view domain);

/// ResolveByDomain live: verifies every indexed agent matching `filter` (verify_agents, concurrent
/// fetches) and keeps those for which `domain` is verified.
[[nodiscard]] index::DbResult<std::vector<ResolvedAgent>> resolve_domain_live(
    index::Database& db, Fetcher& fetcher, std::string_view domain, const IndexFilter& filter = {});

}  // namespace credence::verify
