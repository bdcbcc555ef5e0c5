// The subcommands of `credence agent`, `credence feedback` and `credence validation` under
// `--revision score` or `--revision draft` (docs/cli.md §Earlier ERC-8004 revisions): the command
// groups parse the flags and hand over here when the revision is not the current one. Each
// function checks its arguments before it contacts the node, writes or reads the revision's
// registry (revision_args.hpp), and prints what the current-revision command prints, plus
// "revision". Errors throw CliError with one line (reverts decoded as chain_context.hpp does).
// Thread-safety: one invocation at a time, like every command.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <credence/cmd/chain_context.hpp>

namespace credence::cmd {

// ---- first draft: Identity Registry (agent_draft.cpp) ------------------------------------------

/// `agent register|update|show|resolve --revision draft`.
struct DraftAgentArgs {
    ChainOptions chain;
    std::string registry;  // --registry
    std::string agent_id;  // update, show
    std::optional<std::string> domain;
    std::optional<std::string> address;
};

/// newAgent(AgentDomain, AgentAddress); AgentAddress defaults to the signer.
void run_draft_agent_register(const DraftAgentArgs& a);
/// updateAgent(AgentID, Optional NewAgentDomain, Optional NewAgentAddress).
void run_draft_agent_update(const DraftAgentArgs& a);
/// getAgent(AgentID).
void run_draft_agent_show(const DraftAgentArgs& a);
/// resolveByDomain / resolveByAddress: exactly one of --domain, --address.
void run_draft_agent_resolve(const DraftAgentArgs& a);

// ---- first draft: Reputation Registry (feedback_draft.cpp) -------------------------------------

/// `feedback accept --revision draft --client <agentId> --server <agentId>`: acceptFeedback.
struct DraftAcceptArgs {
    ChainOptions chain;
    std::string registry;
    std::string client;
    std::string server;
};
void run_draft_feedback_accept(const DraftAcceptArgs& a);

// ---- intermediate revision: Reputation Registry (feedback_score.cpp) ---------------------------

struct ScoreGiveArgs {
    ChainOptions chain;
    std::string registry;
    std::string agent_id;
    std::string score;  // 0..100, checked here before anything is sent
    std::string tag1, tag2, endpoint, uri;
    std::optional<std::string> hash;
};
void run_score_feedback_give(const ScoreGiveArgs& a);

/// revoke, respond, read: one feedback of one client.
struct ScoreFeedbackArgs {
    ChainOptions chain;
    std::string registry;
    std::string agent_id;
    std::string client;  // respond, read
    std::string index;
    std::string response_uri;  // respond
    std::optional<std::string> hash;
    std::optional<std::string> response_file;
};
void run_score_feedback_revoke(const ScoreFeedbackArgs& a);
void run_score_feedback_respond(const ScoreFeedbackArgs& a);
void run_score_feedback_read(const ScoreFeedbackArgs& a);

/// list, summary: filters of readAllFeedback / getSummary.
struct ScoreFilterArgs {
    ChainOptions chain;
    std::string registry;
    std::string agent_id;
    std::vector<std::string> clients;
    std::string tag1, tag2;
    bool include_revoked = false;
};
void run_score_feedback_list(const ScoreFilterArgs& a);
void run_score_feedback_summary(const ScoreFilterArgs& a);

// ---- first draft: Validation Registry (validation_draft.cpp) -----------------------------------

struct DraftValidationArgs {
    ChainOptions chain;
    std::string registry;
    std::string validator;  // request: AgentValidatorID
    std::string server;     // request: AgentServerID
    std::string data_hash;
    std::optional<unsigned> response;  // respond
};
/// validationRequest(AgentValidatorID, AgentServerID, DataHash), sent by the server agent.
void run_draft_validation_request(const DraftValidationArgs& a);
/// validationResponse(DataHash, Response), sent by the validator agent.
void run_draft_validation_respond(const DraftValidationArgs& a);
/// getValidationRequest, isValidationPending and getValidationResponse of one DataHash.
void run_draft_validation_status(const DraftValidationArgs& a);

}  // namespace credence::cmd
