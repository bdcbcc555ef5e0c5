// The REST API (docs/api.md): JSON over the index, read-only, for one chain. Routes, parameters and
// response shapes are documented in docs/api.md and served as OpenAPI 3.1 at /openapi.json.
//
// Every answer is JSON. Bad input is a 4xx with {"error": <one line>, "code": <stable snake_case
// code>}; a database failure is 503 {"code": "unavailable"}: user input never causes a 5xx other
// than that. Handlers never throw.
//
// Thread-safety: handle() may be called from many threads at once (the server's worker pool);
// a request borrows one connection of a bounded pool (opened by the DatabaseOpener on demand).
// Ownership: owns its connections; borrows nothing past construction.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <credence/api/http_types.hpp>
#include <credence/core/address.hpp>
#include <credence/index/database.hpp>

namespace credence::api {

/// Opens one more connection to the node's index (called when the pool needs another one).
using DatabaseOpener = std::function<index::DbResult<std::unique_ptr<index::Database>>()>;

/// The registries the API answers for (one chain; addresses as the index stores them).
struct ApiScope {
    uint64_t chain_id = 0;
    core::Address identity_registry{};
    core::Address reputation_registry{};
    core::Address validation_registry{};
    std::vector<core::Address> tool_registries;
    std::vector<core::Address> workflows;
};

struct RestApiOptions {
    ApiScope scope;
    DatabaseOpener open_database;
    /// Live node facts for /api/v1/status and /healthz (head block, lag, component states), and
    /// extra Prometheus text for /metrics (indexer, verifier, trust engine counters). Either may
    /// be empty.
    std::function<nlohmann::json()> node_status;
    std::function<std::string()> node_metrics;
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

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace credence::api
