// The GraphQL executor's DataSource (graphql/data_source.hpp) over one Snapshot: The Graph's
// filters, ordering and paging evaluated in memory.
//
// Semantics (The Graph's, docs/graphql.md §Filters): BigInt, BigDecimal and Int compare as
// numbers, exactly; strings and ids byte-wise; Bytes byte-wise; null sorts first. Ties in
// `orderBy` are broken by id in the same direction. A list field's `_contains` holds when the
// list has every element given.
//
// Cost: a page ordered by one field walks that field's order (sorted once per snapshot and
// field, then kept) and stops after skip + first matches; a filter on id, or on the agent (or
// feedback) a row belongs to, starts from those rows only; @derivedFrom lists read the
// snapshot's back references.
//
// Thread-safety: a ServedSnapshot may be shared by any number of SnapshotSources on any threads
// (its cached orders are guarded by a mutex). One SnapshotSource serves one request at a time.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include <credence/graphql/data_source.hpp>
#include <credence/subgraph/entity_fields.hpp>
#include <credence/subgraph/snapshot.hpp>

namespace credence::subgraph {

/// A snapshot being served, with the row orders its queries have needed so far.
class ServedSnapshot {
public:
    explicit ServedSnapshot(Snapshot data) : data_(std::move(data)) {}

    [[nodiscard]] const Snapshot& data() const noexcept { return data_; }
    /// The rows of `e` ascending by (field, id), sorted on first use.
    [[nodiscard]] std::shared_ptr<const std::vector<uint32_t>> order(Entity e,
                                                                     const FieldSpec& field) const;

private:
    Snapshot data_;
    mutable std::mutex mutex_;
    mutable std::map<std::pair<Entity, const FieldSpec*>,
                     std::shared_ptr<const std::vector<uint32_t>>>
        orders_;
};

class SnapshotSource final : public graphql::DataSource {
public:
    explicit SnapshotSource(std::shared_ptr<const ServedSnapshot> snapshot)
        : snapshot_(std::move(snapshot)) {}

    [[nodiscard]] graphql::Result<std::vector<graphql::Row>> list(
        const graphql::CollectionQuery& query) override;
    [[nodiscard]] graphql::Result<std::vector<graphql::Row>> get_many(
        const graphql::EntityLookup& lookup) override;
    [[nodiscard]] graphql::Result<graphql::IndexStatus> status() override;

private:
    std::shared_ptr<const ServedSnapshot> snapshot_;
};

/// -1, 0 or 1: `a` against `b` as values of a field of kind `kind` (null first).
[[nodiscard]] int compare_cells(const graphql::Cell& a, const graphql::Cell& b,
                                graphql::ScalarKind kind);

}  // namespace credence::subgraph
