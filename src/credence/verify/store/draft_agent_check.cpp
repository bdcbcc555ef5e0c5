// The reverifier's check of first-draft agents (index_checks.hpp check_draft_agents): the agent
// check hands them over by DueSubject::revision.
#include <array>
#include <utility>
#include <vector>

#include <credence/verify/store/index_checks.hpp>

namespace credence::verify {

VerificationRecord to_verification_record(const Subject& s, const DraftAgentVerification& report) {
    VerificationRecord rec;
    rec.subject = s;
    switch (report.status) {
        case AgentStatus::verified:
            rec.status = VerificationStatus::verified;
            break;
        case AgentStatus::unverified:
            rec.status = VerificationStatus::unverified;
            break;
        case AgentStatus::unreachable:
            rec.status = VerificationStatus::unreachable;
            break;
    }
    if (report.status != AgentStatus::verified) rec.reason = std::string(to_string(report.reason));
    rec.detail = report.detail;
    // ERC-8004 first draft §Security Considerations leaves checking that the AgentDomain is the
    // card's to the user: a card at that domain naming the agent is that check passing.
    if (!report.verified_domains().empty()) rec.flags |= VerificationFlag::domain_verified;
    if (report.card) rec.flags |= VerificationFlag::agent_card;
    rec.report_json = report.to_json().dump();
    return rec;
}

namespace {

/// Whether an indexed AuthFeedback names `agent_id` as its client (index/projector_erc8004_legacy:
/// a contract_events row whose args hold "agentClientId":"<decimal>").
index::DbResult<bool> gave_feedback(index::Database& db, uint64_t chain_id,
                                    const core::Uint256& agent_id) {
    const std::array<index::DbValue, 2> p{static_cast<int64_t>(chain_id),
                                          "%\"agentClientId\":\"" + agent_id.to_dec() + "\"%"};
    auto rows = db.query(
        "SELECT 1 FROM contract_events WHERE chain_id = $1 AND name = 'AuthFeedback' AND args "
        "LIKE $2 LIMIT 1",
        p);
    if (!rows) return std::unexpected(rows.error());
    return !rows->empty();
}

}  // namespace

std::vector<VerificationRecord> check_draft_agents(std::span<const DueSubject> due,
                                                   Fetcher& fetcher, chain::RpcClient& rpc,
                                                   uint64_t chain_id, const FetchPolicy& policy,
                                                   index::Database* db) {
    std::vector<VerificationRecord> out(due.size());
    std::vector<DraftOnChainAgent> agents;
    std::vector<size_t> at;  // agents[i] is due[at[i]]
    for (size_t i = 0; i < due.size(); ++i) {
        const Subject& s = due[i].subject;
        out[i].subject = s;
        out[i].status = VerificationStatus::unreachable;
        out[i].report_json = "{}";
        auto id = core::Uint256::from_be_bytes(s.id);
        if (!id) {
            out[i].reason = "bad_subject";
            out[i].detail = "agent id is not 32 bytes";
            continue;
        }
        auto agent = read_draft_onchain_agent(rpc, chain_id, s.contract, *id);
        if (!agent) {
            out[i].reason = "rpc_failure";
            out[i].detail = agent.error().message();
            // getAgent reverts with AgentNotFound: nothing to verify.
            if (agent.error().kind == chain::CallErrorKind::reverted) {
                out[i].status = VerificationStatus::unverified;
                out[i].reason = "no_such_agent";
            }
            continue;
        }
        if (db != nullptr) {
            auto client = gave_feedback(*db, chain_id, *id);
            if (!client) {
                out[i].reason = "index_failure";
                out[i].detail = client.error().to_string();
                continue;
            }
            agent->feedback_client = *client;
        }
        agents.push_back(std::move(*agent));
        at.push_back(i);
    }
    const auto reports = verify_draft_agents(agents, fetcher, policy);
    for (size_t k = 0; k < reports.size() && k < at.size(); ++k) {
        out[at[k]] = to_verification_record(due[at[k]].subject, reports[k]);
    }
    return out;
}

}  // namespace credence::verify
