#include <support/postgres.hpp>

#include <arpa/inet.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <postgresql/libpq-fe.h>  // the support library has no libpq include path of its own
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <support/detail/postgres_process.hpp>
#include <support/scratch.hpp>

namespace credence::testing {

namespace fs = std::filesystem;

namespace detail {

std::optional<fs::path> postgres_bin_dir() {
    if (const char* env = std::getenv("CREDENCE_PG_BIN"); env != nullptr && *env != '\0')
        return fs::path(env);
    std::optional<fs::path> best;
    int best_version = -1;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator("/usr/lib/postgresql", ec)) {
        const auto bin = entry.path() / "bin";
        if (!fs::exists(bin / "postgres", ec) || !fs::exists(bin / "initdb", ec)) continue;
        const int version = std::atoi(entry.path().filename().c_str());
        if (version > best_version) {
            best_version = version;
            best = bin;
        }
    }
    return best;
}

int free_postgres_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return 0;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    socklen_t len = sizeof addr;
    int port = 0;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
        port = ntohs(addr.sin_port);
    ::close(fd);
    return port;
}

std::string log_tail(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string text = ss.str();
    if (text.size() > 1500) text = "..." + text.substr(text.size() - 1500);
    return text;
}

RunAs postgres_run_as(std::string& error) {
    error.clear();
    if (::geteuid() != 0) return {};
    // initdb/postgres refuse root: run them as the Debian package's system user.
    const passwd* pw = ::getpwnam("postgres");
    if (pw == nullptr) {
        error = "running as root and there is no `postgres` user";
        return {};
    }
    // The scratch directory is 0700 root: let the postgres user traverse it (no listing).
    ::chmod(scratch_dir().c_str(), 0711);
    return RunAs{true, pw->pw_uid, pw->pw_gid};
}

std::string make_server_dir(const fs::path& dir, const RunAs& who) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return "cannot create " + dir.string() + ": " + ec.message();
    if (who.drop && ::chown(dir.c_str(), who.uid, who.gid) != 0)
        return "cannot chown " + dir.string() + " to postgres";
    ::chmod(dir.c_str(), 0700);
    return {};
}

pid_t spawn_as(const std::vector<std::string>& argv, const RunAs& who, const fs::path& log,
               const fs::path& cwd, bool pdeathsig) {
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid != 0) return pid;
    // Child: only async-signal-safe calls from here on.
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd >= 0) {
        ::dup2(fd, STDOUT_FILENO);
        ::dup2(fd, STDERR_FILENO);
    }
    const int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, STDIN_FILENO);
    if (who.drop) {
        if (::setgroups(0, nullptr) != 0 || ::setgid(who.gid) != 0 || ::setuid(who.uid) != 0)
            ::_exit(126);
    }
    // After the uid change: a credential change clears the parent-death signal.
    if (pdeathsig) {
        ::prctl(PR_SET_PDEATHSIG, SIGQUIT);
        if (::getppid() != parent) ::_exit(125);
    }
    if (::chdir(cwd.c_str()) != 0) ::_exit(124);
    ::execv(args[0], args.data());
    ::_exit(127);
}

std::string run_as(const std::vector<std::string>& argv, const RunAs& who, const fs::path& log,
                   const fs::path& cwd) {
    const pid_t pid = spawn_as(argv, who, log, cwd, false);
    if (pid < 0) return "fork failed";
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return {};
    return fs::path(argv.front()).filename().string() + " failed (status " +
           std::to_string(status) + "): " + log_tail(log);
}

std::vector<std::string> postgres_server_argv(const fs::path& bin, const fs::path& data, int port,
                                              int max_connections) {
    std::vector<std::string> argv{(bin / "postgres").string(), "-D", data.string(), "-p",
                                  std::to_string(port)};
    const std::vector<std::string> settings{"listen_addresses=127.0.0.1",
                                            "unix_socket_directories=" + data.string(),
                                            "fsync=off",
                                            "synchronous_commit=off",
                                            "full_page_writes=off",
                                            "max_connections=" + std::to_string(max_connections),
                                            "shared_buffers=32MB"};
    for (const std::string& setting : settings) {
        argv.emplace_back("-c");
        argv.push_back(setting);
    }
    return argv;
}

std::string await_server(pid_t& pid, int port, const fs::path& log) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    const std::string info =
        "host=127.0.0.1 port=" + std::to_string(port) + " user=postgres dbname=postgres";
    while (std::chrono::steady_clock::now() < deadline) {
        if (PQping(info.c_str()) == PQPING_OK) return {};
        int status = 0;
        if (::waitpid(pid, &status, WNOHANG) == pid) {
            pid = -1;
            return "postgres exited at startup: " + log_tail(log);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    stop_server(pid);
    return "postgres did not accept connections within 60 s: " + log_tail(log);
}

void stop_server(pid_t& pid) {
    if (pid <= 0) return;
    // SIGQUIT = immediate shutdown: no checkpoint, the data directory is thrown away anyway.
    ::kill(pid, SIGQUIT);
    for (int i = 0; i < 200; ++i) {
        if (::waitpid(pid, nullptr, WNOHANG) == pid) {
            pid = -1;
            return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    pid = -1;
}

}  // namespace detail

namespace {

using detail::RunAs;

class Server {
public:
    Server() { error_ = start(); }
    ~Server() { stop(); }
    Server(const Server&) = delete;
    Server& operator=(const Server&) = delete;

    [[nodiscard]] const std::string& error() const noexcept { return error_; }
    [[nodiscard]] int port() const noexcept { return error_.empty() ? port_ : 0; }

    std::expected<std::string, std::string> fresh_database() {
        if (!error_.empty()) return std::unexpected(error_);
        if (admin_ == nullptr || PQstatus(admin_) != CONNECTION_OK) {
            if (admin_ != nullptr) PQfinish(admin_);
            admin_ = PQconnectdb(conninfo("postgres").c_str());
            if (PQstatus(admin_) != CONNECTION_OK)
                return std::unexpected(std::string("admin connection: ") + PQerrorMessage(admin_));
        }
        // The pid keeps names unique when test processes share one server.
        const std::string name =
            "t_" + std::to_string(::getpid()) + "_" + std::to_string(++databases_);
        PGresult* r = PQexec(admin_, ("CREATE DATABASE " + name).c_str());
        const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
        std::string msg = ok ? "" : PQresultErrorMessage(r);
        PQclear(r);
        if (!ok) return std::unexpected("CREATE DATABASE " + name + ": " + msg);
        return "postgresql://postgres@127.0.0.1:" + std::to_string(port_) + "/" + name;
    }

private:
    [[nodiscard]] std::string conninfo(const std::string& db) const {
        return "host=127.0.0.1 port=" + std::to_string(port_) + " user=postgres dbname=" + db +
               " connect_timeout=5";
    }

    std::string start() {
        // `make test` starts one server for the whole run (scripts/test.sh) and names its port, so
        // each test process does not pay for its own initdb.
        if (const char* env = std::getenv("CREDENCE_TEST_POSTGRES_PORT");
            env != nullptr && *env != '\0') {
            external_ = true;
            port_ = std::atoi(env);
            if (PQping(conninfo("postgres").c_str()) != PQPING_OK)
                return "no PostgreSQL server answers on CREDENCE_TEST_POSTGRES_PORT=" +
                       std::string(env);
            return {};
        }
        const auto bin = detail::postgres_bin_dir();
        if (!bin) return "no PostgreSQL server found under /usr/lib/postgresql/*/bin";
        std::string error;
        const RunAs who = detail::postgres_run_as(error);
        if (!error.empty()) return error;
        root_ = scratch_dir() / "postgres";
        data_ = root_ / "data";
        if (auto made = detail::make_server_dir(root_, who); !made.empty()) return made;

        if (auto initdb = detail::run_as(
                {(*bin / "initdb").string(), "-D", data_.string(), "-A", "trust", "-U", "postgres",
                 "--no-sync", "-E", "UTF8", "--locale=C", "--no-instructions"},
                who, root_ / "initdb.log", root_);
            !initdb.empty())
            return initdb;

        // A free port can be taken between probing and binding: try a few.
        std::string last;
        for (int attempt = 0; attempt < 4; ++attempt) {
            last = launch(*bin, who);
            if (last.empty()) return {};
        }
        return last;
    }

    std::string launch(const fs::path& bin, const RunAs& who) {
        port_ = detail::free_postgres_port();
        if (port_ == 0) return "no free port";
        const auto log = root_ / "server.log";
        pid_ = detail::spawn_as(detail::postgres_server_argv(bin, data_, port_, 40), who, log,
                                root_, true);
        if (pid_ < 0) return "fork failed";
        return detail::await_server(pid_, port_, log);
    }

    void stop() {
        if (admin_ != nullptr) PQfinish(admin_);
        admin_ = nullptr;
        if (external_) return;  // its owner stops it
        detail::stop_server(pid_);
        std::error_code ec;
        if (!root_.empty()) fs::remove_all(root_, ec);
    }

    std::string error_;
    fs::path root_;
    fs::path data_;
    int port_ = 0;
    pid_t pid_ = -1;
    PGconn* admin_ = nullptr;
    int databases_ = 0;
    bool external_ = false;
};

Server& server() {
    (void)scratch_dir();  // constructed first, so destroyed after the server
    static Server instance;
    return instance;
}

}  // namespace

bool postgres_available() { return server().error().empty(); }

std::string postgres_start_error() { return server().error(); }

std::expected<std::string, std::string> postgres_test_url() { return server().fresh_database(); }

int postgres_port() { return server().port(); }

}  // namespace credence::testing
