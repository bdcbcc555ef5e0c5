#include <credence/chain/anvil_process.hpp>

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
#include <regex>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <credence/chain/program_files.hpp>
#include <credence/chain/rpc_client.hpp>

namespace credence::chain {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr std::string_view kNpmAnvil = "node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil";

std::string read_text(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

std::string tail(const std::string& text, size_t max = 2000) {
    return text.size() <= max ? text : "..." + text.substr(text.size() - max);
}

// True when the node at `url` answers eth_chainId with `chain_id`. One short attempt, no retries:
// the caller polls.
bool answers(const std::string& url, uint64_t chain_id) {
    HttpOptions http;
    http.connect_timeout = std::chrono::milliseconds(200);
    http.total_timeout = std::chrono::milliseconds(1'000);
    RetryPolicy once;
    once.max_attempts = 1;
    auto rpc = RpcClient::make_http(url, http, once);
    auto id = rpc.chain_id();
    return id && *id == chain_id;
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

// The port from anvil's "Listening on 127.0.0.1:<port>" line, 0 until it appears.
uint16_t listening_port(const std::string& log) {
    static const std::regex kListening(R"(Listening on [0-9.]+:([0-9]+))");
    std::smatch m;
    if (!std::regex_search(log, m, kListening)) return 0;
    const unsigned long port = std::strtoul(m[1].str().c_str(), nullptr, 10);
    return port > 0 && port <= 65535 ? static_cast<uint16_t>(port) : 0;
}

// The first executable `name` on $PATH, or `name` itself when none is.
fs::path search_path(const std::string& name) {
    const char* path = std::getenv("PATH");
    if (path == nullptr) return name;
    std::string_view rest(path);
    while (!rest.empty()) {
        const auto colon = rest.find(':');
        const std::string_view dir = rest.substr(0, colon);
        if (!dir.empty()) {
            fs::path candidate = fs::path(dir) / name;
            if (::access(candidate.c_str(), X_OK) == 0) return candidate;
        }
        if (colon == std::string_view::npos) break;
        rest.remove_prefix(colon + 1);
    }
    return name;
}

// `home` becomes the child's $HOME: anvil writes the states it evicts from memory under
// `$HOME/.foundry/anvil/tmp` and leaves them there when it is stopped by a signal (gigabytes over a
// test suite), so each anvil gets the launcher's private directory, removed with it.
pid_t spawn(const fs::path& binary, const std::vector<std::string>& args, const fs::path& log,
            const fs::path& home) {
    const int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (log_fd < 0) return -1;
    // Everything the child needs is built before fork: after fork in a threaded program only
    // async-signal-safe calls are allowed.
    std::vector<std::string> storage;
    storage.push_back(binary.string());
    storage.insert(storage.end(), args.begin(), args.end());
    std::vector<char*> argv;
    argv.reserve(storage.size() + 1);
    for (auto& s : storage) argv.push_back(s.data());
    argv.push_back(nullptr);
    std::vector<std::string> env_storage;
    for (char** e = environ; *e != nullptr; ++e) {
        if (!std::string_view(*e).starts_with("HOME=")) env_storage.emplace_back(*e);
    }
    env_storage.push_back("HOME=" + home.string());
    std::vector<char*> envp;
    envp.reserve(env_storage.size() + 1);
    for (auto& s : env_storage) envp.push_back(s.data());
    envp.push_back(nullptr);
    const pid_t parent = ::getpid();
    const int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);

    const pid_t pid = ::fork();
    if (pid == 0) {
        // Own process group: a terminal's SIGINT goes to the owner, which stops anvil in order.
        ::setpgid(0, 0);
        // Die with the parent, even on a crash that skips destructors.
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) ::_exit(127);
        // exec keeps the signal mask and ignored signals: a parent that blocks SIGINT/SIGTERM to
        // sigwait for them (credence devnet) must not leave anvil deaf to stop().
        sigset_t none;
        ::sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        ::signal(SIGINT, SIG_DFL);
        ::signal(SIGTERM, SIG_DFL);
        if (devnull >= 0) ::dup2(devnull, STDIN_FILENO);
        ::dup2(log_fd, STDOUT_FILENO);
        ::dup2(log_fd, STDERR_FILENO);
        ::execve(argv[0], argv.data(), envp.data());
        ::_exit(127);
    }
    ::close(log_fd);
    if (devnull >= 0) ::close(devnull);
    return pid;
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
    // NOLINTBEGIN(cppcoreguidelines-pro-type-reinterpret-cast): the BSD socket API.
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
        port = ntohs(addr.sin_port);
    }
    // NOLINTEND(cppcoreguidelines-pro-type-reinterpret-cast)
    ::close(fd);
    return port;
}

std::expected<std::vector<DevAccount>, std::string> parse_anvil_config(std::string_view json) {
    const auto doc = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
    if (!doc.is_object()) return std::unexpected("anvil config: not a JSON object");
    const auto accounts = doc.find("available_accounts");
    const auto keys = doc.find("private_keys");
    if (accounts == doc.end() || !accounts->is_array() || keys == doc.end() || !keys->is_array() ||
        accounts->size() != keys->size()) {
        return std::unexpected(
            "anvil config: available_accounts and private_keys must be arrays of one length");
    }
    std::vector<DevAccount> out;
    out.reserve(accounts->size());
    for (size_t i = 0; i < accounts->size(); ++i) {
        const auto& a = (*accounts)[i];
        const auto& k = (*keys)[i];
        if (!a.is_string() || !k.is_string()) {
            return std::unexpected("anvil config: account " + std::to_string(i) + " is not text");
        }
        auto address = core::Address::from_hex(a.get<std::string>(), core::ChecksumMode::ignore);
        if (!address) {
            return std::unexpected("anvil config: bad address at " + std::to_string(i));
        }
        const std::string key = k.get<std::string>();
        if (key.size() != 66 || !key.starts_with("0x") || !core::from_prefixed_hex(key)) {
            return std::unexpected("anvil config: bad private key at " + std::to_string(i));
        }
        out.push_back({*address, key});
    }
    return out;
}

std::expected<fs::path, std::string> AnvilProcess::find_binary() {
    const auto executable = [](const fs::path& p) {
        return !p.empty() && ::access(p.c_str(), X_OK) == 0;
    };
    std::vector<SearchStep> steps;
    const char* env = std::getenv("CREDENCE_ANVIL");
    if (env != nullptr && *env != '\0') {
        // An explicit choice is never second-guessed: a wrong one is an error, not a fallback.
        if (executable(env)) return fs::path(env);
        return std::unexpected(
            fmt::format("anvil not found: $CREDENCE_ANVIL ({}) is not an "
                        "executable file",
                        env));
    }
    steps.push_back({"$CREDENCE_ANVIL", {}});
    fs::path installed = installed_path("libexec/credence/anvil");
    steps.push_back({"the install prefix", installed});
    if (executable(installed)) return installed;
    if (const char* src = std::getenv("CREDENCE_SOURCE_DIR"); src != nullptr && *src != '\0') {
        fs::path candidate = fs::path(src) / kNpmAnvil;
        steps.push_back({"$CREDENCE_SOURCE_DIR", candidate});
        if (executable(candidate)) return candidate;
    }
    // A build tree inside the checkout: the nearest ancestor with node_modules.
    const fs::path self = executable_dir();
    for (fs::path dir = self; !dir.empty(); dir = dir.parent_path()) {
        fs::path candidate = dir / kNpmAnvil;
        if (executable(candidate)) return candidate;
        if (dir == dir.root_path()) break;
    }
    steps.push_back({"node_modules above", self});
    fs::path on_path = search_path("anvil");
    if (on_path.has_parent_path() && executable(on_path)) return on_path;
    steps.push_back({"PATH", {}});
    return std::unexpected("anvil not found; " + describe_search(steps) +
                           ". Install Credence's package, run `npm ci` in the checkout, or set "
                           "CREDENCE_ANVIL");
}

std::expected<std::unique_ptr<AnvilProcess>, std::string> AnvilProcess::start(
    const AnvilOptions& options) {
    fs::path binary = options.binary;
    if (binary.empty()) {
        auto found = find_binary();
        if (!found) return std::unexpected(found.error());
        binary = std::move(*found);
    } else if (!binary.has_parent_path()) {
        binary = search_path(binary.string());
    }
    if (::access(binary.c_str(), X_OK) != 0) {
        return std::unexpected("anvil binary not executable: " + binary.string() +
                               " (set CREDENCE_ANVIL)");
    }
    std::string dir_template = (fs::temp_directory_path() / "credence-anvil-XXXXXX").string();
    if (::mkdtemp(dir_template.data()) == nullptr) {
        return std::unexpected("cannot create a temporary directory for anvil");
    }
    std::unique_ptr<AnvilProcess> proc(new AnvilProcess());
    proc->dir_ = dir_template;
    proc->chain_id_ = options.chain_id;
    const fs::path config = proc->dir_ / "config.json";

    std::vector<std::string> args = {"--host",       "127.0.0.1",
                                     "--port",       std::to_string(options.port),
                                     "--chain-id",   std::to_string(options.chain_id),
                                     "--accounts",   std::to_string(options.accounts),
                                     "--config-out", config.string()};
    if (options.block_time) {
        args.insert(args.end(), {"--block-time", std::to_string(*options.block_time)});
    }
    if (options.state_file) args.insert(args.end(), {"--state", options.state_file->string()});
    args.insert(args.end(), options.extra_args.begin(), options.extra_args.end());

    proc->pid_ = spawn(binary, args, proc->dir_ / "anvil.log", proc->dir_);
    if (proc->pid_ < 0) return std::unexpected("cannot start anvil (fork or log file failed)");

    const auto deadline = Clock::now() + options.start_timeout;
    while (Clock::now() < deadline) {
        if (!proc->running()) {
            return std::unexpected("anvil exited during start: " + tail(proc->log()));
        }
        if (proc->port_ == 0) proc->port_ = listening_port(proc->log());
        if (proc->port_ != 0 && answers(proc->url(), options.chain_id)) {
            auto accounts = parse_anvil_config(read_text(config));
            if (!accounts) return std::unexpected(accounts.error());
            proc->dev_accounts_ = std::move(*accounts);
            return proc;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return std::unexpected("anvil did not answer eth_chainId within " +
                           std::to_string(options.start_timeout.count()) +
                           " ms: " + tail(proc->log()));
}

AnvilProcess::~AnvilProcess() {
    stop();
    if (!dir_.empty()) {
        std::error_code ec;
        fs::remove_all(dir_, ec);
    }
}

bool AnvilProcess::running() noexcept {
    if (pid_ <= 0) return false;
    int status = 0;
    const pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_ || (r < 0 && errno == ECHILD)) {
        pid_ = -1;  // reaped: nothing left to kill
        return false;
    }
    return true;
}

void AnvilProcess::stop(std::chrono::milliseconds grace) noexcept {
    if (pid_ <= 0) return;
    if (!signal_and_reap(pid_, SIGTERM, grace)) {
        signal_and_reap(pid_, SIGKILL, std::chrono::milliseconds(5'000));
    }
    pid_ = -1;
}

std::string AnvilProcess::url() const { return "http://127.0.0.1:" + std::to_string(port_); }

std::string AnvilProcess::log() const { return read_text(dir_ / "anvil.log"); }

}  // namespace credence::chain
