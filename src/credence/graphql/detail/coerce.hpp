// Input coercion (GraphQL §3.5 scalars, §3.9 enums, §3.10 input objects, §3.11 lists): variable
// values from JSON (§6.1.2 CoerceVariableValues), argument literals with variables in them
// (§6.4.1 CoerceArgumentValues), and the `where` filter tree built from a coerced
// `<Entity>_filter` value.
//
// Coerced values are JSON in one canonical form: ID, String, BigInt, BigDecimal, Bytes (lowercase
// 0x-hex) and enum values are strings, Int is an integer, Boolean a bool, lists arrays, input
// objects objects holding only the fields given (defaults applied). JSON nesting is counted
// against ExecLimits::max_input_depth; literal nesting is bounded by the parser.
//
// Thread-safety: free functions over their arguments.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include <credence/graphql/ast.hpp>
#include <credence/graphql/data_source.hpp>
#include <credence/graphql/error.hpp>
#include <credence/graphql/limits.hpp>
#include <credence/graphql/schema.hpp>

namespace credence::graphql::detail {

using Json = nlohmann::json;

struct VariableValue {
    const ast::VariableDefinition* definition = nullptr;
    Json value;
    bool present = false;  // given in the request or by a default
};

using Variables = std::map<std::string, VariableValue, std::less<>>;

/// GraphQL §6.1.2 CoerceVariableValues. `input` is the request's "variables" (an object, or null
/// for none).
[[nodiscard]] Result<Variables> coerce_variables(const Schema& schema,
                                                 const ast::OperationDefinition& op,
                                                 const Json& input, const ExecLimits& limits);

/// A literal (variables allowed) coerced to `type`; std::nullopt when it is an unset variable.
/// `has_default` is whether the location has a default (GraphQL §5.8.5 IsVariableUsageAllowed).
[[nodiscard]] Result<std::optional<Json>> coerce_literal(const Schema& schema,
                                                         const ast::Value& value,
                                                         const ast::Type& type,
                                                         const Variables& variables,
                                                         bool has_default);

/// The normalized filter of a coerced `<Entity>_filter` value of `entity`.
[[nodiscard]] Result<Filter> make_filter(const Schema& schema, const NamedType& entity,
                                         const Json& where, const ExecLimits& limits,
                                         std::size_t& nodes);

/// A coerced scalar as a data-source cell (Bytes hex decoded).
[[nodiscard]] Cell json_to_cell(const Json& value, ScalarKind scalar);

/// Lowercase hex with 0x.
[[nodiscard]] std::string to_hex(const ByteString& bytes);

}  // namespace credence::graphql::detail
