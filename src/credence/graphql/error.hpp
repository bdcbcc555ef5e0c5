// Errors of the GraphQL library: one value type, returned, never thrown.
//
// A GraphqlError is what the GraphQL response's "errors" list holds (GraphQL §7.1.2): a message
// and the locations in the document it refers to. `kind` lets a caller tell a syntax error from
// a limit or a data-source failure without matching the message text.
//
// Thread-safety: plain value types.
#pragma once

#include <cstdint>
#include <expected>
#include <string>
#include <utility>
#include <vector>

namespace credence::graphql {

/// A 1-based position in the document (GraphQL §7.1.2 "locations"); columns count code points.
struct Location {
    std::uint32_t line = 0;
    std::uint32_t column = 0;

    friend bool operator==(const Location&, const Location&) = default;
};

enum class ErrorKind {
    syntax,       // the document does not follow the grammar (GraphQL §2)
    limit,        // a parse or execution limit was exceeded (limits.hpp)
    validation,   // the document is not valid against the schema (GraphQL §5)
    variables,    // variable values could not be coerced (GraphQL §6.1.2)
    execution,    // a field could not be resolved (GraphQL §6.4.4)
    data_source,  // the data source failed
    request,      // the request itself is malformed (GraphQL over HTTP)
};

struct GraphqlError {
    ErrorKind kind = ErrorKind::syntax;
    std::string message;
    std::vector<Location> locations;
};

template <typename T>
using Result = std::expected<T, GraphqlError>;

/// `return fail(ErrorKind::limit, "too deep", loc);`
[[nodiscard]] inline std::unexpected<GraphqlError> fail(ErrorKind kind, std::string message,
                                                        std::vector<Location> locations = {}) {
    return std::unexpected(GraphqlError{kind, std::move(message), std::move(locations)});
}

}  // namespace credence::graphql
