// Dispatch by contract kind (ERC-8004's three registries of each revision, ERC-8257, ERC-8301,
// ERC-8274), the event catalog, the per-kind entity deletes and the helpers
// shared by the projection rules (projector.hpp).
#include <credence/index/projector.hpp>

#include <array>

#include <fmt/format.h>

#include <credence/chain/bindings/bft_commit_reveal_workflow.hpp>
#include <credence/chain/bindings/competitive_bid_workflow.hpp>
#include <credence/chain/bindings/draft_identity_registry.hpp>
#include <credence/chain/bindings/draft_reputation_registry.hpp>
#include <credence/chain/bindings/draft_validation_registry.hpp>
#include <credence/chain/bindings/ecdsa_attestation_verifier.hpp>
#include <credence/chain/bindings/i_agent_workflow.hpp>
#include <credence/chain/bindings/identity_registry.hpp>
#include <credence/chain/bindings/permissioned_single_stage_workflow.hpp>
#include <credence/chain/bindings/reputation_registry.hpp>
#include <credence/chain/bindings/score_identity_registry.hpp>
#include <credence/chain/bindings/score_reputation_registry.hpp>
#include <credence/chain/bindings/single_stage_workflow.hpp>
#include <credence/chain/bindings/tool_registry.hpp>
#include <credence/chain/bindings/validation_registry.hpp>
#include <credence/index/projector_rules.hpp>

namespace credence::index {
namespace {

namespace idr = chain::bindings::identity_registry;
namespace rep = chain::bindings::reputation_registry;
namespace val = chain::bindings::validation_registry;
namespace tr = chain::bindings::tool_registry;
namespace wf = chain::bindings::i_agent_workflow;
namespace bid = chain::bindings::competitive_bid_workflow;
namespace bft = chain::bindings::bft_commit_reveal_workflow;
namespace perm = chain::bindings::permissioned_single_stage_workflow;
namespace single = chain::bindings::single_stage_workflow;
namespace ver = chain::bindings::ecdsa_attestation_verifier;
namespace sid = chain::bindings::score_identity_registry;
namespace srep = chain::bindings::score_reputation_registry;
namespace did = chain::bindings::draft_identity_registry;
namespace drep = chain::bindings::draft_reputation_registry;
namespace dval = chain::bindings::draft_validation_registry;

constexpr std::array<CatalogEvent, 7> kIdentityCatalog{{
    {idr::kRegisteredTopic, "Registered"},
    {idr::kUriUpdatedTopic, "URIUpdated"},
    {idr::kMetadataSetTopic, "MetadataSet"},
    {idr::kTransferTopic, "Transfer"},
    {idr::kApprovalTopic, "Approval"},
    {idr::kApprovalForAllTopic, "ApprovalForAll"},
    {idr::kEip712DomainChangedTopic, "EIP712DomainChanged"},
}};
constexpr std::array<CatalogEvent, 3> kReputationCatalog{{
    {rep::kNewFeedbackTopic, "NewFeedback"},
    {rep::kFeedbackRevokedTopic, "FeedbackRevoked"},
    {rep::kResponseAppendedTopic, "ResponseAppended"},
}};
constexpr std::array<CatalogEvent, 2> kValidationCatalog{{
    {val::kValidationRequestTopic, "ValidationRequest"},
    {val::kValidationResponseTopic, "ValidationResponse"},
}};
constexpr std::array<CatalogEvent, 4> kToolCatalog{{
    {tr::kToolRegisteredTopic, "ToolRegistered"},
    {tr::kToolMetadataUpdatedTopic, "ToolMetadataUpdated"},
    {tr::kAccessPredicateUpdatedTopic, "AccessPredicateUpdated"},
    {tr::kToolDeregisteredTopic, "ToolDeregistered"},
}};
constexpr std::array<CatalogEvent, 10> kWorkflowCatalog{{
    {wf::kNewAgentTaskTopic, "NewAgentTask"},
    {wf::kAgentReplyAnchoredTopic, "AgentReplyAnchored"},
    {wf::kWorkflowCompletedTopic, "WorkflowCompleted"},
    {bid::kBidAcceptedTopic, "BidAccepted"},
    {bid::kBidDiscardedTopic, "BidDiscarded"},
    {bft::kCommitAcceptedTopic, "CommitAccepted"},
    {bft::kRevealAcceptedTopic, "RevealAccepted"},
    {bft::kReplyDiscardedTopic, "ReplyDiscarded"},
    {perm::kReplierEnrolledTopic, "ReplierEnrolled"},
    {single::kAgentVerifierUpdatedTopic, "AgentVerifierUpdated"},
}};
constexpr std::array<CatalogEvent, 4> kVerifierCatalog{{
    {ver::kVerificationCompletedTopic, "VerificationCompleted"},
    {ver::kAttesterSetTopic, "AttesterSet"},
    {ver::kOwnershipTransferredTopic, "OwnershipTransferred"},
    {ver::kEip712DomainChangedTopic, "EIP712DomainChanged"},
}};

// The earlier ERC-8004 revisions (projector_erc8004_legacy.cpp). The intermediate revision shares
// every identity and validation topic0 and FeedbackRevoked with the current one; its registry also
// emits ERC-4906's MetadataUpdate (OpenZeppelin's URIStorage).
constexpr std::array<CatalogEvent, 9> kIdentityScoreCatalog{{
    {sid::kRegisteredTopic, "Registered"},
    {sid::kUriUpdatedTopic, "URIUpdated"},
    {sid::kMetadataSetTopic, "MetadataSet"},
    {sid::kTransferTopic, "Transfer"},
    {sid::kApprovalTopic, "Approval"},
    {sid::kApprovalForAllTopic, "ApprovalForAll"},
    {sid::kEip712DomainChangedTopic, "EIP712DomainChanged"},
    {sid::kMetadataUpdateTopic, "MetadataUpdate"},
    {sid::kBatchMetadataUpdateTopic, "BatchMetadataUpdate"},
}};
constexpr std::array<CatalogEvent, 3> kReputationScoreCatalog{{
    {srep::kNewFeedbackTopic, "NewFeedback"},
    {srep::kFeedbackRevokedTopic, "FeedbackRevoked"},
    {srep::kResponseAppendedTopic, "ResponseAppended"},
}};
constexpr std::array<CatalogEvent, 2> kIdentityDraftCatalog{{
    {did::kAgentRegisteredTopic, "AgentRegistered"},
    {did::kAgentUpdatedTopic, "AgentUpdated"},
}};
constexpr std::array<CatalogEvent, 1> kReputationDraftCatalog{{
    {drep::kAuthFeedbackTopic, "AuthFeedback"},
}};
constexpr std::array<CatalogEvent, 2> kValidationDraftCatalog{{
    {dval::kValidationRequestTopic, "ValidationRequest"},
    {dval::kValidationResponseTopic, "ValidationResponse"},
}};

// Every kind's generic events live in contract_events, keyed by (address, entity).
constexpr std::string_view kDeleteGeneric =
    "DELETE FROM contract_events WHERE chain_id = $1 AND address = $2 AND entity = $3";

constexpr std::array<std::string_view, 7> kIdentityDeletes{
    "DELETE FROM agents WHERE chain_id = $1 AND registry = $2 AND agent_id = $3",
    "DELETE FROM agent_metadata WHERE chain_id = $1 AND registry = $2 AND agent_id = $3",
    "DELETE FROM agent_history WHERE chain_id = $1 AND registry = $2 AND agent_id = $3",
    "DELETE FROM agent_transfers WHERE chain_id = $1 AND registry = $2 AND agent_id = $3",
    "DELETE FROM agent_approvals WHERE chain_id = $1 AND registry = $2 AND agent_id = $3",
    "DELETE FROM operator_approvals WHERE chain_id = $1 AND registry = $2 AND owner = $3",
    kDeleteGeneric,
};
constexpr std::array<std::string_view, 3> kReputationDeletes{
    "DELETE FROM feedback WHERE chain_id = $1 AND registry = $2 AND agent_id = $3",
    "DELETE FROM feedback_responses WHERE chain_id = $1 AND registry = $2 AND agent_id = $3",
    kDeleteGeneric,
};
constexpr std::array<std::string_view, 3> kValidationDeletes{
    "DELETE FROM validation_requests WHERE chain_id = $1 AND registry = $2 AND request_hash = $3",
    "DELETE FROM validation_responses WHERE chain_id = $1 AND registry = $2 AND request_hash = $3",
    kDeleteGeneric,
};
// The first draft's identity registry writes agents and agent_history only; its reputation registry
// writes contract_events only (AuthFeedback).
constexpr std::array<std::string_view, 3> kIdentityDraftDeletes{
    "DELETE FROM agents WHERE chain_id = $1 AND registry = $2 AND agent_id = $3",
    "DELETE FROM agent_history WHERE chain_id = $1 AND registry = $2 AND agent_id = $3",
    kDeleteGeneric,
};
constexpr std::array<std::string_view, 1> kReputationDraftDeletes{kDeleteGeneric};
constexpr std::array<std::string_view, 3> kToolDeletes{
    "DELETE FROM tools WHERE chain_id = $1 AND registry = $2 AND tool_id = $3",
    "DELETE FROM tool_history WHERE chain_id = $1 AND registry = $2 AND tool_id = $3",
    kDeleteGeneric,
};
constexpr std::array<std::string_view, 5> kWorkflowDeletes{
    "DELETE FROM workflow_runs WHERE chain_id = $1 AND workflow = $2 AND run_id = $3",
    "DELETE FROM workflow_tasks WHERE chain_id = $1 AND workflow = $2 AND run_id = $3",
    "DELETE FROM workflow_replies WHERE chain_id = $1 AND workflow = $2 AND run_id = $3",
    "DELETE FROM workflow_results WHERE chain_id = $1 AND workflow = $2 AND run_id = $3",
    kDeleteGeneric,
};
constexpr std::array<std::string_view, 2> kVerifierDeletes{
    "DELETE FROM workflow_proofs WHERE chain_id = $1 AND verifier = $2 AND task_id = $3",
    kDeleteGeneric,
};

}  // namespace

std::span<const MultiRowInsert* const> multi_row_inserts() {
    static const std::array<const MultiRowInsert*, 1> kInserts{&rules::feedback_upsert()};
    return kInserts;
}

std::expected<Projection, std::string> project_log(uint64_t chain_id, const RawLog& log,
                                                   ContractKind kind, core::ByteView detail) {
    if (log.topics.empty()) return std::unexpected(std::string("anonymous log (no topic0)"));
    const rules::LogInput in{static_cast<int64_t>(chain_id), &log, detail};
    switch (kind) {
        case ContractKind::identity_registry:
            return rules::project_identity(in);
        case ContractKind::reputation_registry:
            return rules::project_reputation(in);
        case ContractKind::validation_registry:
            return rules::project_validation(in);
        case ContractKind::tool_registry:
            return rules::project_tool(in);
        case ContractKind::workflow:
            return rules::project_workflow(in);
        case ContractKind::agent_verifier:
            return rules::project_verifier(in);
        case ContractKind::identity_score:
            return rules::project_identity_score(in);
        case ContractKind::reputation_score:
            return rules::project_reputation_score(in);
        case ContractKind::validation_score:
            return rules::project_validation_score(in);
        case ContractKind::identity_draft:
            return rules::project_identity_draft(in);
        case ContractKind::reputation_draft:
            return rules::project_reputation_draft(in);
        case ContractKind::validation_draft:
            return rules::project_validation_draft(in);
    }
    return std::unexpected(fmt::format("unknown contract kind {}", static_cast<int>(kind)));
}

std::span<const std::string_view> entity_delete_statements(ContractKind kind) noexcept {
    switch (kind) {
        case ContractKind::identity_registry:
            return kIdentityDeletes;
        case ContractKind::reputation_registry:
            return kReputationDeletes;
        case ContractKind::validation_registry:
            return kValidationDeletes;
        case ContractKind::tool_registry:
            return kToolDeletes;
        case ContractKind::workflow:
            return kWorkflowDeletes;
        case ContractKind::agent_verifier:
            return kVerifierDeletes;
        case ContractKind::identity_score:
            return kIdentityDeletes;
        case ContractKind::reputation_score:
            return kReputationDeletes;
        case ContractKind::validation_score:
        case ContractKind::validation_draft:
            return kValidationDeletes;
        case ContractKind::identity_draft:
            return kIdentityDraftDeletes;
        case ContractKind::reputation_draft:
            return kReputationDraftDeletes;
    }
    return {};
}

std::span<const CatalogEvent> event_catalog(ContractKind kind) noexcept {
    switch (kind) {
        case ContractKind::identity_registry:
            return kIdentityCatalog;
        case ContractKind::reputation_registry:
            return kReputationCatalog;
        case ContractKind::validation_registry:
            return kValidationCatalog;
        case ContractKind::tool_registry:
            return kToolCatalog;
        case ContractKind::workflow:
            return kWorkflowCatalog;
        case ContractKind::agent_verifier:
            return kVerifierCatalog;
        case ContractKind::identity_score:
            return kIdentityScoreCatalog;
        case ContractKind::reputation_score:
            return kReputationScoreCatalog;
        case ContractKind::validation_score:
            return kValidationCatalog;
        case ContractKind::identity_draft:
            return kIdentityDraftCatalog;
        case ContractKind::reputation_draft:
            return kReputationDraftCatalog;
        case ContractKind::validation_draft:
            return kValidationDraftCatalog;
    }
    return {};
}

namespace rules {

std::string decode_failure(std::string_view event, const core::Error<core::AbiError>& e) {
    return fmt::format("{}: {}{}{}", event, core::to_string(e.code), e.detail.empty() ? "" : ": ",
                       e.detail);
}

std::string unknown_event(std::string_view kind, const RawLog& log) {
    if (log.topics.empty()) return fmt::format("unknown {} event topic0 (none)", kind);
    // An event another kind knows (an earlier ERC-8004 revision's registry followed as the current
    // one, say) is named with the kind that projects it.
    std::string known_by;
    for (uint8_t k = 1; k <= static_cast<uint8_t>(ContractKind::validation_draft); ++k) {
        const auto other = static_cast<ContractKind>(k);
        for (const CatalogEvent& e : event_catalog(other)) {
            if (e.topic0 == log.topics[0] && to_string(other) != kind && known_by.empty()) {
                known_by = fmt::format(" ({} of kind {}: follow the address as that kind)", e.name,
                                       to_string(other));
            }
        }
    }
    return fmt::format("unknown {} event topic0 {}{}", kind, core::to_hex(log.topics[0]), known_by);
}

std::vector<DbValue> key_params(const LogInput& in, DbValue entity_id) {
    std::vector<DbValue> p;
    p.reserve(16);
    p.emplace_back(in.chain_id);
    p.emplace_back(blob(in.log->address));
    p.emplace_back(std::move(entity_id));
    return p;
}

Projection generic_event(const LogInput& in, std::string_view name, core::Bytes entity,
                         DbValue run_id, std::string args_json) {
    Projection out{name, std::move(entity), {}};
    std::vector<DbValue> p = key_params(in, blob(out.entity));
    p.emplace_back(integer(in.log->block_num));
    p.emplace_back(integer(in.log->log_index));
    p.emplace_back(std::string(name));
    p.emplace_back(std::move(run_id));
    p.emplace_back(std::move(args_json));
    p.emplace_back(blob(in.log->txn_hash));
    out.statements.push_back(
        {"INSERT INTO contract_events (chain_id, address, entity, block_num, log_index, name, "
         "run_id, args, txn_hash) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
         std::move(p)});
    return out;
}

void JsonArgs::key(std::string_view name) {
    if (out_.size() > 1) out_ += ',';
    out_ += '"';
    out_ += name;  // argument names are ABI identifiers: nothing to escape
    out_ += "\":";
}

JsonArgs& JsonArgs::str(std::string_view name, std::string_view value) {
    key(name);
    out_ += '"';
    out_ += value;  // hex or decimal digits only
    out_ += '"';
    return *this;
}

JsonArgs& JsonArgs::raw(std::string_view name, std::string_view json) {
    key(name);
    out_ += json;
    return *this;
}

}  // namespace rules
}  // namespace credence::index
