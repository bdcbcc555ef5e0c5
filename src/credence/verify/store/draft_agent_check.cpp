// The reverifier's check of first-draft agents (index_checks.hpp check_draft_agents): the agent
// check hands them over by DueSubject::revision.
#include <array>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <credence/core/bytes.hpp>
#include <credence/core/json_lenient.hpp>
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

/// The FeedbackAuthIDs of the indexed AuthFeedback events naming `agent_id` as their client
/// (index/projector_erc8004_legacy: contract_events rows whose args hold
/// "agentClientId":"<decimal>" and "feedbackAuthId":"0x<64 hex>").
index::DbResult<std::vector<core::Hash32>> feedback_authorizations(index::Database& db,
                                                                   uint64_t chain_id,
                                                                   const core::Uint256& agent_id) {
    const std::array<index::DbValue, 2> p{static_cast<int64_t>(chain_id),
                                          "%\"agentClientId\":\"" + agent_id.to_dec() + "\"%"};
    auto rows = db.query(
        "SELECT args FROM contract_events WHERE chain_id = $1 AND name = 'AuthFeedback' AND args "
        "LIKE $2",
        p);
    if (!rows) return std::unexpected(rows.error());
    std::vector<core::Hash32> ids;
    for (const index::DbRow& row : *rows) {
        const std::string* args = row.empty() ? nullptr : std::get_if<std::string>(&row[0]);
        if (args == nullptr) continue;
        const auto doc = nlohmann::json::parse(*args, nullptr, false);
        if (auto h = core::from_hex_fixed<32>(core::lenient::string_at(doc, "feedbackAuthId"))) {
            ids.push_back(*h);
        }
    }
    return ids;
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
            auto ids = feedback_authorizations(*db, chain_id, *id);
            if (!ids) {
                out[i].reason = "index_failure";
                out[i].detail = ids.error().to_string();
                continue;
            }
            agent->feedback_auth_ids = std::move(*ids);
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
