// Planning one operation against the schema: the typed validation rules of GraphQL §5 (fields,
// arguments, values, fragment type conditions, leaf selections, field merging, variable
// usages), CollectFields with @skip/@include (§6.3.2), argument coercion (§6.4.1), and the
// execution limits: depth, selected fields after fragment expansion, The Graph's `first` and
// `skip` bounds, and the cost estimate (rows: the product of `first` along nested lists,
// summed over fields). A plan that exists is within every limit; nothing runs before that.
//
// Thread-safety: a free function over its arguments. A Plan points into the Schema and must not
// outlive it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <credence/graphql/ast.hpp>
#include <credence/graphql/data_source.hpp>
#include <credence/graphql/detail/coerce.hpp>
#include <credence/graphql/limits.hpp>
#include <credence/graphql/schema.hpp>

namespace credence::graphql::detail {

struct Page {
    Filter filter;
    OrderBy order;
    std::int64_t first = 100;
    std::int64_t skip = 0;
};

struct PlanField {
    enum class Kind : std::uint8_t { field, typename_field, schema_field, type_field };
    Kind kind = Kind::field;
    std::string key;                  // the response key (alias or name)
    const FieldDef* def = nullptr;    // Kind::field
    const NamedType* type = nullptr;  // the named type of the value
    std::vector<PlanField> children;  // object types: the merged, collected sub-selection
    Json args = Json::object();       // coerced arguments
    std::optional<Page> page;         // collection and @derivedFrom fields
    Location loc;
};

struct Plan {
    const NamedType* root = nullptr;
    std::vector<PlanField> fields;
    std::int64_t cost = 0;
};

[[nodiscard]] Result<Plan> plan_operation(const Schema& schema, const ast::Document& doc,
                                          const ast::OperationDefinition& op,
                                          const Variables& variables, const ExecLimits& limits);

}  // namespace credence::graphql::detail
