#include <credence/verify/store/index_checks.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <credence/verify/verifiers/evidence_source.hpp>

namespace credence::verify {
namespace {

VerificationRecord unreachable(const Subject& subject, std::string reason, std::string detail) {
    VerificationRecord rec;
    rec.subject = subject;
    rec.status = VerificationStatus::unreachable;
    rec.reason = std::move(reason);
    rec.detail = std::move(detail);
    rec.report_json = "{}";
    return rec;
}

core::Hash32 hash_of(const core::Bytes& id) {
    core::Hash32 h{};
    if (id.size() == h.size()) std::copy(id.begin(), id.end(), h.begin());
    return h;
}

}  // namespace

VerificationRecord to_verification_record(const Subject& subject, const AgentVerification& report) {
    VerificationRecord rec;
    rec.subject = subject;
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
    if (!report.verified_domains().empty()) rec.flags |= VerificationFlag::domain_verified;
    for (const auto& card : report.agent_cards) {
        if (card.card) rec.flags |= VerificationFlag::agent_card;
    }
    rec.report_json = report.to_json().dump();
    return rec;
}

VerificationRecord to_verification_record(const Subject& subject, const EvidenceReport& report) {
    VerificationRecord rec;
    rec.subject = subject;
    rec.status = report.valid ? VerificationStatus::verified : VerificationStatus::unverified;
    if (const EvidenceFailure* f = report.first_failure(); f != nullptr) {
        rec.reason = std::string(to_string(f->reason));
        rec.detail = f->detail;
    }
    rec.report_json = to_json(report).dump();
    return rec;
}

BatchCheck make_agent_check(Fetcher& fetcher, chain::RpcClient& rpc, uint64_t chain_id,
                            AgentVerifyOptions options, index::Database* db) {
    return [&fetcher, &rpc, chain_id, options, db](std::span<const DueSubject> due) {
        std::vector<VerificationRecord> out(due.size());
        std::vector<OnChainAgent> agents;
        std::vector<size_t> at;  // agents[i] is due[at[i]]
        std::vector<DueSubject> drafts;
        std::vector<size_t> draft_at;  // drafts[i] is due[draft_at[i]]
        for (size_t i = 0; i < due.size(); ++i) {
            if (due[i].revision == core::Erc8004Revision::draft) {
                drafts.push_back(due[i]);
                draft_at.push_back(i);
                continue;
            }
            const Subject& s = due[i].subject;
            auto id = core::Uint256::from_be_bytes(s.id);
            if (!id) {
                out[i] = unreachable(s, "bad_subject", "agent id is not 32 bytes");
                continue;
            }
            auto agent = read_onchain_agent(rpc, chain_id, s.contract, *id, due[i].revision);
            if (!agent) {
                out[i] = unreachable(s, "rpc_failure", agent.error().message());
                // A revert of ownerOf: the agent no longer exists (burned), nothing to verify.
                if (agent.error().kind == chain::CallErrorKind::reverted) {
                    out[i].status = VerificationStatus::unverified;
                    out[i].reason = "no_such_agent";
                }
                continue;
            }
            agents.push_back(std::move(*agent));
            at.push_back(i);
        }
        const std::vector<AgentVerification> reports = verify_agents(agents, fetcher, options);
        for (size_t k = 0; k < reports.size() && k < at.size(); ++k) {
            out[at[k]] = to_verification_record(due[at[k]].subject, reports[k]);
        }
        if (!drafts.empty()) {
            auto records = check_draft_agents(drafts, fetcher, rpc, chain_id, options.policy, db);
            for (size_t k = 0; k < records.size() && k < draft_at.size(); ++k) {
                out[draft_at[k]] = std::move(records[k]);
            }
        }
        return out;
    };
}

BatchCheck make_run_check(index::Database& db, uint64_t chain_id) {
    return [&db, chain_id](std::span<const DueSubject> due) {
        std::vector<VerificationRecord> out;
        out.reserve(due.size());
        for (const DueSubject& d : due) {
            const core::Hash32 run_id = hash_of(d.subject.id);
            auto source = make_index_evidence_source(db, run_id, chain_id, d.subject.contract);
            if (!source) {
                out.push_back(unreachable(d.subject, "source", source.error().message));
                continue;
            }
            auto report = verify_run(**source, run_id);
            if (!report) {
                out.push_back(unreachable(d.subject, "source", report.error().to_string()));
                continue;
            }
            out.push_back(to_verification_record(d.subject, *report));
        }
        return out;
    };
}

}  // namespace credence::verify
