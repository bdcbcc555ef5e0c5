#pragma once
// A long-running child process for end-to-end tests (`credence devnet`, `credence node`): started
// with its own CREDENCE_HOME and stdout/stderr captured in files, reaped when asked, and SIGKILLed
// by the destructor (and by the kernel if the test process dies) so no test leaks a process.
// Not thread-safe: one test thread owns it.
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace credence::testing {

/// The whole file, or "" if it cannot be read.
inline std::string read_text(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

class ChildProcess {
public:
    /// Runs `argv` (argv[0] is the executable's path) with CREDENCE_HOME=`home`; stdout and
    /// stderr go to `out_path` and `err_path`.
    ChildProcess(std::vector<std::string> argv, const std::filesystem::path& home,
                 std::filesystem::path out_path, std::filesystem::path err_path)
        : out_path_(std::move(out_path)), err_path_(std::move(err_path)) {
        std::vector<char*> args;
        for (auto& s : argv) args.push_back(s.data());
        args.push_back(nullptr);
        const std::string home_env = "CREDENCE_HOME=" + home.string();
        const int out_fd = ::open(out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        const int err_fd = ::open(err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        pid_ = ::fork();
        if (pid_ == 0) {
            ::prctl(PR_SET_PDEATHSIG, SIGKILL);
            ::dup2(out_fd, STDOUT_FILENO);
            ::dup2(err_fd, STDERR_FILENO);
            ::putenv(const_cast<char*>(home_env.c_str()));  // NOLINT: child only, before exec
            ::execv(args[0], args.data());
            ::_exit(127);
        }
        ::close(out_fd);
        ::close(err_fd);
    }
    ~ChildProcess() {
        if (pid_ > 0 && !exit_code_) {
            ::kill(pid_, SIGKILL);
            ::waitpid(pid_, nullptr, 0);
        }
    }
    ChildProcess(const ChildProcess&) = delete;
    ChildProcess& operator=(const ChildProcess&) = delete;

    /// True once the child has exited (reaping it); its exit code is then `exit_code()`.
    bool exited() {
        if (exit_code_) return true;
        int status = 0;
        if (pid_ > 0 && ::waitpid(pid_, &status, WNOHANG) == pid_) {
            exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
            return true;
        }
        return false;
    }
    /// The exit code (-1: killed by a signal), or nullopt while it runs.
    [[nodiscard]] std::optional<int> exit_code() const { return exit_code_; }

    /// Waits up to `limit` for the exit code without signalling (-1: still running or killed).
    int wait_exit(std::chrono::milliseconds limit) {
        const auto until = std::chrono::steady_clock::now() + limit;
        while (std::chrono::steady_clock::now() < until) {
            if (exited()) return *exit_code_;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        return -1;
    }
    /// Sends `sig`, then waits up to `limit` for the exit code (-1: killed / did not exit).
    int stop(int sig, std::chrono::milliseconds limit) {
        if (!exit_code_) ::kill(pid_, sig);
        return wait_exit(limit);
    }

    [[nodiscard]] std::string out() const { return read_text(out_path_); }
    [[nodiscard]] std::string err() const { return read_text(err_path_); }

    [[nodiscard]] pid_t pid() const noexcept { return pid_; }

private:
    std::filesystem::path out_path_;
    std::filesystem::path err_path_;
    pid_t pid_ = -1;
    std::optional<int> exit_code_;
};

}  // namespace credence::testing
