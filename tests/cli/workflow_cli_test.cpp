// End-to-end tests of `credence workflow` (ERC-8301) against a devnet with every contract: the
// real binary, a real anvil, and the chain read back with the real `cast`, so what the CLI prints
// is checked against the contract's own storage, events and EIP-712 digests.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <credence/chain/operation_journal.hpp>
#include <credence/core/address.hpp>
#include <credence/core/bytes.hpp>

#include "cli/erc8004_cli_helpers.hpp"
#include "support/devnet.hpp"

namespace {

using credence::testing::trimmed;

namespace fs = std::filesystem;
using credence::testing::CommandResult;
using credence::testing::run_command;
using Json = nlohmann::json;

using credence::testing::cast_binary;
using credence::testing::erc8004::hex_of;

class WorkflowCli : public credence::testing::DevnetFixture {
protected:
    void SetUp() override {
        DevnetFixture::SetUp();
        if (HasFatalFailure()) return;
        workflow_ = devnet().address("SingleStageWorkflow").to_checksum_hex();
        verifier_ = devnet().address("ECDSAAttestationVerifier").to_checksum_hex();
        files_ = devnet().home() / "files";
        fs::create_directories(files_);
    }

    std::string file(const std::string& name, const std::string& content) {
        const fs::path p = files_ / name;
        std::ofstream(p, std::ios::binary) << content;
        return p.string();
    }

    /// `credence workflow <args> --private-key <dev key 0>` with the devnet's environment.
    CommandResult wf(std::vector<std::string> args,
                     const std::map<std::string, std::string>& env = {}, size_t key = 0) {
        args.insert(args.begin(), "workflow");
        if (args[1] == "run" || args[1] == "reply" || args[1] == "prove" || args[1] == "timeout") {
            args.emplace_back("--private-key");
            args.push_back(devnet().dev_key(key));
        }
        auto e = devnet().env();
        for (const auto& [k, v] : env) e[k] = v;
        return run_command(CREDENCE_BIN, args, e);
    }

    /// The same with --json, expecting success.
    Json wf_json(std::vector<std::string> args, const std::map<std::string, std::string>& env = {},
                 size_t key = 0) {
        args.emplace_back("--json");
        const CommandResult r = wf(std::move(args), env, key);
        EXPECT_EQ(r.exit_code, 0) << r.err;
        if (r.exit_code != 0) return Json::object();
        return Json::parse(r.out, nullptr, false);
    }

    /// A failing command's single stderr line.
    std::string wf_error(std::vector<std::string> args,
                         const std::map<std::string, std::string>& env = {}) {
        const CommandResult r = wf(std::move(args), env);
        EXPECT_EQ(r.exit_code, 1) << r.out;
        const std::string err = trimmed(r.err);
        EXPECT_EQ(err.find('\n'), std::string::npos) << "not one line: " << err;
        return err;
    }

    std::string cast(std::vector<std::string> args) {
        if (args[0] != "keccak") {  // the only offline command used here
            args.emplace_back("--rpc-url");
            args.push_back(devnet().rpc_url());
        }
        const CommandResult r = run_command(cast_binary(), args);
        EXPECT_EQ(r.exit_code, 0) << "cast " << args[0] << ": " << r.err;
        return trimmed(r.out);
    }

    /// Starts a run of `input`; returns {runId, taskHash}.
    std::pair<std::string, std::string> start_run(const std::string& input,
                                                  std::vector<std::string> extra = {}) {
        std::vector<std::string> args{"run", file("input.txt", input)};
        args.insert(args.end(), extra.begin(), extra.end());
        const Json r = wf_json(args);
        if (!r.contains("tasks") || r["tasks"].empty()) {
            ADD_FAILURE() << "run printed no task: " << r.dump();
            return {};
        }
        return {r["runId"], r["tasks"][0]["taskHash"]};
    }

    /// Number of AgentReplyAnchored logs of a run, counted by cast.
    size_t anchored_count(const std::string& run_id) {
        const std::string out =
            cast({"logs", "--json", "--from-block", "0", "--address", workflow_,
                  "AgentReplyAnchored(bytes32 indexed,bytes32 indexed,address indexed)", run_id});
        const Json logs = Json::parse(out, nullptr, false);
        EXPECT_TRUE(logs.is_array()) << out;
        return logs.is_array() ? logs.size() : 0;
    }

    std::string reply_hash_by_operation(const std::string& run_id, const std::string& op) {
        return cast({"call", workflow_, "getReplyHashByOperation(bytes32,address,bytes32)(bytes32)",
                     run_id, devnet().dev_address(0).to_checksum_hex(), op});
    }

    std::vector<credence::chain::OperationEntry> journal_entries() {
        credence::chain::OperationJournal j(credence::chain::journal_path(devnet().home()));
        auto e = j.entries();
        EXPECT_TRUE(e) << e.error().detail;
        return e ? *e : std::vector<credence::chain::OperationEntry>{};
    }

    std::string workflow_;
    std::string verifier_;
    fs::path files_;
};

}  // namespace

TEST_F(WorkflowCli, happy_path_run_reply_prove_result_trace) {
    const std::string input = "summarize: the quick brown fox\n";
    const Json run = wf_json({"run", file("input.txt", input)});
    ASSERT_TRUE(run.contains("runId")) << run.dump();
    const std::string run_id = run["runId"];
    const std::string task = run["tasks"][0]["taskHash"];
    // ERC-8301 §run(): inputHash = keccak256 of the exact input bytes (cast computes it).
    EXPECT_EQ(run["inputHash"], cast({"keccak", hex_of(input)}));
    // The stored task (read by cast): its inputHash, its run, the plaintext input.
    const std::string stored = cast({"call", workflow_,
                                     "getAgentTask(bytes32)((uint8,uint256,bytes32,bytes,uint256,"
                                     "uint256,bytes32[],bytes32),bool)",
                                     task});
    EXPECT_NE(stored.find(run["inputHash"].get<std::string>()), std::string::npos) << stored;
    EXPECT_NE(stored.find(run_id), std::string::npos) << stored;
    EXPECT_NE(stored.find(hex_of(input)), std::string::npos) << stored;

    const Json shown = wf_json({"task", task});
    EXPECT_EQ(shown["runId"], run_id);
    EXPECT_EQ(shown["inputHash"], run["inputHash"]);
    EXPECT_EQ(shown["eligible"], true);
    EXPECT_EQ(shown["proven"], true);  // initial task: prevReplyHashes empty

    const std::string output = "a fox, quick and brown";
    const Json reply = wf_json({"reply", task, "--output-file", file("output.txt", output)});
    ASSERT_TRUE(reply.contains("replyHash")) << reply.dump();
    EXPECT_EQ(reply["outcome"], "anchored");
    EXPECT_EQ(reply["reused"], false);
    EXPECT_EQ(reply["outputHash"], cast({"keccak", hex_of(output)}));
    const std::string reply_hash = reply["replyHash"];
    EXPECT_EQ(reply_hash_by_operation(run_id, reply["operationId"]), reply_hash);
    EXPECT_EQ(anchored_count(run_id), 1U);
    // The journal recorded the operation as mined, with the same ids.
    const auto entries = journal_entries();
    ASSERT_EQ(entries.size(), 1U);
    EXPECT_EQ(entries[0].status, credence::chain::OperationStatus::mined);
    EXPECT_EQ(credence::core::to_hex(entries[0].operation_id),
              reply["operationId"].get<std::string>());

    EXPECT_EQ(wf_json({"result", run_id})["status"], "Pending");

    // A signer the verifier never enabled gets the fix, not a bare ProofRejected; nothing is sent.
    const std::string stranger = devnet().dev_address(5).to_checksum_hex();
    ASSERT_EQ(cast({"call", verifier_, "isAttester(address)(bool)", stranger}), "false");
    EXPECT_EQ(wf_error({"prove", reply_hash, "--attester-key", devnet().dev_key(5)}),
              "error: " + stranger + " is not an attester of the workflow's verifier " + verifier_ +
                  ": sign with --attester-key of one it enabled, or have its owner "
                  "call setAttester(" +
                  stranger + ", true)");

    const Json proved = wf_json({"prove", reply_hash});
    ASSERT_TRUE(proved.contains("statements")) << proved.dump();
    EXPECT_EQ(proved["verifier"], verifier_);
    EXPECT_EQ(proved["statement"], "AgentAttestation");
    // The digest we signed is the one the verifier computes (ERC-8301 Option A: taskId = runId,
    // agentId = bytes32(uint160(replier))).
    const std::string agent_id =
        "0x000000000000000000000000" + devnet().dev_address(0).to_lower_hex().substr(2);
    EXPECT_EQ(
        proved["statements"][0]["digest"],
        cast({"call", verifier_, "agentAttestationDigest(bytes32,bytes32,bytes32,bytes32)(bytes32)",
              run_id, agent_id, run["inputHash"], reply["outputHash"]}));
    ASSERT_EQ(proved["completed"].size(), 1U);
    EXPECT_EQ(proved["completed"][0]["status"], "Success");

    const Json result = wf_json({"result", run_id});
    EXPECT_EQ(result["status"], "Success");
    const std::string final_task = result["finalTaskHash"];
    EXPECT_EQ(
        cast({"call", workflow_, "result(bytes32)(uint8,bytes32,uint256)", run_id}).substr(0, 1),
        "1");
    EXPECT_NE(cast({"call", workflow_, "result(bytes32)(uint8,bytes32,uint256)", run_id})
                  .find(final_task),
              std::string::npos);

    // trace: task -> reply -> final task.
    const Json trace = wf_json({"trace", run_id});
    EXPECT_EQ(trace["status"], "Success");
    EXPECT_EQ(trace["taskCount"], 2);
    EXPECT_EQ(trace["replyCount"], 1);
    ASSERT_EQ(trace["tree"].size(), 1U);
    const Json& t0 = trace["tree"][0];
    EXPECT_EQ(t0["taskHash"], task);
    ASSERT_EQ(t0["replies"].size(), 1U);
    const Json& r0 = t0["replies"][0];
    EXPECT_EQ(r0["replyHash"], reply_hash);
    EXPECT_EQ(r0["operationId"], reply["operationId"]);
    EXPECT_EQ(r0["proven"], true);
    ASSERT_EQ(r0["tasks"].size(), 1U);
    EXPECT_EQ(r0["tasks"][0]["type"], "finalTask");
    EXPECT_EQ(r0["tasks"][0]["taskHash"], final_task);
    EXPECT_EQ(r0["tasks"][0]["stage"], 255);

    const CommandResult text = wf({"trace", run_id});
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_NE(text.out.find("└── task " + task), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("    └── reply " + reply_hash), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("        └── final task " + final_task), std::string::npos) << text.out;
}

TEST_F(WorkflowCli, reused_operation_id_with_different_content_is_rejected) {
    const auto [run_id, task] = start_run("input");
    const std::string op = "0x" + std::string(62, '0') + "2a";
    const Json first =
        wf_json({"reply", task, "--output-file", file("a.txt", "output A"), "--operation-id", op});
    ASSERT_EQ(first["outcome"], "anchored") << first.dump();

    // The journal catches it before anything is sent.
    const std::string local =
        wf_error({"reply", task, "--output-file", file("b.txt", "output B"), "--operation-id", op});
    EXPECT_NE(local.find("error: operationId conflict: operationId " + op +
                         " was already used in run " + run_id + " for different content"),
              std::string::npos)
        << local;

    // Without that journal (another machine), the contract rejects it (ERC-8301 §onAgentReply
    // step 1: different replyDigest under a bound operationKey MUST revert).
    const fs::path journal = credence::chain::journal_path(devnet().home());
    fs::rename(journal, journal.string() + ".aside");
    const std::string chain_err =
        wf_error({"reply", task, "--output-file", file("b.txt", "output B"), "--operation-id", op});
    const std::string op_key =
        cast({"call", workflow_, "operationKeyOf(bytes32,address,bytes32)(bytes32)", run_id,
              devnet().dev_address(0).to_checksum_hex(), op});
    EXPECT_NE(chain_err.find("onAgentReply reverted: OperationConflict(operationKey=" + op_key),
              std::string::npos)
        << chain_err;
    // The first binding is not overwritten; only one reply was anchored.
    EXPECT_EQ(reply_hash_by_operation(run_id, op), first["replyHash"].get<std::string>());
    EXPECT_EQ(anchored_count(run_id), 1U);
}

TEST_F(WorkflowCli, reply_after_run_completion_is_rejected_and_retry_still_resolves) {
    const auto [run_id, task] = start_run("input");
    const std::string out_file = file("out.txt", "done");
    const Json reply = wf_json({"reply", task, "--output-file", out_file});
    ASSERT_TRUE(reply.contains("replyHash"));
    ASSERT_EQ(wf_json({"prove", reply["replyHash"]})["completed"][0]["status"], "Success");

    // A new operation (new content) on the completed run: ERC-8301 §Terminal stage 4 rejects it.
    const std::string err =
        wf_error({"reply", task, "--output-file", file("late.txt", "a late second opinion")});
    EXPECT_NE(err.find("onAgentReply reverted: RunNotPending(workflowRunId=" + run_id),
              std::string::npos)
        << err;
    // A matching retry of the accepted operation stays resolvable to its canonical replyHash.
    const Json retry = wf_json({"reply", task, "--output-file", out_file});
    EXPECT_EQ(retry["reused"], true);
    EXPECT_EQ(retry["operationId"], reply["operationId"]);
    EXPECT_EQ(retry["replyHash"], reply["replyHash"]);
    EXPECT_EQ(retry["outcome"], "already-anchored");
    EXPECT_EQ(anchored_count(run_id), 1U);
}

TEST_F(WorkflowCli, timeout_of_an_expired_task_fails_the_run) {
    const auto [run_id, task] = start_run("input", {"--expires-in", "60"});
    const std::string early = wf_error({"timeout", task});
    EXPECT_NE(early.find("replyTimeout reverted: NotExpired(taskHash=" + task), std::string::npos)
        << early;

    cast({"rpc", "evm_increaseTime", "120"});
    cast({"rpc", "evm_mine"});
    const Json t = wf_json({"timeout", task});
    ASSERT_EQ(t["completed"].size(), 1U) << t.dump();
    EXPECT_EQ(t["completed"][0]["status"], "Failed");
    EXPECT_EQ(wf_json({"result", run_id})["status"], "Failed");
    EXPECT_EQ(
        cast({"call", workflow_, "result(bytes32)(uint8,bytes32,uint256)", run_id}).substr(0, 1),
        "2");
    const std::string late = wf_error({"reply", task, "--output-file", file("o.txt", "late")});
    EXPECT_NE(late.find("RunNotPending(workflowRunId=" + run_id), std::string::npos) << late;
    // trace shows the failed completion.
    const Json trace = wf_json({"trace", run_id});
    EXPECT_EQ(trace["status"], "Failed");
    EXPECT_EQ(trace["completed"]["status"], "Failed");
}

TEST_F(WorkflowCli, expires_in_counts_from_now_when_the_latest_block_is_stale) {
    // An idle devnet: the latest block was mined 100 s ago and the next one carries the time it
    // is mined. --expires-in 5 from the stale block would be in the past (InvalidExpiry).
    const auto wall = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::seconds>(
                                                std::chrono::system_clock::now().time_since_epoch())
                                                .count());
    cast({"rpc", "anvil_setTime", std::to_string(wall - 100)});
    cast({"rpc", "evm_mine"});
    cast({"rpc", "anvil_setTime", std::to_string(wall)});
    ASSERT_LT(devnet().chain_time(), wall - 50);  // the latest block is stale
    const Json r = wf_json({"run", file("input.txt", "soon"), "--expires-in", "5"});
    ASSERT_TRUE(r.contains("tasks")) << r.dump();
    EXPECT_GE(r["expiresAt"].get<uint64_t>(), wall + 5);
    EXPECT_LE(r["expiresAt"].get<uint64_t>(), wall + 5 + 30);
}

TEST_F(WorkflowCli, crash_after_journal_before_send_retry_reuses_operation_id) {
    const auto [run_id, task] = start_run("input");
    const std::string out_file = file("out.txt", "result");
    const CommandResult crashed =
        wf({"reply", task, "--output-file", out_file}, {{"CREDENCE_FAULT", "after-journal"}});
    ASSERT_EQ(crashed.exit_code, -1) << "expected death by signal; stderr: " << crashed.err;
    auto entries = journal_entries();
    ASSERT_EQ(entries.size(), 1U);
    EXPECT_EQ(entries[0].status, credence::chain::OperationStatus::pending);
    const std::string op = credence::core::to_hex(entries[0].operation_id);
    EXPECT_EQ(anchored_count(run_id), 0U);  // nothing reached the chain

    const Json retry = wf_json({"reply", task, "--output-file", out_file});
    EXPECT_EQ(retry["reused"], true);
    EXPECT_EQ(retry["operationId"], op);
    EXPECT_EQ(retry["outcome"], "anchored");
    EXPECT_EQ(anchored_count(run_id), 1U);
    EXPECT_EQ(reply_hash_by_operation(run_id, op), retry["replyHash"].get<std::string>());
}

TEST_F(WorkflowCli, crash_after_send_retry_finds_the_anchored_reply) {
    const auto [run_id, task] = start_run("input");
    const std::string out_file = file("out.txt", "result");
    const CommandResult crashed =
        wf({"reply", task, "--output-file", out_file}, {{"CREDENCE_FAULT", "after-send"}});
    ASSERT_EQ(crashed.exit_code, -1) << "expected death by signal; stderr: " << crashed.err;
    auto entries = journal_entries();
    ASSERT_EQ(entries.size(), 1U);
    EXPECT_EQ(entries[0].status, credence::chain::OperationStatus::sent);
    const std::string op = credence::core::to_hex(entries[0].operation_id);
    const auto txn_hash = entries[0].txn_hash.value_or(credence::core::Hash32{});
    ASSERT_NE(txn_hash, credence::core::Hash32{});
    // The transaction the crashed process sent is on the chain (cast reads its receipt).
    const Json receipt =
        Json::parse(cast({"receipt", "--json", credence::core::to_hex(txn_hash)}), nullptr, false);
    EXPECT_EQ(receipt.value("status", ""), "0x1") << receipt.dump();

    const Json retry = wf_json({"reply", task, "--output-file", out_file});
    EXPECT_EQ(retry["reused"], true);
    EXPECT_EQ(retry["operationId"], op);
    EXPECT_EQ(retry["outcome"], "already-anchored");
    EXPECT_EQ(anchored_count(run_id), 1U);
    EXPECT_EQ(reply_hash_by_operation(run_id, op), retry["replyHash"].get<std::string>());
    EXPECT_EQ(journal_entries()[0].status, credence::chain::OperationStatus::mined);
}

TEST_F(WorkflowCli, new_operation_over_same_content_anchors_a_second_reply) {
    // ERC-8301: an intentional new operation over the same output MUST use a new operationId.
    const auto [run_id, task] = start_run("input");
    const std::string out_file = file("out.txt", "same output");
    const Json a = wf_json({"reply", task, "--output-file", out_file});
    const Json b = wf_json({"reply", task, "--output-file", out_file, "--new-operation"});
    EXPECT_EQ(b["reused"], false);
    EXPECT_NE(a["operationId"], b["operationId"]);
    EXPECT_NE(a["replyHash"], b["replyHash"]);
    EXPECT_EQ(anchored_count(run_id), 2U);
}

TEST_F(WorkflowCli, corrupt_journal_is_a_one_line_error_and_nothing_is_sent) {
    const auto [run_id, task] = start_run("input");
    const fs::path journal = credence::chain::journal_path(devnet().home());
    fs::create_directories(journal.parent_path());
    std::ofstream(journal) << "garbage\n";
    const std::string err = wf_error({"reply", task, "--output-file", file("o.txt", "x")});
    EXPECT_NE(err.find("corrupt journal: " + journal.string() + " line 1"), std::string::npos)
        << err;
    EXPECT_EQ(anchored_count(run_id), 0U);
}

TEST_F(WorkflowCli, bad_arguments_are_one_line_errors) {
    EXPECT_NE(wf_error({"task", "0x1234"}).find("task hash '0x1234': expected 0x + 64 hex digits"),
              std::string::npos);
    const std::string unknown = wf_error({"task", "0x" + std::string(64, '1')});
    EXPECT_NE(unknown.find("UnknownTask(taskHash=0x" + std::string(64, '1')), std::string::npos)
        << unknown;
    EXPECT_NE(wf_error({"result", "0x" + std::string(64, '1'), "--workflow", "NoSuchWorkflow"})
                  .find("NoSuchWorkflow"),
              std::string::npos);
}

TEST_F(WorkflowCli, parallel_audit_trace_is_a_dag_printed_as_a_tree) {
    // ERC-8301 Scenario 5: three audit tasks, one Qualify task after all three replies, Settle,
    // final task. The Qualify task has three parents: printed once, referenced twice.
    const std::vector<std::string> wf_flag{"--workflow", "ParallelAuditWorkflow"};
    auto with = [&](std::vector<std::string> args) {
        args.insert(args.end(), wf_flag.begin(), wf_flag.end());
        return args;
    };
    const Json run = wf_json(with({"run", file("code.sol", "contract C {}")}));
    ASSERT_EQ(run["tasks"].size(), 3U) << run.dump();
    const std::string run_id = run["runId"];
    Json last;
    for (size_t i = 0; i < 3; ++i) {
        last = wf_json(with({"reply", run["tasks"][i]["taskHash"], "--output-file",
                             file("audit" + std::to_string(i), "audit " + std::to_string(i))}));
    }
    ASSERT_EQ(last["newTasks"].size(), 1U) << last.dump();
    const std::string qualify = last["newTasks"][0]["taskHash"];
    const Json rq = wf_json(with({"reply", qualify, "--output-file", file("q", "qualified")}));
    const Json pq = wf_json(with({"prove", rq["replyHash"]}));
    ASSERT_EQ(pq["newTasks"].size(), 1U) << pq.dump();
    const Json rs =
        wf_json(with({"reply", pq["newTasks"][0]["taskHash"], "--output-file", file("s", "ok")}));
    ASSERT_EQ(wf_json(with({"prove", rs["replyHash"]}))["completed"][0]["status"], "Success");

    const Json trace = wf_json(with({"trace", run_id}));
    EXPECT_EQ(trace["taskCount"], 6);  // 3 audits, qualify, settle, final
    EXPECT_EQ(trace["replyCount"], 5);
    ASSERT_EQ(trace["tree"].size(), 3U);
    const Json& q_full = trace["tree"][0]["replies"][0]["tasks"][0];
    EXPECT_EQ(q_full["taskHash"], qualify);
    EXPECT_EQ(q_full["prevReplyHashes"].size(), 3U);
    EXPECT_EQ(trace["tree"][1]["replies"][0]["tasks"][0]["ref"], qualify);
    EXPECT_EQ(trace["tree"][2]["replies"][0]["tasks"][0]["ref"], qualify);
    // The stored Qualify task names the three audit replies (cast reads it).
    const std::string stored =
        cast({"call", devnet().address("ParallelAuditWorkflow").to_checksum_hex(),
              "getAgentTask(bytes32)((uint8,uint256,bytes32,bytes,uint256,uint256,bytes32[],"
              "bytes32),bool)",
              qualify});
    for (size_t i = 0; i < 3; ++i) {
        const std::string audit_reply = trace["tree"][i]["replies"][0]["replyHash"];
        EXPECT_NE(stored.find(audit_reply), std::string::npos) << stored;
    }
}
