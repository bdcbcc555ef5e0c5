// IndexStore (store.hpp): batches, cursor, reorg rollback by entity replay, code hashes, status.
#include <credence/index/store.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <deque>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <credence/index/funding_table.hpp>
#include <credence/index/projector.hpp>
#include <credence/index/row.hpp>
#include <credence/index/schema.hpp>
#include <credence/index/source_cursors.hpp>
#include <credence/index/verification_table.hpp>

namespace credence::index {
namespace {

constexpr size_t kRawLogColumns = 15;
// On SQLite raw logs are inserted kMaxRawLogRows to a statement (docs/benchmarks.md; PostgreSQL
// takes them by COPY, RawLogWriter): one statement per log was a third of PostgreSQL's
// per-statement work. A batch's remainder goes in statements of
// 32, 16, ..., 1 rows, so at most seven texts are ever prepared.
constexpr size_t kMaxRawLogRows = 64;

/// raw_logs' columns, in the order RawLogWriter::add() gives their values.
constexpr std::array<std::string_view, kRawLogColumns> kRawLogColumnNames{
    "chain_id", "block_num", "log_index", "block_hash", "txn_hash", "txn_index", "address", "kind",
    "topic0",   "topic1",    "topic2",    "topic3",     "data",     "detail",    "entity"};

/// The most rows in one multi-row statement (exec_rows): a power of two. 256 x 17 parameters
/// stays far below both backends' limits (SQLite 32,766, PostgreSQL 65,535).
constexpr size_t kMaxRowsPerStatement = 256;

/// raw_logs' single-row INSERT as a MultiRowInsert (projector.hpp), for exec_rows().
const MultiRowInsert& raw_log_insert() {
    static const std::string kHead =
        fmt::format("INSERT INTO raw_logs ({}) VALUES ", fmt::join(kRawLogColumnNames, ", "));
    static const std::string kRow = [] {
        std::string out = "(";
        for (size_t c = 0; c < kRawLogColumns; ++c) {
            out += fmt::format("{}${}", c == 0 ? "" : ", ", c + 1);
        }
        return out + ")";
    }();
    static const MultiRowInsert kRawLogInsert{kHead, kRow, "", kRawLogColumns, 0, kHead + kRow};
    return kRawLogInsert;
}

/// `insert` for `rows` rows, each row's parameters numbered after the previous row's.
std::string rows_sql(const MultiRowInsert& insert, size_t rows) {
    std::string sql(insert.head);
    for (size_t r = 0; r < rows; ++r) {
        if (r > 0) sql += ", ";
        // The row's text with each $k renumbered $(r * params + k).
        const std::string_view row = insert.row;
        for (size_t i = 0; i < row.size();) {
            if (row[i] != '$') {
                sql += row[i++];
                continue;
            }
            size_t j = i + 1;
            size_t k = 0;
            while (j < row.size() && row[j] >= '0' && row[j] <= '9') {
                k = k * 10 + static_cast<size_t>(row[j] - '0');
                ++j;
            }
            sql += fmt::format("${}", r * insert.params + k);
            i = j;
        }
    }
    sql += insert.tail;
    return sql;
}

/// rows_sql() of the raw logs' insert and of the projections' (multi_row_inserts()) for each
/// power of two up to kMaxRowsPerStatement, made once.
const std::string& rows_text(const MultiRowInsert& insert, size_t rows) {
    static constexpr size_t kSizes = std::countr_zero(kMaxRowsPerStatement) + 1;
    using Texts = std::array<std::string, kSizes>;
    static const std::vector<std::pair<const MultiRowInsert*, Texts>> kTexts = [] {
        std::vector<const MultiRowInsert*> inserts{&raw_log_insert()};
        for (const MultiRowInsert* m : multi_row_inserts()) inserts.push_back(m);
        std::vector<std::pair<const MultiRowInsert*, Texts>> out;
        for (const MultiRowInsert* m : inserts) {
            Texts texts;
            for (size_t i = 0; i < kSizes; ++i) texts[i] = rows_sql(*m, size_t{1} << i);
            out.emplace_back(m, std::move(texts));
        }
        return out;
    }();
    const auto it =
        std::ranges::find(kTexts, &insert, &std::pair<const MultiRowInsert*, Texts>::first);
    return it->second[static_cast<size_t>(std::countr_zero(rows))];
}

/// Runs `values` (rows of insert.params values, one after another) as multi-row statements of
/// power-of-two sizes up to `max_rows`, largest first: few distinct texts, each prepared once
/// per connection.
DbResult<void> exec_rows(Database& db, const MultiRowInsert& insert,
                         std::span<const DbValue> values, size_t max_rows) {
    const size_t width = insert.params;
    const size_t rows = values.size() / width;
    size_t at = 0;
    for (size_t n = max_rows; n > 0; n /= 2) {
        while (rows - at >= n) {
            if (auto r = db.exec(rows_text(insert, n), values.subspan(at * width, n * width)); !r)
                return r;
            at += n;
        }
    }
    return {};
}

constexpr std::string_view kUpsertHeader =
    "INSERT INTO block_hashes (chain_id, block_num, hash, parent_hash, timestamp) VALUES ($1, $2, "
    "$3, $4, $5) ON CONFLICT (chain_id, block_num) DO UPDATE SET hash = excluded.hash, "
    "parent_hash = excluded.parent_hash, timestamp = excluded.timestamp";
constexpr std::string_view kForgetHeaders =
    "DELETE FROM block_hashes WHERE chain_id = $1 AND block_num < $2";
constexpr std::string_view kDropHeadersAbove =
    "DELETE FROM block_hashes WHERE chain_id = $1 AND block_num > $2";
constexpr std::string_view kUpsertBlockTime =
    "INSERT INTO block_times (chain_id, block_num, timestamp) VALUES ($1, $2, $3) ON CONFLICT "
    "(chain_id, block_num) DO UPDATE SET timestamp = excluded.timestamp";
constexpr std::string_view kDropBlockTimesAbove =
    "DELETE FROM block_times WHERE chain_id = $1 AND block_num > $2";
constexpr std::string_view kUpsertCursor =
    "INSERT INTO cursors (chain_id, block_num) VALUES ($1, $2) ON CONFLICT (chain_id) DO UPDATE "
    "SET block_num = excluded.block_num";
constexpr std::string_view kSelectCursor = "SELECT block_num FROM cursors WHERE chain_id = $1";
constexpr std::string_view kSelectChains = "SELECT chain_id FROM cursors ORDER BY chain_id";
constexpr std::string_view kSelectHeaders =
    "SELECT block_num, hash, parent_hash, timestamp FROM block_hashes WHERE chain_id = $1 ORDER BY "
    "block_num DESC";
constexpr std::string_view kAffectedEntities =
    "SELECT DISTINCT address, kind, entity FROM raw_logs WHERE chain_id = $1 AND block_num > $2 "
    "ORDER BY address, kind, entity";
constexpr std::string_view kCountLogsAbove =
    "SELECT COUNT(*) FROM raw_logs WHERE chain_id = $1 AND block_num > $2";
constexpr std::string_view kCountLogsUpTo =
    "SELECT COUNT(*) FROM (SELECT 1 FROM raw_logs LIMIT $1) AS counted";
// Whether an index exists, from each backend's catalog (the store's own schema only).
constexpr std::string_view kSqliteIndexCount =
    "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name = $1";
constexpr std::string_view kPostgresIndexCount =
    "SELECT COUNT(*) FROM pg_indexes WHERE schemaname = current_schema() AND indexname = $1";
constexpr std::string_view kDeleteLogsAbove =
    "DELETE FROM raw_logs WHERE chain_id = $1 AND block_num > $2";
constexpr std::string_view kEntityLogs =
    "SELECT block_num, log_index, block_hash, txn_hash, txn_index, topic0, topic1, topic2, "
    "topic3, data, detail FROM raw_logs WHERE chain_id = $1 AND address = $2 AND entity = $3 "
    "AND kind = $4 ORDER BY block_num, log_index";
constexpr std::string_view kLastCodeHash =
    "SELECT code_hash FROM code_hashes WHERE chain_id = $1 AND address = $2 ORDER BY block_num "
    "DESC LIMIT 1";
constexpr std::string_view kInsertCodeHash =
    "INSERT INTO code_hashes (chain_id, address, block_num, code_hash) VALUES ($1, $2, $3, $4) "
    "ON CONFLICT (chain_id, address, block_num) DO UPDATE SET code_hash = excluded.code_hash";

std::unexpected<DbError> corrupt(std::string message) {
    return std::unexpected(DbError{DbErrorKind::sql, std::move(message)});
}

// Typed reads of a result row; a wrong type means the schema is not ours.
DbResult<uint64_t> read_u64(const DbRow& row, size_t i) {
    if (i < row.size()) {
        if (const auto* v = std::get_if<int64_t>(&row[i]); v != nullptr && *v >= 0) {
            return static_cast<uint64_t>(*v);
        }
    }
    return corrupt(fmt::format("store: column {} is not a non-negative integer", i));
}

/// The value of a `SELECT COUNT(*) ...` (0 when it returns no row).
DbResult<uint64_t> count_rows(Database& db, std::string_view sql, std::span<const DbValue> params) {
    auto rows = db.query(sql, params);
    if (!rows) return std::unexpected(rows.error());
    return rows->empty() ? DbResult<uint64_t>(0) : read_u64(rows->front(), 0);
}

DbResult<core::Bytes> read_bytes(const DbRow& row, size_t i) {
    if (i < row.size()) {
        if (const auto* v = std::get_if<core::Bytes>(&row[i])) return *v;
    }
    return corrupt(fmt::format("store: column {} is not a blob", i));
}

/// A nullable blob column: NULL reads as empty (raw_logs.detail: no detail).
DbResult<core::Bytes> read_bytes_or_empty(const DbRow& row, size_t i) {
    if (i < row.size() && std::holds_alternative<std::monostate>(row[i])) return core::Bytes{};
    return read_bytes(row, i);
}

DbResult<core::Hash32> read_hash(const DbRow& row, size_t i) {
    auto b = read_bytes(row, i);
    if (!b) return std::unexpected(b.error());
    if (b->size() != 32) return corrupt(fmt::format("store: column {} is not 32 bytes", i));
    core::Hash32 h{};
    std::copy(b->begin(), b->end(), h.begin());
    return h;
}

/// Rolls back and passes the error on (the batch is all or nothing).
template <typename T>
DbResult<T> abort_tx(Database& db, DbError error) {
    // rollback() leaves no transaction open even when it fails; the first error is the one to
    // report.
    if (auto r = db.rollback(); !r) return std::unexpected(std::move(error));
    return std::unexpected(std::move(error));
}

/// Buffers a batch's raw_logs rows and inserts them kMaxRawLogRows to a statement (PostgreSQL:
/// kCopyRows to a COPY).
class RawLogWriter {
public:
    // On PostgreSQL the rows go by COPY, kCopyRows at a time: no statement per row to parse,
    // bind and execute (docs/benchmarks.md §Sync speed).
    static constexpr size_t kCopyRows = 2048;

    explicit RawLogWriter(Database& db)
        : db_(&db),
          copy_(db.dialect() == Dialect::postgres),
          max_rows_(copy_ ? kCopyRows : kMaxRawLogRows) {
        params_.reserve(max_rows_ * kRawLogColumns);
    }

    DbResult<void> add(uint64_t chain_id, const IngestLog& in, core::Bytes entity) {
        const RawLog& log = in.log;
        params_.emplace_back(int_value(chain_id));
        params_.emplace_back(int_value(log.block_num));
        params_.emplace_back(int_value(log.log_index));
        params_.emplace_back(blob_value(log.block_hash));
        params_.emplace_back(blob_value(log.txn_hash));
        params_.emplace_back(int_value(log.txn_index));
        params_.emplace_back(blob_value(log.address.bytes));
        params_.emplace_back(int64_t{static_cast<uint8_t>(in.kind)});
        for (size_t i = 0; i < 4; ++i) {
            params_.emplace_back(i < log.topics.size() ? blob_value(log.topics[i]) : DbValue{});
        }
        params_.emplace_back(blob_value(log.data));
        params_.emplace_back(in.detail.empty() ? DbValue{} : blob_value(in.detail));
        params_.emplace_back(std::move(entity));
        if (params_.size() == max_rows_ * kRawLogColumns) return flush();
        return {};
    }

    /// Inserts every buffered row.
    DbResult<void> flush() {
        if (params_.empty()) return {};
        auto done = copy_ ? db_->copy_in("raw_logs", kRawLogColumnNames, params_)
                          : exec_rows(*db_, raw_log_insert(), params_, kMaxRawLogRows);
        params_.clear();
        return done;
    }

private:
    Database* db_;
    bool copy_;
    size_t max_rows_;
    std::vector<DbValue> params_;
};

/// Runs projection statements in order; on PostgreSQL the consecutive ones of one MultiRowInsert
/// as multi-row statements of up to kMaxRowsPerStatement rows (projector.hpp): the rows and their
/// order are the same as one statement each. A row whose key the pending rows already hold starts a
/// new statement.
class StatementRunner {
public:
    explicit StatementRunner(Database& db) : db_(&db), merge_(db.dialect() == Dialect::postgres) {}

    DbResult<void> run(const ProjectionStatement& st) {
        const MultiRowInsert* insert = merge_ ? multi_row_of(st.sql) : nullptr;
        if (insert == nullptr || st.params.size() != insert->params) {
            if (auto r = flush(); !r) return r;
            return db_->exec(st.sql, st.params);
        }
        const uint64_t key = key_hash(*insert, st.params);
        if (insert != pending_ || keys_.size() == kMaxRowsPerStatement ||
            std::ranges::find(keys_, key) != keys_.end()) {
            if (auto r = flush(); !r) return r;
        }
        pending_ = insert;
        params_.insert(params_.end(), st.params.begin(), st.params.end());
        keys_.push_back(key);
        return {};
    }

    /// Runs the pending rows.
    DbResult<void> flush() {
        if (keys_.empty()) return {};
        auto done = exec_rows(*db_, *pending_, params_, kMaxRowsPerStatement);
        params_.clear();
        keys_.clear();
        pending_ = nullptr;
        return done;
    }

private:
    static const MultiRowInsert* multi_row_of(std::string_view sql) {
        for (const MultiRowInsert* insert : multi_row_inserts()) {
            if (insert->sql.data() == sql.data()) return insert;
        }
        return nullptr;
    }

    /// A hash of the row's key parameters: equal keys, equal hashes (a collision only splits a
    /// statement early).
    static uint64_t key_hash(const MultiRowInsert& insert, std::span<const DbValue> params) {
        uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a
        const auto mix = [&h](std::span<const std::byte> bytes) {
            for (const std::byte b : bytes)
                h = (h ^ std::to_integer<uint64_t>(b)) * 0x100000001b3ULL;
        };
        for (size_t i = 0; i < insert.key_params; ++i) {
            std::visit(
                [&](const auto& v) {
                    using V = std::decay_t<decltype(v)>;
                    if constexpr (std::is_same_v<V, std::string> ||
                                  std::is_same_v<V, core::Bytes>) {
                        mix(std::as_bytes(std::span(v.data(), v.size())));
                    } else if constexpr (!std::is_same_v<V, std::monostate>) {
                        mix(std::as_bytes(std::span(&v, 1)));
                    }
                },
                params[i]);
            h = (h ^ (0x100 + i)) * 0x100000001b3ULL;  // a field boundary
        }
        return h;
    }

    Database* db_;
    // PostgreSQL only: there each statement costs a parse-bind-execute on the server, while on
    // SQLite a multi-row upsert measured slower than its rows one statement each (79.4-79.8k
    // against 81.7-84.0k logs/s, docs/benchmarks.md §Sync speed).
    bool merge_;
    const MultiRowInsert* pending_ = nullptr;
    std::vector<DbValue> params_;
    std::vector<uint64_t> keys_;  // one per pending row
};

/// The up to 8 bytes of `bytes` from `at`, as a big-endian number (zero-padded on the right).
uint64_t big_endian_u64(std::span<const uint8_t> bytes, size_t at) {
    uint64_t v = 0;
    for (size_t i = 0; i < 8; ++i) v = (v << 8) | (at + i < bytes.size() ? bytes[at + i] : 0U);
    return v;
}

DbResult<void> run_projection(Database& db, const Projection& projection) {
    for (const auto& statement : projection.statements) {
        if (auto r = db.exec(statement.sql, statement.params); !r) return r;
    }
    return {};
}

DbResult<void> set_cursor(Database& db, uint64_t chain_id, uint64_t block_num) {
    const std::array<DbValue, 2> p{int_value(chain_id), int_value(block_num)};
    return db.exec(kUpsertCursor, p);
}

/// Deletes one entity's projection rows and replays its remaining raw logs (store.hpp).
DbResult<void> rebuild_entity(Database& db, uint64_t chain_id, const core::Bytes& address,
                              ContractKind kind, const core::Bytes& entity) {
    const std::array<DbValue, 3> key{int_value(chain_id), address, entity};
    for (const auto sql : entity_delete_statements(kind)) {
        if (auto r = db.exec(sql, key); !r) return r;
    }
    // One address may follow several kinds (sources.hpp): replay only this kind's logs.
    const std::array<DbValue, 4> logs_key{int_value(chain_id), address, entity,
                                          int64_t{static_cast<uint8_t>(kind)}};
    auto rows = db.query(kEntityLogs, logs_key);
    if (!rows) return std::unexpected(rows.error());
    auto addr = core::Address::from_bytes(address);
    if (!addr) return corrupt("store: raw_logs.address is not 20 bytes");
    for (const DbRow& row : *rows) {
        RawLog log;
        log.address = *addr;
        auto block_num = read_u64(row, 0);
        auto log_index = read_u64(row, 1);
        auto block_hash = read_hash(row, 2);
        auto txn_hash = read_hash(row, 3);
        auto txn_index = read_u64(row, 4);
        auto data = read_bytes(row, 9);
        auto detail = read_bytes_or_empty(row, 10);
        if (!block_num || !log_index || !block_hash || !txn_hash || !txn_index || !data ||
            !detail) {
            return corrupt("store: unreadable raw_logs row during rollback");
        }
        log.block_num = *block_num;
        log.log_index = *log_index;
        log.block_hash = *block_hash;
        log.txn_hash = *txn_hash;
        log.txn_index = *txn_index;
        log.data = std::move(*data);
        for (size_t t = 5; t <= 8 && t < row.size(); ++t) {
            if (std::holds_alternative<std::monostate>(row[t])) break;
            auto topic = read_hash(row, t);
            if (!topic) return std::unexpected(topic.error());
            log.topics.push_back(*topic);
        }
        auto projection = project_log(chain_id, log, kind, *detail);
        if (!projection) {
            return corrupt(fmt::format("store: stored log {}:{} no longer projects: {}",
                                       log.block_num, log.log_index, projection.error()));
        }
        if (auto r = run_projection(db, *projection); !r) return r;
    }
    return {};
}

}  // namespace

void project_logs(uint64_t chain_id, std::span<IngestLog> logs) {
    for (IngestLog& in : logs) {
        in.projection = project_log(chain_id, in.log, in.kind, in.detail);
        // A batch's projections wait for the commit: keep only the parameters they hold.
        if (*in.projection) {
            for (auto& statement : (*in.projection)->statements) statement.params.shrink_to_fit();
        }
    }
}

DbResult<IndexStore> IndexStore::open(Database& db) {
    if (auto r = migrate(db, index_migrations()); !r) return std::unexpected(r.error());
    return IndexStore(db);
}

DbResult<std::optional<uint64_t>> IndexStore::cursor(uint64_t chain_id) {
    const std::array<DbValue, 1> p{int_value(chain_id)};
    auto rows = db_->query(kSelectCursor, p);
    if (!rows) return std::unexpected(rows.error());
    if (rows->empty()) return std::optional<uint64_t>{};
    auto v = read_u64(rows->front(), 0);
    if (!v) return std::unexpected(v.error());
    return std::optional<uint64_t>(*v);
}

DbResult<std::vector<uint64_t>> IndexStore::chains() {
    auto rows = db_->query(kSelectChains, {});
    if (!rows) return std::unexpected(rows.error());
    std::vector<uint64_t> out;
    for (const DbRow& row : *rows) {
        auto id = read_u64(row, 0);
        if (!id) return std::unexpected(id.error());
        out.push_back(*id);
    }
    return out;
}

DbResult<BatchOutcome> IndexStore::commit_batch(const Batch& batch) {
    if (auto r = db_->begin(); !r) return std::unexpected(r.error());
    BatchOutcome outcome;
    // Pass 1, chain order: the raw logs, and which projections to run.
    RawLogWriter raw_logs(*db_);
    const RawLog* previous = nullptr;
    std::deque<Projection> computed;  // stable addresses; the ones not computed ahead
    // Pass 2's order: the key only needs to keep one entity's logs together and in chain order,
    // so (contract, entity prefix and suffix, position) will do; two entities sharing a key
    // interleave harmlessly.
    struct RunKey {
        uint64_t contract, entity_head, entity_tail;
        uint32_t position;
        const Projection* projection;
        auto operator<=>(const RunKey&) const = default;  // position is unique: a total order
    };
    std::vector<RunKey> order;
    order.reserve(batch.logs.size());
    for (const IngestLog& in : batch.logs) {
        const RawLog& log = in.log;
        if (log.removed) {
            outcome.rejected.push_back({log, "removed (reorged out) log"});
            continue;
        }
        // Logs arrive sorted; one position twice (a faulty node) would break the raw_logs key.
        if (previous != nullptr && previous->block_num == log.block_num &&
            previous->log_index == log.log_index) {
            outcome.rejected.push_back({log, "duplicate log position"});
            continue;
        }
        // Computed ahead by project_logs() when the indexer could (store.hpp), else here.
        const Projection* projection = nullptr;
        if (in.projection) {
            if (!*in.projection) {
                outcome.rejected.push_back({log, in.projection->error()});
                continue;
            }
            projection = &**in.projection;
        } else {
            auto made = project_log(batch.chain_id, log, in.kind, in.detail);
            if (!made) {
                outcome.rejected.push_back({log, std::move(made.error())});
                continue;
            }
            projection = &computed.emplace_back(std::move(*made));
        }
        if (auto r = raw_logs.add(batch.chain_id, in, projection->entity); !r) {
            return abort_tx<BatchOutcome>(*db_, r.error());
        }
        const core::Bytes& entity = projection->entity;
        order.push_back({big_endian_u64(log.address.bytes, 0), big_endian_u64(entity, 0),
                         big_endian_u64(entity, entity.size() < 8 ? 0 : entity.size() - 8),
                         static_cast<uint32_t>(order.size()), projection});
        previous = &log;
        ++outcome.stored;
    }
    if (auto r = raw_logs.flush(); !r) return abort_tx<BatchOutcome>(*db_, r.error());
    // Pass 2, the projections grouped by entity, chain order within each. Entities commute: an
    // entity's rows depend only on its own logs in chain order (projector.hpp), so the result is
    // the same as in chain order, and one entity's writes land on neighbouring B-tree pages
    // instead of a random page per log (docs/benchmarks.md).
    std::sort(order.begin(), order.end());
    StatementRunner statements(*db_);
    for (const RunKey& key : order) {
        for (const auto& statement : key.projection->statements) {
            if (auto r = statements.run(statement); !r) {
                return abort_tx<BatchOutcome>(*db_, r.error());
            }
        }
    }
    if (auto r = statements.flush(); !r) return abort_tx<BatchOutcome>(*db_, r.error());
    // One row per block that holds a log (logs are in chain order).
    std::optional<uint64_t> timed_block;
    for (const IngestLog& in : batch.logs) {
        if (!in.log.block_timestamp || timed_block == in.log.block_num) continue;
        timed_block = in.log.block_num;
        const std::array<DbValue, 3> p{int_value(batch.chain_id), int_value(in.log.block_num),
                                       int_value(*in.log.block_timestamp)};
        if (auto r = db_->exec(kUpsertBlockTime, p); !r) {
            return abort_tx<BatchOutcome>(*db_, r.error());
        }
    }
    if (batch.backfill) {
        if (auto r = advance_backfill(*db_, batch.chain_id, batch.backfill->addresses,
                                      batch.to_block, batch.backfill->join);
            !r) {
            return abort_tx<BatchOutcome>(*db_, r.error());
        }
        if (auto r = db_->commit(); !r) return abort_tx<BatchOutcome>(*db_, r.error());
        return outcome;
    }
    for (const BlockHeader& h : batch.headers) {
        const std::array<DbValue, 5> p{int_value(batch.chain_id), int_value(h.block_num),
                                       blob_value(h.hash), blob_value(h.parent_hash),
                                       int_value(h.timestamp)};
        if (auto r = db_->exec(kUpsertHeader, p); !r)
            return abort_tx<BatchOutcome>(*db_, r.error());
    }
    if (batch.forget_below > 0) {
        const std::array<DbValue, 2> p{int_value(batch.chain_id), int_value(batch.forget_below)};
        if (auto r = db_->exec(kForgetHeaders, p); !r) {
            return abort_tx<BatchOutcome>(*db_, r.error());
        }
    }
    if (auto r = set_cursor(*db_, batch.chain_id, batch.to_block); !r) {
        return abort_tx<BatchOutcome>(*db_, r.error());
    }
    if (auto r = db_->commit(); !r) return abort_tx<BatchOutcome>(*db_, r.error());
    return outcome;
}

DbResult<std::vector<BlockHeader>> IndexStore::recent_blocks(uint64_t chain_id) {
    const std::array<DbValue, 1> p{int_value(chain_id)};
    auto rows = db_->query(kSelectHeaders, p);
    if (!rows) return std::unexpected(rows.error());
    std::vector<BlockHeader> out;
    out.reserve(rows->size());
    for (const DbRow& row : *rows) {
        auto n = read_u64(row, 0);
        auto hash = read_hash(row, 1);
        auto parent = read_hash(row, 2);
        auto ts = read_u64(row, 3);
        if (!n || !hash || !parent || !ts) return corrupt("store: unreadable block_hashes row");
        out.push_back({*n, *hash, *parent, *ts});
    }
    return out;
}

DbResult<RollbackOutcome> IndexStore::rollback_to(uint64_t chain_id, uint64_t block_num) {
    // Entity replay reads raw logs by entity: after a bulk load that has not ended (a reorg right
    // after a restart), build the index first rather than scan the table once per entity.
    if (auto r = build_secondary_indexes(); !r) return std::unexpected(r.error());
    if (auto r = db_->begin(); !r) return std::unexpected(r.error());
    const std::array<DbValue, 2> above{int_value(chain_id), int_value(block_num)};
    RollbackOutcome outcome;
    auto count = count_rows(*db_, kCountLogsAbove, above);
    if (!count) return abort_tx<RollbackOutcome>(*db_, count.error());
    outcome.logs_removed = *count;
    auto entities = db_->query(kAffectedEntities, above);
    if (!entities) return abort_tx<RollbackOutcome>(*db_, entities.error());
    if (auto r = db_->exec(kDeleteLogsAbove, above); !r) {
        return abort_tx<RollbackOutcome>(*db_, r.error());
    }
    for (const DbRow& row : *entities) {
        auto address = read_bytes(row, 0);
        auto kind = read_u64(row, 1);
        auto entity = read_bytes(row, 2);
        if (!address || !kind || !entity || *kind > 255) {
            return abort_tx<RollbackOutcome>(
                *db_, DbError{DbErrorKind::sql, "store: unreadable entity row"});
        }
        const auto k = static_cast<ContractKind>(*kind);
        if (auto r = rebuild_entity(*db_, chain_id, *address, k, *entity); !r) {
            return abort_tx<RollbackOutcome>(*db_, r.error());
        }
        ++outcome.entities_rebuilt;
    }
    if (auto r = db_->exec(kDropHeadersAbove, above); !r) {
        return abort_tx<RollbackOutcome>(*db_, r.error());
    }
    if (auto r = rewind_backfills(*db_, chain_id, block_num); !r) {
        return abort_tx<RollbackOutcome>(*db_, r.error());
    }
    if (auto r = db_->exec(kDropBlockTimesAbove, above); !r) {
        return abort_tx<RollbackOutcome>(*db_, r.error());
    }
    // A check that saw a change past the fork point checked a state that is no longer on the
    // chain: it goes, and the subject is due again (verification_table.hpp).
    if (auto r = forget_verifications_after(*db_, chain_id, block_num); !r) {
        return abort_tx<RollbackOutcome>(*db_, r.error());
    }
    // A funding found past the fork point may not have happened on the new chain.
    if (auto r = forget_fundings_after(*db_, chain_id, block_num); !r) {
        return abort_tx<RollbackOutcome>(*db_, r.error());
    }
    // The cursor only ever moves back here: a fork point above it (or a chain never indexed)
    // leaves it where it is, so no block is skipped.
    auto current = cursor(chain_id);
    if (!current) return abort_tx<RollbackOutcome>(*db_, current.error());
    const std::optional<uint64_t> at = *current;
    if (at.value_or(0) > block_num) {
        if (auto r = set_cursor(*db_, chain_id, block_num); !r) {
            return abort_tx<RollbackOutcome>(*db_, r.error());
        }
    }
    if (auto r = db_->commit(); !r) return abort_tx<RollbackOutcome>(*db_, r.error());
    return outcome;
}

DbResult<std::optional<core::Hash32>> IndexStore::record_code_hash(uint64_t chain_id,
                                                                   const core::Address& address,
                                                                   uint64_t block_num,
                                                                   const core::Hash32& code_hash) {
    const std::array<DbValue, 2> key{int_value(chain_id), blob_value(address.bytes)};
    auto rows = db_->query(kLastCodeHash, key);
    if (!rows) return std::unexpected(rows.error());
    std::optional<core::Hash32> previous;
    if (!rows->empty()) {
        auto h = read_hash(rows->front(), 0);
        if (!h) return std::unexpected(h.error());
        if (*h == code_hash) return std::optional<core::Hash32>{};
        previous = *h;
    }
    const std::array<DbValue, 4> p{int_value(chain_id), blob_value(address.bytes),
                                   int_value(block_num), blob_value(code_hash)};
    if (auto r = db_->exec(kInsertCodeHash, p); !r) return std::unexpected(r.error());
    return previous;
}

DbResult<ChainStatus> IndexStore::status(uint64_t chain_id) {
    // One constant text per table (the Database caches prepared statements by text).
    static const std::vector<std::string> kCountSql = [] {
        std::vector<std::string> out;
        for (const auto table : index_data_tables()) {
            out.push_back(fmt::format("SELECT COUNT(*) FROM {} WHERE chain_id = $1", table));
        }
        return out;
    }();
    ChainStatus s;
    s.chain_id = chain_id;
    auto c = cursor(chain_id);
    if (!c) return std::unexpected(c.error());
    s.cursor = *c;
    const std::array<DbValue, 1> p{int_value(chain_id)};
    const auto tables = index_data_tables();
    for (size_t i = 0; i < tables.size(); ++i) {
        auto n = count_rows(*db_, kCountSql[i], p);
        if (!n) return std::unexpected(n.error());
        s.counts.push_back({std::string(tables[i]), static_cast<int64_t>(*n)});
    }
    return s;
}

DbResult<uint64_t> IndexStore::log_count_up_to(uint64_t limit) {
    const std::array<DbValue, 1> p{int_value(limit)};
    return count_rows(*db_, kCountLogsUpTo, p);
}

DbResult<bool> IndexStore::secondary_indexes_built() {
    const auto sql = db_->dialect() == Dialect::sqlite ? kSqliteIndexCount : kPostgresIndexCount;
    for (const auto& index : index_deferrable_indexes()) {
        const std::array<DbValue, 1> p{std::string(index.name)};
        auto n = count_rows(*db_, sql, p);
        if (!n) return std::unexpected(n.error());
        if (*n == 0) return false;
    }
    return true;
}

DbResult<void> IndexStore::drop_secondary_indexes() {
    if (auto r = db_->begin(); !r) return r;
    for (const auto& index : index_deferrable_indexes()) {
        if (auto r = db_->exec_script(fmt::format("DROP INDEX IF EXISTS {}", index.name)); !r)
            return abort_tx<void>(*db_, r.error());
    }
    return db_->commit();
}

DbResult<void> IndexStore::build_secondary_indexes() {
    // Nothing to build (the usual case, e.g. every rollback at the head): leave the cache alone.
    auto already = secondary_indexes_built();
    if (!already) return std::unexpected(already.error());
    if (*already) return {};
    // SQLite sorts each index's rows within its page cache before spilling to temporary files:
    // a smaller cache for the build bounds the resident set (docs/architecture.md §index/: at most
    // 300 MB) and costs no speed (measured: 3.4 s at 16 MiB against 4.4 s at 64 MiB for 1M events'
    // indexes).
    const bool sqlite = db_->dialect() == Dialect::sqlite;
    const auto set_cache = [&](int64_t size) {
        return sqlite ? db_->exec_script(fmt::format("PRAGMA cache_size={}", size))
                      : DbResult<void>{};
    };
    // The connection's own size comes back afterwards: a node following several chains gives
    // each indexer a share of the one-chain cache (docs/node.md §Many chains).
    int64_t own_cache = -kSqliteCacheKib;
    if (sqlite) {
        auto rows = db_->query("PRAGMA cache_size");
        if (!rows) return std::unexpected(rows.error());
        if (const int64_t* n = rows->empty() ? nullptr : int_at(rows->front(), 0)) own_cache = *n;
    }
    if (auto r = set_cache(-kSqliteSortCacheKib); !r) return r;
    auto built = [&]() -> DbResult<void> {
        if (auto r = db_->begin(); !r) return r;
        for (const auto& index : index_deferrable_indexes()) {
            if (auto r = db_->exec_script(index.create_sql); !r)
                return abort_tx<void>(*db_, r.error());
        }
        return db_->commit();
    }();
    auto restored = set_cache(own_cache);
    if (!built) return built;
    return restored;
}

std::span<const std::string_view> IndexStore::data_tables() noexcept { return index_data_tables(); }

}  // namespace credence::index
