// StopOnSignals: turns SIGINT / SIGTERM into a std::stop_token, for the long-running agent
// commands (`credence worker`, `credence validator`, the demo) that embed TaskWorker::run().
//
// The constructor blocks the two signals in the calling thread (call it before starting other
// threads, so they inherit the mask) and starts a thread that waits for them with sigtimedwait;
// a signal requests stop. The destructor stops that thread and restores the mask.
// Thread-safety: token() may be shared with any thread. Ownership: one per process at a time.
#pragma once

#include <csignal>
#include <stop_token>
#include <thread>

namespace credence::agent {

class StopOnSignals {
public:
    StopOnSignals();
    ~StopOnSignals();
    StopOnSignals(const StopOnSignals&) = delete;
    StopOnSignals& operator=(const StopOnSignals&) = delete;
    StopOnSignals(StopOnSignals&&) = delete;
    StopOnSignals& operator=(StopOnSignals&&) = delete;

    [[nodiscard]] std::stop_token token() const noexcept { return source_.get_token(); }
    /// The signal that requested stop (0: none yet).
    [[nodiscard]] int signal() const noexcept { return signal_; }

private:
    std::stop_source source_;
    sigset_t old_mask_{};
    volatile int signal_ = 0;
    std::jthread waiter_;
};

}  // namespace credence::agent
