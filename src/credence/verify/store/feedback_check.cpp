// The reverifier's checks for ERC-8004 feedback and validations (index_checks.hpp).
#include <credence/verify/store/index_checks.hpp>

#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace credence::verify {

namespace {

// Failures that say nothing about the file: the host or the network did not answer.
bool is_unreachable(const std::optional<FetchError>& e) {
    if (!e) return false;
    switch (*e) {
        case FetchError::dns_failure:
        case FetchError::connect_failed:
        case FetchError::tls_failure:
        case FetchError::timeout:
        case FetchError::transport:
        case FetchError::truncated:
            return true;
        default:
            return false;
    }
}

void set_outcome(VerificationRecord& out, FileStatus status, std::optional<FileReason> reason,
                 bool unreachable, std::string detail) {
    out.reason = reason && status != FileStatus::verified ? std::string(to_string(*reason)) : "";
    out.detail = std::move(detail);
    if (status == FileStatus::verified || status == FileStatus::absent) {
        out.status = VerificationStatus::verified;
    } else if (unreachable) {
        out.status = VerificationStatus::unreachable;
    } else {
        out.status = VerificationStatus::unverified;
    }
}

std::string first_message(const std::vector<FileIssue>& issues) {
    for (const auto& i : issues)
        if (i.severity == core::IssueSeverity::error) return i.message;
    return issues.empty() ? std::string() : issues.front().message;
}

VerificationRecord read_failure(const Subject& subject, const core::Error<ReadError>& e) {
    VerificationRecord out;
    out.subject = subject;
    out.status = e.code == ReadError::rpc_failure ? VerificationStatus::unreachable
                                                  : VerificationStatus::unverified;
    out.reason = std::string(to_string(e.code));
    out.detail = e.detail;
    return out;
}

}  // namespace

VerificationRecord to_verification_record(const Subject& subject,
                                          const FeedbackVerification& report) {
    VerificationRecord out;
    out.subject = subject;
    set_outcome(
        out, report.status, report.reason, is_unreachable(report.content.fetch_error),
        report.status == FileStatus::absent ? "no feedback file" : first_message(report.issues));
    // The payment claim comes from the file: only a file that matches its on-chain hash vouches
    // for it (a swapped file could point at anyone's payment).
    if (out.status == VerificationStatus::verified && report.payment_verified()) {
        out.flags |= VerificationFlag::payment_verified;
    }
    out.report_json = report.to_json().dump();
    return out;
}

VerificationRecord to_verification_record(const Subject& subject,
                                          const OnchainValidationRecord& record,
                                          const ValidationVerification& report) {
    VerificationRecord out;
    out.subject = subject;
    bool unreachable = is_unreachable(report.request.fetch_error);
    std::string detail = first_message(report.request.issues);
    for (const auto& r : report.responses) {
        unreachable = unreachable || is_unreachable(r.fetch_error);
        if (detail.empty()) detail = first_message(r.issues);
    }
    set_outcome(out, report.status, report.reason, unreachable, std::move(detail));
    out.report_json = report.to_json(record).dump();
    return out;
}

BatchCheck make_feedback_check(Fetcher& fetcher, chain::RpcClient& rpc,
                               FeedbackVerifyOptions options) {
    return [&fetcher, &rpc, options = std::move(options)](std::span<const DueSubject> due) {
        std::vector<VerificationRecord> out;
        out.reserve(due.size());
        for (const auto& d : due) {
            const Subject& s = d.subject;
            const auto agent_id = core::Uint256::from_be_bytes(s.id);
            if (!agent_id) {
                out.push_back(read_failure(s, {ReadError::bad_answer, "agent id is not 32 bytes"}));
                continue;
            }
            auto rec =
                read_onchain_feedback(rpc, s.contract, *agent_id, s.client, s.feedback_index);
            if (!rec) {
                out.push_back(read_failure(s, rec.error()));
                continue;
            }
            out.push_back(to_verification_record(s, verify_feedback(fetcher, *rec, options)));
        }
        return out;
    };
}

BatchCheck make_validation_check(Fetcher& fetcher, chain::RpcClient& rpc) {
    return [&fetcher, &rpc](std::span<const DueSubject> due) {
        std::vector<VerificationRecord> out;
        out.reserve(due.size());
        for (const auto& d : due) {
            const Subject& s = d.subject;
            if (s.id.size() != 32) {
                out.push_back(
                    read_failure(s, {ReadError::bad_answer, "request hash is not 32 bytes"}));
                continue;
            }
            core::Hash32 request_hash{};
            std::ranges::copy(s.id, request_hash.begin());
            auto rec = read_onchain_validation(rpc, s.contract, request_hash);
            if (!rec) {
                out.push_back(read_failure(s, rec.error()));
                continue;
            }
            out.push_back(to_verification_record(s, *rec, verify_validation(fetcher, *rec)));
        }
        return out;
    };
}

}  // namespace credence::verify
