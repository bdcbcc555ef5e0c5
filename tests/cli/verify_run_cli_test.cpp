// End-to-end tests of `credence verify run` (ERC-8301 evidence chains, docs/architecture.md
// §verify/) on a devnet: real workflow runs made with the real binary (`credence workflow
// run/reply/prove`), indexed with the real indexer (`credence index --once`), then verified live
// over RPC and offline from the index; both must give the same verdict and the same trace. Tampered
// copies of the real index (a changed output, a removed reply, a moved timestamp, ...) must each
// yield their reason.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <credence/core/bytes.hpp>
#include <credence/core/keccak.hpp>
#include <credence/index/database.hpp>
#include <credence/verify/verifiers/evidence.hpp>
#include <credence/verify/verifiers/evidence_source.hpp>

#include "support/devnet.hpp"

namespace {

using credence::testing::trimmed;

namespace fs = std::filesystem;
namespace verify = credence::verify;
using credence::testing::CommandResult;
using credence::testing::run_command;
using Json = nlohmann::json;

credence::core::Hash32 hash_of(const std::string& hex) {
    auto b = credence::core::from_hex(hex);
    credence::core::Hash32 h{};
    if (b && b->size() == 32) std::copy(b->begin(), b->end(), h.begin());
    return h;
}

class VerifyRunCli : public credence::testing::DevnetFixture {
protected:
    void SetUp() override {
        DevnetFixture::SetUp();
        if (HasFatalFailure()) return;
        files_ = devnet().home() / "files";
        fs::create_directories(files_);
    }

    std::string file(const std::string& name, const std::string& content) {
        const fs::path p = files_ / name;
        std::ofstream(p, std::ios::binary) << content;
        return p.string();
    }

    CommandResult cli(std::vector<std::string> args) {
        return run_command(CREDENCE_BIN, args, devnet().env());
    }

    /// `credence workflow <args> --workflow <wf> --json` (signed by dev key 0), expecting success.
    Json wf(std::vector<std::string> args, const std::string& workflow) {
        args.insert(args.begin(), "workflow");
        if (args[1] == "run" || args[1] == "reply" || args[1] == "prove" || args[1] == "timeout") {
            args.emplace_back("--private-key");
            args.push_back(devnet().dev_key(0));
        }
        args.insert(args.end(), {"--workflow", workflow, "--json"});
        const CommandResult r = cli(args);
        EXPECT_EQ(r.exit_code, 0) << r.err;
        return r.exit_code == 0 ? Json::parse(r.out, nullptr, false) : Json::object();
    }

    /// A SingleStageWorkflow run, replied to and proven: {runId, taskHash, replyHash}.
    std::vector<std::string> single_stage_run() {
        const Json run =
            wf({"run", file("in.txt", "summarize: the quick brown fox")}, "SingleStageWorkflow");
        if (!run.contains("tasks")) return {"", "", ""};
        const std::string task = run["tasks"][0]["taskHash"];
        const Json reply = wf({"reply", task, "--output-file", file("out.txt", "a quick fox")},
                              "SingleStageWorkflow");
        const Json proved = wf({"prove", reply["replyHash"]}, "SingleStageWorkflow");
        EXPECT_EQ(proved["completed"][0]["status"], "Success") << proved.dump();
        return {run["runId"], task, reply["replyHash"]};
    }

    /// ERC-8301 Scenario 5 (ParallelAuditWorkflow): three audits (async, unproven), Qualify after
    /// all three, Settle, the final task. Returns the run id and the Qualify task hash.
    std::pair<std::string, std::string> parallel_audit_run() {
        const std::string w = "ParallelAuditWorkflow";
        const Json run = wf({"run", file("code.sol", "contract C {}")}, w);
        if (!run.contains("tasks") || run["tasks"].size() != 3) return {};
        Json last;
        for (size_t i = 0; i < 3; ++i) {
            last = wf({"reply", run["tasks"][i]["taskHash"], "--output-file",
                       file("audit" + std::to_string(i), "audit " + std::to_string(i))},
                      w);
        }
        if (!last.contains("newTasks") || last["newTasks"].size() != 1) return {};
        const std::string qualify = last["newTasks"][0]["taskHash"];
        const Json rq = wf({"reply", qualify, "--output-file", file("q", "qualified")}, w);
        const Json pq = wf({"prove", rq["replyHash"]}, w);
        if (!pq.contains("newTasks") || pq["newTasks"].size() != 1) return {};
        const Json rs =
            wf({"reply", pq["newTasks"][0]["taskHash"], "--output-file", file("s", "ok")}, w);
        EXPECT_EQ(wf({"prove", rs["replyHash"]}, w)["completed"][0]["status"], "Success");
        return {run["runId"], qualify};
    }

    /// Indexes the whole devnet into a new SQLite file with the real indexer.
    std::string index_db(const std::string& name) {
        const std::string db = (files_ / name).string();
        const CommandResult r = cli({"index", "--once", "--json", "--database", db});
        EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
        return db;
    }

    /// A copy of the index, changed by `sql` (run on the copy with the index's own Database).
    std::string tampered(const std::string& db, const std::string& name, const std::string& sql,
                         std::vector<credence::index::DbValue> params = {}) {
        const std::string copy = (files_ / name).string();
        fs::copy_file(db, copy, fs::copy_options::overwrite_existing);
        for (const char* ext : {"-wal", "-shm"}) {
            if (fs::exists(db + ext)) {
                fs::copy_file(db + ext, copy + ext, fs::copy_options::overwrite_existing);
            }
        }
        auto handle = credence::index::open_sqlite(copy);
        EXPECT_TRUE(handle) << handle.error().to_string();
        if (!handle) return copy;
        auto ok = (*handle)->exec(sql, params);
        EXPECT_TRUE(ok) << ok.error().to_string();
        return copy;
    }

    /// `verify run --json` (live when `db` is empty): {exit code, JSON, stderr}.
    struct Verdict {
        int exit_code = -1;
        Json doc;
        std::string err;
    };
    Verdict verify_run(const std::string& run_id, const std::string& workflow,
                       const std::string& db = "") {
        std::vector<std::string> args{"verify", "run", run_id, "--json"};
        if (!workflow.empty()) args.insert(args.end(), {"--workflow", workflow});
        if (!db.empty()) args.insert(args.end(), {"--database", db});
        const CommandResult r = cli(args);
        return {r.exit_code, Json::parse(r.out, nullptr, false), trimmed(r.err)};
    }

    /// The two reports with the source description removed (the only field allowed to differ).
    static Json comparable(Json doc) {
        doc.erase("source");
        return doc;
    }

    /// In-process: both sources over the same run, through the library.
    void expect_same_in_process(const std::string& run_id, const std::string& workflow,
                                const std::string& db) {
        auto rpc = devnet().rpc();
        auto live = verify::make_rpc_evidence_source(rpc, devnet().address(workflow));
        auto live_report = verify::verify_run(*live, hash_of(run_id));
        ASSERT_TRUE(live_report) << live_report.error().to_string();
        auto handle = credence::index::open_sqlite(db);
        ASSERT_TRUE(handle);
        auto offline = verify::make_index_evidence_source(**handle, hash_of(run_id), std::nullopt,
                                                          std::nullopt);
        ASSERT_TRUE(offline) << offline.error().message;
        auto offline_report = verify::verify_run(**offline, hash_of(run_id));
        ASSERT_TRUE(offline_report) << offline_report.error().to_string();
        EXPECT_TRUE(live_report->valid) << verify::to_text(*live_report);
        EXPECT_EQ(comparable(verify::to_json(*live_report)),
                  comparable(verify::to_json(*offline_report)));
        // Live reads are batched per depth level: one tasks()/replies() call per level.
        EXPECT_EQ(live_report->source_calls, live_report->depth);
    }

    fs::path files_;
};

TEST_F(VerifyRunCli, single_stage_run_is_valid_live_and_offline_with_the_same_trace) {
    const auto ids = single_stage_run();
    const std::string& run_id = ids[0];
    ASSERT_FALSE(run_id.empty());
    const std::string db = index_db("index.sqlite");

    const Verdict live = verify_run(run_id, "SingleStageWorkflow");
    ASSERT_EQ(live.exit_code, 0) << live.err;
    EXPECT_EQ(live.doc["verdict"], "valid");
    EXPECT_EQ(live.doc["fullyProven"], true);
    EXPECT_EQ(live.doc["taskCount"], 2);
    EXPECT_EQ(live.doc["replyCount"], 1);
    EXPECT_EQ(live.doc["tasks"][1]["taskHash"], ids[1]);
    EXPECT_EQ(live.doc["replies"][0]["replyHash"], ids[2]);
    EXPECT_EQ(live.doc["replies"][0]["proof"]["verifier"],
              devnet().address("ECDSAAttestationVerifier").to_checksum_hex());

    const Verdict offline = verify_run(run_id, "", db);
    ASSERT_EQ(offline.exit_code, 0) << offline.err;
    EXPECT_EQ(comparable(live.doc), comparable(offline.doc));
    EXPECT_NE(offline.doc["source"].get<std::string>().find("index"), std::string::npos);

    expect_same_in_process(run_id, "SingleStageWorkflow", db);

    // The text trace: the final task, then back to the initial task.
    const CommandResult text = cli({"verify", "run", run_id});
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_NE(text.out.find("evidence VALID, fully proven"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("└── final task " + live.doc["finalTaskHash"].get<std::string>()),
              std::string::npos)
        << text.out;
    EXPECT_NE(text.out.find("    └── reply " + ids[2]), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("        └── task " + ids[1]), std::string::npos) << text.out;
}

TEST_F(VerifyRunCli, parallel_audit_run_is_valid_live_and_offline_and_not_fully_proven) {
    const auto [run_id, qualify] = parallel_audit_run();
    ASSERT_FALSE(run_id.empty());
    const std::string db = index_db("index.sqlite");
    const Verdict live = verify_run(run_id, "ParallelAuditWorkflow");
    ASSERT_EQ(live.exit_code, 0) << live.err << live.doc.dump(2);
    EXPECT_EQ(live.doc["verdict"], "valid");
    EXPECT_EQ(live.doc["taskCount"], 6);  // final, settle, qualify, 3 audits
    EXPECT_EQ(live.doc["replyCount"], 5);
    // The audits are async and never proven, so the Qualify task (and everything after it) is
    // not proven: a valid chain that is not fully proven.
    EXPECT_EQ(live.doc["fullyProven"], false);
    size_t qualify_seen = 0;
    for (const auto& t : live.doc["tasks"]) {
        if (t["taskHash"] == qualify) {
            ++qualify_seen;
            EXPECT_EQ(t["prevReplyHashes"].size(), 3U);
            EXPECT_EQ(t["proven"], false);
        }
    }
    EXPECT_EQ(qualify_seen, 1U);  // a DAG node is read and reported once
    const Verdict offline = verify_run(run_id, "", db);
    ASSERT_EQ(offline.exit_code, 0) << offline.err;
    EXPECT_EQ(comparable(live.doc), comparable(offline.doc));
    expect_same_in_process(run_id, "ParallelAuditWorkflow", db);
}

TEST_F(VerifyRunCli, tampered_index_copies_yield_their_reasons) {
    const auto ids = single_stage_run();
    ASSERT_FALSE(ids[0].empty());
    const std::string db = index_db("index.sqlite");
    const credence::core::Hash32 reply = hash_of(ids[2]);
    const credence::core::Hash32 task = hash_of(ids[1]);
    auto blob = [](const credence::core::Hash32& h) -> credence::index::DbValue {
        return credence::core::Bytes(h.begin(), h.end());
    };
    struct Case {
        std::string name;
        std::string sql;
        std::vector<credence::index::DbValue> params;
        std::string reason;
        std::string hash;
    };
    const std::vector<Case> cases{
        {"output",
         "UPDATE workflow_replies SET output = x'666f72676564' WHERE reply_hash = $1",
         {blob(reply)},
         "content_mismatch",
         ids[2]},
        {"operation",
         "UPDATE workflow_replies SET operation_id = $1 WHERE reply_hash = $2",
         {blob(credence::core::keccak256("forged")), blob(reply)},
         "hash_mismatch",
         ids[2]},
        {"no-reply",
         "DELETE FROM workflow_replies WHERE reply_hash = $1",
         {blob(reply)},
         "missing_reply",
         ids[2]},
        {"no-task",
         "DELETE FROM workflow_tasks WHERE task_hash = $1",
         {blob(task)},
         "missing_task",
         ids[1]},
        // The reply moved to its task's own second: not after the task's anchor time.
        {"time",
         "UPDATE workflow_replies SET timestamp = (SELECT timestamp FROM workflow_tasks WHERE "
         "task_hash = $1) WHERE reply_hash = $2",
         {blob(task), blob(reply)},
         "timestamp_order",
         ""},
        {"unproven",
         "UPDATE workflow_proofs SET valid = 0 WHERE output_hash = (SELECT output_hash FROM "
         "workflow_replies WHERE reply_hash = $1)",
         {blob(reply)},
         "unproven_claim",
         ""},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        const std::string copy = tampered(db, c.name + ".sqlite", c.sql, c.params);
        const Verdict v = verify_run(ids[0], "", copy);
        EXPECT_EQ(v.exit_code, 1);
        EXPECT_EQ(v.doc["verdict"], "invalid") << v.doc.dump(2);
        bool found = false;
        for (const auto& f : v.doc["failures"]) found = found || f["reason"] == c.reason;
        EXPECT_TRUE(found) << v.doc["failures"].dump(2);
        if (!c.hash.empty()) {
            EXPECT_EQ(v.doc["firstFailure"]["reason"], c.reason);
            EXPECT_EQ(v.doc["firstFailure"]["hash"], c.hash);
        }
        EXPECT_NE(v.err.find("is invalid: "), std::string::npos) << v.err;
        EXPECT_EQ(v.err.find('\n'), std::string::npos) << v.err;
    }
    // The untouched index still verifies.
    EXPECT_EQ(verify_run(ids[0], "", db).exit_code, 0);
}

TEST_F(VerifyRunCli, failed_run_reads_the_same_live_and_offline) {
    // docs/cli.md §credence verify run: live and offline print the same document except `source`.
    // ERC-8301 §result(): completedAt stays 0 unless the run succeeded, although the Failed
    // run's WorkflowCompleted carries its block time.
    const Json run =
        wf({"run", file("in.txt", "to be timed out"), "--expires-in", "60"}, "SingleStageWorkflow");
    ASSERT_TRUE(run.contains("tasks")) << run.dump();
    auto rpc = devnet().rpc();
    ASSERT_TRUE(rpc.request("evm_increaseTime", Json::array({120})));
    ASSERT_TRUE(rpc.request("evm_mine", Json::array()));
    const Json timed_out = wf({"timeout", run["tasks"][0]["taskHash"]}, "SingleStageWorkflow");
    ASSERT_EQ(timed_out["completed"][0]["status"], "Failed") << timed_out.dump();
    const std::string db = index_db("index.sqlite");

    const Verdict live = verify_run(run["runId"], "SingleStageWorkflow");
    const Verdict offline = verify_run(run["runId"], "", db);
    EXPECT_EQ(live.exit_code, 1) << live.err;
    EXPECT_EQ(offline.exit_code, 1) << offline.err;
    EXPECT_EQ(live.doc["status"], "Failed");
    EXPECT_EQ(live.doc["completedAt"], 0);
    EXPECT_EQ(live.doc["firstFailure"]["reason"], "run_not_completed");
    EXPECT_EQ(comparable(live.doc), comparable(offline.doc)) << offline.doc.dump(2);
}

TEST_F(VerifyRunCli, replies_with_the_same_statement_are_proven_one_by_one) {
    // ERC-8301 §onAgentProve: proven = true when onAgentProve has succeeded for this replyHash.
    // Two audits answered by the same key with the same output make the same ERC-8274 statement
    // (taskId = runId, agentId = the replier, the shared inputHash, the same outputHash); only
    // one of them is proven on-chain, so only that one is proven in the report.
    const std::string w = "ParallelAuditWorkflow";
    const Json run = wf({"run", file("code.sol", "contract D {}")}, w);
    ASSERT_TRUE(run.contains("tasks") && run["tasks"].size() == 3) << run.dump();
    const std::string same = file("same", "no findings");
    const Json a0 = wf({"reply", run["tasks"][0]["taskHash"], "--output-file", same}, w);
    const Json a1 = wf({"reply", run["tasks"][1]["taskHash"], "--output-file", same}, w);
    // Async audits may be proven while the run is pending (ERC-8301 §onAgentProve).
    wf({"prove", a0["replyHash"]}, w);
    const Json a2 =
        wf({"reply", run["tasks"][2]["taskHash"], "--output-file", file("other", "one nit")}, w);
    wf({"prove", a2["replyHash"]}, w);
    ASSERT_EQ(a2["newTasks"].size(), 1U) << a2.dump();
    const std::string qualify = a2["newTasks"][0]["taskHash"];
    const Json rq = wf({"reply", qualify, "--output-file", file("q", "qualified")}, w);
    const Json pq = wf({"prove", rq["replyHash"]}, w);
    ASSERT_EQ(pq["newTasks"].size(), 1U) << pq.dump();
    const Json rs =
        wf({"reply", pq["newTasks"][0]["taskHash"], "--output-file", file("s", "settled")}, w);
    ASSERT_EQ(wf({"prove", rs["replyHash"]}, w)["completed"][0]["status"], "Success");
    const Json unproven_task = wf({"task", qualify}, w);
    EXPECT_EQ(unproven_task["proven"], false);  // getAgentTask: one of its replies is unproven

    const std::string db = index_db("index.sqlite");
    const Verdict live = verify_run(run["runId"], w);
    const Verdict offline = verify_run(run["runId"], "", db);
    ASSERT_EQ(live.exit_code, 0) << live.err << live.doc.dump(2);
    ASSERT_EQ(offline.exit_code, 0) << offline.err;
    for (const Verdict* v : {&live, &offline}) {
        SCOPED_TRACE(v->doc["source"].dump());
        EXPECT_EQ(v->doc["verdict"], "valid");
        EXPECT_EQ(v->doc["fullyProven"], false);
        std::map<std::string, bool> proven;
        for (const auto& r : v->doc["replies"]) {
            if (r.contains("replyHash")) proven[r["replyHash"]] = r["proven"];
        }
        EXPECT_EQ(proven[a0["replyHash"]], true);
        EXPECT_EQ(proven[a1["replyHash"]], false);
        EXPECT_EQ(proven[a2["replyHash"]], true);
        for (const auto& t : v->doc["tasks"]) {
            if (t.contains("taskHash") && t["taskHash"] == qualify) {
                EXPECT_EQ(t["proven"], false);
            }
        }
    }
    EXPECT_EQ(comparable(live.doc), comparable(offline.doc));
}

TEST_F(VerifyRunCli, pending_run_is_not_completed) {
    const Json run = wf({"run", file("in.txt", "pending input")}, "SingleStageWorkflow");
    ASSERT_TRUE(run.contains("runId"));
    const Verdict v = verify_run(run["runId"], "SingleStageWorkflow");
    EXPECT_EQ(v.exit_code, 1);
    EXPECT_EQ(v.doc["status"], "Pending");
    EXPECT_EQ(v.doc["firstFailure"]["reason"], "run_not_completed");
    EXPECT_NE(v.err.find("run_not_completed"), std::string::npos) << v.err;
}

TEST_F(VerifyRunCli, bad_arguments_are_one_line_errors) {
    CommandResult r = cli({"verify", "run", "0x1234"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(trimmed(r.err).find('\n'), std::string::npos) << r.err;
    r = cli({"verify", "run", "0x" + std::string(64, 'a'), "--database",
             (files_ / "missing.sqlite").string()});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("no index at"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(files_ / "missing.sqlite"));  // never created by a read
    const std::string db = index_db("empty.sqlite");
    r = cli({"verify", "run", "0x" + std::string(64, 'a'), "--database", db});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("holds no run"), std::string::npos) << r.err;
}

}  // namespace
