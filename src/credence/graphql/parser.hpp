// The GraphQL parser: executable documents of the GraphQL specification (October 2021), §2.
//
// parse_document() accepts operations (query, mutation, subscription; the executor runs queries
// only) and fragments, with variables, directives and every literal kind, and refuses type-system
// definitions. Errors carry the message and the {line, column} where the problem starts.
//
// The parser is recursive descent with a depth counter: every selection set, list or object
// value and list type counts one level, and going past ParseLimits::max_depth is an error before
// the next recursion, so a 100k-deep input costs 64 frames and a few microseconds. Size, token
// and field limits are checked as the input is consumed.
//
// Thread-safety: free functions over their arguments; safe to call from several threads.
#pragma once

#include <string_view>

#include <credence/graphql/ast.hpp>
#include <credence/graphql/error.hpp>
#include <credence/graphql/limits.hpp>

namespace credence::graphql {

/// Parses an executable document (GraphQL §2.2).
[[nodiscard]] Result<ast::Document> parse_document(std::string_view source,
                                                   const ParseLimits& limits = {});

/// Parses one type reference such as `[Bytes!]!` (GraphQL §2.11); the schema tables use it.
[[nodiscard]] Result<ast::Type> parse_type(std::string_view source, const ParseLimits& limits = {});

/// Parses one constant value such as `{a: [1, 2]}` (GraphQL §2.9, Value[Const]).
[[nodiscard]] Result<ast::Value> parse_const_value(std::string_view source,
                                                   const ParseLimits& limits = {});

}  // namespace credence::graphql
