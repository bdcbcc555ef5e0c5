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
#include <credence/index/indexer.hpp>
#include <credence/index/integrity.hpp>
#include <credence/index/store.hpp>
#include <credence/node/explorer_files.hpp>
#include <credence/trust/score_store.hpp>
#include <credence/verify/net/fetch.hpp>
#include <credence/verify/store/funding_pass.hpp>
#include <credence/verify/store/index_checks.hpp>
#include <credence/verify/store/reverifier.hpp>
#include <credence/verify/verifiers/feedback_verifier.hpp>
#include <credence/verify/verifiers/tool_verifier.hpp>

namespace credence::node {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

int64_t unix_now() {
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

/// Sleeps up to `total`, waking within 50 ms of a stop request.
/// Sleeps `total`, or less when a stop is requested or `wake` (checked every 50 ms) says so.
void sleep_unless_stopped(const std::stop_token& stop, std::chrono::milliseconds total,
                          const std::function<bool()>& wake = {}) {
    const auto until = Clock::now() + total;
    while (!stop.stop_requested() && Clock::now() < until && !(wake && wake())) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
}

/// A component's state for /api/v1/status, written by its thread.
class ComponentState {
public:
    void set(std::string state, std::string error = {}) {
        std::lock_guard lock(mutex_);
        state_ = std::move(state);
        if (!error.empty()) last_error_ = std::move(error);
    }
    /// The component works again: its last error is history (docs/node.md §Health).
    void recover(std::string state) {
        std::lock_guard lock(mutex_);
        state_ = std::move(state);
        last_error_.clear();
    }
    [[nodiscard]] nlohmann::json to_json() const {
        std::lock_guard lock(mutex_);
        nlohmann::json j{{"state", state_}};
        j["last_error"] =
            last_error_.empty() ? nlohmann::json(nullptr) : nlohmann::json(last_error_);
        return j;
    }

private:
    mutable std::mutex mutex_;
    std::string state_ = "starting";
    std::string last_error_;
};

std::optional<core::Address> first_of(const std::vector<index::RegistrySource>& sources,
                                      index::ContractKind kind) {
    for (const auto& s : sources) {
        if (s.kind == kind) return s.address;
    }
    return std::nullopt;
}

}  // namespace

struct Node::Impl {
    NodeConfig config;
    LogSink log;
    std::unique_ptr<chain::AnvilProcess> anvil;
    std::optional<fs::path> devnet_file;  // removed at exit while it still names our devnet
    std::string rpc_url;
    uint64_t chain_id = 0;
    std::string database_location;
    std::vector<index::RegistrySource> sources;

    std::unique_ptr<index::Database> indexer_db;
    std::unique_ptr<index::Indexer> indexer;
    std::unique_ptr<api::RestApi> rest;
    std::unique_ptr<api::McpEndpoint> mcp;
    std::unique_ptr<api::GraphqlEndpoint> graphql;
    std::unique_ptr<api::HttpServer> http;

    std::stop_source stop_all;
    std::vector<std::jthread> threads;
    std::mutex integrity_mutex;
    index::Database* integrity_db = nullptr;  ///< the background check's, while it runs
    bool joined = false;

    // Shared state (atomics or mutex-guarded).
    std::atomic<uint64_t> head_block{0};
    std::atomic<uint64_t> indexed_block{0};
    std::atomic<bool> has_cursor{false};
    /// The indexer's last step failed (its error kind: rpc means the chain RPC is unreachable).
    std::atomic<bool> indexer_failing{false};
    std::atomic<bool> rpc_failing{false};
    ComponentState indexer_state, verifier_state, trust_state;
    std::mutex fatal_mutex;
    std::string fatal;  // the first component failure that stops the node
    std::atomic<uint64_t> verify_passes{0}, verify_checked{0}, verify_verified{0},
        verify_unverified{0}, verify_unreachable{0}, fundings_traced{0};
    std::atomic<uint64_t> trust_full_passes{0}, trust_incremental_passes{0}, trust_agents_scored{0},
        trust_errors{0};
    std::atomic<int64_t> trust_last_full_at{0};
    std::atomic<uint64_t> trust_covers_block{0};

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

    index::DbResult<std::unique_ptr<index::Database>> open_db() const {
        return index::open_database(database_location);
    }

    /// The one line a node that cannot use its index stops with (docs/node.md §Integrity).
    std::string database_refusal(const index::DbError& error) const {
        if (error.kind != index::DbErrorKind::corrupt) return error.to_string();
        return fmt::format(
            "database: {} is damaged ({}): move it aside and start again to re-index from the "
            "chain, or restore a backup",
            database_location, error.message);
    }

    /// docs/node.md §Health: degraded while the chain RPC fails or the index lags.
    api::NodeHealth health() const {
        api::NodeHealth h;
        if (rpc_failing.load()) {
            h.reasons.emplace_back("chain RPC unreachable: the index is not following the chain");
        } else if (indexer_failing.load()) {
            h.reasons.emplace_back("indexer failing: the index is not following the chain");
        }
        const uint64_t head = head_block.load();
        const uint64_t indexed = indexed_block.load();
        if (head != 0 && has_cursor.load() && head > indexed &&
            head - indexed > config.health.max_lag_blocks) {
            h.reasons.push_back(fmt::format("the index is {} blocks behind the head (more than {})",
                                            head - indexed, config.health.max_lag_blocks));
        }
        h.degraded = !h.reasons.empty();
        return h;
    }

    std::expected<void, std::string> start_devnet() {
        chain::AnvilOptions options;
        options.port = config.chain.devnet_port;
        options.chain_id = config.chain.chain_id.value_or(31337);
        if (!config.chain.devnet_state.empty()) {
            std::error_code ec;
            fs::create_directories(config.chain.devnet_state, ec);
            if (ec) {
                return std::unexpected("chain.devnet_state: cannot create " +
                                       config.chain.devnet_state);
            }
            options.state_file = fs::absolute(fs::path(config.chain.devnet_state) / "state.json");
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
        rpc_url = anvil->url();
        chain_id = anvil->chain_id();
        if (sources.empty()) sources = index::sources_from_deployment(deployment);
        say(fmt::format("credence node: embedded devnet at {} (chain id {}, {} contracts)", rpc_url,
                        chain_id, deployment.contracts.size()));
        return {};
    }

    std::expected<void, std::string> resolve_chain() {
        rpc_url = config.chain.rpc;
        auto rpc = chain::RpcClient::make_http(rpc_url);
        auto id = rpc.chain_id();
        if (!id)
            return std::unexpected(
                fmt::format("chain.rpc: {} does not answer eth_chainId", rpc_url));
        chain_id = *id;
        if (config.chain.chain_id && *config.chain.chain_id != chain_id) {
            return std::unexpected(fmt::format("chain.chain_id: {} but the node at {} is chain {}",
                                               *config.chain.chain_id, rpc_url, chain_id));
        }
        if (sources.empty()) {
            auto deployment = chain::find_deployment(chain_id, config.chain.deployment);
            if (!deployment) return std::unexpected("chain.deployment: " + deployment.error());
            const std::optional<chain::Deployment>& d = *deployment;
            sources = index::default_sources(d ? &*d : nullptr, chain_id);
        }
        return {};
    }

    // ---- the threads ------------------------------------------------------------------------

    void run_indexer(const std::stop_token& stop) {
        indexer_state.set("running");
        const auto poll = std::chrono::milliseconds(config.chain.poll_ms);
        auto result = indexer->run(stop, true, poll, [this](const index::StepReport& r) {
            if (r.error) {
                // Retried with backoff (index/indexer.hpp); /healthz is degraded meanwhile.
                const bool rpc = r.error->kind == index::IndexErrorKind::rpc;
                if (!indexer_failing.exchange(true))
                    say("credence node: indexer: " + r.error->message);
                rpc_failing.store(rpc);
                indexer_state.set("retrying", r.error->message);
                return;
            }
            if (indexer_failing.exchange(false)) say("credence node: indexer: recovered");
            rpc_failing.store(false);
            if (r.head != 0) {
                head_block.store(r.head);
                indexed_block.store(r.cursor);
                has_cursor.store(true);
            }
            if (r.warnings.empty()) {
                indexer_state.recover("running");
            }
            for (const auto& w : r.warnings) {
                say("credence node: indexer: " + w);
                indexer_state.set("running", w);
            }
        });
        if (!result) {
            indexer_state.set("failed", result.error().message);
            fail("indexer: " + result.error().message);
            return;
        }
        indexer_state.set("stopped");
    }

    void run_verifier(const std::stop_token& stop) {
        auto db = open_db();
        if (!db) {
            verifier_state.set("failed", db.error().to_string());
            fail("verifier: " + db.error().to_string());
            return;
        }
        verify::FetcherConfig fetch;
        fetch.allow_http = config.fetch.allow_http;
        fetch.ca_file = config.fetch.ca_file;
        fetch.allow_hosts = config.fetch.allow_hosts;
        fetch.connect_to = config.fetch.connect_to;
        fetch.ipfs_gateways = config.fetch.ipfs_gateways;
        const auto fetcher = verify::make_curl_fetcher(std::move(fetch));
        auto rpc = chain::RpcClient::make_http(rpc_url);
        // ERC-8004 §Off-Chain Feedback File Structure: a proofOfPayment names its chain. The
        // followed chain's payments are checked over the node's own RPC, others over
        // [[payment_chains]]; a chain with neither stays payment_chain_unavailable (a warning).
        std::map<uint64_t, std::unique_ptr<chain::RpcClient>> payment_rpcs;
        for (const auto& p : config.payment_chains) {
            if (p.chain_id != chain_id)
                payment_rpcs[p.chain_id] =
                    std::make_unique<chain::RpcClient>(chain::RpcClient::make_http(p.rpc));
        }
        verify::FeedbackVerifyOptions feedback_options;
        feedback_options.rpc_for_chain = [&rpc, &payment_rpcs,
                                          followed = chain_id](uint64_t id) -> chain::RpcClient* {
            if (id == followed) return &rpc;
            const auto it = payment_rpcs.find(id);
            return it == payment_rpcs.end() ? nullptr : it->second.get();
        };
        const std::map<verify::SubjectKind, verify::BatchCheck> all{
            {verify::SubjectKind::agent,
             verify::make_agent_check(*fetcher, rpc, chain_id, {}, db->get())},
            {verify::SubjectKind::tool, verify::make_tool_check(*fetcher, rpc)},
            {verify::SubjectKind::feedback,
             verify::make_feedback_check(*fetcher, rpc, std::move(feedback_options))},
            {verify::SubjectKind::validation, verify::make_validation_check(*fetcher, rpc)},
            {verify::SubjectKind::run, verify::make_run_check(**db, chain_id)},
        };
        verifier_state.set("running");
        while (!stop.stop_requested()) {
            // One batch per kind per call, so a stop request waits for one batch at most (its
            // results commit whole) rather than a whole pass.
            for (const auto& [kind, check] : all) {
                const std::map<verify::SubjectKind, verify::BatchCheck> one{{kind, check}};
                while (!stop.stop_requested()) {
                    verify::ReverifyOptions options;
                    options.now = unix_now();
                    options.max_age = config.verify.max_age_seconds;
                    options.batch_size = config.verify.batch;
                    options.max_subjects = config.verify.batch;
                    auto counts = verify::reverify_due(**db, chain_id, one, options);
                    if (!counts) {
                        verifier_state.set("retrying", counts.error().to_string());
                        break;
                    }
                    verify_checked += counts->checked;
                    verify_verified += counts->verified;
                    verify_unverified += counts->unverified;
                    verify_unreachable += counts->unreachable;
                    if (counts->checked < config.verify.batch) break;
                }
            }
            // Where the reviewers' funds came from (docs/trust.md §Funding), for the trust engine's
            // funding clusters: one bounded pass over the addresses not traced yet.
            if (!stop.stop_requested()) {
                if (auto head = rpc.block_number(); head) {
                    verify::FundingPassOptions funding;
                    funding.now = unix_now();
                    funding.head = *head;
                    if (auto traced = verify::trace_fundings(**db, rpc, chain_id, funding);
                        traced) {
                        fundings_traced += traced->traced;
                    } else {
                        verifier_state.set("retrying", traced.error().to_string());
                    }
                }
            }
            ++verify_passes;
            // The next pass comes after interval_seconds, or as soon as the indexer has committed
            // new blocks: what they point to (new agents, feedback files, ...) is due at once, so a
            // fresh node verifies the history it just indexed without waiting out the interval.
            const uint64_t seen = indexed_block.load();
            sleep_unless_stopped(stop, std::chrono::seconds(config.verify.interval_seconds),
                                 [this, seen] { return indexed_block.load() != seen; });
        }
        verifier_state.set("stopped");
    }

    void run_trust(const std::stop_token& stop) {
        const auto identity = first_of(sources, index::ContractKind::identity_registry);
        const auto reputation = first_of(sources, index::ContractKind::reputation_registry);
        const auto validation = first_of(sources, index::ContractKind::validation_registry);
        if (!identity || !reputation) {
            trust_state.set("disabled", "no identity and reputation registry to score");
            return;
        }
        auto db = open_db();
        if (!db) {
            trust_state.set("failed", db.error().to_string());
            fail("trust: " + db.error().to_string());
            return;
        }
        trust::TrustConfig tc;
        tc.half_life_seconds = static_cast<int64_t>(config.trust.half_life_days * 86'400);
        for (const auto& t : config.trust.trusted) {
            if (auto a = core::Address::from_hex(t)) tc.trusted.push_back(*a);
        }
        trust::ScoreUpdater updater(tc);
        trust::TrustSources ts;
        ts.chain_id = chain_id;
        ts.identity_registry = *identity;
        ts.reputation_registry = *reputation;
        ts.validation_registry = validation.value_or(core::Address{});
        ts.seconds_per_block = config.chain.seconds_per_block.value_or(anvil ? 1.0 : 12.0);
        const auto full_every = std::chrono::seconds(config.trust.full_interval_seconds);
        std::optional<Clock::time_point> last_full;
        uint64_t fundings_at_full = 0;
        trust_state.set("waiting for the indexer");
        while (!stop.stop_requested()) {
            if (has_cursor.load()) {
                ts.head_block_num = indexed_block.load();
                ts.now = unix_now();
                // New fundings change the funding clusters, which only a full pass computes
                // (trust/funding_clusters.hpp): they arrive once per verifier pass at most.
                const uint64_t fundings = fundings_traced.load();
                const bool full = !last_full || Clock::now() - *last_full >= full_every ||
                                  fundings != fundings_at_full;
                // Every interval: an incremental pass reads only what changed (the new blocks'
                // entities, and the verifier's checks, which arrive without new blocks), and is
                // a full pass itself after an index rollback.
                auto pass = full ? updater.full_pass(**db, ts) : updater.incremental_pass(**db, ts);
                if (!pass) {
                    ++trust_errors;
                    trust_state.set("retrying", pass.error().to_string());
                } else {
                    trust_state.set("running");
                    trust_agents_scored += pass->agents_scored;
                    trust_covers_block.store(pass->covers_block_num);
                    if (pass->full) {
                        fundings_at_full = fundings;
                        ++trust_full_passes;
                        trust_last_full_at.store(ts.now);
                        last_full = Clock::now();
                    } else {
                        ++trust_incremental_passes;
                    }
                }
            }
            sleep_unless_stopped(stop,
                                 std::chrono::milliseconds(config.trust.incremental_interval_ms));
        }
        trust_state.set("stopped");
    }

    /// docs/node.md §Integrity: after the quick check at start, one PRAGMA integrity_check on a
    /// connection of its own (a WAL reader: writers go on), which also matches every index against
    /// its table. Damage it finds makes the API answer 503 index_corrupt from then on: a damaged
    /// index key answers lookups with nothing rather than an error.
    void run_integrity_check(const std::stop_token& stop) {
        auto db = open_db();
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
        for (auto& t : threads) {
            if (t.joinable()) t.join();
        }
        threads.clear();
        if (http) http->stop();
        if (anvil) anvil->stop();
        if (devnet_file && anvil) {
            auto current = chain::load_deployment(*devnet_file);
            if (current && current->rpc_url == rpc_url) {
                std::error_code ec;
                fs::remove(*devnet_file, ec);
            }
        }
    }
};

Node::Node(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Node::~Node() {
    if (impl_) impl_->stop_and_join();
}

std::expected<std::unique_ptr<Node>, std::string> Node::start(NodeConfig config, LogSink log) {
    if (auto ok = validate(config); !ok) return std::unexpected(ok.error());
    auto impl = std::make_unique<Impl>();
    impl->config = std::move(config);
    impl->log = std::move(log);
    impl->sources = impl->config.registries;
    Impl& s = *impl;

    if (auto r = s.config.chain.rpc.empty() ? s.start_devnet() : s.resolve_chain(); !r) {
        return std::unexpected(r.error());
    }
    if (s.sources.empty()) {
        return std::unexpected(fmt::format(
            "registries: nothing to index on chain {} (no deployment file and no known ERC-8004 "
            "deployment): add [[registries]] to the config",
            s.chain_id));
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
    auto db = s.open_db();
    if (!db) return std::unexpected(s.database_refusal(db.error()));
    s.indexer_db = std::move(*db);
    if (auto checked = index::check_integrity(*s.indexer_db, s.config.database.check); !checked) {
        return std::unexpected(s.database_refusal(checked.error()));
    }

    index::IndexerOptions options;
    options.chain_id = s.chain_id;
    options.sources = s.sources;
    options.finality_depth =
        s.config.chain.finality_depth.value_or(index::default_finality_depth(s.chain_id));
    if (s.config.chain.getlogs_in_flight) {
        options.range.in_flight = *s.config.chain.getlogs_in_flight;
    }
    s.indexer = std::make_unique<index::Indexer>(
        std::move(options), chain::RpcClient::make_http(s.rpc_url), *s.indexer_db);
    auto started = s.indexer->start();  // migrations, chain id, code hashes
    if (!started) return std::unexpected("indexer: " + started.error().message);
    for (const auto& w : *started) s.say("credence node: indexer: " + w);
    if (auto store = index::IndexStore::open(*s.indexer_db)) {
        if (auto cursor = store->cursor(s.chain_id); cursor.has_value()) {
            const std::optional<uint64_t> block = *cursor;
            if (block.has_value()) {
                s.indexed_block.store(block.value_or(0));
                s.has_cursor.store(true);
            }
        }
    }

    // HTTP.
    api::RestApiOptions rest_options;
    rest_options.scope.chain_id = s.chain_id;
    const auto legacy_set = [](std::optional<api::Erc8004Registries>& set) -> auto& {
        if (!set) set.emplace();
        return *set;
    };
    for (const auto& src : s.sources) {
        switch (src.kind) {
            case index::ContractKind::identity_registry:
                if (rest_options.scope.identity_registry == core::Address{}) {
                    rest_options.scope.identity_registry = src.address;
                }
                break;
            case index::ContractKind::reputation_registry:
                if (rest_options.scope.reputation_registry == core::Address{}) {
                    rest_options.scope.reputation_registry = src.address;
                }
                break;
            case index::ContractKind::validation_registry:
                if (rest_options.scope.validation_registry == core::Address{}) {
                    rest_options.scope.validation_registry = src.address;
                }
                break;
            case index::ContractKind::tool_registry:
                rest_options.scope.tool_registries.push_back(src.address);
                break;
            case index::ContractKind::workflow:
                rest_options.scope.workflows.push_back(src.address);
                break;
            case index::ContractKind::agent_verifier:
                break;
            // The earlier ERC-8004 revisions: the agent routes' `?revision=` (docs/api.md).
            case index::ContractKind::identity_score:
                legacy_set(rest_options.scope.score).identity = src.address;
                break;
            case index::ContractKind::reputation_score:
                legacy_set(rest_options.scope.score).reputation = src.address;
                break;
            case index::ContractKind::validation_score:
                legacy_set(rest_options.scope.score).validation = src.address;
                break;
            case index::ContractKind::identity_draft:
                legacy_set(rest_options.scope.draft).identity = src.address;
                break;
            case index::ContractKind::reputation_draft:
                legacy_set(rest_options.scope.draft).reputation = src.address;
                break;
            case index::ContractKind::validation_draft:
                legacy_set(rest_options.scope.draft).validation = src.address;
                break;
        }
    }
    const std::string location = s.database_location;
    rest_options.open_database = [location] { return index::open_database(location); };
    const api::ApiScope rest_options_scope = rest_options.scope;
    // The callbacks run on server threads while the node lives: the server stops before Impl
    // goes away (stop_and_join).
    Impl* self = impl.get();
    auto node_ptr = std::unique_ptr<Node>(new Node(std::move(impl)));
    Node* node = node_ptr.get();
    rest_options.node_status = [node] { return node->status(); };
    rest_options.node_metrics = [node] { return node->metrics(); };
    rest_options.node_health = [self] { return self->health(); };
    rest_options.degraded_status = self->config.health.degraded_status;
    rest_options.log = [self](std::string_view line) { self->say(line); };
    self->rest = std::make_unique<api::RestApi>(std::move(rest_options));
    self->mcp =
        std::make_unique<api::McpEndpoint>(*self->rest, api::McpOptions{"credence", "0.1.0"});
    // The agent0 subgraph's GraphQL (docs/graphql.md), over the same registries as the REST API.
    subgraph::Agent0GraphOptions graph_options;
    graph_options.sources.chain_id = s.chain_id;
    graph_options.sources.identity_registry = rest_options_scope.identity_registry;
    if (rest_options_scope.reputation_registry != core::Address{})
        graph_options.sources.reputation_registry = rest_options_scope.reputation_registry;
    if (rest_options_scope.validation_registry != core::Address{})
        graph_options.sources.validation_registry = rest_options_scope.validation_registry;
    graph_options.open_database = [location] { return index::open_database(location); };
    graph_options.log = [self](std::string_view line) { self->say(line); };
    self->graphql = std::make_unique<api::GraphqlEndpoint>(std::move(graph_options));
    api::HttpServerOptions http_options;
    http_options.graphql = self->graphql.get();
    http_options.bind_address = self->config.http.bind;
    http_options.port = self->config.http.port;
    auto explorer = find_explorer_files(self->config.http.static_dir);
    if (explorer) http_options.static_dir = *explorer;
    http_options.max_body_bytes = self->config.http.max_body_bytes;
    http_options.rate_limit_per_second = self->config.http.rate_limit_per_second;
    http_options.rate_limit_burst = self->config.http.rate_limit_burst;
    http_options.threads = self->config.http.threads;
    http_options.max_connections = self->config.http.max_connections;
    http_options.max_connections_per_ip = self->config.http.max_connections_per_ip;
    http_options.idle_timeout = std::chrono::milliseconds(self->config.http.idle_timeout_ms);
    http_options.header_timeout = std::chrono::milliseconds(self->config.http.header_timeout_ms);
    http_options.body_timeout = std::chrono::milliseconds(self->config.http.body_timeout_ms);
    http_options.write_timeout = std::chrono::milliseconds(self->config.http.write_timeout_ms);
    http_options.max_header_bytes = self->config.http.max_header_bytes;
    http_options.max_target_bytes = self->config.http.max_target_bytes;
    http_options.keep_alive_requests = self->config.http.keep_alive_requests;
    self->http = std::make_unique<api::HttpServer>(*self->rest, *self->mcp, http_options);
    if (auto bound = self->http->start(); !bound) {
        return std::unexpected(fmt::format("http: cannot serve on {}:{}: {}",
                                           self->config.http.bind, self->config.http.port,
                                           bound.error()));
    }
    // Said once serving, so that a start that fails stays one line.
    if (!explorer) self->say("credence node: " + explorer.error());

    const std::stop_token stop = self->stop_all.get_token();
    self->threads.emplace_back([self, stop] { self->run_indexer(stop); });
    self->threads.emplace_back([self, stop] { self->run_trust(stop); });
    if (self->config.database.check == index::IntegrityCheck::quick) {
        self->threads.emplace_back([self, stop] { self->run_integrity_check(stop); });
    }
    if (self->config.verify.enabled) {
        self->threads.emplace_back([self, stop] { self->run_verifier(stop); });
    } else {
        self->verifier_state.set("disabled");
    }
    return node_ptr;
}

std::string Node::url() const {
    return fmt::format("http://{}:{}", impl_->config.http.bind, impl_->http->port());
}

std::string Node::rpc_url() const { return impl_->rpc_url; }

uint64_t Node::chain_id() const noexcept { return impl_->chain_id; }

std::string Node::database() const {
    return impl_->indexer_db ? impl_->indexer_db->describe() : impl_->database_location;
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
    const uint64_t head = s.head_block.load();
    const uint64_t indexed = s.indexed_block.load();
    nlohmann::json j;
    j["chain_id"] = s.chain_id;
    j["embedded_devnet"] = s.anvil != nullptr;
    j["head_block_num"] = head != 0 ? nlohmann::json(head) : nlohmann::json(nullptr);
    j["indexed_block_num"] =
        s.has_cursor.load() ? nlohmann::json(indexed) : nlohmann::json(nullptr);
    j["lag"] =
        head != 0 && head >= indexed ? nlohmann::json(head - indexed) : nlohmann::json(nullptr);
    nlohmann::json verifier = s.verifier_state.to_json();
    verifier["passes"] = s.verify_passes.load();
    verifier["checked"] = s.verify_checked.load();
    verifier["verified"] = s.verify_verified.load();
    verifier["unverified"] = s.verify_unverified.load();
    verifier["unreachable"] = s.verify_unreachable.load();
    verifier["fundings_traced"] = s.fundings_traced.load();
    nlohmann::json trust = s.trust_state.to_json();
    trust["full_passes"] = s.trust_full_passes.load();
    trust["incremental_passes"] = s.trust_incremental_passes.load();
    trust["last_full_at"] = s.trust_last_full_at.load();
    trust["covers_block_num"] = s.trust_covers_block.load();
    j["components"] = {{"indexer", s.indexer_state.to_json()},
                       {"verifier", std::move(verifier)},
                       {"trust", std::move(trust)}};
    return j;
}

std::string Node::metrics() const {
    const Impl& s = *impl_;
    std::string out = s.indexer ? s.indexer->metrics().to_prometheus(s.chain_id) : std::string();
    const auto counter = [&out](std::string_view name, std::string_view help, uint64_t value) {
        out += fmt::format("# HELP {0} {1}\n# TYPE {0} counter\n{0} {2}\n", name, help, value);
    };
    counter("credence_verify_passes_total", "Re-verification passes", s.verify_passes.load());
    counter("credence_verify_checked_total", "Subjects checked", s.verify_checked.load());
    counter("credence_verify_verified_total", "Checks that verified", s.verify_verified.load());
    counter("credence_verify_unverified_total", "Checks that failed", s.verify_unverified.load());
    counter("credence_verify_unreachable_total", "Checks that could not run",
            s.verify_unreachable.load());
    counter("credence_fundings_traced_total", "Reviewer and funder fundings traced",
            s.fundings_traced.load());
    if (s.mcp) out += s.mcp->metrics();
    counter("credence_trust_full_passes_total", "Full trust recomputations",
            s.trust_full_passes.load());
    counter("credence_trust_incremental_passes_total", "Incremental trust passes",
            s.trust_incremental_passes.load());
    counter("credence_trust_agents_scored_total", "Agent scores written",
            s.trust_agents_scored.load());
    counter("credence_trust_errors_total", "Trust passes that failed", s.trust_errors.load());
    if (s.http) out += s.http->metrics();
    return out;
}

}  // namespace credence::node
