// The executor: one GraphQL request against a Schema and a DataSource, to one JSON response.
//
// execute() runs the whole pipeline of GraphQL §6 for query operations: parse (parser.hpp, with
// ParseLimits), validate (validate.hpp and the typed rules while planning), select the operation
// (§6.1), coerce variables (§6.1.2), plan within ExecLimits, then resolve through the
// DataSource, batching nested fields per level (data_source.hpp). The response follows §7 and
// GraphQL over HTTP: {"data": ...} on success; {"errors": [...]} (no "data") when the request
// cannot start (syntax, validation, variables, limits); {"errors": [...], "data": null} when
// execution fails (a data-source error, a null in a non-null field): this executor never
// returns partial data. Field order follows the query; aliases are honoured; BigInt and
// BigDecimal are strings, Bytes 0x-hex strings.
//
// Mutations and subscriptions parse but are refused when selected. Introspection (__schema,
// __type, __typename) is answered from the schema.
//
// Nothing throws across this API: failures, including allocation failures, become error
// responses.
//
// Thread-safety: execute() may run on several threads at once over one Schema when the
// DataSource allows it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <credence/graphql/data_source.hpp>
#include <credence/graphql/error.hpp>
#include <credence/graphql/limits.hpp>
#include <credence/graphql/schema.hpp>

namespace credence::graphql {

struct Request {
    std::string query;
    nlohmann::json variables;    // an object, or null for none
    std::string operation_name;  // empty: the document must hold exactly one operation
};

/// A GraphQL-over-HTTP POST body: {"query": ..., "variables": {...}, "operationName": ...}. The
/// body's nesting is checked before it is parsed (ExecLimits::max_input_depth).
[[nodiscard]] Result<Request> parse_request(std::string_view body, const Limits& limits = {});

/// The response of one request.
[[nodiscard]] nlohmann::ordered_json execute(const Schema& schema, DataSource& source,
                                             const Request& request, const Limits& limits = {});

/// {"errors": [...]} for errors found before execution (GraphQL §7.1.2).
[[nodiscard]] nlohmann::ordered_json error_response(const std::vector<GraphqlError>& errors);

}  // namespace credence::graphql
