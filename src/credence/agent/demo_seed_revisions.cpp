#include <credence/agent/demo_seed_revisions.hpp>

#include <array>
#include <string_view>

#include <fmt/core.h>

#include <credence/agent/demo_batch.hpp>
#include <credence/chain/bindings/draft_identity_registry.hpp>
#include <credence/chain/bindings/draft_reputation_registry.hpp>
#include <credence/chain/bindings/draft_validation_registry.hpp>
#include <credence/chain/bindings/score_identity_registry.hpp>
#include <credence/chain/bindings/score_reputation_registry.hpp>
#include <credence/chain/bindings/score_validation_registry.hpp>
#include <credence/core/erc8004_revision.hpp>
#include <credence/core/keccak.hpp>

namespace credence::agent {

namespace {

namespace sid = chain::bindings::score_identity_registry;
namespace srep = chain::bindings::score_reputation_registry;
namespace sval = chain::bindings::score_validation_registry;
namespace did = chain::bindings::draft_identity_registry;
namespace drep = chain::bindings::draft_reputation_registry;
namespace dval = chain::bindings::draft_validation_registry;
using detail::Batch;

/// The intermediate revision's scores from the three clients (0..100; the second is revoked).
constexpr std::array<uint8_t, 3> kScores = {92, 35, 81};

/// The first id an event of `topic` from `emitter` names in `receipt` (topic 1: agentId).
std::optional<uint64_t> first_id(const chain::Receipt& receipt, const core::Address& emitter,
                                 const core::Hash32& topic) {
    for (const auto& log : receipt.logs) {
        if (log.address == emitter && log.topics.size() >= 2 && log.topics[0] == topic) {
            const auto id = core::Uint256::from_be_bytes(log.topics[1]);
            if (id) return id->limbs[0];
        }
    }
    return std::nullopt;
}

}  // namespace

bool has_earlier_revisions(const std::map<std::string, core::Address, std::less<>>& contracts) {
    for (const auto revision : {core::Erc8004Revision::score, core::Erc8004Revision::draft}) {
        for (const auto registry :
             {core::Erc8004Registry::identity, core::Erc8004Registry::reputation,
              core::Erc8004Registry::validation}) {
            if (!contracts.contains(core::registry_contract_name(revision, registry))) return false;
        }
    }
    return true;
}

DemoResult<std::vector<DemoEarlierAgent>> seed_earlier_revisions(chain::RpcClient& rpc,
                                                                 const EarlierRevisionsPlan& plan) {
    const auto& c = *plan.contracts;
    const auto at = [&](std::string_view name) { return c.find(name)->second; };
    const core::SecretKey& owner = *plan.owner;
    const core::SecretKey& validator = *plan.validator;
    const core::Address owner_address = core::address_of(owner);
    const core::Address validator_address = core::address_of(validator);
    const core::Address client_address = core::address_of(*plan.clients[0]);
    const std::string client_domain = "client." + plan.agent_domain;
    const std::string validator_domain = "validator." + plan.agent_domain;
    Batch batch(rpc);

    // 1. Identities. The intermediate revision: register(agentURI) as the current revision
    // (ERC-8004 intermediate §Identity Registry). The first draft: New(AgentDomain,
    // AgentAddress), called by the AgentAddress (ERC-8004 first draft §Identity Registry).
    for (auto r : {batch.call(owner, at("ScoreIdentityRegistry"), sid::register_1(plan.agent_uri),
                              "ScoreIdentityRegistry.register"),
                   batch.call(owner, at("DraftIdentityRegistry"),
                              did::new_agent(plan.agent_domain, owner_address),
                              "DraftIdentityRegistry.newAgent (server)"),
                   batch.call(*plan.clients[0], at("DraftIdentityRegistry"),
                              did::new_agent(client_domain, client_address),
                              "DraftIdentityRegistry.newAgent (client)"),
                   batch.call(validator, at("DraftIdentityRegistry"),
                              did::new_agent(validator_domain, validator_address),
                              "DraftIdentityRegistry.newAgent (validator)")}) {
        if (!r) return std::unexpected(r.error());
    }
    auto registered = batch.wait_all();
    if (!registered) return std::unexpected(registered.error());
    const auto score_id =
        first_id((*registered)[0], at("ScoreIdentityRegistry"), sid::kRegisteredTopic);
    const auto server_id =
        first_id((*registered)[1], at("DraftIdentityRegistry"), did::kAgentRegisteredTopic);
    const auto client_id =
        first_id((*registered)[2], at("DraftIdentityRegistry"), did::kAgentRegisteredTopic);
    const auto validator_id =
        first_id((*registered)[3], at("DraftIdentityRegistry"), did::kAgentRegisteredTopic);
    if (!score_id || !server_id || !client_id || !validator_id) {
        return std::unexpected(
            DemoFailure{DemoError::send, "an earlier revision's registration emitted no id"});
    }

    // 2. The intermediate revision's feedback (any client, a score 0..100: ERC-8004 intermediate
    // §Giving Feedback) and validation request; the first draft's authorizations and request,
    // both sent by the server agent (ERC-8004 first draft §Reputation Registry, §Validation
    // Registry).
    const core::Uint256 score_agent{*score_id};
    for (size_t i = 0; i < kScores.size(); ++i) {
        const std::string_view tag1 = i == 1 ? "" : "quality";
        auto r = batch.call(
            *plan.clients[i], at("ScoreReputationRegistry"),
            srep::give_feedback(score_agent, kScores[i], tag1, "", "", "", core::Hash32{}),
            "ScoreReputationRegistry.giveFeedback");
        if (!r) return std::unexpected(r.error());
    }
    const core::Hash32 score_request = core::keccak256("credence.demo/score-validation/0");
    const core::Hash32 data_hash = core::keccak256("credence.demo/draft-validation/0");
    for (auto r :
         {batch.call(owner, at("ScoreValidationRegistry"),
                     sval::validation_request(validator_address, score_agent, "", score_request),
                     "ScoreValidationRegistry.validationRequest"),
          batch.call(owner, at("DraftReputationRegistry"),
                     drep::accept_feedback(core::Uint256{*client_id}, core::Uint256{*server_id}),
                     "DraftReputationRegistry.acceptFeedback"),
          batch.call(owner, at("DraftReputationRegistry"),
                     drep::accept_feedback(core::Uint256{*client_id}, core::Uint256{*server_id}),
                     "DraftReputationRegistry.acceptFeedback"),
          batch.call(owner, at("DraftValidationRegistry"),
                     dval::validation_request(core::Uint256{*validator_id},
                                              core::Uint256{*server_id}, data_hash),
                     "DraftValidationRegistry.validationRequest")}) {
        if (!r) return std::unexpected(r.error());
    }
    if (auto r = batch.wait_all(); !r) return std::unexpected(r.error());

    // 3. A revocation and the validators' answers.
    for (auto r :
         {batch.call(*plan.clients[1], at("ScoreReputationRegistry"),
                     srep::revoke_feedback(score_agent, 1),
                     "ScoreReputationRegistry.revokeFeedback"),
          batch.call(validator, at("ScoreValidationRegistry"),
                     sval::validation_response(score_request, 88, "", core::Hash32{}, "hard"),
                     "ScoreValidationRegistry.validationResponse"),
          batch.call(validator, at("DraftValidationRegistry"),
                     dval::validation_response(data_hash, 95),
                     "DraftValidationRegistry.validationResponse")}) {
        if (!r) return std::unexpected(r.error());
    }
    if (auto r = batch.wait_all(); !r) return std::unexpected(r.error());

    return std::vector<DemoEarlierAgent>{
        {"score", "server", *score_id, owner_address, "", kScores.size(), 1},
        {"draft", "server", *server_id, owner_address, plan.agent_domain, 2, 1},
        {"draft", "client", *client_id, client_address, client_domain, 0, 0},
        {"draft", "validator", *validator_id, validator_address, validator_domain, 0, 0}};
}

}  // namespace credence::agent
