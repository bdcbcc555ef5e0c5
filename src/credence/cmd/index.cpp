// `credence index`: follow every registry of one chain into SQLite (default) or PostgreSQL
// (docs/cli.md §index); `credence index status`: cursors, lag and row counts.
//
//   credence index [--rpc URL] [--chain-id N] [--deployment FILE] [--database PATH|URL]
//                  [--registry KIND=ADDRESS[@START]]... [--start-block N] [--finality-depth N]
//                  [--max-range N] [--once] [--metrics-port N] [--json]
//                  [--no-bulk-load] [--bulk-min-logs N] [--batch-logs N] [--in-flight N]
//   credence index status [--rpc URL] [--chain-id N] [--database PATH|URL] [--json]
//
// Sources: --registry flags when given; otherwise every Credence contract of the deployment file
// (the running devnet's, or --deployment) plus the deployed ERC-8004 registries of the chain's
// class (mainnet or testnet). The database defaults to $CREDENCE_DATABASE, else
// $CREDENCE_HOME/index.sqlite (one file for every chain; rows carry their chain id).
//
// Output: on a terminal, one live progress line (block, events/s, ETA) on stderr; otherwise one
// structured log line per batch (logfmt on stderr, or JSON lines on stdout with --json). The last
// line is a summary. SIGINT / SIGTERM stop after the batch in flight commits: nothing is lost.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <fmt/core.h>
#include <httplib.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <credence/cmd/args.hpp>
#include <credence/cmd/chain_context.hpp>
#include <credence/cmd/commands.hpp>
#include <credence/cmd/index_database.hpp>
#include <credence/cmd/util.hpp>
#include <credence/index/indexer.hpp>

namespace credence::cmd {
namespace {

using Clock = std::chrono::steady_clock;

struct IndexOptions {
    ChainOptions chain;
    std::string database;
    std::vector<std::string> registries;
    std::optional<uint64_t> start_block;
    std::optional<uint64_t> finality_depth;
    std::optional<uint64_t> max_range;
    bool once = false;
    bool no_bulk_load = false;
    std::optional<uint64_t> bulk_min_logs;
    std::optional<uint64_t> batch_logs;
    std::optional<unsigned> in_flight;
    std::optional<uint16_t> metrics_port;
};

// "reputation=0xABC…@123" (docs/architecture.md §index/: registry addresses from config, a start
// block each).
index::RegistrySource parse_registry(const std::string& text) {
    auto [kind_text, rest] = split_key_value("--registry", text);
    auto kind = index::parse_contract_kind(kind_text);
    if (!kind) {
        throw CliError(fmt::format(
            "--registry: unknown kind '{}' (identity, reputation, validation, tool, workflow, "
            "verifier)",
            kind_text));
    }
    index::RegistrySource src;
    src.kind = *kind;
    const auto at = rest.find('@');
    src.address = parse_address_arg("--registry", rest.substr(0, at));
    if (at != std::string::npos) src.start_block = parse_u64_arg("--registry", rest.substr(at + 1));
    src.name = std::string(index::to_string(*kind));
    return src;
}

std::vector<index::RegistrySource> resolve_sources(const IndexOptions& o, ChainContext& ctx) {
    std::vector<index::RegistrySource> sources;
    sources.reserve(o.registries.size());
    for (const auto& r : o.registries) sources.push_back(parse_registry(r));
    if (const auto twice = index::repeated_address(sources)) {
        throw CliError(fmt::format(
            "--registry {} and --registry {} name one contract as one kind twice: give it once",
            o.registries[twice->first], o.registries[twice->second]));
    }
    if (sources.empty()) {
        sources = index::default_sources(ctx.deployment(false), ctx.chain_id());
        if (o.start_block) {
            for (auto& s : sources) s.start_block = *o.start_block;
        }
    }
    if (sources.empty()) {
        throw CliError(fmt::format(
            "nothing to index on chain {}: no deployment file and no known ERC-8004 registries; "
            "pass --registry KIND=ADDRESS",
            ctx.chain_id()));
    }
    return sources;
}

std::string format_duration(double seconds) {
    if (seconds < 0 || seconds > 1e7) return "?";
    const auto s = static_cast<uint64_t>(seconds);
    return fmt::format("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60);
}

// Prints progress the way the output is consumed: a live line for a person at a terminal, one
// record per batch for a log collector (docs/cli.md §index).
class Progress {
public:
    Progress(bool json, uint64_t chain_id)
        : json_(json), tty_(!json && ::isatty(STDERR_FILENO) == 1), chain_id_(chain_id) {}

    void on_step(const index::StepReport& r) {
        for (const auto& w : r.warnings) log_line("warn", w, {});
        if (r.rolled_back_to) {
            log_line("warn", "reorg: rolled back", {{"to_block", *r.rolled_back_to}});
        }
        if (r.indexes_dropped) {
            log_line("info", "bulk load: secondary indexes dropped until near the head",
                     {{"block", r.cursor}});
        }
        if (r.indexes_built) log_line("info", "bulk load done: secondary indexes built", {});
        if (!r.backfilled.empty()) {
            // A registry new to this index catching up on its history (source_cursors.hpp).
            events_ += r.stored;
            if (tty_) std::fputc('\n', stderr);
            log_line("info", r.joined ? "backfill done: following with the cursor" : "backfill",
                     {{"from_block", r.from_block},
                      {"to_block", r.to_block},
                      {"events", r.stored},
                      {"registries", r.backfilled.size()}});
            return;
        }
        if (r.to_block == 0 && r.stored == 0 && !r.caught_up) return;
        events_ += r.stored;
        if (!first_block_) first_block_ = r.from_block;
        const double elapsed = std::chrono::duration<double>(Clock::now() - started_).count();
        const double rate = elapsed > 0 ? static_cast<double>(events_) / elapsed : 0;
        const uint64_t done = r.cursor >= *first_block_ ? r.cursor - *first_block_ + 1 : 0;
        const uint64_t total = r.head >= *first_block_ ? r.head - *first_block_ + 1 : 0;
        const double block_rate = elapsed > 0 ? static_cast<double>(done) / elapsed : 0;
        const double eta =
            block_rate > 0 ? static_cast<double>(total - std::min(done, total)) / block_rate : -1;
        if (tty_) {
            std::fprintf(
                stderr, "\r\033[Kblock %llu/%llu  %llu events  %.0f events/s  ETA %s",
                static_cast<unsigned long long>(r.cursor), static_cast<unsigned long long>(r.head),
                static_cast<unsigned long long>(events_), rate, format_duration(eta).c_str());
            std::fflush(stderr);
            return;
        }
        if (r.to_block == 0) return;  // caught up with nothing new: no record
        log_line("info", "batch",
                 {{"from_block", r.from_block},
                  {"to_block", r.to_block},
                  {"head", r.head},
                  {"events", r.stored},
                  {"rejected", r.rejected},
                  {"events_total", events_},
                  {"events_per_second", static_cast<uint64_t>(rate)}});
    }

    void summary(uint64_t cursor, uint64_t head) {
        if (tty_) std::fputc('\n', stderr);
        const double elapsed = std::chrono::duration<double>(Clock::now() - started_).count();
        nlohmann::ordered_json j{
            {"summary", true},
            {"chain_id", chain_id_},
            {"cursor", cursor},
            {"head", head},
            {"events", events_},
            {"seconds", elapsed},
            {"events_per_second", elapsed > 0 ? static_cast<double>(events_) / elapsed : 0.0}};
        if (json_) {
            std::printf("%s\n", j.dump().c_str());
        } else {
            std::printf("indexed chain %llu to block %llu (head %llu): %llu events in %.2f s\n",
                        static_cast<unsigned long long>(chain_id_),
                        static_cast<unsigned long long>(cursor),
                        static_cast<unsigned long long>(head),
                        static_cast<unsigned long long>(events_), elapsed);
        }
        std::fflush(stdout);
    }

    void log_line(std::string_view level, std::string_view msg, nlohmann::ordered_json fields) {
        if (json_) {
            nlohmann::ordered_json j{{"level", level}, {"msg", msg}, {"chain_id", chain_id_}};
            for (auto& [k, v] : fields.items()) j[k] = v;
            std::printf("%s\n", j.dump().c_str());
            std::fflush(stdout);
            return;
        }
        if (tty_) std::fputs("\r\033[K", stderr);
        std::string line = fmt::format("level={} msg=\"{}\" chain_id={}", level, msg, chain_id_);
        for (auto& [k, v] : fields.items()) line += fmt::format(" {}={}", k, v.dump());
        std::fprintf(stderr, "%s\n", line.c_str());
    }

private:
    bool json_;
    bool tty_;
    uint64_t chain_id_;
    uint64_t events_ = 0;
    std::optional<uint64_t> first_block_;
    Clock::time_point started_ = Clock::now();
};

void run_index(const IndexOptions& o) {
    // Stop signals are taken by a watcher thread, so the indexer stops between batches and the
    // batch in flight commits (docs/node.md asks the same of the node: nothing lost).
    const sigset_t stop_signals = block_stop_signals();

    ChainContext ctx(o.chain);
    const uint64_t chain_id = ctx.chain_id();
    index::IndexerOptions options;
    options.chain_id = chain_id;
    options.sources = resolve_sources(o, ctx);
    options.finality_depth = o.finality_depth.value_or(index::default_finality_depth(chain_id));
    options.bulk_load = !o.no_bulk_load;
    if (o.bulk_min_logs) options.bulk_min_logs = *o.bulk_min_logs;
    if (o.batch_logs) options.batch_logs = *o.batch_logs;
    if (o.in_flight) options.range.in_flight = *o.in_flight;
    if (o.max_range) {
        options.range.max_blocks = *o.max_range;
        options.range.initial_blocks = std::min(options.range.initial_blocks, *o.max_range);
    }

    auto db = open_index_database(o.database);
    // The indexer takes over the context's connection (the URL resolved as every command does).
    index::Indexer indexer(std::move(options), std::move(ctx.rpc()), *db);
    Progress progress(o.chain.json, chain_id);

    auto started = indexer.start();
    if (!started) throw CliError(started.error().message);
    for (const auto& w : *started) progress.log_line("warn", w, {});

    std::optional<httplib::Server> metrics;
    std::thread metrics_thread;
    if (o.metrics_port) {
        metrics.emplace();
        metrics->Get("/metrics", [&](const httplib::Request&, httplib::Response& res) {
            res.set_content(indexer.metrics().to_prometheus(chain_id), "text/plain; version=0.0.4");
        });
        if (!metrics->bind_to_port("127.0.0.1", *o.metrics_port))
            throw CliError(
                fmt::format("--metrics-port: cannot listen on 127.0.0.1:{}", *o.metrics_port));
        metrics_thread = std::thread([&] { metrics->listen_after_bind(); });
    }

    std::stop_source stop;
    std::jthread watcher([&](const std::stop_token& own) {
        timespec tick{0, 100'000'000};
        while (!own.stop_requested()) {
            if (::sigtimedwait(&stop_signals, nullptr, &tick) > 0) {
                stop.request_stop();
                return;
            }
        }
    });

    uint64_t head = 0;
    uint64_t cursor = 0;
    auto result = indexer.run(stop.get_token(), !o.once, std::chrono::milliseconds(1000),
                              [&](const index::StepReport& r) {
                                  if (r.head) head = r.head;
                                  if (r.head) cursor = r.cursor;
                                  progress.on_step(r);
                              });
    watcher.request_stop();
    if (metrics) {
        metrics->stop();
        metrics_thread.join();
    }
    if (!result) throw CliError(result.error().message);
    progress.summary(cursor, head);
}

/// The chain whose status is asked (index_chain_id): status only reads the index, and asks the
/// node for the head only when the node is on that chain.
void run_status(const IndexOptions& o) {
    ChainContext ctx(o.chain);
    auto db = open_index_database(o.database, IndexOpen::existing);
    auto store = index::IndexStore::open(*db);
    if (!store) throw CliError(store.error().to_string());
    const uint64_t chain_id = index_chain_id(o.chain, ctx, *store);
    auto status = store->status(chain_id);
    if (!status) throw CliError(status.error().to_string());
    // The head is optional: status works offline too, and a node on another chain has none.
    std::optional<uint64_t> head;
    if (const auto& node_chain = ctx.node_chain_id(); node_chain && *node_chain == chain_id) {
        if (auto block = ctx.rpc().block_number()) head = *block;
    }

    Output out(o.chain.json, OutputStyle::labeled);
    out.add("chainId", chain_id);
    out.add("database", db->describe());
    const std::optional<uint64_t> cursor = status->cursor;
    out.add("cursor", cursor ? nlohmann::ordered_json(*cursor) : nullptr);
    if (head) {
        out.add("head", *head);
        const uint64_t at = status->cursor.value_or(0);
        out.add("lag", *head > at ? *head - at : 0);
    } else {
        out.add("head", nullptr);
    }
    auto built = store->secondary_indexes_built();
    if (!built) throw CliError(built.error().to_string());
    // "bulk load": a sync far behind the head dropped them (IndexStore::drop_secondary_indexes).
    out.add("secondaryIndexes", *built ? "built" : "bulk load (dropped until near the head)");
    nlohmann::ordered_json counts = nlohmann::ordered_json::object();
    for (const auto& c : status->counts) counts[c.table] = c.rows;
    if (o.chain.json) {
        out.add("counts", counts);
    } else {
        std::string lines;
        for (const auto& c : status->counts) lines += fmt::format("\n  {:<24} {}", c.table, c.rows);
        out.add("counts", "rows:" + lines);
    }
    out.flush();
}

}  // namespace

void add_index_commands(CLI::App& app) {
    auto opts = std::make_shared<IndexOptions>();
    auto* cmd = app.add_subcommand(
        "index", "Index every registry of a chain into SQLite (default) or PostgreSQL");
    add_chain_options(*cmd, opts->chain, false);
    const auto add_database = [&](CLI::App& c) {
        c.add_option("--database", opts->database, kDatabaseHelp);
    };
    add_database(*cmd);
    cmd->add_option("--registry", opts->registries,
                    "KIND=ADDRESS[@START]: a contract to follow (kinds: identity, reputation, "
                    "validation, tool, workflow, verifier); repeatable. Default: the deployment "
                    "file's contracts and the chain's deployed ERC-8004 registries");
    cmd->add_option("--start-block", opts->start_block,
                    "First block for the default registries (default 0)");
    cmd->add_option("--finality-depth", opts->finality_depth,
                    "Blocks below the head that may still reorganise (default per chain)");
    cmd->add_option("--max-range", opts->max_range,
                    "Largest eth_getLogs block range (default 100000; the range also adapts to "
                    "the provider's refusals)")
        ->check(CLI::Range(uint64_t{1}, uint64_t{10'000'000}));
    cmd->add_flag("--once", opts->once, "Sync to the head, then exit (default: keep following)");
    cmd->add_flag("--no-bulk-load", opts->no_bulk_load,
                  "Keep every secondary index while far behind the head (default: drop the ones "
                  "ingestion never reads, and build them once near the head)");
    cmd->add_option("--bulk-min-logs", opts->bulk_min_logs,
                    "Smallest final batch that starts a bulk load (default 5000)")
        ->check(CLI::Range(uint64_t{1}, uint64_t{100'000'000}));
    cmd->add_option("--batch-logs", opts->batch_logs,
                    "Most logs one transaction merges from final blocks (default 25000; memory "
                    "grows with it: two batches are held at once)")
        ->check(CLI::Range(uint64_t{1}, uint64_t{10'000'000}));
    cmd->add_option("--in-flight", opts->in_flight,
                    "eth_getLogs requests in flight at once over final blocks (default 4; 1: one "
                    "at a time). Each is a connection to the node")
        ->check(CLI::Range(1U, 32U));
    cmd->add_option("--metrics-port", opts->metrics_port,
                    "Serve Prometheus metrics on 127.0.0.1:PORT/metrics");
    cmd->callback([opts, cmd] {
        if (cmd->get_subcommands().empty()) run_index(*opts);
    });

    auto* status = cmd->add_subcommand("status", "Cursor, head lag and row counts of the index");
    add_chain_options(*status, opts->chain, false);
    add_database(*status);
    status->callback([opts] { run_status(*opts); });
}

}  // namespace credence::cmd
