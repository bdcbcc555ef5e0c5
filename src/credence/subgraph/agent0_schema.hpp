// The agent0 subgraph's schema (github.com/agent0lab/subgraph, schema.graphql) as a table for the
// GraphQL executor: the entity types Agent, Feedback, FeedbackResponse, Validation,
// AgentMetadata, Protocol, AgentRegistrationFile and FeedbackFile with the subgraph's field
// names, types and @derivedFrom lists. Its timeseries and aggregations are not served
// (docs/graphql.md lists what is).
//
// Thread-safety: agent0_schema() builds the Schema once (a function-local static) and returns it
// const; safe from any thread.
#pragma once

#include <credence/graphql/schema.hpp>

namespace credence::subgraph {

/// The table the Schema is made from.
[[nodiscard]] graphql::SchemaDef agent0_schema_def();

/// The Schema, made once.
[[nodiscard]] const graphql::Schema& agent0_schema();

}  // namespace credence::subgraph
