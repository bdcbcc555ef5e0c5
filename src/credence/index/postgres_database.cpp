// The PostgreSQL backend of database.hpp (docs/architecture.md §index/: "PostgreSQL is selected by
// a connection URL"; §Performance: at least 20,000 events/s, about three statements per event).
//
// Why libpq and not libpqxx: Debian's libpqxx 6.4 predates libpq's pipeline mode (PostgreSQL 14),
// and pipelining is what makes the write rate independent of the round-trip time.
//
// Pipelining: inside a transaction, BEGIN and every exec() are queued with PQsendQueryPrepared in
// pipeline mode and their results are not awaited; a Sync is sent (and the results read) every
// kMaxPending statements, at the next query() and at commit(). The first error seen poisons the
// transaction (the server aborts it too): later calls return it, and commit() fails with it after
// rolling back. Outside a transaction, statements run synchronously (autocommit).
//
// Types: statements are prepared once per SQL text and described, so each parameter is sent in the
// form the server inferred for it: int8/int4/int2/float8/float4/bytea/text in BINARY format, any
// other combination as text for the server to parse. Results come back in text format and are
// mapped per column type: int2/int4/int8 -> int64_t, float4/float8 -> double, bytea ->
// core::Bytes, bool -> 0/1, numeric -> int64_t when integral else double, anything else (text,
// varchar, ...) -> std::string, NULL -> monostate.
//
// copy_in: COPY ... FROM STDIN in binary format, for rows by the thousand (the indexer's raw logs).
// COPY is not allowed in pipeline mode, so the queued statements are settled first; the
// transaction's next statement goes back into the pipeline.
//
// A lost connection is DbErrorKind::connection on the failing call and every later one; there is
// no automatic reconnect (the indexer restarts from its committed cursor instead).
#include <libpq-fe.h>

#include <bit>
#include <charconv>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <credence/index/database.hpp>
#include <credence/index/detail/sql_text.hpp>

namespace credence::index {

namespace {

// pg_type OIDs (src/include/catalog/pg_type.dat); stable across server versions.
constexpr Oid kBoolOid = 16;
constexpr Oid kByteaOid = 17;
constexpr Oid kCharOid = 18;
constexpr Oid kNameOid = 19;
constexpr Oid kInt8Oid = 20;
constexpr Oid kInt2Oid = 21;
constexpr Oid kInt4Oid = 23;
constexpr Oid kTextOid = 25;
constexpr Oid kOidOid = 26;
constexpr Oid kFloat4Oid = 700;
constexpr Oid kFloat8Oid = 701;
constexpr Oid kUnknownOid = 705;
constexpr Oid kBpcharOid = 1042;
constexpr Oid kVarcharOid = 1043;
constexpr Oid kNumericOid = 1700;

// Statements queued in a pipeline before a Sync is forced: bounds the results libpq buffers.
constexpr size_t kMaxPending = 4096;

using detail::first_words;

std::string one_line(std::string_view text) {
    std::string out;
    for (const char c : text) out.push_back(c == '\n' ? ' ' : c);
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

// "postgresql://user:secret@host/db" -> "postgresql://user:***@host/db".
std::string elide_password(std::string_view url) {
    const size_t scheme = url.find("://");
    if (scheme == std::string_view::npos) return std::string(url);
    const size_t start = scheme + 3;
    const size_t at = url.find('@', start);
    const size_t slash = url.find('/', start);
    if (at == std::string_view::npos || (slash != std::string_view::npos && slash < at))
        return std::string(url);
    const size_t colon = url.find(':', start);
    if (colon == std::string_view::npos || colon > at) return std::string(url);
    return fmt::format("{}***{}", url.substr(0, colon + 1), url.substr(at));
}

struct Prepared {
    std::string name;
    std::vector<Oid> param_types;
};

template <typename U>
void put_be(std::string& buf, U v) {
    for (int shift = static_cast<int>(sizeof(U) * 8) - 8; shift >= 0; shift -= 8)
        buf.push_back(static_cast<char>((v >> shift) & 0xff));
}

int hex_value(char c) { return core::hex_digit_value(c); }

class PostgresDatabase final : public Database {
public:
    explicit PostgresDatabase(PGconn* conn) : conn_(conn) {
        // NOTICEs ("relation already exists, skipping") would go to stderr: not errors, dropped.
        PQsetNoticeProcessor(conn_, [](void*, const char*) {}, nullptr);
        describe_ = fmt::format("postgresql://{}@{}:{}/{}", PQuser(conn_), PQhost(conn_),
                                PQport(conn_), PQdb(conn_));
    }
    ~PostgresDatabase() override { PQfinish(conn_); }
    PostgresDatabase(const PostgresDatabase&) = delete;
    PostgresDatabase& operator=(const PostgresDatabase&) = delete;

    [[nodiscard]] Dialect dialect() const noexcept override { return Dialect::postgres; }
    [[nodiscard]] std::string describe() const override { return describe_; }
    [[nodiscard]] bool in_transaction() const noexcept override { return in_tx_; }

    DbResult<void> begin() override { return start("BEGIN"); }
    DbResult<void> begin_read() override {
        return start("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY");
    }

    DbResult<void> commit() override {
        if (!in_tx_) return misuse("commit() without begin()");
        // exec_script() leaves pipeline mode; COMMIT goes back into it, so that sync_and_drain
        // reads its result (outside the pipeline it would stay unread and block the connection).
        if (!tx_error_) ignore_failure(enter_pipeline());
        if (!tx_error_) {
            if (PQsendQueryParams(conn_, "COMMIT", 0, nullptr, nullptr, nullptr, nullptr, 0) != 1)
                record(conn_error("COMMIT"));
            else {
                ++pending_;
                sent_.emplace_back("COMMIT");
            }
            ignore_failure(sync_and_drain(nullptr));
        }
        if (tx_error_) {
            DbError e = std::move(*tx_error_);
            ignore_failure(rollback());  // the transaction is aborted: end it on the server too
            if (broken()) e.kind = DbErrorKind::connection;
            return std::unexpected(std::move(e));
        }
        in_tx_ = false;
        return leave_pipeline();
    }

    DbResult<void> rollback() override {
        tx_error_.reset();
        if (!in_tx_) return {};
        in_tx_ = false;
        if (broken()) return std::unexpected(conn_error("ROLLBACK"));
        ignore_failure(leave_pipeline());
        tx_error_.reset();
        auto r = simple("ROLLBACK");
        return r;
    }

    DbResult<void> exec(std::string_view sql, std::span<const DbValue> params) override {
        auto stmt = statement(sql, params);
        if (!stmt) return std::unexpected(stmt.error());
        if (in_tx_) {
            if (auto r = enter_pipeline(); !r) return r;
            if (PQsendQueryPrepared(conn_, (*stmt)->name.c_str(), static_cast<int>(values_.size()),
                                    values_.data(), lengths_.data(), formats_.data(), 0) != 1)
                return fail(conn_error(sql));
            if (++pending_ >= kMaxPending) return sync_and_drain(nullptr);
            return {};
        }
        PGresult* res =
            PQexecPrepared(conn_, (*stmt)->name.c_str(), static_cast<int>(values_.size()),
                           values_.data(), lengths_.data(), formats_.data(), 0);
        return check(res, sql, nullptr);
    }

    DbResult<std::vector<DbRow>> query(std::string_view sql,
                                       std::span<const DbValue> params) override {
        auto stmt = statement(sql, params);
        if (!stmt) return std::unexpected(stmt.error());
        std::vector<DbRow> rows;
        if (in_tx_) {
            // Queued behind the pending statements; one Sync returns all of them and the rows.
            if (auto r = enter_pipeline(); !r) return std::unexpected(r.error());
            if (PQsendQueryPrepared(conn_, (*stmt)->name.c_str(), static_cast<int>(values_.size()),
                                    values_.data(), lengths_.data(), formats_.data(), 0) != 1)
                return fail(conn_error(sql));
            ++pending_;
            if (auto r = sync_and_drain(&rows); !r) return std::unexpected(r.error());
            return rows;
        }
        PGresult* res =
            PQexecPrepared(conn_, (*stmt)->name.c_str(), static_cast<int>(values_.size()),
                           values_.data(), lengths_.data(), formats_.data(), 0);
        if (auto r = check(res, sql, &rows); !r) return std::unexpected(r.error());
        return rows;
    }

    DbResult<void> exec_script(std::string_view sql) override {
        if (auto r = usable(); !r) return r;
        if (auto r = leave_pipeline(); !r) return r;
        const std::string text(sql);
        return check(PQexec(conn_, text.c_str()), sql, nullptr);
    }

    DbResult<void> copy_in(std::string_view table, std::span<const std::string_view> columns,
                           std::span<const DbValue> values) override {
        if (columns.empty() || values.size() % columns.size() != 0)
            return misuse(fmt::format("copy_in({}): {} values for {} columns", table, values.size(),
                                      columns.size()));
        if (auto r = usable(); !r) return r;
        // COPY is not allowed in pipeline mode: settle what is queued first (exec() goes back in).
        if (auto r = leave_pipeline(); !r) return r;
        const std::string sql =
            fmt::format("COPY {} ({}) FROM STDIN (FORMAT binary)", table, fmt::join(columns, ", "));
        PGresult* started = PQexec(conn_, sql.c_str());
        if (PQresultStatus(started) != PGRES_COPY_IN) return check(started, sql, nullptr);
        PQclear(started);
        // The binary COPY format (PostgreSQL docs, COPY §Binary Format): signature, flags,
        // extension length; per row the field count, then per field its length (-1: NULL) and
        // its bytes in the type's binary form (int8 and float8 big-endian); -1 ends the data.
        std::string data("PGCOPY\n\377\r\n\0", 11);
        const auto put32 = [&data](uint32_t v) {
            for (int shift = 24; shift >= 0; shift -= 8)
                data.push_back(static_cast<char>(v >> shift));
        };
        const auto put64 = [&data](uint64_t v) {
            for (int shift = 56; shift >= 0; shift -= 8)
                data.push_back(static_cast<char>(v >> shift));
        };
        put32(0);
        put32(0);
        const auto send = [&](bool all) -> DbResult<void> {
            constexpr size_t kChunk = size_t{1} << 20;
            if (!all && data.size() < kChunk) return {};
            if (PQputCopyData(conn_, data.data(), static_cast<int>(data.size())) != 1)
                return fail(conn_error(sql));
            data.clear();
            return {};
        };
        for (size_t at = 0; at < values.size(); at += columns.size()) {
            data.push_back(static_cast<char>(columns.size() >> 8));
            data.push_back(static_cast<char>(columns.size()));
            for (size_t c = 0; c < columns.size(); ++c) {
                std::visit(
                    [&](const auto& v) {
                        using V = std::decay_t<decltype(v)>;
                        if constexpr (std::is_same_v<V, std::monostate>) {
                            put32(0xffffffffU);
                        } else if constexpr (std::is_same_v<V, int64_t>) {
                            put32(8);
                            put64(static_cast<uint64_t>(v));
                        } else if constexpr (std::is_same_v<V, double>) {
                            put32(8);
                            put64(std::bit_cast<uint64_t>(v));
                        } else {
                            put32(static_cast<uint32_t>(v.size()));
                            data.append(reinterpret_cast<const char*>(v.data()), v.size());
                        }
                    },
                    values[at + c]);
            }
            if (auto r = send(false); !r) {
                ignore_failure(end_copy("copy_in: the data could not be sent"));
                return r;
            }
        }
        data.push_back('\xff');
        data.push_back('\xff');
        if (auto r = send(true); !r) {
            ignore_failure(end_copy("copy_in: the data could not be sent"));
            return r;
        }
        return end_copy(nullptr, sql);
    }

private:
    // Ends a COPY IN (`abort_reason`: cancels it with that message) and reads its outcome.
    DbResult<void> end_copy(const char* abort_reason, std::string_view sql = "COPY") {
        if (PQputCopyEnd(conn_, abort_reason) != 1) return fail(conn_error(sql));
        DbResult<void> outcome;
        while (PGresult* res = PQgetResult(conn_)) {
            if (outcome) {
                outcome = check(res, sql, nullptr);
            } else {
                PQclear(res);
            }
        }
        return outcome;
    }

    // BEGIN is pipelined too: a transaction costs one round trip, at commit() (a read snapshot:
    // none more than its queries, the first of which syncs).
    DbResult<void> start(const char* begin_sql) {
        if (in_tx_) return misuse("begin() inside a transaction");
        if (auto r = alive(); !r) return r;
        tx_error_.reset();
        if (auto r = enter_pipeline(); !r) return r;
        if (PQsendQueryParams(conn_, begin_sql, 0, nullptr, nullptr, nullptr, nullptr, 0) != 1)
            return std::unexpected(conn_error(begin_sql));
        ++pending_;
        sent_.emplace_back(begin_sql);
        in_tx_ = true;
        return {};
    }

    [[nodiscard]] bool broken() const { return PQstatus(conn_) != CONNECTION_OK; }

    DbError conn_error(std::string_view sql) const {
        return DbError{broken() ? DbErrorKind::connection : DbErrorKind::sql,
                       fmt::format("{} [{}]", one_line(PQerrorMessage(conn_)), first_words(sql))};
    }

    DbResult<void> misuse(std::string msg) {
        return std::unexpected(DbError{DbErrorKind::misuse, std::move(msg)});
    }

    void record(DbError e) {
        if (in_tx_ && !tx_error_) tx_error_ = std::move(e);
    }

    // Records a failure inside a transaction: the server has aborted it (see the file comment).
    std::unexpected<DbError> fail(DbError e) {
        if (broken()) e.kind = DbErrorKind::connection;
        record(e);
        return std::unexpected(std::move(e));
    }

    DbResult<void> alive() {
        if (broken())
            return std::unexpected(
                DbError{DbErrorKind::connection, fmt::format("connection to {} lost: {}", describe_,
                                                             one_line(PQerrorMessage(conn_)))});
        return {};
    }

    // The connection works and the current transaction (if any) has not failed.
    DbResult<void> usable() {
        if (auto r = alive(); !r) return fail(r.error());
        if (in_tx_ && tx_error_) return std::unexpected(*tx_error_);
        return {};
    }

    DbError error_of(const PGresult* res, std::string_view sql) const {
        DbErrorKind kind = DbErrorKind::sql;
        const char* state = res != nullptr ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : nullptr;
        const std::string_view code = state != nullptr ? state : "";
        if (code.starts_with("23")) {
            kind = DbErrorKind::constraint;  // integrity_constraint_violation class
        } else if (code == "40001" || code == "40P01" || code == "55P03") {
            kind = DbErrorKind::busy;  // serialization failure, deadlock, lock not available
        } else if (code.starts_with("08") || code.starts_with("57P")) {
            kind = DbErrorKind::connection;  // connection exception, admin shutdown
        } else if (code == "XX001" || code == "XX002") {
            kind = DbErrorKind::corrupt;  // data_corrupted, index_corrupted
        }
        if (broken()) kind = DbErrorKind::connection;
        const char* primary =
            res != nullptr ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : nullptr;
        std::string msg = one_line(primary != nullptr ? primary : PQerrorMessage(conn_));
        if (const char* detail =
                res != nullptr ? PQresultErrorField(res, PG_DIAG_MESSAGE_DETAIL) : nullptr)
            msg += fmt::format(" ({})", one_line(detail));
        return DbError{kind, fmt::format("{} [{}]", msg, first_words(sql))};
    }

    // Takes ownership of `res` (synchronous calls only).
    DbResult<void> check(PGresult* res, std::string_view sql, std::vector<DbRow>* rows) {
        const auto status = PQresultStatus(res);
        if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) {
            if (rows != nullptr && status == PGRES_TUPLES_OK) decode(res, *rows);
            PQclear(res);
            return {};
        }
        DbError e = error_of(res, sql);
        PQclear(res);
        return fail(std::move(e));
    }

    DbResult<void> enter_pipeline() {
        if (pipeline_) return {};
        if (PQenterPipelineMode(conn_) != 1) return fail(conn_error("(enter pipeline mode)"));
        pipeline_ = true;
        return {};
    }

    // Waits for everything queued and leaves pipeline mode (needed by PQprepare/PQexec).
    DbResult<void> leave_pipeline() {
        if (!pipeline_) return {};
        auto r = sync_and_drain(nullptr);
        if (PQexitPipelineMode(conn_) != 1) {
            if (r) r = fail(conn_error("(exit pipeline mode)"));
            return r;
        }
        pipeline_ = false;
        return r;
    }

    // Sends a Sync and reads every pending result. The rows of the last statement go to `rows`.
    DbResult<void> sync_and_drain(std::vector<DbRow>* rows) {
        if (!pipeline_ || pending_ == 0) {
            if (in_tx_ && tx_error_) return std::unexpected(*tx_error_);
            return {};
        }
        const size_t target = pending_ - 1;
        pending_ = 0;
        const std::vector<std::string_view> sent = std::move(sent_);
        sent_.clear();
        if (PQpipelineSync(conn_) != 1) return fail(conn_error("(pipeline sync)"));
        size_t index = 0;
        int nulls = 0;
        for (;;) {
            PGresult* res = PQgetResult(conn_);
            if (res == nullptr) {
                // One null ends each statement's results; two in a row means nothing more will
                // come (the Sync result was lost with the connection).
                if (broken() || ++nulls > 1) return fail(conn_error("(pipeline)"));
                ++index;
                continue;
            }
            nulls = 0;
            const auto status = PQresultStatus(res);
            if (status == PGRES_PIPELINE_SYNC) {
                PQclear(res);
                break;
            }
            if (status == PGRES_FATAL_ERROR) {
                record(error_of(res, index < sent.size() ? sent[index] : "(pipelined)"));
            } else if (status == PGRES_TUPLES_OK && rows != nullptr && index == target) {
                decode(res, *rows);
            }
            PQclear(res);
        }
        if (in_tx_ && tx_error_) {
            if (broken()) tx_error_->kind = DbErrorKind::connection;
            return std::unexpected(*tx_error_);
        }
        if (broken()) return fail(conn_error("(pipeline)"));
        return {};
    }

    // Prepares (once) and encodes the parameters into values_/lengths_/formats_.
    DbResult<const Prepared*> statement(std::string_view sql, std::span<const DbValue> params) {
        if (auto r = usable(); !r) return std::unexpected(r.error());
        auto it = cache_.find(sql);
        if (it == cache_.end()) {
            auto made = prepare(sql);
            if (!made) return std::unexpected(made.error());
            it = *made;
        }
        const Prepared& p = it->second;
        if (params.size() != p.param_types.size())
            return fail(
                DbError{DbErrorKind::misuse,
                        fmt::format("{} parameters given, statement takes {} [{}]", params.size(),
                                    p.param_types.size(), first_words(sql))});
        encode(p, params);
        if (in_tx_) sent_.push_back(it->first);  // map keys are stable
        return &p;
    }

    using CacheIt =
        std::unordered_map<std::string, Prepared, detail::StringHash, std::equal_to<>>::iterator;

    DbResult<CacheIt> prepare(std::string_view sql) {
        // PQprepare/PQdescribePrepared are synchronous: settle the pipeline first. This happens
        // once per distinct statement per connection.
        if (auto r = leave_pipeline(); !r) return std::unexpected(r.error());
        Prepared p{fmt::format("credence_{}", cache_.size()), {}};
        const std::string text(sql);
        if (auto r =
                check(PQprepare(conn_, p.name.c_str(), text.c_str(), 0, nullptr), sql, nullptr);
            !r)
            return std::unexpected(r.error());
        PGresult* desc = PQdescribePrepared(conn_, p.name.c_str());
        if (PQresultStatus(desc) != PGRES_COMMAND_OK) {
            DbError e = error_of(desc, sql);
            PQclear(desc);
            return fail(std::move(e));
        }
        const int n = PQnparams(desc);
        for (int i = 0; i < n; ++i) p.param_types.push_back(PQparamtype(desc, i));
        PQclear(desc);
        return cache_.emplace(text, std::move(p)).first;
    }

    void encode(const Prepared& p, std::span<const DbValue> params) {
        const size_t n = params.size();
        values_.assign(n, nullptr);
        lengths_.assign(n, 0);
        formats_.assign(n, 1);
        buf_.clear();
        offsets_.assign(n, std::string::npos);
        for (size_t i = 0; i < n; ++i) {
            const Oid type = p.param_types[i];
            const DbValue& v = params[i];
            const size_t start = buf_.size();
            if (std::holds_alternative<std::monostate>(v)) {
                continue;  // NULL: null pointer
            }
            if (const auto* s = std::get_if<std::string>(&v)) {
                if (type == kTextOid || type == kVarcharOid || type == kBpcharOid ||
                    type == kNameOid || type == kUnknownOid || type == kCharOid) {
                    // text's binary form is its bytes: point at the caller's string.
                    values_[i] = s->data();
                    lengths_[i] = static_cast<int>(s->size());
                } else {
                    values_[i] = s->c_str();  // let the server parse it
                    formats_[i] = 0;
                }
                continue;
            }
            if (const auto* b = std::get_if<core::Bytes>(&v)) {
                if (type == kByteaOid) {
                    // An empty bytea needs a non-null pointer (null means SQL NULL).
                    values_[i] = b->empty() ? "" : reinterpret_cast<const char*>(b->data());
                    lengths_[i] = static_cast<int>(b->size());
                    continue;
                }
                buf_.append("\\x").append(core::to_hex(*b, false));
                formats_[i] = 0;
            } else if (const auto* x = std::get_if<int64_t>(&v)) {
                if (type == kInt8Oid) {
                    put_be(buf_, static_cast<uint64_t>(*x));
                } else if (type == kInt4Oid && *x >= std::numeric_limits<int32_t>::min() &&
                           *x <= std::numeric_limits<int32_t>::max()) {
                    put_be(buf_, static_cast<uint32_t>(static_cast<int32_t>(*x)));
                } else if (type == kInt2Oid && *x >= std::numeric_limits<int16_t>::min() &&
                           *x <= std::numeric_limits<int16_t>::max()) {
                    put_be(buf_, static_cast<uint16_t>(static_cast<int16_t>(*x)));
                } else {
                    fmt::format_to(std::back_inserter(buf_), "{}", *x);
                    formats_[i] = 0;
                }
            } else if (const auto* d = std::get_if<double>(&v)) {
                if (type == kFloat8Oid) {
                    put_be(buf_, std::bit_cast<uint64_t>(*d));
                } else if (type == kFloat4Oid) {
                    put_be(buf_, std::bit_cast<uint32_t>(static_cast<float>(*d)));
                } else {
                    if (*d != *d)
                        buf_.append("NaN");
                    else if (*d == std::numeric_limits<double>::infinity())
                        buf_.append("Infinity");
                    else if (*d == -std::numeric_limits<double>::infinity())
                        buf_.append("-Infinity");
                    else
                        fmt::format_to(std::back_inserter(buf_), "{:.17g}", *d);
                    formats_[i] = 0;
                }
            }
            if (formats_[i] == 0) buf_.push_back('\0');  // text parameters are C strings
            offsets_[i] = start;
            lengths_[i] = static_cast<int>(buf_.size() - start);
        }
        // Pointers into buf_ only once it has stopped growing.
        for (size_t i = 0; i < n; ++i)
            if (offsets_[i] != std::string::npos) values_[i] = buf_.data() + offsets_[i];
    }

    static DbValue cell(const PGresult* res, int row, int col, Oid type) {
        if (PQgetisnull(res, row, col) != 0) return std::monostate{};
        const char* p = PQgetvalue(res, row, col);
        const auto n = static_cast<size_t>(PQgetlength(res, row, col));
        const std::string_view text(p, n);
        switch (type) {
            case kInt8Oid:
            case kInt4Oid:
            case kInt2Oid:
            case kOidOid: {
                int64_t v = 0;
                std::from_chars(p, p + n, v);
                return v;
            }
            case kFloat8Oid:
            case kFloat4Oid: {
                double v = 0;
                std::from_chars(p, p + n, v);  // also "NaN", "Infinity", "-Infinity"
                return v;
            }
            case kNumericOid: {
                int64_t v = 0;
                const auto [end, ec] = std::from_chars(p, p + n, v);
                if (ec == std::errc() && end == p + n) return v;
                double d = 0;
                std::from_chars(p, p + n, d);
                return d;
            }
            case kBoolOid:
                return int64_t{text == "t" ? 1 : 0};
            case kByteaOid: {
                // Text output of bytea is "\x" + hex (bytea_output = hex, the default since 9.0).
                core::Bytes out;
                if (n >= 2 && text.starts_with("\\x")) {
                    out.reserve((n - 2) / 2);
                    for (size_t i = 2; i + 1 < n; i += 2)
                        out.push_back(
                            static_cast<uint8_t>(hex_value(p[i]) * 16 + hex_value(p[i + 1])));
                }
                return out;
            }
            default:
                return std::string(text);
        }
    }

    static void decode(const PGresult* res, std::vector<DbRow>& rows) {
        const int nrows = PQntuples(res);
        const int ncols = PQnfields(res);
        std::vector<Oid> types;
        types.reserve(static_cast<size_t>(ncols));
        for (int c = 0; c < ncols; ++c) types.push_back(PQftype(res, c));
        rows.reserve(rows.size() + static_cast<size_t>(nrows));
        for (int r = 0; r < nrows; ++r) {
            DbRow row;
            row.reserve(static_cast<size_t>(ncols));
            for (int c = 0; c < ncols; ++c)
                row.push_back(cell(res, r, c, types[static_cast<size_t>(c)]));
            rows.push_back(std::move(row));
        }
    }

    DbResult<void> simple(const char* sql) { return check(PQexec(conn_, sql), sql, nullptr); }

    PGconn* conn_;
    std::string describe_;
    std::unordered_map<std::string, Prepared, detail::StringHash, std::equal_to<>> cache_;
    bool in_tx_ = false;
    bool pipeline_ = false;
    size_t pending_ = 0;                  // statements queued since the last Sync
    std::vector<std::string_view> sent_;  // their SQL (cache keys), for error messages
    std::optional<DbError> tx_error_;
    // Parameter encoding buffers, reused across calls.
    std::string buf_;
    std::vector<size_t> offsets_;
    std::vector<const char*> values_;
    std::vector<int> lengths_;
    std::vector<int> formats_;
};

}  // namespace

DbResult<std::unique_ptr<Database>> open_postgres(std::string_view url) {
    const std::string target(url);
    // Keywords before "dbname" are defaults; the URL (expanded from dbname) overrides them.
    const char* keywords[] = {"connect_timeout", "client_encoding", "options", "dbname", nullptr};
    // extra_float_digits=3: float8 text output round-trips exactly on servers before 12 too.
    const char* values[] = {"10", "UTF8", "-c extra_float_digits=3", target.c_str(), nullptr};
    PGconn* conn = PQconnectdbParams(keywords, values, 1);
    if (conn == nullptr) return std::unexpected(DbError{DbErrorKind::open, "libpq: out of memory"});
    if (PQstatus(conn) != CONNECTION_OK) {
        DbError e{DbErrorKind::open, fmt::format("cannot connect to {}: {}", elide_password(url),
                                                 one_line(PQerrorMessage(conn)))};
        PQfinish(conn);
        return std::unexpected(std::move(e));
    }
    return std::make_unique<PostgresDatabase>(conn);
}

}  // namespace credence::index
