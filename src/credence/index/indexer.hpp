// The indexer loop: follows every registry of one chain into an IndexStore, batch by batch.
//
// One step():
//   1. reads the head (eth_blockNumber);
//   2. checks for a reorg: the stored hash of the cursor block must still be the chain's. If not,
//      it finds the fork point among the remembered hashes (the last `finality_depth` blocks) and
//      rolls the store back to it (docs/architecture.md §index/). A fork deeper than the remembered
//      window is an error that stops the indexer (it cannot be repaired safely; re-index from
//      scratch);
//   3. fetches the next chunk of logs (LogSource, adaptive ranges), the getAgentTask /
//      getAgentReply details at each log's block, and, for the part of the chunk within
//      `finality_depth` of the head, every block header (kept for step 2); decodes each log into
//      its projection (project_logs);
//   4. commits logs, projections, headers and cursor in one database transaction.
// A failed fetch or commit leaves the store unchanged; the next step retries with backoff. Bad
// data from the node (undecodable logs, logs of unknown contracts) is logged and skipped, never
// committed half-way (bad input, docs/architecture.md §index/).
//
// Far behind the head (every block of the chunk final), step() merges chunks into batches of up to
// IndexerOptions::batch_logs logs and fetches and projects the next batch on a second thread (one
// WorkerThread for the indexer's life) while the current one commits; the store is only ever used
// by the calling thread.
//
// Thread-safety: one thread drives an Indexer; metrics() may be read from any thread.
// Ownership: owns its LogSource and IndexStore; borrows the Database.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <optional>
#include <span>
#include <stop_token>
#include <string>
#include <utility>
#include <vector>

#include <credence/chain/deployment.hpp>
#include <credence/chain/rpc_client.hpp>
#include <credence/index/database.hpp>
#include <credence/index/log_source.hpp>
#include <credence/index/source_cursors.hpp>
#include <credence/index/sources.hpp>
#include <credence/index/store.hpp>
#include <credence/index/worker_thread.hpp>
#include <credence/index/writer_lock.hpp>

namespace credence::index {

struct IndexerOptions {
    uint64_t chain_id = 0;  // checked against eth_chainId before the first step
    /// And again at most this often while running: an RPC that starts serving another chain
    /// ends the run with wrong_chain rather than mixing two chains' logs under one id.
    std::chrono::milliseconds chain_check_interval{10'000};
    std::vector<RegistrySource> sources;
    /// How many blocks below the head may still be reorganised (hashes kept, headers checked).
    uint64_t finality_depth = 64;
    RangePolicy range;
    /// Whether to read getAgentTask / getAgentReply for ERC-8301 task and reply events.
    bool fetch_details = true;
    /// Far behind the head (the chunk's blocks all final), consecutive chunks are merged into one
    /// batch of up to about this many logs: fewer, larger transactions write each B-tree page of
    /// the projections' random-order keys once per batch instead of once per chunk
    /// (docs/architecture.md §index/ §Performance; docs/benchmarks.md). Bounds the memory of one
    /// batch with its projections
    /// (~2 KB per log; two batches are alive while one commits).
    uint64_t batch_logs = 25'000;
    /// Bulk load (store.hpp: drop_secondary_indexes): a final batch of at least bulk_min_logs logs
    /// into a store holding at most kBulkLoadRatio times that many drops the secondary indexes;
    /// they are built again before the first batch that is not final, or once caught up. Once
    /// dropped, they stay dropped across restarts until then.
    bool bulk_load = true;
    uint64_t bulk_min_logs = 5'000;
};

/// A bulk load starts while the store holds at most this many times the batch's logs: rebuilding
/// the indexes costs a sorted pass over every row, repaid only when much is still to come.
inline constexpr uint64_t kBulkLoadRatio = 16;

/// The finality depth used when none is configured: 64 blocks on Ethereum mainnet and testnets (two
/// epochs), 0 for a local devnet (31337, 1337: anvil never reorgs by itself), and a conservative
/// 256 for other chains (L2s and sidechains with their own reorg behaviour).
[[nodiscard]] uint64_t default_finality_depth(uint64_t chain_id) noexcept;

/// The deployed ERC-8004 registries (tests/vectors/erc8004.json `deployed`): one address set for
/// every mainnet and one for every testnet, chosen by chain id; empty for an unknown chain.
[[nodiscard]] std::vector<RegistrySource> default_erc8004_sources(uint64_t chain_id);

/// Every Credence contract of a deployment file (chain/deployment.hpp), by kind.
[[nodiscard]] std::vector<RegistrySource> sources_from_deployment(const chain::Deployment& d);

/// The registries to follow when none is named, for `credence index` and `credence node` alike
/// (docs/cli.md §index): every Credence contract of the deployment (when there is one), then the
/// chain's deployed ERC-8004 registries that are not already among them.
[[nodiscard]] std::vector<RegistrySource> default_sources(const chain::Deployment* deployment,
                                                          uint64_t chain_id);

/// Counters for Prometheus (docs/cli.md §index). All monotonic except the gauges.
struct IndexerMetrics {
    std::atomic<uint64_t> head_block{0};      // gauge
    std::atomic<uint64_t> cursor_block{0};    // gauge
    std::atomic<uint64_t> events_total{0};    // logs stored
    std::atomic<uint64_t> rejected_total{0};  // logs skipped as bad data
    std::atomic<uint64_t> rpc_errors_total{0};
    std::atomic<uint64_t> reorgs_total{0};
    std::atomic<uint64_t> batches_total{0};
    std::atomic<uint64_t> batch_seconds_micros{0};  // sum of batch latencies, microseconds
    std::atomic<uint64_t> events_per_second{0};     // gauge: the last batch's throughput

    /// The Prometheus text exposition format (version 0.0.4).
    [[nodiscard]] std::string to_prometheus(uint64_t chain_id) const;
};

/// The same for several chains: each family once, one sample per chain id.
[[nodiscard]] std::string to_prometheus(
    std::span<const std::pair<uint64_t, const IndexerMetrics*>> chains);

enum class IndexErrorKind {
    rpc,          // the node failed (after retries)
    database,     // the store failed
    wrong_chain,  // eth_chainId differs from the configured chain id
    deep_reorg,   // the fork point is older than every remembered block hash
    busy,         // another process indexes this chain into this index (writer_lock.hpp)
};

struct IndexError {
    IndexErrorKind kind = IndexErrorKind::rpc;
    std::string message;
};

struct StepReport {
    uint64_t head = 0;
    uint64_t cursor = 0;      // after the step
    uint64_t from_block = 0;  // the chunk indexed by this step (empty when caught up)
    uint64_t to_block = 0;
    uint64_t stored = 0;                     // logs stored
    uint64_t rejected = 0;                   // logs skipped as bad data
    std::optional<uint64_t> rolled_back_to;  // a reorg was handled this step
    bool caught_up = false;                  // cursor == head after the step
    bool indexes_dropped = false;            // a bulk load started (before this step's commit)
    bool indexes_built = false;              // a bulk load ended (before this step's commit)
    /// The step backfilled sources added to the indexed chain (source_cursors.hpp): from_block
    /// and to_block are the backfilled range; `joined` when they now follow with the cursor.
    std::vector<core::Address> backfilled;
    bool joined = false;
    std::vector<std::string> warnings;  // one line each: skipped logs, code-hash changes
    /// run() only: the step failed and is retried; the other fields are empty (a warning says
    /// when the retry comes).
    std::optional<IndexError> error;
};

/// Waits up to `pause` or until stopped; false when stopped (chain::LogWakeup::sleep fits).
using PollSleep = std::function<bool(const std::stop_token&, std::chrono::milliseconds)>;

class Indexer {
public:
    Indexer(IndexerOptions options, chain::RpcClient client, Database& db);

    /// Opens the store (migrations), checks the chain id, takes the chain's writer lock of the
    /// index (writer_lock.hpp) and records each registry's code hash.
    [[nodiscard]] std::expected<std::vector<std::string>, IndexError> start();
    /// One batch (see above).
    [[nodiscard]] std::expected<StepReport, IndexError> step();
    /// Steps until caught up (follow = false) or until `stop` (follow = true, polling every
    /// `poll_interval` once caught up). Calls `on_step` after every step. Errors of a step are
    /// retried with exponential backoff up to 30 s, except wrong_chain and deep_reorg.
    /// `sleep` waits between polls once caught up (a LogWakeup ends it early on a new head);
    /// empty: poll_interval in 50 ms slices.
    [[nodiscard]] std::expected<void, IndexError> run(
        std::stop_token stop, bool follow, std::chrono::milliseconds poll_interval,
        const std::function<void(const StepReport&)>& on_step, const PollSleep& sleep = {});

    [[nodiscard]] const IndexerMetrics& metrics() const noexcept { return metrics_; }
    [[nodiscard]] IndexStore& store();

private:
    /// A step's logs with their kinds and details, fetched from the source.
    struct Fetched {
        LogChunk chunk;  // its range and skipped logs; the logs moved to `logs`
        std::vector<IngestLog> logs;
        uint64_t generation = 0;  // the followed set it was fetched for (followed_generation_)
    };
    /// Logs of `addresses` in [from, at most head] (several chunks merged far behind the head,
    /// see batch_logs) and their details. Uses only source_, options_ and metrics_, so it may
    /// run on the fetch-ahead thread.
    [[nodiscard]] std::expected<Fetched, IndexError> fetch(
        uint64_t from, uint64_t head, const std::vector<core::Address>& addresses);
    /// The addresses that follow with the chain's cursor: every source but those backfilling.
    [[nodiscard]] std::vector<core::Address> followed_addresses() const;
    /// One batch of the backfill of sources added to the indexed chain, up to `cursor`
    /// (source_cursors.hpp).
    [[nodiscard]] std::expected<StepReport, IndexError> backfill_step(uint64_t head,
                                                                      uint64_t cursor);
    /// Sets each ERC-8301 task / reply log's detail (detail_call(), batched eth_calls); fetch()'s
    /// helper, so it too may run on the fetch-ahead thread.
    [[nodiscard]] std::expected<void, IndexError> read_details(std::vector<IngestLog>& logs);
    /// Gives every log its block's timestamp: nodes that do not send blockTimestamp get one
    /// header read per block holding a log (block_times in schema.cpp).
    [[nodiscard]] std::expected<void, IndexError> read_block_times(std::vector<IngestLog>& logs);
    /// Sets the detail of logs[i] for each i in `which` to its transaction (transaction_detail()).
    [[nodiscard]] std::expected<void, IndexError> read_transaction_details(
        std::vector<IngestLog>& logs, const std::vector<size_t>& which);
    /// Drops or builds the secondary indexes for a batch of `logs` logs (bulk load, see
    /// IndexerOptions); `final_batch`: every block of the batch is final. Records it in `report`.
    [[nodiscard]] std::expected<void, IndexError> plan_indexes(IndexStore& store, bool final_batch,
                                                               uint64_t logs, StepReport& report);

    IndexerOptions options_;
    LogSource source_;
    Database* db_;
    std::optional<WriterLock> writer_lock_;                  ///< held from start() to destruction
    std::chrono::steady_clock::time_point chain_checked_{};  ///< the last eth_chainId check
    std::optional<IndexStore> store_;
    IndexerMetrics metrics_;
    // Read from the store on first use, then kept in step with what this indexer does.
    std::optional<bool> indexes_built_;
    /// Every chain's stored logs, counted up to a cap (IndexStore::log_count_up_to): at the cap
    /// only a lower bound, counted again when a larger batch needs more.
    std::optional<uint64_t> stored_logs_;
    bool stored_logs_capped_ = false;
    /// Sources being backfilled (source_cursors.hpp), and a count of the followed set's changes
    /// (a chunk fetched ahead for another set is dropped).
    std::vector<SourceCursor> backfilling_;
    uint64_t followed_generation_ = 0;
    bool backfill_turn_ = true;  ///< backfill batches alternate with the cursor's own
    /// The next batch's fetch, running on fetcher_ while the current batch commits (step()).
    std::future<std::expected<Fetched, IndexError>> ahead_;
    /// Declared last: destroyed (its job finished, joined) before the source the job uses.
    WorkerThread fetcher_;
};

}  // namespace credence::index
