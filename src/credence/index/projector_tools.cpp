// Projection rules of the ERC-8257 tool registry (projector.hpp): the tool's current state in
// `tools` and every configuration change in `tool_history`.
#include <credence/chain/bindings/tool_registry.hpp>
#include <credence/index/projector_rules.hpp>

namespace credence::index::rules {
namespace {

namespace tr = chain::bindings::tool_registry;

// Upserts: a tool first seen through a later event (indexing started after its registration)
// gets a row with what that event says.
constexpr std::string_view kToolOnRegistered =
    "INSERT INTO tools (chain_id, registry, tool_id, creator, access_predicate, metadata_uri, "
    "manifest_hash, deregistered, registered_block_num, updated_block_num, updated_log_index) "
    "VALUES ($1, $2, $3, $4, $5, $6, $7, 0, $8, $8, $9) ON CONFLICT (chain_id, registry, tool_id) "
    "DO UPDATE SET creator = excluded.creator, access_predicate = excluded.access_predicate, "
    "metadata_uri = excluded.metadata_uri, manifest_hash = excluded.manifest_hash, "
    "deregistered = 0, registered_block_num = excluded.registered_block_num, "
    "updated_block_num = excluded.updated_block_num, updated_log_index = "
    "excluded.updated_log_index";
constexpr std::string_view kToolOnMetadata =
    "INSERT INTO tools (chain_id, registry, tool_id, metadata_uri, manifest_hash, deregistered, "
    "updated_block_num, updated_log_index) VALUES ($1, $2, $3, $4, $5, 0, $6, $7) ON CONFLICT "
    "(chain_id, registry, tool_id) DO UPDATE SET metadata_uri = excluded.metadata_uri, "
    "manifest_hash = excluded.manifest_hash, updated_block_num = excluded.updated_block_num, "
    "updated_log_index = excluded.updated_log_index";
constexpr std::string_view kToolOnPredicate =
    "INSERT INTO tools (chain_id, registry, tool_id, access_predicate, deregistered, "
    "updated_block_num, updated_log_index) VALUES ($1, $2, $3, $4, 0, $5, $6) ON CONFLICT "
    "(chain_id, registry, tool_id) DO UPDATE SET access_predicate = excluded.access_predicate, "
    "updated_block_num = excluded.updated_block_num, updated_log_index = "
    "excluded.updated_log_index";
constexpr std::string_view kToolOnDeregistered =
    "INSERT INTO tools (chain_id, registry, tool_id, deregistered, updated_block_num, "
    "updated_log_index) VALUES ($1, $2, $3, 1, $4, $5) ON CONFLICT (chain_id, registry, tool_id) "
    "DO UPDATE SET deregistered = 1, updated_block_num = excluded.updated_block_num, "
    "updated_log_index = excluded.updated_log_index";
constexpr std::string_view kToolHistoryInsert =
    "INSERT INTO tool_history (chain_id, registry, tool_id, block_num, log_index, event, "
    "access_predicate, metadata_uri, manifest_hash, txn_hash) VALUES ($1, $2, $3, $4, $5, $6, $7, "
    "$8, $9, $10)";

std::vector<DbValue> at_position(const LogInput& in, const core::Uint256& tool_id) {
    auto p = key_params(in, blob(tool_id));
    p.emplace_back(integer(in.log->block_num));
    p.emplace_back(integer(in.log->log_index));
    return p;
}

ProjectionStatement tool_history(const LogInput& in, const core::Uint256& tool_id,
                                 std::string_view event, DbValue predicate, DbValue uri,
                                 DbValue manifest_hash) {
    auto p = at_position(in, tool_id);
    p.emplace_back(std::string(event));
    p.emplace_back(std::move(predicate));
    p.emplace_back(std::move(uri));
    p.emplace_back(std::move(manifest_hash));
    p.emplace_back(blob(in.log->txn_hash));
    return {kToolHistoryInsert, std::move(p)};
}

// ERC-8257 ToolRegistered: creator, accessPredicate, metadataURI, manifestHash; not deregistered.
RuleResult on_tool_registered(const LogInput& in) {
    auto ev = tr::decode_tool_registered_event(in.log->topics, in.log->data);
    if (!ev) return std::unexpected(decode_failure("ToolRegistered", ev.error()));
    Projection out{"ToolRegistered", entity_of(ev->tool_id), {}};
    auto p = key_params(in, blob(ev->tool_id));
    p.emplace_back(blob(ev->creator));
    p.emplace_back(blob(ev->access_predicate));
    p.emplace_back(ev->metadata_uri);
    p.emplace_back(blob(ev->manifest_hash));
    p.emplace_back(integer(in.log->block_num));
    p.emplace_back(integer(in.log->log_index));
    out.statements.push_back({kToolOnRegistered, std::move(p)});
    out.statements.push_back(tool_history(in, ev->tool_id, "ToolRegistered",
                                          blob(ev->access_predicate), std::move(ev->metadata_uri),
                                          blob(ev->manifest_hash)));
    return out;
}

// ERC-8257 ToolMetadataUpdated: metadataURI and manifestHash := the new pair.
RuleResult on_metadata_updated(const LogInput& in) {
    auto ev = tr::decode_tool_metadata_updated_event(in.log->topics, in.log->data);
    if (!ev) return std::unexpected(decode_failure("ToolMetadataUpdated", ev.error()));
    Projection out{"ToolMetadataUpdated", entity_of(ev->tool_id), {}};
    auto p = key_params(in, blob(ev->tool_id));
    p.emplace_back(ev->new_uri);
    p.emplace_back(blob(ev->new_hash));
    p.emplace_back(integer(in.log->block_num));
    p.emplace_back(integer(in.log->log_index));
    out.statements.push_back({kToolOnMetadata, std::move(p)});
    out.statements.push_back(tool_history(in, ev->tool_id, "ToolMetadataUpdated", {},
                                          std::move(ev->new_uri), blob(ev->new_hash)));
    return out;
}

// ERC-8257 AccessPredicateUpdated: accessPredicate := newPredicate (zero: open access).
RuleResult on_predicate_updated(const LogInput& in) {
    auto ev = tr::decode_access_predicate_updated_event(in.log->topics, in.log->data);
    if (!ev) return std::unexpected(decode_failure("AccessPredicateUpdated", ev.error()));
    Projection out{"AccessPredicateUpdated", entity_of(ev->tool_id), {}};
    auto p = key_params(in, blob(ev->tool_id));
    p.emplace_back(blob(ev->new_predicate));
    p.emplace_back(integer(in.log->block_num));
    p.emplace_back(integer(in.log->log_index));
    out.statements.push_back({kToolOnPredicate, std::move(p)});
    out.statements.push_back(
        tool_history(in, ev->tool_id, "AccessPredicateUpdated", blob(ev->new_predicate), {}, {}));
    return out;
}

// ERC-8257 ToolDeregistered: deregistered := 1 (permanent in the reference registry).
RuleResult on_deregistered(const LogInput& in) {
    auto ev = tr::decode_tool_deregistered_event(in.log->topics, in.log->data);
    if (!ev) return std::unexpected(decode_failure("ToolDeregistered", ev.error()));
    Projection out{"ToolDeregistered", entity_of(ev->tool_id), {}};
    out.statements.push_back({kToolOnDeregistered, at_position(in, ev->tool_id)});
    out.statements.push_back(tool_history(in, ev->tool_id, "ToolDeregistered", {}, {}, {}));
    return out;
}

}  // namespace

RuleResult project_tool(const LogInput& in) {
    const core::Hash32& t = in.log->topics[0];
    if (t == tr::kToolRegisteredTopic) return on_tool_registered(in);
    if (t == tr::kToolMetadataUpdatedTopic) return on_metadata_updated(in);
    if (t == tr::kAccessPredicateUpdatedTopic) return on_predicate_updated(in);
    if (t == tr::kToolDeregisteredTopic) return on_deregistered(in);
    return std::unexpected(unknown_event("tool", *in.log));
}

}  // namespace credence::index::rules
