#include "support/devnet.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <credence/chain/devnet_deploy.hpp>
#include <credence/chain/txn_sender.hpp>

extern char** environ;  // NOLINT(readability-redundant-declaration): POSIX, not in a header

namespace credence::testing {
namespace {

namespace fs = std::filesystem;

std::expected<fs::path, std::string> make_temp_home() {
    std::string dir = (fs::temp_directory_path() / "credence-home-XXXXXX").string();
    if (::mkdtemp(dir.data()) == nullptr) {
        return std::unexpected(std::string("mkdtemp: ") + std::strerror(errno));
    }
    return fs::path(dir);
}

}  // namespace

std::expected<std::unique_ptr<Devnet>, std::string> Devnet::start(const DevnetOptions& options) {
    chain::AnvilOptions anvil_options;
    anvil_options.chain_id = options.chain_id;
    anvil_options.block_time = options.block_time;
    anvil_options.accounts = options.accounts;
    auto anvil = chain::AnvilProcess::start(anvil_options);
    if (!anvil) return std::unexpected(anvil.error());
    if ((*anvil)->dev_accounts().empty()) return std::unexpected("anvil reported no dev accounts");

    std::unique_ptr<Devnet> devnet(new Devnet());
    devnet->anvil_ = std::move(*anvil);
    devnet->rpc_url_ = devnet->anvil_->url();

    auto key = devnet->secret_key(0);
    auto rpc = devnet->rpc();
    chain::DeployOptions deploy_options;
    deploy_options.sender.chain_id = options.chain_id;
    deploy_options.sender.poll_interval = std::chrono::milliseconds(5);
    auto deployed = chain::deploy_all(rpc, key, deploy_options);
    if (!deployed) {
        return std::unexpected("devnet deploy failed: " + deployed.error() +
                               "\nanvil log: " + devnet->anvil_->log().substr(0, 2000));
    }
    devnet->deployment_ = std::move(deployed->deployment);
    devnet->deployment_.rpc_url = devnet->rpc_url_;

    auto home = make_temp_home();
    if (!home) return std::unexpected(home.error());
    devnet->home_ = *home;
    const fs::path devnet_file = devnet->home_ / "devnet.json";
    const fs::path deployment_file =
        devnet->home_ / "deployments" / (std::to_string(options.chain_id) + ".json");
    if (auto saved = chain::save_deployment(devnet_file, devnet->deployment_); !saved) {
        return std::unexpected(saved.error());
    }
    if (auto saved = chain::save_deployment(deployment_file, devnet->deployment_); !saved) {
        return std::unexpected(saved.error());
    }
    return devnet;
}

Devnet::~Devnet() {
    anvil_.reset();  // stops anvil first
    if (!home_.empty()) {
        std::error_code ec;
        fs::remove_all(home_, ec);
    }
}

core::Address Devnet::address(std::string_view contract) const {
    const auto it = deployment_.contracts.find(contract);
    if (it == deployment_.contracts.end()) {
        ADD_FAILURE() << "no contract named " << contract << " in the devnet deployment";
        return {};
    }
    return it->second;
}

const std::vector<chain::DevAccount>& Devnet::accounts() const noexcept {
    return anvil_->dev_accounts();
}

const std::string& Devnet::dev_key(size_t i) const { return accounts().at(i).private_key_hex; }

core::Address Devnet::dev_address(size_t i) const { return accounts().at(i).address; }

core::SecretKey Devnet::secret_key(size_t i) const {
    auto key = core::SecretKey::from_hex(dev_key(i));
    if (!key) std::abort();  // anvil_process checked the hex; a dev key is a valid scalar
    return std::move(*key);
}

std::map<std::string, std::string> Devnet::env() const {
    return {{"CREDENCE_HOME", home_.string()}};
}

std::vector<std::string> Devnet::env_strings() const {
    std::vector<std::string> out;
    for (const auto& [name, value] : env()) {
        std::string entry = name;
        entry.append("=").append(value);
        out.push_back(std::move(entry));
    }
    return out;
}

chain::RpcClient Devnet::rpc() const { return chain::RpcClient::make_http(rpc_url_); }

void DevnetFixture::SetUp() {
    auto started = Devnet::start();
    ASSERT_TRUE(started) << started.error();
    devnet_ = std::move(*started);
}

chain::Receipt Devnet::send(size_t from, const core::Address& to, core::Bytes data) const {
    auto client = rpc();
    const core::SecretKey key = secret_key(from);  // TxnSender keeps a reference
    chain::TxnSender sender(client, key);
    chain::TxnRequest req;
    req.to = to;
    req.data = std::move(data);
    auto receipt = sender.send(req);
    if (!receipt) {
        ADD_FAILURE() << "send from dev account " << from << ": " << receipt.error().detail;
        return {};
    }
    return *receipt;
}

uint64_t Devnet::chain_time() const {
    auto client = rpc();
    auto block = client.get_block_by_number(chain::BlockId::latest());
    if (!block || !*block) {
        ADD_FAILURE() << "eth_getBlockByNumber(latest) failed";
        return 0;
    }
    return (*block)->timestamp;
}

void DevnetFixture::TearDown() { devnet_.reset(); }

std::unique_ptr<Devnet> SharedDevnetFixture::shared_;
std::string SharedDevnetFixture::start_error_;

void SharedDevnetFixture::SetUpTestSuite() {
    auto started = Devnet::start();
    if (started) {
        shared_ = std::move(*started);
    } else {
        start_error_ = started.error();
    }
}

void SharedDevnetFixture::TearDownTestSuite() { shared_.reset(); }

void SharedDevnetFixture::SetUp() { ASSERT_TRUE(shared_ != nullptr) << start_error_; }

CommandResult run_command(const fs::path& binary, const std::vector<std::string>& args,
                          const std::map<std::string, std::string>& env,
                          std::string_view stdin_text) {
    CommandResult result;
    // Everything the child needs is built before fork (only async-signal-safe calls after it).
    std::vector<std::string> argv_storage{binary.string()};
    argv_storage.insert(argv_storage.end(), args.begin(), args.end());
    std::vector<char*> argv;
    argv.reserve(argv_storage.size() + 1);
    for (auto& s : argv_storage) argv.push_back(s.data());
    argv.push_back(nullptr);
    std::vector<std::string> env_storage;
    for (char** e = environ; *e != nullptr; ++e) {
        const std::string_view entry(*e);
        const std::string name(entry.substr(0, entry.find('=')));
        if (!env.contains(name)) env_storage.emplace_back(entry);
    }
    for (const auto& [name, value] : env) {
        std::string entry = name;
        entry.append("=").append(value);
        env_storage.push_back(std::move(entry));
    }
    std::vector<char*> envp;
    envp.reserve(env_storage.size() + 1);
    for (auto& s : env_storage) envp.push_back(s.data());
    envp.push_back(nullptr);

    std::array<int, 2> in_pipe{-1, -1};
    std::array<int, 2> out_pipe{-1, -1};
    std::array<int, 2> err_pipe{-1, -1};
    if (::pipe2(in_pipe.data(), O_CLOEXEC) != 0 || ::pipe2(out_pipe.data(), O_CLOEXEC) != 0 ||
        ::pipe2(err_pipe.data(), O_CLOEXEC) != 0) {
        result.err = "pipe failed";
        return result;
    }
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        ::dup2(in_pipe[0], STDIN_FILENO);
        ::dup2(out_pipe[1], STDOUT_FILENO);
        ::dup2(err_pipe[1], STDERR_FILENO);
        ::execve(argv[0], argv.data(), envp.data());
        ::_exit(127);
    }
    ::close(in_pipe[0]);
    ::close(out_pipe[1]);
    ::close(err_pipe[1]);
    if (pid < 0) {
        ::close(in_pipe[1]);
        ::close(out_pipe[0]);
        ::close(err_pipe[0]);
        result.err = "fork failed";
        return result;
    }
    // Feed stdin and drain both outputs together, so neither side blocks on a full pipe.
    ::signal(SIGPIPE, SIG_IGN);
    size_t written = 0;
    int in_fd = in_pipe[1];
    if (stdin_text.empty()) {
        ::close(in_fd);
        in_fd = -1;
    }
    std::array<char, 4096> buf{};
    bool out_open = true;
    bool err_open = true;
    while (out_open || err_open) {
        std::array<pollfd, 3> fds{};
        nfds_t n = 0;
        if (out_open) fds[n++] = {out_pipe[0], POLLIN, 0};
        if (err_open) fds[n++] = {err_pipe[0], POLLIN, 0};
        if (in_fd >= 0) fds[n++] = {in_fd, POLLOUT, 0};
        if (::poll(fds.data(), n, -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        for (nfds_t i = 0; i < n; ++i) {
            if (fds[i].revents == 0) continue;
            if (fds[i].fd == in_fd) {
                const ssize_t w =
                    ::write(in_fd, stdin_text.data() + written, stdin_text.size() - written);
                if (w > 0) written += static_cast<size_t>(w);
                if (w < 0 || written == stdin_text.size()) {
                    ::close(in_fd);
                    in_fd = -1;
                }
                continue;
            }
            const ssize_t r = ::read(fds[i].fd, buf.data(), buf.size());
            if (r > 0) {
                (fds[i].fd == out_pipe[0] ? result.out : result.err)
                    .append(buf.data(), static_cast<size_t>(r));
            } else if (r == 0 || errno != EINTR) {
                (fds[i].fd == out_pipe[0] ? out_open : err_open) = false;
            }
        }
    }
    if (in_fd >= 0) ::close(in_fd);
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
}

}  // namespace credence::testing
