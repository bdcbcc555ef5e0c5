// TaskWorker across chain reorganisations, on a real anvil (evm_snapshot / evm_revert, then new
// blocks): a reply that a reorg removed is not done and is resubmitted with the same operationId
// (ERC-8301 §onAgentReply step 1, §Data Envelopes); a reorg that replaces the task's block
// rewinds the cursor, and the task that took the old one's place is answered exactly once.
#include <credence/agent/task_worker.hpp>

#include <gtest/gtest.h>

#include <credence/agent/worker_test_support.hpp>
#include <credence/chain/bindings/i_agent_workflow.hpp>

namespace {

using namespace credence;  // NOLINT(google-build-using-namespace): test file
namespace iw = chain::bindings::i_agent_workflow;
using agent::TaskOutcome;
using agent::testing::WorkerDevnet;

class AgentReorg : public WorkerDevnet {
protected:
    void mine(int blocks) {
        for (int i = 0; i < blocks; ++i) (void)request("evm_mine");
    }
    uint64_t head() {
        auto rpc = devnet().rpc();
        auto n = rpc.block_number();
        EXPECT_TRUE(n);
        return n ? *n : 0;
    }
    /// Whether getAgentTask(task) answers on the current chain (UnknownTask reverts).
    bool task_exists(const core::Address& wf, const core::Hash32& task) {
        auto rpc = devnet().rpc();
        chain::CallRequest req;
        req.to = wf;
        req.data = *iw::get_agent_task(task);
        return rpc.call(req).has_value();
    }
};

TEST_F(AgentReorg, a_reply_reorganised_away_is_resubmitted_with_the_same_operation_id) {
    const core::Address wf = devnet().address("SingleStageWorkflow");
    const core::Address me = devnet().dev_address(1);
    auto worker = make_worker(1, wf);
    ASSERT_NE(worker, nullptr);
    const auto [run_id, task] = start_run(wf, "reorg the reply away");
    // The chain as it is with the task and before any reply.
    const std::string snapshot = request("evm_snapshot").get<std::string>();
    const uint64_t task_block = head();

    const auto first = step_until(*worker, task);
    ASSERT_TRUE(first);
    ASSERT_EQ(first->outcome, TaskOutcome::replied) << first->detail;
    ASSERT_TRUE(first->operation_id && first->reply_hash);
    ASSERT_EQ(canonical_reply(wf, run_id, me, *first->operation_id), *first->reply_hash);

    // Reorg: back to the task's block, then a longer chain without the reply. The task's block is
    // unchanged, so the cursor sees no reorg; only the reply is gone.
    ASSERT_TRUE(request("evm_revert", nlohmann::json::array({snapshot})).get<bool>());
    mine(3);
    ASSERT_GT(head(), task_block + 1);
    ASSERT_EQ(canonical_reply(wf, run_id, me, *first->operation_id), core::Hash32{})
        << "the reorg did not remove the reply";
    ASSERT_EQ(anchored_replies(wf, run_id, me), 0U);

    // The worker must not count the lost reply as done: it resubmits the SAME logical operation
    // (same operationId, content and timestamp, hence the same replyHash).
    const auto again = step_until(*worker, task);
    ASSERT_TRUE(again) << "the reorganised-away reply was never resubmitted";
    EXPECT_EQ(again->outcome, TaskOutcome::replied) << again->detail;
    EXPECT_EQ(again->operation_id, first->operation_id);
    EXPECT_EQ(again->reply_hash, first->reply_hash);

    // Exactly one canonical reply on the final chain, and nothing more on later steps.
    EXPECT_EQ(canonical_reply(wf, run_id, me, *first->operation_id), *first->reply_hash);
    for (int i = 0; i < 3; ++i) {
        auto r = worker->step();
        ASSERT_TRUE(r) << r.error().detail;
        for (const auto& rep : *r) EXPECT_NE(rep.outcome, TaskOutcome::replied);
    }
    EXPECT_EQ(anchored_replies(wf, run_id, me), 1U);
}

TEST_F(AgentReorg, a_reorg_that_replaces_the_task_rewinds_and_answers_the_new_task_once) {
    const core::Address wf = devnet().address("SingleStageWorkflow");
    const core::Address me = devnet().dev_address(1);
    auto worker = make_worker(1, wf);
    ASSERT_NE(worker, nullptr);
    const std::string snapshot = request("evm_snapshot").get<std::string>();
    const auto [old_run, old_task] = start_run(wf, "the task a reorg removes");
    const auto old_reply = step_until(*worker, old_task);
    ASSERT_TRUE(old_reply);
    ASSERT_EQ(old_reply->outcome, TaskOutcome::replied) << old_reply->detail;
    // One more step: the cursor moves onto the reply's block, which the reorg replaces.
    ASSERT_TRUE(worker->step());
    ASSERT_EQ(worker->cursor_block(), head());

    // Reorg: the old task and its reply vanish; a different task lands at the same height, then
    // the new chain grows past the old head.
    ASSERT_TRUE(request("evm_revert", nlohmann::json::array({snapshot})).get<bool>());
    const auto [new_run, new_task] = start_run(wf, "the task that took its place");
    ASSERT_NE(new_task, old_task);
    mine(3);
    ASSERT_FALSE(task_exists(wf, old_task));

    // The new task sits below the old cursor: only a rewind finds it.
    std::optional<agent::TaskReport> fresh;
    std::vector<agent::TaskReport> all;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!fresh && std::chrono::steady_clock::now() < deadline) {
        auto r = worker->step();
        ASSERT_TRUE(r) << r.error().detail;
        for (const auto& rep : *r) {
            all.push_back(rep);
            if (rep.task_hash == new_task && rep.outcome != TaskOutcome::deferred) fresh = rep;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ASSERT_TRUE(fresh) << "the task that replaced the reorganised one was skipped";
    EXPECT_EQ(fresh->outcome, TaskOutcome::replied) << fresh->detail;
    ASSERT_TRUE(fresh->operation_id && fresh->reply_hash);
    EXPECT_NE(fresh->operation_id, old_reply->operation_id);
    // The old task is gone: never answered again (it is reported closed, not replied).
    for (const auto& rep : all) {
        if (rep.task_hash == old_task) {
            EXPECT_NE(rep.outcome, TaskOutcome::replied);
        }
    }
    // run() derives the run id from (sender, block number, nonce), so the new task reuses the old
    // run id: the old operation must be unbound, and the run holds exactly the new reply.
    EXPECT_EQ(canonical_reply(wf, old_run, me, *old_reply->operation_id), core::Hash32{});
    EXPECT_EQ(canonical_reply(wf, new_run, me, *fresh->operation_id), *fresh->reply_hash);
    EXPECT_EQ(anchored_replies(wf, new_run, me), 1U);
}

}  // namespace
