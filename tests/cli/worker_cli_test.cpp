// End-to-end tests of `credence worker` and `credence validator` (docs/agent.md) against a devnet
// with every contract: the real binary, a real anvil, real transactions and proofs.
//   - crash: the worker SIGKILLs itself right after eth_sendRawTransaction of its reply
//     (CREDENCE_FAULT=after-submit); a restart finds the journaled operation, and there is
//     exactly one canonical reply (getReplyHashByOperation, one AgentReplyAnchored) and the run
//     completes;
//   - a three-stage pipeline completed by one worker with --once;
//   - SIGTERM stops a running worker cleanly;
//   - a validator answers a request (score and responseHash checked on chain) and refuses one
//     whose requestHash is wrong;
//   - eth_subscribe: a worker polling every 30 s answers a new task within seconds (the wake-up
//     of its subscription to anvil's WebSocket), and bad --ws-url / --no-subscribe use is one line.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <credence/chain/bindings/i_agent_workflow.hpp>
#include <credence/chain/bindings/identity_registry.hpp>
#include <credence/chain/bindings/validation_registry.hpp>
#include <credence/chain/txn_sender.hpp>
#include <credence/core/data_uri.hpp>
#include <credence/core/keccak.hpp>
#include <support/child_process.hpp>
#include <support/devnet.hpp>

extern char** environ;  // NOLINT(readability-redundant-declaration)

namespace {

namespace fs = std::filesystem;
namespace iw = credence::chain::bindings::i_agent_workflow;
namespace vr = credence::chain::bindings::validation_registry;
namespace ir = credence::chain::bindings::identity_registry;
using credence::testing::CommandResult;
using credence::testing::run_command;
using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;
namespace core = credence::core;
namespace chain = credence::chain;

std::vector<Json> json_lines(const std::string& text) {
    std::vector<Json> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        auto j = Json::parse(line, nullptr, false);
        if (!j.is_discarded()) out.push_back(std::move(j));
    }
    return out;
}

class WorkerCli : public credence::testing::DevnetFixture {
protected:
    CommandResult credence(std::vector<std::string> args,
                           const std::map<std::string, std::string>& extra = {}) {
        auto e = devnet().env();
        for (const auto& [k, v] : extra) e[k] = v;
        return run_command(CREDENCE_BIN, args, e);
    }

    std::string file(const std::string& name, const std::string& content) {
        const fs::path p = devnet().home() / name;
        std::ofstream(p, std::ios::binary) << content;
        return p.string();
    }

    /// `credence workflow run` from dev account 9; the run id.
    std::string start_run(const std::string& workflow, const std::string& input) {
        const auto r = credence({"workflow", "run", file("input.txt", input), "--workflow",
                                 workflow, "--private-key", devnet().dev_key(9), "--json"});
        EXPECT_EQ(r.exit_code, 0) << r.err;
        const auto j = Json::parse(r.out, nullptr, false);
        return j.is_object() ? j.value("runId", "") : "";
    }

    std::vector<std::string> worker_args(const std::string& workflow, size_t key,
                                         const fs::path& state, const std::string& handler) {
        return {"worker",
                "--workflow",
                workflow,
                "--handler",
                handler,
                "--private-key",
                devnet().dev_key(key),
                "--attester-key",
                devnet().dev_key(0),
                "--state-dir",
                state.string(),
                "--json"};
    }

    Json result(const std::string& workflow, const std::string& run_id) {
        const auto r = credence({"workflow", "result", run_id, "--workflow", workflow, "--json"});
        EXPECT_EQ(r.exit_code, 0) << r.err;
        return Json::parse(r.out, nullptr, false);
    }
};

TEST_F(WorkerCli, killed_after_sending_its_reply_a_restarted_worker_makes_no_second_reply) {
    const std::string wf = "SingleStageWorkflow";
    const std::string run_id = start_run(wf, "crash me");
    ASSERT_FALSE(run_id.empty());
    const fs::path state = devnet().home() / "worker-crash";
    auto args = worker_args(wf, 1, state, "builtin:uppercase");
    args.emplace_back("--once");

    // 1. Dies (SIGKILL) right after eth_sendRawTransaction returned: no receipt, no "sent" record.
    const auto crashed = credence(args, {{"CREDENCE_FAULT", "after-submit"}});
    EXPECT_EQ(crashed.exit_code, -1) << "expected death by signal; stderr: " << crashed.err;
    std::ifstream journal_file(state / "operations.jsonl");
    std::stringstream journal;
    journal << journal_file.rdbuf();
    ASSERT_NE(journal.str().find("\"status\":\"pending\""), std::string::npos) << journal.str();
    EXPECT_EQ(journal.str().find("\"status\":\"sent\""), std::string::npos);
    EXPECT_EQ(result(wf, run_id).value("status", ""), "Pending");

    // 2. Restarted: the same operation is resumed; the chain already binds it.
    const auto restarted = credence(args);
    ASSERT_EQ(restarted.exit_code, 0) << restarted.err;
    const auto reports = json_lines(restarted.out);
    ASSERT_EQ(reports.size(), 1U) << restarted.out;
    EXPECT_EQ(reports[0]["outcome"], "proven") << restarted.out;
    const std::string operation_id = reports[0]["operationId"];
    const std::string reply_hash = reports[0]["replyHash"];
    EXPECT_NE(journal.str().find(operation_id), std::string::npos);

    // 3. Exactly one canonical reply, and the run completed.
    auto rpc = devnet().rpc();
    const auto wf_address = devnet().address(wf);
    const auto run = *core::from_hex_fixed<32>(run_id);
    const auto op = *core::from_hex_fixed<32>(operation_id);
    chain::CallRequest req;
    req.to = wf_address;
    req.data = *iw::get_reply_hash_by_operation(run, devnet().dev_address(1), op);
    auto canonical = rpc.call(req);
    ASSERT_TRUE(canonical);
    EXPECT_EQ(core::to_hex(*iw::decode_get_reply_hash_by_operation_result(*canonical)), reply_hash);
    chain::LogFilter filter;
    filter.from_block = chain::BlockId(0);
    filter.addresses = {wf_address};
    filter.topics = {std::vector<core::Hash32>{iw::kAgentReplyAnchoredTopic},
                     std::vector<core::Hash32>{run}};
    auto anchored = rpc.get_logs(filter);
    ASSERT_TRUE(anchored);
    EXPECT_EQ(anchored->size(), 1U);
    const auto final_result = result(wf, run_id);
    EXPECT_EQ(final_result.value("status", ""), "Success") << final_result.dump();

    // 4. The evidence chain verifies (verify run over the live chain).
    const auto verified = credence({"verify", "run", run_id, "--workflow", wf, "--json"});
    EXPECT_EQ(verified.exit_code, 0) << verified.out << verified.err;
}

TEST_F(WorkerCli, one_worker_completes_a_sequential_pipeline_with_once) {
    const std::string wf = "SequentialPipelineWorkflow";
    const std::string run_id = start_run(wf, "a b c");
    const fs::path state = devnet().home() / "worker-seq";
    // A handler that is a real external command: the job JSON on stdin, the output on stdout.
    const std::string handler =
        "python3 -c 'import json,sys; j=json.load(sys.stdin); "
        "print(\"stage\", j[\"stage\"], j[\"inputHash\"][:10])'";
    // One --once invocation follows the run through its three stages: each reply emits the next
    // task, which the same invocation picks up.
    auto args = worker_args(wf, 1, state, handler);
    args.emplace_back("--once");
    const auto r = credence(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto reports = json_lines(r.out);
    ASSERT_EQ(reports.size(), 3U) << r.out;
    for (size_t i = 0; i < reports.size(); ++i) {
        EXPECT_EQ(reports[i]["stage"], i);
        EXPECT_EQ(reports[i]["outcome"], "replied");
    }
    EXPECT_EQ(result(wf, run_id).value("status", ""), "Success");
    const auto verified = credence({"verify", "run", run_id, "--workflow", wf, "--json"});
    EXPECT_EQ(verified.exit_code, 0) << verified.out << verified.err;
}

// ERC-8274: a proof signed by a key the verifier never enabled is rejected. The worker says so
// once, at start, with the fix, instead of leaving a bare ProofRejected per task.
TEST_F(WorkerCli, a_signer_the_verifier_never_enabled_is_named_at_start) {
    const std::string stranger = devnet().dev_address(6).to_checksum_hex();
    const std::string verifier = devnet().address("ECDSAAttestationVerifier").to_checksum_hex();
    auto args =
        worker_args("SingleStageWorkflow", 1, devnet().home() / "worker-stranger", "builtin:echo");
    *(std::find(args.begin(), args.end(), "--attester-key") + 1) = devnet().dev_key(6);
    args.emplace_back("--once");
    const auto r = credence(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("worker: warning: " + stranger +
                         " is not an attester of the workflow's verifier " + verifier +
                         ": its proofs will be rejected; pass --attester-key of one it enabled, "
                         "or --prove never"),
              std::string::npos)
        << r.err;
    // The devnet's own attester (dev account 0) draws no warning.
    auto fine =
        worker_args("SingleStageWorkflow", 1, devnet().home() / "worker-attester", "builtin:echo");
    fine.emplace_back("--once");  // worker_args signs proofs with dev account 0
    const auto ok = credence(fine);
    ASSERT_EQ(ok.exit_code, 0) << ok.err;
    EXPECT_EQ(ok.err.find("warning"), std::string::npos) << ok.err;
}

TEST_F(WorkerCli, sigterm_stops_a_running_worker_cleanly) {
    const fs::path state = devnet().home() / "worker-term";
    auto args = worker_args("SingleStageWorkflow", 2, state, "builtin:echo");
    std::vector<std::string> argv_s{CREDENCE_BIN};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& s : argv_s) argv.push_back(s.data());
    argv.push_back(nullptr);
    std::vector<std::string> env_s;
    for (char** e = environ; *e != nullptr; ++e) env_s.emplace_back(*e);
    for (const auto& s : devnet().env_strings()) env_s.push_back(s);
    std::vector<char*> envp;
    for (auto& s : env_s) envp.push_back(s.data());
    envp.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    pid_t pid = -1;
    const int spawned =
        posix_spawn(&pid, CREDENCE_BIN, &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    ASSERT_EQ(spawned, 0);
    // It answers a run while it runs.
    const std::string run_id = start_run("SingleStageWorkflow", "live");
    const auto deadline = Clock::now() + std::chrono::seconds(8);
    while (Clock::now() < deadline &&
           result("SingleStageWorkflow", run_id).value("status", "") != "Success")
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_EQ(result("SingleStageWorkflow", run_id).value("status", ""), "Success");
    ASSERT_EQ(::kill(pid, SIGTERM), 0);
    const auto t0 = Clock::now();
    int status = 0;
    pid_t done = 0;
    while ((done = ::waitpid(pid, &status, WNOHANG)) == 0 &&
           Clock::now() - t0 < std::chrono::seconds(3))
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (done == 0) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &status, 0);
        FAIL() << "the worker did not stop within 3 s of SIGTERM";
    }
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

TEST_F(WorkerCli, validator_answers_a_request_and_refuses_a_wrong_hash) {
    const auto identity = devnet().address("IdentityRegistry");
    const auto registry = devnet().address("ValidationRegistry");
    const auto reg =
        devnet().send(1, identity, *ir::register_1("https://agent.example/agent.json"));
    core::Uint256 agent_id;
    for (const auto& log : reg.logs)
        if (auto e = ir::decode_registered_event(log.topics, log.data)) agent_id = e->agent_id;
    const std::string content = R"({"job":"summarise","output":"ok"})";
    const auto uri = *core::encode_base64_data_uri("application/json",
                                                   core::as_bytes(std::string_view(content)));
    const auto good = core::keccak256(content);
    auto bad = good;
    bad[31] ^= 1;
    devnet().send(1, registry,
                  *vr::validation_request(devnet().dev_address(5), agent_id, uri, good));
    devnet().send(1, registry,
                  *vr::validation_request(devnet().dev_address(5), agent_id, uri, bad));

    const auto r =
        credence({"validator", "--handler", "builtin:score", "--private-key", devnet().dev_key(5),
                  "--soft-tag", "soft", "--tag", "hard", "--state-dir",
                  (devnet().home() / "validator").string(), "--once", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto lines = json_lines(r.out);
    ASSERT_EQ(lines.size(), 2U) << r.out;
    const Json& answered = lines[0]["requestHash"] == core::to_hex(good) ? lines[0] : lines[1];
    const Json& refused = lines[0]["requestHash"] == core::to_hex(good) ? lines[1] : lines[0];
    EXPECT_TRUE(answered["answered"].get<bool>()) << answered.dump();
    EXPECT_EQ(answered["tags"], Json::array({"soft", "hard"}));
    EXPECT_FALSE(refused["answered"].get<bool>());
    EXPECT_EQ(refused["refusal"], "hash_mismatch");

    auto rpc = devnet().rpc();
    chain::CallRequest req;
    req.to = registry;
    req.data = *vr::get_validation_status(good);
    auto st = rpc.call(req);
    ASSERT_TRUE(st);
    const auto status = *vr::decode_get_validation_status_result(*st);
    EXPECT_EQ(status.response, 100U);
    EXPECT_EQ(status.tag, "hard");
    const auto response_file = core::parse_data_uri(answered["responseURI"].get<std::string>());
    ASSERT_TRUE(response_file);
    EXPECT_EQ(status.response_hash, core::keccak256(response_file->data));
    EXPECT_EQ(core::to_hex(status.response_hash), answered["responseHash"]);
}

TEST_F(WorkerCli, subscribed_worker_with_a_30_s_poll_answers_within_seconds) {
    const fs::path state = devnet().home() / "worker-subscribed";
    auto args = worker_args("SingleStageWorkflow", 3, state, "builtin:echo");
    args.insert(args.begin(), CREDENCE_BIN);
    args.insert(args.end(), {"--poll-ms", "30000"});
    credence::testing::ChildProcess worker(args, devnet().home(), devnet().home() / "ws.out",
                                           devnet().home() / "ws.err");
    auto deadline = Clock::now() + std::chrono::seconds(10);
    while (Clock::now() < deadline &&
           worker.err().find("subscribed to NewAgentTask logs") == std::string::npos)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ASSERT_NE(worker.err().find("eth_subscribe: subscribed to NewAgentTask logs"),
              std::string::npos)
        << worker.err();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // into the 30 s pause
    const std::string run_id = start_run("SingleStageWorkflow", "wake up");
    deadline = Clock::now() + std::chrono::seconds(10);
    while (Clock::now() < deadline &&
           result("SingleStageWorkflow", run_id).value("status", "") != "Success")
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_EQ(result("SingleStageWorkflow", run_id).value("status", ""), "Success") << worker.err();
    EXPECT_EQ(worker.stop(SIGTERM, std::chrono::seconds(3)), 0) << worker.err();
    const auto lines = json_lines(worker.out());
    ASSERT_EQ(lines.size(), 1U) << worker.out();
    EXPECT_EQ(lines[0]["outcome"], "replied");
}

TEST_F(WorkerCli, ws_url_is_checked_and_excludes_no_subscribe) {
    const fs::path state = devnet().home() / "worker-bad-ws";
    auto args = worker_args("SingleStageWorkflow", 3, state, "builtin:echo");
    auto bad = args;
    bad.insert(bad.end(), {"--ws-url", "http://127.0.0.1:1"});
    auto r = credence(bad);
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.err.find("--ws-url: the URL must start with ws:// or wss://"), std::string::npos)
        << r.err;
    auto both = args;
    both.insert(both.end(), {"--ws-url", "ws://127.0.0.1:1", "--no-subscribe"});
    r = credence(both);
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.err.find("exclude each other"), std::string::npos) << r.err;
}

}  // namespace
