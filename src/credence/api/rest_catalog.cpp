// The tool, workflow-run, resolver and operations routes (docs/api.md).
#include <algorithm>

#include <fmt/format.h>

#include <credence/api/detail/rest_common.hpp>
#include <credence/api/detail/rest_list.hpp>
#include <credence/chain/bindings/i_agent_workflow.hpp>
#include <credence/chain/bindings/identity_registry.hpp>
#include <credence/chain/bindings/reputation_registry.hpp>
#include <credence/chain/bindings/tool_registry.hpp>
#include <credence/chain/bindings/validation_registry.hpp>
#include <credence/core/uint256.hpp>
#include <credence/index/feedback_table.hpp>
#include <credence/index/sources.hpp>
#include <credence/index/verification_table.hpp>
#include <credence/verify/verifiers/evidence.hpp>
#include <credence/verify/verifiers/evidence_source.hpp>
#include <credence/verify/verifiers/resolver.hpp>

namespace credence::api::detail {

namespace {

using index::DbRow;
using index::DbValue;

/// A tool row with its profile and latest check ($2: the zero address); the WHERE clause follows.
const std::string& tool_columns() {
    static const std::string kColumns =
        "SELECT t.registry, t.tool_id, t.creator, t.metadata_uri, t.manifest_hash, "
        "t.access_predicate, t.deregistered, t.registered_block_num, p.name, p.description, "
        "p.version, p.tags, p.pricing_protocols, p.assets, p.access_kinds, v.status, v.reason, "
        "t.chain_id FROM tools t "
        "LEFT JOIN tool_profiles p ON p.chain_id = t.chain_id AND p.registry = t.registry AND "
        "p.tool_id = t.tool_id " +
        index::latest_check_join({index::SubjectKind::tool, "v", "t", "registry", "tool_id", "$2"});
    return kColumns;
}

Json tool_json(const DbRow& r) {
    const auto list = [&](size_t i) { return comma_list(as_text(r[i]).value_or("")); };
    return Json{{"chain_id", int_or_null(r[17])},
                {"registry", address_or_null(r[0])},
                {"tool_id", uint256_or_null(r[1])},
                {"creator", address_or_null(r[2])},
                {"metadata_uri", text_or_null(r[3])},
                {"manifest_hash", hex_or_null(r[4])},
                {"access_predicate", address_or_null(r[5])},
                {"deregistered", as_int(r[6]).value_or(0) != 0},
                {"registered_block_num", int_or_null(r[7])},
                {"name", text_or_null(r[8])},
                {"description", text_or_null(r[9])},
                {"version", text_or_null(r[10])},
                {"tags", list(11)},
                {"pricing_protocols", list(12)},
                {"assets", list(13)},
                {"access_kinds", list(14)},
                {"verification", text_or_null(r[15])},
                {"reason", text_or_null(r[16])}};
}

/// A run row with its task and reply counts and its latest check ($2: the zero address); the
/// WHERE clause follows.
const std::string& run_columns() {
    static const std::string kColumns =
        "SELECT r.workflow, r.run_id, r.status, r.final_task_hash, r.completed_at, "
        "r.started_block_num, r.completed_block_num, "
        "(SELECT COUNT(*) FROM workflow_tasks t WHERE t.chain_id = r.chain_id AND "
        "t.workflow = r.workflow AND t.run_id = r.run_id), "
        "(SELECT COUNT(*) FROM workflow_replies y WHERE y.chain_id = r.chain_id AND "
        "y.workflow = r.workflow AND y.run_id = r.run_id), v.status, r.chain_id "
        "FROM workflow_runs r " +
        index::latest_check_join({index::SubjectKind::run, "v", "r", "workflow", "run_id", "$2"});
    return kColumns;
}

Json run_json(const DbRow& r) {
    return Json{
        {"chain_id", int_or_null(r[10])},
        {"workflow", address_or_null(r[0])},
        {"run_id", hex_or_null(r[1])},
        {"status", verify::run_status_name(static_cast<uint64_t>(as_int(r[2]).value_or(0)))},
        {"final_task_hash", hex_or_null(r[3])},
        {"completed_at", int_or_null(r[4])},
        {"started_block_num", int_or_null(r[5])},
        {"completed_block_num", int_or_null(r[6])},
        {"tasks", int_or_null(r[7])},
        {"replies", int_or_null(r[8])},
        {"verification", text_or_null(r[9])}};
}

}  // namespace

ApiResult<Json> list_tools(Ctx& ctx) {
    const HttpRequest& request = ctx.request;
    if (auto ok = check_params(request, {"q", "tag", "pricing", "asset", "access", "verification",
                                         "include_deregistered", "limit", "cursor"});
        !ok) {
        return std::unexpected(ok.error());
    }
    auto limit = limit_param(request);
    if (!limit) return std::unexpected(limit.error());
    // $1 the first chain, $2 the zero address (tool_columns), then the chains' keys.
    SqlWhere where("", {chain(ctx), blob(core::Address{})});
    const ChainKeys chains(where, ctx.chains,
                           [](const ApiScope& scope) { return scope.tool_registries; });
    where.add(chains.clause("t", "registry"));
    // The tool profile: free text in search_text (migration 3), whole entries of its lists in
    // tool_profile_terms (migration 6; the list names are profile_store's).
    constexpr std::array<ListFilter, 5> kFilters{{
        {"q", "p.search_text", true},
        {"tag", "tag"},
        {"pricing", "pricing"},
        {"asset", "asset"},
        {"access", "access"},
    }};
    constexpr TermTable kTerms{"tool_profile_terms",
                               "{0}.chain_id = t.chain_id AND {0}.registry = t.registry AND "
                               "{0}.tool_id = t.tool_id"};
    if (auto ok = add_list_filters(request, kFilters, kTerms, where); !ok) {
        return std::unexpected(ok.error());
    }
    auto include_deregistered = bool_param(request, "include_deregistered");
    if (!include_deregistered) return std::unexpected(include_deregistered.error());
    if (!include_deregistered->value_or(false)) where.add("t.deregistered = 0");
    if (auto ok = add_verification_filter(request, "v.status", where); !ok) {
        return std::unexpected(ok.error());
    }
    // Key order: chain, registry, tool_id (docs/api.md §Chains).
    auto cursor = cursor_param(request, "tools", 3);
    if (!cursor) return std::unexpected(cursor.error());
    if (const std::optional<std::vector<std::string>> parts = std::move(*cursor);
        parts.has_value()) {
        const auto chain_id = cursor_int((*parts)[0]);
        auto registry = cursor_bytes((*parts)[1], 20);
        auto tool_id = cursor_bytes((*parts)[2], 32);
        if (!chain_id || !registry || !tool_id) return std::unexpected(bad_cursor());
        const size_t registry_n = where.bind(std::move(*registry));
        const size_t tool_n = where.bind(std::move(*tool_id));
        std::string after = fmt::format(
            "(t.registry > ${0} OR (t.registry = ${0} AND t.tool_id > ${1}))", registry_n, tool_n);
        if (chains.several()) {
            const size_t chain_n = where.bind(*chain_id);
            after =
                fmt::format("(t.chain_id > ${0} OR (t.chain_id = ${0} AND {1}))", chain_n, after);
        }
        where.add(after);
    }
    const size_t limit_n = where.bind(static_cast<int64_t>(*limit + 1));
    auto rows =
        ctx.db.query(fmt::format("{} WHERE {} ORDER BY t.chain_id, t.registry, t.tool_id LIMIT ${}",
                                 tool_columns(), where.sql(), limit_n),
                     where.params());
    if (!rows) return std::unexpected(unavailable(rows.error()));
    const auto cursor_parts = [&](size_t last) {
        const DbRow& row = (*rows)[last];
        return std::array<std::string, 3>{std::to_string(as_int(row[17]).value_or(0)),
                                          core::to_hex(as_bytes(row[0]), false),
                                          core::to_hex(as_bytes(row[1]), false)};
    };
    Json out = Json::object();
    if (auto ok = put_page(out, *rows, *limit, "tools", tool_json, cursor_parts); !ok) {
        return std::unexpected(ok.error());
    }
    return out;
}

ApiResult<Json> get_tool(Ctx& ctx) {
    if (auto ok = check_params(ctx.request, {"registry"}); !ok) return std::unexpected(ok.error());
    auto tool_id = parse_uint256_id(ctx.captures.at(0), "tool_id");
    if (!tool_id) return std::unexpected(tool_id.error());
    SqlWhere where("t.chain_id = $1 AND t.tool_id = $3",
                   {chain(ctx), blob(core::Address{}), *tool_id});
    if (const std::string* registry = ctx.request.param("registry")) {
        auto address = parse_address(*registry, "registry");
        if (!address) return std::unexpected(address.error());
        where.add("t.registry = ${}", blob(*address));
    } else {
        where.add_in("t.registry", ctx.scope.tool_registries);
    }
    auto rows = ctx.db.query(
        fmt::format("{} WHERE {} ORDER BY t.registry LIMIT 2", tool_columns(), where.sql()),
        where.params());
    if (!rows) return std::unexpected(unavailable(rows.error()));
    if (rows->empty()) return std::unexpected(not_found("no such tool"));
    if (rows->size() > 1) {
        return std::unexpected(
            bad_parameter("several tool registries hold this tool_id: pass registry"));
    }
    const DbRow& row = rows->front();
    Json out = tool_json(row);
    const core::Bytes registry_bytes = as_bytes(row[0]);
    auto registry = core::Address::from_bytes(registry_bytes);
    if (!registry) return std::unexpected(not_found("no such tool"));
    const index::VerificationSubject subject{index::SubjectKind::tool, *registry, *tool_id, {}, 0};
    auto record = index::load_verification(ctx.db, ctx.scope.chain_id, subject);
    if (!record) return std::unexpected(unavailable(record.error()));
    const std::optional<index::VerificationRecord> stored = std::move(*record);
    out["verification_record"] = stored.has_value() ? verification_json(*stored) : Json(nullptr);
    const std::array<DbValue, 3> key{chain(ctx), blob(*registry), *tool_id};
    auto history = ctx.db.query(
        "SELECT event, block_num, log_index, txn_hash, metadata_uri, manifest_hash, "
        "access_predicate FROM tool_history WHERE chain_id = $1 AND registry = $2 AND "
        "tool_id = $3 ORDER BY block_num, log_index LIMIT 500",
        key);
    if (!history) return std::unexpected(unavailable(history.error()));
    Json events = Json::array();
    for (const DbRow& h : *history) {
        events.push_back(Json{{"event", text_or_null(h[0])},
                              {"block_num", int_or_null(h[1])},
                              {"log_index", int_or_null(h[2])},
                              {"txn_hash", hex_or_null(h[3])},
                              {"metadata_uri", text_or_null(h[4])},
                              {"manifest_hash", hex_or_null(h[5])},
                              {"access_predicate", address_or_null(h[6])}});
    }
    out["history"] = std::move(events);
    return out;
}

ApiResult<Json> list_runs(Ctx& ctx) {
    const HttpRequest& request = ctx.request;
    if (auto ok = check_params(request, {"workflow", "status", "limit", "cursor"}); !ok) {
        return std::unexpected(ok.error());
    }
    auto limit = limit_param(request);
    if (!limit) return std::unexpected(limit.error());
    // $1 the first chain, $2 the zero address (run_columns), then the chains' keys.
    SqlWhere where("", {chain(ctx), blob(core::Address{})});
    std::optional<core::Address> workflow;
    if (const std::string* text = request.param("workflow")) {
        auto address = parse_address(*text, "workflow");
        if (!address) return std::unexpected(address.error());
        workflow = *address;
    }
    const ChainKeys chains(where, ctx.chains, [&](const ApiScope& scope) {
        return workflow ? std::vector<core::Address>{*workflow} : scope.workflows;
    });
    where.add(chains.clause("r", "workflow"));
    // ERC-8301 RunStatus: 0 Pending, 1 Success, 2 Failed (the index of each name).
    constexpr std::array<std::string_view, 3> kStatuses{"pending", "success", "failed"};
    auto status = choice_param(request, "status", kStatuses, kStatuses.size(),
                               "status must be pending, success or failed", true);
    if (!status) return std::unexpected(status.error());
    if (*status < kStatuses.size()) where.add("r.status = ${}", static_cast<int64_t>(*status));
    const std::string started = "COALESCE(r.started_block_num, 0)";
    // Newest first, then key order: chain, workflow, run_id (docs/api.md §Chains).
    auto cursor = cursor_param(request, "runs", 4);
    if (!cursor) return std::unexpected(cursor.error());
    if (const std::optional<std::vector<std::string>> parts = std::move(*cursor);
        parts.has_value()) {
        const auto block = cursor_int((*parts)[0]);
        const auto chain_id = cursor_int((*parts)[1]);
        auto last_workflow = cursor_bytes((*parts)[2], 20);
        auto run_id = cursor_bytes((*parts)[3], 32);
        if (!block || !chain_id || !last_workflow || !run_id) return std::unexpected(bad_cursor());
        const size_t block_n = where.bind(*block);
        const size_t chain_n = where.bind(*chain_id);
        const size_t workflow_n = where.bind(std::move(*last_workflow));
        const size_t run_n = where.bind(std::move(*run_id));
        where.add(fmt::format(
            "({0} < ${1} OR ({0} = ${1} AND (r.chain_id > ${2} OR (r.chain_id = ${2} AND "
            "(r.workflow > ${3} OR (r.workflow = ${3} AND r.run_id > ${4}))))))",
            started, block_n, chain_n, workflow_n, run_n));
    }
    const size_t limit_n = where.bind(static_cast<int64_t>(*limit + 1));
    auto rows = ctx.db.query(
        fmt::format("{} WHERE {} ORDER BY {} DESC, r.chain_id, r.workflow, r.run_id LIMIT ${}",
                    run_columns(), where.sql(), started, limit_n),
        where.params());
    if (!rows) return std::unexpected(unavailable(rows.error()));
    const auto cursor_parts = [&](size_t last) {
        const DbRow& row = (*rows)[last];
        return std::array<std::string, 4>{
            std::to_string(as_int(row[5]).value_or(0)), std::to_string(as_int(row[10]).value_or(0)),
            core::to_hex(as_bytes(row[0]), false), core::to_hex(as_bytes(row[1]), false)};
    };
    Json out = Json::object();
    if (auto ok = put_page(out, *rows, *limit, "runs", run_json, cursor_parts); !ok) {
        return std::unexpected(ok.error());
    }
    return out;
}

ApiResult<Json> get_run(Ctx& ctx) {
    if (auto ok = check_params(ctx.request, {"workflow"}); !ok) return std::unexpected(ok.error());
    auto run_id = parse_hash32(ctx.captures.at(0), "run_id");
    if (!run_id) return std::unexpected(run_id.error());
    SqlWhere where("r.chain_id = $1 AND r.run_id = $3",
                   {chain(ctx), blob(core::Address{}), *run_id});
    if (const std::string* workflow = ctx.request.param("workflow")) {
        auto address = parse_address(*workflow, "workflow");
        if (!address) return std::unexpected(address.error());
        where.add("r.workflow = ${}", blob(*address));
    } else {
        where.add_in("r.workflow", ctx.scope.workflows);
    }
    auto rows = ctx.db.query(
        fmt::format("{} WHERE {} ORDER BY r.workflow LIMIT 2", run_columns(), where.sql()),
        where.params());
    if (!rows) return std::unexpected(unavailable(rows.error()));
    if (rows->empty()) return std::unexpected(not_found("no such run"));
    if (rows->size() > 1) {
        return std::unexpected(bad_parameter("several workflows hold this run_id: pass workflow"));
    }
    Json out = run_json(rows->front());
    auto workflow = core::Address::from_bytes(as_bytes(rows->front()[0]));
    if (!workflow) return std::unexpected(not_found("no such run"));
    core::Hash32 run_hash{};
    std::ranges::copy(*run_id, run_hash.begin());
    // ERC-8301 evidence chain, verified offline from the index (verify/verifiers/evidence.hpp).
    auto source =
        verify::make_index_evidence_source(ctx.db, run_hash, ctx.scope.chain_id, *workflow);
    if (!source) {
        if (source.error().kind == verify::SourceErrorKind::rpc) {
            return std::unexpected(ApiError{503, "unavailable", "database unavailable",
                                            fmt::format("index: {}", source.error().message)});
        }
        out["evidence"] = nullptr;
        out["evidence_error"] = source.error().message;
        return out;
    }
    auto report = verify::verify_run(**source, run_hash);
    if (!report) {
        out["evidence"] = nullptr;
        out["evidence_error"] = report.error().to_string();
        return out;
    }
    out["evidence"] =
        Json::parse(verify::to_json(*report).dump(-1, ' ', false, Json::error_handler_t::replace));
    out["evidence_error"] = nullptr;
    return out;
}

namespace {

/// A resolver's items on each chain the route spans, in the chains' order, each with its
/// chain_id (docs/api.md §Chains).
ApiResult<Json> resolve_on_chains(Ctx& ctx, ApiResult<Json> (*resolve)(Ctx&)) {
    Json items = Json::array();
    for (const ApiScope& scope : ctx.chains) {
        Ctx on_chain{scope, ctx.db, ctx.request, ctx.captures, ctx.chains};
        auto answer = resolve(on_chain);
        if (!answer) return std::unexpected(answer.error());
        for (Json& item : (*answer)["items"]) {
            Json with_chain{{"chain_id", scope.chain_id}};
            with_chain.update(item);
            items.push_back(std::move(with_chain));
        }
    }
    return Json{{"items", std::move(items)}};
}

ApiResult<Json> resolve_address_on_chain(Ctx& ctx) {
    auto address = parse_address(ctx.captures.at(0), "address");
    if (!address) return std::unexpected(address.error());
    // Erc-8004 first draft §Public Resolvers, ResolveByAddress (verify/verifiers/resolver.hpp).
    verify::IndexFilter filter{ctx.scope.chain_id, ctx.scope.identity_registry};
    auto found = verify::resolve_by_address(ctx.db, *address, filter);
    if (!found) return std::unexpected(unavailable(found.error()));
    Json items = Json::array();
    for (const auto& agent : *found) items.push_back(agent.to_json());
    return Json{{"items", std::move(items)}};
}

/// ERC-8004 first draft §Identity Registry, ResolveByDomain: the registry's own AgentDomain (one
/// per agent, unique; compared case-insensitively as DNS names are).
ApiResult<Json> resolve_draft_domain(Ctx& ctx, const std::string& domain) {
    const std::array<DbValue, 3> params{chain(ctx), blob(ctx.scope.identity_registry),
                                        ascii_lower(domain)};
    auto rows = ctx.db.query(
        "SELECT agent_id, owner, agent_domain FROM agents WHERE chain_id = $1 AND registry = $2 "
        "AND lower(agent_domain) = $3 ORDER BY agent_id LIMIT 1000",
        params);
    if (!rows) return std::unexpected(unavailable(rows.error()));
    Json items = Json::array();
    for (const DbRow& r : *rows) {
        items.push_back(
            Json{{"agentId", uint256_or_null(r[0])},
                 {"agentRegistry", fmt::format("eip155:{}:{}", ctx.scope.chain_id,
                                               ctx.scope.identity_registry.to_checksum_hex())},
                 {"agentAddress", address_or_null(r[1])},
                 {"agentDomain", text_or_null(r[2])},
                 {"matchedBy", Json::array({"domain"})}});
    }
    return Json{{"items", std::move(items)}};
}

ApiResult<Json> resolve_domain_on_chain(Ctx& ctx) {
    // A URL's slashes arrive as "%2F": the request target keeps them encoded inside a segment
    // (http_target.cpp), and here they are the URL's own.
    std::string text = ctx.captures.at(0);
    for (size_t at = 0; (at = text.find('%', at)) != std::string::npos;) {
        if (text.compare(at, 3, "%2F") == 0 || text.compare(at, 3, "%2f") == 0) {
            text.replace(at, 3, "/");
        }
        ++at;
    }
    if (text.size() > 2048 || !is_valid_utf8(text)) {
        return std::unexpected(bad_parameter("domain is not a DNS name"));
    }
    auto domain = verify::normalize_domain(text);
    if (!domain) return std::unexpected(bad_parameter("domain is not a DNS name"));
    if (ctx.scope.revision == core::Erc8004Revision::draft)
        return resolve_draft_domain(ctx, *domain);
    // ERC-8004 first draft §Public Resolvers, ResolveByDomain, over stored results: a domain is
    // the agent's only when its latest check verified it (agent_profiles.domains, one entry per
    // row in agent_profile_terms: an index lookup).
    const std::array<DbValue, 3> params{chain(ctx), blob(ctx.scope.identity_registry),
                                        ascii_lower(*domain)};
    auto rows = ctx.db.query(
        "SELECT a.agent_id, a.owner, a.wallet, a.agent_uri, p.domains FROM agent_profile_terms d "
        "JOIN agents a ON a.chain_id = d.chain_id AND a.registry = d.registry AND "
        "a.agent_id = d.agent_id JOIN agent_profiles p ON p.chain_id = d.chain_id AND "
        "p.registry = d.registry AND p.agent_id = d.agent_id WHERE d.chain_id = $1 AND "
        "d.registry = $2 AND d.list = 'domain' AND d.term = $3 AND a.owner IS NOT NULL "
        "ORDER BY a.agent_id LIMIT 1000",
        params);
    if (!rows) return std::unexpected(unavailable(rows.error()));
    Json items = Json::array();
    for (const DbRow& r : *rows) {
        verify::ResolvedAgent resolved;
        resolved.agent.chain_id = ctx.scope.chain_id;
        resolved.agent.identity_registry = ctx.scope.identity_registry;
        auto id = core::Uint256::from_be_bytes(as_bytes(r[0]));
        auto owner = core::Address::from_bytes(as_bytes(r[1]));
        if (!id || !owner) continue;
        resolved.agent.agent_id = *id;
        resolved.agent.owner = *owner;
        if (auto wallet = core::Address::from_bytes(as_bytes(r[2])))
            resolved.agent.wallet = *wallet;
        resolved.agent.agent_uri = as_text(r[3]).value_or("");
        for (const auto& d : comma_list(as_text(r[4]).value_or(""))) {
            resolved.domains.push_back(d.get<std::string>());
        }
        resolved.matched_by.push_back(verify::ResolveMatch::domain);
        items.push_back(resolved.to_json());
    }
    return Json{{"items", std::move(items)}};
}

}  // namespace

ApiResult<Json> resolve_address(Ctx& ctx) {
    if (auto ok = check_params(ctx.request, {}); !ok) return std::unexpected(ok.error());
    return resolve_on_chains(ctx, &resolve_address_on_chain);
}

ApiResult<Json> resolve_domain(Ctx& ctx) {
    if (auto ok = check_params(ctx.request, {}); !ok) return std::unexpected(ok.error());
    return resolve_on_chains(ctx, &resolve_domain_on_chain);
}

ApiResult<Json> chain_status(Ctx& ctx, const Json& node_status) {
    if (auto ok = check_params(ctx.request, {}); !ok) return std::unexpected(ok.error());
    const std::array<DbValue, 1> chain_param{chain(ctx)};
    auto cursor = ctx.db.query("SELECT block_num FROM cursors WHERE chain_id = $1", chain_param);
    if (!cursor) return std::unexpected(unavailable(cursor.error()));
    Json out{
        {"chain_id", ctx.scope.chain_id},
        {"indexed_block_num", cursor->empty() ? Json(nullptr) : int_or_null(cursor->front()[0])}};
    Json tools = Json::array();
    for (const auto& a : ctx.scope.tool_registries) tools.push_back(a.to_checksum_hex());
    Json workflows = Json::array();
    for (const auto& a : ctx.scope.workflows) workflows.push_back(a.to_checksum_hex());
    // Every chain the node follows (docs/api.md §Chains); the rest of the answer is the default
    // chain's.
    Json chains = Json::array();
    for (const ApiScope& scope : ctx.chains) {
        chains.push_back(
            Json{{"chain_id", scope.chain_id},
                 {"agent_registry", agent_registry_of(scope.chain_id, scope.identity_registry)}});
    }
    out["chains"] = std::move(chains);
    out["registries"] = Json{{"identity", ctx.scope.identity_registry.to_checksum_hex()},
                             {"reputation", ctx.scope.reputation_registry.to_checksum_hex()},
                             {"validation", ctx.scope.validation_registry.to_checksum_hex()},
                             {"tools", std::move(tools)},
                             {"workflows", std::move(workflows)}};
    // Rows of this chain (and registry, for the ERC-8004 tables).
    const auto count_rows = [&](std::string_view table,
                                const core::Address* registry) -> ApiResult<Json> {
        std::vector<DbValue> params{chain(ctx)};
        std::string sql = fmt::format("SELECT COUNT(*) FROM {} WHERE chain_id = $1", table);
        if (registry != nullptr) {
            params.push_back(blob(*registry));
            sql += " AND registry = $2";
        }
        auto rows = ctx.db.query(sql, params);
        if (!rows) return std::unexpected(unavailable(rows.error()));
        return Json(as_int(rows->front()[0]).value_or(0));
    };
    auto agent_count = count_rows("agents", &ctx.scope.identity_registry);
    if (!agent_count) return std::unexpected(agent_count.error());
    auto feedback =
        index::count_registry_feedback(ctx.db, ctx.scope.chain_id, ctx.scope.reputation_registry);
    if (!feedback) return std::unexpected(unavailable(feedback.error()));
    auto validation_count = count_rows("validation_requests", &ctx.scope.validation_registry);
    if (!validation_count) return std::unexpected(validation_count.error());
    auto tool_count = count_rows("tools", nullptr);
    if (!tool_count) return std::unexpected(tool_count.error());
    auto run_count = count_rows("workflow_runs", nullptr);
    if (!run_count) return std::unexpected(run_count.error());
    Json count_json{
        {"agents", std::move(*agent_count)},         {"feedback", feedback->feedback},
        {"feedback_responses", feedback->responses}, {"validations", std::move(*validation_count)},
        {"tools", std::move(*tool_count)},           {"runs", std::move(*run_count)}};
    out["counts"] = std::move(count_json);
    if (!node_status.is_null()) out["node"] = node_status;
    return out;
}

ApiResult<Json> home(Ctx& ctx, const Json& node_status) {
    auto status = chain_status(ctx, node_status);
    if (!status) return std::unexpected(status.error());
    namespace b = chain::bindings;
    struct EventName {
        const core::Hash32* topic;
        std::string_view name;
    };
    const std::array<EventName, 19> names{{
        {&b::identity_registry::kRegisteredTopic, "Registered"},
        {&b::identity_registry::kUriUpdatedTopic, "URIUpdated"},
        {&b::identity_registry::kMetadataSetTopic, "MetadataSet"},
        {&b::identity_registry::kTransferTopic, "Transfer"},
        {&b::identity_registry::kApprovalTopic, "Approval"},
        {&b::identity_registry::kApprovalForAllTopic, "ApprovalForAll"},
        {&b::reputation_registry::kNewFeedbackTopic, "NewFeedback"},
        {&b::reputation_registry::kFeedbackRevokedTopic, "FeedbackRevoked"},
        {&b::reputation_registry::kResponseAppendedTopic, "ResponseAppended"},
        {&b::validation_registry::kValidationRequestTopic, "ValidationRequest"},
        {&b::validation_registry::kValidationResponseTopic, "ValidationResponse"},
        {&b::tool_registry::kToolRegisteredTopic, "ToolRegistered"},
        {&b::tool_registry::kToolMetadataUpdatedTopic, "ToolMetadataUpdated"},
        {&b::tool_registry::kAccessPredicateUpdatedTopic, "AccessPredicateUpdated"},
        {&b::tool_registry::kToolDeregisteredTopic, "ToolDeregistered"},
        {&b::i_agent_workflow::kNewAgentTaskTopic, "NewAgentTask"},
        {&b::i_agent_workflow::kAgentReplyAnchoredTopic, "AgentReplyAnchored"},
        {&b::i_agent_workflow::kWorkflowCompletedTopic, "WorkflowCompleted"},
        {&b::identity_registry::kEip712DomainChangedTopic, "EIP712DomainChanged"},
    }};
    const std::array<DbValue, 1> chain_param{chain(ctx)};
    // raw_logs' key (chain_id, block_num, log_index) makes the latest logs an index scan.
    auto rows = ctx.db.query(
        "SELECT block_num, log_index, txn_hash, address, kind, topic0, entity FROM raw_logs "
        "WHERE chain_id = $1 ORDER BY block_num DESC, log_index DESC LIMIT 20",
        chain_param);
    if (!rows) return std::unexpected(unavailable(rows.error()));
    Json recent = Json::array();
    for (const DbRow& r : *rows) {
        const core::Bytes topic0 = as_bytes(r[5]);
        std::string event = "unknown";
        for (const auto& n : names) {
            if (topic0.size() == 32 && std::ranges::equal(topic0, *n.topic)) {
                event = std::string(n.name);
                break;
            }
        }
        const auto kind = static_cast<index::ContractKind>(as_int(r[4]).value_or(0));
        Json item{{"kind", ""},
                  {"event", event},
                  {"block_num", int_or_null(r[0])},
                  {"log_index", int_or_null(r[1])},
                  {"txn_hash", hex_or_null(r[2])},
                  {"address", address_or_null(r[3])}};
        switch (kind) {
            case index::ContractKind::identity_registry:
                item["kind"] = "agent";
                item["agent_id"] = uint256_or_null(r[6]);
                break;
            case index::ContractKind::reputation_registry:
                item["kind"] = "feedback";
                item["agent_id"] = uint256_or_null(r[6]);
                break;
            case index::ContractKind::validation_registry:
                item["kind"] = "validation";
                item["request_hash"] = hex_or_null(r[6]);
                break;
            case index::ContractKind::tool_registry:
                item["kind"] = "tool";
                item["tool_id"] = uint256_or_null(r[6]);
                break;
            case index::ContractKind::workflow:
                item["kind"] = "run";
                item["run_id"] = hex_or_null(r[6]);
                break;
            default:
                item["kind"] = std::string(index::to_string(kind));
                break;
        }
        recent.push_back(std::move(item));
    }
    return Json{{"status", std::move(*status)}, {"recent", std::move(recent)}};
}

}  // namespace credence::api::detail
