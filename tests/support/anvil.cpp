#include "support/anvil.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include <httplib.h>
#include <nlohmann/json.hpp>

namespace credence::testing {
namespace {

using Clock = std::chrono::steady_clock;

std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

std::string tail(const std::string& text, size_t max = 2000) {
    return text.size() <= max ? text : "..." + text.substr(text.size() - max);
}

// True when anvil answers eth_chainId with `chain_id`.
bool answers(uint16_t port, uint64_t chain_id) {
    httplib::Client client("127.0.0.1", port);
    client.set_connection_timeout(0, 200'000);
    client.set_read_timeout(1, 0);
    auto res = client.Post("/", R"({"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]})",
                           "application/json");
    if (!res || res->status != 200) return false;
    auto j = nlohmann::json::parse(res->body, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object() || !j.contains("result") || !j["result"].is_string()) return false;
    return std::strtoull(j["result"].get<std::string>().c_str(), nullptr, 16) == chain_id;
}

// Sends `sig`, waits up to `grace` for the child to exit; true when reaped.
bool signal_and_reap(pid_t pid, int sig, std::chrono::milliseconds grace) {
    ::kill(pid, sig);
    const auto deadline = Clock::now() + grace;
    while (Clock::now() < deadline) {
        int status = 0;
        const pid_t r = ::waitpid(pid, &status, WNOHANG);
        if (r == pid || (r < 0 && errno == ECHILD)) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
}

struct Spawned {
    pid_t pid = -1;
    std::filesystem::path log_path;
};

std::expected<Spawned, std::string> spawn(const std::filesystem::path& binary,
                                          const std::vector<std::string>& args) {
    std::string log_template =
        (std::filesystem::temp_directory_path() / "credence-anvil-XXXXXX.log").string();
    const int log_fd = ::mkstemps(log_template.data(), 4);
    if (log_fd < 0) return std::unexpected("cannot create anvil log file");

    // Everything the child needs is built before fork: after fork in a threaded program only
    // async-signal-safe calls are allowed.
    std::vector<std::string> storage;
    storage.push_back(binary.string());
    storage.insert(storage.end(), args.begin(), args.end());
    std::vector<char*> argv;
    argv.reserve(storage.size() + 1);
    for (auto& s : storage) argv.push_back(s.data());
    argv.push_back(nullptr);
    const pid_t parent = ::getpid();
    const int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);

    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(log_fd);
        if (devnull >= 0) ::close(devnull);
        return std::unexpected("fork failed");
    }
    if (pid == 0) {
        // Die with the test binary, even on a crash that skips destructors.
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) ::_exit(127);
        if (devnull >= 0) ::dup2(devnull, STDIN_FILENO);
        ::dup2(log_fd, STDOUT_FILENO);
        ::dup2(log_fd, STDERR_FILENO);
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    ::close(log_fd);
    if (devnull >= 0) ::close(devnull);
    return Spawned{pid, log_template};
}

}  // namespace

uint16_t pick_free_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return 0;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    uint16_t port = 0;
    socklen_t len = sizeof(addr);
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
        port = ntohs(addr.sin_port);
    }
    ::close(fd);
    return port;
}

std::filesystem::path AnvilProcess::default_binary() {
    if (const char* env = std::getenv("CREDENCE_ANVIL"); env != nullptr && *env != '\0') {
        return env;
    }
    std::filesystem::path root = "/work/main";
    if (const char* src = std::getenv("CREDENCE_SOURCE_DIR"); src != nullptr && *src != '\0') {
        root = src;
    }
    return root / "node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil";
}

std::expected<std::unique_ptr<AnvilProcess>, std::string> AnvilProcess::start(
    const AnvilOptions& options) {
    const std::filesystem::path binary = options.binary.empty() ? default_binary() : options.binary;
    if (::access(binary.c_str(), X_OK) != 0) {
        return std::unexpected("anvil binary not executable: " + binary.string());
    }
    std::string last_error;
    constexpr int kPortAttempts = 3;
    for (int attempt = 0; attempt < kPortAttempts; ++attempt) {
        const uint16_t port = pick_free_port();
        if (port == 0) return std::unexpected("no free port on 127.0.0.1");
        std::vector<std::string> args = {"--host",     "127.0.0.1",
                                         "--port",     std::to_string(port),
                                         "--chain-id", std::to_string(options.chain_id),
                                         "--accounts", std::to_string(options.accounts)};
        if (options.block_time) {
            args.insert(args.end(), {"--block-time", std::to_string(*options.block_time)});
        }
        args.insert(args.end(), options.extra_args.begin(), options.extra_args.end());

        auto spawned = spawn(binary, args);
        if (!spawned) return std::unexpected(spawned.error());
        std::unique_ptr<AnvilProcess> proc(new AnvilProcess(spawned->pid, port, spawned->log_path));

        const auto deadline = Clock::now() + options.start_timeout;
        bool exited = false;
        while (Clock::now() < deadline) {
            int status = 0;
            if (::waitpid(proc->pid_, &status, WNOHANG) == proc->pid_) {
                exited = true;
                proc->pid_ = -1;  // reaped: nothing left to kill
                last_error = "anvil exited during start (status " + std::to_string(status) +
                             "): " + tail(proc->log());
                break;
            }
            if (answers(port, options.chain_id)) return proc;
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        if (!exited) {
            return std::unexpected("anvil did not answer eth_chainId within " +
                                   std::to_string(options.start_timeout.count()) +
                                   " ms: " + tail(proc->log()));
        }
        // Exited early: most likely the port was taken in the meantime; try a fresh one.
    }
    return std::unexpected(last_error);
}

AnvilProcess::~AnvilProcess() {
    stop();
    std::error_code ec;
    std::filesystem::remove(log_path_, ec);
}

void AnvilProcess::stop() noexcept {
    if (pid_ <= 0) return;
    if (!signal_and_reap(pid_, SIGTERM, std::chrono::milliseconds(3'000))) {
        signal_and_reap(pid_, SIGKILL, std::chrono::milliseconds(5'000));
    }
    pid_ = -1;
}

std::string AnvilProcess::url() const { return "http://127.0.0.1:" + std::to_string(port_); }

std::string AnvilProcess::log() const { return read_file(log_path_); }

}  // namespace credence::testing
