// The reverifier's checks (reverifier.hpp BatchCheck), one per subject kind: each turns a batch
// of due subjects into stored VerificationRecords by running that kind's verifier
// (verify/verifiers/). A node or network failure is `unreachable` (retried on the schedule).
//   - agent: reads ownerOf / tokenURI / getAgentWallet at the latest block, then verify_agents()
//     over the whole batch (all agentURIs fetched concurrently). Verified domains set
//     VerificationFlag::domain_verified and a read agent card VerificationFlag::agent_card
//     (index/schema.hpp), which the trust engine and the API's badges use. First-draft agents
//     (DueSubject::revision draft) go to verify_draft_agents() instead (draft_agent_check.cpp):
//     getAgent at the latest block, then the Agent Card at the AgentDomain; their records share
//     the table and the key shape (contract = the draft IdentityRegistry), so load_verification
//     reads them like any agent's;
//   - run: the ERC-8301 evidence chain verified offline from the same index (docs/architecture.md
//     §verify/), so a completed run is checked as soon as its WorkflowCompleted is indexed;
//   - tool (tool_check.cpp): the ERC-8257 §7 verification of each tool, one after the other;
//   - feedback and validation (feedback_check.cpp): the ERC-8004 files, read from the events.
// Thread-safety: the checks borrow their arguments and run on the reverifier's thread.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <credence/chain/rpc_client.hpp>
#include <credence/index/database.hpp>
#include <credence/verify/net/fetch.hpp>
#include <credence/verify/store/reverifier.hpp>
#include <credence/verify/store/verification_store.hpp>
#include <credence/verify/verifiers/draft_agent_verifier.hpp>
#include <credence/verify/verifiers/evidence.hpp>
#include <credence/verify/verifiers/feedback_verifier.hpp>
#include <credence/verify/verifiers/registration_verifier.hpp>
#include <credence/verify/verifiers/tool_verifier.hpp>

namespace credence::verify {

// ---- agents and runs (index_checks.cpp) --------------------------------------------------------

/// The stored form of an agent report (status, reason, flags, JSON report).
[[nodiscard]] VerificationRecord to_verification_record(const Subject& subject,
                                                        const AgentVerification& report);
/// The stored form of an evidence report: a valid chain is verified, else unverified with the
/// first failure's reason.
[[nodiscard]] VerificationRecord to_verification_record(const Subject& subject,
                                                        const EvidenceReport& report);

/// The stored form of a first-draft agent report (draft_agent_check.cpp): its status and reason,
/// domain_verified when the card at the AgentDomain names the agent, agent_card when a card was
/// read.
[[nodiscard]] VerificationRecord to_verification_record(const Subject& subject,
                                                        const DraftAgentVerification& report);
/// The records of first-draft agents (result i for due[i]): getAgent, then verify_draft_agents()
/// over all of them (cards fetched concurrently). Borrows fetcher, rpc and `db`, the index whose
/// AuthFeedback events say which agents gave feedback (nullptr: none known).
[[nodiscard]] std::vector<VerificationRecord> check_draft_agents(
    std::span<const DueSubject> due, Fetcher& fetcher, chain::RpcClient& rpc, uint64_t chain_id,
    const FetchPolicy& policy, index::Database* db = nullptr);

/// `db`: the index, for what the agents' checks read from it (check_draft_agents).
[[nodiscard]] BatchCheck make_agent_check(Fetcher& fetcher, chain::RpcClient& rpc,
                                          uint64_t chain_id, AgentVerifyOptions options = {},
                                          index::Database* db = nullptr);
[[nodiscard]] BatchCheck make_run_check(index::Database& db, uint64_t chain_id);

// ---- tools (tool_check.cpp) --------------------------------------------------------------------

/// The report as a stored check (verification_store.hpp): canonical is `verified`; a
/// failure that may heal by itself (RPC down, network error, timeout, truncated body) is
/// `unreachable`, so the schedule retries it; every other failure is `unverified`.
[[nodiscard]] VerificationRecord to_verification_record(const Subject& subject,
                                                        const ToolVerification& report);

/// The reverifier's check for SubjectKind::tool (contract = the ToolRegistry, id = toolId as 32
/// big-endian bytes): verify_tool() per subject, one after the other. Borrows fetcher and rpc.
[[nodiscard]] BatchCheck make_tool_check(Fetcher& fetcher, chain::RpcClient& rpc,
                                         ToolVerifyOptions options = {});

// ---- feedback and validation (feedback_check.cpp) ----------------------------------------------
//
// verified -> verified (absent too: ERC-8004 makes the file OPTIONAL, so no file contradicts
// nothing); unverified (hash_missing) and failed -> unverified with the reason code; a failure to
// reach the file's host or the node (timeout, connect, DNS, TLS, transport, RPC) -> unreachable,
// retried on the next schedule. A verified proofOfPayment sets VerificationFlag::payment_verified
// (index/schema.hpp), which the trust engine reads as a strong signal.

[[nodiscard]] VerificationRecord to_verification_record(const Subject& subject,
                                                        const FeedbackVerification& report);
[[nodiscard]] VerificationRecord to_verification_record(const Subject& subject,
                                                        const OnchainValidationRecord& record,
                                                        const ValidationVerification& report);

/// The reverifier's check for SubjectKind::feedback (subject.contract = the ReputationRegistry,
/// id = agentId as 32 bytes, client, feedback_index). Borrows everything; `rpc` is used from the
/// reverifier's thread only.
[[nodiscard]] BatchCheck make_feedback_check(Fetcher& fetcher, chain::RpcClient& rpc,
                                             FeedbackVerifyOptions options = {});
/// The same for SubjectKind::validation (contract = the ValidationRegistry, id = requestHash).
[[nodiscard]] BatchCheck make_validation_check(Fetcher& fetcher, chain::RpcClient& rpc);

}  // namespace credence::verify
