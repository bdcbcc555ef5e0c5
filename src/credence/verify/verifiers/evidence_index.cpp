// The offline EvidenceSource (evidence_source.hpp): ERC-8301 records from the index database
// (index/schema.cpp: workflow_runs, workflow_results, workflow_tasks, workflow_replies,
// workflow_proofs). Lookups go through the by-hash indexes (workflow_tasks_by_hash,
// workflow_replies_by_hash); a hash stored more than once (never, for an honest index) yields its
// first row in chain order. The struct's workflowRunId is the row's run_id (the projection checks
// it against the event), its anchor the row's log position.
#include <credence/verify/verifiers/evidence_source.hpp>

#include <fmt/core.h>

#include <credence/index/database.hpp>
#include <credence/index/row.hpp>

namespace credence::verify {
namespace {

namespace iw = chain::bindings::i_agent_workflow;
using index::DbRow;
using index::DbValue;

SourceError db_error(const index::DbError& e) { return {SourceErrorKind::database, e.to_string()}; }

// Column readers: a row is decodable or the whole lookup is a decode error (a corrupt index is
// not evidence about the chain).
struct RowReader {
    const DbRow& row;
    size_t at = 0;
    bool ok = true;

    bool is_null() const { return std::holds_alternative<std::monostate>(row[at]); }
    uint64_t u64() {
        const auto* v = std::get_if<int64_t>(&row[at++]);
        if (v == nullptr || *v < 0) {
            ok = false;
            return 0;
        }
        return static_cast<uint64_t>(*v);
    }
    core::Bytes bytes() {
        const auto* v = std::get_if<core::Bytes>(&row[at++]);
        if (v == nullptr) {
            ok = false;
            return {};
        }
        return *v;
    }
    core::Hash32 hash() {
        const auto b = bytes();
        core::Hash32 h{};
        if (b.size() != 32) {
            ok = false;
            return h;
        }
        std::copy(b.begin(), b.end(), h.begin());
        return h;
    }
    core::Address address() {
        const auto b = bytes();
        auto a = core::Address::from_bytes(b);
        if (!a) {
            ok = false;
            return {};
        }
        return *a;
    }
    std::vector<core::Hash32> hashes() {
        const auto b = bytes();
        std::vector<core::Hash32> out(b.size() / 32);
        if (b.size() % 32 != 0) ok = false;
        for (size_t i = 0; i < out.size(); ++i) {
            std::copy_n(b.begin() + static_cast<std::ptrdiff_t>(i * 32), 32, out[i].begin());
        }
        return out;
    }
};

constexpr std::string_view kResult =
    "SELECT status, final_task_hash, timestamp, block_num FROM workflow_results WHERE chain_id = "
    "$1 AND workflow = $2 AND run_id = $3 ORDER BY block_num DESC, log_index DESC LIMIT 1";
constexpr std::string_view kRunStatus =
    "SELECT status FROM workflow_runs WHERE chain_id = $1 AND workflow = $2 AND run_id = $3";
constexpr std::string_view kTask =
    "SELECT task_seq, stage, input_hash, input, timestamp, expires_at, prev_reply_hashes, "
    "run_id, proven, block_num, txn_hash FROM workflow_tasks WHERE chain_id = $1 AND task_hash = "
    "$2 AND workflow = $3 ORDER BY block_num, log_index LIMIT 1";
constexpr std::string_view kReply =
    "SELECT operation_id, output_hash, output, timestamp, replier, prev_task_hashes, run_id, "
    "verifier, proven, verification_digest, block_num, txn_hash FROM workflow_replies WHERE "
    "chain_id = $1 AND reply_hash = $2 AND workflow = $3 ORDER BY block_num, log_index LIMIT 1";
constexpr std::string_view kProofs =
    "SELECT verifier, task_id, agent_key, verification_digest, valid, input_hash, output_hash, "
    "timestamp, block_num, prove_workflow, proved_reply_hashes FROM workflow_proofs WHERE "
    "chain_id = $1 AND task_id = $2 ORDER BY block_num, log_index";

class IndexSource final : public EvidenceSource {
public:
    IndexSource(index::Database& db, uint64_t chain_id, core::Address workflow)
        : db_(db), chain_id_(chain_id), workflow_(workflow) {}

    std::string describe() const override { return "index " + db_.describe(); }
    core::Address workflow() const override { return workflow_; }

    SourceResult<RunResult> result(const core::Hash32& run_id) override {
        const DbValue p[] = {index::int_value(chain_id_), index::blob_value(workflow_.view()),
                             index::blob_value(run_id)};
        auto rows = db_.query(kResult, p);
        if (!rows) return std::unexpected(db_error(rows.error()));
        RunResult out;
        if (rows->empty()) {
            // No WorkflowCompleted yet: result() would say Pending (or the run is unknown).
            auto run = db_.query(kRunStatus, p);
            if (!run) return std::unexpected(db_error(run.error()));
            if (run->empty()) {
                return std::unexpected(
                    SourceError{SourceErrorKind::not_found, "the index holds no such run"});
            }
            RowReader r{run->front()};
            out.status = r.u64();
            if (!r.ok) return corrupt("workflow_runs");
            return out;
        }
        RowReader r{rows->front()};
        out.status = r.u64();
        out.final_task_hash = r.hash();
        const uint64_t emitted_at = r.u64();
        out.completed_block_num = r.u64();
        if (!r.ok) return corrupt("workflow_results");
        // ERC-8301 §result(): completedAt is set on Success only; a Failed run's WorkflowCompleted
        // carries its block time, but result() (the live source) still answers 0.
        out.completed_at = out.status == kRunSuccess ? emitted_at : 0;
        return out;
    }

    SourceResult<std::vector<std::optional<TaskRecord>>> tasks(
        std::span<const core::Hash32> task_hashes) override {
        std::vector<std::optional<TaskRecord>> out;
        out.reserve(task_hashes.size());
        for (const auto& h : task_hashes) {
            const DbValue p[] = {index::int_value(chain_id_), index::blob_value(h),
                                 index::blob_value(workflow_.view())};
            auto rows = db_.query(kTask, p);
            if (!rows) return std::unexpected(db_error(rows.error()));
            // A row whose getAgentTask detail was not fetched (NULL task_seq) holds no struct.
            if (rows->empty() || std::holds_alternative<std::monostate>(rows->front()[0])) {
                out.emplace_back();
                continue;
            }
            RowReader r{rows->front()};
            TaskRecord rec;
            rec.task.task_seq = r.u64();
            rec.task.stage = r.u64();
            rec.task.input_hash = r.hash();
            rec.task.input = r.bytes();
            rec.task.timestamp = r.u64();
            rec.task.expires_at = r.u64();
            rec.task.prev_reply_hashes = r.hashes();
            rec.task.workflow_run_id = r.hash();
            rec.proven = r.u64() != 0;
            Anchor a;
            a.block_num = r.u64();
            a.txn_hash = r.hash();
            rec.anchor = a;
            if (!r.ok) return corrupt("workflow_tasks");
            out.emplace_back(std::move(rec));
        }
        return out;
    }

    SourceResult<std::vector<std::optional<ReplyRecord>>> replies(
        std::span<const core::Hash32> reply_hashes) override {
        std::vector<std::optional<ReplyRecord>> out;
        out.reserve(reply_hashes.size());
        for (const auto& h : reply_hashes) {
            const DbValue p[] = {index::int_value(chain_id_), index::blob_value(h),
                                 index::blob_value(workflow_.view())};
            auto rows = db_.query(kReply, p);
            if (!rows) return std::unexpected(db_error(rows.error()));
            if (rows->empty() || std::holds_alternative<std::monostate>(rows->front()[0])) {
                out.emplace_back();
                continue;
            }
            RowReader r{rows->front()};
            ReplyRecord rec;
            rec.reply.operation_id = r.hash();
            rec.reply.output_hash = r.hash();
            rec.reply.output = r.bytes();
            rec.reply.timestamp = r.u64();
            rec.reply.replier = r.address();
            rec.reply.prev_task_hashes = r.hashes();
            rec.reply.workflow_run_id = r.hash();
            if (r.is_null()) {
                ++r.at;  // verifier NULL: address(0)
            } else {
                rec.verifier = r.address();
            }
            rec.proven = r.u64() != 0;
            rec.verification_digest = r.hash();
            Anchor a;
            a.block_num = r.u64();
            a.txn_hash = r.hash();
            rec.anchor = a;
            if (!r.ok) return corrupt("workflow_replies");
            out.emplace_back(std::move(rec));
        }
        return out;
    }

    SourceResult<std::vector<ProofRecord>> proofs(const core::Hash32& run_id) override {
        const DbValue p[] = {index::int_value(chain_id_), index::blob_value(run_id)};
        auto rows = db_.query(kProofs, p);
        if (!rows) return std::unexpected(db_error(rows.error()));
        std::vector<ProofRecord> out;
        out.reserve(rows->size());
        for (const auto& row : *rows) {
            RowReader r{row};
            ProofRecord rec;
            rec.verifier = r.address();
            rec.task_id = r.hash();
            rec.agent_id = r.hash();
            rec.verification_digest = r.hash();
            rec.valid = r.u64() != 0;
            rec.input_hash = r.hash();
            rec.output_hash = r.hash();
            rec.timestamp = r.u64();
            rec.block_num = r.u64();
            // The onAgentProve call of the record's transaction (NULL: not a direct call).
            if (r.is_null()) {
                r.at += 2;
            } else {
                rec.prove_workflow = r.address();
                rec.proved_reply_hashes = r.hashes();
            }
            if (!r.ok) return corrupt("workflow_proofs");
            out.push_back(rec);
        }
        return out;
    }

private:
    static std::unexpected<SourceError> corrupt(std::string_view table) {
        return std::unexpected(
            SourceError{SourceErrorKind::decode, fmt::format("an unreadable {} row", table)});
    }

    index::Database& db_;
    uint64_t chain_id_;
    core::Address workflow_;
};

}  // namespace

SourceResult<std::unique_ptr<EvidenceSource>> make_index_evidence_source(
    index::Database& db, const core::Hash32& run_id, std::optional<uint64_t> chain_id,
    std::optional<core::Address> workflow) {
    // Placeholders are numbered in order of use (database.hpp dialect rules).
    std::string sql = "SELECT chain_id, workflow FROM workflow_runs WHERE run_id = $1";
    std::vector<DbValue> params{index::blob_value(run_id)};
    if (chain_id) {
        params.push_back(index::int_value(*chain_id));
        sql += fmt::format(" AND chain_id = ${}", params.size());
    }
    if (workflow) {
        params.push_back(index::blob_value(workflow->view()));
        sql += fmt::format(" AND workflow = ${}", params.size());
    }
    auto rows = db.query(sql, params);
    if (!rows) return std::unexpected(db_error(rows.error()));
    if (rows->empty()) {
        return std::unexpected(SourceError{
            SourceErrorKind::not_found,
            fmt::format("the index ({}) holds no run {}", db.describe(), core::to_hex(run_id))});
    }
    if (rows->size() > 1) {
        return std::unexpected(
            SourceError{SourceErrorKind::ambiguous,
                        fmt::format("run {} is indexed under {} workflows; name one",
                                    core::to_hex(run_id), rows->size())});
    }
    RowReader r{rows->front()};
    const uint64_t found_chain = r.u64();
    const core::Address found_workflow = r.address();
    if (!r.ok) {
        return std::unexpected(
            SourceError{SourceErrorKind::decode, "an unreadable workflow_runs row"});
    }
    return std::make_unique<IndexSource>(db, found_chain, found_workflow);
}

}  // namespace credence::verify
