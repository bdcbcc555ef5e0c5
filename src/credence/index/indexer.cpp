// The indexer loop (indexer.hpp): reorg check, chunk fetch, details, one-transaction commit.
#include <credence/index/indexer.hpp>

#include <algorithm>
#include <cstdlib>
#include <future>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <vector>

#include <fmt/core.h>

#include <credence/chain/contract_call.hpp>
#include <credence/chain/rpc_codec.hpp>
#include <credence/core/bytes.hpp>
#include <credence/core/keccak.hpp>
#include <credence/index/projector.hpp>

namespace credence::index {
namespace {

/// One warning per (contract, topic0, reason) with its count and first place, for the skipped or
/// rejected logs of a batch: a contract that floods the index with bad logs is a few lines, not
/// one per log (metrics count them all: rejected_total).
template <typename Dropped>
void add_grouped_warnings(std::string_view verb, const std::vector<Dropped>& dropped,
                          std::vector<std::string>& out) {
    struct Group {
        const Dropped* first = nullptr;
        uint64_t count = 0;
        uint64_t last_block = 0;
    };
    std::map<std::tuple<core::Address, core::Hash32, std::string_view>, Group> groups;
    std::vector<const Group*> order;  // first seen first
    for (const Dropped& d : dropped) {
        const core::Hash32 topic0 = d.log.topics.empty() ? core::Hash32{} : d.log.topics.front();
        Group& g = groups[{d.log.address, topic0, std::string_view(d.reason)}];
        if (g.count++ == 0) {
            g.first = &d;
            order.push_back(&g);
        }
        g.last_block = d.log.block_num;
    }
    for (const Group* g : order) {
        const auto& log = g->first->log;
        const std::string topic =
            log.topics.empty() ? std::string("no topic") : "topic0 " + core::to_hex(log.topics[0]);
        if (g->count == 1) {
            out.push_back(fmt::format("{} a log of {} ({}) at block {} index {}: {}", verb,
                                      log.address.to_checksum_hex(), topic, log.block_num,
                                      log.log_index, g->first->reason));
        } else {
            out.push_back(fmt::format("{} {} logs of {} ({}) in blocks {}..{}: {}", verb, g->count,
                                      log.address.to_checksum_hex(), topic, log.block_num,
                                      g->last_block, g->first->reason));
        }
    }
}

using Clock = std::chrono::steady_clock;

std::unexpected<IndexError> fail(IndexErrorKind kind, std::string message) {
    return std::unexpected(IndexError{kind, std::move(message)});
}
std::unexpected<IndexError> rpc_fail(const chain::RpcError& e, std::string_view what) {
    return fail(IndexErrorKind::rpc, fmt::format("{}: {}", what, e.to_string()));
}
std::unexpected<IndexError> db_fail(const DbError& e, std::string_view what) {
    return fail(IndexErrorKind::database, fmt::format("{}: {}", what, e.to_string()));
}

}  // namespace

Indexer::Indexer(IndexerOptions options, chain::RpcClient client, Database& db)
    : options_(std::move(options)), source_(std::move(client), options_.range), db_(&db) {}

IndexStore& Indexer::store() {
    // start() opens the store; calling anything else first is a programming error.
    if (!store_) std::abort();
    return *store_;
}

std::expected<std::vector<std::string>, IndexError> Indexer::start() {
    auto opened = IndexStore::open(*db_);
    if (!opened) return db_fail(opened.error(), "open store");
    store_.emplace(*opened);

    auto& rpc = source_.client();
    auto chain_id = rpc.chain_id();
    if (!chain_id) return rpc_fail(chain_id.error(), "eth_chainId");
    if (options_.chain_id == 0) options_.chain_id = *chain_id;
    if (*chain_id != options_.chain_id) {
        return fail(IndexErrorKind::wrong_chain,
                    fmt::format("the node serves chain {}, not the configured chain {}", *chain_id,
                                options_.chain_id));
    }
    chain_checked_ = Clock::now();
    if (!writer_lock_) {
        auto lock = WriterLock::acquire(*db_, options_.chain_id);
        if (!lock) return fail(IndexErrorKind::busy, lock.error());
        writer_lock_.emplace(std::move(*lock));
    }
    auto head = rpc.block_number();
    if (!head) return rpc_fail(head.error(), "eth_blockNumber");

    // ERC-8257 asks consumers to pin a registry's code; a changed hash (a proxy upgrade, a
    // redeployment) is worth a warning but not a stop: the events keep their meaning.
    std::vector<std::string> warnings;
    for (const auto& src : options_.sources) {
        auto code = rpc.get_code(src.address, *head);
        if (!code) return rpc_fail(code.error(), "eth_getCode");
        if (code->empty()) {
            warnings.push_back(fmt::format("{} at {} has no code at block {}", src.name,
                                           src.address.to_checksum_hex(), *head));
            continue;
        }
        auto previous =
            store_->record_code_hash(options_.chain_id, src.address, *head, core::keccak256(*code));
        if (!previous) return db_fail(previous.error(), "record code hash");
        if (const std::optional<core::Hash32>& was = *previous; was) {
            warnings.push_back(fmt::format("{} at {} changed its code (was {}): proxy upgrade?",
                                           src.name, src.address.to_checksum_hex(),
                                           core::to_hex(*was)));
        }
    }
    // A registry added to an indexed chain gets its whole history (source_cursors.hpp).
    auto cursor = store_->cursor(options_.chain_id);
    if (!cursor) return db_fail(cursor.error(), "read cursor");
    auto tracked = track_sources(*db_, options_.chain_id, *cursor, options_.sources);
    if (!tracked) return db_fail(tracked.error(), "track sources");
    backfilling_ = std::move(tracked->backfill);
    ++followed_generation_;
    for (auto& w : tracked->warnings) warnings.push_back(std::move(w));
    for (const SourceCursor& c : backfilling_) {
        warnings.push_back(fmt::format("{} is new to this index: backfilling it from block {}",
                                       c.address.to_checksum_hex(), c.next_block));
    }
    return warnings;
}

namespace {

// Finds the highest remembered block that is still on the chain and rolls back to it. Called when
// the cursor block's hash no longer matches the chain (docs/architecture.md §index/).
std::expected<uint64_t, IndexError> rewind_to_fork(IndexStore& store, LogSource& source,
                                                   uint64_t chain_id, uint64_t head) {
    auto remembered = store.recent_blocks(chain_id);
    if (!remembered) return db_fail(remembered.error(), "read block hashes");
    std::vector<uint64_t> nums;
    for (const auto& h : *remembered) {
        if (h.block_num <= head) nums.push_back(h.block_num);
    }
    std::map<uint64_t, core::Hash32> on_chain;
    if (!nums.empty()) {
        auto headers = source.headers_of(nums);
        if (!headers) return rpc_fail(headers.error(), "read headers for the fork point");
        for (const auto& h : *headers) on_chain[h.block_num] = h.hash;
    }
    for (const auto& h : *remembered) {  // highest first
        auto it = on_chain.find(h.block_num);
        if (it != on_chain.end() && it->second == h.hash) {
            auto rolled = store.rollback_to(chain_id, h.block_num);
            if (!rolled) return db_fail(rolled.error(), "roll back");
            return h.block_num;
        }
    }
    return fail(IndexErrorKind::deep_reorg,
                "no remembered block is on the chain any more: the reorg is deeper than the "
                "finality depth; re-index from scratch");
}

}  // namespace

std::vector<core::Address> Indexer::followed_addresses() const {
    std::vector<core::Address> out;
    for (const auto& src : options_.sources) {
        const bool backfilling = std::ranges::find(backfilling_, src.address,
                                                   &SourceCursor::address) != backfilling_.end();
        if (!backfilling && std::ranges::find(out, src.address) == out.end()) {
            out.push_back(src.address);
        }
    }
    return out;
}

std::expected<Indexer::Fetched, IndexError> Indexer::fetch(
    uint64_t from, uint64_t head, const std::vector<core::Address>& addresses) {
    std::map<core::Address, std::vector<ContractKind>> kinds;
    for (const auto& src : options_.sources) {
        if (std::ranges::find(addresses, src.address) == addresses.end()) continue;
        auto& of = kinds[src.address];
        if (std::find(of.begin(), of.end(), src.kind) == of.end()) of.push_back(src.kind);
    }
    // An address followed as several kinds: each log goes to the kind that knows its topic0;
    // one that none knows goes to the first, which rejects it as unknown.
    const auto kind_of = [&kinds](const RawLog& log) {
        const std::vector<ContractKind>& of = kinds.at(log.address);
        if (of.size() > 1 && !log.topics.empty()) {
            for (const ContractKind k : of) {
                for (const CatalogEvent& e : event_catalog(k))
                    if (e.topic0 == log.topics.front()) return k;
            }
        }
        return of.front();
    };
    Fetched out;
    // Final blocks (no reorg can touch them) are swept with several ranges in flight and merged
    // into one batch of up to batch_logs: fewer, larger transactions. Blocks near the head come
    // one range at a time, each checked against its headers by step().
    const uint64_t depth = options_.finality_depth;
    const uint64_t final_to = head > depth ? head - depth : 0;
    auto chunk = from <= final_to && head >= depth
                     ? source_.sweep(from, final_to, addresses, options_.batch_logs)
                     : source_.next_chunk(from, head, addresses);
    if (!chunk) {
        metrics_.rpc_errors_total++;
        return rpc_fail(chunk.error(), fmt::format("eth_getLogs from block {}", from));
    }
    out.chunk = std::move(*chunk);
    out.logs.reserve(out.chunk.logs.size());
    for (auto& log : out.chunk.logs) {
        const ContractKind kind = kind_of(log);
        out.logs.push_back({std::move(log), kind, {}, std::nullopt});
    }
    out.chunk.logs.clear();
    if (options_.fetch_details) {
        if (auto r = read_details(out.logs); !r) return std::unexpected(r.error());
    }
    if (auto r = read_block_times(out.logs); !r) return std::unexpected(r.error());
    // Decoding and building the statements is pure: done here, it runs on the fetch-ahead thread
    // while the previous batch commits (docs/benchmarks.md).
    project_logs(options_.chain_id, out.logs);
    return out;
}

std::expected<void, IndexError> Indexer::read_block_times(std::vector<IngestLog>& logs) {
    std::vector<uint64_t> untimed;
    for (const IngestLog& in : logs) {
        if (!in.log.block_timestamp && (untimed.empty() || untimed.back() != in.log.block_num)) {
            untimed.push_back(in.log.block_num);
        }
    }
    if (untimed.empty()) return {};
    std::unordered_map<uint64_t, uint64_t> times;
    constexpr size_t kHeadersPerRequest = 500;  // as read_details' calls: providers cap batches
    for (size_t at = 0; at < untimed.size(); at += kHeadersPerRequest) {
        const size_t n = std::min(kHeadersPerRequest, untimed.size() - at);
        auto headers = source_.headers_of(std::span<const uint64_t>(untimed).subspan(at, n));
        if (!headers) {
            metrics_.rpc_errors_total++;
            return rpc_fail(headers.error(), "read the times of blocks");
        }
        for (const BlockHeader& h : *headers) times.emplace(h.block_num, h.timestamp);
    }
    for (IngestLog& in : logs) {
        if (in.log.block_timestamp) continue;
        if (auto t = times.find(in.log.block_num); t != times.end()) {
            in.log.block_timestamp = t->second;
        }
    }
    return {};
}

std::expected<void, IndexError> Indexer::read_details(std::vector<IngestLog>& logs) {
    // ERC-8301 events carry only hashes: read the task / reply structs at the log's block. An
    // ERC-8274 proof's detail is its transaction (which replyHashes its onAgentProve proved).
    std::vector<chain::RpcCall> calls;
    std::vector<size_t> which;
    std::vector<size_t> by_txn;
    for (size_t i = 0; i < logs.size(); ++i) {
        if (needs_transaction_detail(logs[i].log, logs[i].kind)) {
            by_txn.push_back(i);
            continue;
        }
        auto call = detail_call(logs[i].log, logs[i].kind);
        if (!call) continue;
        calls.push_back(
            {"eth_call", nlohmann::json::array(
                             {chain::to_json(*call), chain::to_quantity(logs[i].log.block_num)})});
        which.push_back(i);
    }
    if (auto r = read_transaction_details(logs, by_txn); !r) return r;
    constexpr size_t kCallsPerRequest = 500;
    for (size_t at = 0; at < calls.size(); at += kCallsPerRequest) {
        const size_t n = std::min(kCallsPerRequest, calls.size() - at);
        auto results =
            source_.client().batch(std::span<const chain::RpcCall>(calls).subspan(at, n));
        if (!results) {
            metrics_.rpc_errors_total++;
            return rpc_fail(results.error(), "read task and reply details");
        }
        for (size_t k = 0; k < n; ++k) {
            // Stored raw: the projector decodes it (projector_workflow.cpp). A revert is
            // described by the one describer of Credence reverts (chain/contract_call.hpp).
            auto data = chain::call_answer((*results)[k]);
            if (!data) {
                metrics_.rpc_errors_total++;
                return fail(IndexErrorKind::rpc,
                            "read a task or reply detail: " + data.error().message());
            }
            logs[which[at + k]].detail = std::move(*data);
        }
    }
    return {};
}

std::expected<void, IndexError> Indexer::read_transaction_details(
    std::vector<IngestLog>& logs, const std::vector<size_t>& which) {
    // One eth_getTransactionByHash per transaction (a proof of several replies emits several
    // logs in one transaction).
    std::vector<chain::RpcCall> calls;
    std::map<core::Hash32, size_t> call_of;
    for (const size_t i : which) {
        if (call_of.emplace(logs[i].log.txn_hash, calls.size()).second) {
            calls.push_back({"eth_getTransactionByHash",
                             nlohmann::json::array({core::to_hex(logs[i].log.txn_hash)})});
        }
    }
    std::vector<core::Bytes> details(calls.size());
    constexpr size_t kCallsPerRequest = 500;
    for (size_t at = 0; at < calls.size(); at += kCallsPerRequest) {
        const size_t n = std::min(kCallsPerRequest, calls.size() - at);
        auto results =
            source_.client().batch(std::span<const chain::RpcCall>(calls).subspan(at, n));
        if (!results) {
            metrics_.rpc_errors_total++;
            return rpc_fail(results.error(), "read proof transactions");
        }
        for (size_t k = 0; k < n; ++k) {
            auto& result = (*results)[k];
            if (!result || !result->is_object()) {
                metrics_.rpc_errors_total++;
                chain::RpcError e;
                if (result) {
                    e.kind = chain::RpcErrorKind::bad_response;
                    e.message = "not a transaction object";
                } else {
                    e = result.error();
                }
                return rpc_fail(e, "read a proof transaction");
            }
            std::optional<core::Address> to;
            if (const auto it = result->find("to"); it != result->end() && !it->is_null()) {
                auto a = chain::read_address(*it);
                if (!a) return rpc_fail(a.error(), "read a proof transaction's to");
                to = *a;
            }
            const auto input = result->find("input");
            auto data = input == result->end() ? chain::RpcResult<core::Bytes>(core::Bytes{})
                                               : chain::read_data(*input);
            if (!data) return rpc_fail(data.error(), "read a proof transaction's input");
            details[at + k] = transaction_detail(to, *data);
        }
    }
    for (const size_t i : which) logs[i].detail = details[call_of.at(logs[i].log.txn_hash)];
    return {};
}

std::expected<void, IndexError> Indexer::plan_indexes(IndexStore& store, bool final_batch,
                                                      uint64_t logs, StepReport& report) {
    if (!indexes_built_) {
        auto built = store.secondary_indexes_built();
        if (!built) return db_fail(built.error(), "read the secondary indexes");
        indexes_built_ = *built;
    }
    bool want_built = true;
    if (options_.bulk_load && final_batch) {
        if (!*indexes_built_) {
            want_built = false;  // a bulk load under way (maybe before a restart) goes on
        } else if (logs >= options_.bulk_min_logs) {
            // Every chain's logs: on a database other chains already fill, the indexes stay
            // (their API queries need them, and building them again would sort every row).
            const uint64_t most = kBulkLoadRatio * logs;
            if (!stored_logs_ || (stored_logs_capped_ && *stored_logs_ <= most)) {
                const uint64_t cap = 2 * most + 1;
                auto n = store.log_count_up_to(cap);
                if (!n) return db_fail(n.error(), "count raw logs");
                stored_logs_ = *n;
                stored_logs_capped_ = *n >= cap;
            }
            want_built = *stored_logs_ > most;
        }
    }
    if (want_built == *indexes_built_) return {};
    auto r = want_built ? store.build_secondary_indexes() : store.drop_secondary_indexes();
    if (!r) {
        indexes_built_.reset();  // the transaction rolled back: read the state again
        return db_fail(r.error(),
                       want_built ? "build the secondary indexes" : "drop the secondary indexes");
    }
    indexes_built_ = want_built;
    (want_built ? report.indexes_built : report.indexes_dropped) = true;
    return {};
}

std::expected<StepReport, IndexError> Indexer::step() {
    if (!store_) return fail(IndexErrorKind::database, "the indexer was not started");
    // The fetch-ahead thread owns the source until it is joined: first thing, before any RPC.
    std::optional<std::expected<Fetched, IndexError>> ahead;
    if (ahead_.valid()) ahead = ahead_.get();
    const auto started = Clock::now();
    const uint64_t chain_id = options_.chain_id;
    auto& rpc = source_.client();
    StepReport report;

    if (Clock::now() - chain_checked_ >= options_.chain_check_interval) {
        auto served = rpc.chain_id();
        if (!served) {
            metrics_.rpc_errors_total++;
            return rpc_fail(served.error(), "eth_chainId");
        }
        if (*served != chain_id) {
            return fail(IndexErrorKind::wrong_chain,
                        fmt::format("the node now serves chain {}, not the configured chain {}",
                                    *served, chain_id));
        }
        chain_checked_ = Clock::now();
    }
    auto head = rpc.block_number();
    if (!head) {
        metrics_.rpc_errors_total++;
        return rpc_fail(head.error(), "eth_blockNumber");
    }
    report.head = *head;
    metrics_.head_block = *head;

    auto read_cursor = store_->cursor(chain_id);
    if (!read_cursor) return db_fail(read_cursor.error(), "read cursor");
    const std::optional<uint64_t> cursor = *read_cursor;

    // Reorg check: the block the cursor stands on must still be the chain's.
    if (cursor) {
        auto remembered = store_->recent_blocks(chain_id);
        if (!remembered) return db_fail(remembered.error(), "read block hashes");
        if (!remembered->empty()) {
            const BlockHeader& top = remembered->front();
            bool same = false;
            if (top.block_num <= *head) {
                const uint64_t num = top.block_num;
                auto current = source_.headers_of(std::span<const uint64_t>(&num, 1));
                if (!current) {
                    metrics_.rpc_errors_total++;
                    return rpc_fail(current.error(), "read the cursor's header");
                }
                same = current->front().hash == top.hash;
            }
            if (!same) {
                auto fork = rewind_to_fork(*store_, source_, chain_id, *head);
                if (!fork) return std::unexpected(fork.error());
                metrics_.reorgs_total++;
                stored_logs_.reset();
                // The rollback rewound the backfills above the fork (source_cursors.hpp).
                auto tracked = read_source_cursors(*db_, chain_id);
                if (!tracked) return db_fail(tracked.error(), "read source cursors");
                for (SourceCursor& c : backfilling_) {
                    auto it = std::ranges::find(*tracked, c.address, &SourceCursor::address);
                    if (it != tracked->end()) c.next_block = it->next_block;
                }
                indexes_built_.reset();  // rollback_to builds them
                metrics_.cursor_block = *fork;
                report.rolled_back_to = *fork;
                report.cursor = *fork;
                return report;
            }
        }
    }

    // Sources added to the indexed chain catch up in batches of their own, every other step
    // (and every step once the cursor has caught up), so the others keep following the head.
    if (cursor && !backfilling_.empty()) {
        if (backfill_turn_ || *cursor >= *head) {
            backfill_turn_ = false;
            return backfill_step(*head, *cursor);
        }
        backfill_turn_ = true;
    }

    uint64_t from = 0;
    if (cursor) {
        from = *cursor + 1;
    } else if (!options_.sources.empty()) {
        from = std::min_element(
                   options_.sources.begin(), options_.sources.end(),
                   [](const auto& a, const auto& b) { return a.start_block < b.start_block; })
                   ->start_block;
    }
    report.cursor = cursor ? *cursor : (from > 0 ? from - 1 : 0);
    if (from > *head) {
        // Caught up: a bulk load ends here at the latest.
        if (auto r = plan_indexes(*store_, false, 0, report); !r) return std::unexpected(r.error());
        report.caught_up = backfilling_.empty();
        metrics_.cursor_block = report.cursor;
        return report;
    }

    // A chunk fetched ahead during the previous commit is used when it starts at this step's
    // first block and the head has not moved below it; any other is dropped.
    auto fetched = ahead && *ahead && (*ahead)->chunk.from_block == from &&
                           (*ahead)->chunk.to_block <= *head &&
                           (*ahead)->generation == followed_generation_
                       ? std::move(*ahead)
                       : fetch(from, *head, followed_addresses());
    if (!fetched) return std::unexpected(fetched.error());
    const LogChunk& chunk = fetched->chunk;
    add_grouped_warnings("skipped", chunk.skipped, report.warnings);

    Batch batch;
    batch.chain_id = chain_id;
    batch.to_block = chunk.to_block;
    const uint64_t depth = options_.finality_depth;
    const uint64_t final_to = *head > depth ? *head - depth : 0;
    // Never forget the chunk's own last block: the next reorg check starts from it.
    batch.forget_below = std::min(final_to, chunk.to_block);

    // Unfinalized blocks of the chunk: remember every header and check that the logs belong to
    // them, so a reorg racing this fetch is caught now rather than committed (docs/architecture.md
    // §index/). The chunk's last block is always remembered: the next step's reorg check starts
    // there.
    const uint64_t window_from = std::max(from, batch.forget_below);
    std::vector<uint64_t> nums;
    for (uint64_t b = window_from; b <= chunk.to_block; ++b) nums.push_back(b);
    if (nums.empty() || nums.back() != chunk.to_block) nums.push_back(chunk.to_block);
    auto headers = source_.headers_of(nums);
    if (!headers) {
        metrics_.rpc_errors_total++;
        return rpc_fail(headers.error(), "read headers");
    }
    std::map<uint64_t, core::Hash32> hashes;
    for (size_t i = 0; i < headers->size(); ++i) {
        const auto& h = (*headers)[i];
        hashes[h.block_num] = h.hash;
        if (i > 0 && (*headers)[i - 1].block_num + 1 == h.block_num &&
            (*headers)[i - 1].hash != h.parent_hash) {
            return fail(IndexErrorKind::rpc,
                        fmt::format("block {} does not follow block {}: the chain is reorganising",
                                    h.block_num, h.block_num - 1));
        }
    }
    batch.headers = std::move(*headers);
    for (const IngestLog& in : fetched->logs) {
        auto hash = hashes.find(in.log.block_num);
        if (hash != hashes.end() && hash->second != in.log.block_hash) {
            return fail(IndexErrorKind::rpc,
                        fmt::format("a log of block {} names another block hash: the chain is "
                                    "reorganising",
                                    in.log.block_num));
        }
    }
    batch.logs = std::move(fetched->logs);

    // Far behind the head, the next chunk is fetched (logs, details) on a second thread while this
    // batch commits (docs/benchmarks.md: the machine has two cores). Only final blocks follow,
    // so no reorg check is skipped; the source is not touched here until the next step joins it.
    if (batch.to_block < final_to) {
        std::packaged_task<std::expected<Fetched, IndexError>()> task(
            [this, next = batch.to_block + 1, to = *head, addresses = followed_addresses(),
             generation = followed_generation_] {
                auto f = fetch(next, to, addresses);
                if (f) f->generation = generation;
                return f;
            });
        ahead_ = task.get_future();
        fetcher_.post(std::move(task));
    }
    if (auto r = plan_indexes(*store_, batch.to_block < final_to, batch.logs.size(), report); !r)
        return std::unexpected(r.error());
    auto outcome = store_->commit_batch(batch);
    if (!outcome) return db_fail(outcome.error(), "commit batch");
    if (stored_logs_) *stored_logs_ += outcome->stored;
    add_grouped_warnings("rejected", outcome->rejected, report.warnings);

    report.from_block = from;
    report.to_block = chunk.to_block;
    report.cursor = chunk.to_block;
    report.stored = outcome->stored;
    report.rejected = outcome->rejected.size() + chunk.skipped.size();
    report.caught_up = report.cursor >= *head && backfilling_.empty();
    metrics_.cursor_block = report.cursor;
    metrics_.events_total += report.stored;
    metrics_.rejected_total += report.rejected;
    metrics_.batches_total++;
    const auto micros = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - started).count());
    metrics_.batch_seconds_micros += micros;
    metrics_.events_per_second = micros == 0 ? 0 : report.stored * 1'000'000 / micros;
    // Freeing a batch's thousands of rows is a tenth of the committing thread's time in a bulk
    // sync (docs/benchmarks.md §Sync speed): the fetch-ahead thread, which allocated them from
    // its arena, frees them after the fetch in flight, before it starts the next.
    if (ahead_.valid()) fetcher_.post([retired = std::move(batch)] {});
    return report;
}

std::expected<StepReport, IndexError> Indexer::backfill_step(uint64_t head, uint64_t cursor) {
    IndexStore& indexed = store();  // step() checked that start() opened it
    StepReport report;
    report.head = head;
    report.cursor = cursor;
    // The sources furthest behind go first, together when they stand at the same block.
    const uint64_t from = std::ranges::min(backfilling_, {}, &SourceCursor::next_block).next_block;
    std::vector<core::Address> addresses;
    for (const SourceCursor& c : backfilling_) {
        if (c.next_block == from) addresses.push_back(c.address);
    }
    Batch batch;
    batch.chain_id = options_.chain_id;
    if (from <= cursor) {
        // Up to the cursor only: the blocks above it come with the cursor once they join.
        auto fetched = fetch(from, cursor, addresses);
        if (!fetched) return std::unexpected(fetched.error());
        add_grouped_warnings("skipped", fetched->chunk.skipped, report.warnings);
        // Blocks the cursor has seen but that may still reorganise: the logs must name the blocks
        // remembered for them, or the chain is changing under us (step() will find the fork).
        auto remembered = indexed.recent_blocks(options_.chain_id);
        if (!remembered) return db_fail(remembered.error(), "read block hashes");
        std::map<uint64_t, core::Hash32> hashes;
        for (const BlockHeader& h : *remembered) hashes[h.block_num] = h.hash;
        for (const IngestLog& in : fetched->logs) {
            auto hash = hashes.find(in.log.block_num);
            if (hash != hashes.end() && hash->second != in.log.block_hash) {
                return fail(IndexErrorKind::rpc,
                            fmt::format("a backfilled log of block {} names another block hash: "
                                        "the chain is reorganising",
                                        in.log.block_num));
            }
        }
        batch.to_block = fetched->chunk.to_block;
        batch.logs = std::move(fetched->logs);
    } else {
        batch.to_block = cursor;  // nothing left: they join
    }
    const bool join = batch.to_block >= cursor;
    batch.backfill = Backfill{addresses, join};
    auto outcome = indexed.commit_batch(batch);
    if (!outcome) return db_fail(outcome.error(), "commit backfill");
    if (stored_logs_) *stored_logs_ += outcome->stored;
    add_grouped_warnings("rejected", outcome->rejected, report.warnings);
    for (SourceCursor& c : backfilling_) {
        if (std::ranges::find(addresses, c.address) != addresses.end()) {
            c.next_block = batch.to_block + 1;
        }
    }
    if (join) {
        std::erase_if(backfilling_, [&](const SourceCursor& c) {
            return std::ranges::find(addresses, c.address) != addresses.end();
        });
        ++followed_generation_;
    }
    report.from_block = from;
    report.to_block = batch.to_block;
    report.stored = outcome->stored;
    report.rejected = outcome->rejected.size();
    report.backfilled = std::move(addresses);
    report.joined = join;
    metrics_.events_total += report.stored;
    metrics_.rejected_total += report.rejected;
    metrics_.batches_total++;
    return report;
}

std::expected<void, IndexError> Indexer::run(std::stop_token stop, bool follow,
                                             std::chrono::milliseconds poll_interval,
                                             const std::function<void(const StepReport&)>& on_step,
                                             const PollSleep& sleep) {
    // Sleeps in short slices so a stop request is honoured within ~50 ms.
    const auto sleep_for = [&](std::chrono::milliseconds total) {
        const auto until = Clock::now() + total;
        while (!stop.stop_requested() && Clock::now() < until) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    };
    std::chrono::milliseconds backoff{250};
    constexpr std::chrono::milliseconds kMaxBackoff{30'000};
    // A one-shot sync gives up after this many failures in a row; a follower never does.
    constexpr int kOnceAttempts = 6;
    int failures = 0;
    while (!stop.stop_requested()) {
        auto report = step();
        if (!report) {
            const auto kind = report.error().kind;
            if (kind == IndexErrorKind::wrong_chain || kind == IndexErrorKind::deep_reorg ||
                (!follow && ++failures >= kOnceAttempts)) {
                return std::unexpected(report.error());
            }
            StepReport failed;
            failed.error = report.error();
            failed.warnings.push_back(
                fmt::format("retrying in {} ms: {}", backoff.count(), report.error().message));
            if (on_step) on_step(failed);
            sleep_for(backoff);
            backoff = std::min(backoff * 2, kMaxBackoff);
            continue;
        }
        backoff = std::chrono::milliseconds{250};
        failures = 0;
        if (on_step) on_step(*report);
        if (report->caught_up && !report->rolled_back_to) {
            if (!follow) return {};
            if (sleep) {
                sleep(stop, poll_interval);
            } else {
                sleep_for(poll_interval);
            }
        }
    }
    return {};
}

}  // namespace credence::index
