#include "support/devnet.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <credence/chain/devnet_deploy.hpp>
#include <credence/chain/txn_sender.hpp>

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
    deploy_options.revisions = options.revisions;
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

}  // namespace credence::testing
