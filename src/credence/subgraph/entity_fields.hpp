// How each agent0 entity's fields are read from a Snapshot (snapshot.hpp): one table per entity
// of getters that turn a record into the executor's cells (graphql/data_source.hpp) in The
// Graph's encodings, plus the entity's id lookup, its references and the @derivedFrom lists
// it is the target of. snapshot_source.hpp filters, orders and pages with these.
//
// Ids (the subgraph's formats): Agent "chainId:agentId"; Feedback
// "chainId:agentId:client:index" (client in lowercase hex); FeedbackResponse
// "feedbackId:txHash:logIndex"; Validation the request hash; AgentMetadata
// "chainId:agentId:key"; Protocol "chainId"; the files' ids as snapshot_loader.cpp makes them.
// Thread-safety: constant tables and pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <credence/graphql/data_source.hpp>
#include <credence/graphql/schema.hpp>
#include <credence/subgraph/snapshot.hpp>

namespace credence::subgraph {

enum class Entity : uint8_t {
    agent,
    registration_file,
    feedback,
    feedback_file,
    response,
    validation,
    metadata,
    protocol,
};

using CellGetter = graphql::Cell (*)(const Snapshot&, uint32_t row);
using RowGetter = uint32_t (*)(const Snapshot&, uint32_t row);  // kNone: no row

struct FieldSpec {
    FieldSpec(std::string_view n, graphql::ScalarKind k, bool l, CellGetter c)
        : name(n), scalar(k), list(l), cell(c) {}
    FieldSpec(std::string_view n, graphql::ScalarKind k, bool l, CellGetter c, Entity t,
              RowGetter tr)
        : name(n), scalar(k), list(l), cell(c), target(t), target_row(tr) {}

    std::string_view name;
    graphql::ScalarKind scalar = graphql::ScalarKind::string;
    bool list = false;
    CellGetter cell = nullptr;
    // A reference: the referenced entity and its row.
    std::optional<Entity> target;
    RowGetter target_row = nullptr;
};

/// An @derivedFrom list: the rows of `child` whose `back_field` names a row of `parent`.
struct Relation {
    Entity parent;
    Entity child;
    std::string_view back_field;
    const std::vector<uint32_t>& (*children)(const Snapshot&, uint32_t parent_row);
};

[[nodiscard]] std::optional<Entity> entity_named(std::string_view type_name);
[[nodiscard]] std::string_view entity_name(Entity e);
[[nodiscard]] size_t row_count(const Snapshot& s, Entity e);
[[nodiscard]] std::span<const FieldSpec> entity_fields(Entity e);
[[nodiscard]] const FieldSpec* entity_field(Entity e, std::string_view name);
/// The relation whose child is `child` and back reference `back_field`, or null.
[[nodiscard]] const Relation* relation_of(Entity child, std::string_view back_field);
/// The row with this id, or kNone.
[[nodiscard]] uint32_t row_by_id(const Snapshot& s, Entity e, std::string_view id);

}  // namespace credence::subgraph
