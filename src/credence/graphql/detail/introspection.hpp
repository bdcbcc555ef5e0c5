// GraphQL §4 Introspection: the schema as the values of __schema and __type.
//
// The __Schema value is built once per request that asks for it, as JSON with the keys of the
// introspection types' fields. Named types are referenced as {"__ref": "Name"} stubs, which the
// executor expands from `types` when a query selects into them, so the value stays finite
// although __Type is recursive (a field's type's fields' types ...).
//
// Thread-safety: free functions over their arguments.
#pragma once

#include <functional>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include <credence/graphql/schema.hpp>

namespace credence::graphql::detail {

struct Introspection {
    nlohmann::json schema;                                     // the __Schema value
    std::map<std::string, nlohmann::json, std::less<>> types;  // name -> full __Type value
};

[[nodiscard]] Introspection build_introspection(const Schema& schema);

}  // namespace credence::graphql::detail
