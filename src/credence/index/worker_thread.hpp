// One long-lived thread that runs posted jobs in order: the indexer's fetch-ahead (indexer.hpp).
//
// Why not std::async: it starts a new thread for every job, and glibc hands new threads its
// per-thread malloc arenas in turn. A batch's logs were then allocated in one arena and the next
// batch's in another, so the memory a committed batch freed was not reused: four 64 MiB arenas
// held 240 MB of a 1,000,000-event sync's 350 MB resident set (docs/benchmarks.md). One thread
// allocates every batch from one arena.
//
// Thread-safety: post() may be called from any thread. Ownership: owns the thread; the
// destructor lets the job in flight finish, drops the jobs not started and joins.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace credence::index {

class WorkerThread {
public:
    WorkerThread() = default;
    ~WorkerThread();
    WorkerThread(const WorkerThread&) = delete;
    WorkerThread& operator=(const WorkerThread&) = delete;

    /// Queues `job` (e.g. a std::packaged_task, whose future carries the result); the thread
    /// starts with the first job.
    void post(std::move_only_function<void()> job);

private:
    void run(const std::stop_token& stop);

    std::mutex mutex_;
    std::condition_variable_any wake_;
    std::deque<std::move_only_function<void()>> jobs_;
    std::jthread thread_;  // last: stopped and joined before the queue goes
};

}  // namespace credence::index
