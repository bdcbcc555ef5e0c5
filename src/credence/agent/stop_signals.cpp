#include <credence/agent/stop_signals.hpp>

#include <pthread.h>

#include <ctime>

namespace credence::agent {

StopOnSignals::StopOnSignals() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, &old_mask_);
    waiter_ = std::jthread([this, set](const std::stop_token& own) {
        const timespec tick{0, 100'000'000};  // 100 ms: notices its own stop promptly
        while (!own.stop_requested()) {
            const int sig = sigtimedwait(&set, nullptr, &tick);
            if (sig > 0) {
                signal_ = sig;
                source_.request_stop();
                return;
            }
        }
    });
}

StopOnSignals::~StopOnSignals() {
    waiter_.request_stop();
    if (waiter_.joinable()) waiter_.join();
    pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
}

}  // namespace credence::agent
