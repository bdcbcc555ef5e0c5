// WorkerThread (worker_thread.hpp).
#include <credence/index/worker_thread.hpp>

#include <utility>

namespace credence::index {

WorkerThread::~WorkerThread() {
    if (!thread_.joinable()) return;
    thread_.request_stop();
    thread_.join();
    // Jobs never started are destroyed here; a packaged_task's future then reports broken_promise.
}

void WorkerThread::post(std::move_only_function<void()> job) {
    const std::lock_guard lock(mutex_);
    jobs_.push_back(std::move(job));
    if (!thread_.joinable()) thread_ = std::jthread([this](const std::stop_token& s) { run(s); });
    wake_.notify_one();
}

void WorkerThread::run(const std::stop_token& stop) {
    std::unique_lock lock(mutex_);
    // wait() answers the predicate even once stopped: check the stop first, so queued jobs drop.
    while (wake_.wait(lock, stop, [this] { return !jobs_.empty(); }) && !stop.stop_requested()) {
        auto job = std::move(jobs_.front());
        jobs_.pop_front();
        lock.unlock();
        job();
        job = nullptr;  // what it holds is freed unlocked: post() never waits for that
        lock.lock();
    }
}

}  // namespace credence::index
