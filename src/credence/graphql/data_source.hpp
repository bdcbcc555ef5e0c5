// What the executor asks of the store behind it: pages of entities, entities by id, and the
// indexing status. A backend (SQL over the index, or the in-memory one of the tests) implements
// DataSource; the executor never sees tables.
//
// Every request names the fields it needs (`fields`, always starting with "id"), so a backend
// selects only those columns, and returns each Row's cells in that order. Nested fields are
// batched: one get_many() for the references of a whole page, one list() with `per_parent` for
// the @derivedFrom lists of a whole page, so a page of 1,000 rows with a nested field costs one
// more round trip, not 1,000.
//
// Cells: ID, String, BigInt, BigDecimal, enum values and references (the referenced id) are
// strings; Int is an int64; Boolean a bool; Bytes raw bytes; a list column a vector of scalars;
// null is monostate. BigInt may also be given as an int64. The executor checks each cell against
// the schema and reports a mismatch as an error, never as a wrong answer.
//
// A backend in outline (an SQL store; `sql_for` and `read_cell` are the backend's own):
//
//   class IndexSource : public graphql::DataSource {
//   public:
//       Result<std::vector<Row>> list(const CollectionQuery& q) override {
//           // SELECT <q.fields> FROM <table of q.entity> WHERE <q.filter> ORDER BY
//           //   <q.order.field> <asc|desc>, id LIMIT q.first OFFSET q.skip;
//           // with q.per_parent: the same per parent id, e.g. ROW_NUMBER() OVER
//           //   (PARTITION BY <q.per_parent->field> ORDER BY ...) BETWEEN skip+1 AND skip+first.
//           ...
//           for (each result row) { Row row; for (auto& f : q.fields) row.push_back(read_cell(f));
//                                   rows.push_back(std::move(row)); }
//           return rows;
//       }
//       Result<std::vector<Row>> get_many(const EntityLookup& l) override;  // WHERE id IN (...)
//       Result<IndexStatus> status() override;                              // the cursor's block
//   };
//   ...
//   nlohmann::ordered_json response = graphql::execute(schema, source, request);
//
// Thread-safety: the executor calls one DataSource from one thread at a time; an implementation
// states its own rules.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <credence/graphql/error.hpp>
#include <credence/graphql/schema.hpp>

namespace credence::graphql {

struct ByteString {
    std::vector<std::uint8_t> bytes;
    friend bool operator==(const ByteString&, const ByteString&) = default;
};

using Scalar = std::variant<std::monostate, bool, std::int64_t, std::string, ByteString>;
using ScalarList = std::vector<Scalar>;
using Cell = std::variant<std::monostate, bool, std::int64_t, std::string, ByteString, ScalarList>;

/// One entity: cells in the order of the request's `fields`.
using Row = std::vector<Cell>;

/// The normalized `where` tree (The Graph's filter conventions).
struct Filter {
    enum class Kind : std::uint8_t {
        all,      // every child holds (`and`, and the keys of one filter object); empty = true
        any,      // some child holds (`or`)
        compare,  // `field op operand`
        nested,   // `field_: {...}`: the referenced entity (or, for a @derivedFrom field, some
                  // entity pointing back) satisfies `children` (an implicit `all`)
    };
    Kind kind = Kind::all;
    std::string field;
    FilterOp op = FilterOp::equal;
    // compare: the operand, coerced to the field's type (a list for in/not_in and list fields).
    // Equality with null means "is null", not_equal with null "is not null".
    Cell operand;
    bool list_field = false;                 // compare: the field is a list column
    ScalarKind scalar = ScalarKind::string;  // compare: the field's scalar (string for enums and
                                             // references)
    std::string entity;                      // nested: the entity the children filter
    std::string derived_from;                // nested over a @derivedFrom field: its back reference
    std::vector<Filter> children;
};

struct OrderBy {
    std::string field;  // "id" when the query gave none
    bool descending = false;
};

/// A page of one entity. `first` and `skip` apply per parent when `per_parent` is set.
struct CollectionQuery {
    std::string entity;
    std::vector<std::string> fields;  // fields[0] == "id"
    Filter filter;
    OrderBy order;
    std::int64_t first = 100;
    std::int64_t skip = 0;
    // For @derivedFrom lists of many parents at once: the rows whose `field` is one of `ids`,
    // paged per parent id. `field` is also in `fields`, so the executor can group the rows.
    struct PerParent {
        std::string field;
        std::vector<std::string> ids;
    };
    std::optional<PerParent> per_parent;
};

/// Entities by id, for references; ids are distinct. Missing ids are simply absent.
struct EntityLookup {
    std::string entity;
    std::vector<std::string> fields;  // fields[0] == "id"
    std::vector<std::string> ids;
};

/// `_meta`: the block the data reflects.
struct IndexStatus {
    std::int64_t block_num = 0;
    ByteString block_hash;
    std::optional<std::int64_t> block_timestamp;
    std::string deployment;
    bool has_indexing_errors = false;
};

class DataSource {
public:
    virtual ~DataSource() = default;
    /// A page, filtered and ordered (ties broken by id, ascending).
    [[nodiscard]] virtual Result<std::vector<Row>> list(const CollectionQuery& query) = 0;
    /// Entities by id, in any order.
    [[nodiscard]] virtual Result<std::vector<Row>> get_many(const EntityLookup& lookup) = 0;
    [[nodiscard]] virtual Result<IndexStatus> status() = 0;
};

}  // namespace credence::graphql
