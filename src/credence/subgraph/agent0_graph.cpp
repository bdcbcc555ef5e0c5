#include <credence/subgraph/agent0_graph.hpp>

#include <array>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include <credence/index/row.hpp>
#include <credence/subgraph/agent0_schema.hpp>

namespace credence::subgraph {
namespace {

// What a new snapshot would differ by: the cursor, and how many checks there are and when the
// last ran.
using Generation = std::tuple<int64_t, int64_t, int64_t>;

index::DbResult<Generation> generation_of(index::Database& db, uint64_t chain_id) {
    const std::array<index::DbValue, 1> p{index::int_value(chain_id)};
    auto rows = db.query(
        "SELECT (SELECT block_num FROM cursors WHERE chain_id = $1), (SELECT COUNT(*) FROM "
        "verifications WHERE chain_id = $1), (SELECT MAX(checked_at) FROM verifications WHERE "
        "chain_id = $1)",
        p);
    if (!rows) return std::unexpected(rows.error());
    if (rows->empty()) return Generation{};
    const auto at = [&](size_t i) {
        const int64_t* v = index::int_at(rows->front(), i);
        return v == nullptr ? int64_t{-1} : *v;
    };
    return Generation{at(0), at(1), at(2)};
}

}  // namespace

struct Agent0Graph::Impl {
    explicit Impl(Agent0GraphOptions o) : options(std::move(o)) {}

    Agent0GraphOptions options;

    std::mutex db_mutex;  // the connection: one builder or checker at a time
    std::unique_ptr<index::Database> db;

    std::mutex snapshot_mutex;
    std::shared_ptr<const ServedSnapshot> snapshot;
    Generation served{};

    std::mutex wake_mutex;
    std::condition_variable wake;
    bool rebuild_wanted = false;
    bool stopping = false;
    std::atomic<int64_t> next_check_ms{0};
    std::thread refresher;

    void say(std::string_view line) const {
        if (options.log) options.log(line);
    }

    index::DbResult<index::Database*> connection() {
        if (!db) {
            auto opened = options.open_database();
            if (!opened) return std::unexpected(opened.error());
            db = std::move(*opened);
        }
        return db.get();
    }

    // Builds a snapshot of the index as it is now.
    index::DbResult<std::pair<std::shared_ptr<const ServedSnapshot>, Generation>> build() {
        std::lock_guard lock(db_mutex);
        auto conn = connection();
        if (!conn) return std::unexpected(conn.error());
        auto gen = generation_of(**conn, options.sources.chain_id);
        if (!gen) {
            db.reset();  // a connection that failed may be broken: open a new one next time
            return std::unexpected(gen.error());
        }
        auto snap = load_snapshot(**conn, options.sources);
        if (!snap) {
            db.reset();
            return std::unexpected(snap.error());
        }
        return std::pair{std::make_shared<const ServedSnapshot>(std::move(*snap)), *gen};
    }

    void install(std::shared_ptr<const ServedSnapshot> s, Generation g) {
        std::lock_guard lock(snapshot_mutex);
        snapshot = std::move(s);
        served = g;
    }

    // At most every check_every: asks the refresher for a new snapshot when the index changed.
    void maybe_check() {
        const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                std::chrono::steady_clock::now().time_since_epoch())
                                .count();
        int64_t due = next_check_ms.load();
        if (now_ms < due ||
            !next_check_ms.compare_exchange_strong(due, now_ms + options.check_every.count()))
            return;
        std::lock_guard lock(wake_mutex);
        rebuild_wanted = true;
        wake.notify_one();
    }

    void refresh_loop() {
        for (;;) {
            {
                std::unique_lock lock(wake_mutex);
                wake.wait(lock, [&] { return rebuild_wanted || stopping; });
                if (stopping) return;
                rebuild_wanted = false;
            }
            Generation now{};
            {
                std::lock_guard lock(db_mutex);
                auto conn = connection();
                if (!conn) {
                    say(fmt::format("subgraph: {}", conn.error().to_string()));
                    continue;
                }
                auto gen = generation_of(**conn, options.sources.chain_id);
                if (!gen) {
                    db.reset();
                    say(fmt::format("subgraph: {}", gen.error().to_string()));
                    continue;
                }
                now = *gen;
            }
            {
                std::lock_guard lock(snapshot_mutex);
                if (snapshot && served == now) continue;
            }
            auto built = build();
            if (!built) {
                say(fmt::format("subgraph: rebuilding the snapshot: {}",
                                built.error().to_string()));
                continue;
            }
            install(std::move(built->first), built->second);
        }
    }
};

Agent0Graph::Agent0Graph(Agent0GraphOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {
    impl_->refresher = std::thread([this] { impl_->refresh_loop(); });
}

Agent0Graph::~Agent0Graph() {
    {
        std::lock_guard lock(impl_->wake_mutex);
        impl_->stopping = true;
        impl_->wake.notify_one();
    }
    impl_->refresher.join();
}

const graphql::Limits& Agent0Graph::limits() const noexcept { return impl_->options.limits; }

index::DbResult<std::shared_ptr<const ServedSnapshot>> Agent0Graph::current() {
    {
        std::lock_guard lock(impl_->snapshot_mutex);
        if (impl_->snapshot) {
            auto s = impl_->snapshot;
            impl_->maybe_check();
            return s;
        }
    }
    auto built = impl_->build();
    if (!built) return std::unexpected(built.error());
    impl_->install(built->first, built->second);
    return built->first;
}

nlohmann::ordered_json Agent0Graph::execute(const graphql::Request& request) {
    auto snapshot = current();
    if (!snapshot) {
        impl_->say(fmt::format("subgraph: {}", snapshot.error().to_string()));
        graphql::GraphqlError e;
        e.kind = graphql::ErrorKind::data_source;
        e.message = "the index is unavailable";
        nlohmann::ordered_json out = graphql::error_response({e});
        out["data"] = nullptr;
        return out;
    }
    SnapshotSource source(*snapshot);
    return graphql::execute(agent0_schema(), source, request, impl_->options.limits);
}

}  // namespace credence::subgraph
