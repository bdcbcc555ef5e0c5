// Synthetic ERC-8301 runs in an index database (evidence_synthetic.hpp).
#include <credence/verify/verifiers/evidence_synthetic.hpp>

#include <string>

#include <credence/core/keccak.hpp>
#include <credence/index/row.hpp>
#include <credence/index/schema.hpp>
#include <credence/verify/verifiers/evidence.hpp>

namespace credence::verify {
namespace {

namespace iw = chain::bindings::i_agent_workflow;
using index::DbValue;

DbValue hashes(const std::vector<core::Hash32>& hs) {
    core::Bytes out;
    for (const auto& h : hs) out.insert(out.end(), h.begin(), h.end());
    return out;
}

constexpr std::string_view kInsertTask =
    "INSERT INTO workflow_tasks (chain_id, workflow, run_id, block_num, log_index, task_hash, "
    "stage, task_seq, input_hash, input, timestamp, expires_at, prev_reply_hashes, proven, "
    "txn_hash) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)";
constexpr std::string_view kInsertReply =
    "INSERT INTO workflow_replies (chain_id, workflow, run_id, block_num, log_index, reply_hash, "
    "replier, operation_id, output_hash, output, timestamp, prev_task_hashes, verifier, proven, "
    "verification_digest, txn_hash) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, "
    "$13, $14, $15, $16)";
constexpr std::string_view kProof =
    "INSERT INTO workflow_proofs (chain_id, verifier, task_id, block_num, log_index, agent_key, "
    "verification_digest, valid, input_hash, output_hash, proof_profile, timestamp, instance_id, "
    "proof_chain_id, txn_hash, prove_workflow, proved_reply_hashes) VALUES ($1, $2, $3, $4, $5, "
    "$6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)";
constexpr std::string_view kRun =
    "INSERT INTO workflow_runs (chain_id, workflow, run_id, status, final_task_hash, "
    "completed_at, started_block_num, completed_block_num) VALUES ($1, $2, $3, 1, $4, $5, $6, $7)";
constexpr std::string_view kInsertResult =
    "INSERT INTO workflow_results (chain_id, workflow, run_id, block_num, log_index, status, "
    "final_task_hash, timestamp, txn_hash) VALUES ($1, $2, $3, $4, $5, 1, $6, $7, $8)";

core::Bytes bytes_of(std::string_view s) {
    const auto v = core::as_bytes(s);
    return {v.begin(), v.end()};
}

core::Hash32 txn_of(uint64_t block_num) {
    return core::keccak256("synthetic txn " + std::to_string(block_num));
}

index::DbResult<void> insert_task(index::Database& db, const SyntheticRunOptions& o,
                                  const iw::AgentTask& t, const core::Hash32& hash,
                                  uint64_t block_num, bool proven) {
    const DbValue p[] = {index::int_value(o.chain_id),
                         index::blob_value(o.workflow.view()),
                         index::blob_value(t.workflow_run_id),
                         index::int_value(block_num),
                         index::int_value(0),
                         index::blob_value(hash),
                         index::int_value(t.stage),
                         index::int_value(t.task_seq.limbs[0]),
                         index::blob_value(t.input_hash),
                         t.input,
                         index::int_value(t.timestamp.limbs[0]),
                         index::int_value(t.expires_at.limbs[0]),
                         hashes(t.prev_reply_hashes),
                         index::int_value(proven ? 1 : 0),
                         index::blob_value(txn_of(block_num))};
    return db.exec(kInsertTask, p);
}

index::DbResult<SyntheticRun> write(index::Database& db, const SyntheticRunOptions& o) {
    SyntheticRun out;
    out.run_id = core::keccak256("synthetic run " + std::to_string(o.steps));
    core::Hash32 agent_id{};
    std::copy(o.replier.bytes.begin(), o.replier.bytes.end(), agent_id.begin() + 12);
    std::vector<core::Hash32> prev_replies;
    uint64_t block_num = 10;
    uint64_t time = o.start_time;
    for (uint64_t i = 0; i <= o.steps; ++i) {
        const bool final_task = i == o.steps;
        iw::AgentTask t;
        t.stage = final_task ? 255 : i % 8;
        t.task_seq = i;
        const std::string input = final_task ? "" : "input " + std::to_string(i);
        t.input_hash = final_task ? core::Hash32{} : core::keccak256(input);
        if (i == 0) t.input = bytes_of(input);
        t.timestamp = time;
        t.prev_reply_hashes = prev_replies;
        t.workflow_run_id = out.run_id;
        const core::Hash32 th = task_hash(t);
        if (auto ok = insert_task(db, o, t, th, block_num, o.prove || i == 0); !ok) {
            return std::unexpected(ok.error());
        }
        if (i == 0) out.initial_task = th;
        if (final_task) {
            out.final_task = th;
            out.completed_at = time;
            const DbValue r[] = {
                index::int_value(o.chain_id),  index::blob_value(o.workflow.view()),
                index::blob_value(out.run_id), index::int_value(block_num),
                index::int_value(1),           index::blob_value(th),
                index::int_value(time),        index::blob_value(txn_of(block_num))};
            if (auto ok = db.exec(kInsertResult, r); !ok) return std::unexpected(ok.error());
            const DbValue run[] = {
                index::int_value(o.chain_id),  index::blob_value(o.workflow.view()),
                index::blob_value(out.run_id), index::blob_value(th),
                index::int_value(time),        index::int_value(10),
                index::int_value(block_num)};
            if (auto ok = db.exec(kRun, run); !ok) return std::unexpected(ok.error());
            break;
        }
        ++block_num;
        ++time;
        iw::AgentReply r;
        r.operation_id = core::keccak256("operation " + std::to_string(i));
        r.output = bytes_of("output " + std::to_string(i));
        r.output_hash = core::keccak256(r.output);
        r.timestamp = time;
        r.replier = o.replier;
        r.prev_task_hashes = {th};
        r.workflow_run_id = out.run_id;
        const core::Hash32 rh = reply_hash(r);
        // What getAgentReply returns at the anchoring block: not proven yet.
        const DbValue rp[] = {index::int_value(o.chain_id),
                              index::blob_value(o.workflow.view()),
                              index::blob_value(out.run_id),
                              index::int_value(block_num),
                              index::int_value(0),
                              index::blob_value(rh),
                              index::blob_value(o.replier.view()),
                              index::blob_value(r.operation_id),
                              index::blob_value(r.output_hash),
                              r.output,
                              index::int_value(time),
                              hashes(r.prev_task_hashes),
                              DbValue{},
                              index::int_value(0),
                              index::blob_value(core::Hash32{}),
                              index::blob_value(txn_of(block_num))};
        if (auto ok = db.exec(kInsertReply, rp); !ok) return std::unexpected(ok.error());
        if (o.prove) {
            const core::Hash32 digest = core::keccak256("digest " + std::to_string(i));
            const DbValue pp[] = {
                index::int_value(o.chain_id), index::blob_value(o.verifier.view()),
                index::blob_value(out.run_id), index::int_value(block_num), index::int_value(1),
                index::blob_value(agent_id), index::blob_value(digest), index::int_value(1),
                index::blob_value(t.input_hash), index::blob_value(r.output_hash),
                index::blob_value(core::Hash32{}), index::int_value(time),
                index::blob_value(o.verifier.view()),
                index::blob_value(core::Uint256{o.chain_id}.to_word()),
                index::blob_value(txn_of(block_num)),
                // its transaction: onAgentProve([rh], proof) on the workflow
                index::blob_value(o.workflow.view()), hashes({rh})};
            if (auto ok = db.exec(kProof, pp); !ok) return std::unexpected(ok.error());
        }
        prev_replies = {rh};
        ++block_num;
        time += 2;
    }
    return out;
}

}  // namespace

index::DbResult<SyntheticRun> write_synthetic_run(index::Database& db,
                                                  const SyntheticRunOptions& options) {
    if (auto m = index::migrate(db, index::index_migrations()); !m) {
        return std::unexpected(m.error());
    }
    if (auto b = db.begin(); !b) return std::unexpected(b.error());
    auto out = write(db, options);
    if (!out) {
        index::ignore_failure(db.rollback());  // the write's error is the one to report
        return out;
    }
    if (auto c = db.commit(); !c) return std::unexpected(c.error());
    return out;
}

}  // namespace credence::verify
