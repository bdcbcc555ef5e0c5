#include <credence/index/verification_table.hpp>

#include <algorithm>
#include <array>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include <credence/index/in_list.hpp>
#include <credence/index/row.hpp>

namespace credence::index {
namespace {

constexpr std::array<std::string_view, 5> kSubjectKindNames{"agent", "tool", "feedback",
                                                            "validation", "run"};
constexpr std::array<std::string_view, 3> kStatusNames{"verified", "unverified", "unreachable"};

constexpr std::string_view kUpsert =
    "INSERT INTO verifications (chain_id, subject_kind, contract, subject_id, client, "
    "feedback_index, status, reason, detail, checked_at, covers_block_num, flags, report) VALUES "
    "($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $13, $12) ON CONFLICT (chain_id, subject_kind, "
    "contract, subject_id, client, feedback_index) DO UPDATE SET status = excluded.status, "
    "reason = excluded.reason, detail = excluded.detail, checked_at = excluded.checked_at, "
    "covers_block_num = excluded.covers_block_num, flags = excluded.flags, report = "
    "excluded.report";

constexpr std::string_view kLoad =
    "SELECT status, reason, detail, checked_at, covers_block_num, report, flags FROM "
    "verifications "
    "WHERE chain_id = $1 AND subject_kind = $2 AND contract = $3 AND subject_id = $4 AND client "
    "= $5 AND feedback_index = $6";

// A verification that saw a change past the fork point checked a state that is no longer on the
// chain (docs/architecture.md §verify/): it goes, and the subject is due again.
constexpr std::string_view kForgetAbove =
    "DELETE FROM verifications WHERE chain_id = $1 AND covers_block_num > $2";

// Every due query returns (contract, subject id, client, feedback index, changed block, uri) and
// takes $1 chain, $2 kind name, $3 the oldest fresh checked_at (now - max_age; -1: only
// changes), $4 limit. The LEFT JOIN keeps subjects never checked; comparing covers_block_num
// with the projection's last change is what re-verifies on an update event (docs/architecture.md
// §verify/). Only rows of the revisions a verifier reads are due (docs/compatibility.md §Earlier
// ERC-8004 revisions): the current revision everywhere, intermediate-revision agents (their
// registration files, with `endpoints`, by the same verifier: ERC-8004 intermediate §Identity
// Registry), and first-draft agents, whose Agent Card the draft verifier checks
// (verify/verifiers/draft_agent_verifier.hpp). Agents add a seventh
// column, the row's revision; a draft agent's uri is its AgentDomain.
constexpr std::string_view kDueAgents =
    "SELECT a.registry, a.agent_id, NULL, 0, a.updated_block_num, "
    "CASE WHEN a.revision = 'draft' THEN a.agent_domain ELSE a.agent_uri END, a.revision "
    "FROM agents a LEFT JOIN verifications v ON v.chain_id = a.chain_id AND v.subject_kind = $2 "
    "AND v.contract = a.registry AND v.subject_id = a.agent_id "
    "WHERE a.chain_id = $1 AND ((a.revision IN ('current', 'score') AND a.agent_uri IS NOT NULL "
    "AND a.agent_uri <> '') OR (a.revision = 'draft' AND a.agent_domain IS NOT NULL "
    "AND a.agent_domain <> '')) "
    "AND (v.checked_at IS NULL OR v.covers_block_num < a.updated_block_num "
    "OR v.checked_at < $3) ORDER BY a.updated_block_num, a.registry, a.agent_id LIMIT $4";

// A deregistered tool is tombstoned for good (ERC-8257 §deregisterTool): nothing to check.
constexpr std::string_view kDueTools =
    "SELECT t.registry, t.tool_id, NULL, 0, t.updated_block_num, t.metadata_uri FROM tools t "
    "LEFT JOIN verifications v ON v.chain_id = t.chain_id AND v.subject_kind = $2 "
    "AND v.contract = t.registry AND v.subject_id = t.tool_id "
    "WHERE t.chain_id = $1 AND t.deregistered = 0 AND t.metadata_uri IS NOT NULL "
    "AND t.metadata_uri <> '' AND (v.checked_at IS NULL OR v.covers_block_num < "
    "t.updated_block_num OR v.checked_at < $3) "
    "ORDER BY t.updated_block_num, t.registry, t.tool_id LIMIT $4";

// Feedback is immutable once given (ERC-8004 §Giving Feedback; revocation does not change the
// file), so only the schedule re-checks it.
constexpr std::string_view kDueFeedback =
    "SELECT f.registry, f.agent_id, f.client, f.feedback_index, f.block_num, f.feedback_uri "
    "FROM feedback f LEFT JOIN verifications v ON v.chain_id = f.chain_id "
    "AND v.subject_kind = $2 AND v.contract = f.registry AND v.subject_id = f.agent_id "
    "AND v.client = f.client AND v.feedback_index = f.feedback_index "
    "WHERE f.chain_id = $1 AND f.revision = 'current' AND f.feedback_uri <> '' "
    "AND (v.checked_at IS NULL "
    "OR v.covers_block_num < f.block_num OR v.checked_at < $3) "
    "ORDER BY f.block_num, f.log_index LIMIT $4";

// A new ValidationResponse (progressive responses, ERC-8004 §Validation Registry) moves
// response_block_num and makes the request due again.
constexpr std::string_view kDueValidations =
    "SELECT r.registry, r.request_hash, NULL, 0, COALESCE(r.response_block_num, r.block_num, 0), "
    "COALESCE(r.request_uri, '') FROM validation_requests r "
    "LEFT JOIN verifications v ON v.chain_id = r.chain_id AND v.subject_kind = $2 "
    "AND v.contract = r.registry AND v.subject_id = r.request_hash "
    "WHERE r.chain_id = $1 AND r.revision = 'current' AND (COALESCE(r.request_uri, '') <> '' "
    "OR COALESCE(r.response_uri, '') <> '') AND (v.checked_at IS NULL OR v.covers_block_num < "
    "COALESCE(r.response_block_num, r.block_num, 0) OR v.checked_at < $3) "
    "ORDER BY COALESCE(r.response_block_num, r.block_num, 0), r.registry, r.request_hash "
    "LIMIT $4";

// ERC-8301: a run's evidence chain is complete once WorkflowCompleted is emitted.
constexpr std::string_view kDueRuns =
    "SELECT w.workflow, w.run_id, NULL, 0, w.completed_block_num, '' FROM workflow_runs w "
    "LEFT JOIN verifications v ON v.chain_id = w.chain_id AND v.subject_kind = $2 "
    "AND v.contract = w.workflow AND v.subject_id = w.run_id "
    "WHERE w.chain_id = $1 AND w.completed_block_num IS NOT NULL "
    "AND (v.checked_at IS NULL OR v.covers_block_num < w.completed_block_num "
    "OR v.checked_at < $3) ORDER BY w.completed_block_num, w.workflow, w.run_id LIMIT $4";

// The flags are a BIGINT of bits (schema.hpp VerificationFlag): a bit test, on the rows of one
// kind and contract (the primary key's prefix).
constexpr std::string_view kFlagged =
    "SELECT subject_id, client, feedback_index FROM verifications WHERE chain_id = $1 AND "
    "subject_kind = $2 AND contract = $3 AND (flags & $4) <> 0";

constexpr std::string_view kChecksSince =
    "SELECT subject_id, client, feedback_index, flags, checked_at FROM verifications "
    "WHERE chain_id = $1 AND subject_kind = $2 AND contract = $3 AND checked_at >= $4";

constexpr std::string_view kFlagsOfIds =
    "SELECT subject_id, client, feedback_index, flags, checked_at FROM verifications WHERE "
    "chain_id = $1 AND subject_kind = $2 AND contract = $3 AND subject_id IN ";

DbValue kind_value(SubjectKind kind) { return std::string(to_string(kind)); }

std::string_view due_sql(SubjectKind kind) {
    switch (kind) {
        case SubjectKind::agent:
            return kDueAgents;
        case SubjectKind::tool:
            return kDueTools;
        case SubjectKind::feedback:
            return kDueFeedback;
        case SubjectKind::validation:
            return kDueValidations;
        case SubjectKind::run:
            return kDueRuns;
    }
    return kDueAgents;
}

/// Columns `at`.. : subject_id, client, feedback_index (the key within kind and contract).
DbResult<VerificationSubject> subject_at(const DbRow& row, size_t at, SubjectKind kind,
                                         const core::Address& contract) {
    const core::Bytes* id = blob_at(row, at);
    const core::Bytes* client = blob_at(row, at + 1);
    const int64_t* index = int_at(row, at + 2);
    if (id == nullptr || client == nullptr || index == nullptr || *index < 0) {
        return std::unexpected(unreadable("verifications", "subject key"));
    }
    auto address = core::Address::from_bytes(*client);
    if (!address) return std::unexpected(unreadable("verifications", "client address"));
    return VerificationSubject{kind, contract, *id, *address, static_cast<uint64_t>(*index)};
}

/// Columns: subject_id, client, feedback_index, flags, checked_at.
DbResult<SubjectFlags> subject_flags_of(const DbRow& row, SubjectKind kind,
                                        const core::Address& contract) {
    auto subject = subject_at(row, 0, kind, contract);
    if (!subject) return std::unexpected(subject.error());
    const int64_t* flags = int_at(row, 3);
    const int64_t* checked_at = int_at(row, 4);
    if (flags == nullptr || checked_at == nullptr)
        return std::unexpected(unreadable("verifications", "flags"));
    return SubjectFlags{std::move(*subject),
                        VerificationFlags::from_bits(static_cast<uint64_t>(*flags)), *checked_at};
}

DbResult<DueSubject> read_due(const DbRow& row, SubjectKind kind) {
    DueSubject due;
    due.subject.kind = kind;
    const core::Bytes* contract = blob_at(row, 0);
    const core::Bytes* id = blob_at(row, 1);
    if (contract == nullptr || id == nullptr)
        return std::unexpected(unreadable("verifications", "subject key"));
    auto address = core::Address::from_bytes(*contract);
    if (!address) return std::unexpected(unreadable("verifications", "contract address"));
    due.subject.contract = *address;
    due.subject.id = *id;
    if (const core::Bytes* client = blob_at(row, 2); client != nullptr) {
        auto a = core::Address::from_bytes(*client);
        if (!a) return std::unexpected(unreadable("verifications", "client address"));
        due.subject.client = *a;
    }
    const int64_t* index = int_at(row, 3);
    const int64_t* block = int_at(row, 4);
    if (index == nullptr || block == nullptr || *index < 0) {
        return std::unexpected(unreadable("verifications", "block number"));
    }
    due.subject.feedback_index = static_cast<uint64_t>(*index);
    due.changed_block_num = *block;
    if (const std::string* uri = text_at(row, 5); uri != nullptr) due.uri = *uri;
    if (row.size() > 6) {
        const std::string* revision = text_at(row, 6);
        auto parsed = revision == nullptr ? std::nullopt : core::parse_erc8004_revision(*revision);
        if (!parsed) return std::unexpected(unreadable("agents", "revision"));
        due.revision = *parsed;
    }
    return due;
}

}  // namespace

std::string_view to_string(SubjectKind kind) noexcept {
    return kSubjectKindNames[static_cast<size_t>(kind)];
}

std::optional<SubjectKind> subject_kind_from_string(std::string_view text) noexcept {
    for (size_t i = 0; i < kSubjectKindNames.size(); ++i) {
        if (kSubjectKindNames[i] == text) return static_cast<SubjectKind>(i);
    }
    return std::nullopt;
}

std::string_view to_string(VerificationStatus status) noexcept {
    return kStatusNames[static_cast<size_t>(status)];
}

std::optional<VerificationStatus> verification_status_from_string(std::string_view text) noexcept {
    for (size_t i = 0; i < kStatusNames.size(); ++i) {
        if (kStatusNames[i] == text) return static_cast<VerificationStatus>(i);
    }
    return std::nullopt;
}

DbResult<void> save_verification(Database& db, uint64_t chain_id,
                                 const VerificationRecord& record) {
    const VerificationSubject& s = record.subject;
    const std::array<DbValue, 13> params{
        int_value(chain_id),
        kind_value(s.kind),
        blob_value(s.contract.view()),
        s.id,
        blob_value(s.client.view()),
        int_value(s.feedback_index),
        std::string(to_string(record.status)),
        record.reason,
        record.detail,
        record.checked_at,
        record.covers_block_num,
        record.report_json,
        int_value(record.flags.bits()),
    };
    return db.exec(kUpsert, params);
}

DbResult<std::optional<VerificationRecord>> load_verification(Database& db, uint64_t chain_id,
                                                              const VerificationSubject& subject) {
    const std::array<DbValue, 6> params{
        int_value(chain_id), kind_value(subject.kind),          blob_value(subject.contract.view()),
        subject.id,          blob_value(subject.client.view()), int_value(subject.feedback_index),
    };
    auto rows = db.query(kLoad, params);
    if (!rows) return std::unexpected(rows.error());
    if (rows->empty()) return std::optional<VerificationRecord>{};
    const DbRow& row = rows->front();
    const std::string* status = text_at(row, 0);
    const std::string* reason = text_at(row, 1);
    const std::string* detail = text_at(row, 2);
    const int64_t* checked_at = int_at(row, 3);
    const int64_t* covers = int_at(row, 4);
    const std::string* report = text_at(row, 5);
    const int64_t* flags = int_at(row, 6);
    if (status == nullptr || reason == nullptr || detail == nullptr || checked_at == nullptr ||
        covers == nullptr || report == nullptr || flags == nullptr || *flags < 0) {
        return std::unexpected(unreadable("verifications", "record"));
    }
    auto parsed = verification_status_from_string(*status);
    if (!parsed) return std::unexpected(unreadable("verifications", "status '" + *status + "'"));
    return VerificationRecord{subject,
                              *parsed,
                              *reason,
                              *detail,
                              *checked_at,
                              *covers,
                              VerificationFlags::from_bits(static_cast<uint64_t>(*flags)),
                              *report};
}

DbResult<void> forget_verifications_after(Database& db, uint64_t chain_id, uint64_t block_num) {
    const std::array<DbValue, 2> params{int_value(chain_id), int_value(block_num)};
    return db.exec(kForgetAbove, params);
}

DbResult<std::vector<DueSubject>> due_subjects(Database& db, uint64_t chain_id,
                                               const DueQuery& query) {
    const int64_t fresh_after = query.max_age > 0 ? query.now - query.max_age : -1;
    const std::array<DbValue, 4> params{int_value(chain_id), kind_value(query.kind), fresh_after,
                                        int_value(query.limit)};
    auto rows = db.query(due_sql(query.kind), params);
    if (!rows) return std::unexpected(rows.error());
    std::vector<DueSubject> out;
    out.reserve(rows->size());
    for (const DbRow& row : *rows) {
        auto due = read_due(row, query.kind);
        if (!due) return std::unexpected(due.error());
        out.push_back(std::move(*due));
    }
    return out;
}

DbResult<std::vector<VerificationSubject>> read_flagged_subjects(Database& db, uint64_t chain_id,
                                                                 SubjectKind kind,
                                                                 const core::Address& contract,
                                                                 VerificationFlag flag) {
    const std::array<DbValue, 4> params{int_value(chain_id), kind_value(kind),
                                        blob_value(contract.view()),
                                        int_value(static_cast<uint64_t>(flag))};
    auto rows = db.query(kFlagged, params);
    if (!rows) return std::unexpected(rows.error());
    std::vector<VerificationSubject> out;
    out.reserve(rows->size());
    for (const DbRow& row : *rows) {
        auto subject = subject_at(row, 0, kind, contract);
        if (!subject) return std::unexpected(subject.error());
        out.push_back(std::move(*subject));
    }
    return out;
}

DbResult<std::vector<SubjectFlags>> read_checks_since(Database& db, uint64_t chain_id,
                                                      SubjectKind kind,
                                                      const core::Address& contract,
                                                      int64_t checked_since) {
    const std::array<DbValue, 4> params{int_value(chain_id), kind_value(kind),
                                        blob_value(contract.view()), checked_since};
    auto rows = db.query(kChecksSince, params);
    if (!rows) return std::unexpected(rows.error());
    std::vector<SubjectFlags> out;
    out.reserve(rows->size());
    for (const DbRow& row : *rows) {
        auto flags = subject_flags_of(row, kind, contract);
        if (!flags) return std::unexpected(flags.error());
        out.push_back(std::move(*flags));
    }
    return out;
}

DbResult<std::vector<SubjectFlags>> read_subject_flags(Database& db, uint64_t chain_id,
                                                       SubjectKind kind,
                                                       const core::Address& contract,
                                                       std::span<const core::Bytes> ids) {
    std::vector<SubjectFlags> out;
    const std::vector<DbValue> fixed{int_value(chain_id), kind_value(kind),
                                     blob_value(contract.view())};
    auto r =
        query_in_chunks(db, kFlagsOfIds, "", fixed, ids, [&](const DbRow& row) -> DbResult<void> {
            auto flags = subject_flags_of(row, kind, contract);
            if (!flags) return std::unexpected(flags.error());
            out.push_back(std::move(*flags));
            return {};
        });
    if (!r) return std::unexpected(r.error());
    return out;
}

DbResult<int64_t> latest_checked_at(Database& db, uint64_t chain_id,
                                    std::span<const SubjectKind> kinds) {
    if (kinds.empty()) return int64_t{-1};
    // The kinds as literals: the names are this file's constants, and one text per set of kinds
    // keeps the plan a lookup per kind on verifications_by_time.
    std::string names;
    for (const SubjectKind kind : kinds) {
        if (!names.empty()) names += ", ";
        names += fmt::format("'{}'", to_string(kind));
    }
    const std::array<DbValue, 1> params{int_value(chain_id)};
    auto rows = db.query(fmt::format("SELECT MAX(checked_at) FROM verifications WHERE chain_id = "
                                     "$1 AND subject_kind IN ({})",
                                     names),
                         params);
    if (!rows) return std::unexpected(rows.error());
    if (rows->empty()) return int64_t{-1};
    const int64_t* latest = int_at(rows->front(), 0);
    return latest != nullptr ? *latest : int64_t{-1};
}

std::string latest_check_join(const CheckJoin& join) {
    return fmt::format(
        "LEFT JOIN verifications {0} ON {0}.chain_id = {1}.chain_id AND {0}.subject_kind = '{2}' "
        "AND {0}.contract = {1}.{3} AND {0}.subject_id = {1}.{4} AND {0}.client = {5} AND "
        "{0}.feedback_index = 0 ",
        join.alias, join.row_alias, to_string(join.kind), join.contract_column, join.id_column,
        join.zero_client);
}

}  // namespace credence::index
