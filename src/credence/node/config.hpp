// The configuration of `credence node` (docs/node.md): a TOML file (toml++) merged with
// command-line flags, flags winning. docs/node.md is the reference of every key.
//
//   [chain]     rpc, chain_id, deployment, finality_depth, seconds_per_block, poll_ms,
//               getlogs_in_flight, devnet_port, devnet_state
//   [[chains]]  many chains in one node (docs/node.md §Many chains): each with rpc, chain_id
//               (both required), ws and [chain]'s keys but the devnet's, and its own
//               [[chains.registries]]; instead of [chain] and [[registries]]
//   [node]      role, election_retry_ms (docs/scale.md)
//   [database]  location (SQLite path or postgresql:// URL), data_dir, check
//   [health]    max_lag_blocks, degraded_status
//   [[registries]] kind, address, start_block, name
//   [[payment_chains]] chain_id, rpc
//   [http]      bind, port, static_dir, max_body_bytes, rate_limit_per_second, rate_limit_burst,
//               threads, max_connections, max_connections_per_ip, idle_timeout_ms,
//               header_timeout_ms, body_timeout_ms, write_timeout_ms, max_header_bytes,
//               max_target_bytes, keep_alive_requests
//   [trust]     trusted, full_interval_seconds, incremental_interval_ms, half_life_days
//   [verify]    enabled, max_age_seconds, interval_seconds, batch
//   [fetch]     allow_http, ca_file, allow_hosts, connect_to, ipfs_gateways
//
// Errors: load_node_config() returns one line naming the file and the key ("node.toml:
// http.port: must be an integer in 0..65535"); unknown keys and tables are errors too, so a typo
// never silently falls back to a default.
// Thread-safety: plain values. Ownership: values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <expected>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <credence/index/integrity.hpp>
#include <credence/index/sources.hpp>
#include <credence/verify/net/ipfs_gateways.hpp>

namespace credence::node {

struct ChainConfig {
    /// The node's JSON-RPC URL; empty: start the embedded devnet (anvil with every contract).
    std::string rpc;
    std::optional<uint64_t> chain_id;         ///< checked against eth_chainId; devnet: its chain id
    std::string deployment;                   ///< deployment file; empty: the chain's default file
    std::optional<uint64_t> finality_depth;   ///< empty: index::default_finality_depth
    std::optional<double> seconds_per_block;  ///< trust time estimates; empty: 12 (1 on devnet)
    unsigned poll_ms = 1000;                  ///< indexer poll interval once caught up
    std::optional<unsigned> getlogs_in_flight;  ///< empty: index::RangePolicy::in_flight
    uint16_t devnet_port = 0;                   ///< embedded devnet port; 0: any free port
    std::string devnet_state;                   ///< embedded devnet --state directory; empty: none
    /// ws:// or wss:// of the same node: newHeads wake the indexer at once instead of after
    /// poll_ms (docs/node.md §Many chains); empty: poll only.
    std::string ws;
    /// Registries to index; empty: the deployment's contracts plus the chain's deployed ERC-8004
    /// registries (as `credence index` picks them). [chain] takes them from [[registries]].
    std::vector<index::RegistrySource> registries;
};

struct DatabaseConfig {
    /// SQLite file or postgresql:// URL; empty: <data_dir>/index.sqlite.
    std::string location;
    /// Empty: $CREDENCE_HOME (chain::credence_home()).
    std::filesystem::path data_dir;
    /// The SQLite index's check at start (index/integrity.hpp; docs/node.md §Integrity).
    index::IntegrityCheck check = index::IntegrityCheck::quick;
};

/// What a node does (docs/scale.md): `all` indexes, verifies, scores and serves; `writer` does the
/// first three and serves only /healthz, /metrics and /api/v1/status; `api` only reads the
/// database and serves, so any number can run on one PostgreSQL and on its read replicas.
enum class NodeRole { all, writer, api };

[[nodiscard]] std::string_view to_string(NodeRole role) noexcept;
/// "all", "writer" or "api"; the error says so.
[[nodiscard]] std::expected<NodeRole, std::string> parse_node_role(std::string_view text);

struct RoleConfig {
    NodeRole role = NodeRole::all;
    /// On PostgreSQL, writer-capable nodes elect one writer per chain (index/writer_election.hpp):
    /// a standby asks for the lock this often, which bounds the takeover after a writer dies.
    unsigned election_retry_ms = 1000;
};

/// /healthz (docs/node.md §Health).
struct HealthConfig {
    /// Degraded when the index is more than this many blocks behind the chain's head.
    uint64_t max_lag_blocks = 100;
    /// The status /healthz answers while degraded: 503 (a load balancer stops sending) or 200
    /// (keep serving stale answers, e.g. a single node with no replica to fail over to).
    int degraded_status = 503;
    /// An API node on a PostgreSQL standby is degraded while its replay lags more than this.
    double max_replication_lag_seconds = 30;
};

struct HttpConfig {
    std::string bind = "127.0.0.1";
    uint16_t port = 8004;
    std::filesystem::path static_dir;
    size_t max_body_bytes = 64 * 1024;
    double rate_limit_per_second = 50;
    double rate_limit_burst = 100;
    // Handler threads; open connections cost none (docs/node.md §HTTP server limits).
    unsigned threads = 8;
    size_t max_connections = 4096;
    size_t max_connections_per_ip = 64;
    uint32_t idle_timeout_ms = 5000;
    uint32_t header_timeout_ms = 10000;
    uint32_t body_timeout_ms = 10000;
    uint32_t write_timeout_ms = 10000;
    size_t max_header_bytes = 16 * 1024;
    size_t max_target_bytes = 8 * 1024;
    size_t keep_alive_requests = 1000;
};

struct TrustEngineConfig {
    std::vector<std::string> trusted;  ///< addresses of the trusted seed set
    unsigned full_interval_seconds = 300;
    unsigned incremental_interval_ms = 1000;
    double half_life_days = 90;
};

struct VerifyConfig {
    bool enabled = true;
    int64_t max_age_seconds = 86'400;
    unsigned interval_seconds = 30;
    size_t batch = 16;
};

struct FetchConfig {
    bool allow_http = false;
    std::string ca_file;
    std::vector<std::string> allow_hosts;
    std::vector<std::string> connect_to;
    /// The public trustless gateways unless the file names others; `[]` turns IPFS off.
    std::vector<std::string> ipfs_gateways = verify::default_ipfs_gateways();
};

/// A chain where feedback files' proofOfPayment transactions are checked (ERC-8004 §Off-Chain
/// Feedback File Structure). The chain the node follows needs none: its own RPC serves.
struct PaymentChain {
    uint64_t chain_id = 0;
    std::string rpc;
};

struct NodeConfig {
    /// The one chain of [chain] (and [[registries]]), when `chains` is empty.
    ChainConfig chain;
    /// [[chains]]: every chain the node follows, the first being its default chain.
    std::vector<ChainConfig> chains;
    bool chain_table_given = false;  ///< the file has a [chain] table
    RoleConfig node;
    DatabaseConfig database;
    std::vector<PaymentChain> payment_chains;
    /// Registries to index; empty: the deployment's contracts plus the chain's deployed ERC-8004
    /// registries (as `credence index` picks them).
    std::vector<index::RegistrySource> registries;
    HttpConfig http;
    HealthConfig health;
    TrustEngineConfig trust;
    VerifyConfig verify;
    FetchConfig fetch;
};

/// Reads a TOML document into `config` (keys absent from the text keep their value). `origin`
/// names the source in errors (the file name).
[[nodiscard]] std::expected<void, std::string> apply_node_config(std::string_view toml_text,
                                                                 std::string_view origin,
                                                                 NodeConfig& config);

/// Loads a TOML file over the defaults.
[[nodiscard]] std::expected<NodeConfig, std::string> load_node_config(
    const std::filesystem::path& path);

/// The chains the node follows: [[chains]], else [chain] with [[registries]].
[[nodiscard]] std::vector<ChainConfig> followed_chains(const NodeConfig& config);

/// Checks the merged configuration (after the flags): one line naming the key when wrong.
[[nodiscard]] std::expected<void, std::string> validate(const NodeConfig& config);

}  // namespace credence::node
