#include <credence/node/node.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <credence/api/graphql_endpoint.hpp>
#include <credence/api/http_server.hpp>
#include <credence/api/mcp_endpoint.hpp>
#include <credence/api/rest_api.hpp>
#include <credence/chain/anvil_process.hpp>
#include <credence/chain/deployment.hpp>
#include <credence/chain/devnet_deploy.hpp>
#include <credence/chain/rpc_client.hpp>
#include <credence/core/secp256k1.hpp>
#include <credence/index/integrity.hpp>
#include <credence/index/store.hpp>
#include <credence/node/chain_runner.hpp>
#include <credence/node/explorer_files.hpp>

namespace credence::node {
namespace {

namespace fs = std::filesystem;

}  // namespace

struct Node::Impl {
    NodeConfig config;
    LogSink log;
    /// [[chains]]: each chain starts on its own thread and fails alone (docs/node.md §Many
    /// chains); [chain]: the chain's failures are the node's.
    bool many = false;
    /// Writer-capable on PostgreSQL: each chain's writer is elected (docs/scale.md), so its
    /// set-up waits on its own thread.
    bool elect = false;
    std::unique_ptr<chain::AnvilProcess> anvil;
    std::optional<fs::path> devnet_file;  // removed at exit while it still names our devnet
    std::string database_location;
    std::unique_ptr<index::Database> check_db;  // the integrity check's at start
    std::vector<std::unique_ptr<ChainRunner>> chains;

    std::unique_ptr<api::RestApi> rest;
    std::unique_ptr<api::McpEndpoint> mcp;
    /// The chains' agent0 subgraphs, in the order of `chains` (the default chain's first).
    std::vector<std::unique_ptr<api::GraphqlEndpoint>> graphs;
    std::unique_ptr<api::HttpServer> http;

    std::stop_source stop_all;
    std::vector<std::jthread> threads;
    std::mutex integrity_mutex;
    index::Database* integrity_db = nullptr;  ///< the background check's, while it runs
    bool joined = false;

    std::mutex fatal_mutex;
    std::string fatal;  // the first component failure that stops the node

    void say(std::string_view line) const {
        if (log) {
            log(line);
        } else {
            fmt::print(stderr, "{}\n", line);
        }
    }

    void fail(std::string what) {
        {
            std::lock_guard lock(fatal_mutex);
            if (fatal.empty()) fatal = std::move(what);
        }
        stop_all.request_stop();
    }

    /// A chain that ends: the node's end with [chain], that chain's alone with [[chains]].
    void chain_ended(const std::string& what) {
        if (many) {
            say("credence node: " + what + " (the other chains go on)");
        } else {
            fail(what.substr(what.find(": ") + 2));
        }
    }

    /// The one line a node that cannot use its index stops with (docs/node.md §Integrity).
    std::string database_refusal(const index::DbError& error) const {
        if (error.kind != index::DbErrorKind::corrupt) return error.to_string();
        return fmt::format(
            "database: {} is damaged ({}): move it aside and start again to re-index from the "
            "chain, or restore a backup",
            database_location, error.message);
    }

    /// docs/node.md §Health: degraded while any chain's RPC fails or its index lags; with several
    /// chains each reason names its chain.
    api::NodeHealth health() const {
        api::NodeHealth h;
        for (const auto& c : chains) {
            api::NodeHealth one = c->health();
            for (auto& r : one.reasons) {
                h.reasons.push_back(many ? fmt::format("chain {}: {}", c->chain_id(), r)
                                         : std::move(r));
            }
        }
        h.degraded = !h.reasons.empty();
        return h;
    }

    /// Starts the embedded devnet and returns the chain it is, with its deployment's contracts.
    std::expected<ChainConfig, std::string> start_devnet(ChainConfig chain) {
        chain::AnvilOptions options;
        options.port = chain.devnet_port;
        options.chain_id = chain.chain_id.value_or(31337);
        if (!chain.devnet_state.empty()) {
            std::error_code ec;
            fs::create_directories(chain.devnet_state, ec);
            if (ec)
                return std::unexpected("chain.devnet_state: cannot create " + chain.devnet_state);
            options.state_file = fs::absolute(fs::path(chain.devnet_state) / "state.json");
        }
        auto started = chain::AnvilProcess::start(options);
        if (!started) {
            const std::string& e = started.error();
            return std::unexpected("embedded devnet: cannot start anvil: " +
                                   e.substr(0, e.find('\n')));
        }
        anvil = std::move(*started);
        if (anvil->dev_accounts().empty())
            return std::unexpected("embedded devnet: no dev accounts");
        auto key = core::SecretKey::from_hex(anvil->dev_accounts().front().private_key_hex);
        if (!key) return std::unexpected("embedded devnet: anvil's first dev key is invalid");
        auto rpc = chain::RpcClient::make_http(anvil->url());
        chain::DeployOptions deploy_options;
        deploy_options.sender.chain_id = anvil->chain_id();
        deploy_options.sender.poll_interval = std::chrono::milliseconds(10);
        // Every contract, the earlier ERC-8004 revisions' too (docs/compatibility.md §Earlier
        // ERC-8004 revisions): the devnet shows each system the texts describe.
        deploy_options.revisions = chain::DeployRevisions::all;
        auto deployed = chain::deploy_all(rpc, *key, deploy_options);
        if (!deployed)
            return std::unexpected("embedded devnet: deploy failed: " + deployed.error());
        chain::Deployment deployment = deployed->deployment;
        deployment.rpc_url = anvil->url();
        // The same files `credence devnet` writes, so `credence demo` and friends find this chain.
        if (auto saved =
                chain::save_deployment(chain::deployment_path(deployment.chain_id), deployment);
            !saved) {
            return std::unexpected("embedded devnet: " + saved.error());
        }
        if (auto saved = chain::save_deployment(chain::devnet_path(), deployment); saved) {
            devnet_file = chain::devnet_path();
        }
        chain.rpc = anvil->url();
        chain.chain_id = anvil->chain_id();
        if (chain.registries.empty()) chain.registries = index::sources_from_deployment(deployment);
        say(fmt::format("credence node: embedded devnet at {} (chain id {}, {} contracts)",
                        chain.rpc, anvil->chain_id(), deployment.contracts.size()));
        return chain;
    }

    /// docs/node.md §Integrity: after the quick check at start, one PRAGMA integrity_check on a
    /// connection of its own (a WAL reader: writers go on), which also matches every index against
    /// its table. Damage it finds makes the API answer 503 index_corrupt from then on: a damaged
    /// index key answers lookups with nothing rather than an error.
    void run_integrity_check(const std::stop_token& stop) {
        // An API node reads only, this check too (docs/scale.md).
        auto db = index::open_database(database_location, config.node.role == NodeRole::api
                                                              ? index::OpenMode::read_only
                                                              : index::OpenMode::read_write);
        if (!db || (*db)->dialect() != index::Dialect::sqlite) return;
        {
            const std::lock_guard lock(integrity_mutex);
            if (stop.stop_requested()) return;
            integrity_db = db->get();
        }
        auto checked = index::check_integrity(**db, index::IntegrityCheck::full);
        {
            const std::lock_guard lock(integrity_mutex);
            integrity_db = nullptr;
        }
        if (checked) {
            say("credence node: integrity_check: ok");
        } else if (checked.error().kind == index::DbErrorKind::corrupt) {
            rest->mark_index_damaged(checked.error().message);
        } else if (!stop.stop_requested()) {
            say("credence node: integrity_check did not run: " + checked.error().to_string());
        }
    }

    void stop_and_join() {
        if (joined) return;
        joined = true;
        stop_all.request_stop();
        {
            // A running integrity_check on a large index would hold the shutdown for minutes.
            const std::lock_guard lock(integrity_mutex);
            if (integrity_db != nullptr) integrity_db->interrupt();
        }
        for (auto& c : chains) c->stop_and_join();
        for (auto& t : threads) {
            if (t.joinable()) t.join();
        }
        threads.clear();
        if (http) http->stop();
        if (anvil) anvil->stop();
        if (devnet_file && anvil) {
            auto current = chain::load_deployment(*devnet_file);
            if (current && current->rpc_url == anvil->url()) {
                std::error_code ec;
                fs::remove(*devnet_file, ec);
            }
        }
    }

    /// The HTTP server with the REST API, MCP, GraphQL and the explorer over every chain.
    std::expected<void, std::string> serve(Node* node);
};

std::expected<void, std::string> Node::Impl::serve(Node* node) {
    api::RestApiOptions rest_options;
    // Every followed chain, the default first (docs/api.md §Chains).
    for (const auto& c : chains) rest_options.chains.push_back(c->api_scope());
    rest_options.scope = rest_options.chains.front();
    const bool writer_only = config.node.role == NodeRole::writer;
    rest_options.operations_only = writer_only;
    const std::string location = database_location;
    const auto mode = config.node.role == NodeRole::api ? index::OpenMode::read_only
                                                        : index::OpenMode::read_write;
    rest_options.open_database = [location, mode] { return index::open_database(location, mode); };
    // The callbacks run on server threads while the node lives: the server stops before Impl
    // goes away (stop_and_join).
    rest_options.node_status = [node] { return node->status(); };
    rest_options.node_metrics = [node] { return node->metrics(); };
    rest_options.node_health = [this] { return health(); };
    rest_options.degraded_status = config.health.degraded_status;
    rest_options.log = [this](std::string_view line) { say(line); };
    const std::vector<api::ApiScope> chain_scopes = rest_options.chains;
    rest = std::make_unique<api::RestApi>(std::move(rest_options));
    mcp = std::make_unique<api::McpEndpoint>(*rest, api::McpOptions{"credence", "0.1.0"});
    // The agent0 subgraph's GraphQL (docs/graphql.md) is one chain's, as each subgraph is:
    // /subgraphs/agent0 is the default chain's, /subgraphs/agent0/<chainId> each chain's. A graph
    // opens its connection and loads its snapshot on its first request only.
    const auto graph_of = [&](const api::ApiScope& scope) {
        subgraph::Agent0GraphOptions graph_options;
        graph_options.sources.chain_id = scope.chain_id;
        graph_options.sources.identity_registry = scope.identity_registry;
        if (scope.reputation_registry != core::Address{})
            graph_options.sources.reputation_registry = scope.reputation_registry;
        if (scope.validation_registry != core::Address{})
            graph_options.sources.validation_registry = scope.validation_registry;
        graph_options.open_database = [location, mode] {
            return index::open_database(location, mode);
        };
        graph_options.log = [this](std::string_view line) { say(line); };
        return std::make_unique<api::GraphqlEndpoint>(std::move(graph_options));
    };
    for (const api::ApiScope& scope : chain_scopes) graphs.push_back(graph_of(scope));
    api::HttpServerOptions http_options;
    // A writer serves its operators only: the API nodes answer the rest (docs/scale.md).
    if (!writer_only) {
        http_options.graphql = graphs.front().get();
        for (size_t i = 0; i < chain_scopes.size(); ++i)
            http_options.graphql_chains[chain_scopes[i].chain_id] = graphs[i].get();
    }
    http_options.bind_address = config.http.bind;
    http_options.port = config.http.port;
    auto explorer = find_explorer_files(config.http.static_dir);
    if (explorer && !writer_only) http_options.static_dir = *explorer;
    http_options.max_body_bytes = config.http.max_body_bytes;
    http_options.rate_limit_per_second = config.http.rate_limit_per_second;
    http_options.rate_limit_burst = config.http.rate_limit_burst;
    http_options.threads = config.http.threads;
    http_options.max_connections = config.http.max_connections;
    http_options.max_connections_per_ip = config.http.max_connections_per_ip;
    http_options.idle_timeout = std::chrono::milliseconds(config.http.idle_timeout_ms);
    http_options.header_timeout = std::chrono::milliseconds(config.http.header_timeout_ms);
    http_options.body_timeout = std::chrono::milliseconds(config.http.body_timeout_ms);
    http_options.write_timeout = std::chrono::milliseconds(config.http.write_timeout_ms);
    http_options.max_header_bytes = config.http.max_header_bytes;
    http_options.max_target_bytes = config.http.max_target_bytes;
    http_options.keep_alive_requests = config.http.keep_alive_requests;
    http = std::make_unique<api::HttpServer>(*rest, *mcp, http_options);
    if (auto bound = http->start(); !bound) {
        return std::unexpected(fmt::format("http: cannot serve on {}:{}: {}", config.http.bind,
                                           config.http.port, bound.error()));
    }
    // Said once serving, so that a start that fails stays one line.
    if (!explorer && !writer_only) say("credence node: " + explorer.error());
    return {};
}

Node::Node(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Node::~Node() {
    if (impl_) impl_->stop_and_join();
}

std::expected<std::unique_ptr<Node>, std::string> Node::start(NodeConfig config, LogSink log) {
    if (auto ok = validate(config); !ok) return std::unexpected(ok.error());
    auto impl = std::make_unique<Impl>();
    impl->config = std::move(config);
    impl->log = std::move(log);
    impl->many = !impl->config.chains.empty();
    Impl& s = *impl;
    const NodeRole role = s.config.node.role;
    std::vector<ChainConfig> chains = followed_chains(s.config);
    if (!s.many && chains.front().rpc.empty() && role != NodeRole::api) {
        auto devnet = s.start_devnet(chains.front());
        if (!devnet) return std::unexpected(devnet.error());
        chains.front() = std::move(*devnet);
    }

    // Database: the data directory's index.sqlite unless a location is given.
    if (s.config.database.location.empty()) {
        const fs::path dir = s.config.database.data_dir.empty() ? chain::credence_home()
                                                                : s.config.database.data_dir;
        std::error_code ec;
        fs::create_directories(dir, ec);
        if (ec) return std::unexpected("database.data_dir: cannot create " + dir.string());
        s.database_location = (dir / "index.sqlite").string();
    } else {
        s.database_location = s.config.database.location;
    }

    s.elect = index::is_postgres_location(s.database_location) && role != NodeRole::api;

    if (s.elect && !s.many && !chains.front().chain_id) {
        // The API's scope needs the chain id before the election lets the chain start.
        auto rpc = chain::RpcClient::make_http(chains.front().rpc);
        auto id = rpc.chain_id();
        if (!id) {
            return std::unexpected(
                fmt::format("chain.rpc: {} does not answer eth_chainId", chains.front().rpc));
        }
        chains.front().chain_id = *id;
    }

    ChainEnvironment env;
    env.config = &s.config;
    env.database_location = s.database_location;
    env.embedded_devnet = s.anvil != nullptr;
    env.elect = s.elect;
    env.chain_count = chains.size();
    env.say = [&s](std::string_view line) { s.say(line); };
    for (const auto& c : chains) {
        if (c.chain_id) env.followed_rpcs[*c.chain_id] = c.rpc;
    }
    for (auto& c : chains) s.chains.push_back(std::make_unique<ChainRunner>(std::move(c), env));
    const auto mode =
        role == NodeRole::api ? index::OpenMode::read_only : index::OpenMode::read_write;
    auto db = index::open_database(s.database_location, mode);
    if (!db) return std::unexpected(s.database_refusal(db.error()));
    if (auto checked = index::check_integrity(**db, s.config.database.check); !checked) {
        return std::unexpected(s.database_refusal(checked.error()));
    }
    s.check_db = std::move(*db);
    if (role == NodeRole::api) {
        // Reads only: the writer migrates, and the chains' readers wait for it (docs/scale.md).
    } else if (!s.many && !s.elect) {
        // [chain]: the chain answers, names the chain id given and has registries, or the node
        // does not start.
        if (auto prepared = s.chains.front()->prepare(); !prepared)
            return std::unexpected(prepared.error().message);
    } else if (auto store = index::IndexStore::open(*s.check_db); !store) {
        // The migrations run once here, before the chains' threads open their connections.
        return std::unexpected(s.database_refusal(store.error()));
    }

    Impl* self = impl.get();
    auto node_ptr = std::unique_ptr<Node>(new Node(std::move(impl)));
    if (auto served = self->serve(node_ptr.get()); !served) return std::unexpected(served.error());

    const std::stop_token stop = self->stop_all.get_token();
    for (auto& c : self->chains) {
        auto ended = [self](const std::string& what) { self->chain_ended(what); };
        if (role == NodeRole::api) {
            c->read(stop);
        } else if (self->many || self->elect) {
            c->supervise(stop, std::move(ended));
        } else {
            c->launch(stop, std::move(ended));
        }
    }
    if (self->config.database.check == index::IntegrityCheck::quick) {
        self->threads.emplace_back([self, stop] { self->run_integrity_check(stop); });
    }
    return node_ptr;
}

std::string Node::url() const {
    return fmt::format("http://{}:{}", impl_->config.http.bind, impl_->http->port());
}

std::string Node::rpc_url() const { return impl_->chains.front()->rpc_url(); }

uint64_t Node::chain_id() const noexcept { return impl_->chains.front()->chain_id(); }

std::vector<std::pair<uint64_t, std::string>> Node::other_chains() const {
    std::vector<std::pair<uint64_t, std::string>> out;
    for (size_t i = 1; i < impl_->chains.size(); ++i)
        out.emplace_back(impl_->chains[i]->chain_id(), impl_->chains[i]->rpc_url());
    return out;
}

std::string Node::database() const {
    return impl_->check_db ? impl_->check_db->describe() : impl_->database_location;
}

std::expected<void, std::string> Node::run(const std::stop_token& stop) {
    Impl& s = *impl_;
    const std::stop_token internal = s.stop_all.get_token();
    while (!stop.stop_requested() && !internal.stop_requested()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        if (s.anvil && !s.anvil->running()) {
            s.fail("embedded devnet: anvil exited unexpectedly");
        }
    }
    s.stop_and_join();
    std::lock_guard lock(s.fatal_mutex);
    if (!s.fatal.empty()) return std::unexpected(s.fatal);
    return {};
}

nlohmann::json Node::status() const {
    const Impl& s = *impl_;
    // The default chain's facts at the top, as a one-chain node has always said them; every
    // chain's under `chains` (docs/node.md §Many chains).
    nlohmann::json j = s.chains.front()->status();
    j.erase("state");
    j.erase("last_error");
    j.erase("registries");
    j["embedded_devnet"] = s.anvil != nullptr;
    j["role"] = to_string(s.config.node.role);
    j["chains"] = nlohmann::json::array();
    for (const auto& c : s.chains) j["chains"].push_back(c->status());
    return j;
}

std::string Node::metrics() const {
    const Impl& s = *impl_;
    std::vector<std::pair<uint64_t, const index::IndexerMetrics*>> indexers;
    std::vector<std::unique_lock<std::mutex>> held;  // no indexer is freed while it is read
    for (const auto& c : s.chains) {
        held.push_back(c->lock_indexer_metrics());
        if (const auto* m = c->indexer_metrics()) indexers.emplace_back(c->chain_id(), m);
    }
    std::string out = indexers.empty() ? std::string() : index::to_prometheus(indexers);
    held.clear();
    // One family at a time, a sample per chain.
    const auto counter = [&](std::string_view name, std::string_view help, auto value_of) {
        out += fmt::format("# HELP {0} {1}\n# TYPE {0} counter\n", name, help);
        for (const auto& c : s.chains) {
            out += fmt::format("{}{{chain_id=\"{}\"}} {}\n", name, c->chain_id(),
                               value_of(c->counters()));
        }
    };
    using C = ChainRunner::Counters;
    counter("credence_verify_passes_total", "Re-verification passes",
            [](const C& c) { return c.verify_passes.load(); });
    counter("credence_verify_checked_total", "Subjects checked",
            [](const C& c) { return c.verify_checked.load(); });
    counter("credence_verify_verified_total", "Checks that verified",
            [](const C& c) { return c.verify_verified.load(); });
    counter("credence_verify_unverified_total", "Checks that failed",
            [](const C& c) { return c.verify_unverified.load(); });
    counter("credence_verify_unreachable_total", "Checks that could not run",
            [](const C& c) { return c.verify_unreachable.load(); });
    counter("credence_fundings_traced_total", "Reviewer and funder fundings traced",
            [](const C& c) { return c.fundings_traced.load(); });
    if (s.mcp) out += s.mcp->metrics();
    counter("credence_trust_full_passes_total", "Full trust recomputations",
            [](const C& c) { return c.trust_full_passes.load(); });
    counter("credence_trust_incremental_passes_total", "Incremental trust passes",
            [](const C& c) { return c.trust_incremental_passes.load(); });
    counter("credence_trust_agents_scored_total", "Agent scores written",
            [](const C& c) { return c.trust_agents_scored.load(); });
    counter("credence_trust_errors_total", "Trust passes that failed",
            [](const C& c) { return c.trust_errors.load(); });
    if (s.http) out += s.http->metrics();
    return out;
}

}  // namespace credence::node
