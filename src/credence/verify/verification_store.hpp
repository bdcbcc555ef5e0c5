// Verification results in the index (docs/architecture.md §verify/): the latest check of each
// agent, tool, feedback, validation and workflow run, and the list of subjects that are due for a
// (re)check.
//
// A result is stored in the `verifications` table (index/schema.cpp, migration 2) with its status,
// reason code, detail line, time and the JSON report. `covers_block_num` is the subject's last
// on-chain change the check saw, so a subject is due when:
//   - it was never checked;
//   - it changed on chain since (URIUpdated, ToolMetadataUpdated, a new validation response, a
//     completed run...: every such event moves the projection's block number past the record's);
//   - the record is older than the schedule's max age (documents behind URLs change off-chain).
// A reorg past covers_block_num deletes the record (index::IndexStore::rollback_to), which makes
// the subject due again.
//
// Thread-safety: none; one Database per thread (database.hpp). Ownership: borrows the Database.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <credence/core/address.hpp>
#include <credence/core/bytes.hpp>
#include <credence/index/database.hpp>

namespace credence::verify {

enum class SubjectKind : uint8_t { agent, tool, feedback, validation, run };
[[nodiscard]] std::string_view to_string(SubjectKind kind) noexcept;
[[nodiscard]] std::optional<SubjectKind> subject_kind_from_string(std::string_view text) noexcept;

/// The outcome of one check, in the words every verifier shares.
enum class VerificationStatus : uint8_t {
    verified,     ///< every check passed (ERC-8257 "canonical", a valid evidence chain, ...)
    unverified,   ///< a check failed: the reason says which
    unreachable,  ///< the check could not run (network, RPC): retried on the next schedule
};
[[nodiscard]] std::string_view to_string(VerificationStatus status) noexcept;
[[nodiscard]] std::optional<VerificationStatus> verification_status_from_string(
    std::string_view text) noexcept;

/// Which thing was checked: the contract (registry or workflow) and the entity's key within it.
struct Subject {
    SubjectKind kind = SubjectKind::agent;
    core::Address contract{};
    /// agent_id / tool_id (32 bytes, big-endian, as the index stores them), request_hash, run_id.
    core::Bytes id;
    /// A feedback's client and feedback_index (ERC-8004 keys feedback by all three); zero else.
    core::Address client{};
    uint64_t feedback_index = 0;
    friend bool operator==(const Subject&, const Subject&) = default;
};

/// VerificationRecord::flags: what the trust engine (trust/) reads without parsing reports.
inline constexpr uint64_t kFlagPaymentVerified = 1;  ///< feedback: proofOfPayment checked on chain
inline constexpr uint64_t kFlagDomainVerified = 2;   ///< agent: an endpoint domain verified
inline constexpr uint64_t kFlagAgentCard = 4;        ///< agent: an A2A agent card was read

struct VerificationRecord {
    Subject subject;
    VerificationStatus status = VerificationStatus::unverified;
    std::string reason;  ///< the verifier's reason code; empty when verified
    std::string detail;  ///< one line for people
    int64_t checked_at = 0;
    int64_t covers_block_num = 0;
    uint64_t flags = 0;       ///< kFlag*
    std::string report_json;  ///< the verifier's full report
};

/// Inserts or replaces the record of `record.subject`.
[[nodiscard]] index::DbResult<void> save_verification(index::Database& db, uint64_t chain_id,
                                                      const VerificationRecord& record);

[[nodiscard]] index::DbResult<std::optional<VerificationRecord>> load_verification(
    index::Database& db, uint64_t chain_id, const Subject& subject);

/// A subject that needs a check, with what the index knows about it.
struct DueSubject {
    Subject subject;
    int64_t changed_block_num = 0;  ///< becomes the record's covers_block_num
    std::string uri;  ///< agent_uri / metadata_uri / feedback_uri / request_uri ("" for runs)
};

struct DueQuery {
    SubjectKind kind = SubjectKind::agent;
    int64_t now = 0;      ///< unix seconds
    int64_t max_age = 0;  ///< seconds; a record older than this is due (0: only on changes)
    size_t limit = 1000;
};

/// Subjects of `query.kind` due for a check, oldest change first. Agents with an agentURI, tools
/// not deregistered, feedback with a feedbackURI, validation requests with a request or response
/// URI, completed runs.
[[nodiscard]] index::DbResult<std::vector<DueSubject>> due_subjects(index::Database& db,
                                                                    uint64_t chain_id,
                                                                    const DueQuery& query);

}  // namespace credence::verify
