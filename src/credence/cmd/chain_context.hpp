// What every on-chain command group (agent, feedback, validation, tool, workflow) shares: the
// common flags, the node connection, the deployment's contract addresses, the signing key, and
// sending / calling with reverts decoded into one line.
//
// Flags (docs/cli.md), added by add_chain_options():
//   --json                 print one JSON document
//   --rpc URL              else $ETH_RPC_URL, else the running `credence devnet`, else :8545
//   --chain-id N           the chain to sign for; checked against the node
//   --private-key HEX / --keystore FILE [--password-file FILE]   (key_source.hpp)
//   --deployment FILE      contract addresses; else $CREDENCE_DEPLOYMENT, else the devnet's file
//                          for the node's chain id (deployment.hpp)
//   --confirmations N      blocks to wait for (default 1)
//   --dry-run              sign and print the raw transaction instead of sending it
//
// Errors: every failure throws CliError with one line, e.g.
//   "giveFeedback reverted: SelfFeedbackNotAllowed(agentId=1, caller=0xf39F…)".
// Reverts are decoded by the one describer of Credence reverts (chain/revert.hpp
// describe_credence_revert); reads go through the generated call helpers
// (ctx.call(idr::call::owner_of, registry, agent_id), chain/contract_call.hpp).
// Thread-safety: one context per command invocation. Ownership: owns the RpcClient and key.
#pragma once

#include <cstdint>
#include <expected>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <credence/chain/contract_call.hpp>
#include <credence/chain/deployment.hpp>
#include <credence/chain/key_source.hpp>
#include <credence/chain/rpc_client.hpp>
#include <credence/chain/txn_sender.hpp>
#include <credence/cmd/commands.hpp>
#include <credence/core/address.hpp>
#include <credence/core/bytes.hpp>

namespace credence::cmd {

struct ChainOptions {
    bool json = false;
    std::string rpc;
    std::optional<uint64_t> chain_id;
    std::optional<std::string> private_key;
    std::optional<std::string> keystore;
    std::optional<std::string> password_file;
    std::string deployment;
    unsigned confirmations = 1;
    bool dry_run = false;
};

/// Adds the shared flags to `cmd`. `signs`: also the key, --confirmations and --dry-run flags.
void add_chain_options(CLI::App& cmd, ChainOptions& options, bool signs);

/// Unwraps a call helper's result, or throws CliError with its one line
/// ("getValidationStatus reverted: UnknownRequest(requestHash=0x…)").
template <typename T>
T must_call(chain::CallResult<T>&& r) {
    if (!r) throw CliError(r.error().message());
    return std::move(*r);
}

/// The outcome of ChainContext::send. With --dry-run only raw_txn and txn_hash are set.
struct SentTxn {
    core::Hash32 txn_hash{};
    core::Bytes raw_txn;
    std::optional<chain::Receipt> receipt;  // nullopt for --dry-run
};

class ChainContext {
public:
    explicit ChainContext(const ChainOptions& options);
    ~ChainContext();
    ChainContext(const ChainContext&) = delete;
    ChainContext& operator=(const ChainContext&) = delete;

    [[nodiscard]] const ChainOptions& options() const noexcept { return options_; }
    [[nodiscard]] chain::RpcClient& rpc() noexcept { return *rpc_; }
    /// The node's JSON-RPC URL as resolved (--rpc, $ETH_RPC_URL, the devnet, the default).
    [[nodiscard]] const std::string& rpc_url() const noexcept { return rpc_url_; }
    /// The node's chain id (checked against --chain-id once).
    [[nodiscard]] uint64_t chain_id();
    /// For commands that read only the index: take `id` as the chain without asking the node
    /// (the deployment file is then found for it offline).
    void assume_chain_id(uint64_t id) noexcept { chain_id_ = id; }
    /// The node's own chain id, asked once and kept, answer or failure (the failure as the line
    /// chain_id() would throw): for commands that work without a node.
    [[nodiscard]] const std::expected<uint64_t, std::string>& node_chain_id();
    /// A contract's address by its name in the deployment file, e.g. "ReputationRegistry".
    /// `override_flag`, when non-empty, is an explicit address that wins (e.g. --registry).
    [[nodiscard]] core::Address contract(std::string_view name,
                                         std::string_view override_flag = {});
    /// The deployment file (see --deployment), loaded on first use; nullptr when none is known
    /// and `required` is false (else CliError). An explicit --deployment that fails always throws.
    [[nodiscard]] const chain::Deployment* deployment(bool required);
    /// The signing key, loaded on first use (prompting for a keystore password if needed).
    [[nodiscard]] const chain::SigningKey& signer();

    /// Sends `calldata` to `to` and waits for the receipt; `what` names the call in errors
    /// ("giveFeedback"). With --dry-run, signs and returns without sending.
    SentTxn send(const core::Address& to, core::Bytes calldata, std::string_view what);
    /// The caller of the generated call helpers (eth_call at latest).
    [[nodiscard]] chain::ContractCaller& caller() noexcept { return *caller_; }
    /// A generated call helper run at latest, its failure thrown as must_call does:
    /// `ctx.call(idr::call::owner_of, registry, agent_id)`.
    template <typename Helper, typename... Args>
    [[nodiscard]] auto call(Helper&& helper, const core::Address& to, Args&&... args) {
        return must_call(std::forward<Helper>(helper)(*caller_, to, std::forward<Args>(args)...));
    }

    /// Adds the standard transaction fields (hash, block, gas used; or the raw transaction for
    /// --dry-run) to `out`.
    static void report(Output& out, const SentTxn& sent);

private:
    ChainOptions options_;
    std::unique_ptr<chain::RpcClient> rpc_;
    std::unique_ptr<chain::ContractCaller> caller_;  // over *rpc_
    std::string rpc_url_;
    std::optional<uint64_t> chain_id_;
    std::optional<std::expected<uint64_t, std::string>> node_chain_id_;
    std::optional<chain::Deployment> deployment_;
    std::optional<chain::SigningKey> signer_;
    std::unique_ptr<chain::TxnSender> sender_;
};

/// Throws CliError("<what>: <one line>"), decoding revert data when there is some.
/// The devnet's deployment when `credence devnet` is running (or left its file behind): how
/// every command, and `node` without --rpc, finds the local chain.
[[nodiscard]] std::optional<chain::Deployment> running_devnet();

[[noreturn]] void throw_rpc_error(const chain::RpcError& error, std::string_view what);

/// Unwraps an RpcResult or throws as throw_rpc_error does.
template <typename T>
T must_rpc(chain::RpcResult<T>&& r, std::string_view what) {
    if (!r) throw_rpc_error(r.error(), what);
    return std::move(*r);
}

}  // namespace credence::cmd
