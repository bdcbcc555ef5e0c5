// The REST API (docs/api.md): JSON over the index, read-only, for the chains the node follows (one
// ApiScope each, all in one database: every index row carries its chain_id). Lists span every
// followed chain unless `?chain=` narrows them; an entity is addressed on one chain
// (/api/v1/chains/{chain_id}/...), the old single-chain routes answering the first chain. Routes,
// parameters and response shapes are documented in docs/api.md and served as OpenAPI 3.1 at
// /openapi.json.
//
// Every answer is JSON. Bad input is a 4xx with {"error": <one line>, "code": <stable snake_case
// code>}; a database failure is 503 {"code": "unavailable"} with a generic message (the
// database's own text, which quotes SQL, goes to RestApiOptions::log): user input never causes a
// 5xx other than that. Once any query finds the index damaged (index::DbErrorKind::corrupt), every
// data route and /healthz answer 503 {"code": "index_corrupt"} until the node restarts on a
// repaired index (docs/node.md §Integrity): a damaged index never answers a partial or empty list
// as if it were the truth. Handlers never throw.
//
// Thread-safety: handle() may be called from many threads at once (the server's worker pool);
// a request borrows one connection of a bounded pool (opened by the DatabaseOpener on demand).
// Ownership: owns its connections; borrows nothing past construction.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <credence/api/http_types.hpp>
#include <credence/core/address.hpp>
#include <credence/core/erc8004_revision.hpp>
#include <credence/index/database.hpp>

namespace credence::api {

/// Opens one more connection to the node's index (called when the pool needs another one).
using DatabaseOpener = std::function<index::DbResult<std::unique_ptr<index::Database>>()>;

/// The node's view of its own health for /healthz (docs/node.md §Health).
struct NodeHealth {
    bool degraded = false;             ///< the chain RPC fails, or the index lags too far
    std::vector<std::string> reasons;  ///< one line each ("chain RPC unreachable: ...")
};

/// The three registries of one ERC-8004 revision.
struct Erc8004Registries {
    core::Address identity{};
    core::Address reputation{};
    core::Address validation{};
};

/// The registries the API answers for on one chain (addresses as the index stores them).
struct ApiScope {
    uint64_t chain_id = 0;
    /// Whose registries the three below are: the agent routes take `?revision=score|draft` and
    /// answer from that revision's registries (docs/api.md §Earlier ERC-8004 revisions).
    core::Erc8004Revision revision = core::Erc8004Revision::current;
    core::Address identity_registry{};
    core::Address reputation_registry{};
    core::Address validation_registry{};
    std::vector<core::Address> tool_registries;
    std::vector<core::Address> workflows;
    /// The earlier revisions' registries the node follows (none when it follows none).
    std::optional<Erc8004Registries> score;
    std::optional<Erc8004Registries> draft;
    /// On the scope of an earlier revision: the current revision's registries.
    std::optional<Erc8004Registries> current;
};

struct RestApiOptions {
    /// A writer node's API (docs/scale.md): /healthz, /metrics, /openapi.json and /api/v1/status
    /// only; every other route is 404 `not_served`, pointing at the API nodes.
    bool operations_only = false;
    /// The chain of a node that follows one: used when `chains` is empty.
    ApiScope scope;
    /// One scope per followed chain (distinct chain ids), the first being the node's default
    /// chain: the one the routes without a chain (/api/v1/agents/{agent_id}, ...) answer for.
    /// Empty: {scope}.
    std::vector<ApiScope> chains;
    DatabaseOpener open_database;
    /// Live node facts for /api/v1/status and /healthz (head block, lag, component states), and
    /// extra Prometheus text for /metrics (indexer, verifier, trust engine counters). Either may
    /// be empty.
    std::function<nlohmann::json()> node_status;
    std::function<std::string()> node_metrics;
    /// /healthz turns "degraded" when this says so, answered with `degraded_status` (docs/node.md
    /// §Health: 503 by default, so a load balancer stops sending to a node that serves stale
    /// answers). Empty: never degraded.
    std::function<NodeHealth()> node_health;
    int degraded_status = 503;
    /// Details of 5xx answers (a database error's own text), one line each. Empty: dropped.
    std::function<void(std::string_view line)> log;
    /// Connections open at once (a request past it waits for one, then 503 after
    /// connection_wait). 0: by backend, 2 for SQLite (database work is CPU-bound on a warm index,
    /// and each connection maps the file: RSS counts a page once per mapping), 8 for PostgreSQL
    /// (each query waits a round trip). docs/benchmarks.md §REST API under wrk.
    size_t max_connections = 0;
    std::chrono::milliseconds connection_wait{5000};
    /// SQLite connections: PRAGMA mmap_size (0 keeps the index's defaults: no map, 64 MiB
    /// private cache) and the private page cache beside the map.
    uint64_t sqlite_mmap_bytes = uint64_t{1} << 30;
    uint64_t sqlite_cache_kib = 2048;
};

class RestApi {
public:
    explicit RestApi(RestApiOptions options);
    ~RestApi();
    RestApi(const RestApi&) = delete;
    RestApi& operator=(const RestApi&) = delete;

    /// Answers /api/v1/*, /openapi.json, /healthz and /metrics; 404 JSON for anything else.
    [[nodiscard]] HttpResponse handle(const HttpRequest& request);
    /// From now on every data route and /healthz answer 503 index_corrupt (a check outside the
    /// API found the index damaged; `detail` goes to the log). Thread-safe.
    void mark_index_damaged(std::string_view detail);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace credence::api
