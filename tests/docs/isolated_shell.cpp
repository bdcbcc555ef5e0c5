#include "docs/isolated_shell.hpp"

#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <thread>
#include <vector>

namespace credence::docs {
namespace {

namespace fs = std::filesystem;

bool write_text(const char* path, const std::string& text) {
    std::ofstream out(path);
    out << text;
    return static_cast<bool>(out.flush());
}

/// Enters new network and PID namespaces (and a user namespace when not root).
bool enter_namespaces() {
    const uid_t uid = ::geteuid();
    const gid_t gid = ::getegid();
    if (uid == 0) return ::unshare(CLONE_NEWNET | CLONE_NEWPID) == 0;
    if (::unshare(CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWPID) != 0) return false;
    return write_text("/proc/self/setgroups", "deny") &&
           write_text("/proc/self/uid_map", "0 " + std::to_string(uid) + " 1\n") &&
           write_text("/proc/self/gid_map", "0 " + std::to_string(gid) + " 1\n");
}

/// A new network namespace has its loopback interface down.
bool loopback_up() {
    const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return false;
    ifreq req{};
    std::strncpy(req.ifr_name, "lo", IFNAMSIZ - 1);
    bool ok = ::ioctl(fd, SIOCGIFFLAGS, &req) == 0;
    if (ok) {
        req.ifr_flags = static_cast<short>(req.ifr_flags | IFF_UP);
        ok = ::ioctl(fd, SIOCSIFFLAGS, &req) == 0;
    }
    ::close(fd);
    return ok;
}

[[noreturn]] void child_fail(int pipe_fd, const std::string& what) {
    const std::string line = what + ": " + std::strerror(errno);
    [[maybe_unused]] const auto n = ::write(pipe_fd, line.data(), line.size());
    ::_exit(127);
}

}  // namespace

std::expected<ShellRun, std::string> run_isolated_shell(
    const fs::path& script, const fs::path& cwd, const std::map<std::string, std::string>& env,
    const fs::path& log, std::chrono::seconds limit) {
    // The child reports a failure to set up through this pipe; exec closes it (O_CLOEXEC).
    int report[2];
    if (::pipe2(report, O_CLOEXEC) != 0)
        return std::unexpected("pipe: " + std::string(std::strerror(errno)));
    std::vector<std::string> env_text;
    for (const auto& [k, v] : env) env_text.push_back(k + "=" + v);
    std::vector<char*> envp;
    for (auto& e : env_text) envp.push_back(e.data());
    envp.push_back(nullptr);
    std::string bash = "/bin/bash";
    std::string script_text = script.string();
    std::string e_flag = "-e";
    std::string o_flag = "-o";
    std::string pipefail = "pipefail";
    std::vector<char*> argv{bash.data(),     e_flag.data(),      o_flag.data(),
                            pipefail.data(), script_text.data(), nullptr};

    const pid_t outer = ::fork();
    if (outer < 0) return std::unexpected("fork: " + std::string(std::strerror(errno)));
    if (outer == 0) {
        ::close(report[0]);
        if (!enter_namespaces()) child_fail(report[1], "unshare (network and PID namespaces)");
        if (!loopback_up()) child_fail(report[1], "bring up loopback");
        // The first child in the new PID namespace is its PID 1: the shell.
        const pid_t shell = ::fork();
        if (shell < 0) child_fail(report[1], "fork");
        if (shell == 0) {
            // The runner kills the outer child at the time limit; this takes the shell, and with
            // it (PID 1) the whole namespace, along.
            ::prctl(PR_SET_PDEATHSIG, SIGKILL);
            const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
            if (out < 0) child_fail(report[1], "open " + log.string());
            if (::dup2(out, STDOUT_FILENO) < 0 || ::dup2(out, STDERR_FILENO) < 0)
                child_fail(report[1], "dup2");
            const int null_in = ::open("/dev/null", O_RDONLY);
            if (null_in >= 0) ::dup2(null_in, STDIN_FILENO);
            if (::chdir(cwd.c_str()) != 0) child_fail(report[1], "chdir " + cwd.string());
            ::execve(argv[0], argv.data(), envp.data());
            child_fail(report[1], "exec /bin/bash");
        }
        ::close(report[1]);
        // Relay the shell's end: its status, or its signal as 128 + n.
        int status = 0;
        while (::waitpid(shell, &status, 0) < 0 && errno == EINTR) {
        }
        ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    }
    ::close(report[1]);
    std::string setup_error;
    char buf[512];
    for (ssize_t n; (n = ::read(report[0], buf, sizeof buf)) > 0;)
        setup_error.append(buf, static_cast<size_t>(n));
    ::close(report[0]);

    ShellRun run;
    const auto until = std::chrono::steady_clock::now() + limit;
    int status = 0;
    for (;;) {
        const pid_t done = ::waitpid(outer, &status, WNOHANG);
        if (done == outer) break;
        if (std::chrono::steady_clock::now() >= until) {
            // The shell dies with the outer child (PR_SET_PDEATHSIG), and the namespace with it.
            run.timed_out = true;
            ::kill(outer, SIGKILL);
            ::waitpid(outer, &status, 0);
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (!setup_error.empty()) return std::unexpected(setup_error);
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return run;
}

}  // namespace credence::docs
