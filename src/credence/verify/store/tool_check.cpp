// The reverifier's check for ERC-8257 tools (index_checks.hpp).
#include <credence/verify/store/index_checks.hpp>

#include <span>
#include <string>
#include <vector>

namespace credence::verify {

VerificationRecord to_verification_record(const Subject& subject, const ToolVerification& report) {
    VerificationRecord r;
    r.subject = subject;
    if (report.canonical()) {
        r.status = VerificationStatus::verified;
    } else {
        switch (report.reason) {
            case ToolReason::rpc_error:
            case ToolReason::network_error:
            case ToolReason::timeout:
            case ToolReason::truncated:
                r.status = VerificationStatus::unreachable;
                break;
            default:
                r.status = VerificationStatus::unverified;
                break;
        }
        r.reason = std::string(to_string(report.reason));
    }
    r.detail = report.detail.empty() ? std::string(describe(report.reason)) : report.detail;
    r.report_json = report.to_json().dump();
    return r;
}

BatchCheck make_tool_check(Fetcher& fetcher, chain::RpcClient& rpc, ToolVerifyOptions options) {
    return [&fetcher, &rpc, options](std::span<const DueSubject> due) {
        std::vector<VerificationRecord> out;
        out.reserve(due.size());
        for (const auto& d : due) {
            auto tool_id = core::Uint256::from_be_bytes(d.subject.id);
            if (!tool_id || d.subject.id.size() != 32) {
                ToolVerification bad;
                bad.reason = ToolReason::rpc_error;
                bad.detail = "tool id is not 32 bytes";
                out.push_back(to_verification_record(d.subject, bad));
                continue;
            }
            out.push_back(to_verification_record(
                d.subject, verify_tool(rpc, d.subject.contract, *tool_id, fetcher, options)));
        }
        return out;
    };
}

}  // namespace credence::verify
