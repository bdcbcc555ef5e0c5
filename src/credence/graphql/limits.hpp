// The bounds on the work one GraphQL request may cause.
//
// Every limit is checked while the work happens (while lexing, while parsing, while planning),
// so hostile input is refused after bounded work instead of after the damage: a 100k-deep
// nesting stops at depth 64, a million aliases at the field limit, a huge `first` before any
// data-source call. Exceeding a limit is an ErrorKind::limit error and no partial result.
//
// Thread-safety: plain value types.
#pragma once

#include <cstddef>
#include <cstdint>

namespace credence::graphql {

struct ParseLimits {
    std::size_t max_document_bytes = 1 << 20;  // 1 MiB: generous for id_in lists of 1000 ids
    std::size_t max_tokens = 100'000;
    std::size_t max_depth = 64;       // nested selection sets, list/object values, list types
    std::size_t max_fields = 10'000;  // field selections (aliased or not) in the document
};

struct ExecLimits {
    std::size_t max_depth = 32;                 // nested fields after fragment expansion
    std::size_t max_selected_fields = 5'000;    // field selections after fragment expansion
    std::int64_t max_cost = 1'000'000;          // estimated rows: product of `first` along lists
    std::int64_t default_first = 100;           // The Graph's default page size
    std::int64_t max_first = 1'000;             // The Graph's maximum `first`
    std::int64_t max_skip = 5'000;              // The Graph's maximum `skip`
    std::size_t max_filter_nodes = 1'000;       // where-filter conditions, `and`/`or` included
    std::size_t max_input_depth = 32;           // nesting of variable values (JSON)
    std::size_t max_output_values = 1'000'000;  // values written into the response
};

struct Limits {
    ParseLimits parse;
    ExecLimits exec;
};

}  // namespace credence::graphql
