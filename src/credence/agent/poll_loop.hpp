// The run() loop that TaskWorker and Validator share: call step() until stopped, pause
// poll_interval after a success, and after consecutive failures (a lost RPC) back off
// poll_interval, 2x, 4x, ... capped at max_backoff; the first success resets the schedule.
// The pause is taken through an injectable PollSleep, so tests observe the schedule without
// timing anything.
// Thread-safety: run_poll_loop runs on the caller's thread; the callbacks are called there.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <stop_token>
#include <type_traits>
#include <utility>

namespace credence::agent {

struct AgentFailure;

/// Waits `pause` or until `stop` is requested; returns false when stopped. Empty: a real,
/// interruptible sleep.
using PollSleep = std::function<bool(const std::stop_token& stop, std::chrono::milliseconds pause)>;

struct PollTiming {
    std::chrono::milliseconds poll_interval{200};
    std::chrono::milliseconds max_backoff{5'000};
};

/// The pause after a step: poll_interval after a success (`failures` = 0), else
/// min(poll_interval * 2^(failures-1), max_backoff) after the failures-th failure in a row.
[[nodiscard]] std::chrono::milliseconds poll_pause(const PollTiming& timing,
                                                   unsigned failures) noexcept;

/// Calls `step` until `stop` is requested. `step` returns the failure of one pass, or nullopt;
/// each failure goes to `on_error` (optional) before the pause.
void run_poll_loop(const std::stop_token& stop, const PollTiming& timing, const PollSleep& sleep,
                   const std::function<std::optional<AgentFailure>()>& step,
                   const std::function<void(const AgentFailure&)>& on_error);

/// run_poll_loop over a `step` that returns AgentResult<std::vector<Report>>: each report goes to
/// `on_report` (optional), each failure to `on_error`. TaskWorker::run and Validator::run.
template <typename Report, typename Step>
void run_report_loop(const std::stop_token& stop, const PollTiming& timing, const PollSleep& sleep,
                     Step&& step, const std::function<void(const Report&)>& on_report,
                     const std::function<void(const AgentFailure&)>& on_error) {
    // Dependent, so AgentFailure (task_worker.hpp, which includes this header) is complete here.
    using Failure = std::remove_cvref_t<decltype(std::declval<Step&>()().error())>;
    run_poll_loop(
        stop, timing, sleep,
        [&]() -> std::optional<Failure> {
            auto reports = step();
            if (!reports) return reports.error();
            if (on_report)
                for (const auto& report : *reports) on_report(report);
            return std::nullopt;
        },
        on_error);
}

}  // namespace credence::agent
