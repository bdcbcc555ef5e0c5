#include <credence/node/chain_runner.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include <credence/chain/deployment.hpp>
#include <credence/chain/log_wakeup.hpp>
#include <credence/chain/rpc_client.hpp>
#include <credence/index/replication_status.hpp>
#include <credence/index/schema.hpp>
#include <credence/index/store.hpp>
#include <credence/trust/score_store.hpp>
#include <credence/verify/net/fetch.hpp>
#include <credence/verify/store/funding_pass.hpp>
#include <credence/verify/store/index_checks.hpp>
#include <credence/verify/store/reverifier.hpp>
#include <credence/verify/verifiers/feedback_verifier.hpp>
#include <credence/verify/verifiers/tool_verifier.hpp>

namespace credence::node {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int64_t kReaderCacheKib = 8 * 1024;
/// The smallest merged batch of a chain's indexer when several share the budget.
constexpr uint64_t kMinBatchLogs = 5'000;
/// The smallest page cache of a chain's indexer when several share the one-chain cache.
constexpr int64_t kMinIndexerCacheKib = 16 * 1024;

int64_t unix_now() {
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

/// A reader's page cache on SQLite: the indexer's connection keeps the large one for ingest
/// (index/database.hpp), while the verifier's and the trust engine's connections read in passes,
/// and each connection's cache counts once more in the resident set for every chain followed.
index::DbResult<void> use_small_cache(index::Database& db) {
    if (db.dialect() != index::Dialect::sqlite) return {};
    return db.exec_script(fmt::format("PRAGMA cache_size=-{}", kReaderCacheKib));
}

/// Sleeps `total`, or less when a stop is requested or `wake` (checked every 50 ms) says so.
void sleep_unless_stopped(const std::stop_token& stop, std::chrono::milliseconds total,
                          const std::function<bool()>& wake = {}) {
    const auto until = Clock::now() + total;
    while (!stop.stop_requested() && Clock::now() < until && !(wake && wake())) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
}

std::optional<core::Address> first_of(const std::vector<index::RegistrySource>& sources,
                                      index::ContractKind kind) {
    for (const auto& s : sources) {
        if (s.kind == kind) return s.address;
    }
    return std::nullopt;
}

}  // namespace

void ComponentState::set(std::string state, std::string error) {
    std::lock_guard lock(mutex_);
    state_ = std::move(state);
    if (!error.empty()) last_error_ = std::move(error);
}

void ComponentState::recover(std::string state) {
    std::lock_guard lock(mutex_);
    state_ = std::move(state);
    last_error_.clear();
}

std::string ComponentState::state() const {
    std::lock_guard lock(mutex_);
    return state_;
}

nlohmann::json ComponentState::to_json() const {
    std::lock_guard lock(mutex_);
    nlohmann::json j{{"state", state_}};
    j["last_error"] = last_error_.empty() ? nlohmann::json(nullptr) : nlohmann::json(last_error_);
    return j;
}

ChainRunner::ChainRunner(ChainConfig chain, ChainEnvironment env)
    : chain_(std::move(chain)), env_(std::move(env)), chain_id_(chain_.chain_id.value_or(0)) {
    sources_ = chain_.registries;
    if (sources_.empty() && chain_id_ != 0) {
        // Known without the RPC, so the API's scope exists before the chain answers. A broken
        // deployment file is prepare()'s error.
        if (auto defaults = default_sources(); defaults) sources_ = std::move(*defaults);
    }
}

std::expected<std::vector<index::RegistrySource>, std::string> ChainRunner::default_sources()
    const {
    auto deployment = chain::find_deployment(chain_id_, chain_.deployment);
    if (!deployment) return std::unexpected(deployment.error());
    const std::optional<chain::Deployment>& d = *deployment;
    return index::default_sources(d ? &*d : nullptr, chain_id_);
}

void ChainRunner::follow(const std::stop_token& node_stop) {
    follow_node_stop_ = std::make_unique<std::stop_callback<std::function<void()>>>(
        node_stop, std::function<void()>([this] { stop_.request_stop(); }));
}

void ChainRunner::say(std::string_view line) const {
    env_.say(fmt::format("credence node: chain {}: {}", chain_id_, line));
}

ChainRunner::~ChainRunner() { stop_and_join(); }

std::expected<void, ChainStartError> ChainRunner::prepare() {
    const auto fail = [](std::string message, bool permanent = false) {
        return std::unexpected(ChainStartError{std::move(message), permanent});
    };
    auto rpc = chain::RpcClient::make_http(chain_.rpc);
    auto id = rpc.chain_id();
    if (!id) return fail(fmt::format("chain.rpc: {} does not answer eth_chainId", chain_.rpc));
    if (chain_.chain_id && *chain_.chain_id != *id) {
        return fail(
            fmt::format("chain.chain_id: {} but {} is chain {}", *chain_.chain_id, chain_.rpc, *id),
            true);
    }
    chain_id_ = *id;
    if (chain_.registries.empty()) {
        auto defaults = default_sources();
        if (!defaults) return fail("chain.deployment: " + defaults.error(), true);
        sources_ = std::move(*defaults);
    }
    if (sources_.empty()) {
        return fail(fmt::format("registries: nothing to index on chain {} (no deployment file and "
                                "no known ERC-8004 deployment): add [[registries]] to the config",
                                chain_id_),
                    true);
    }
    if (!indexer_db_) {
        auto db = index::open_database(env_.database_location);
        if (!db) return fail("database: " + db.error().to_string());
        indexer_db_ = std::move(*db);
        // docs/node.md §Many chains: each connection's page cache counts in the resident set, so
        // the chains' indexers share the one-chain cache as they share the batch budget.
        if (indexer_db_->dialect() == index::Dialect::sqlite && env_.chain_count > 1) {
            const int64_t kib =
                std::max(kMinIndexerCacheKib,
                         index::kSqliteCacheKib / static_cast<int64_t>(env_.chain_count));
            if (auto r = indexer_db_->exec_script(fmt::format("PRAGMA cache_size=-{}", kib)); !r)
                return fail("database: " + r.error().to_string());
        }
    }

    index::IndexerOptions options;
    options.chain_id = chain_id_;
    options.sources = sources_;
    options.finality_depth =
        chain_.finality_depth.value_or(index::default_finality_depth(chain_id_));
    if (chain_.getlogs_in_flight) options.range.in_flight = *chain_.getlogs_in_flight;
    // docs/node.md §Many chains: a batch holds about 2 KB per log, twice over while it commits, so
    // the chains' indexers share the one-chain budget rather than each taking all of it.
    options.batch_logs = std::max<uint64_t>(
        kMinBatchLogs, options.batch_logs / std::max<size_t>(1, env_.chain_count));
    indexer_ = std::make_unique<index::Indexer>(std::move(options), std::move(rpc), *indexer_db_);
    auto started = indexer_->start();  // migrations, chain id, code hashes, the writer lock
    if (!started) {
        const bool permanent = started.error().kind == index::IndexErrorKind::wrong_chain ||
                               started.error().kind == index::IndexErrorKind::busy;
        indexer_.reset();
        indexer_db_.reset();
        return fail("indexer: " + started.error().message, permanent);
    }
    for (const auto& w : *started) say("indexer: " + w);
    // The store start() opened: no second migration check.
    if (auto cursor = indexer_->store().cursor(chain_id_); cursor.has_value()) {
        const std::optional<uint64_t> block = *cursor;
        if (block.has_value()) {
            indexed_block_.store(block.value_or(0));
            has_cursor_.store(true);
        }
    }
    return {};
}

void ChainRunner::start_helpers(const std::stop_token& stop) {
    threads_.emplace_back([this, stop] { run_trust(stop); });
    if (env_.config->verify.enabled) {
        threads_.emplace_back([this, stop] { run_verifier(stop); });
    } else {
        verifier_state_.set("disabled");
    }
}

void ChainRunner::launch(const std::stop_token& node_stop,
                         std::function<void(std::string)> on_fatal) {
    on_fatal_ = std::move(on_fatal);
    follow(node_stop);
    chain_state_.recover("following");
    publish_metrics(&indexer_->metrics());
    threads_.emplace_back([this] { run_indexer(stop_); });
    start_helpers(stop_.get_token());
}

bool ChainRunner::become_writer(const std::stop_token& stop) {
    if (!env_.elect) return true;
    const auto retry = std::chrono::milliseconds(env_.config->node.election_retry_ms);
    bool said_standby = false;
    while (!stop.stop_requested()) {
        if (!indexer_db_) {
            auto db = index::open_database(env_.database_location);
            if (!db) {
                chain_state_.set("starting", "database: " + db.error().to_string());
                sleep_unless_stopped(stop, retry);
                continue;
            }
            indexer_db_ = std::move(*db);
        }
        // The lock is taken on the connection the indexer writes with: when the writer dies or
        // its connection drops, the lock goes with every batch it had not committed.
        if (!election_)
            election_ = std::make_unique<index::WriterElection>(*indexer_db_, chain_id_, retry);
        auto role = election_->poll();
        if (!role) {
            chain_state_.set("starting", "writer election: " + role.error().to_string());
            election_.reset();
            indexer_db_.reset();
            sleep_unless_stopped(stop, retry);
            continue;
        }
        if (*role == index::WriterRole::writer) {
            ++takeovers_;
            say("elected its writer");
            return true;
        }
        if (!said_standby) {
            say("standby (another node writes it)");
            said_standby = true;
        }
        chain_state_.recover("standby");
        sleep_unless_stopped(stop, retry);
    }
    return false;
}

bool ChainRunner::supervised_term(const std::stop_token& stop,
                                  const std::function<void(std::string)>& fatal) {
    if (!become_writer(stop)) return false;
    auto prepared = prepare();
    if (!prepared) {
        // The status is public and an RPC URL may carry a provider's key: the log has it.
        std::string shown = prepared.error().message;
        for (size_t at; (at = shown.find(chain_.rpc)) != std::string::npos;)
            shown.replace(at, chain_.rpc.size(), "the RPC");
        if (prepared.error().permanent) {
            // docs/node.md §Many chains: refused alone; the other chains go on.
            chain_state_.set("refused", shown);
            say(prepared.error().message + " (refused)");
            if (fatal) fatal(fmt::format("chain {}: {}", chain_id_, prepared.error().message));
            // Refused here, another node may follow it: the writer lock goes.
            election_.reset();
            indexer_db_.reset();
            return false;
        }
        if (!start_failing_) say(prepared.error().message + " (retrying)");
        start_failing_ = true;
        chain_state_.set("starting", shown);
        rpc_failing_.store(true);
        // Retried from the election: a standby may meanwhile have become the writer.
        election_.reset();
        indexer_db_.reset();
        sleep_unless_stopped(stop, start_backoff_);
        start_backoff_ = std::min(start_backoff_ * 2, std::chrono::milliseconds(30'000));
        return true;
    }
    if (start_failing_) say("started");
    start_failing_ = false;
    start_backoff_ = std::chrono::milliseconds(500);
    on_fatal_ = fatal;
    chain_state_.recover("following");
    std::stop_source term;
    const std::stop_callback follow(stop, [&term] { term.request_stop(); });
    start_helpers(term.get_token());
    publish_metrics(&indexer_->metrics());
    const IndexerEnd end = run_indexer(term);
    term.request_stop();
    for (auto& t : threads_) {
        if (t.joinable()) t.join();
    }
    threads_.clear();
    if (end != IndexerEnd::lost_writer) return false;
    // docs/scale.md §Failover: another node writes this chain now; stand by for the lock again.
    say("lost the writer lock; standing by");
    chain_state_.recover("standby");
    election_.reset();
    // run_indexer() withdrew the counters from /metrics: the term's indexer and its connection
    // go now, so a node that loses the lock again and again holds no more than one of each.
    indexer_.reset();
    indexer_db_.reset();
    return !stop.stop_requested();
}

void ChainRunner::supervise(const std::stop_token& node_stop,
                            std::function<void(std::string)> on_fatal) {
    follow(node_stop);
    supervisor_ = std::jthread([this, fatal = std::move(on_fatal)] {
        const std::stop_token stop = stop_.get_token();
        while (!stop.stop_requested() && supervised_term(stop, fatal)) {
        }
    });
}

void ChainRunner::read(const std::stop_token& node_stop) {
    follow(node_stop);
    indexer_state_.set("disabled");
    verifier_state_.set("disabled");
    trust_state_.set("disabled");
    supervisor_ = std::jthread([this] {
        const std::stop_token stop = stop_.get_token();
        std::unique_ptr<index::Database> db;
        while (!stop.stop_requested()) {
            const auto failed = [&](const index::DbError& e) {
                database_failing_.store(true);
                chain_state_.set("starting", "database: " + e.to_string());
                db.reset();
            };
            if (!db) {
                // Read-only, and only once a writer has migrated the schema (docs/scale.md).
                auto opened = index::open_index_read_only(env_.database_location);
                if (opened) {
                    db = std::move(*opened);
                } else {
                    failed(opened.error());
                }
            }
            if (db) {
                const std::array<index::DbValue, 1> params{static_cast<int64_t>(chain_id_)};
                auto cursor =
                    db->query("SELECT block_num FROM cursors WHERE chain_id = $1", params);
                auto replication = index::replication_status(*db);
                if (!cursor) {
                    failed(cursor.error());
                } else if (!replication) {
                    failed(replication.error());
                } else {
                    if (!cursor->empty()) {
                        if (const auto* block = std::get_if<int64_t>(&cursor->front().front())) {
                            indexed_block_.store(static_cast<uint64_t>(*block));
                            has_cursor_.store(true);
                        }
                    }
                    standby_server_.store(replication->standby);
                    replication_lag_ms_.store(
                        replication->lag_seconds
                            ? static_cast<int64_t>(*replication->lag_seconds * 1000)
                            : -1);
                    database_failing_.store(false);
                    chain_state_.recover("reading");
                }
            }
            sleep_unless_stopped(stop, std::chrono::milliseconds(chain_.poll_ms));
        }
    });
}

void ChainRunner::stop_and_join() {
    stop_.request_stop();
    if (supervisor_.joinable()) supervisor_.join();
    for (auto& t : threads_) {
        if (t.joinable()) t.join();
    }
    threads_.clear();
    follow_node_stop_.reset();
}

void ChainRunner::end(std::string what) {
    chain_state_.set("failed", what);
    stop_.request_stop();
    if (on_fatal_) on_fatal_(fmt::format("chain {}: {}", chain_id_, what));
}

api::ApiScope ChainRunner::api_scope() const {
    api::ApiScope scope;
    scope.chain_id = chain_id_;
    const auto legacy_set =
        [&scope](
            std::optional<api::Erc8004Registries> api::ApiScope::* set) -> api::Erc8004Registries& {
        if (!(scope.*set)) (scope.*set).emplace();
        return *(scope.*set);
    };
    for (const auto& src : sources_) {
        switch (src.kind) {
            case index::ContractKind::identity_registry:
                if (scope.identity_registry == core::Address{})
                    scope.identity_registry = src.address;
                break;
            case index::ContractKind::reputation_registry:
                if (scope.reputation_registry == core::Address{})
                    scope.reputation_registry = src.address;
                break;
            case index::ContractKind::validation_registry:
                if (scope.validation_registry == core::Address{})
                    scope.validation_registry = src.address;
                break;
            case index::ContractKind::tool_registry:
                scope.tool_registries.push_back(src.address);
                break;
            case index::ContractKind::workflow:
                scope.workflows.push_back(src.address);
                break;
            case index::ContractKind::agent_verifier:
                break;
            // The earlier ERC-8004 revisions: the agent routes' `?revision=` (docs/api.md).
            case index::ContractKind::identity_score:
                legacy_set(&api::ApiScope::score).identity = src.address;
                break;
            case index::ContractKind::reputation_score:
                legacy_set(&api::ApiScope::score).reputation = src.address;
                break;
            case index::ContractKind::validation_score:
                legacy_set(&api::ApiScope::score).validation = src.address;
                break;
            case index::ContractKind::identity_draft:
                legacy_set(&api::ApiScope::draft).identity = src.address;
                break;
            case index::ContractKind::reputation_draft:
                legacy_set(&api::ApiScope::draft).reputation = src.address;
                break;
            case index::ContractKind::validation_draft:
                legacy_set(&api::ApiScope::draft).validation = src.address;
                break;
        }
    }
    return scope;
}

api::NodeHealth ChainRunner::health() const {
    // docs/node.md §Health: degraded while the chain RPC fails or the index lags.
    api::NodeHealth h;
    const std::string state = chain_state_.state();
    if (state == "refused" || state == "failed") {
        h.reasons.push_back(state + ": the index is not following the chain");
    } else if (database_failing_.load()) {
        h.reasons.emplace_back("database unreachable: the node cannot read the index");
    } else if (rpc_failing_.load()) {
        h.reasons.emplace_back("chain RPC unreachable: the index is not following the chain");
    } else if (indexer_failing_.load()) {
        h.reasons.emplace_back("indexer failing: the index is not following the chain");
    }
    const uint64_t head = head_block_.load();
    const uint64_t indexed = indexed_block_.load();
    const uint64_t max_lag = env_.config->health.max_lag_blocks;
    if (head != 0 && has_cursor_.load() && head > indexed && head - indexed > max_lag) {
        h.reasons.push_back(fmt::format("the index is {} blocks behind the head (more than {})",
                                        head - indexed, max_lag));
    }
    const int64_t lag_ms = replication_lag_ms_.load();
    const double max_replay_lag = env_.config->health.max_replication_lag_seconds;
    if (lag_ms >= 0 && static_cast<double>(lag_ms) / 1000 > max_replay_lag) {
        h.reasons.push_back(
            fmt::format("the database replica replays {:.1f} s behind its primary (more than {} s)",
                        static_cast<double>(lag_ms) / 1000, max_replay_lag));
    }
    h.degraded = !h.reasons.empty();
    return h;
}

nlohmann::json ChainRunner::status() const {
    const uint64_t head = head_block_.load();
    const uint64_t indexed = indexed_block_.load();
    nlohmann::json j = chain_state_.to_json();
    j["chain_id"] = chain_id_;
    j["head_block_num"] = head != 0 ? nlohmann::json(head) : nlohmann::json(nullptr);
    j["indexed_block_num"] = has_cursor_.load() ? nlohmann::json(indexed) : nlohmann::json(nullptr);
    j["lag"] =
        head != 0 && head >= indexed ? nlohmann::json(head - indexed) : nlohmann::json(nullptr);
    j["registries"] = sources_.size();
    j["role"] = env_.config->node.role == NodeRole::api ? "reader"
                : chain_state_.state() == "standby"     ? "standby"
                                                        : "writer";
    if (env_.elect) j["takeovers"] = takeovers_.load();
    if (env_.config->node.role == NodeRole::api) {
        // docs/scale.md §Replicas: what an API node on a standby serves is this far behind.
        const int64_t lag_ms = replication_lag_ms_.load();
        j["replication"] = {
            {"standby", standby_server_.load()},
            {"lag_seconds", lag_ms >= 0 ? nlohmann::json(static_cast<double>(lag_ms) / 1000)
                                        : nlohmann::json(nullptr)}};
    }
    nlohmann::json verifier = verifier_state_.to_json();
    verifier["passes"] = counters_.verify_passes.load();
    verifier["checked"] = counters_.verify_checked.load();
    verifier["verified"] = counters_.verify_verified.load();
    verifier["unverified"] = counters_.verify_unverified.load();
    verifier["unreachable"] = counters_.verify_unreachable.load();
    verifier["fundings_traced"] = counters_.fundings_traced.load();
    nlohmann::json trust = trust_state_.to_json();
    trust["full_passes"] = counters_.trust_full_passes.load();
    trust["incremental_passes"] = counters_.trust_incremental_passes.load();
    trust["last_full_at"] = counters_.trust_last_full_at.load();
    trust["covers_block_num"] = counters_.trust_covers_block.load();
    j["components"] = {{"indexer", indexer_state_.to_json()},
                       {"verifier", std::move(verifier)},
                       {"trust", std::move(trust)}};
    return j;
}

// ---- the threads --------------------------------------------------------------------------

ChainRunner::IndexerEnd ChainRunner::run_indexer(std::stop_source& term) {
    const std::stop_token stop = term.get_token();
    bool lost_writer = false;
    indexer_state_.set("running");
    const auto poll = std::chrono::milliseconds(chain_.poll_ms);
    // newHeads from chain.ws end the wait for the next block early; eth_getLogs stays the
    // source of truth (chain/log_wakeup.hpp).
    std::unique_ptr<chain::LogWakeup> wakeup;
    if (!chain_.ws.empty()) {
        chain::SubscribeConfig subscribe;
        subscribe.ws_url = chain_.ws;
        subscribe.on_info = [this](std::string_view line) { say(line); };
        wakeup = std::make_unique<chain::LogWakeup>(
            std::move(subscribe), chain::SubscriptionFilter::new_heads(), "new heads");
    }
    index::PollSleep sleep;
    if (wakeup) {
        sleep = [&wakeup](const std::stop_token& s, std::chrono::milliseconds pause) {
            return wakeup->sleep(s, pause);
        };
    }
    auto result = indexer_->run(
        stop, true, poll,
        [this, &term, &lost_writer](const index::StepReport& r) {
            // docs/scale.md §Failover: after every batch, is this connection still the writer?
            if (election_) {
                auto role = election_->poll();
                if (!role || *role != index::WriterRole::writer) {
                    lost_writer = true;
                    term.request_stop();
                    return;
                }
            }
            if (r.error) {
                // Retried with backoff (index/indexer.hpp); /healthz is degraded meanwhile.
                const bool rpc = r.error->kind == index::IndexErrorKind::rpc;
                if (!indexer_failing_.exchange(true)) say("indexer: " + r.error->message);
                rpc_failing_.store(rpc);
                indexer_state_.set("retrying", r.error->message);
                return;
            }
            if (indexer_failing_.exchange(false)) say("indexer: recovered");
            rpc_failing_.store(false);
            if (r.head != 0) {
                head_block_.store(r.head);
                indexed_block_.store(r.cursor);
                has_cursor_.store(true);
            }
            if (r.warnings.empty()) indexer_state_.recover("running");
            for (const auto& w : r.warnings) {
                say("indexer: " + w);
                indexer_state_.set("running", w);
            }
        },
        sleep);
    publish_metrics(nullptr);
    if (lost_writer) {
        indexer_state_.set("standby");
        return IndexerEnd::lost_writer;
    }
    if (!result) {
        indexer_state_.set("failed", result.error().message);
        end("indexer: " + result.error().message);
        return IndexerEnd::failed;
    }
    indexer_state_.set("stopped");
    return IndexerEnd::stopped;
}

void ChainRunner::run_verifier(const std::stop_token& stop) {
    const NodeConfig& config = *env_.config;
    auto db = index::open_database(env_.database_location);
    if (!db) {
        verifier_state_.set("failed", db.error().to_string());
        end("verifier: " + db.error().to_string());
        return;
    }
    if (auto cached = use_small_cache(**db); !cached) {
        // Only memory: the connection keeps the default cache.
        say(cached.error().to_string());
    }
    verify::FetcherConfig fetch;
    fetch.allow_http = config.fetch.allow_http;
    fetch.ca_file = config.fetch.ca_file;
    fetch.allow_hosts = config.fetch.allow_hosts;
    fetch.connect_to = config.fetch.connect_to;
    fetch.ipfs_gateways = config.fetch.ipfs_gateways;
    const auto fetcher = verify::make_curl_fetcher(std::move(fetch));
    auto rpc = chain::RpcClient::make_http(chain_.rpc);
    // ERC-8004 §Off-Chain Feedback File Structure: a proofOfPayment names its chain. The followed
    // chains' payments are checked over their own RPCs, others over [[payment_chains]]; a chain
    // with neither stays payment_chain_unavailable (a warning).
    std::map<uint64_t, std::unique_ptr<chain::RpcClient>> payment_rpcs;
    for (const auto& [id, url] : env_.followed_rpcs) {
        if (id != chain_id_)
            payment_rpcs[id] = std::make_unique<chain::RpcClient>(chain::RpcClient::make_http(url));
    }
    for (const auto& p : config.payment_chains) {
        if (p.chain_id != chain_id_ && !payment_rpcs.contains(p.chain_id))
            payment_rpcs[p.chain_id] =
                std::make_unique<chain::RpcClient>(chain::RpcClient::make_http(p.rpc));
    }
    verify::FeedbackVerifyOptions feedback_options;
    feedback_options.rpc_for_chain = [&rpc, &payment_rpcs,
                                      followed = chain_id_](uint64_t id) -> chain::RpcClient* {
        if (id == followed) return &rpc;
        const auto it = payment_rpcs.find(id);
        return it == payment_rpcs.end() ? nullptr : it->second.get();
    };
    const std::map<verify::SubjectKind, verify::BatchCheck> all{
        {verify::SubjectKind::agent,
         verify::make_agent_check(*fetcher, rpc, chain_id_, {}, db->get())},
        {verify::SubjectKind::tool, verify::make_tool_check(*fetcher, rpc)},
        {verify::SubjectKind::feedback,
         verify::make_feedback_check(*fetcher, rpc, std::move(feedback_options))},
        {verify::SubjectKind::validation, verify::make_validation_check(*fetcher, rpc)},
        {verify::SubjectKind::run, verify::make_run_check(**db, chain_id_)},
    };
    verifier_state_.set("running");
    while (!stop.stop_requested()) {
        // One batch per kind per call, so a stop request waits for one batch at most (its results
        // commit whole) rather than a whole pass.
        for (const auto& [kind, check] : all) {
            const std::map<verify::SubjectKind, verify::BatchCheck> one{{kind, check}};
            while (!stop.stop_requested()) {
                verify::ReverifyOptions options;
                options.now = unix_now();
                options.max_age = config.verify.max_age_seconds;
                options.batch_size = config.verify.batch;
                options.max_subjects = config.verify.batch;
                auto counts = verify::reverify_due(**db, chain_id_, one, options);
                if (!counts) {
                    verifier_state_.set("retrying", counts.error().to_string());
                    break;
                }
                counters_.verify_checked += counts->checked;
                counters_.verify_verified += counts->verified;
                counters_.verify_unverified += counts->unverified;
                counters_.verify_unreachable += counts->unreachable;
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
                if (auto traced = verify::trace_fundings(**db, rpc, chain_id_, funding); traced) {
                    counters_.fundings_traced += traced->traced;
                } else {
                    verifier_state_.set("retrying", traced.error().to_string());
                }
            }
        }
        ++counters_.verify_passes;
        // The next pass comes after interval_seconds, or as soon as the indexer has committed new
        // blocks: what they point to (new agents, feedback files, ...) is due at once, so a fresh
        // node verifies the history it just indexed without waiting out the interval.
        const uint64_t seen = indexed_block_.load();
        sleep_unless_stopped(stop, std::chrono::seconds(config.verify.interval_seconds),
                             [this, seen] { return indexed_block_.load() != seen; });
    }
    verifier_state_.set("stopped");
}

void ChainRunner::run_trust(const std::stop_token& stop) {
    const NodeConfig& config = *env_.config;
    const auto identity = first_of(sources_, index::ContractKind::identity_registry);
    const auto reputation = first_of(sources_, index::ContractKind::reputation_registry);
    const auto validation = first_of(sources_, index::ContractKind::validation_registry);
    if (!identity || !reputation) {
        trust_state_.set("disabled", "no identity and reputation registry to score");
        return;
    }
    auto db = index::open_database(env_.database_location);
    if (!db) {
        trust_state_.set("failed", db.error().to_string());
        end("trust: " + db.error().to_string());
        return;
    }
    if (auto cached = use_small_cache(**db); !cached) {
        // Only memory: the connection keeps the default cache.
        say(cached.error().to_string());
    }
    trust::TrustConfig tc;
    tc.half_life_seconds = static_cast<int64_t>(config.trust.half_life_days * 86'400);
    for (const auto& t : config.trust.trusted) {
        if (auto a = core::Address::from_hex(t)) tc.trusted.push_back(*a);
    }
    trust::ScoreUpdater updater(tc);
    trust::TrustSources ts;
    ts.chain_id = chain_id_;
    ts.identity_registry = *identity;
    ts.reputation_registry = *reputation;
    ts.validation_registry = validation.value_or(core::Address{});
    ts.seconds_per_block = chain_.seconds_per_block.value_or(env_.embedded_devnet ? 1.0 : 12.0);
    const auto full_every = std::chrono::seconds(config.trust.full_interval_seconds);
    std::optional<Clock::time_point> last_full;
    uint64_t fundings_at_full = 0;
    trust_state_.set("waiting for the indexer");
    while (!stop.stop_requested()) {
        if (has_cursor_.load()) {
            ts.head_block_num = indexed_block_.load();
            ts.now = unix_now();
            // New fundings change the funding clusters, which only a full pass computes
            // (trust/funding_clusters.hpp): they arrive once per verifier pass at most.
            const uint64_t fundings = counters_.fundings_traced.load();
            const bool full = !last_full || Clock::now() - *last_full >= full_every ||
                              fundings != fundings_at_full;
            // Every interval: an incremental pass reads only what changed (the new blocks'
            // entities, and the verifier's checks, which arrive without new blocks), and is a full
            // pass itself after an index rollback.
            auto pass = full ? updater.full_pass(**db, ts) : updater.incremental_pass(**db, ts);
            if (!pass) {
                ++counters_.trust_errors;
                trust_state_.set("retrying", pass.error().to_string());
            } else {
                trust_state_.set("running");
                counters_.trust_agents_scored += pass->agents_scored;
                counters_.trust_covers_block.store(pass->covers_block_num);
                if (pass->full) {
                    fundings_at_full = fundings;
                    ++counters_.trust_full_passes;
                    counters_.trust_last_full_at.store(ts.now);
                    last_full = Clock::now();
                } else {
                    ++counters_.trust_incremental_passes;
                }
            }
        }
        sleep_unless_stopped(stop, std::chrono::milliseconds(config.trust.incremental_interval_ms));
    }
    trust_state_.set("stopped");
}

}  // namespace credence::node
