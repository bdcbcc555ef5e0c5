// The agent0 subgraph served from the index (docs/graphql.md): the schema, the current snapshot
// of the index (snapshot_loader.hpp) and GraphQL execution over it.
//
// Freshness: a request is answered from the snapshot at hand, so answers never wait on a
// rebuild once the first snapshot exists; `_meta { block { number } }` says which block it
// reflects. At most every `check_every`, a request looks at the index's cursor and at its
// verifications; when either changed, a background thread builds the next snapshot and swaps it
// in. The first request builds the first snapshot itself.
//
// Errors: a database failure while building becomes a GraphQL error ("the index is
// unavailable") in the response; the previous snapshot, if any, keeps being served.
// Thread-safety: execute() from any number of threads at once. Ownership: owns its database
// connection and its refresh thread (joined by the destructor).
#pragma once

#include <chrono>
#include <functional>
#include <memory>

#include <nlohmann/json.hpp>

#include <credence/graphql/execute.hpp>
#include <credence/index/database.hpp>
#include <credence/subgraph/snapshot_loader.hpp>
#include <credence/subgraph/snapshot_source.hpp>

namespace credence::subgraph {

struct Agent0GraphOptions {
    SnapshotSources sources;
    std::function<index::DbResult<std::unique_ptr<index::Database>>()> open_database;
    std::chrono::milliseconds check_every{1000};
    graphql::Limits limits;
    /// One line per failed rebuild (the database's own text). Empty: dropped.
    std::function<void(std::string_view)> log;
};

class Agent0Graph {
public:
    explicit Agent0Graph(Agent0GraphOptions options);
    ~Agent0Graph();
    Agent0Graph(const Agent0Graph&) = delete;
    Agent0Graph& operator=(const Agent0Graph&) = delete;

    /// The response to one request (graphql/execute.hpp).
    [[nodiscard]] nlohmann::ordered_json execute(const graphql::Request& request);
    /// The snapshot being served, built now when there is none yet.
    [[nodiscard]] index::DbResult<std::shared_ptr<const ServedSnapshot>> current();
    [[nodiscard]] const graphql::Limits& limits() const noexcept;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace credence::subgraph
