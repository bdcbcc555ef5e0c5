#include <credence/agent/handler.hpp>

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <utility>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <credence/core/keccak.hpp>
#include <credence/core/unicode.hpp>

extern char** environ;  // NOLINT(readability-redundant-declaration): POSIX, for posix_spawn

namespace credence::agent {

std::string_view to_string(HandlerError e) noexcept {
    switch (e) {
        case HandlerError::bad_spec:
            return "bad_spec";
        case HandlerError::spawn:
            return "spawn";
        case HandlerError::timeout:
            return "timeout";
        case HandlerError::too_large:
            return "too_large";
        case HandlerError::failed:
            return "failed";
        case HandlerError::bad_input:
            return "bad_input";
    }
    return "unknown";
}

core::ByteView HandlerInput::effective_input() const noexcept {
    if (!input.empty() || prev_replies.empty()) return input;
    return prev_replies.front().output;
}

namespace {

std::unexpected<HandlerFailure> fail(HandlerError code, std::string detail) {
    return std::unexpected(HandlerFailure{code, std::move(detail)});
}

}  // namespace

std::string job_json(const HandlerInput& in) {
    nlohmann::ordered_json j;
    j["kind"] = in.kind == JobKind::task ? "task" : "validation";
    j["chainId"] = in.chain_id;
    j["contract"] = in.contract.to_checksum_hex();
    j["agent"] = in.agent.to_checksum_hex();
    j["taskHash"] = core::to_hex(in.task_hash);
    j["runId"] = core::to_hex(in.run_id);
    j["stage"] = in.stage;
    j["taskSeq"] = std::to_string(in.task_seq);
    j["inputHash"] = core::to_hex(in.input_hash);
    j["input"] = core::to_hex(in.input);
    const std::string_view text(reinterpret_cast<const char*>(in.input.data()),  // NOLINT
                                in.input.size());
    if (core::utf8_to_code_points(text)) {
        j["inputText"] = std::string(text);
    } else {
        j["inputText"] = nullptr;
    }
    j["expiresAt"] = std::to_string(in.expires_at);
    auto prev = nlohmann::ordered_json::array();
    for (const auto& p : in.prev_replies) {
        prev.push_back({{"replyHash", core::to_hex(p.reply_hash)},
                        {"replier", p.replier.to_checksum_hex()},
                        {"outputHash", core::to_hex(p.output_hash)},
                        {"output", core::to_hex(p.output)}});
    }
    j["prevReplies"] = std::move(prev);
    if (in.kind == JobKind::validation) {
        j["requestHash"] = core::to_hex(in.request_hash);
        j["requestURI"] = in.request_uri;
    } else {
        j["requestHash"] = nullptr;
        j["requestURI"] = nullptr;
    }
    return j.dump();
}

// ───────────────────────────── external command ─────────────────────────────

namespace {

struct Pipe {
    std::array<int, 2> fd{-1, -1};
    Pipe() = default;
    Pipe(const Pipe&) = delete;
    Pipe& operator=(const Pipe&) = delete;
    Pipe(Pipe&&) = delete;
    Pipe& operator=(Pipe&&) = delete;
    ~Pipe() {
        for (int f : fd)
            if (f >= 0) ::close(f);
    }
    bool open() { return ::pipe2(fd.data(), O_CLOEXEC) == 0; }
    void close(size_t i) {
        if (fd[i] >= 0) ::close(fd[i]);
        fd[i] = -1;
    }
};

class CommandHandler final : public Handler {
public:
    CommandHandler(std::string command_line, CommandOptions options)
        : command_line_(std::move(command_line)), options_(options) {}

    std::string name() const override { return "command:" + command_line_; }

    HandlerResult<HandlerOutput> handle(const HandlerInput& input) override {
        const std::string job = job_json(input);
        Pipe in;
        Pipe out;
        Pipe err;
        if (!in.open() || !out.open() || !err.open())
            return fail(HandlerError::spawn, fmt::format("pipe: {}", std::strerror(errno)));
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, in.fd[0], 0);
        posix_spawn_file_actions_adddup2(&actions, out.fd[1], 1);
        posix_spawn_file_actions_adddup2(&actions, err.fd[1], 2);
        posix_spawnattr_t attr;
        posix_spawnattr_init(&attr);
        // Its own process group, so a timeout kills the command and everything it started.
        posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
        posix_spawnattr_setpgroup(&attr, 0);
        std::string sh = "/bin/sh";
        std::string dash_c = "-c";
        std::array<char*, 4> argv{sh.data(), dash_c.data(), command_line_.data(), nullptr};
        pid_t pid = -1;
        const int rc = ::posix_spawn(&pid, sh.c_str(), &actions, &attr, argv.data(), environ);
        posix_spawn_file_actions_destroy(&actions);
        posix_spawnattr_destroy(&attr);
        if (rc != 0) return fail(HandlerError::spawn, fmt::format("spawn: {}", std::strerror(rc)));
        in.close(0);
        out.close(1);
        err.close(1);
        ::fcntl(in.fd[1], F_SETFL, O_NONBLOCK);

        std::string stdout_text;
        std::string stderr_text;
        size_t written = 0;
        std::optional<HandlerError> abort_reason;
        const auto deadline = std::chrono::steady_clock::now() + options_.timeout;
        std::array<char, 16384> buf{};
        // A command that exits without reading its stdin must not kill us with SIGPIPE: block it
        // on this thread while writing, and consume any that was raised.
        sigset_t pipe_set;
        sigemptyset(&pipe_set);
        sigaddset(&pipe_set, SIGPIPE);
        sigset_t old_set;
        pthread_sigmask(SIG_BLOCK, &pipe_set, &old_set);
        while (out.fd[0] >= 0 || err.fd[0] >= 0) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                deadline - std::chrono::steady_clock::now());
            if (left.count() <= 0) {
                abort_reason = HandlerError::timeout;
                break;
            }
            std::array<pollfd, 3> fds{};
            nfds_t n = 0;
            auto add = [&](int fd, short events) {
                if (fd < 0) return;
                fds[n].fd = fd;
                fds[n].events = events;
                ++n;
            };
            add(out.fd[0], POLLIN);
            add(err.fd[0], POLLIN);
            add(in.fd[1], POLLOUT);
            const int ready = ::poll(fds.data(), n, static_cast<int>(left.count()));
            if (ready < 0 && errno != EINTR) {
                abort_reason = HandlerError::spawn;
                break;
            }
            for (nfds_t i = 0; i < n; ++i) {
                if (fds[i].revents == 0) continue;
                if (fds[i].fd == in.fd[1]) {
                    const ssize_t w = ::write(in.fd[1], job.data() + written, job.size() - written);
                    if (w > 0) written += static_cast<size_t>(w);
                    if (w < 0 && errno != EAGAIN)
                        written = job.size();  // EPIPE: it stopped reading
                    if (written == job.size()) in.close(1);
                    continue;
                }
                const bool is_out = fds[i].fd == out.fd[0];
                const ssize_t r = ::read(fds[i].fd, buf.data(), buf.size());
                if (r > 0) {
                    auto& dest = is_out ? stdout_text : stderr_text;
                    if (is_out || dest.size() < 4096)
                        dest.append(buf.data(), static_cast<size_t>(r));
                } else if (r == 0 || errno != EAGAIN) {
                    if (is_out) {
                        out.close(0);
                    } else {
                        err.close(0);
                    }
                }
            }
            if (stdout_text.size() > options_.max_output_bytes) {
                abort_reason = HandlerError::too_large;
                break;
            }
        }
        in.close(1);
        const timespec zero{};
        while (sigtimedwait(&pipe_set, nullptr, &zero) > 0) {
        }
        pthread_sigmask(SIG_SETMASK, &old_set, nullptr);
        if (abort_reason) ::kill(-pid, SIGKILL);
        int status = 0;
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        if (abort_reason == HandlerError::timeout)
            return fail(HandlerError::timeout,
                        fmt::format("no answer within {} ms", options_.timeout.count()));
        if (abort_reason == HandlerError::too_large)
            return fail(HandlerError::too_large,
                        fmt::format("output over {} bytes", options_.max_output_bytes));
        if (abort_reason) return fail(HandlerError::spawn, "poll failed");
        if (WIFEXITED(status) && WEXITSTATUS(status) == kDeclineExitStatus) {
            HandlerOutput o;
            o.decline = true;
            return o;
        }
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            std::string line = stderr_text.substr(0, stderr_text.find('\n'));
            return fail(HandlerError::failed,
                        WIFEXITED(status)
                            ? fmt::format("exit status {}: {}", WEXITSTATUS(status), line)
                            : fmt::format("killed by signal {}", WTERMSIG(status)));
        }
        HandlerOutput o;
        o.output.assign(stdout_text.begin(), stdout_text.end());
        return o;
    }

private:
    std::string command_line_;
    CommandOptions options_;
};

// ───────────────────────────── builtins ─────────────────────────────

class BuiltinHandler final : public Handler {
public:
    BuiltinHandler(std::string name, BuiltinContext context)
        : name_(std::move(name)), context_(context) {}

    std::string name() const override { return "builtin:" + name_; }

    HandlerResult<HandlerOutput> handle(const HandlerInput& in) override {
        HandlerOutput o;
        const core::ByteView input = in.effective_input();
        if (name_ == "echo") {
            o.output.assign(input.begin(), input.end());
        } else if (name_ == "uppercase") {
            o.output.assign(input.begin(), input.end());
            for (auto& c : o.output)
                if (c >= 'a' && c <= 'z') c = static_cast<uint8_t>(c - ('a' - 'A'));
        } else if (name_ == "bid") {
            if (in.stage == 0) {
                // ERC-8301 Scenario 2: the Bid stage's output is abi.encode(uint256 price).
                uint64_t price = context_.bid_price.value_or(0);
                if (!context_.bid_price) {
                    price = 1 + ((uint64_t{context_.secret[0]} << 8 | context_.secret[1]) % 1000);
                }
                o.output.assign(32, 0);
                for (size_t i = 0; i < 8; ++i)
                    o.output[31 - i] = static_cast<uint8_t>(price >> (8 * i));
            } else {
                o.output.assign(input.begin(), input.end());
            }
        } else if (name_ == "bft") {
            return bft(in);
        } else if (name_ == "score") {
            const std::string_view text(reinterpret_cast<const char*>(input.data()),  // NOLINT
                                        input.size());
            const bool ok = nlohmann::json::accept(text);
            const std::string doc =
                nlohmann::ordered_json{
                    {"score", ok ? 100 : 0}, {"bytes", input.size()}, {"check", "well-formed JSON"}}
                    .dump();
            o.output.assign(doc.begin(), doc.end());
        }
        return o;
    }

private:
    /// ERC-8301 Scenario 4. Every honest agent computes the same result word from the question
    /// (the Commit task's inputHash, which the Reveal task carries too), so a majority forms.
    HandlerResult<HandlerOutput> bft(const HandlerInput& in) const {
        HandlerOutput o;
        if (in.stage == 2) {
            // Finalize: the sync gate wants outputHash == the task's inputHash (the majority word).
            o.output_hash = in.input_hash;
            o.withhold_output = true;
            return o;
        }
        if (in.stage > 2) {
            o.decline = true;
            return o;
        }
        core::Bytes pre;
        const std::string_view tag = "credence.bft";
        pre.insert(pre.end(), tag.begin(), tag.end());
        pre.insert(pre.end(), in.input_hash.begin(), in.input_hash.end());
        const core::Hash32 result = core::keccak256(pre);
        // The nonce hides the result until the reveal: secret per agent, fixed per run.
        core::Bytes nonce_pre(context_.secret.begin(), context_.secret.end());
        nonce_pre.insert(nonce_pre.end(), in.run_id.begin(), in.run_id.end());
        const core::Hash32 nonce = core::keccak256(nonce_pre);
        core::Bytes revealed(result.begin(), result.end());
        revealed.insert(revealed.end(), nonce.begin(), nonce.end());
        if (in.stage == 0) {
            // Commit: outputHash = H(result || nonce); the plaintext stays private.
            o.output_hash = core::keccak256(revealed);
            o.withhold_output = true;
        } else {
            o.output = std::move(revealed);
        }
        return o;
    }

    std::string name_;
    BuiltinContext context_;
};

}  // namespace

std::unique_ptr<Handler> make_command_handler(std::string command_line, CommandOptions options) {
    return std::make_unique<CommandHandler>(std::move(command_line), options);
}

HandlerResult<std::unique_ptr<Handler>> make_builtin_handler(std::string_view name,
                                                             const BuiltinContext& context) {
    static constexpr std::array<std::string_view, 5> kNames{"echo", "uppercase", "bid", "bft",
                                                            "score"};
    if (std::find(kNames.begin(), kNames.end(), name) == kNames.end())
        return fail(HandlerError::bad_spec,
                    fmt::format("unknown builtin '{}' (echo, uppercase, bid, bft, score)", name));
    return std::make_unique<BuiltinHandler>(std::string(name), context);
}

HandlerResult<std::unique_ptr<Handler>> make_handler(std::string_view spec,
                                                     const BuiltinContext& context,
                                                     CommandOptions options) {
    constexpr std::string_view kPrefix = "builtin:";
    if (spec.starts_with(kPrefix))
        return make_builtin_handler(spec.substr(kPrefix.size()), context);
    if (spec.find_first_not_of(" \t") == std::string_view::npos)
        return fail(HandlerError::bad_spec, "empty handler command");
    return make_command_handler(std::string(spec), options);
}

}  // namespace credence::agent
