// WorkerThread: one thread for every job, jobs in order, and a destructor that finishes the job
// in flight and drops the rest.
#include <credence/index/worker_thread.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>
#include <vector>

namespace credence::index {
namespace {

TEST(index_worker_thread, every_job_runs_in_order_on_one_thread) {
    WorkerThread worker;
    std::vector<std::future<std::thread::id>> ids;
    std::vector<int> order;
    for (int i = 0; i < 100; ++i) {
        std::packaged_task<std::thread::id()> task([&order, i] {
            order.push_back(i);  // one thread: no two jobs touch it at once
            return std::this_thread::get_id();
        });
        ids.push_back(task.get_future());
        worker.post(std::move(task));
    }
    const std::thread::id first = ids.front().get();
    EXPECT_NE(first, std::this_thread::get_id());
    for (size_t i = 1; i < ids.size(); ++i) EXPECT_EQ(ids[i].get(), first) << "job " << i;
    ASSERT_EQ(order.size(), 100U);
    for (int i = 0; i < 100; ++i) EXPECT_EQ(order[static_cast<size_t>(i)], i);
}

TEST(index_worker_thread, destructor_finishes_the_job_in_flight_and_drops_the_rest) {
    std::atomic<bool> started{false};
    std::atomic<bool> finished{false};
    std::future<void> queued;
    {
        WorkerThread worker;
        worker.post([&] {
            started = true;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            finished = true;
        });
        std::packaged_task<void()> never([] {});
        queued = never.get_future();
        worker.post(std::move(never));
        while (!started) std::this_thread::yield();
    }
    EXPECT_TRUE(finished);
    try {
        queued.get();
        ADD_FAILURE() << "the queued job ran after the destructor began";
    } catch (const std::future_error& e) {
        EXPECT_EQ(e.code(), std::future_errc::broken_promise);
    }
}

}  // namespace
}  // namespace credence::index
