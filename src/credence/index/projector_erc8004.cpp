// Projection rules of the three ERC-8004 registries (projector.hpp): identity (with its ERC-721
// events), reputation and validation. Each rule names the event it projects.
#include <cstdlib>
#include <string>

#include <credence/chain/bindings/identity_registry.hpp>
#include <credence/chain/bindings/reputation_registry.hpp>
#include <credence/chain/bindings/validation_registry.hpp>
#include <credence/core/decimal_value.hpp>
#include <credence/index/projector_rules.hpp>

namespace credence::index::rules {
namespace {

namespace idr = chain::bindings::identity_registry;
namespace rep = chain::bindings::reputation_registry;
namespace val = chain::bindings::validation_registry;

/// ERC-8004 §Identity Registry: the wallet is the reserved metadata key "agentWallet" (20 bytes,
/// or empty when unset / cleared by a transfer).
constexpr std::string_view kAgentWalletKey = "agentWallet";

// agents: each statement is an upsert, so the first log seen of an agent (Transfer at mint, or
// any later event when indexing starts after the registration) creates the row.
constexpr std::string_view kAgentOnTransfer =
    "INSERT INTO agents (chain_id, registry, agent_id, owner, updated_block_num, "
    "updated_log_index) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (chain_id, registry, agent_id) "
    "DO UPDATE SET owner = excluded.owner, wallet = NULL, approved = NULL, "
    "updated_block_num = excluded.updated_block_num, updated_log_index = "
    "excluded.updated_log_index";
constexpr std::string_view kAgentOnRegistered =
    "INSERT INTO agents (chain_id, registry, agent_id, owner, agent_uri, registered_block_num, "
    "registered_txn_hash, updated_block_num, updated_log_index) VALUES ($1, $2, $3, $4, $5, $6, "
    "$7, $6, $8) ON CONFLICT (chain_id, registry, agent_id) DO UPDATE SET owner = excluded.owner, "
    "agent_uri = excluded.agent_uri, registered_block_num = excluded.registered_block_num, "
    "registered_txn_hash = excluded.registered_txn_hash, "
    "updated_block_num = excluded.updated_block_num, updated_log_index = "
    "excluded.updated_log_index";
constexpr std::string_view kAgentOnUri =
    "INSERT INTO agents (chain_id, registry, agent_id, agent_uri, updated_block_num, "
    "updated_log_index) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (chain_id, registry, agent_id) "
    "DO UPDATE SET agent_uri = excluded.agent_uri, updated_block_num = excluded.updated_block_num, "
    "updated_log_index = excluded.updated_log_index";
constexpr std::string_view kAgentOnWallet =
    "INSERT INTO agents (chain_id, registry, agent_id, wallet, updated_block_num, "
    "updated_log_index) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (chain_id, registry, agent_id) "
    "DO UPDATE SET wallet = excluded.wallet, updated_block_num = excluded.updated_block_num, "
    "updated_log_index = excluded.updated_log_index";
constexpr std::string_view kAgentOnApproval =
    "INSERT INTO agents (chain_id, registry, agent_id, owner, approved, updated_block_num, "
    "updated_log_index) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (chain_id, registry, "
    "agent_id) DO UPDATE SET approved = excluded.approved, "
    "updated_block_num = excluded.updated_block_num, updated_log_index = "
    "excluded.updated_log_index";
constexpr std::string_view kMetadataUpsert =
    "INSERT INTO agent_metadata (chain_id, registry, agent_id, metadata_key, metadata_value, "
    "block_num, log_index) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (chain_id, registry, "
    "agent_id, metadata_key) DO UPDATE SET metadata_value = excluded.metadata_value, "
    "block_num = excluded.block_num, log_index = excluded.log_index";
constexpr std::string_view kHistoryInsert =
    "INSERT INTO agent_history (chain_id, registry, agent_id, block_num, log_index, event, "
    "txn_hash, actor, target, text_value, bytes_value) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, "
    "$10, $11)";
constexpr std::string_view kTransferInsert =
    "INSERT INTO agent_transfers (chain_id, registry, agent_id, block_num, log_index, "
    "from_address, to_address, txn_hash) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)";
constexpr std::string_view kApprovalInsert =
    "INSERT INTO agent_approvals (chain_id, registry, agent_id, block_num, log_index, owner, "
    "approved, txn_hash) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)";
constexpr std::string_view kOperatorUpsert =
    "INSERT INTO operator_approvals (chain_id, registry, owner, operator, approved, block_num, "
    "log_index) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (chain_id, registry, owner, "
    "operator) DO UPDATE SET approved = excluded.approved, block_num = excluded.block_num, "
    "log_index = excluded.log_index";

/// $1..$3 key, then block_num, log_index.
std::vector<DbValue> at_position(const LogInput& in, DbValue entity_id) {
    auto p = key_params(in, std::move(entity_id));
    p.emplace_back(integer(in.log->block_num));
    p.emplace_back(integer(in.log->log_index));
    return p;
}

ProjectionStatement history(const LogInput& in, const core::Uint256& agent_id,
                            std::string_view event, DbValue actor, DbValue target,
                            DbValue text_value, DbValue bytes_value) {
    auto p = at_position(in, blob(agent_id));
    p.emplace_back(std::string(event));
    p.emplace_back(blob(in.log->txn_hash));
    p.emplace_back(std::move(actor));
    p.emplace_back(std::move(target));
    p.emplace_back(std::move(text_value));
    p.emplace_back(std::move(bytes_value));
    return {kHistoryInsert, std::move(p)};
}

// ERC-721 Transfer (mint or transfer): owner := to; the agent wallet and the token approval are
// cleared (IdentityRegistry._transfer; a mint starts with neither, the wallet's MetadataSet
// follows); one agent_transfers and one agent_history row.
RuleResult on_transfer(const LogInput& in) {
    auto ev = idr::decode_transfer_event(in.log->topics, in.log->data);
    if (!ev) return std::unexpected(decode_failure("Transfer", ev.error()));
    Projection out{"Transfer", entity_of(ev->token_id), {}};
    auto p = at_position(in, blob(ev->token_id));
    p.insert(p.begin() + 3, blob(ev->to));
    out.statements.push_back({kAgentOnTransfer, std::move(p)});
    p = at_position(in, blob(ev->token_id));
    p.emplace_back(blob(ev->from));
    p.emplace_back(blob(ev->to));
    p.emplace_back(blob(in.log->txn_hash));
    out.statements.push_back({kTransferInsert, std::move(p)});
    out.statements.push_back(
        history(in, ev->token_id, "Transfer", blob(ev->from), blob(ev->to), {}, {}));
    return out;
}

// ERC-8004 Registered: owner and agentURI (tokenURI), registration block and transaction.
RuleResult on_registered(const LogInput& in) {
    auto ev = idr::decode_registered_event(in.log->topics, in.log->data);
    if (!ev) return std::unexpected(decode_failure("Registered", ev.error()));
    Projection out{"Registered", entity_of(ev->agent_id), {}};
    auto p = key_params(in, blob(ev->agent_id));
    p.emplace_back(blob(ev->owner));
    p.emplace_back(ev->agent_uri);
    p.emplace_back(integer(in.log->block_num));
    p.emplace_back(blob(in.log->txn_hash));
    p.emplace_back(integer(in.log->log_index));
    out.statements.push_back({kAgentOnRegistered, std::move(p)});
    out.statements.push_back(
        history(in, ev->agent_id, "Registered", blob(ev->owner), {}, ev->agent_uri, {}));
    return out;
}

// ERC-8004 URIUpdated: agentURI := newURI.
RuleResult on_uri_updated(const LogInput& in) {
    auto ev = idr::decode_uri_updated_event(in.log->topics, in.log->data);
    if (!ev) return std::unexpected(decode_failure("URIUpdated", ev.error()));
    Projection out{"URIUpdated", entity_of(ev->agent_id), {}};
    auto p = key_params(in, blob(ev->agent_id));
    p.emplace_back(ev->new_uri);
    p.emplace_back(integer(in.log->block_num));
    p.emplace_back(integer(in.log->log_index));
    out.statements.push_back({kAgentOnUri, std::move(p)});
    out.statements.push_back(
        history(in, ev->agent_id, "URIUpdated", blob(ev->updated_by), {}, ev->new_uri, {}));
    return out;
}

// ERC-8004 MetadataSet: agent_metadata[key] := value (getMetadata); for the reserved
// "agentWallet" key also agents.wallet := the 20-byte value, or NULL when empty (unset).
RuleResult on_metadata_set(const LogInput& in) {
    auto ev = idr::decode_metadata_set_event(in.log->topics, in.log->data);
    if (!ev) return std::unexpected(decode_failure("MetadataSet", ev.error()));
    Projection out{"MetadataSet", entity_of(ev->agent_id), {}};
    auto p = key_params(in, blob(ev->agent_id));
    p.emplace_back(ev->metadata_key);
    p.emplace_back(blob(ev->metadata_value));
    p.emplace_back(integer(in.log->block_num));
    p.emplace_back(integer(in.log->log_index));
    out.statements.push_back({kMetadataUpsert, std::move(p)});
    if (ev->metadata_key == kAgentWalletKey) {
        p = key_params(in, blob(ev->agent_id));
        p.emplace_back(ev->metadata_value.size() == 20 ? blob(ev->metadata_value) : DbValue{});
        p.emplace_back(integer(in.log->block_num));
        p.emplace_back(integer(in.log->log_index));
        out.statements.push_back({kAgentOnWallet, std::move(p)});
    }
    out.statements.push_back(history(in, ev->agent_id, "MetadataSet", {}, {}, ev->metadata_key,
                                     blob(ev->metadata_value)));
    return out;
}

// ERC-721 Approval: agents.approved := approved (NULL for the zero address); one
// agent_approvals row.
RuleResult on_approval(const LogInput& in) {
    auto ev = idr::decode_approval_event(in.log->topics, in.log->data);
    if (!ev) return std::unexpected(decode_failure("Approval", ev.error()));
    Projection out{"Approval", entity_of(ev->token_id), {}};
    auto p = key_params(in, blob(ev->token_id));
    p.emplace_back(blob(ev->owner));
    p.emplace_back(blob_or_null(ev->approved));
    p.emplace_back(integer(in.log->block_num));
    p.emplace_back(integer(in.log->log_index));
    out.statements.push_back({kAgentOnApproval, std::move(p)});
    p = at_position(in, blob(ev->token_id));
    p.emplace_back(blob(ev->owner));
    p.emplace_back(blob(ev->approved));
    p.emplace_back(blob(in.log->txn_hash));
    out.statements.push_back({kApprovalInsert, std::move(p)});
    return out;
}

// ERC-721 ApprovalForAll: operator_approvals[owner][operator] := approved (isApprovedForAll).
// Entity: the owner, since the approval is not tied to one agent.
RuleResult on_approval_for_all(const LogInput& in) {
    auto ev = idr::decode_approval_for_all_event(in.log->topics, in.log->data);
    if (!ev) return std::unexpected(decode_failure("ApprovalForAll", ev.error()));
    Projection out{"ApprovalForAll", entity_of(ev->owner), {}};
    auto p = key_params(in, blob(ev->owner));
    p.emplace_back(blob(ev->operator_));
    p.emplace_back(flag(ev->approved));
    p.emplace_back(integer(in.log->block_num));
    p.emplace_back(integer(in.log->log_index));
    out.statements.push_back({kOperatorUpsert, std::move(p)});
    return out;
}

// EIP712DomainChanged (OpenZeppelin EIP712): no projection of its own, kept in contract_events.
RuleResult on_domain_changed(const LogInput& in) {
    auto ev = idr::decode_eip712_domain_changed_event(in.log->topics, in.log->data);
    if (!ev) return std::unexpected(decode_failure("EIP712DomainChanged", ev.error()));
    return generic_event(in, "EIP712DomainChanged", {}, {}, "{}");
}

// ---- reputation ----

constexpr std::string_view kFeedbackUpsertHead =
    "INSERT INTO feedback (chain_id, registry, agent_id, client, feedback_index, value, "
    "value_decimals, value_wad, normalized, tag1, tag2, endpoint, feedback_uri, feedback_hash, "
    "revoked, revoked_block_num, block_num, log_index, txn_hash) VALUES ";
constexpr std::string_view kFeedbackUpsertRow =
    "($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, 0, NULL, $15, $16, $17)";
constexpr std::string_view kFeedbackUpsertTail =
    " ON CONFLICT (chain_id, registry, agent_id, client, feedback_index) DO UPDATE SET "
    "value = excluded.value, value_decimals = excluded.value_decimals, "
    "value_wad = excluded.value_wad, normalized = excluded.normalized, tag1 = excluded.tag1, "
    "tag2 = excluded.tag2, endpoint = excluded.endpoint, feedback_uri = excluded.feedback_uri, "
    "feedback_hash = excluded.feedback_hash, revoked = 0, revoked_block_num = NULL, "
    "block_num = excluded.block_num, log_index = excluded.log_index, txn_hash = excluded.txn_hash";
constexpr std::string_view kFeedbackRevoke =
    "UPDATE feedback SET revoked = 1, revoked_block_num = $6 WHERE chain_id = $1 AND registry = $2 "
    "AND agent_id = $3 AND client = $4 AND feedback_index = $5";
constexpr std::string_view kResponseInsert =
    "INSERT INTO feedback_responses (chain_id, registry, agent_id, client, feedback_index, "
    "block_num, log_index, responder, response_uri, response_hash, txn_hash) VALUES ($1, $2, $3, "
    "$4, $5, $6, $7, $8, $9, $10, $11)";

// ERC-8004 NewFeedback: one feedback row. value is kept exact (int128 as a decimal integer) with
// value_decimals; value_wad = value * 10^(18 - decimals) (getSummary's scale) and normalized =
// value / 10^decimals as the double nearest to the exact decimal. ERC-8004 §Giving Feedback:
// valueDecimals MUST be 0..18; a log outside the deployed registry's bounds is rejected.
RuleResult on_new_feedback(const LogInput& in) {
    auto ev = rep::decode_new_feedback_event(in.log->topics, in.log->data);
    if (!ev) return std::unexpected(decode_failure("NewFeedback", ev.error()));
    auto dv = core::make_decimal_value(ev->value, static_cast<unsigned>(ev->value_decimals));
    if (!dv) {
        return std::unexpected("NewFeedback: value " + ev->value.to_dec() + " with " +
                               std::to_string(ev->value_decimals) +
                               " decimals: " + std::string(core::to_string(dv.error().code)));
    }
    const std::string exact = core::format_decimal_value(*dv);
    Projection out{"NewFeedback", entity_of(ev->agent_id), {}};
    auto p = key_params(in, blob(ev->agent_id));
    p.emplace_back(blob(ev->client_address));
    p.emplace_back(integer(ev->feedback_index));
    p.emplace_back(ev->value.to_dec());
    p.emplace_back(integer(ev->value_decimals));
    p.emplace_back(core::to_wad(*dv).to_dec());
    p.emplace_back(std::strtod(exact.c_str(), nullptr));
    p.emplace_back(std::move(ev->tag1));
    p.emplace_back(std::move(ev->tag2));
    p.emplace_back(std::move(ev->endpoint));
    p.emplace_back(std::move(ev->feedback_uri));
    p.emplace_back(blob(ev->feedback_hash));
    p.emplace_back(integer(in.log->block_num));
    p.emplace_back(integer(in.log->log_index));
    p.emplace_back(blob(in.log->txn_hash));
    out.statements.push_back({feedback_upsert().sql, std::move(p)});
    return out;
}

// ERC-8004 FeedbackRevoked: feedback.revoked := 1 (readFeedback's isRevoked).
RuleResult on_feedback_revoked(const LogInput& in) {
    auto ev = rep::decode_feedback_revoked_event(in.log->topics, in.log->data);
    if (!ev) return std::unexpected(decode_failure("FeedbackRevoked", ev.error()));
    Projection out{"FeedbackRevoked", entity_of(ev->agent_id), {}};
    auto p = key_params(in, blob(ev->agent_id));
    p.emplace_back(blob(ev->client_address));
    p.emplace_back(integer(ev->feedback_index));
    p.emplace_back(integer(in.log->block_num));
    out.statements.push_back({kFeedbackRevoke, std::move(p)});
    return out;
}

// ERC-8004 ResponseAppended: one feedback_responses row (responses are append-only).
RuleResult on_response_appended(const LogInput& in) {
    auto ev = rep::decode_response_appended_event(in.log->topics, in.log->data);
    if (!ev) return std::unexpected(decode_failure("ResponseAppended", ev.error()));
    Projection out{"ResponseAppended", entity_of(ev->agent_id), {}};
    auto p = key_params(in, blob(ev->agent_id));
    p.emplace_back(blob(ev->client_address));
    p.emplace_back(integer(ev->feedback_index));
    p.emplace_back(integer(in.log->block_num));
    p.emplace_back(integer(in.log->log_index));
    p.emplace_back(blob(ev->responder));
    p.emplace_back(std::move(ev->response_uri));
    p.emplace_back(blob(ev->response_hash));
    p.emplace_back(blob(in.log->txn_hash));
    out.statements.push_back({kResponseInsert, std::move(p)});
    return out;
}

// ---- validation ----

constexpr std::string_view kRequestUpsert =
    "INSERT INTO validation_requests (chain_id, registry, request_hash, validator, agent_id, "
    "request_uri, block_num, log_index, txn_hash, response_count) VALUES ($1, $2, $3, $4, $5, $6, "
    "$7, $8, $9, 0) ON CONFLICT (chain_id, registry, request_hash) DO UPDATE SET "
    "validator = excluded.validator, agent_id = excluded.agent_id, "
    "request_uri = excluded.request_uri, block_num = excluded.block_num, "
    "log_index = excluded.log_index, txn_hash = excluded.txn_hash";
constexpr std::string_view kRequestOnResponse =
    "INSERT INTO validation_requests (chain_id, registry, request_hash, validator, agent_id, "
    "response, response_uri, response_hash, response_tag, response_block_num, response_count) "
    "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 1) ON CONFLICT (chain_id, registry, "
    "request_hash) DO UPDATE SET response = excluded.response, "
    "response_uri = excluded.response_uri, response_hash = excluded.response_hash, "
    "response_tag = excluded.response_tag, response_block_num = excluded.response_block_num, "
    "response_count = validation_requests.response_count + 1";
constexpr std::string_view kValidationResponseInsert =
    "INSERT INTO validation_responses (chain_id, registry, request_hash, block_num, log_index, "
    "validator, agent_id, response, response_uri, response_hash, tag, txn_hash) VALUES ($1, $2, "
    "$3, $4, $5, $6, $7, $8, $9, $10, $11, $12)";

// ERC-8004 ValidationRequest: one validation_requests row, keyed by requestHash.
RuleResult on_validation_request(const LogInput& in) {
    auto ev = val::decode_validation_request_event(in.log->topics, in.log->data);
    if (!ev) return std::unexpected(decode_failure("ValidationRequest", ev.error()));
    Projection out{"ValidationRequest", entity_of(ev->request_hash), {}};
    auto p = key_params(in, blob(ev->request_hash));
    p.emplace_back(blob(ev->validator_address));
    p.emplace_back(blob(ev->agent_id));
    p.emplace_back(std::move(ev->request_uri));
    p.emplace_back(integer(in.log->block_num));
    p.emplace_back(integer(in.log->log_index));
    p.emplace_back(blob(in.log->txn_hash));
    out.statements.push_back({kRequestUpsert, std::move(p)});
    return out;
}

// ERC-8004 ValidationResponse: the request's latest response (getValidationStatus) := this one,
// response_count + 1; one validation_responses row (the history; a validator may respond more
// than once, e.g. soft then hard finality).
RuleResult on_validation_response(const LogInput& in) {
    auto ev = val::decode_validation_response_event(in.log->topics, in.log->data);
    if (!ev) return std::unexpected(decode_failure("ValidationResponse", ev.error()));
    Projection out{"ValidationResponse", entity_of(ev->request_hash), {}};
    auto p = key_params(in, blob(ev->request_hash));
    p.emplace_back(blob(ev->validator_address));
    p.emplace_back(blob(ev->agent_id));
    p.emplace_back(integer(ev->response));
    p.emplace_back(ev->response_uri);
    p.emplace_back(blob(ev->response_hash));
    p.emplace_back(ev->tag);
    p.emplace_back(integer(in.log->block_num));
    out.statements.push_back({kRequestOnResponse, std::move(p)});
    p = at_position(in, blob(ev->request_hash));
    p.emplace_back(blob(ev->validator_address));
    p.emplace_back(blob(ev->agent_id));
    p.emplace_back(integer(ev->response));
    p.emplace_back(std::move(ev->response_uri));
    p.emplace_back(blob(ev->response_hash));
    p.emplace_back(std::move(ev->tag));
    p.emplace_back(blob(in.log->txn_hash));
    out.statements.push_back({kValidationResponseInsert, std::move(p)});
    return out;
}

}  // namespace

RuleResult project_identity(const LogInput& in) {
    const core::Hash32& t = in.log->topics[0];
    if (t == idr::kTransferTopic) return on_transfer(in);
    if (t == idr::kMetadataSetTopic) return on_metadata_set(in);
    if (t == idr::kRegisteredTopic) return on_registered(in);
    if (t == idr::kUriUpdatedTopic) return on_uri_updated(in);
    if (t == idr::kApprovalTopic) return on_approval(in);
    if (t == idr::kApprovalForAllTopic) return on_approval_for_all(in);
    if (t == idr::kEip712DomainChangedTopic) return on_domain_changed(in);
    return std::unexpected(unknown_event("identity", *in.log));
}

RuleResult project_reputation(const LogInput& in) {
    const core::Hash32& t = in.log->topics[0];
    if (t == rep::kNewFeedbackTopic) return on_new_feedback(in);
    if (t == rep::kFeedbackRevokedTopic) return on_feedback_revoked(in);
    if (t == rep::kResponseAppendedTopic) return on_response_appended(in);
    return std::unexpected(unknown_event("reputation", *in.log));
}

RuleResult project_validation(const LogInput& in) {
    const core::Hash32& t = in.log->topics[0];
    if (t == val::kValidationRequestTopic) return on_validation_request(in);
    if (t == val::kValidationResponseTopic) return on_validation_response(in);
    return std::unexpected(unknown_event("validation", *in.log));
}

const MultiRowInsert& feedback_upsert() {
    // The key: chain_id, registry, agent_id, client, feedback_index ($1-$5).
    static const MultiRowInsert kUpsert{kFeedbackUpsertHead,
                                        kFeedbackUpsertRow,
                                        kFeedbackUpsertTail,
                                        17,
                                        5,
                                        std::string(kFeedbackUpsertHead) +
                                            std::string(kFeedbackUpsertRow) +
                                            std::string(kFeedbackUpsertTail)};
    return kUpsert;
}

}  // namespace credence::index::rules
