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

#include <support/scratch.hpp>

namespace credence::testing {

namespace fs = std::filesystem;

namespace {

// The newest /usr/lib/postgresql/<version>/bin holding `postgres` (Debian's layout), unless
// $CREDENCE_PG_BIN names one.
std::optional<fs::path> find_bin_dir() {
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

int free_port() {
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

std::string tail_of(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string text = ss.str();
    if (text.size() > 1500) text = "..." + text.substr(text.size() - 1500);
    return text;
}

// Who runs initdb/postgres: ourselves, or the `postgres` user when we are root.
struct RunAs {
    bool drop = false;
    uid_t uid = 0;
    gid_t gid = 0;
};

// fork + exec `argv` as `who`, stdout/stderr appended to `log`, working directory `cwd`.
// With `pdeathsig`, the child gets SIGQUIT when this process dies (postgres: immediate shutdown).
pid_t spawn(const std::vector<std::string>& argv, const RunAs& who, const fs::path& log,
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
        const auto bin = find_bin_dir();
        if (!bin) return "no PostgreSQL server found under /usr/lib/postgresql/*/bin";
        RunAs who;
        if (::geteuid() == 0) {
            // initdb/postgres refuse root: run them as the Debian package's system user.
            const passwd* pw = ::getpwnam("postgres");
            if (pw == nullptr) return "running as root and there is no `postgres` user";
            who = RunAs{true, pw->pw_uid, pw->pw_gid};
            // The scratch directory is 0700 root: let the postgres user traverse it (no listing).
            ::chmod(scratch_dir().c_str(), 0711);
        }
        root_ = scratch_dir() / "postgres";
        data_ = root_ / "data";
        std::error_code ec;
        fs::create_directories(root_, ec);
        if (ec) return "cannot create " + root_.string() + ": " + ec.message();
        if (who.drop && ::chown(root_.c_str(), who.uid, who.gid) != 0)
            return "cannot chown " + root_.string() + " to postgres";
        ::chmod(root_.c_str(), 0700);

        const auto initdb_log = root_ / "initdb.log";
        const pid_t initdb =
            spawn({(*bin / "initdb").string(), "-D", data_.string(), "-A", "trust", "-U",
                   "postgres", "--no-sync", "-E", "UTF8", "--locale=C", "--no-instructions"},
                  who, initdb_log, root_, false);
        if (initdb < 0) return "fork failed";
        int status = 0;
        ::waitpid(initdb, &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            return "initdb failed (status " + std::to_string(status) + "): " + tail_of(initdb_log);

        // A free port can be taken between probing and binding: try a few.
        std::string last;
        for (int attempt = 0; attempt < 4; ++attempt) {
            last = launch(*bin, who);
            if (last.empty()) return {};
        }
        return last;
    }

    std::string launch(const fs::path& bin, const RunAs& who) {
        port_ = free_port();
        if (port_ == 0) return "no free port";
        const auto log = root_ / "server.log";
        pid_ = spawn(
            {(bin / "postgres").string(), "-D", data_.string(), "-p", std::to_string(port_), "-c",
             "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=" + data_.string(), "-c",
             "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c",
             "max_connections=40", "-c", "shared_buffers=32MB"},
            who, log, root_, true);
        if (pid_ < 0) return "fork failed";
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        const std::string info = conninfo("postgres");
        while (std::chrono::steady_clock::now() < deadline) {
            if (PQping(info.c_str()) == PQPING_OK) return {};
            int status = 0;
            if (::waitpid(pid_, &status, WNOHANG) == pid_) {
                pid_ = -1;
                return "postgres exited at startup: " + tail_of(log);
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        stop_postmaster();
        return "postgres did not accept connections within 60 s: " + tail_of(log);
    }

    void stop_postmaster() {
        if (pid_ <= 0) return;
        // SIGQUIT = immediate shutdown: no checkpoint, the data directory is thrown away anyway.
        ::kill(pid_, SIGQUIT);
        for (int i = 0; i < 200; ++i) {
            if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {
                pid_ = -1;
                return;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(25));
        }
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, nullptr, 0);
        pid_ = -1;
    }

    void stop() {
        if (admin_ != nullptr) PQfinish(admin_);
        admin_ = nullptr;
        if (external_) return;  // its owner stops it
        stop_postmaster();
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
