// What make_schema() and the introspection tables share: building named types from SDL-like
// rows.
//
// Thread-safety: free functions over their arguments.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <credence/graphql/schema.hpp>

namespace credence::graphql::detail {

/// `name: Type` as a type reference; the tables are constant text, so a bad row is a bug that
/// make_schema() reports as an error.
[[nodiscard]] Result<ast::Type> type_of(std::string_view text);

[[nodiscard]] ast::Type named(std::string name, bool non_null);
[[nodiscard]] ast::Type list_of(ast::Type item, bool non_null);

/// Fills each type's name index (fields or input fields).
void index_type(NamedType& type);

/// The introspection types of GraphQL §4.5 (__Schema, __Type, __Field, __InputValue,
/// __EnumValue, __Directive and the enums __TypeKind, __DirectiveLocation).
[[nodiscard]] Result<std::vector<NamedType>> introspection_types();

}  // namespace credence::graphql::detail
