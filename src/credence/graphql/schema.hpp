// The schema the executor serves, described in C++ as a table of entities (The Graph's style of
// schema: entity types keyed by `id`, scalar and reference fields, @derivedFrom lists).
//
// make_schema() turns a SchemaDef into the complete type system a client sees: the entity
// object types, and what The Graph generates around them (GraphQL §3 Type System):
//   - per entity E, the root fields `single(id: ID!)` and `collection(first, skip, orderBy,
//     orderDirection, where)`, the enum `E_orderBy` and the input object `E_filter` with one
//     input field per (field, comparison) pair: `owner`, `owner_not`, `owner_in`,
//     `name_contains_nocase`, `registrationFile_` (a nested filter), `and`, `or`, ...;
//   - `_meta { block { number hash timestamp } deployment hasIndexingErrors }`;
//   - the scalars, `OrderDirection`, `Block_height`, `_SubgraphErrorPolicy_`, and the
//     introspection types (GraphQL §4.5), so that validation and introspection read one table.
//
// Invariants of a Schema: every type named by a field, argument or input field exists; every
// generated filter input field says which entity field and comparison it means. A Schema is
// immutable once made.
//
// Thread-safety: const access from several threads is safe. Pointers to its types stay valid
// for the Schema's lifetime (a Schema is move-only to keep them so).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <credence/graphql/ast.hpp>
#include <credence/graphql/error.hpp>

namespace credence::graphql {

/// The scalars of The Graph's schemas. BigInt and BigDecimal travel as decimal strings, Bytes as
/// 0x-prefixed lowercase hex (The Graph's conventions).
enum class ScalarKind : std::uint8_t {
    id,
    string,
    int_value,
    big_int,
    big_decimal,
    bytes,
    boolean
};

enum class TypeKind : std::uint8_t { scalar, object, enum_type, input_object };

/// How the executor resolves a field of an object type.
enum class FieldRole : std::uint8_t {
    column,      // a scalar, enum or list of them, stored in the entity's row
    reference,   // another entity, stored in the row as its id
    derived,     // @derivedFrom: the entities whose `derived_from` field holds this one's id
    single,      // root: one entity by id
    collection,  // root: a filtered, ordered page of entities
    meta,        // root: `_meta`, the indexing status
    in_memory,   // answered from an in-memory value: introspection (GraphQL §4), _meta
};

/// The comparisons of The Graph's `where` filters, by key suffix.
enum class FilterOp : std::uint8_t {
    equal,      // `field`
    not_equal,  // `field_not`
    gt,
    lt,
    gte,
    lte,  // `_gt` `_lt` `_gte` `_lte`
    in,
    not_in,  // `_in` `_not_in`
    contains,
    contains_nocase,
    not_contains,
    not_contains_nocase,
    starts_with,
    starts_with_nocase,
    not_starts_with,
    not_starts_with_nocase,
    ends_with,
    ends_with_nocase,
    not_ends_with,
    not_ends_with_nocase,
};

/// The key suffix of a comparison: `_not_contains_nocase`; empty for `equal`.
[[nodiscard]] std::string_view filter_suffix(FilterOp op);

struct InputValue {
    std::string name;
    std::string description;
    ast::Type type;
    std::string default_value;  // as GraphQL literal text; empty when there is none
    // Generated `<Entity>_filter` fields: the entity field and comparison this key means;
    // `filter_nested` for `field_` (a filter on the referenced entity).
    std::string filter_field;
    FilterOp filter_op = FilterOp::equal;
    bool filter_nested = false;
};

struct FieldDef {
    std::string name;
    std::string description;
    ast::Type type;
    std::vector<InputValue> args;
    FieldRole role = FieldRole::column;
    std::string entity;        // reference, derived, single, collection: the entity's type name
    std::string derived_from;  // derived: the field of `entity` that holds our id

    [[nodiscard]] const InputValue* arg(std::string_view arg_name) const;
};

struct EnumValueDef {
    std::string name;
    std::string description;
};

struct NamedType {
    TypeKind kind = TypeKind::scalar;
    std::string name;
    std::string description;
    ScalarKind scalar = ScalarKind::string;  // scalar types
    bool entity = false;                     // object types that are entities
    std::vector<FieldDef> fields;            // object types
    std::vector<InputValue> input_fields;    // input object types
    std::vector<EnumValueDef> enum_values;   // enum types

    [[nodiscard]] const FieldDef* field(std::string_view field_name) const;
    [[nodiscard]] const InputValue* input_field(std::string_view field_name) const;
    [[nodiscard]] bool has_enum_value(std::string_view value) const;

    std::map<std::string, std::size_t, std::less<>>
        member_index;  // name -> fields/input_fields slot
};

// The table a schema is described with. Types are written as in SDL: "BigInt!", "[Bytes!]!",
// "AgentRegistrationFile".
struct EntityField {
    std::string name;
    std::string type;
    std::string derived_from = {};  // @derivedFrom(field: ...)
    std::string description = {};
};

struct EntityDef {
    std::string name;
    std::vector<EntityField> fields;  // must include `id: ID!`
    std::string single;               // root field for one entity, e.g. "agent"
    std::string collection;           // root field for a page, e.g. "agents"
    std::string description = {};
};

struct EnumDef {
    std::string name;
    std::vector<std::string> values;
    std::string description = {};
};

struct SchemaDef {
    std::vector<EntityDef> entities;
    std::vector<EnumDef> enums;
};

class Schema {
public:
    Schema(Schema&&) = default;
    Schema& operator=(Schema&&) = default;
    Schema(const Schema&) = delete;
    Schema& operator=(const Schema&) = delete;

    [[nodiscard]] const NamedType* type(std::string_view name) const;
    [[nodiscard]] const NamedType& query_type() const { return types_[query_index_]; }
    /// Every type, in a stable order (entities and enums as described, then the generated ones).
    [[nodiscard]] const std::vector<NamedType>& types() const { return types_; }

private:
    friend Result<Schema> make_schema(const SchemaDef& def);
    Schema() = default;

    std::vector<NamedType> types_;
    std::map<std::string, std::size_t, std::less<>> by_name_;
    std::size_t query_index_ = 0;
};

/// Builds the type system of `def`; an error names the first bad entry (unknown type, a field
/// named twice, an entity without `id: ID!`, an entity list field without @derivedFrom).
[[nodiscard]] Result<Schema> make_schema(const SchemaDef& def);

/// `[Bytes!]!` from a type reference.
[[nodiscard]] std::string type_to_string(const ast::Type& type);

/// The named type at the bottom of a type reference.
[[nodiscard]] const std::string& named_type(const ast::Type& type);

}  // namespace credence::graphql
