#include <credence/cmd/chain_context.hpp>

#include <cstdlib>
#include <filesystem>

#include <fmt/core.h>

#include <credence/chain/revert.hpp>

namespace credence::cmd {

namespace {

std::optional<std::string> env(const char* name) {
    const char* v = std::getenv(name);
    if (v == nullptr || *v == '\0') return std::nullopt;
    return std::string(v);
}

}  // namespace

std::optional<chain::Deployment> running_devnet() {
    const auto path = chain::devnet_path();
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return std::nullopt;
    auto d = chain::load_deployment(path);
    if (!d) throw CliError(d.error());
    return std::move(*d);
}

void throw_rpc_error(const chain::RpcError& error, std::string_view what) {
    if (chain::is_revert(error))
        throw CliError(
            fmt::format("{} reverted: {}", what, chain::describe_credence_revert(error.data)));
    // No node answering is what a newcomer meets first: say how to get one.
    if (error.kind == chain::RpcErrorKind::transport || error.kind == chain::RpcErrorKind::timeout)
        throw CliError(
            fmt::format("{}: {} (is a node running there? `credence devnet` starts a "
                        "local one; --rpc URL or $ETH_RPC_URL names another)",
                        what, error.to_string()));
    throw CliError(fmt::format("{}: {}", what, error.to_string()));
}

void add_chain_options(CLI::App& cmd, ChainOptions& o, bool signs) {
    cmd.add_flag("--json", o.json, "Print the result as JSON");
    cmd.add_option("--rpc", o.rpc,
                   "JSON-RPC URL (default: $ETH_RPC_URL, else the running devnet, else "
                   "http://127.0.0.1:8545)");
    cmd.add_option("--chain-id", o.chain_id, "Expected chain id (checked against the node)");
    cmd.add_option(
        "--deployment", o.deployment,
        "Deployment file with the contract addresses (default: $CREDENCE_DEPLOYMENT, "
        "else $CREDENCE_HOME/deployments/<chainId>.json, where credence devnet writes its "
        "own)");
    if (!signs) return;
    cmd.add_option("--private-key", o.private_key,
                   "Hex private key (else --keystore, $CREDENCE_PRIVATE_KEY, $ETH_PRIVATE_KEY)");
    cmd.add_option("--keystore", o.keystore, "Web3 Secret Storage v3 keystore file");
    cmd.add_option("--password-file", o.password_file, "File holding the keystore password");
    cmd.add_option("--confirmations", o.confirmations, "Blocks to wait for (default 1)")
        ->check(CLI::Range(1U, 1000U));
    cmd.add_flag("--dry-run", o.dry_run, "Sign and print the raw transaction; send nothing");
}

ChainContext::ChainContext(const ChainOptions& options) : options_(options) {
    std::string url = options_.rpc;
    if (url.empty()) url = env("ETH_RPC_URL").value_or("");
    if (url.empty()) {
        if (auto devnet = running_devnet(); devnet && devnet->rpc_url) {
            url = *devnet->rpc_url;
            // The devnet's file names its chain: no eth_chainId round trip is needed to find the
            // contracts (the sender still checks the id before signing).
            if (!options_.chain_id || *options_.chain_id == devnet->chain_id) {
                chain_id_ = devnet->chain_id;
                if (options_.deployment.empty() && !env("CREDENCE_DEPLOYMENT"))
                    deployment_ = std::move(*devnet);
            }
        }
    }
    if (url.empty()) url = "http://127.0.0.1:8545";
    rpc_url_ = url;
    chain::RetryPolicy retry;
    retry.max_attempts = 3;
    rpc_ = std::make_unique<chain::RpcClient>(chain::RpcClient::make_http(url, {}, retry));
    caller_ = std::make_unique<chain::ContractCaller>(*rpc_);
}

ChainContext::~ChainContext() = default;

uint64_t ChainContext::chain_id() {
    if (chain_id_) return *chain_id_;
    if (options_.chain_id && options_.dry_run) return *options_.chain_id;
    const uint64_t node = must_rpc(rpc_->chain_id(), "eth_chainId");
    if (options_.chain_id && *options_.chain_id != node)
        throw CliError(fmt::format("chain id mismatch: the node is on chain {}, not {}", node,
                                   *options_.chain_id));
    chain_id_ = node;
    return node;
}

const std::expected<uint64_t, std::string>& ChainContext::node_chain_id() {
    if (!node_chain_id_) {
        try {
            node_chain_id_ = must_rpc(rpc_->chain_id(), "eth_chainId");
        } catch (const CliError& no_node) {
            node_chain_id_ = std::unexpected(std::string(no_node.what()));
        }
    }
    return *node_chain_id_;
}

core::Address ChainContext::contract(std::string_view name, std::string_view override_flag) {
    if (!override_flag.empty()) {
        auto a = core::Address::from_hex(override_flag);
        if (!a) throw CliError(fmt::format("invalid {} address: {}", name, override_flag));
        return *a;
    }
    const chain::Deployment* d = deployment(true);
    const auto it = d->contracts.find(name);
    if (it == d->contracts.end())
        throw CliError(fmt::format("the deployment has no {} contract", name));
    return it->second;
}

const chain::Deployment* ChainContext::deployment(bool required) {
    if (deployment_) return &*deployment_;
    auto found = chain::find_deployment(chain_id(), options_.deployment);
    if (!found) throw CliError(found.error());
    std::optional<chain::Deployment>& d = *found;
    if (!d) {
        if (!required) return nullptr;
        throw CliError(fmt::format(
            "no Credence deployment known for chain {}: start `credence devnet`, or pass "
            "--deployment FILE",
            chain_id()));
    }
    deployment_ = std::move(*d);
    return &*deployment_;
}

const chain::SigningKey& ChainContext::signer() {
    if (!signer_) {
        chain::KeySourceOptions k;
        k.private_key = options_.private_key;
        k.keystore_path = options_.keystore;
        k.password_file = options_.password_file;
        auto key = chain::load_signing_key(k);
        // The detail is a whole sentence that names the key source (chain/key_source.hpp).
        if (!key) throw CliError(key.error().detail);
        signer_ = std::move(*key);
    }
    return *signer_;
}

SentTxn ChainContext::send(const core::Address& to, core::Bytes calldata, std::string_view what) {
    if (!sender_) {
        chain::SenderOptions s;
        s.chain_id = options_.chain_id ? options_.chain_id : chain_id_;
        s.confirmations = options_.confirmations;
        sender_ = std::make_unique<chain::TxnSender>(*rpc_, signer().key, s);
    }
    chain::TxnRequest request;
    request.to = to;
    request.data = std::move(calldata);
    const uint64_t confirmations = options_.confirmations;
    const auto fail = [what, confirmations](const chain::SendFailure& f) -> CliError {
        if (f.code == chain::SendError::reverted)
            return CliError(fmt::format("{} reverted: {}", what,
                                        chain::describe_credence_revert(f.revert_data)));
        // An automining devnet makes a block only when a transaction arrives: later
        // confirmations never come on their own.
        if (f.code == chain::SendError::receipt_timeout && confirmations > 1 && f.txn_hash)
            return CliError(fmt::format(
                "{} failed: {} (the transaction {} is mined; the chain made no {} blocks after it. "
                "An automining devnet mines only when a transaction arrives: use --confirmations 1 "
                "there, or `credence devnet --block-time 1`)",
                what, f.detail, core::to_hex(*f.txn_hash), confirmations - 1));
        return CliError(fmt::format("{} failed: {}", what, f.detail));
    };
    SentTxn sent;
    auto signed_txn = sender_->prepare(request);
    if (!signed_txn) throw fail(signed_txn.error());
    sent.raw_txn = core::encode_signed(*signed_txn);
    sent.txn_hash = core::txn_hash(*signed_txn);
    if (options_.dry_run) return sent;
    if (options_.confirmations > 1 && !options_.json) {
        // Waiting for later blocks can take a while; say so rather than sit silent.
        fmt::print(stderr, "{}: sent {}, waiting for {} confirmations\n", what,
                   core::to_hex(sent.txn_hash), options_.confirmations);
    }
    auto receipt = sender_->dispatch(*signed_txn);
    if (!receipt) throw fail(receipt.error());
    sent.receipt = std::move(*receipt);
    return sent;
}

void ChainContext::report(Output& out, const SentTxn& sent) {
    out.add("txHash", core::to_hex(sent.txn_hash));
    if (!sent.receipt) {
        out.add("rawTransaction", core::to_hex(sent.raw_txn));
        return;
    }
    out.add("blockNumber", sent.receipt->block_num);
    out.add("gasUsed", sent.receipt->gas_used);
}

}  // namespace credence::cmd
