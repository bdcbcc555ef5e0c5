// The `verifications` table (schema.cpp, migration 2; its flag bits: schema.hpp VerificationFlag)
// and its one owner: every statement that names the table is here, so the verifier (verify/), the
// trust engine (trust/), the API (api/) and rollback (store.hpp) read and write it through these
// typed functions (docs/architecture.md §Table owners).
//
// A row is the latest check of one subject (an agent, tool, feedback, validation request or
// workflow run) with its status, reason code, detail line, time, the JSON report and
// covers_block_num, the subject's last on-chain change the check saw, so a subject is due when:
//   - it was never checked;
//   - it changed on chain since (URIUpdated, ToolMetadataUpdated, a new validation response, a
//     completed run...: every such event moves the projection's block number past the record's);
//   - the record is older than the schedule's max age (documents behind URLs change off-chain).
// A reorg past covers_block_num deletes the record (forget_verifications_after, run by
// IndexStore::rollback_to), which makes the subject due again.
//
// Thread-safety: none; one Database per thread (database.hpp). Ownership: borrows the Database.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <credence/core/address.hpp>
#include <credence/core/bytes.hpp>
#include <credence/core/erc8004_revision.hpp>
#include <credence/index/database.hpp>
#include <credence/index/schema.hpp>

namespace credence::index {

/// verifications.subject_kind.
enum class SubjectKind : uint8_t { agent, tool, feedback, validation, run };
[[nodiscard]] std::string_view to_string(SubjectKind kind) noexcept;
[[nodiscard]] std::optional<SubjectKind> subject_kind_from_string(std::string_view text) noexcept;

/// The outcome of one check, in the words every verifier shares (verifications.status).
enum class VerificationStatus : uint8_t {
    verified,     ///< every check passed (ERC-8257 "canonical", a valid evidence chain, ...)
    unverified,   ///< a check failed: the reason says which
    unreachable,  ///< the check could not run (network, RPC): retried on the next schedule
};
[[nodiscard]] std::string_view to_string(VerificationStatus status) noexcept;
[[nodiscard]] std::optional<VerificationStatus> verification_status_from_string(
    std::string_view text) noexcept;

/// Which thing was checked: the contract (registry or workflow) and the entity's key within it.
struct VerificationSubject {
    SubjectKind kind = SubjectKind::agent;
    core::Address contract{};
    /// agent_id / tool_id (32 bytes, big-endian, as the index stores them), request_hash, run_id.
    core::Bytes id;
    /// A feedback's client and feedback_index (ERC-8004 keys feedback by all three); zero else.
    core::Address client{};
    uint64_t feedback_index = 0;
    friend bool operator==(const VerificationSubject&, const VerificationSubject&) = default;
};

struct VerificationRecord {
    VerificationSubject subject;
    VerificationStatus status = VerificationStatus::unverified;
    std::string reason;  ///< the verifier's reason code; empty when verified
    std::string detail;  ///< one line for people
    int64_t checked_at = 0;
    int64_t covers_block_num = 0;
    VerificationFlags flags;  ///< what the trust engine and the API read without the report
    std::string report_json;  ///< the verifier's full report
};

/// Inserts or replaces the record of `record.subject`.
[[nodiscard]] DbResult<void> save_verification(Database& db, uint64_t chain_id,
                                               const VerificationRecord& record);

[[nodiscard]] DbResult<std::optional<VerificationRecord>> load_verification(
    Database& db, uint64_t chain_id, const VerificationSubject& subject);

/// Deletes the records whose check saw a block above `block_num`: they checked a state that is no
/// longer on the chain after a reorg to `block_num` (store.hpp rollback_to; docs/architecture.md
/// §verify/). Run inside the rollback's transaction.
[[nodiscard]] DbResult<void> forget_verifications_after(Database& db, uint64_t chain_id,
                                                        uint64_t block_num);

// ---- due subjects (the verifier's schedule: verify/store/reverifier.hpp) ----

/// A subject that needs a check, with what the index knows about it.
struct DueSubject {
    VerificationSubject subject;
    int64_t changed_block_num = 0;  ///< becomes the record's covers_block_num
    /// agent_uri / metadata_uri / feedback_uri / request_uri ("" for runs); a first-draft agent's
    /// agent_domain (its Agent Card is at https://{agent_domain}/.well-known/agent-card.json).
    std::string uri;
    /// The ERC-8004 revision of the subject's row: agents of the current revision and of the first
    /// draft are due (each checked by its revision's verifier); every other kind is current.
    core::Erc8004Revision revision = core::Erc8004Revision::current;
};

struct DueQuery {
    SubjectKind kind = SubjectKind::agent;
    int64_t now = 0;      ///< unix seconds
    int64_t max_age = 0;  ///< seconds; a record older than this is due (0: only on changes)
    size_t limit = 1000;
};

/// Subjects of `query.kind` due for a check, oldest change first. Agents with an agentURI (current
/// revision) or an AgentDomain (first draft: an AgentUpdated with a new domain or address moves
/// updated_block_num, so the agent is due again), tools
/// not deregistered, feedback with a feedbackURI, validation requests with a request or response
/// URI, completed runs. Each is its projection table LEFT JOIN its record.
[[nodiscard]] DbResult<std::vector<DueSubject>> due_subjects(Database& db, uint64_t chain_id,
                                                             const DueQuery& query);

// ---- the flags, as the trust engine reads them (trust/score_index.hpp) ----

/// The subjects of `kind` in `contract` whose latest check raised `flag` (the key columns only;
/// a full load of the trust graph). The primary key's prefix (chain_id, subject_kind, contract)
/// finds them.
[[nodiscard]] DbResult<std::vector<VerificationSubject>> read_flagged_subjects(
    Database& db, uint64_t chain_id, SubjectKind kind, const core::Address& contract,
    VerificationFlag flag);

/// One record's key, flags and time.
struct SubjectFlags {
    VerificationSubject subject;
    VerificationFlags flags;
    int64_t checked_at = 0;
};

/// The records of `kind` in `contract` checked at or after `checked_since` (unix seconds), in no
/// particular order: what changed since an incremental pass's check cursor.
[[nodiscard]] DbResult<std::vector<SubjectFlags>> read_checks_since(Database& db, uint64_t chain_id,
                                                                    SubjectKind kind,
                                                                    const core::Address& contract,
                                                                    int64_t checked_since);

/// The records of `kind` in `contract` whose subject id is one of `ids` (in chunks: in_list.hpp),
/// in no particular order; a subject never checked has none.
[[nodiscard]] DbResult<std::vector<SubjectFlags>> read_subject_flags(
    Database& db, uint64_t chain_id, SubjectKind kind, const core::Address& contract,
    std::span<const core::Bytes> ids);

/// The latest checked_at of the records of `kinds` (-1 when none), through the time index
/// verifications_by_time.
[[nodiscard]] DbResult<int64_t> latest_checked_at(Database& db, uint64_t chain_id,
                                                  std::span<const SubjectKind> kinds);

// ---- the API's list queries (api/rest_agents.cpp, api/rest_catalog.cpp) ----

/// Where a subject's key sits in the row a list query joins its latest check to.
struct CheckJoin {
    SubjectKind kind = SubjectKind::agent;
    std::string_view alias;            ///< the alias the record gets, e.g. "v"
    std::string_view row_alias;        ///< the subject table's alias, e.g. "a"
    std::string_view contract_column;  ///< e.g. "registry"
    std::string_view id_column;        ///< e.g. "agent_id"
    /// The placeholder the query binds to the zero address (blob of 20 zero bytes), e.g. "$2":
    /// the client of every record but a feedback's.
    std::string_view zero_client;
};

/// "LEFT JOIN verifications <alias> ON ... " (trailing space): the subject's latest check, on the
/// table's primary key, for the API's list queries, which filter and page over several tables in
/// one statement. The query may read <alias>.status and <alias>.reason (NULL: never checked).
[[nodiscard]] std::string latest_check_join(const CheckJoin& join);

}  // namespace credence::index
