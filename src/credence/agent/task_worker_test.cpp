// The agent runtime on a real devnet: every ERC-8301 scenario run to completion by real workers
// (real transactions, real attestation proofs), evidence chains verified with
// verify/verifiers/evidence; restart idempotency; expiry; ERC-8004 validation requests answered and
// refused; the external command handler's limits.
#include <credence/agent/handler.hpp>
#include <credence/agent/task_worker.hpp>
#include <credence/agent/validator.hpp>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <credence/chain/bindings/i_agent_workflow.hpp>
#include <credence/chain/bindings/identity_registry.hpp>
#include <credence/chain/bindings/validation_registry.hpp>
#include <credence/chain/txn_sender.hpp>
#include <credence/core/data_uri.hpp>
#include <credence/core/keccak.hpp>
#include <credence/verify/verifiers/evidence.hpp>
#include <credence/verify/verifiers/evidence_source.hpp>
#include <support/devnet.hpp>
#include <support/scratch.hpp>

namespace {

using namespace credence;  // NOLINT(google-build-using-namespace): test file
namespace iw = chain::bindings::i_agent_workflow;
namespace vr = chain::bindings::validation_registry;
namespace ir = chain::bindings::identity_registry;
using Clock = std::chrono::steady_clock;
using credence::testing::DevnetFixture;

std::filesystem::path fresh_dir(const std::string& name) {
    static std::atomic<int> counter{0};
    auto p = credence::testing::scratch_dir() / (name + "-" + std::to_string(++counter));
    std::filesystem::remove_all(p);
    return p;
}

std::string text_of(core::ByteView b) {
    return {reinterpret_cast<const char*>(b.data()), b.size()};  // NOLINT
}

// ───────────────────────────── handlers ─────────────────────────────

agent::HandlerInput sample_input() {
    agent::HandlerInput in;
    in.stage = 1;
    in.input = {'h', 'e', 'l', 'l', 'o'};
    in.input_hash = core::keccak256(in.input);
    return in;
}

TEST(agent_handler, command_reads_the_job_json_and_answers_on_stdout) {
    auto h = agent::make_handler("tr a-z A-Z");
    ASSERT_TRUE(h);
    const auto in = sample_input();
    auto out = (*h)->handle(in);
    ASSERT_TRUE(out) << out.error().detail;
    std::string expected = agent::job_json(in);
    for (auto& c : expected)
        if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
    EXPECT_EQ(text_of(out->output), expected);
    EXPECT_NE(expected.find("\"INPUTTEXT\":\"HELLO\""), std::string::npos);
}

TEST(agent_handler, exit_status_100_declines_and_other_failures_carry_stderr) {
    auto decline = agent::make_handler("cat >/dev/null; exit 100");
    ASSERT_TRUE(decline);
    auto d = (*decline)->handle(sample_input());
    ASSERT_TRUE(d);
    EXPECT_TRUE(d->decline);
    auto failing = agent::make_handler("echo 'model unavailable' >&2; exit 3");
    ASSERT_TRUE(failing);
    auto f = (*failing)->handle(sample_input());
    ASSERT_FALSE(f);
    EXPECT_EQ(f.error().code, agent::HandlerError::failed);
    EXPECT_NE(f.error().detail.find("model unavailable"), std::string::npos);
}

TEST(agent_handler, timeout_kills_the_command) {
    auto h = agent::make_handler("sleep 20", {},
                                 agent::CommandOptions{std::chrono::milliseconds(300), 1024});
    ASSERT_TRUE(h);
    const auto t0 = Clock::now();
    auto r = (*h)->handle(sample_input());
    const auto took = Clock::now() - t0;
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, agent::HandlerError::timeout);
    EXPECT_LT(took, std::chrono::seconds(2));
}

TEST(agent_handler, output_over_the_limit_is_refused) {
    auto h = agent::make_handler("yes", {},
                                 agent::CommandOptions{std::chrono::milliseconds(3000), 4096});
    ASSERT_TRUE(h);
    const auto t0 = Clock::now();
    auto r = (*h)->handle(sample_input());
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, agent::HandlerError::too_large);
    EXPECT_LT(Clock::now() - t0, std::chrono::seconds(2));
}

TEST(agent_handler, builtins) {
    auto up = agent::make_handler("builtin:uppercase");
    ASSERT_TRUE(up);
    auto r = (*up)->handle(sample_input());
    ASSERT_TRUE(r);
    EXPECT_EQ(text_of(r->output), "HELLO");
    // A later stage's input is empty on-chain: the effective input is the primary prev reply's.
    agent::HandlerInput later;
    later.prev_replies.push_back(agent::PrevReply{{}, {}, {}, {'a', 'b'}});
    auto echo = agent::make_handler("builtin:echo");
    ASSERT_TRUE(echo);
    auto e = (*echo)->handle(later);
    ASSERT_TRUE(e);
    EXPECT_EQ(text_of(e->output), "ab");
    // ERC-8301 Scenario 4: the reveal opens the commitment.
    agent::BuiltinContext ctx;
    ctx.secret[0] = 7;
    auto bft = agent::make_handler("builtin:bft", ctx);
    ASSERT_TRUE(bft);
    auto in = sample_input();
    in.stage = 0;
    auto commit = (*bft)->handle(in);
    in.stage = 1;
    auto reveal = (*bft)->handle(in);
    ASSERT_TRUE(commit && reveal);
    ASSERT_TRUE(commit->output_hash);
    EXPECT_TRUE(commit->withhold_output);
    EXPECT_EQ(reveal->output.size(), 64U);
    EXPECT_EQ(*commit->output_hash, core::keccak256(reveal->output));
    EXPECT_FALSE(agent::make_handler("builtin:nope"));
    EXPECT_FALSE(agent::make_handler("   "));
}

// ───────────────────────────── devnet helpers ─────────────────────────────

class AgentDevnet : public DevnetFixture {
protected:
    /// run(input) on `workflow` from dev account 9; the run id.
    core::Hash32 start_run(const core::Address& workflow, const std::string& input,
                           uint64_t expires_in = 600) {
        const auto data = iw::run(core::keccak256(input), core::as_bytes(std::string_view(input)),
                                  core::Uint256{devnet().chain_time() + expires_in});
        EXPECT_TRUE(data);
        const auto receipt = devnet().send(9, workflow, *data);
        for (const auto& log : receipt.logs) {
            if (auto e = iw::decode_new_agent_task_event(log.topics, log.data))
                return e->workflow_run_id;
        }
        ADD_FAILURE() << "run() emitted no NewAgentTask";
        return {};
    }

    iw::ResultResult result(const core::Address& workflow, const core::Hash32& run_id) {
        auto rpc = devnet().rpc();
        chain::CallRequest req;
        req.to = workflow;
        req.data = *iw::result(run_id);
        auto r = rpc.call(req);
        EXPECT_TRUE(r);
        return r ? *iw::decode_result_result(*r) : iw::ResultResult{};
    }

    std::unique_ptr<agent::TaskWorker> make_worker(size_t key_index, const core::Address& workflow,
                                                   const std::string& handler,
                                                   std::optional<uint8_t> stage = std::nullopt,
                                                   std::filesystem::path state = {}) {
        auto key = devnet().secret_key(key_index);
        agent::BuiltinContext ctx;
        ctx.secret = agent::agent_secret(key);
        auto h = agent::make_handler(handler, ctx);
        EXPECT_TRUE(h);
        agent::WorkerConfig config;
        config.workflow = workflow;
        config.stage = stage;
        config.state_dir = state.empty() ? fresh_dir("worker") : std::move(state);
        config.receipt_timeout = std::chrono::milliseconds(10'000);
        auto w = agent::TaskWorker::create(devnet().rpc(), std::move(key), devnet().secret_key(0),
                                           std::move(*h), config);
        EXPECT_TRUE(w) << (w ? "" : w.error().detail);
        return w ? std::move(*w) : nullptr;
    }

    /// Steps every worker until the run leaves Pending (at most `limit`); all reports.
    std::vector<agent::TaskReport> drive(std::vector<std::unique_ptr<agent::TaskWorker>>& workers,
                                         const core::Address& workflow, const core::Hash32& run_id,
                                         std::chrono::seconds limit = std::chrono::seconds(20)) {
        std::vector<agent::TaskReport> all;
        const auto deadline = Clock::now() + limit;
        while (Clock::now() < deadline) {
            for (auto& w : workers) {
                auto r = w->step();
                EXPECT_TRUE(r) << (r ? "" : r.error().detail);
                if (r) all.insert(all.end(), r->begin(), r->end());
            }
            if (result(workflow, run_id).status != 0) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        return all;
    }

    void expect_verified_chain(const core::Address& workflow, const core::Hash32& run_id) {
        auto rpc = devnet().rpc();
        auto source = verify::make_rpc_evidence_source(rpc, workflow);
        auto report = verify::verify_run(*source, run_id);
        ASSERT_TRUE(report) << report.error().to_string();
        EXPECT_TRUE(report->valid) << verify::to_text(*report);
        EXPECT_EQ(report->result.status, 1U);
    }

    void run_scenario(const std::string& contract, const std::vector<std::string>& handlers,
                      const std::vector<std::optional<uint8_t>>& stages = {}) {
        const core::Address wf = devnet().address(contract);
        std::vector<std::unique_ptr<agent::TaskWorker>> workers;
        for (size_t i = 0; i < handlers.size(); ++i)
            workers.push_back(
                make_worker(1 + i, wf, handlers[i], i < stages.size() ? stages[i] : std::nullopt));
        for (const auto& w : workers) ASSERT_NE(w, nullptr);
        const auto run_id = start_run(wf, "{\"question\":\"audit this\"}");
        const auto t0 = Clock::now();
        const auto reports = drive(workers, wf, run_id);
        const auto r = result(wf, run_id);
        EXPECT_EQ(r.status, 1U) << contract << " did not complete";
        EXPECT_NE(r.final_task_hash, core::Hash32{});
        size_t replied = 0;
        for (const auto& rep : reports) {
            if (rep.outcome == agent::TaskOutcome::replied) ++replied;
            EXPECT_NE(rep.outcome, agent::TaskOutcome::handler_failed) << rep.detail;
            EXPECT_NE(rep.outcome, agent::TaskOutcome::not_anchored) << rep.detail;
        }
        EXPECT_GT(replied, 0U);
        std::cerr
            << contract << ": completed in "
            << std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count()
            << " ms, " << reports.size() << " task reports\n";
        expect_verified_chain(wf, run_id);
    }
};

// ───────────────────────────── the six ERC-8301 scenarios ─────────────────────────────

TEST_F(AgentDevnet, scenario0_single_stage) {
    run_scenario("SingleStageWorkflow", {"builtin:echo"});
}

TEST_F(AgentDevnet, scenario1_input_provenance) {
    run_scenario("InputProvenanceWorkflow", {"builtin:uppercase"});
}

TEST_F(AgentDevnet, scenario2_competitive_bid_three_workers) {
    run_scenario("CompetitiveBidWorkflow", {"builtin:bid", "builtin:bid", "builtin:bid"});
}

TEST_F(AgentDevnet, scenario3_sequential_pipeline_one_worker_per_stage) {
    run_scenario("SequentialPipelineWorkflow",
                 {"builtin:uppercase", "builtin:echo", "builtin:echo"}, {0, 1, 2});
}

TEST_F(AgentDevnet, scenario4_bft_commit_reveal_three_workers) {
    run_scenario("BFTCommitRevealWorkflow", {"builtin:bft", "builtin:bft", "builtin:bft"});
}

TEST_F(AgentDevnet, scenario5_parallel_audit) {
    run_scenario("ParallelAuditWorkflow", {"builtin:echo"});
}

// ───────────────────────────── exactly once, expiry ─────────────────────────────

TEST_F(AgentDevnet, restart_with_the_same_state_never_replies_twice) {
    const core::Address wf = devnet().address("SequentialPipelineWorkflow");
    const auto state = fresh_dir("restart");
    auto first = make_worker(1, wf, "builtin:echo", 0, state);
    ASSERT_NE(first, nullptr);
    const auto run_id = start_run(wf, "once");
    std::vector<agent::TaskReport> reports;
    const auto deadline = Clock::now() + std::chrono::seconds(5);
    while (reports.empty() && Clock::now() < deadline) {
        auto r = first->step();
        ASSERT_TRUE(r) << r.error().detail;
        for (auto& rep : *r)
            if (rep.outcome != agent::TaskOutcome::deferred) reports.push_back(rep);
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ASSERT_EQ(reports.size(), 1U);
    ASSERT_EQ(reports[0].outcome, agent::TaskOutcome::replied);
    ASSERT_TRUE(reports[0].operation_id && reports[0].reply_hash);
    first.reset();
    // A restart that lost its cursor reads the task again: the journal gives the same
    // operationId, the chain already binds it, and nothing is sent.
    std::filesystem::remove(state / "cursor.json");
    auto second = make_worker(1, wf, "builtin:echo", 0, state);
    auto again = second->step();
    ASSERT_TRUE(again) << again.error().detail;
    ASSERT_EQ(again->size(), 1U);
    // The stage-0 task is no longer eligible (the async gate moved on), but the saved output
    // resumes the operation, which resolves to the canonical reply.
    EXPECT_EQ((*again)[0].outcome, agent::TaskOutcome::already_replied);
    EXPECT_EQ((*again)[0].operation_id, reports[0].operation_id);
    EXPECT_EQ((*again)[0].reply_hash, reports[0].reply_hash);
    auto rpc = devnet().rpc();
    chain::CallRequest req;
    req.to = wf;
    req.data =
        *iw::get_reply_hash_by_operation(run_id, devnet().dev_address(1), *reports[0].operation_id);
    auto canonical = rpc.call(req);
    ASSERT_TRUE(canonical);
    EXPECT_EQ(*iw::decode_get_reply_hash_by_operation_result(*canonical), *reports[0].reply_hash);
}

TEST_F(AgentDevnet, expired_tasks_are_skipped) {
    const core::Address wf = devnet().address("SingleStageWorkflow");
    auto worker = make_worker(1, wf, "builtin:echo");
    ASSERT_NE(worker, nullptr);
    const auto run_id = start_run(wf, "late", 5);
    auto rpc = devnet().rpc();
    ASSERT_TRUE(rpc.request("evm_increaseTime", nlohmann::json::array({60})));
    ASSERT_TRUE(rpc.request("evm_mine"));
    auto r = worker->step();
    ASSERT_TRUE(r) << r.error().detail;
    ASSERT_EQ(r->size(), 1U);
    EXPECT_EQ((*r)[0].outcome, agent::TaskOutcome::expired);
    EXPECT_EQ(result(wf, run_id).status, 0U);
}

TEST_F(AgentDevnet, losing_bidders_are_rejected_by_the_gate_not_retried) {
    const core::Address wf = devnet().address("CompetitiveBidWorkflow");
    std::vector<std::unique_ptr<agent::TaskWorker>> workers;
    for (size_t i = 1; i <= 3; ++i) workers.push_back(make_worker(i, wf, "builtin:bid"));
    const auto run_id = start_run(wf, "bid on this");
    const auto reports = drive(workers, wf, run_id);
    ASSERT_EQ(result(wf, run_id).status, 1U);
    size_t rejected = 0;
    size_t executed = 0;
    size_t bids = 0;
    for (const auto& rep : reports) {
        if (rep.outcome == agent::TaskOutcome::rejected) {
            ++rejected;
            EXPECT_NE(rep.detail.find("NotSelectedBidder"), std::string::npos) << rep.detail;
        }
        if (rep.outcome == agent::TaskOutcome::replied) ++(rep.stage == 0 ? bids : executed);
    }
    // Three bids (quorum 3); the Execute task goes to the winner only: the others are refused
    // by the gate (NotSelectedBidder) or find the task closed once the run completed.
    EXPECT_EQ(bids, 3U);
    EXPECT_EQ(executed, 1U);
    EXPECT_LE(rejected, 2U);
}

// ───────────────────────────── validator ─────────────────────────────

TEST_F(AgentDevnet, validator_answers_a_request_and_refuses_a_wrong_hash) {
    const core::Address identity = devnet().address("IdentityRegistry");
    const core::Address registry = devnet().address("ValidationRegistry");
    // Agent 0.. registered by dev account 1, which then asks dev account 4 to validate.
    const auto reg =
        devnet().send(1, identity, *ir::register_1("https://agent.example/agent.json"));
    core::Uint256 agent_id;
    for (const auto& log : reg.logs)
        if (auto e = ir::decode_registered_event(log.topics, log.data)) agent_id = e->agent_id;
    const std::string content = R"({"job":"classify","input":"hello","output":"greeting"})";
    const auto uri = *core::encode_base64_data_uri("application/json",
                                                   core::as_bytes(std::string_view(content)));
    const core::Hash32 good = core::keccak256(content);
    core::Hash32 bad = good;
    bad[0] ^= 0xff;
    const auto validator_address = devnet().dev_address(4);
    devnet().send(1, registry, *vr::validation_request(validator_address, agent_id, uri, good));
    devnet().send(1, registry, *vr::validation_request(validator_address, agent_id, uri, bad));

    auto handler = agent::make_handler("builtin:score");
    ASSERT_TRUE(handler);
    agent::ValidatorConfig config;
    config.registry = registry;
    config.state_dir = fresh_dir("validator");
    config.soft_tag = "soft-finality";
    config.tag = "hard-finality";
    auto v = agent::Validator::create(devnet().rpc(), devnet().secret_key(4), std::move(*handler),
                                      nullptr, nullptr, config);
    ASSERT_TRUE(v) << v.error().detail;
    auto reports = (*v)->step();
    ASSERT_TRUE(reports) << reports.error().detail;
    ASSERT_EQ(reports->size(), 2U);
    const auto& ok = (*reports)[0].request_hash == good ? (*reports)[0] : (*reports)[1];
    const auto& refused = (*reports)[0].request_hash == good ? (*reports)[1] : (*reports)[0];
    ASSERT_TRUE(ok.answered) << ok.detail;
    EXPECT_EQ(ok.score, 100);
    EXPECT_EQ(ok.tags_sent, (std::vector<std::string>{"soft-finality", "hard-finality"}));
    EXPECT_FALSE(refused.answered);
    ASSERT_TRUE(refused.refusal);
    EXPECT_EQ(*refused.refusal, agent::ValidationRefusal::hash_mismatch);

    // On chain: the final tag, and a responseHash that is keccak256 of the published file.
    auto rpc = devnet().rpc();
    auto status = [&](const core::Hash32& h) {
        chain::CallRequest req;
        req.to = registry;
        req.data = *vr::get_validation_status(h);
        auto r = rpc.call(req);
        EXPECT_TRUE(r);
        return *vr::decode_get_validation_status_result(*r);
    };
    const auto s = status(good);
    EXPECT_EQ(s.response, 100U);
    EXPECT_EQ(s.tag, "hard-finality");
    auto file = core::parse_data_uri(ok.response_uri);
    ASSERT_TRUE(file);
    EXPECT_EQ(s.response_hash, core::keccak256(file->data));
    EXPECT_EQ(status(bad).response_hash, core::Hash32{});

    // A restart answers nothing twice.
    std::filesystem::remove(config.state_dir / "validator_cursor.json");
    auto handler2 = agent::make_handler("builtin:score");
    auto v2 = agent::Validator::create(devnet().rpc(), devnet().secret_key(4), std::move(*handler2),
                                       nullptr, nullptr, config);
    ASSERT_TRUE(v2);
    auto again = (*v2)->step();
    ASSERT_TRUE(again);
    for (const auto& rep : *again) {
        if (rep.request_hash == good) {
            EXPECT_TRUE(rep.already_answered);
        }
    }
}

}  // namespace
