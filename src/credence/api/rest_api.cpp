// RestApi: the route table, the connection pool, metrics and the error boundary. The handlers
// live in rest_agents.cpp and rest_catalog.cpp; shapes are documented in docs/api.md.
#include <credence/api/rest_api.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include <credence/api/detail/json_body.hpp>
#include <credence/api/detail/rest_common.hpp>
#include <credence/core/caip.hpp>

namespace credence::api {

namespace {

using detail::ApiError;
using detail::ApiResult;
using detail::Ctx;
using detail::Json;

enum class RouteKind { plain, with_node_status };

/// How a route picks its chains (docs/api.md §Chains).
enum class Chains : uint8_t {
    fixed,    ///< the default chain (status, home)
    filter,   ///< a list: `?chain=` narrows it, else every followed chain
    entity,   ///< an entity of the default chain
    in_path,  ///< an entity of the chain named by the first capture (/api/v1/chains/{}/...)
};

struct Route {
    std::string_view pattern;  ///< "/api/v1/agents/{}" ({} captures one segment)
    std::string_view name;     ///< the metrics label: the pattern with named placeholders
    ApiResult<Json> (*handler)(Ctx&) = nullptr;
    ApiResult<Json> (*status_handler)(Ctx&, const Json&) = nullptr;
    /// Takes `?revision=`: answers from an earlier ERC-8004 revision's registries.
    bool by_revision = false;
    Chains chains = Chains::fixed;
    /// An agent route: takes `?registry=<agentRegistry>` (ERC-8004 §Identity Registry) in place
    /// of a chain in the path.
    bool by_agent_registry = false;
};

/// An agent route of the default chain (`?registry=` may name another).
constexpr Route agent_route(std::string_view pattern, std::string_view name,
                            ApiResult<Json> (*handler)(Ctx&)) {
    return Route{pattern, name, handler, nullptr, true, Chains::entity, true};
}

/// The same agent route on the chain named in the path.
constexpr Route chain_agent_route(std::string_view pattern, std::string_view name,
                                  ApiResult<Json> (*handler)(Ctx&)) {
    return Route{pattern, name, handler, nullptr, true, Chains::in_path, false};
}

constexpr std::array kRoutes{
    Route{"/api/v1/status", "/api/v1/status", nullptr, &detail::chain_status},
    Route{"/api/v1/home", "/api/v1/home", nullptr, &detail::home},
    Route{"/api/v1/chains/{}/status", "/api/v1/chains/{chain_id}/status", nullptr,
          &detail::chain_status, false, Chains::in_path},
    Route{"/api/v1/chains/{}/home", "/api/v1/chains/{chain_id}/home", nullptr, &detail::home, false,
          Chains::in_path},
    Route{"/api/v1/agents", "/api/v1/agents", &detail::list_agents, nullptr, true, Chains::filter},
    agent_route("/api/v1/agents/{}", "/api/v1/agents/{agent_id}", &detail::get_agent),
    agent_route("/api/v1/agents/{}/feedback", "/api/v1/agents/{agent_id}/feedback",
                &detail::list_feedback),
    agent_route("/api/v1/agents/{}/reputation", "/api/v1/agents/{agent_id}/reputation",
                &detail::get_reputation),
    agent_route("/api/v1/agents/{}/reputation/history",
                "/api/v1/agents/{agent_id}/reputation/history", &detail::get_reputation_history),
    agent_route("/api/v1/agents/{}/validations", "/api/v1/agents/{agent_id}/validations",
                &detail::list_validations),
    chain_agent_route("/api/v1/chains/{}/agents/{}", "/api/v1/chains/{chain_id}/agents/{agent_id}",
                      &detail::get_agent),
    chain_agent_route("/api/v1/chains/{}/agents/{}/feedback",
                      "/api/v1/chains/{chain_id}/agents/{agent_id}/feedback",
                      &detail::list_feedback),
    chain_agent_route("/api/v1/chains/{}/agents/{}/reputation",
                      "/api/v1/chains/{chain_id}/agents/{agent_id}/reputation",
                      &detail::get_reputation),
    chain_agent_route("/api/v1/chains/{}/agents/{}/reputation/history",
                      "/api/v1/chains/{chain_id}/agents/{agent_id}/reputation/history",
                      &detail::get_reputation_history),
    chain_agent_route("/api/v1/chains/{}/agents/{}/validations",
                      "/api/v1/chains/{chain_id}/agents/{agent_id}/validations",
                      &detail::list_validations),
    Route{"/api/v1/tools", "/api/v1/tools", &detail::list_tools, nullptr, false, Chains::filter},
    Route{"/api/v1/tools/{}", "/api/v1/tools/{tool_id}", &detail::get_tool, nullptr, false,
          Chains::entity},
    Route{"/api/v1/chains/{}/tools/{}", "/api/v1/chains/{chain_id}/tools/{tool_id}",
          &detail::get_tool, nullptr, false, Chains::in_path},
    Route{"/api/v1/runs", "/api/v1/runs", &detail::list_runs, nullptr, false, Chains::filter},
    Route{"/api/v1/runs/{}", "/api/v1/runs/{run_id}", &detail::get_run, nullptr, false,
          Chains::entity},
    Route{"/api/v1/chains/{}/runs/{}", "/api/v1/chains/{chain_id}/runs/{run_id}", &detail::get_run,
          nullptr, false, Chains::in_path},
    Route{"/api/v1/resolve/address/{}", "/api/v1/resolve/address/{address}",
          &detail::resolve_address, nullptr, true, Chains::filter},
    Route{"/api/v1/resolve/domain/{}", "/api/v1/resolve/domain/{domain}", &detail::resolve_domain,
          nullptr, true, Chains::filter},
};

std::vector<std::string_view> split_path(std::string_view path) {
    std::vector<std::string_view> out;
    size_t start = 1;
    while (start <= path.size()) {
        const size_t slash = path.find('/', start);
        const size_t end = slash == std::string_view::npos ? path.size() : slash;
        out.push_back(path.substr(start, end - start));
        if (slash == std::string_view::npos) break;
        start = slash + 1;
    }
    return out;
}

/// The route matching `path`, with its captures; nullptr when none.
const Route* match(std::string_view path, std::vector<std::string>& captures) {
    if (path.empty() || path.front() != '/') return nullptr;
    const auto segments = split_path(path);
    for (const Route& route : kRoutes) {
        const auto pattern = split_path(route.pattern);
        if (pattern.size() != segments.size()) continue;
        captures.clear();
        bool ok = true;
        for (size_t i = 0; i < pattern.size() && ok; ++i) {
            if (pattern[i] == "{}") {
                ok = !segments[i].empty();
                captures.emplace_back(segments[i]);
            } else {
                ok = pattern[i] == segments[i];
            }
        }
        if (ok) return &route;
    }
    return nullptr;
}

HttpResponse error_response(const ApiError& error) {
    HttpResponse response;
    response.status = error.status;
    response.body = detail::dump_replacing(Json{{"error", error.message}, {"code", error.code}});
    return response;
}

/// Latency summary over a window of recent requests, and request counts by route and status.
class Metrics {
public:
    void record(std::string_view route, int status, double seconds) {
        const std::lock_guard lock(mutex_);
        ++counts_[{std::string(route), status}];
        window_[next_ % window_.size()] = seconds;
        ++next_;
        sum_ += seconds;
        ++count_;
    }

    [[nodiscard]] std::string text() const {
        std::string out;
        const std::lock_guard lock(mutex_);
        out += "# HELP credence_http_requests_total HTTP requests by route and status.\n";
        out += "# TYPE credence_http_requests_total counter\n";
        for (const auto& [key, value] : counts_) {
            out += fmt::format("credence_http_requests_total{{route=\"{}\",status=\"{}\"}} {}\n",
                               key.first, key.second, value);
        }
        out += "# HELP credence_http_request_duration_seconds Request latency (recent window).\n";
        out += "# TYPE credence_http_request_duration_seconds summary\n";
        const size_t filled = std::min<size_t>(next_, window_.size());
        std::vector<double> sorted(window_.begin(),
                                   window_.begin() + static_cast<std::ptrdiff_t>(filled));
        std::ranges::sort(sorted);
        for (const double q : {0.5, 0.9, 0.99}) {
            double value = 0;
            if (!sorted.empty()) {
                const auto rank = static_cast<size_t>(q * static_cast<double>(sorted.size() - 1));
                value = sorted[rank];
            }
            out += fmt::format("credence_http_request_duration_seconds{{quantile=\"{}\"}} {:.6f}\n",
                               q, value);
        }
        out += fmt::format("credence_http_request_duration_seconds_sum {:.6f}\n", sum_);
        out += fmt::format("credence_http_request_duration_seconds_count {}\n", count_);
        return out;
    }

private:
    mutable std::mutex mutex_;
    std::map<std::pair<std::string, int>, uint64_t> counts_;
    std::array<double, 4096> window_{};
    uint64_t next_ = 0;
    double sum_ = 0;
    uint64_t count_ = 0;
};

}  // namespace

struct RestApi::Impl {
    RestApiOptions options;
    Metrics metrics;
    /// Set by the first query that finds the index damaged; never cleared (rest_api.hpp).
    std::atomic<bool> corrupt{false};

    void say(std::string_view line) const {
        if (options.log) options.log(line);
    }

    /// The answer for `error`; its detail goes to the log, and a damaged index is remembered.
    HttpResponse fail(const ApiError& error, std::string_view route_name) {
        if (error.corrupt && !corrupt.exchange(true)) {
            say(
                fmt::format("credence node: the index is damaged ({}); every data route answers "
                            "503 until the node restarts on a repaired index (docs/node.md "
                            "§Integrity)",
                            error.detail));
        } else if (!error.detail.empty()) {
            say(fmt::format("credence node: {} answered {}: {}", route_name, error.status,
                            error.detail));
        }
        return error_response(error);
    }

    static HttpResponse corrupt_response() {
        return error_response(
            ApiError{503, "index_corrupt",
                     "the index is damaged: the node must be restarted on a repaired index"});
    }
    std::mutex pool_mutex;
    std::condition_variable pool_freed;
    std::vector<std::unique_ptr<index::Database>> pool;
    size_t leased = 0;  ///< connections handed out (open or being opened), under pool_mutex
    std::optional<index::Dialect> dialect;  ///< of the first connection opened, under pool_mutex

    /// options.max_connections, or by backend (rest_api.hpp); 1 until a connection says which.
    size_t cap() const {
        if (options.max_connections != 0) return options.max_connections;
        if (!dialect) return 1;
        return *dialect == index::Dialect::sqlite ? 2 : 8;
    }

    /// A connection from the pool: an idle one, else a new one while fewer than cap() are out,
    /// else the next one released (at most
    /// options.connection_wait; then a 503, like any database failure). Every successful or
    /// failed acquire() is paired with one release() (nullptr for a lost or unopened connection).
    index::DbResult<std::unique_ptr<index::Database>> acquire() {
        {
            std::unique_lock lock(pool_mutex);
            if (!pool_freed.wait_for(lock, options.connection_wait,
                                     [&] { return !pool.empty() || leased < cap(); })) {
                return std::unexpected(
                    index::DbError{index::DbErrorKind::connection, "all connections busy"});
            }
            ++leased;
            if (!pool.empty()) {
                auto db = std::move(pool.back());
                pool.pop_back();
                return db;
            }
        }
        auto opened =
            options.open_database
                ? options.open_database()
                : std::unexpected(index::DbError{index::DbErrorKind::open, "no database"});
        if (opened) {
            if (auto tuned = tune(**opened); !tuned) opened = std::unexpected(tuned.error());
        }
        if (!opened) {
            release(nullptr);
        } else if (options.max_connections == 0) {
            {
                const std::lock_guard lock(pool_mutex);
                dialect = (*opened)->dialect();
            }
            pool_freed.notify_all();  // the cap is known now
        }
        return opened;
    }

    /// The API's SQLite connections only read: map the file instead of copying every page into a
    /// private cache. With 32 KiB pages and a random agent per request, the private 64 MiB caches
    /// missed on most B-tree pages and half the server's CPU went to pread() copies (perf,
    /// docs/benchmarks.md §REST API under wrk). A mapped page is shared with the OS page cache
    /// and with the other connections; the small private cache then only holds page headers.
    index::DbResult<void> tune(index::Database& db) const {
        if (db.dialect() != index::Dialect::sqlite || options.sqlite_mmap_bytes == 0) return {};
        return db.exec_script(fmt::format("PRAGMA mmap_size={}; PRAGMA cache_size=-{}",
                                          options.sqlite_mmap_bytes, options.sqlite_cache_kib));
    }

    void release(std::unique_ptr<index::Database> db) {
        if (db && db->in_transaction()) {
            // Handlers only read; a failed rollback leaves no transaction open (database.hpp).
            index::ignore_failure(db->rollback());
        }
        {
            const std::lock_guard lock(pool_mutex);
            --leased;
            if (db) pool.push_back(std::move(db));
        }
        pool_freed.notify_one();
    }

    /// Returns a leased connection to the pool when it goes out of scope, also when a handler
    /// throws (a null one counts as lost: the next acquire() may open a new one).
    struct Returner {
        Impl& impl;
        std::unique_ptr<index::Database>& db;
        Returner(Impl& i, std::unique_ptr<index::Database>& d) : impl(i), db(d) {}
        Returner(const Returner&) = delete;
        Returner& operator=(const Returner&) = delete;
        // release() ends the read snapshot.
        ~Returner() { impl.release(std::move(db)); }
        /// One read snapshot per answer (Database::begin_read), so that every query of an answer
        /// sees the same index state while the indexer commits; on SQLite the file's shared lock
        /// and WAL snapshot are also taken once instead of once per statement.
        [[nodiscard]] index::DbResult<void> begin_snapshot() { return db->begin_read(); }
    };

    Json node_status() const {
        if (!options.node_status) return nullptr;
        try {
            return Json::parse(options.node_status().dump());
        } catch (const std::exception&) {
            return nullptr;
        }
    }

    /// docs/node.md §Health: 200 ok; `degraded_status` (503 by default) while degraded; 503 when
    /// the database fails or the index is damaged.
    HttpResponse healthz() {
        Json body;
        int status = 200;
        const auto database_down = [&](const index::DbError& error) {
            status = 503;
            const bool damaged = error.kind == index::DbErrorKind::corrupt;
            if (damaged) corrupt.store(true);
            body = Json{{"status", damaged ? "corrupt" : "unavailable"},
                        {"database", damaged ? "corrupt" : "unavailable"},
                        {"error", damaged ? "the index is damaged" : "database unavailable"},
                        {"code", damaged ? "index_corrupt" : "unavailable"}};
            say(fmt::format("credence node: /healthz: {}", error.to_string()));
        };
        if (corrupt.load()) {
            status = 503;
            body = Json{{"status", "corrupt"},
                        {"database", "corrupt"},
                        {"error", "the index is damaged"},
                        {"code", "index_corrupt"}};
        } else if (auto db = acquire(); !db) {
            database_down(db.error());
        } else {
            const Returner returner(*this, *db);
            auto probe = (*db)->query("SELECT 1");
            if (probe) {
                body = Json{{"status", "ok"}, {"database", "ok"}};
            } else {
                database_down(probe.error());
                if (probe.error().kind == index::DbErrorKind::connection) (*db).reset();
            }
        }
        if (status == 200 && options.node_health) {
            NodeHealth health = options.node_health();
            if (health.degraded) {
                status = options.degraded_status;
                body["status"] = "degraded";
                body["reasons"] = health.reasons;
            }
        }
        Json node = node_status();
        if (!node.is_null()) body["node"] = std::move(node);
        return {status, "application/json", detail::dump_replacing(body), {}};
    }

    /// The followed chains: options.chains, else the one scope (rest_api.hpp).
    std::vector<ApiScope> chains;

    const ApiScope* followed(uint64_t chain_id) const {
        const auto it = std::ranges::find(chains, chain_id, &ApiScope::chain_id);
        return it == chains.end() ? nullptr : &*it;
    }

    /// `base` answering from `revision`'s registries (ERC-8004 revisions, docs/compatibility.md
    /// §Earlier ERC-8004 revisions): its registries in place of the current ones.
    static ApiResult<ApiScope> scope_of_revision(const ApiScope& base,
                                                 core::Erc8004Revision revision) {
        ApiScope scope = base;
        if (revision == core::Erc8004Revision::current) return scope;
        const std::optional<Erc8004Registries>& set =
            revision == core::Erc8004Revision::score ? base.score : base.draft;
        if (!set) {
            return std::unexpected(detail::not_found(
                fmt::format("this node follows no registries of the {} revision on chain {}",
                            core::to_string(revision), base.chain_id)));
        }
        scope.revision = revision;
        scope.current = Erc8004Registries{base.identity_registry, base.reputation_registry,
                                          base.validation_registry};
        scope.identity_registry = set->identity;
        scope.reputation_registry = set->reputation;
        scope.validation_registry = set->validation;
        return scope;
    }

    /// Every value of `?chain=` (repeated and/or comma-separated) as followed chains, in the
    /// order given, without repeats; empty when absent.
    ApiResult<std::vector<const ApiScope*>> chain_filter(const HttpRequest& request) const {
        std::vector<const ApiScope*> out;
        size_t values = 0;
        for (const auto& [key, value] : request.query) {
            if (key != "chain") continue;
            for (size_t start = 0; start <= value.size();) {
                const size_t comma = std::min(value.find(',', start), value.size());
                auto id =
                    detail::parse_chain_id(std::string_view(value).substr(start, comma - start));
                if (!id) return std::unexpected(id.error());
                // A node follows a handful of chains: a longer list is a mistake or an attack.
                if (++values > 64) {
                    return std::unexpected(detail::bad_parameter("chain lists at most 64 chains"));
                }
                const ApiScope* scope = followed(*id);
                if (scope == nullptr) return std::unexpected(detail::unknown_chain(*id));
                if (std::ranges::find(out, scope) == out.end()) out.push_back(scope);
                start = comma + 1;
            }
        }
        return out;
    }

    /// The scopes `route` answers from (docs/api.md §Chains): the chain in the path, the chain of
    /// `?registry=`, the `?chain=` list or every followed chain for a list, else the default
    /// chain; each with `?revision=` applied. The front one is the route's scope. Consumes the
    /// chain capture.
    ApiResult<std::vector<ApiScope>> scopes_for(const Route& route, const HttpRequest& request,
                                                std::vector<std::string>& captures) const {
        std::optional<core::Erc8004Revision> revision;
        if (const std::string* text = request.param("revision");
            route.by_revision && text != nullptr) {
            revision = core::parse_erc8004_revision(*text);
            if (!revision) {
                return std::unexpected(
                    detail::bad_parameter("revision must be current, score or draft"));
            }
        }
        std::vector<const ApiScope*> bases{&chains.front()};
        bool chosen = false;  // named by the request, not "every chain"
        if (route.chains == Chains::in_path) {
            auto id = detail::parse_chain_id(captures.front());
            if (!id) return std::unexpected(id.error());
            bases = {followed(*id)};
            if (bases.front() == nullptr) return std::unexpected(detail::unknown_chain(*id));
            captures.erase(captures.begin());
            chosen = true;
        } else if (route.chains == Chains::filter) {
            auto filter = chain_filter(request);
            if (!filter) return std::unexpected(filter.error());
            chosen = !filter->empty();
            if (chosen) {
                bases = std::move(*filter);
            } else {
                bases.clear();
                for (const ApiScope& scope : chains) bases.push_back(&scope);
            }
        }
        if (const std::string* text = request.param("registry");
            route.by_agent_registry && text != nullptr) {
            // ERC-8004 §Identity Registry: agentRegistry names the chain and the identity
            // registry, and so the revision whose registries answer.
            const auto registry = core::parse_agent_registry(*text);
            if (!registry) {
                return std::unexpected(detail::bad_parameter(
                    "registry must be an agentRegistry: eip155:<chainId>:<identityRegistry>"));
            }
            const ApiScope* scope = followed(registry->chain_id);
            if (scope == nullptr) return std::unexpected(detail::unknown_chain(registry->chain_id));
            const core::Address identity{registry->identity_registry};
            std::optional<core::Erc8004Revision> named;
            if (scope->identity_registry == identity) {
                named = core::Erc8004Revision::current;
            } else if (scope->score && scope->score->identity == identity) {
                named = core::Erc8004Revision::score;
            } else if (scope->draft && scope->draft->identity == identity) {
                named = core::Erc8004Revision::draft;
            }
            if (!named) {
                return std::unexpected(detail::not_found(
                    fmt::format("this node follows no identity registry {}", *text)));
            }
            if (revision && *revision != *named) {
                return std::unexpected(detail::bad_parameter(
                    fmt::format("registry is the {} revision's identity registry, revision says {}",
                                core::to_string(*named), core::to_string(*revision))));
            }
            revision = named;
            bases = {scope};
        }
        const core::Erc8004Revision wanted = revision.value_or(core::Erc8004Revision::current);
        std::vector<ApiScope> out;
        for (const ApiScope* base : bases) {
            auto scope = scope_of_revision(*base, wanted);
            if (scope) {
                out.push_back(std::move(*scope));
            } else if (chosen || bases.size() == 1) {
                return std::unexpected(scope.error());
            }
        }
        // Every followed chain, none of which follows that revision.
        if (out.empty()) return std::unexpected(scope_of_revision(*bases.front(), wanted).error());
        return out;
    }

    HttpResponse route(const HttpRequest& request, std::string& route_name) {
        if (request.path == "/healthz") {
            route_name = "/healthz";
            return healthz();
        }
        if (request.path == "/metrics") {
            route_name = "/metrics";
            std::string text = metrics.text();
            if (options.node_metrics) {
                try {
                    text += options.node_metrics();
                } catch (const std::exception& e) {
                    // A failing metrics source must not hide the HTTP metrics.
                    text += "# node metrics unavailable\n";
                    say(fmt::format("credence node: /metrics: {}", e.what()));
                }
            }
            return {200, "text/plain; version=0.0.4", std::move(text), {}};
        }
        if (request.path == "/openapi.json") {
            route_name = "/openapi.json";
            return {
                200, "application/json", detail::dump_replacing(detail::openapi_document()), {}};
        }
        if (options.operations_only && request.path != "/api/v1/status") {
            route_name = "other";
            return error_response(ApiError{404,
                                           "not_served",
                                           "this node is a writer: it serves /healthz, /metrics "
                                           "and /api/v1/status; ask an API "
                                           "node",
                                           {}});
        }
        std::vector<std::string> captures;
        const Route* found = match(request.path, captures);
        if (found == nullptr) {
            route_name = "other";
            return error_response(detail::not_found("no such route"));
        }
        route_name = found->name;
        if (corrupt.load()) return corrupt_response();
        ApiResult<Json> result;
        {
            auto db = acquire();
            if (!db) return fail(detail::unavailable(db.error()), route_name);
            Returner returner(*this, *db);
            if (auto begun = returner.begin_snapshot(); !begun) {
                (*db).reset();
                return fail(detail::unavailable(begun.error()), route_name);
            }
            // The chain and revision parameters choose the scopes (scopes_for); the handlers'
            // parameter checks never see them.
            auto scopes = scopes_for(*found, request, captures);
            if (!scopes) return fail(scopes.error(), route_name);
            std::optional<HttpRequest> stripped;
            const auto consumed = [&](std::string_view name) {
                return name == "revision" ? found->by_revision
                       : name == "chain"  ? found->chains == Chains::filter
                                          : name == "registry" && found->by_agent_registry;
            };
            if (std::ranges::any_of(request.query,
                                    [&](const auto& q) { return consumed(q.first); })) {
                stripped = request;
                std::erase_if(stripped->query, [&](const auto& q) { return consumed(q.first); });
            }
            // The list routes span their scopes; the others see every followed chain.
            const std::span<const ApiScope> spanned = found->chains == Chains::filter
                                                          ? std::span<const ApiScope>(*scopes)
                                                          : std::span<const ApiScope>(chains);
            Ctx ctx{scopes->front(), **db, stripped ? *stripped : request, std::move(captures),
                    spanned};
            result = found->handler != nullptr ? found->handler(ctx)
                                               : found->status_handler(ctx, node_status());
            // A lost connection is not returned to the pool; the next request opens a new one.
            if (!result && result.error().status == 503) (*db).reset();
        }
        if (!result) {
            if (result.error().corrupt || corrupt.load()) {
                (void)fail(result.error(), route_name);
                return corrupt_response();
            }
            return fail(result.error(), route_name);
        }
        // A query of another request may have found the index damaged while this one ran.
        if (corrupt.load()) return corrupt_response();
        return {200, "application/json", detail::dump_replacing(*result), {}};
    }
};

RestApi::RestApi(RestApiOptions options) : impl_(std::make_unique<Impl>()) {
    impl_->options = std::move(options);
    impl_->chains = impl_->options.chains;
    if (impl_->chains.empty()) impl_->chains.push_back(impl_->options.scope);
}

RestApi::~RestApi() = default;

void RestApi::mark_index_damaged(std::string_view detail) {
    ApiError error{503, "index_corrupt", "the index is damaged", std::string(detail), true};
    (void)impl_->fail(error, "integrity check");
}

HttpResponse RestApi::handle(const HttpRequest& request) {
    const auto start = std::chrono::steady_clock::now();
    std::string route_name = "other";
    HttpResponse response;
    try {
        if (request.method != "GET" && request.method != "HEAD") {
            response = error_response(
                ApiError{405, "method_not_allowed", "the method is not allowed: use GET or HEAD"});
            response.headers.emplace_back("Allow", "GET, HEAD");
        } else {
            response = impl_->route(request, route_name);
        }
    } catch (const std::exception& e) {
        // Nothing escapes a handler; an unexpected throw is reported as unavailable, its text
        // logged, never sent.
        response =
            impl_->fail(ApiError{503, "unavailable", "internal failure", e.what()}, route_name);
    }
    if (request.method == "HEAD") response.body.clear();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    impl_->metrics.record(route_name, response.status, seconds);
    return response;
}

}  // namespace credence::api
