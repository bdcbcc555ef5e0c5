// One followed chain inside `credence node` (docs/node.md §Many chains): its indexer, verifier
// and trust engine threads, its health and its counters. The node runs one per chain, all
// writing the one database (every row carries its chain id); nothing is shared between chains
// but the database and the node's stop request, so one chain's sick RPC never stalls another.
//
// Three ways to start:
//   - prepare() then launch(): the node's start does the chain's set-up and stops on its error
//     ([chain] on SQLite: a wrong chain id or a dead RPC is the node's error);
//   - supervise(): [[chains]], or any writer-capable node on PostgreSQL: on the chain's own
//     thread, first the writer election (index/writer_election.hpp; a standby waits, state
//     "standby"), then the set-up, retried while the RPC cannot be reached; a chain whose RPC
//     names another chain id is refused (state "refused"). The indexer runs on that thread and
//     polls the election after every batch: a writer that lost its lock stops the chain's threads
//     and stands by again with a new connection;
//   - read(): an API node (docs/scale.md): no RPC and no writes; a thread reads the chain's
//     cursor and, on a PostgreSQL standby, the replication lag, for the status.
// A failure that ends the chain for good (a deep reorg, the RPC switching chains) goes to the
// `on_fatal` callback, which the node turns into its own stop or into this chain's failure.
//
// Thread-safety: prepare(), launch()/supervise() and stop_and_join() from the owning thread;
// health(), status() and the counters from any thread.
// Ownership: owns the chain's connections and threads; borrows the node's configuration.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <expected>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include <credence/api/rest_api.hpp>
#include <credence/index/database.hpp>
#include <credence/index/indexer.hpp>
#include <credence/index/sources.hpp>
#include <credence/index/writer_election.hpp>
#include <credence/node/config.hpp>

namespace credence::node {

/// A component's state for /api/v1/status, written by its thread.
class ComponentState {
public:
    void set(std::string state, std::string error = {});
    /// The component works again: its last error is history (docs/node.md §Health).
    void recover(std::string state);
    [[nodiscard]] std::string state() const;
    [[nodiscard]] nlohmann::json to_json() const;

private:
    mutable std::mutex mutex_;
    std::string state_ = "starting";
    std::string last_error_;
};

/// What a chain borrows from its node.
struct ChainEnvironment {
    const NodeConfig* config = nullptr;
    std::string database_location;
    /// The RPC URL of every followed chain, by chain id: a feedback file's proofOfPayment on a
    /// followed chain is checked over that chain's own RPC (ERC-8004 §Off-Chain Feedback File
    /// Structure).
    std::map<uint64_t, std::string> followed_rpcs;
    bool embedded_devnet = false;
    /// The PostgreSQL writer election runs (a writer-capable node on PostgreSQL).
    bool elect = false;
    /// How many chains the node follows: their indexers share one batch budget.
    size_t chain_count = 1;
    std::function<void(std::string_view line)> say;
};

/// The set-up's failure: `permanent` when retrying cannot help (the RPC is another chain).
struct ChainStartError {
    std::string message;
    bool permanent = false;
};

class ChainRunner {
public:
    /// `chain.chain_id` must be known for supervise(); prepare() learns it from the RPC.
    ChainRunner(ChainConfig chain, ChainEnvironment env);
    ~ChainRunner();
    ChainRunner(const ChainRunner&) = delete;
    ChainRunner& operator=(const ChainRunner&) = delete;

    /// Resolves the chain id, picks the registries, opens the database and starts the indexer.
    [[nodiscard]] std::expected<void, ChainStartError> prepare();
    /// Starts the indexer, verifier and trust threads. `on_fatal` gets a failure that ends the
    /// chain (its line names the component).
    void launch(const std::stop_token& node_stop, std::function<void(std::string)> on_fatal);
    /// [[chains]]: prepare() on the chain's own thread, retried with backoff while it fails for a
    /// reason that may pass, then launch().
    void supervise(const std::stop_token& node_stop, std::function<void(std::string)> on_fatal);
    /// An API node's chain: reads its cursor and replication lag every poll_ms.
    void read(const std::stop_token& node_stop);
    /// Stops the chain's threads between transactions and joins them.
    void stop_and_join();

    [[nodiscard]] uint64_t chain_id() const noexcept { return chain_id_; }
    [[nodiscard]] const std::string& rpc_url() const noexcept { return chain_.rpc; }
    [[nodiscard]] const std::vector<index::RegistrySource>& sources() const noexcept {
        return sources_;
    }
    /// The REST API's scope of this chain: its registries, the earlier revisions' too.
    [[nodiscard]] api::ApiScope api_scope() const;

    [[nodiscard]] api::NodeHealth health() const;
    /// The chain's entry of /api/v1/status.
    [[nodiscard]] nlohmann::json status() const;
    /// The indexer's counters, while one runs (nullptr else), for the node's /metrics, which
    /// writes each family once with a sample per chain (node.cpp). Read them only while holding
    /// lock_indexer_metrics(): a writer that loses its lock frees its indexer under it.
    [[nodiscard]] std::unique_lock<std::mutex> lock_indexer_metrics() const {
        return std::unique_lock(metrics_mutex_);
    }
    [[nodiscard]] const index::IndexerMetrics* indexer_metrics() const { return metrics_; }

    struct Counters {
        std::atomic<uint64_t> verify_passes{0}, verify_checked{0}, verify_verified{0},
            verify_unverified{0}, verify_unreachable{0}, fundings_traced{0};
        std::atomic<uint64_t> trust_full_passes{0}, trust_incremental_passes{0},
            trust_agents_scored{0}, trust_errors{0};
        std::atomic<int64_t> trust_last_full_at{0};
        std::atomic<uint64_t> trust_covers_block{0};
    };
    [[nodiscard]] const Counters& counters() const noexcept { return counters_; }

private:
    /// Why run_indexer returned.
    enum class IndexerEnd { stopped, failed, lost_writer };
    IndexerEnd run_indexer(std::stop_source& term);
    /// One term as the chain's writer on the supervisor thread: set-up, the verifier and trust
    /// threads, the indexer inline. False when the chain is over (stopped, refused or failed).
    bool supervised_term(const std::stop_token& stop,
                         const std::function<void(std::string)>& fatal);
    /// Waits until this node is the chain's writer (always at once without an election).
    bool become_writer(const std::stop_token& stop);
    void start_helpers(const std::stop_token& stop);
    /// Shows `metrics` on /metrics (nullptr: none), waiting for a reader of the old ones.
    void publish_metrics(const index::IndexerMetrics* metrics) {
        const std::lock_guard lock(metrics_mutex_);
        metrics_ = metrics;
    }
    /// The chain's deployed ERC-8004 registries plus its deployment file's contracts.
    [[nodiscard]] std::expected<std::vector<index::RegistrySource>, std::string> default_sources()
        const;
    /// Stops the chain when the node stops.
    void follow(const std::stop_token& node_stop);
    /// One log line, prefixed "credence node: chain <id>: ".
    void say(std::string_view line) const;
    void run_verifier(const std::stop_token& stop);
    void run_trust(const std::stop_token& stop);
    void end(std::string what);

    ChainConfig chain_;
    ChainEnvironment env_;
    uint64_t chain_id_ = 0;
    std::vector<index::RegistrySource> sources_;
    std::unique_ptr<index::Database> indexer_db_;
    std::unique_ptr<index::Indexer> indexer_;
    std::unique_ptr<index::WriterElection> election_;  ///< on indexer_db_, while elected
    mutable std::mutex metrics_mutex_;
    const index::IndexerMetrics* metrics_ = nullptr;  ///< indexer_'s, under metrics_mutex_
    std::function<void(std::string)> on_fatal_;

    std::stop_source stop_;
    std::unique_ptr<std::stop_callback<std::function<void()>>> follow_node_stop_;
    std::vector<std::jthread> threads_;
    std::jthread supervisor_;

    std::atomic<uint64_t> head_block_{0};
    std::atomic<uint64_t> indexed_block_{0};
    std::atomic<bool> has_cursor_{false};
    /// The indexer's last step failed (rpc: the chain RPC is unreachable).
    std::atomic<bool> indexer_failing_{false};
    std::atomic<bool> rpc_failing_{false};
    std::atomic<bool> database_failing_{false};  ///< an API node's reads fail
    /// An API node's replication lag in milliseconds (-1: not a standby or unknown).
    std::atomic<int64_t> replication_lag_ms_{-1};
    std::atomic<bool> standby_server_{false};
    std::atomic<uint64_t> takeovers_{0};  ///< terms begun as the elected writer
    bool start_failing_ = false;          ///< the supervisor said the set-up fails
    std::chrono::milliseconds start_backoff_{500};
    ComponentState chain_state_, indexer_state_, verifier_state_, trust_state_;
    Counters counters_;
};

}  // namespace credence::node
