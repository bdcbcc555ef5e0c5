// The document-level validation rules of GraphQL §5 that need no schema: operation and fragment
// names, fragment spreads and cycles, variable definitions and uses. The rules that need types
// (fields, arguments, values, fragment type conditions, leaf selections, variable usages) are
// checked while an operation is planned against the schema (detail/plan.hpp).
//
// Every walk here is iterative (explicit stacks), so a document of many fragments cannot
// exhaust the C++ stack.
//
// Thread-safety: a free function over its arguments.
#pragma once

#include <vector>

#include <credence/graphql/ast.hpp>
#include <credence/graphql/error.hpp>

namespace credence::graphql {

/// Every violation found, in document order; empty when the document is valid.
[[nodiscard]] std::vector<GraphqlError> validate_document(const ast::Document& doc);

}  // namespace credence::graphql
