// The OpenAPI 3.1 document of the REST API (served at /openapi.json; docs/api.md is the prose).
// Built once from a table of routes so that every route of rest_api.cpp is described; the
// structural test (rest_api_test.cpp) checks that every route answers and is listed here.
#include <string_view>

#include <credence/api/detail/rest_common.hpp>

namespace credence::api::detail {

namespace {

struct Param {
    std::string_view name;
    std::string_view in;  ///< "path" or "query"
    std::string_view type;
    std::string_view description;
};

struct Operation {
    std::string_view path;
    std::string_view summary;
    std::string_view tag;
    std::initializer_list<Param> params;
    std::string_view schema;  ///< a components/schemas name for the 200 answer
};

const Param kLimit{"limit", "query", "integer", "Page size, 1..100 (default 20)"};
const Param kCursor{"cursor", "query", "string", "Opaque cursor: the previous next_cursor"};
const Param kRevision{
    "revision", "query", "string",
    "ERC-8004 revision whose registries answer: current (default), score or draft"};
const Param kAgentId{"agent_id", "path", "string", "uint256, decimal or 0x-hex"};
const Param kChainId{"chain_id", "path", "integer",
                     "A chain the node follows (docs/api.md §Chains): its EIP-155 chain id"};
const Param kChainFilter{
    "chain", "query", "string",
    "Only these chains: chain ids, repeated or comma-separated (default: every "
    "chain the node follows)"};
const Param kAgentRegistry{"registry", "query", "string",
                           "ERC-8004 agentRegistry eip155:<chainId>:<identityRegistry>: the agent "
                           "of that chain and registry (default: the node's default chain)"};

/// The routes that also exist under /api/v1/chains/{chain_id}/ (docs/api.md §Chains): the
/// entity routes, and the status and home of one chain.
bool has_chain_route(std::string_view path) {
    if (path == "/api/v1/status" || path == "/api/v1/home") return true;
    for (const std::string_view prefix :
         {"/api/v1/agents/{agent_id}", "/api/v1/tools/{tool_id}", "/api/v1/runs/{run_id}"}) {
        if (path.starts_with(prefix)) return true;
    }
    return false;
}

Json param_json(const Param& p) {
    Json schema{{"type", p.type}};
    if (p.name == "limit") {
        schema["minimum"] = 1;
        schema["maximum"] = 100;
    }
    Json out{{"name", p.name},
             {"in", p.in},
             {"required", p.in == "path"},
             {"description", p.description},
             {"schema", std::move(schema)}};
    return out;
}

Json build() {
    const std::initializer_list<Operation> operations{
        {"/healthz", "Liveness and database check", "operations", {}, "Health"},
        {"/metrics", "Prometheus metrics (text)", "operations", {}, ""},
        {"/openapi.json", "This document", "operations", {}, "Object"},
        {"/api/v1/status",
         "Chain status: indexed block, registries, counts",
         "operations",
         {},
         "Status"},
        {"/api/v1/home", "Home page: status and the latest events", "operations", {}, "Home"},
        {"/api/v1/agents",
         "Search agents",
         "agents",
         {{"q", "query", "string", "Text in name, description, skills, service names"},
          {"service", "query", "string", "Service type: a2a, mcp, oasf, ens, did, web, email, ..."},
          {"skill", "query", "string", "An OASF or agent-card skill"},
          {"domain", "query", "string", "A verified endpoint domain"},
          {"trust_model", "query", "string", "A supportedTrust entry"},
          {"active", "query", "boolean", "The registration file's active flag"},
          {"min_score", "query", "number", "Minimum trust score"},
          {"verification", "query", "string", "verified, unverified, unreachable or none"},
          {"owner", "query", "string", "Owner address"},
          {"sort", "query", "string", "id (default), newest or score"},
          kChainFilter,
          kLimit,
          kCursor,
          kRevision},
         "AgentPage"},
        {"/api/v1/agents/{agent_id}",
         "Agent detail",
         "agents",
         {kAgentId, kAgentRegistry, kRevision},
         "Agent"},
        {"/api/v1/agents/{agent_id}/feedback",
         "Feedback with responses (ERC-8004 readAllFeedback filters)",
         "agents",
         {kAgentId,
          kAgentRegistry,
          {"client", "query", "string", "Client address; repeat or comma-separate"},
          {"tag1", "query", "string", "Exact tag1"},
          {"tag2", "query", "string", "Exact tag2"},
          {"include_revoked", "query", "boolean", "Include revoked feedback"},
          kLimit,
          kCursor,
          kRevision},
         "FeedbackPage"},
        {"/api/v1/agents/{agent_id}/reputation",
         "getSummary mirror, trust score and explanation",
         "agents",
         {kAgentId,
          kAgentRegistry,
          {"client", "query", "string", "Client address; repeat or comma-separate"},
          {"tag1", "query", "string", "Exact tag1"},
          {"tag2", "query", "string", "Exact tag2"},
          kRevision},
         "Reputation"},
        {"/api/v1/agents/{agent_id}/reputation/history",
         "Feedback averages over block ranges",
         "agents",
         {kAgentId,
          kAgentRegistry,
          {"buckets", "query", "integer", "Number of block ranges, 1..500"},
          kRevision},
         "History"},
        {"/api/v1/agents/{agent_id}/validations",
         "Validation requests and the ValidationRegistry getSummary mirror",
         "agents",
         {kAgentId,
          kAgentRegistry,
          {"validator", "query", "string", "Validator address; repeat or comma-separate"},
          {"tag", "query", "string", "Exact response tag"},
          kRevision},
         "Validations"},
        {"/api/v1/tools",
         "Search ERC-8257 tools",
         "tools",
         {{"q", "query", "string", "Text in name, description, tags"},
          {"tag", "query", "string", "A manifest tag"},
          {"pricing", "query", "string", "Pricing protocol"},
          {"asset", "query", "string", "Pricing asset"},
          {"access", "query", "string", "Access requirement kind"},
          {"verification", "query", "string", "verified, unverified, unreachable or none"},
          {"include_deregistered", "query", "boolean", "List deregistered tools too"},
          kChainFilter,
          kLimit,
          kCursor},
         "ToolPage"},
        {"/api/v1/tools/{tool_id}",
         "Tool detail with its verification report",
         "tools",
         {{"tool_id", "path", "string", "uint256, decimal or 0x-hex"},
          {"registry", "query", "string", "Tool registry address"}},
         "Tool"},
        {"/api/v1/runs",
         "ERC-8301 workflow runs",
         "workflows",
         {{"workflow", "query", "string", "Workflow address"},
          {"status", "query", "string", "pending, success or failed"},
          kChainFilter,
          kLimit,
          kCursor},
         "RunPage"},
        {"/api/v1/runs/{run_id}",
         "A run and its evidence trace (verified offline from the index)",
         "workflows",
         {{"run_id", "path", "string", "bytes32 run id"},
          {"workflow", "query", "string", "Workflow address"}},
         "Run"},
        {"/api/v1/resolve/address/{address}",
         "Agents whose owner or agentWallet is the address",
         "resolvers",
         {{"address", "path", "string", "An address"}, kChainFilter, kRevision},
         "Resolved"},
        {"/api/v1/resolve/domain/{domain}",
         "Agents with the domain verified",
         "resolvers",
         {{"domain", "path", "string", "A host name or URL"}, kChainFilter, kRevision},
         "Resolved"},
    };

    Json paths = Json::object();
    for (const Operation& op : operations) {
        Json params = Json::array();
        for (const Param& p : op.params) params.push_back(param_json(p));
        Json ok{{"description", "OK"}};
        if (op.schema.empty()) {
            ok["content"] = Json{{"text/plain", Json{{"schema", Json{{"type", "string"}}}}}};
        } else {
            ok["content"] =
                Json{{"application/json",
                      Json{{"schema", Json{{"$ref", std::string("#/components/schemas/") +
                                                        std::string(op.schema)}}}}}};
        }
        const auto error = [](std::string_view description) {
            return Json{{"description", description},
                        {"content",
                         Json{{"application/json",
                               Json{{"schema", Json{{"$ref", "#/components/schemas/Error"}}}}}}}};
        };
        Json responses{{"200", std::move(ok)},
                       {"400", error("Bad parameter, unknown parameter or bad cursor")},
                       {"404", error("No such route or entity")},
                       {"405", error("Method not allowed")},
                       {"429", error("Rate limited (Retry-After)")},
                       {"503", error("Database unavailable")}};
        Json get{{"summary", op.summary},
                 {"tags", Json::array({op.tag})},
                 {"operationId", std::string(op.path)},
                 {"parameters", std::move(params)},
                 {"responses", std::move(responses)}};
        if (has_chain_route(op.path)) {
            // The same operation on a chain named in the path; agentRegistry would name it twice.
            Json on_chain = get;
            Json chain_params = Json::array({param_json(kChainId)});
            for (const Param& p : op.params) {
                if (p.name != kAgentRegistry.name || p.description != kAgentRegistry.description) {
                    chain_params.push_back(param_json(p));
                }
            }
            const std::string path = "/api/v1/chains/{chain_id}/" + std::string(op.path.substr(8));
            on_chain["operationId"] = path;
            on_chain["parameters"] = std::move(chain_params);
            paths[path] = Json{{"get", std::move(on_chain)}};
        }
        paths[std::string(op.path)] = Json{{"get", std::move(get)}};
    }

    const auto object = [](std::initializer_list<std::string_view> required) {
        Json req = Json::array();
        for (auto r : required) req.push_back(r);
        return Json{{"type", "object"}, {"required", std::move(req)}};
    };
    const auto page = [](std::string_view item) {
        return Json{
            {"type", "object"},
            {"required", Json::array({"items", "next_cursor"})},
            {"properties",
             Json{{"items", Json{{"type", "array"},
                                 {"items", Json{{"$ref", std::string("#/components/schemas/") +
                                                             std::string(item)}}}}},
                  {"next_cursor", Json{{"type", Json::array({"string", "null"})}}}}}};
    };
    Json schemas{
        {"Error", Json{{"type", "object"},
                       {"required", Json::array({"error", "code"})},
                       {"properties", Json{{"error", Json{{"type", "string"}}},
                                           {"code", Json{{"type", "string"}}}}}}},
        {"Object", Json{{"type", "object"}}},
        {"Health", object({"status", "database"})},
        {"Status", object({"chain_id", "chains", "indexed_block_num", "registries", "counts"})},
        {"Home", object({"status", "recent"})},
        {"AgentSummary", object({"chain_id", "agent_registry", "agent_id", "owner", "services",
                                 "verification", "score"})},
        {"AgentPage", page("AgentSummary")},
        {"Agent", object({"chain_id", "agent_registry", "agent_id", "owner", "metadata", "profile",
                          "badges", "verification", "score", "counts", "history", "same_agent"})},
        {"Feedback", object({"client", "feedback_index", "value", "value_decimals", "tag1", "tag2",
                             "revoked", "responses"})},
        {"FeedbackPage", page("Feedback")},
        {"Reputation",
         object({"chain_id", "agent_id", "summary", "summary_error", "score", "feedback"})},
        {"History", object({"chain_id", "agent_id", "points"})},
        {"Validations", object({"chain_id", "agent_id", "summary", "items"})},
        {"ToolSummary",
         object({"chain_id", "registry", "tool_id", "deregistered", "verification"})},
        {"ToolPage", page("ToolSummary")},
        {"Tool", object({"chain_id", "registry", "tool_id", "verification_record", "history"})},
        {"RunSummary", object({"chain_id", "workflow", "run_id", "status"})},
        {"RunPage", page("RunSummary")},
        {"Run", object({"chain_id", "workflow", "run_id", "status", "evidence"})},
        {"Resolved", object({"items"})},
    };

    return Json{
        {"openapi", "3.1.0"},
        {"info", Json{{"title", "Credence node API"},
                      {"version", "1"},
                      {"description",
                       "Read-only JSON over the Credence index: ERC-8004 agents, reputation and "
                       "validation, ERC-8257 tools, ERC-8301 workflow runs. See docs/api.md."}}},
        {"paths", std::move(paths)},
        {"components", Json{{"schemas", std::move(schemas)}}}};
}

}  // namespace

const Json& openapi_document() {
    static const Json kDocument = build();
    return kDocument;
}

}  // namespace credence::api::detail
