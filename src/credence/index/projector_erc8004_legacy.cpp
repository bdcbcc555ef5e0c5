// Projection rules of the earlier ERC-8004 revisions' registries (projector.hpp,
// docs/compatibility.md §Earlier ERC-8004 revisions): the intermediate revision (feedback as a
// score 0..100; kinds identity-score, reputation-score, validation-score) and the first draft
// (kinds identity-draft, reputation-draft, validation-draft). They write the current revision's
// tables (schema.cpp), each row with its `revision` (migration 10): a field that maps exactly goes
// where the current revision keeps it (a score s is value = s, valueDecimals = 0; a DataHash is a
// requestHash), one that does not is kept as it was (the first draft's AgentDomain, AgentAddress
// and AgentValidatorID; its AuthFeedback, with the FeedbackAuthID, is a contract_events row).
#include <string>
#include <utility>

#include <credence/chain/bindings/draft_identity_registry.hpp>
#include <credence/chain/bindings/draft_reputation_registry.hpp>
#include <credence/chain/bindings/draft_validation_registry.hpp>
#include <credence/chain/bindings/score_identity_registry.hpp>
#include <credence/chain/bindings/score_reputation_registry.hpp>
#include <credence/core/decimal_value.hpp>
#include <credence/core/keccak.hpp>
#include <credence/index/projector_rules.hpp>

namespace credence::index::rules {
namespace {

namespace sid = chain::bindings::score_identity_registry;
namespace srep = chain::bindings::score_reputation_registry;
namespace did = chain::bindings::draft_identity_registry;
namespace drep = chain::bindings::draft_reputation_registry;
namespace dval = chain::bindings::draft_validation_registry;

// ---- the intermediate revision ----------------------------------------------------------------

constexpr std::string_view kScoreAgentRevision =
    "UPDATE agents SET revision = 'score' WHERE chain_id = $1 AND registry = $2 AND agent_id = $3";
// ERC-8004 intermediate §Onchain metadata: agentWallet "is initially set to the owner's address",
// and this revision's registration emits no MetadataSet for it (ScoreIdentityRegistry).
constexpr std::string_view kScoreAgentOnRegistered =
    "UPDATE agents SET revision = 'score', wallet = $4 WHERE chain_id = $1 AND registry = $2 AND "
    "agent_id = $3";

constexpr std::string_view kScoreFeedbackUpsert =
    "INSERT INTO feedback (chain_id, registry, agent_id, client, feedback_index, value, "
    "value_decimals, value_wad, normalized, tag1, tag2, endpoint, feedback_uri, feedback_hash, "
    "revoked, revoked_block_num, block_num, log_index, txn_hash, revision) VALUES ($1, $2, $3, $4, "
    "$5, $6, 0, $7, $8, $9, $10, $11, $12, $13, 0, NULL, $14, $15, $16, 'score') ON CONFLICT "
    "(chain_id, registry, agent_id, client, feedback_index) DO UPDATE SET value = excluded.value, "
    "value_decimals = 0, value_wad = excluded.value_wad, normalized = excluded.normalized, "
    "tag1 = excluded.tag1, tag2 = excluded.tag2, endpoint = excluded.endpoint, "
    "feedback_uri = excluded.feedback_uri, feedback_hash = excluded.feedback_hash, revoked = 0, "
    "revoked_block_num = NULL, block_num = excluded.block_num, log_index = excluded.log_index, "
    "txn_hash = excluded.txn_hash, revision = 'score'";
constexpr std::string_view kScoreFeedbackRevoke =
    "UPDATE feedback SET revoked = 1, revoked_block_num = $6 WHERE chain_id = $1 AND registry = $2 "
    "AND agent_id = $3 AND client = $4 AND feedback_index = $5";
constexpr std::string_view kScoreResponseInsert =
    "INSERT INTO feedback_responses (chain_id, registry, agent_id, client, feedback_index, "
    "block_num, log_index, responder, response_uri, response_hash, txn_hash) VALUES ($1, $2, $3, "
    "$4, $5, $6, $7, $8, $9, $10, $11)";
constexpr std::string_view kScoreRequestRevision =
    "UPDATE validation_requests SET revision = 'score' WHERE chain_id = $1 AND registry = $2 AND "
    "request_hash = $3";

/// The statement `sql` over the projection's key ($1 chain, $2 contract, $3 entity).
ProjectionStatement keyed(const LogInput& in, std::string_view sql, const core::Bytes& entity) {
    return {sql, key_params(in, blob(entity))};
}

// ERC-4906 MetadataUpdate / BatchMetadataUpdate (OpenZeppelin's URIStorage in this revision's
// registry): no projection of their own, kept in contract_events.
RuleResult on_score_metadata_update(const LogInput& in) {
    auto ev = sid::decode_metadata_update_event(in.log->topics, in.log->data);
    if (!ev) return std::unexpected(decode_failure("MetadataUpdate", ev.error()));
    return generic_event(in, "MetadataUpdate", entity_of(ev->token_id), {},
                         JsonArgs().uint("_tokenId", ev->token_id).done());
}

RuleResult on_score_batch_metadata_update(const LogInput& in) {
    auto ev = sid::decode_batch_metadata_update_event(in.log->topics, in.log->data);
    if (!ev) return std::unexpected(decode_failure("BatchMetadataUpdate", ev.error()));
    return generic_event(in, "BatchMetadataUpdate", {}, {},
                         JsonArgs()
                             .uint("_fromTokenId", ev->from_token_id)
                             .uint("_toTokenId", ev->to_token_id)
                             .done());
}

// ERC-8004 intermediate NewFeedback: one feedback row with value = score, valueDecimals = 0 (the
// current revision's model holds a score exactly so). tag1 is an indexed string here, so the log
// carries only its keccak256: the text is readFeedback's at the log's block (the log's detail,
// detail_call), checked against that hash.
RuleResult on_score_new_feedback(const LogInput& in) {
    auto ev = srep::decode_new_feedback_event(in.log->topics, in.log->data);
    if (!ev) return std::unexpected(decode_failure("NewFeedback", ev.error()));
    // ERC-8004 intermediate §Giving Feedback: the score MUST be between 0 and 100.
    if (ev->score > 100) {
        return std::unexpected("NewFeedback: score " + std::to_string(ev->score) +
                               " is outside 0..100");
    }
    std::string tag1;
    if (!in.detail.empty()) {
        auto read = srep::decode_read_feedback_result(in.detail);
        if (!read) return std::unexpected(decode_failure("NewFeedback readFeedback", read.error()));
        if (core::keccak256(read->tag1) != ev->tag1) {
            return std::unexpected(
                std::string("NewFeedback: readFeedback's tag1 does not hash to the log's topic"));
        }
        tag1 = std::move(read->tag1);
    } else if (ev->tag1 != core::keccak256(std::string_view())) {
        return std::unexpected(std::string(
            "NewFeedback: tag1 is indexed (the log holds its hash only) and readFeedback at the "
            "log's block was not read"));
    }
    const core::Int256 score(static_cast<int64_t>(ev->score));
    auto dv = core::make_decimal_value(score, 0);
    if (!dv) return std::unexpected(std::string("NewFeedback: score does not convert"));
    Projection out{"NewFeedback", entity_of(ev->agent_id), {}};
    auto p = key_params(in, blob(ev->agent_id));
    p.emplace_back(blob(ev->client_address));
    p.emplace_back(integer(ev->feedback_index));
    p.emplace_back(score.to_dec());
    p.emplace_back(core::to_wad(*dv).to_dec());
    p.emplace_back(static_cast<double>(ev->score));
    p.emplace_back(std::move(tag1));
    p.emplace_back(std::move(ev->tag2));
    p.emplace_back(std::move(ev->endpoint));
    p.emplace_back(std::move(ev->feedback_uri));
    p.emplace_back(blob(ev->feedback_hash));
    p.emplace_back(integer(in.log->block_num));
    p.emplace_back(integer(in.log->log_index));
    p.emplace_back(blob(in.log->txn_hash));
    out.statements.push_back({kScoreFeedbackUpsert, std::move(p)});
    return out;
}

// ERC-8004 intermediate FeedbackRevoked (the current revision's event): feedback.revoked := 1.
RuleResult on_score_feedback_revoked(const LogInput& in) {
    auto ev = srep::decode_feedback_revoked_event(in.log->topics, in.log->data);
    if (!ev) return std::unexpected(decode_failure("FeedbackRevoked", ev.error()));
    Projection out{"FeedbackRevoked", entity_of(ev->agent_id), {}};
    auto p = key_params(in, blob(ev->agent_id));
    p.emplace_back(blob(ev->client_address));
    p.emplace_back(integer(ev->feedback_index));
    p.emplace_back(integer(in.log->block_num));
    out.statements.push_back({kScoreFeedbackRevoke, std::move(p)});
    return out;
}

// ERC-8004 intermediate ResponseAppended: one feedback_responses row. This revision's event has no
// responseHash (appendResponse takes one, the registry neither emits nor stores it), so the row's
// response_hash is the zero hash, the current model's "none".
RuleResult on_score_response_appended(const LogInput& in) {
    auto ev = srep::decode_response_appended_event(in.log->topics, in.log->data);
    if (!ev) return std::unexpected(decode_failure("ResponseAppended", ev.error()));
    Projection out{"ResponseAppended", entity_of(ev->agent_id), {}};
    auto p = key_params(in, blob(ev->agent_id));
    p.emplace_back(blob(ev->client_address));
    p.emplace_back(integer(ev->feedback_index));
    p.emplace_back(integer(in.log->block_num));
    p.emplace_back(integer(in.log->log_index));
    p.emplace_back(blob(ev->responder));
    p.emplace_back(std::move(ev->response_uri));
    p.emplace_back(blob(core::Hash32{}));
    p.emplace_back(blob(in.log->txn_hash));
    out.statements.push_back({kScoreResponseInsert, std::move(p)});
    return out;
}

// ---- the first draft --------------------------------------------------------------------------

// AgentAddress is both the agent's identifier and the only address that may write
// (ERC-8004 first draft §Identity Registry, Write Endpoints), so it is the row's owner too.
constexpr std::string_view kDraftAgentOnRegistered =
    "INSERT INTO agents (chain_id, registry, agent_id, owner, agent_address, agent_domain, "
    "revision, registered_block_num, registered_txn_hash, updated_block_num, updated_log_index) "
    "VALUES ($1, $2, $3, $4, $4, $5, 'draft', $6, $7, $6, $8) ON CONFLICT (chain_id, registry, "
    "agent_id) DO UPDATE SET owner = excluded.owner, agent_address = excluded.agent_address, "
    "agent_domain = excluded.agent_domain, revision = 'draft', "
    "registered_block_num = excluded.registered_block_num, "
    "registered_txn_hash = excluded.registered_txn_hash, "
    "updated_block_num = excluded.updated_block_num, updated_log_index = "
    "excluded.updated_log_index";
constexpr std::string_view kDraftAgentOnUpdated =
    "INSERT INTO agents (chain_id, registry, agent_id, owner, agent_address, agent_domain, "
    "revision, updated_block_num, updated_log_index) VALUES ($1, $2, $3, $4, $4, $5, 'draft', $6, "
    "$7) ON CONFLICT (chain_id, registry, agent_id) DO UPDATE SET owner = excluded.owner, "
    "agent_address = excluded.agent_address, agent_domain = excluded.agent_domain, "
    "revision = 'draft', updated_block_num = excluded.updated_block_num, "
    "updated_log_index = excluded.updated_log_index";
constexpr std::string_view kDraftHistoryInsert =
    "INSERT INTO agent_history (chain_id, registry, agent_id, block_num, log_index, event, "
    "txn_hash, actor, target, text_value, bytes_value) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, "
    "NULL, $9, NULL)";

// ERC-8004 first draft §Validation Registry: a request stores the tuple (AgentValidatorID,
// AgentServerID, DataHash); DraftValidationRegistry replaces an expired or answered one, response
// included, so a new request under a DataHash starts the row afresh.
constexpr std::string_view kDraftRequestUpsert =
    "INSERT INTO validation_requests (chain_id, registry, request_hash, validator, agent_id, "
    "request_uri, block_num, log_index, txn_hash, response_count, revision, validator_agent_id) "
    "VALUES ($1, $2, $3, $4, $5, NULL, $6, $7, $8, 0, 'draft', $9) ON CONFLICT (chain_id, "
    "registry, request_hash) DO UPDATE SET validator = excluded.validator, "
    "agent_id = excluded.agent_id, request_uri = NULL, block_num = excluded.block_num, "
    "log_index = excluded.log_index, txn_hash = excluded.txn_hash, response = NULL, "
    "response_uri = NULL, response_hash = NULL, response_tag = NULL, response_block_num = NULL, "
    "response_count = 0, revision = 'draft', validator_agent_id = excluded.validator_agent_id";
// The draft's response has no URI, hash or tag: '' and the zero hash, the current model's "none".
constexpr std::string_view kDraftRequestOnResponse =
    "INSERT INTO validation_requests (chain_id, registry, request_hash, validator, agent_id, "
    "response, response_uri, response_hash, response_tag, response_block_num, response_count, "
    "revision, validator_agent_id) VALUES ($1, $2, $3, $4, $5, $6, '', $7, '', $8, 1, 'draft', "
    "$9) ON CONFLICT (chain_id, registry, request_hash) DO UPDATE SET "
    "response = excluded.response, response_uri = '', response_hash = excluded.response_hash, "
    "response_tag = '', response_block_num = excluded.response_block_num, "
    "response_count = validation_requests.response_count + 1";
constexpr std::string_view kDraftResponseInsert =
    "INSERT INTO validation_responses (chain_id, registry, request_hash, block_num, log_index, "
    "validator, agent_id, response, response_uri, response_hash, tag, txn_hash, "
    "validator_agent_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, '', $9, '', $10, $11)";

/// The draft's validator column: the zero address (validators are agent ids there).
DbValue draft_validator() { return blob(core::Address{}); }

ProjectionStatement draft_history(const LogInput& in, const core::Uint256& agent_id,
                                  std::string_view event, const core::Address& agent_address,
                                  std::string domain) {
    auto p = key_params(in, blob(agent_id));
    p.emplace_back(integer(in.log->block_num));
    p.emplace_back(integer(in.log->log_index));
    p.emplace_back(std::string(event));
    p.emplace_back(blob(in.log->txn_hash));
    p.emplace_back(blob(agent_address));
    p.emplace_back(std::move(domain));
    return {kDraftHistoryInsert, std::move(p)};
}

// ERC-8004 first draft New(AgentDomain, AgentAddress) → AgentID: the agents row with the draft's
// own fields (agent_domain, agent_address) and owner = AgentAddress; agent_uri stays NULL.
RuleResult on_draft_agent_registered(const LogInput& in) {
    auto ev = did::decode_agent_registered_event(in.log->topics, in.log->data);
    if (!ev) return std::unexpected(decode_failure("AgentRegistered", ev.error()));
    Projection out{"AgentRegistered", entity_of(ev->agent_id), {}};
    auto p = key_params(in, blob(ev->agent_id));
    p.emplace_back(blob(ev->agent_address));
    p.emplace_back(ev->agent_domain);
    p.emplace_back(integer(in.log->block_num));
    p.emplace_back(blob(in.log->txn_hash));
    p.emplace_back(integer(in.log->log_index));
    out.statements.push_back({kDraftAgentOnRegistered, std::move(p)});
    out.statements.push_back(draft_history(in, ev->agent_id, "AgentRegistered", ev->agent_address,
                                           std::move(ev->agent_domain)));
    return out;
}

// ERC-8004 first draft Update(AgentID, NewAgentDomain, NewAgentAddress): the event carries the
// values after the update, so the row takes them as they are.
RuleResult on_draft_agent_updated(const LogInput& in) {
    auto ev = did::decode_agent_updated_event(in.log->topics, in.log->data);
    if (!ev) return std::unexpected(decode_failure("AgentUpdated", ev.error()));
    Projection out{"AgentUpdated", entity_of(ev->agent_id), {}};
    auto p = key_params(in, blob(ev->agent_id));
    p.emplace_back(blob(ev->agent_address));
    p.emplace_back(ev->agent_domain);
    p.emplace_back(integer(in.log->block_num));
    p.emplace_back(integer(in.log->log_index));
    out.statements.push_back({kDraftAgentOnUpdated, std::move(p)});
    out.statements.push_back(draft_history(in, ev->agent_id, "AgentUpdated", ev->agent_address,
                                           std::move(ev->agent_domain)));
    return out;
}

// ERC-8004 first draft AuthFeedback(AgentClientID, AgentServerID, FeedbackAuthID): the server's
// authorization for one task's feedback, which itself lives off-chain. Not a rating, so not a
// feedback row: a contract_events row of the server agent.
RuleResult on_draft_auth_feedback(const LogInput& in) {
    auto ev = drep::decode_auth_feedback_event(in.log->topics, in.log->data);
    if (!ev) return std::unexpected(decode_failure("AuthFeedback", ev.error()));
    return generic_event(in, "AuthFeedback", entity_of(ev->agent_server_id), {},
                         JsonArgs()
                             .uint("agentClientId", ev->agent_client_id)
                             .uint("agentServerId", ev->agent_server_id)
                             .hex("feedbackAuthId", ev->feedback_auth_id)
                             .done());
}

// ERC-8004 first draft ValidationRequest(AgentValidatorID, AgentServerID, DataHash): a
// validation_requests row keyed by DataHash, agent_id = AgentServerID.
RuleResult on_draft_validation_request(const LogInput& in) {
    auto ev = dval::decode_validation_request_event(in.log->topics, in.log->data);
    if (!ev) return std::unexpected(decode_failure("ValidationRequest", ev.error()));
    Projection out{"ValidationRequest", entity_of(ev->data_hash), {}};
    auto p = key_params(in, blob(ev->data_hash));
    p.emplace_back(draft_validator());
    p.emplace_back(blob(ev->agent_server_id));
    p.emplace_back(integer(in.log->block_num));
    p.emplace_back(integer(in.log->log_index));
    p.emplace_back(blob(in.log->txn_hash));
    p.emplace_back(blob(ev->agent_validator_id));
    out.statements.push_back({kDraftRequestUpsert, std::move(p)});
    return out;
}

// ERC-8004 first draft ValidationResponse(AgentValidatorID, AgentServerID, DataHash, Response):
// the request's response (0..100) and one validation_responses row.
RuleResult on_draft_validation_response(const LogInput& in) {
    auto ev = dval::decode_validation_response_event(in.log->topics, in.log->data);
    if (!ev) return std::unexpected(decode_failure("ValidationResponse", ev.error()));
    // ERC-8004 first draft §Validation Responses: Response is an Int 0 ≤ x ≤ 100.
    if (ev->response > 100) {
        return std::unexpected("ValidationResponse: response " + std::to_string(ev->response) +
                               " is outside 0..100");
    }
    Projection out{"ValidationResponse", entity_of(ev->data_hash), {}};
    auto p = key_params(in, blob(ev->data_hash));
    p.emplace_back(draft_validator());
    p.emplace_back(blob(ev->agent_server_id));
    p.emplace_back(integer(ev->response));
    p.emplace_back(blob(core::Hash32{}));
    p.emplace_back(integer(in.log->block_num));
    p.emplace_back(blob(ev->agent_validator_id));
    out.statements.push_back({kDraftRequestOnResponse, std::move(p)});
    p = key_params(in, blob(ev->data_hash));
    p.emplace_back(integer(in.log->block_num));
    p.emplace_back(integer(in.log->log_index));
    p.emplace_back(draft_validator());
    p.emplace_back(blob(ev->agent_server_id));
    p.emplace_back(integer(ev->response));
    p.emplace_back(blob(core::Hash32{}));
    p.emplace_back(blob(in.log->txn_hash));
    p.emplace_back(blob(ev->agent_validator_id));
    out.statements.push_back({kDraftResponseInsert, std::move(p)});
    return out;
}

}  // namespace

RuleResult project_identity_score(const LogInput& in) {
    const core::Hash32& t = in.log->topics[0];
    if (t == sid::kMetadataUpdateTopic) return on_score_metadata_update(in);
    if (t == sid::kBatchMetadataUpdateTopic) return on_score_batch_metadata_update(in);
    // Every other event has the current registry's topic0 and shape (the vector file's
    // intermediate IdentityRegistry): the current rules, then the revision's own differences.
    auto out = project_identity(in);
    if (!out) return out;
    if (out->event == "ApprovalForAll" || out->event == "EIP712DomainChanged") return out;
    if (out->event == "Registered") {
        auto ev = sid::decode_registered_event(in.log->topics, in.log->data);
        if (!ev) return std::unexpected(decode_failure("Registered", ev.error()));
        auto p = key_params(in, blob(out->entity));
        p.emplace_back(blob(ev->owner));
        out->statements.push_back({kScoreAgentOnRegistered, std::move(p)});
        return out;
    }
    out->statements.push_back(keyed(in, kScoreAgentRevision, out->entity));
    return out;
}

RuleResult project_reputation_score(const LogInput& in) {
    const core::Hash32& t = in.log->topics[0];
    if (t == srep::kNewFeedbackTopic) return on_score_new_feedback(in);
    if (t == srep::kFeedbackRevokedTopic) return on_score_feedback_revoked(in);
    if (t == srep::kResponseAppendedTopic) return on_score_response_appended(in);
    return std::unexpected(unknown_event("reputation-score", *in.log));
}

RuleResult project_validation_score(const LogInput& in) {
    // The intermediate revision's events are the current ones (same topic0 and fields).
    auto out = project_validation(in);
    if (!out) return out;
    out->statements.push_back(keyed(in, kScoreRequestRevision, out->entity));
    return out;
}

RuleResult project_identity_draft(const LogInput& in) {
    const core::Hash32& t = in.log->topics[0];
    if (t == did::kAgentRegisteredTopic) return on_draft_agent_registered(in);
    if (t == did::kAgentUpdatedTopic) return on_draft_agent_updated(in);
    return std::unexpected(unknown_event("identity-draft", *in.log));
}

RuleResult project_reputation_draft(const LogInput& in) {
    if (in.log->topics[0] == drep::kAuthFeedbackTopic) return on_draft_auth_feedback(in);
    return std::unexpected(unknown_event("reputation-draft", *in.log));
}

RuleResult project_validation_draft(const LogInput& in) {
    const core::Hash32& t = in.log->topics[0];
    if (t == dval::kValidationRequestTopic) return on_draft_validation_request(in);
    if (t == dval::kValidationResponseTopic) return on_draft_validation_response(in);
    return std::unexpected(unknown_event("validation-draft", *in.log));
}

std::optional<chain::CallRequest> score_feedback_detail_call(const RawLog& log) {
    // NewFeedback(agentId, clientAddress, tag1 indexed): feedbackIndex is in the data.
    if (log.topics.size() != 4 || log.topics[0] != srep::kNewFeedbackTopic) return std::nullopt;
    auto ev = srep::decode_new_feedback_event(log.topics, log.data);
    if (!ev) return std::nullopt;
    auto data = srep::read_feedback(ev->agent_id, ev->client_address, ev->feedback_index);
    if (!data) return std::nullopt;
    chain::CallRequest call;
    call.to = log.address;
    call.data = std::move(*data);
    return call;
}

}  // namespace credence::index::rules
