// The reverifier's checks (reverifier.hpp BatchCheck) for agents and workflow runs; the tool,
// feedback and validation checks sit with their verifiers (tool_verifier.hpp, feedback_verifier
// .hpp). Each turns a due subject into a stored VerificationRecord:
//   - agent: reads ownerOf / tokenURI / getAgentWallet at the latest block, then verify_agents()
//     over the whole batch (all agentURIs fetched concurrently). Verified domains set
//     VerificationFlag::domain_verified and a read agent card VerificationFlag::agent_card
//     (index/schema.hpp), which the trust engine and the API's badges use.
//     A node or network failure is `unreachable` (retried on the schedule);
//   - run: the ERC-8301 evidence chain verified offline from the same index (docs/architecture.md
//   §verify/), so a
//     completed run is checked as soon as its WorkflowCompleted is indexed.
// Thread-safety: the checks borrow their arguments and run on the reverifier's thread.
#pragma once

#include <cstdint>

#include <credence/chain/rpc_client.hpp>
#include <credence/index/database.hpp>
#include <credence/verify/evidence.hpp>
#include <credence/verify/fetch.hpp>
#include <credence/verify/registration_verifier.hpp>
#include <credence/verify/reverifier.hpp>

namespace credence::verify {

/// The stored form of an agent report (status, reason, flags, JSON report).
[[nodiscard]] VerificationRecord to_verification_record(const Subject& subject,
                                                        const AgentVerification& report);
/// The stored form of an evidence report: a valid chain is verified, else unverified with the
/// first failure's reason.
[[nodiscard]] VerificationRecord to_verification_record(const Subject& subject,
                                                        const EvidenceReport& report);

[[nodiscard]] BatchCheck make_agent_check(Fetcher& fetcher, chain::RpcClient& rpc,
                                          uint64_t chain_id, AgentVerifyOptions options = {});
[[nodiscard]] BatchCheck make_run_check(index::Database& db, uint64_t chain_id);

}  // namespace credence::verify
