// `credence node`, the main job (docs/node.md): one process that indexes a chain, re-verifies what
// the chain points to, keeps trust scores current and serves the REST API, the MCP endpoint and
// the explorer.
//
// Threads, each with its own database connection (index/database.hpp: one per thread):
//   - indexer: index::Indexer::run(follow) over the configured registries; a batch commits whole;
//   - verifier: verify::reverify_due one batch at a time (agents, tools, feedback, validations,
//     runs), then waits verify.interval_seconds;
//   - trust: a full pass (trust/score_store.hpp) at start and every trust.full_interval_seconds,
//     and an incremental pass every trust.incremental_interval_ms in between (the graph stays in
//     memory; a pass reads only the rows changed since the last one and rescores only the agents
//     they affect; an index rollback makes it a full pass); each pass writes agent_scores in one
//     transaction;
//   - http: api::HttpServer (its own pool) with RestApi + McpEndpoint; RestApi opens one
//     connection per server thread.
// With no chain.rpc the node first starts the embedded devnet (anvil with every contract, as
// `credence devnet` does) and writes its deployment files, so other commands (`credence demo`)
// find it.
//
// Shutdown: run() returns when its stop token fires (SIGINT/SIGTERM in the CLI) or a component
// fails for good (wrong chain, deep reorg); every thread stops between transactions and is
// joined, so nothing is committed half-way and a restart resumes from the index's cursor.
//
// Thread-safety: start() and run() from one owning thread; status() and metrics() from any.
// Ownership: owns the devnet process, the connections, the threads and the server.
#pragma once

#include <expected>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <credence/node/config.hpp>

namespace credence::node {

/// Where the node writes its log lines (one line each, no newline); empty: stderr.
using LogSink = std::function<void(std::string_view line)>;

class Node {
public:
    /// Does everything that can fail at start before any thread runs: the embedded devnet, the
    /// chain id check, the database and its migrations, the registries, binding the HTTP port.
    /// Then starts the threads. The error is one line.
    [[nodiscard]] static std::expected<std::unique_ptr<Node>, std::string> start(NodeConfig config,
                                                                                 LogSink log = {});
    ~Node();  ///< stops and joins (as run() does) if still running
    Node(const Node&) = delete;
    Node& operator=(const Node&) = delete;

    /// "http://<bind>:<port>" of the HTTP server.
    [[nodiscard]] std::string url() const;
    /// The default chain's JSON-RPC URL (the embedded devnet's when it started one).
    [[nodiscard]] std::string rpc_url() const;
    [[nodiscard]] uint64_t chain_id() const noexcept;
    /// The chains followed besides the default one ([[chains]]), with their RPC URLs.
    [[nodiscard]] std::vector<std::pair<uint64_t, std::string>> other_chains() const;
    /// The database location in use ("sqlite:<path>" or the PostgreSQL URL, password elided).
    [[nodiscard]] std::string database() const;

    /// Blocks until `stop` fires or a component fails for good, then stops every thread and
    /// joins them. The error names the component that failed.
    [[nodiscard]] std::expected<void, std::string> run(const std::stop_token& stop);

    /// Live facts for /api/v1/status and /healthz: head, indexed block, lag, component states.
    [[nodiscard]] nlohmann::json status() const;
    /// Prometheus text: the indexer's counters and the verifier's and trust engine's.
    [[nodiscard]] std::string metrics() const;

    struct Impl;

private:
    explicit Node(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace credence::node
