#include <credence/agent/poll_loop.hpp>

#include <algorithm>

#include <credence/agent/runtime.hpp>
#include <credence/agent/task_worker.hpp>

namespace credence::agent {

std::chrono::milliseconds poll_pause(const PollTiming& timing, unsigned failures) noexcept {
    if (failures == 0) return timing.poll_interval;
    const auto cap = std::max(timing.max_backoff, timing.poll_interval);
    auto pause = timing.poll_interval;
    for (unsigned i = 1; i < failures && pause < cap; ++i) pause *= 2;
    return std::min(pause, cap);
}

void run_poll_loop(const std::stop_token& stop, const PollTiming& timing, const PollSleep& sleep,
                   const std::function<std::optional<AgentFailure>()>& step,
                   const std::function<void(const AgentFailure&)>& on_error) {
    unsigned failures = 0;
    while (!stop.stop_requested()) {
        if (std::optional<AgentFailure> failure = step(); failure) {
            ++failures;
            if (on_error) on_error(*failure);
        } else {
            failures = 0;
        }
        const auto pause = poll_pause(timing, failures);
        const bool go_on = sleep ? sleep(stop, pause) : detail::sleep_for(stop, pause);
        if (!go_on) break;
    }
}

}  // namespace credence::agent
