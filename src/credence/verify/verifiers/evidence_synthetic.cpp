// Synthetic ERC-8301 runs in an index database (evidence_synthetic.hpp).
#include <credence/verify/verifiers/evidence_synthetic.hpp>

#include <string>

#include <credence/core/keccak.hpp>
#include <credence/index/schema.hpp>
#include <credence/verify/verifiers/evidence.hpp>

namespace credence::verify {
namespace {

namespace iw = chain::bindings::i_agent_workflow;
using index::DbValue;

DbValue blob(core::ByteView b) { return core::Bytes(b.begin(), b.end()); }
DbValue integer(uint64_t v) { return static_cast<int64_t>(v); }
DbValue hashes(const std::vector<core::Hash32>& hs) {
    core::Bytes out;
    for (const auto& h : hs) out.insert(out.end(), h.begin(), h.end());
    return out;
}

constexpr std::string_view kTask =
    "INSERT INTO workflow_tasks (chain_id, workflow, run_id, block_num, log_index, task_hash, "
    "stage, task_seq, input_hash, input, timestamp, expires_at, prev_reply_hashes, proven, "
    "txn_hash) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)";
constexpr std::string_view kReply =
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
constexpr std::string_view kResult =
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
    const DbValue p[] = {integer(o.chain_id),
                         blob(o.workflow.view()),
                         blob(t.workflow_run_id),
                         integer(block_num),
                         integer(0),
                         blob(hash),
                         integer(t.stage),
                         integer(t.task_seq.limbs[0]),
                         blob(t.input_hash),
                         t.input,
                         integer(t.timestamp.limbs[0]),
                         integer(t.expires_at.limbs[0]),
                         hashes(t.prev_reply_hashes),
                         integer(proven ? 1 : 0),
                         blob(txn_of(block_num))};
    return db.exec(kTask, p);
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
            const DbValue r[] = {integer(o.chain_id), blob(o.workflow.view()),
                                 blob(out.run_id),    integer(block_num),
                                 integer(1),          blob(th),
                                 integer(time),       blob(txn_of(block_num))};
            if (auto ok = db.exec(kResult, r); !ok) return std::unexpected(ok.error());
            const DbValue run[] = {integer(o.chain_id), blob(o.workflow.view()),
                                   blob(out.run_id),    blob(th),
                                   integer(time),       integer(10),
                                   integer(block_num)};
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
        const DbValue rp[] = {integer(o.chain_id),
                              blob(o.workflow.view()),
                              blob(out.run_id),
                              integer(block_num),
                              integer(0),
                              blob(rh),
                              blob(o.replier.view()),
                              blob(r.operation_id),
                              blob(r.output_hash),
                              r.output,
                              integer(time),
                              hashes(r.prev_task_hashes),
                              DbValue{},
                              integer(0),
                              blob(core::Hash32{}),
                              blob(txn_of(block_num))};
        if (auto ok = db.exec(kReply, rp); !ok) return std::unexpected(ok.error());
        if (o.prove) {
            const core::Hash32 digest = core::keccak256("digest " + std::to_string(i));
            const DbValue pp[] = {
                integer(o.chain_id), blob(o.verifier.view()), blob(out.run_id), integer(block_num),
                integer(1), blob(agent_id), blob(digest), integer(1), blob(t.input_hash),
                blob(r.output_hash), blob(core::Hash32{}), integer(time), blob(o.verifier.view()),
                blob(core::Uint256{o.chain_id}.to_word()), blob(txn_of(block_num)),
                // its transaction: onAgentProve([rh], proof) on the workflow
                blob(o.workflow.view()), hashes({rh})};
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
