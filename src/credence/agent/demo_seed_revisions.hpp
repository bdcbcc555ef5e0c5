// The demo's agents in the earlier ERC-8004 revisions (docs/demo.md, docs/compatibility.md
// §Earlier ERC-8004 revisions), seeded when the deployment has their registries (`credence devnet
// --revisions all`, the node's embedded devnet): one demo agent that moved across revisions.
//
//   - the intermediate revision: the agent's owner registers the same agentURI in
//     ScoreIdentityRegistry; three clients give it scores 0..100 (one with tags), one score is
//     revoked, and a validator answers one validation request;
//   - the first draft: the owner registers the agent's domain in DraftIdentityRegistry (AgentDomain
//     = its verified endpoint domain, AgentAddress = the owner), a client agent and a validator
//     agent register theirs; the server authorizes the client's feedback twice (AcceptFeedback)
//     and asks the validator agent, which answers, to validate one DataHash.
// With the current record, these are one agent's history across revisions (docs/api.md: same
// owner, and the same agentURI or a verified domain).
//
// Errors: DemoFailure (one line). Thread-safety: one caller.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <credence/agent/demo_seed.hpp>
#include <credence/chain/rpc_client.hpp>
#include <credence/core/address.hpp>
#include <credence/core/secp256k1.hpp>

namespace credence::agent {

/// What to seed: the demo agent that moves, and who acts.
struct EarlierRevisionsPlan {
    uint64_t chain_id = 0;
    std::string agent_uri;     ///< the current record's agentURI
    std::string agent_domain;  ///< its verified endpoint domain
    const core::SecretKey* owner = nullptr;
    std::vector<const core::SecretKey*> clients;  ///< at least three
    const core::SecretKey* validator = nullptr;
    /// The deployment's contracts by name (ScoreIdentityRegistry, DraftReputationRegistry, ...).
    const std::map<std::string, core::Address, std::less<>>* contracts = nullptr;
};

/// Whether the deployment has every registry of both earlier revisions.
[[nodiscard]] bool has_earlier_revisions(
    const std::map<std::string, core::Address, std::less<>>& contracts);

/// Seeds the two earlier revisions' records (see above); what was seeded.
[[nodiscard]] DemoResult<std::vector<DemoEarlierAgent>> seed_earlier_revisions(
    chain::RpcClient& rpc, const EarlierRevisionsPlan& plan);

}  // namespace credence::agent
