#include <credence/index/funding_table.hpp>

#include <array>

#include <credence/index/row.hpp>

namespace credence::index {
namespace {

constexpr std::string_view kUpsertFunding =
    "INSERT INTO fundings (chain_id, address, source, funder, block_num, txn_hash, amount, "
    "checked_at, checked_head, depth) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) "
    "ON CONFLICT (chain_id, address) DO UPDATE SET source = excluded.source, funder = "
    "excluded.funder, block_num = excluded.block_num, txn_hash = excluded.txn_hash, amount = "
    "excluded.amount, checked_at = excluded.checked_at, checked_head = excluded.checked_head, "
    "depth = CASE WHEN excluded.depth < fundings.depth THEN excluded.depth ELSE fundings.depth "
    "END";

constexpr std::string_view kLoadFunding =
    "SELECT address, source, funder, block_num, txn_hash, amount, checked_at, checked_head, depth "
    "FROM fundings WHERE chain_id = $1 AND address = $2";

constexpr std::string_view kFundingEdges =
    "SELECT address, funder FROM fundings WHERE chain_id = $1 AND source = 'transfer' AND "
    "funder IS NOT NULL ORDER BY address";

// $1 chain, $2 head, $3 the deepest record whose funder is still traced, $4 limit.
constexpr std::string_view kUntracedAddresses =
    "SELECT address, depth FROM ("
    "SELECT DISTINCT f.client AS address, 0 AS depth FROM feedback f LEFT JOIN fundings g "
    "ON g.chain_id = f.chain_id AND g.address = f.client WHERE f.chain_id = $1 AND g.address IS "
    "NULL "
    "UNION "
    "SELECT DISTINCT v.validator AS address, 0 AS depth FROM validation_requests v LEFT JOIN "
    "fundings g ON g.chain_id = v.chain_id AND g.address = v.validator WHERE v.chain_id = $1 AND "
    "g.address IS NULL "
    "UNION "
    "SELECT DISTINCT p.funder AS address, MIN(p.depth) + 1 AS depth FROM fundings p LEFT JOIN "
    "fundings g ON g.chain_id = p.chain_id AND g.address = p.funder WHERE p.chain_id = $1 AND "
    "p.funder IS NOT NULL AND p.depth <= $3 AND g.address IS NULL GROUP BY p.funder "
    "UNION "
    "SELECT address, depth FROM fundings WHERE chain_id = $1 AND source IN ('never', 'error') "
    "AND checked_head < $2) t ORDER BY depth, address LIMIT $4";

constexpr std::string_view kForgetFundingsAbove =
    "DELETE FROM fundings WHERE chain_id = $1 AND block_num > $2";

DbValue optional_blob(const std::optional<core::Bytes>& b) {
    return b ? DbValue(*b) : DbValue(std::monostate{});
}

DbResult<core::Address> funding_address_at(const DbRow& row, size_t i, std::string_view what) {
    const core::Bytes* b = blob_at(row, i);
    if (b == nullptr || b->size() != 20) return std::unexpected(unreadable("fundings", what));
    core::Address a;
    std::copy(b->begin(), b->end(), a.bytes.begin());
    return a;
}

}  // namespace

DbResult<void> save_funding(Database& db, uint64_t chain_id, const FundingRecord& r) {
    std::optional<core::Bytes> funder, txn;
    if (r.funder) funder = core::Bytes(r.funder->bytes.begin(), r.funder->bytes.end());
    if (r.txn_hash) txn = core::Bytes(r.txn_hash->begin(), r.txn_hash->end());
    const std::array<DbValue, 10> params{
        int_value(chain_id),       blob_value(r.address.bytes), r.source, optional_blob(funder),
        int_value(r.block_num),    optional_blob(txn),          r.amount, r.checked_at,
        int_value(r.checked_head), int_value(r.depth)};
    return db.exec(kUpsertFunding, params);
}

DbResult<std::optional<FundingRecord>> load_funding(Database& db, uint64_t chain_id,
                                                    const core::Address& address) {
    const std::array<DbValue, 2> params{int_value(chain_id), blob_value(address.bytes)};
    auto rows = db.query(kLoadFunding, params);
    if (!rows) return std::unexpected(rows.error());
    if (rows->empty()) return std::nullopt;
    const DbRow& row = rows->front();
    FundingRecord r;
    auto a = funding_address_at(row, 0, "address");
    if (!a) return std::unexpected(a.error());
    r.address = *a;
    const std::string* source = text_at(row, 1);
    const std::string* amount = text_at(row, 5);
    const int64_t* block = int_at(row, 3);
    const int64_t* checked_at = int_at(row, 6);
    const int64_t* head = int_at(row, 7);
    const int64_t* depth = int_at(row, 8);
    if (source == nullptr || amount == nullptr || block == nullptr || checked_at == nullptr ||
        head == nullptr || depth == nullptr) {
        return std::unexpected(unreadable("fundings", "record"));
    }
    r.source = *source;
    r.amount = *amount;
    r.block_num = static_cast<uint64_t>(*block);
    r.checked_at = *checked_at;
    r.checked_head = static_cast<uint64_t>(*head);
    r.depth = static_cast<uint32_t>(*depth);
    if (blob_at(row, 2) != nullptr) {
        auto f = funding_address_at(row, 2, "funder");
        if (!f) return std::unexpected(f.error());
        r.funder = *f;
    }
    if (const core::Bytes* t = blob_at(row, 4); t != nullptr) {
        if (t->size() != 32) return std::unexpected(unreadable("fundings", "txn_hash"));
        core::Hash32 h;
        std::copy(t->begin(), t->end(), h.begin());
        r.txn_hash = h;
    }
    return r;
}

DbResult<std::vector<std::pair<core::Address, core::Address>>> read_funding_edges(
    Database& db, uint64_t chain_id) {
    const std::array<DbValue, 1> params{int_value(chain_id)};
    auto rows = db.query(kFundingEdges, params);
    if (!rows) return std::unexpected(rows.error());
    std::vector<std::pair<core::Address, core::Address>> out;
    out.reserve(rows->size());
    for (const DbRow& row : *rows) {
        auto a = funding_address_at(row, 0, "address");
        auto f = funding_address_at(row, 1, "funder");
        if (!a) return std::unexpected(a.error());
        if (!f) return std::unexpected(f.error());
        out.emplace_back(*a, *f);
    }
    return out;
}

DbResult<std::vector<TraceTarget>> untraced_addresses(Database& db, uint64_t chain_id,
                                                      uint64_t head, uint32_t max_depth,
                                                      size_t limit) {
    // A record of depth d names a funder of depth d + 1: traced while d + 1 < max_depth.
    const int64_t deepest = static_cast<int64_t>(max_depth) - 2;
    const std::array<DbValue, 4> params{int_value(chain_id), int_value(head), deepest,
                                        int_value(limit)};
    auto rows = db.query(kUntracedAddresses, params);
    if (!rows) return std::unexpected(rows.error());
    std::vector<TraceTarget> out;
    out.reserve(rows->size());
    for (const DbRow& row : *rows) {
        auto a = funding_address_at(row, 0, "address");
        if (!a) return std::unexpected(a.error());
        const int64_t* depth = int_at(row, 1);
        if (depth == nullptr || *depth < 0) return std::unexpected(unreadable("fundings", "depth"));
        out.push_back({*a, static_cast<uint32_t>(*depth)});
    }
    return out;
}

DbResult<void> forget_fundings_after(Database& db, uint64_t chain_id, uint64_t block_num) {
    const std::array<DbValue, 2> params{int_value(chain_id), int_value(block_num)};
    return db.exec(kForgetFundingsAbove, params);
}

}  // namespace credence::index
