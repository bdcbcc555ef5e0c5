// Unit tests of the ERC-8301 evidence-chain verifier (evidence.hpp) over real SQLite index files:
// a synthetic run written with the index schema (evidence_synthetic.hpp), verified offline, then
// tampered with row by row so that every EvidenceReason is produced from real stored data. The
// devnet tests (live vs index, real workflows) are in tests/cli/verify_run_cli_test.cpp.
#include <credence/verify/verifiers/evidence.hpp>

#include <algorithm>
#include <chrono>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <credence/core/abi.hpp>
#include <credence/core/abi_packed.hpp>
#include <credence/core/abi_type.hpp>
#include <credence/core/keccak.hpp>
#include <credence/index/database.hpp>
#include <credence/verify/verifiers/evidence_synthetic.hpp>

#include "support/erc_examples.hpp"
#include "support/scratch.hpp"

namespace credence::verify {
namespace {

namespace iw = chain::bindings::i_agent_workflow;
using core::Hash32;
using index::DbValue;

// keccak256(abi.encode(<types>)(values)) with the generic ABI encoder (independent of the
// word-by-word encoding in evidence.cpp).
Hash32 abi_hash(std::string_view types, const std::vector<core::AbiValue>& values) {
    auto t = core::parse_type_list(types);
    EXPECT_TRUE(t.has_value());
    auto enc = core::encode(*t, values);
    EXPECT_TRUE(enc.has_value());
    return core::keccak256(*enc);
}

Hash32 packed_list_hash(const std::vector<Hash32>& hs) {
    core::AbiValue::List list;
    for (const auto& h : hs) list.emplace_back(core::FixedBytes(h));
    auto t = core::parse_type_list("(bytes32[])");
    EXPECT_TRUE(t.has_value());
    const std::vector<core::AbiValue> v{core::AbiValue(list)};
    auto packed = core::encode_packed(*t, v);
    EXPECT_TRUE(packed.has_value());
    return core::keccak256(*packed);
}

TEST(verify_evidence, empty_prev_reply_hashes_hash_as_keccak_of_nothing) {
    // ERC-8301 §Data Envelopes: the empty array MUST hash as keccak256("") (the spec prints the
    // value), never bytes32(0).
    const std::string printed =
        nlohmann::json::parse(testing::read_erc_example("erc-constants.json"))
            .at("emptyPrevReplyHashesInnerHash")
            .get<std::string>();
    iw::AgentTask t;
    t.stage = 0;
    t.task_seq = 0;
    t.input_hash = core::keccak256("input");
    t.timestamp = 1'700'000'000;
    t.workflow_run_id = core::keccak256("run");
    auto spec_word = core::from_hex(printed);
    ASSERT_TRUE(spec_word.has_value());
    Hash32 empty{};
    std::copy(spec_word->begin(), spec_word->end(), empty.begin());
    const Hash32 expected =
        abi_hash("(uint8,uint256,bytes32,uint256,uint256,bytes32,bytes32)",
                 {core::Uint256{0}, core::Uint256{0}, core::FixedBytes(t.input_hash),
                  core::Uint256{1'700'000'000}, core::Uint256{0}, core::FixedBytes(empty),
                  core::FixedBytes(t.workflow_run_id)});
    EXPECT_EQ(task_hash(t), expected);
}

TEST(verify_evidence, task_and_reply_hash_follow_the_spec_formulas) {
    // ERC-8301 §Data Envelopes: taskHash / replyHash over abi.encode of the listed fields, the
    // plaintext input / output excluded.
    iw::AgentTask t;
    t.stage = 3;
    t.task_seq = 7;
    t.input_hash = core::keccak256("in");
    t.input = {1, 2, 3};
    t.timestamp = 1'700'000'123;
    t.expires_at = 1'700'009'999;
    t.prev_reply_hashes = {core::keccak256("r1"), core::keccak256("r2")};
    t.workflow_run_id = core::keccak256("run");
    EXPECT_EQ(task_hash(t), abi_hash("(uint8,uint256,bytes32,uint256,uint256,bytes32,bytes32)",
                                     {core::Uint256{3}, core::Uint256{7},
                                      core::FixedBytes(t.input_hash), t.timestamp, t.expires_at,
                                      core::FixedBytes(packed_list_hash(t.prev_reply_hashes)),
                                      core::FixedBytes(t.workflow_run_id)}));
    iw::AgentTask no_input = t;
    no_input.input.clear();
    EXPECT_EQ(task_hash(no_input), task_hash(t));

    iw::AgentReply r;
    r.operation_id = core::keccak256("op");
    r.output_hash = core::keccak256("out");
    r.output = {9};
    r.timestamp = 1'700'000'200;
    r.replier = core::Address{{0xab, 0xcd}};
    r.prev_task_hashes = {task_hash(t)};
    r.workflow_run_id = t.workflow_run_id;
    EXPECT_EQ(
        reply_hash(r),
        abi_hash("(bytes32,bytes32,uint256,address,bytes32,bytes32)",
                 {core::FixedBytes(r.operation_id), core::FixedBytes(r.output_hash), r.timestamp,
                  r.replier.bytes, core::FixedBytes(packed_list_hash(r.prev_task_hashes)),
                  core::FixedBytes(r.workflow_run_id)}));
    // operationId is part of the hash (ERC-8301 §AgentReply: distinct logical replies differ).
    iw::AgentReply other = r;
    other.operation_id = core::keccak256("op2");
    EXPECT_NE(reply_hash(other), reply_hash(r));
}

class EvidenceIndex : public ::testing::Test {
protected:
    void SetUp() override {
        static int counter = 0;
        const auto path =
            testing::scratch_dir() / ("evidence-" + std::to_string(counter++) + ".sqlite");
        auto db = index::open_sqlite(path);
        ASSERT_TRUE(db) << db.error().to_string();
        db_ = std::move(*db);
        SyntheticRunOptions o;
        o.steps = 5;
        auto run = write_synthetic_run(*db_, o);
        ASSERT_TRUE(run) << run.error().to_string();
        run_ = *run;
        options_ = o;
    }

    EvidenceReport verify(const EvidenceOptions& options = {}) {
        auto source = make_index_evidence_source(*db_, run_.run_id, std::nullopt, std::nullopt);
        EXPECT_TRUE(source) << (source ? "" : source.error().message);
        if (!source) return {};
        auto report = verify_run(**source, run_.run_id, options);
        EXPECT_TRUE(report) << (report ? "" : report.error().to_string());
        return report ? std::move(*report) : EvidenceReport{};
    }

    void exec(const std::string& sql, std::vector<DbValue> params = {}) {
        auto ok = db_->exec(sql, params);
        ASSERT_TRUE(ok) << ok.error().to_string();
    }

    // The hash of the reply / task of step i, read back from the index.
    Hash32 hash_at(const std::string& table, const std::string& column, int64_t seq_or_index) {
        const std::string sql =
            table == "workflow_tasks"
                ? "SELECT task_hash FROM workflow_tasks WHERE task_seq = $1"
                : "SELECT reply_hash FROM workflow_replies ORDER BY block_num LIMIT 1 OFFSET $1";
        const DbValue p[] = {seq_or_index};
        auto rows = db_->query(sql, p);
        EXPECT_TRUE(rows && !rows->empty());
        Hash32 h{};
        if (!rows || rows->empty()) return h;
        const auto& b = std::get<core::Bytes>((*rows)[0][0]);
        std::copy(b.begin(), b.end(), h.begin());
        (void)column;
        return h;
    }

    static bool has(const EvidenceReport& r, EvidenceReason reason) {
        return std::any_of(r.failures.begin(), r.failures.end(),
                           [&](const EvidenceFailure& f) { return f.reason == reason; });
    }

    std::unique_ptr<index::Database> db_;
    SyntheticRun run_;
    SyntheticRunOptions options_;
};

DbValue blob(const Hash32& h) { return core::Bytes(h.begin(), h.end()); }

TEST_F(EvidenceIndex, honest_chain_is_valid_and_fully_proven) {
    const auto r = verify();
    EXPECT_TRUE(r.valid) << to_text(r);
    EXPECT_TRUE(r.fully_proven);
    EXPECT_TRUE(r.failures.empty());
    EXPECT_EQ(r.tasks.size(), 6U);  // 5 steps + the final task
    EXPECT_EQ(r.replies.size(), 5U);
    ASSERT_FALSE(r.tasks.empty());
    EXPECT_EQ(r.tasks.front().hash, run_.final_task);
    EXPECT_TRUE(r.tasks.front().final_task);
    EXPECT_EQ(r.tasks.back().hash, run_.initial_task);
    // One source call per depth level: final task, reply, task, ..., initial task.
    EXPECT_EQ(r.source_calls, 11U);
    for (const auto& reply : r.replies) {
        EXPECT_TRUE(reply.proven);
        ASSERT_TRUE(reply.proof.has_value());
        EXPECT_EQ(reply.proof->verifier, options_.verifier);
    }
    const auto j = to_json(r);
    EXPECT_EQ(j["verdict"], "valid");
    EXPECT_TRUE(j["firstFailure"].is_null());
    const std::string text = to_text(r);
    EXPECT_NE(text.find("evidence VALID, fully proven"), std::string::npos) << text;
    EXPECT_NE(text.find("└── final task " + core::to_hex(run_.final_task)), std::string::npos)
        << text;
}

TEST_F(EvidenceIndex, changed_output_is_a_content_mismatch) {
    const Hash32 rh = hash_at("workflow_replies", "", 2);
    exec("UPDATE workflow_replies SET output = $1 WHERE reply_hash = $2",
         {core::Bytes{'f', 'o', 'r', 'g', 'e', 'd'}, blob(rh)});
    const auto r = verify();
    EXPECT_FALSE(r.valid);
    ASSERT_FALSE(r.failures.empty());
    EXPECT_EQ(r.failures.front().reason, EvidenceReason::content_mismatch);
    EXPECT_EQ(r.failures.front().hash, rh);
    EXPECT_EQ(to_json(r)["firstFailure"]["reason"], "content_mismatch");
}

TEST_F(EvidenceIndex, changed_output_hash_is_a_hash_mismatch) {
    const Hash32 rh = hash_at("workflow_replies", "", 1);
    exec("UPDATE workflow_replies SET output_hash = $1, output = NULL WHERE reply_hash = $2",
         {blob(core::keccak256("forged")), blob(rh)});
    exec("UPDATE workflow_replies SET output = x'' WHERE reply_hash = $1", {blob(rh)});
    const auto r = verify();
    EXPECT_FALSE(r.valid);
    ASSERT_FALSE(r.failures.empty());
    EXPECT_EQ(r.failures.front().reason, EvidenceReason::hash_mismatch);
    EXPECT_EQ(r.failures.front().kind, NodeKind::reply);
    EXPECT_EQ(r.failures.front().hash, rh);
}

TEST_F(EvidenceIndex, removed_reply_row_is_a_missing_reply) {
    const Hash32 rh = hash_at("workflow_replies", "", 3);
    exec("DELETE FROM workflow_replies WHERE reply_hash = $1", {blob(rh)});
    const auto r = verify();
    EXPECT_FALSE(r.valid);
    ASSERT_FALSE(r.failures.empty());
    EXPECT_EQ(r.failures.front().reason, EvidenceReason::missing_reply);
    EXPECT_EQ(r.failures.front().hash, rh);
    EXPECT_FALSE(r.fully_proven);
}

TEST_F(EvidenceIndex, removed_task_row_is_a_missing_task) {
    exec("DELETE FROM workflow_tasks WHERE task_hash = $1", {blob(run_.initial_task)});
    const auto r = verify();
    EXPECT_FALSE(r.valid);
    ASSERT_FALSE(r.failures.empty());
    EXPECT_EQ(r.failures.front().reason, EvidenceReason::missing_task);
    EXPECT_EQ(r.failures.front().hash, run_.initial_task);
}

TEST_F(EvidenceIndex, reply_timestamp_before_its_task_breaks_the_order) {
    // ERC-8301 §onAgentReply step 4: anchor_time(task) < reply.timestamp.
    const Hash32 rh = hash_at("workflow_replies", "", 0);
    exec("UPDATE workflow_replies SET timestamp = timestamp - 5 WHERE reply_hash = $1", {blob(rh)});
    const auto r = verify();
    EXPECT_FALSE(r.valid);
    EXPECT_TRUE(has(r, EvidenceReason::timestamp_order)) << to_text(r);
    EXPECT_TRUE(has(r, EvidenceReason::hash_mismatch));  // the timestamp is hashed too
}

TEST_F(EvidenceIndex, reply_timestamp_after_the_next_task_breaks_the_order) {
    const Hash32 rh = hash_at("workflow_replies", "", 1);
    exec("UPDATE workflow_replies SET timestamp = timestamp + 100 WHERE reply_hash = $1",
         {blob(rh)});
    const auto r = verify();
    EXPECT_TRUE(has(r, EvidenceReason::timestamp_order)) << to_text(r);
}

TEST_F(EvidenceIndex, reply_of_another_run_is_wrong_run) {
    const Hash32 rh = hash_at("workflow_replies", "", 2);
    exec("UPDATE workflow_replies SET run_id = $1 WHERE reply_hash = $2",
         {blob(core::keccak256("other run")), blob(rh)});
    const auto r = verify();
    EXPECT_TRUE(has(r, EvidenceReason::wrong_run)) << to_text(r);
}

TEST_F(EvidenceIndex, proven_claim_without_a_proof_record_is_unproven) {
    const Hash32 rh = hash_at("workflow_replies", "", 4);
    exec("UPDATE workflow_replies SET proven = 1 WHERE reply_hash = $1", {blob(rh)});
    exec(
        "DELETE FROM workflow_proofs WHERE output_hash = (SELECT output_hash FROM "
        "workflow_replies WHERE reply_hash = $1)",
        {blob(rh)});
    const auto r = verify();
    EXPECT_FALSE(r.valid);
    ASSERT_FALSE(r.failures.empty());
    EXPECT_EQ(r.failures.front().reason, EvidenceReason::unproven_claim);
    EXPECT_EQ(r.failures.front().hash, rh);
}

TEST_F(EvidenceIndex, no_proofs_is_valid_but_not_fully_proven) {
    // Async stages need no proof: an unproven chain is still a valid chain.
    exec("DELETE FROM workflow_proofs");
    exec("UPDATE workflow_tasks SET proven = 0 WHERE task_seq > 0");
    const auto r = verify();
    EXPECT_TRUE(r.valid) << to_text(r);
    EXPECT_FALSE(r.fully_proven);
    EXPECT_NE(to_text(r).find("not fully proven"), std::string::npos);
}

TEST_F(EvidenceIndex, invalid_proof_record_does_not_prove) {
    exec("UPDATE workflow_proofs SET valid = 0");
    const auto r = verify();
    // The index's task rows claim proven (as getAgentTask did): those claims are now unbacked.
    EXPECT_TRUE(has(r, EvidenceReason::unproven_claim)) << to_text(r);
    EXPECT_FALSE(r.fully_proven);
}

TEST_F(EvidenceIndex, a_hash_listed_twice_is_a_duplicate_link) {
    const Hash32 rh = hash_at("workflow_replies", "", 4);
    core::Bytes twice(rh.begin(), rh.end());
    twice.insert(twice.end(), rh.begin(), rh.end());
    exec("UPDATE workflow_tasks SET prev_reply_hashes = $1 WHERE task_hash = $2",
         {twice, blob(run_.final_task)});
    const auto r = verify();
    EXPECT_TRUE(has(r, EvidenceReason::duplicate_link)) << to_text(r);
}

TEST_F(EvidenceIndex, links_back_to_a_later_reply_form_a_cycle) {
    // task 0 -> reply 2 -> task 2 -> reply 1 -> task 1 -> reply 0 -> task 0.
    const Hash32 r2 = hash_at("workflow_replies", "", 2);
    exec("UPDATE workflow_tasks SET prev_reply_hashes = $1 WHERE task_hash = $2",
         {blob(r2), blob(run_.initial_task)});
    const auto r = verify();
    EXPECT_TRUE(has(r, EvidenceReason::cycle)) << to_text(r);
    EXPECT_TRUE(has(r, EvidenceReason::sequence_order));
    EXPECT_FALSE(r.valid);
}

TEST_F(EvidenceIndex, reused_task_seq_is_a_sequence_failure) {
    exec("UPDATE workflow_tasks SET task_seq = 1 WHERE task_seq = 2");
    const auto r = verify();
    EXPECT_TRUE(has(r, EvidenceReason::sequence_order)) << to_text(r);
}

TEST_F(EvidenceIndex, reply_without_prev_tasks_is_a_broken_link) {
    const Hash32 rh = hash_at("workflow_replies", "", 0);
    exec("UPDATE workflow_replies SET prev_task_hashes = x'' WHERE reply_hash = $1", {blob(rh)});
    const auto r = verify();
    EXPECT_TRUE(has(r, EvidenceReason::broken_link)) << to_text(r);
}

TEST_F(EvidenceIndex, reply_naming_a_reply_is_a_broken_link) {
    const Hash32 r0 = hash_at("workflow_replies", "", 0);
    const Hash32 r1 = hash_at("workflow_replies", "", 1);
    exec("UPDATE workflow_replies SET prev_task_hashes = $1 WHERE reply_hash = $2",
         {blob(r0), blob(r1)});
    const auto r = verify();
    EXPECT_TRUE(has(r, EvidenceReason::broken_link)) << to_text(r);
}

TEST_F(EvidenceIndex, pending_run_is_not_completed) {
    exec("DELETE FROM workflow_results");
    exec("UPDATE workflow_runs SET status = 0");
    const auto r = verify();
    EXPECT_FALSE(r.valid);
    ASSERT_FALSE(r.failures.empty());
    EXPECT_EQ(r.failures.front().reason, EvidenceReason::run_not_completed);
    EXPECT_TRUE(r.tasks.empty());
}

TEST_F(EvidenceIndex, traversal_is_bounded) {
    EvidenceOptions o;
    o.max_nodes = 4;
    auto r = verify(o);
    EXPECT_TRUE(has(r, EvidenceReason::too_large));
    o = {};
    o.max_depth = 3;
    r = verify(o);
    EXPECT_TRUE(has(r, EvidenceReason::too_large));
    EXPECT_EQ(r.depth, 3U);
}

TEST_F(EvidenceIndex, unknown_run_is_a_source_error) {
    auto source =
        make_index_evidence_source(*db_, core::keccak256("nope"), std::nullopt, std::nullopt);
    ASSERT_FALSE(source);
    EXPECT_EQ(source.error().kind, SourceErrorKind::not_found);
}

TEST(verify_evidence, ten_thousand_step_chain_verifies_offline_within_the_goal) {
    // The goal in docs/benchmarks.md (bench/evidence_bench.cpp measures it precisely): a
    // 10,000-step chain from the index in under 1 s; a loose bound here for sanitizer builds.
    auto db = index::open_sqlite(testing::scratch_dir() / "evidence-10k.sqlite");
    ASSERT_TRUE(db);
    SyntheticRunOptions o;
    o.steps = 10'000;
    auto run = write_synthetic_run(**db, o);
    ASSERT_TRUE(run) << run.error().to_string();
    const auto start = std::chrono::steady_clock::now();
    auto source = make_index_evidence_source(**db, run->run_id, std::nullopt, std::nullopt);
    ASSERT_TRUE(source);
    auto report = verify_run(**source, run->run_id);
    const auto elapsed = std::chrono::steady_clock::now() - start;
    ASSERT_TRUE(report);
    EXPECT_TRUE(report->valid);
    EXPECT_EQ(report->tasks.size(), 10'001U);
    EXPECT_EQ(report->replies.size(), 10'000U);
    EXPECT_LT(elapsed, std::chrono::seconds(10));
    // The text tree of a 20,000-level chain renders without recursion.
    EXPECT_GT(to_text(*report).size(), 10'000U * 100);
}

}  // namespace
}  // namespace credence::verify
