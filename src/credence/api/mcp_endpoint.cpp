// The MCP endpoint: JSON-RPC 2.0 over Streamable HTTP (MCP 2025-06-18 §Transports, also
// 2025-03-26), answering every request with one application/json body (the transport lets a
// server choose JSON over an SSE stream), and the six Credence tools on top of RestApi::handle.
#include <credence/api/mcp_endpoint.hpp>

#include <array>
#include <atomic>
#include <cstdint>
#include <exception>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <credence/api/client_key.hpp>
#include <credence/api/detail/json_body.hpp>

namespace credence::api {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::string_view kLatestProtocol = "2025-06-18";
constexpr std::array<std::string_view, 2> kProtocols{"2025-06-18", "2025-03-26"};

// JSON-RPC 2.0 §5.1 error codes, and EIP-1474's "limit exceeded" for the batch bounds.
enum class RpcError : int {
    parse_error = -32700,
    invalid_request = -32600,
    method_not_found = -32601,
    invalid_params = -32602,
    limit_exceeded = -32005,
};

bool supported_protocol(std::string_view version) {
    for (auto v : kProtocols) {
        if (v == version) return true;
    }
    return false;
}

Json error_message(const Json& id, RpcError code, std::string_view message) {
    return Json{{"jsonrpc", "2.0"},
                {"id", id},
                {"error", {{"code", static_cast<int>(code)}, {"message", message}}}};
}

Json result_message(const Json& id, Json result) {
    return Json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

/// Text that may hold bytes a client sent (bad UTF-8 is replaced, never thrown on).
HttpResponse json_response(int status, const Json& body) {
    HttpResponse r;
    r.status = status;
    r.body = detail::dump_replacing(body);
    return r;
}

/// The deepest nesting of arrays and objects in `text`, counted without parsing (strings
/// skipped), stopping once past `limit`: a deep body is refused before any parser or copy
/// recurses over it.
size_t nesting_depth(std::string_view text, size_t limit) {
    size_t depth = 0;
    size_t deepest = 0;
    bool in_string = false;
    bool escaped = false;
    for (const char c : text) {
        if (in_string) {
            if (escaped) {
                escaped = false;
            } else if (c == '\\') {
                escaped = true;
            } else if (c == '"') {
                in_string = false;
            }
            continue;
        }
        if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            deepest = std::max(deepest, ++depth);
            if (deepest > limit) return deepest;
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return deepest;
}

/// A message's id when it is one JSON-RPC allows here (MCP §Base protocol: a string or an
/// integer), else null: only a scalar is ever copied into an answer.
Json valid_id(const Json& message) {
    if (!message.is_object()) return nullptr;
    const auto it = message.find("id");
    if (it == message.end() || !(it->is_string() || it->is_number_integer())) return nullptr;
    return *it;
}

bool is_initialize(const Json& message) {
    if (!message.is_object()) return false;
    const auto it = message.find("method");
    return it != message.end() && it->is_string() && *it == "initialize";
}

/// A plain (non-JSON-RPC) HTTP error of the transport, in the REST API's error shape.
HttpResponse http_error(int status, std::string_view code, std::string_view message) {
    return json_response(status, Json{{"error", message}, {"code", code}});
}

/// How one tool argument reaches the REST route: a path segment, a query parameter, or the chain
/// of an entity route (/api/v1/X becomes /api/v1/chains/{chain}/X, docs/api.md §Chains).
enum class ArgKind : uint8_t { path, query, chain };
enum class ArgType : uint8_t { string, integer, number, boolean, string_array };

struct ToolArg {
    std::string_view name;
    ArgType type;
    ArgKind kind;
    bool required;
    std::string_view description;
    std::string_view rest_name;  ///< the REST parameter's name when it differs; empty: same
};

struct ToolSpec {
    std::string_view name;
    std::string_view title;
    std::string_view description;
    std::string_view path;  ///< REST path with {arg} placeholders (docs/api.md)
    std::vector<ToolArg> args;
};

std::string_view json_type(ArgType t) {
    switch (t) {
        case ArgType::string:
            return "string";
        case ArgType::integer:
            return "integer";
        case ArgType::number:
            return "number";
        case ArgType::boolean:
            return "boolean";
        case ArgType::string_array:
            return "array";
    }
    return "string";
}

/// A search's `chain` argument: the REST list's `?chain=` (every followed chain by default).
constexpr ToolArg kChainsArg{
    "chain",
    ArgType::string,
    ArgKind::query,
    false,
    "Only these chains: a chain id, or several comma-separated (default: every chain the node "
    "follows)",
    ""};
/// A lookup's `chain` argument: the chain of the entity (the node's default chain by default).
constexpr ToolArg kEntityChainArg{
    "chain",
    ArgType::string,
    ArgKind::chain,
    false,
    "The chain id the entity lives on (default: the node's default chain; results carry "
    "chain_id)",
    ""};

/// The tools (docs/api.md). Each maps onto one REST route of docs/api.md: the MCP answer is the
/// REST answer, so both surfaces validate and query the same way.
const std::vector<ToolSpec>& tool_specs() {
    static const std::vector<ToolSpec> kSpecs{
        {"search_agents",
         "Search agents",
         "Search the ERC-8004 agents of the followed chains by text, service type, skill, verified "
         "domain, "
         "trust model, active flag, minimum trust score and verification status. Returns a page "
         "of agents with their trust scores and next_cursor for the next page.",
         "/api/v1/agents",
         {
             {"q", ArgType::string, ArgKind::query, false,
              "Text: substring of name, description, skills and service names", ""},
             {"service", ArgType::string, ArgKind::query, false,
              "Service type: a2a, mcp, oasf, ens, did, web, email or another service name", ""},
             {"skill", ArgType::string, ArgKind::query, false, "An OASF or A2A-card skill", ""},
             {"domain", ArgType::string, ArgKind::query, false, "A verified endpoint domain", ""},
             {"trust_model", ArgType::string, ArgKind::query, false,
              "A supportedTrust entry: reputation, crypto-economic, tee-attestation, ...", ""},
             {"active", ArgType::boolean, ArgKind::query, false,
              "The registration file's active flag", ""},
             {"min_score", ArgType::number, ArgKind::query, false,
              "Minimum trust score in [0, 1] (unscored agents are excluded)", ""},
             {"verification", ArgType::string, ArgKind::query, false,
              "verified, unverified, unreachable or none (never checked)", ""},
             {"owner", ArgType::string, ArgKind::query, false, "Owner address", ""},
             {"sort", ArgType::string, ArgKind::query, false,
              "id (default), newest or score (highest first)", ""},
             kChainsArg,
             {"limit", ArgType::integer, ArgKind::query, false, "Page size, 1..100", ""},
             {"cursor", ArgType::string, ArgKind::query, false, "The previous answer's next_cursor",
              ""},
         }},
        {"get_agent",
         "Get an agent",
         "One agent: owner, wallet, registration file and services, verification badges "
         "(verified domain, agent card, wallet), its verification record and trust score.",
         "/api/v1/agents/{agent_id}",
         {{"agent_id", ArgType::string, ArgKind::path, true,
           "The ERC-8004 agentId (decimal or 0x-hex)", ""},
          kEntityChainArg}},
        {"get_reputation",
         "Get an agent's reputation",
         "An agent's Sybil-resistant trust score with its 95 % interval, per-tag scores and the "
         "explanation (which reviewers contributed what, and why some were discounted), plus the "
         "exact on-chain getSummary for the given client addresses.",
         "/api/v1/agents/{agent_id}/reputation",
         {{"agent_id", ArgType::string, ArgKind::path, true,
           "The ERC-8004 agentId (decimal or 0x-hex)", ""},
          {"clients", ArgType::string_array, ArgKind::query, false,
           "Client addresses for the getSummary mirror (ERC-8004 requires a list)", "client"},
          {"tag1", ArgType::string, ArgKind::query, false, "getSummary tag1 filter", ""},
          {"tag2", ArgType::string, ArgKind::query, false, "getSummary tag2 filter", ""},
          kEntityChainArg}},
        {"search_tools",
         "Search tools",
         "Search the ERC-8257 tools of the followed chains by text, tag, pricing protocol or "
         "asset, "
         "access kind and verification status.",
         "/api/v1/tools",
         {
             {"q", ArgType::string, ArgKind::query, false, "Text in name, description or tags", ""},
             {"tag", ArgType::string, ArgKind::query, false, "A manifest tag", ""},
             {"pricing", ArgType::string, ArgKind::query, false, "A pricing protocol, e.g. x402",
              ""},
             {"asset", ArgType::string, ArgKind::query, false,
              "A pricing asset (CAIP-19 or symbol)", ""},
             {"access", ArgType::string, ArgKind::query, false, "An access requirement kind", ""},
             {"verification", ArgType::string, ArgKind::query, false,
              "verified (canonical), unverified, unreachable or none", ""},
             {"include_deregistered", ArgType::boolean, ArgKind::query, false,
              "List deregistered tools too", ""},
             kChainsArg,
             {"limit", ArgType::integer, ArgKind::query, false, "Page size, 1..100", ""},
             {"cursor", ArgType::string, ArgKind::query, false, "The previous answer's next_cursor",
              ""},
         }},
        {"verify_tool",
         "Verify a tool",
         "A tool's manifest, pricing, access requirements and its ERC-8257 consumer verification "
         "report (canonical, or the reason code of the failed check), with its history.",
         "/api/v1/tools/{tool_id}",
         {{"tool_id", ArgType::string, ArgKind::path, true, "The ERC-8257 toolId", ""},
          {"registry", ArgType::string, ArgKind::query, false,
           "The tool registry address (only when several hold the id)", ""},
          kEntityChainArg}},
        {"trace_run",
         "Trace a workflow run",
         "One ERC-8301 workflow run with its evidence chain (tasks, replies, results, proofs) "
         "verified from the index, and the verdict.",
         "/api/v1/runs/{run_id}",
         {{"run_id", ArgType::string, ArgKind::path, true, "The run id (0x + 64 hex digits)", ""},
          {"workflow", ArgType::string, ArgKind::query, false,
           "The workflow address (only when several hold the run)", ""},
          kEntityChainArg}},
    };
    return kSpecs;
}

Json input_schema(const ToolSpec& spec) {
    Json properties = Json::object();
    Json required = Json::array();
    for (const ToolArg& a : spec.args) {
        Json p{{"type", json_type(a.type)}, {"description", a.description}};
        if (a.type == ArgType::string_array) p["items"] = Json{{"type", "string"}};
        properties[std::string(a.name)] = std::move(p);
        if (a.required) required.push_back(a.name);
    }
    Json schema{{"type", "object"}, {"properties", std::move(properties)}};
    if (!required.empty()) schema["required"] = std::move(required);
    schema["additionalProperties"] = false;
    return schema;
}

Json tools_list() {
    Json tools = Json::array();
    for (const ToolSpec& spec : tool_specs()) {
        tools.push_back({{"name", spec.name},
                         {"title", spec.title},
                         {"description", spec.description},
                         {"inputSchema", input_schema(spec)},
                         {"annotations", {{"readOnlyHint", true}, {"openWorldHint", false}}}});
    }
    return Json{{"tools", std::move(tools)}};
}

/// A scalar argument as REST query text, or nullopt when its JSON type is wrong.
std::optional<std::string> scalar_text(const Json& value, ArgType type) {
    switch (type) {
        case ArgType::string:
            if (value.is_string()) return value.get<std::string>();
            // Ids are often given as numbers by models: accept non-negative integers too.
            if (value.is_number_unsigned()) return std::to_string(value.get<uint64_t>());
            return std::nullopt;
        case ArgType::integer:
            if (value.is_number_integer()) return value.dump();
            return std::nullopt;
        case ArgType::number:
            if (value.is_number()) return value.dump();
            return std::nullopt;
        case ArgType::boolean:
            if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
            return std::nullopt;
        case ArgType::string_array:
            return std::nullopt;
    }
    return std::nullopt;
}

/// Percent-encodes a path segment (RFC 3986 unreserved characters stay), so an argument cannot
/// change the route it lands on.
std::string encode_segment(std::string_view text) {
    std::string out;
    for (char c : text) {
        const auto u = static_cast<unsigned char>(c);
        const bool unreserved = (u >= 'A' && u <= 'Z') || (u >= 'a' && u <= 'z') ||
                                (u >= '0' && u <= '9') || c == '-' || c == '.' || c == '_' ||
                                c == '~';
        if (unreserved) {
            out.push_back(c);
        } else {
            out += fmt::format("%{:02X}", u);
        }
    }
    return out;
}

/// The REST request for a tool call, or the -32602 message when the arguments do not fit the
/// tool's inputSchema.
std::expected<HttpRequest, std::string> rest_request(const ToolSpec& spec, const Json& arguments,
                                                     const HttpRequest& outer) {
    HttpRequest req;
    req.method = "GET";
    req.remote_ip = outer.remote_ip;
    req.headers.emplace_back("accept", "application/json");
    std::string path(spec.path);
    for (const auto& [key, value] : arguments.items()) {
        bool known = false;
        for (const ToolArg& a : spec.args) known = known || a.name == key;
        if (!known) return std::unexpected(fmt::format("unknown argument '{}'", key));
    }
    for (const ToolArg& a : spec.args) {
        const auto it = arguments.find(std::string(a.name));
        if (it == arguments.end() || it->is_null()) {
            if (a.required) return std::unexpected(fmt::format("missing argument '{}'", a.name));
            continue;
        }
        const std::string rest_name(a.rest_name.empty() ? a.name : a.rest_name);
        if (a.type == ArgType::string_array) {
            if (!it->is_array()) {
                return std::unexpected(fmt::format("argument '{}' must be an array", a.name));
            }
            for (const Json& item : *it) {
                if (!item.is_string()) {
                    return std::unexpected(
                        fmt::format("argument '{}' must be an array of strings", a.name));
                }
                req.query.emplace_back(rest_name, item.get<std::string>());
            }
            continue;
        }
        auto text = scalar_text(*it, a.type);
        if (!text) {
            return std::unexpected(
                fmt::format("argument '{}' must be of type {}", a.name, json_type(a.type)));
        }
        if (a.kind == ArgKind::chain) {
            // The canonical route of an entity on that chain (docs/api.md §Chains); the REST
            // route checks the id.
            constexpr std::string_view kPrefix = "/api/v1/";
            if (text->empty()) return std::unexpected(fmt::format("empty argument '{}'", a.name));
            path = fmt::format("{}chains/{}/{}", kPrefix, encode_segment(*text),
                               std::string_view(path).substr(kPrefix.size()));
        } else if (a.kind == ArgKind::path) {
            if (text->empty()) return std::unexpected(fmt::format("empty argument '{}'", a.name));
            const std::string placeholder = fmt::format("{{{}}}", a.name);
            const size_t at = path.find(placeholder);
            if (at != std::string::npos)
                path.replace(at, placeholder.size(), encode_segment(*text));
        } else {
            req.query.emplace_back(rest_name, std::move(*text));
        }
    }
    req.path = std::move(path);
    return req;
}

struct Session {
    std::string protocol_version;
};

}  // namespace

struct McpEndpoint::Impl {
    RestApi& rest;
    McpOptions options;
    McpSessions sessions;
    std::atomic<uint64_t> rate_limited{0};  ///< batch calls answered -32005, not run
    std::atomic<uint64_t> too_large{0};     ///< answers replaced by "response too large"

    Impl(RestApi& r, McpOptions o) : rest(r), options(std::move(o)), sessions(options.sessions) {}

    Json initialize(const Json& id, const Json& params, const HttpRequest& outer,
                    std::string& session_out) {
        if (!params.is_object()) {
            return error_message(id, RpcError::invalid_params, "initialize needs params");
        }
        const auto version = params.find("protocolVersion");
        if (version == params.end() || !version->is_string()) {
            return error_message(id, RpcError::invalid_params,
                                 "initialize needs params.protocolVersion");
        }
        // MCP §Lifecycle, version negotiation: echo a supported version, else offer our latest.
        const auto requested = version->get<std::string>();
        const std::string chosen =
            supported_protocol(requested) ? requested : std::string(kLatestProtocol);
        session_out = sessions.open(client_key(outer.remote_ip), chosen);
        Json server_info{{"name", options.server_name}};
        server_info["version"] = options.server_version.empty() ? "0" : options.server_version;
        return result_message(
            id, Json{{"protocolVersion", chosen},
                     {"capabilities", {{"tools", {{"listChanged", false}}}}},
                     {"serverInfo", std::move(server_info)},
                     {"instructions",
                      "Credence answers which on-chain AI agents (ERC-8004) and tools (ERC-8257) "
                      "exist, how far to trust them and why, and what happened in a workflow "
                      "run (ERC-8301)."}});
    }

    Json call_tool(const Json& id, const Json& params, const HttpRequest& outer) {
        if (!params.is_object()) {
            return error_message(id, RpcError::invalid_params, "tools/call needs params");
        }
        const auto name = params.find("name");
        if (name == params.end() || !name->is_string()) {
            return error_message(id, RpcError::invalid_params, "tools/call needs params.name");
        }
        const ToolSpec* spec = nullptr;
        for (const ToolSpec& s : tool_specs()) {
            if (s.name == name->get<std::string>()) spec = &s;
        }
        // MCP §Tools, error handling: an unknown tool is a protocol error, not a tool result.
        if (spec == nullptr) {
            return error_message(id, RpcError::invalid_params,
                                 fmt::format("unknown tool '{}'", name->get<std::string>()));
        }
        static const Json kNoArguments = Json::object();
        const auto args_it = params.find("arguments");
        const bool no_args = args_it == params.end() || args_it->is_null();
        if (!no_args && !args_it->is_object()) {
            return error_message(id, RpcError::invalid_params, "arguments must be an object");
        }
        auto request = rest_request(*spec, no_args ? kNoArguments : *args_it, outer);
        if (!request) return error_message(id, RpcError::invalid_params, request.error());

        const HttpResponse answer = rest.handle(*request);
        // MCP §Tools: a tool's own failure (unknown agent, bad filter) is a result with isError,
        // so the model sees why; the REST error JSON says it in its words.
        const bool ok = answer.status >= 200 && answer.status < 300;
        Json result{{"content", Json::array({{{"type", "text"}, {"text", answer.body}}})}};
        const Json parsed = Json::parse(answer.body, nullptr, false);
        if (!parsed.is_discarded()) {
            // structuredContent is an object; wrap anything else.
            result["structuredContent"] = parsed.is_object() ? parsed : Json{{"result", parsed}};
        }
        result["isError"] = !ok;
        return result_message(id, std::move(result));
    }

    /// One JSON-RPC message; nullopt for notifications and responses (nothing to answer).
    std::optional<Json> dispatch(const Json& message, const HttpRequest& outer,
                                 const std::optional<Session>& session, std::string& session_out) {
        if (!message.is_object()) {
            return error_message(nullptr, RpcError::invalid_request, "a message is an object");
        }
        const bool has_id = message.contains("id");
        const Json id = valid_id(message);
        const auto jsonrpc = message.find("jsonrpc");
        if (jsonrpc == message.end() || *jsonrpc != "2.0") {
            return error_message(id, RpcError::invalid_request, "jsonrpc must be \"2.0\"");
        }
        const auto method_it = message.find("method");
        if (method_it == message.end()) {
            // A response to a server request: we send none, so there is nothing to match.
            if (has_id && (message.contains("result") || message.contains("error"))) {
                return std::nullopt;
            }
            return error_message(id, RpcError::invalid_request, "method is missing");
        }
        if (!method_it->is_string()) {
            return error_message(id, RpcError::invalid_request, "method must be a string");
        }
        // MCP §Base protocol: a request id is a string or an integer, never null.
        if (has_id && id.is_null()) {
            return error_message(nullptr, RpcError::invalid_request,
                                 "id must be a string or an integer");
        }
        const std::string& method = method_it->get_ref<const std::string&>();
        static const Json kNoParams = Json::object();
        const auto params_it = message.find("params");
        // A reference, never a copy: params may be as deep as the body allows.
        const Json& params = params_it == message.end() ? kNoParams : *params_it;
        if (!params.is_object() && !params.is_array()) {
            return has_id ? std::optional(error_message(id, RpcError::invalid_request,
                                                        "params must be an object"))
                          : std::nullopt;
        }
        if (!has_id) return std::nullopt;  // notifications/initialized, cancelled, ...: no answer

        if (method == "initialize") return initialize(id, params, outer, session_out);
        if (!session) {
            return error_message(id, RpcError::invalid_request,
                                 "not initialized: send initialize first");
        }
        if (method == "ping") return result_message(id, Json::object());
        if (method == "tools/list") return result_message(id, tools_list());
        if (method == "tools/call") return call_tool(id, params, outer);
        return error_message(id, RpcError::method_not_found,
                             fmt::format("method '{}' not found", method));
    }

    HttpResponse post(const HttpRequest& request) {
        if (const auto* type = request.header("content-type");
            type != nullptr && type->find("application/json") == std::string::npos) {
            return http_error(415, "unsupported_media_type", "POST /mcp takes application/json");
        }
        if (nesting_depth(request.body, options.max_depth) > options.max_depth) {
            return json_response(
                400, error_message(
                         nullptr, RpcError::invalid_request,
                         fmt::format("the body nests deeper than {} levels", options.max_depth)));
        }
        const Json body = Json::parse(request.body, nullptr, false);
        if (body.is_discarded()) {
            return json_response(
                400, error_message(nullptr, RpcError::parse_error, "the body is not valid JSON"));
        }

        // Streamable HTTP §Session management: every message after initialize carries the id
        // the server issued; a missing id is 400, an unknown or ended one 404.
        std::optional<Session> session;
        if (!is_initialize(body)) {
            const auto* id = request.header("mcp-session-id");
            if (id == nullptr) {
                return json_response(400, error_message(nullptr, RpcError::invalid_request,
                                                        "missing Mcp-Session-Id header"));
            }
            auto version = sessions.use(*id);
            if (!version) {
                return json_response(404, error_message(nullptr, RpcError::invalid_request,
                                                        "unknown or ended session"));
            }
            session = Session{std::move(*version)};
            // Streamable HTTP §Protocol version header: an unsupported version is 400. The
            // header is not echoed: it may hold any bytes.
            if (const auto* v = request.header("mcp-protocol-version");
                v != nullptr && !supported_protocol(*v)) {
                return json_response(
                    400, error_message(nullptr, RpcError::invalid_request,
                                       fmt::format("unsupported MCP-Protocol-Version: this "
                                                   "server speaks {} and {}",
                                                   kProtocols[0], kProtocols[1])));
            }
        }

        std::string new_session_id;
        if (body.is_array()) return batch(body, request, session, new_session_id);
        auto answer = dispatch(body, request, session, new_session_id);
        // Streamable HTTP §Sending messages: notifications and responses get 202, no body.
        if (!answer) return accepted();
        HttpResponse r = json_response(200, *answer);
        if (r.body.size() > options.max_response_bytes) {
            ++too_large;
            r.body = detail::dump_replacing(too_large_error(valid_id(body)));
        } else if (answer->contains("error")) {
            const int code = (*answer)["error"]["code"].get<int>();
            if (code == static_cast<int>(RpcError::invalid_request) ||
                code == static_cast<int>(RpcError::parse_error)) {
                r.status = 400;
            }
        }
        if (!new_session_id.empty()) r.headers.emplace_back("Mcp-Session-Id", new_session_id);
        return r;
    }

    Json too_large_error(const Json& id) const {
        return error_message(id, RpcError::limit_exceeded,
                             fmt::format("response too large: the answers exceed {} bytes",
                                         options.max_response_bytes));
    }

    /// JSON-RPC 2.0 §6 batches (MCP 2025-03-26 only; 2025-06-18 removed them). Each message after
    /// the first takes one more rate-limit token; once the client's bucket is empty the rest are
    /// answered with an error, unrun. The answer text is built as it goes and bounded by
    /// max_response_bytes (as geth bounds its batch responses).
    HttpResponse batch(const Json& body, const HttpRequest& request,
                       const std::optional<Session>& session, std::string& new_session_id) {
        if (!session || session->protocol_version != "2025-03-26" || body.empty()) {
            return json_response(400, error_message(nullptr, RpcError::invalid_request,
                                                    "batches are not supported"));
        }
        if (body.size() > options.max_batch) {
            return json_response(400, error_message(nullptr, RpcError::invalid_request,
                                                    fmt::format("a batch holds at most {} messages",
                                                                options.max_batch)));
        }
        std::string text = "[";
        size_t answers = 0;
        bool limited = false;
        bool full = false;
        const auto append = [&](const Json& answer) {
            std::string piece = detail::dump_replacing(answer);
            if (full || text.size() + piece.size() + 2 > options.max_response_bytes) {
                full = true;
                ++too_large;
                piece = detail::dump_replacing(too_large_error(answer.value("id", Json(nullptr))));
            }
            if (answers++ > 0) text += ',';
            text += piece;
        };
        for (size_t i = 0; i < body.size(); ++i) {
            const Json& m = body[i];
            if (!limited && i > 0 && !request.charge_more(1)) limited = true;
            if (limited) {
                // A notification gets no answer; a request learns it was not run.
                if (m.is_object() && m.contains("id")) {
                    ++rate_limited;
                    append(error_message(valid_id(m), RpcError::limit_exceeded,
                                         "rate limit exceeded: retry the rest later"));
                }
                continue;
            }
            if (is_initialize(m)) {
                append(error_message(valid_id(m), RpcError::invalid_request,
                                     "initialize cannot be batched"));
                continue;
            }
            if (auto a = dispatch(m, request, session, new_session_id)) append(*a);
        }
        if (answers == 0) return accepted();
        text += ']';
        HttpResponse r;
        r.body = std::move(text);
        return r;
    }

    static HttpResponse accepted() {
        HttpResponse r;
        r.status = 202;
        r.content_type.clear();
        return r;
    }

    HttpResponse handle(const HttpRequest& request) {
        if (request.method == "POST") return post(request);
        if (request.method == "GET") {
            // Streamable HTTP §Listening for messages: no server-initiated stream here.
            HttpResponse r = http_error(405, "method_not_allowed",
                                        "this server offers no SSE stream: POST messages");
            r.headers.emplace_back("Allow", "POST, DELETE");
            return r;
        }
        if (request.method == "DELETE") {
            // Streamable HTTP §Session management: DELETE ends the session.
            const auto* id = request.header("mcp-session-id");
            if (id == nullptr) {
                return http_error(400, "missing_session", "missing Mcp-Session-Id header");
            }
            if (!sessions.end(*id)) return http_error(404, "unknown_session", "unknown session");
            HttpResponse r;
            r.status = 204;
            r.content_type.clear();
            return r;
        }
        HttpResponse r = http_error(405, "method_not_allowed", "use POST, GET or DELETE");
        r.headers.emplace_back("Allow", "POST, GET, DELETE");
        return r;
    }
};

McpEndpoint::McpEndpoint(RestApi& rest, McpOptions options)
    : impl_(std::make_unique<Impl>(rest, std::move(options))) {}

McpEndpoint::~McpEndpoint() = default;

std::string McpEndpoint::metrics() const {
    std::string out;
    const auto metric = [&out](std::string_view name, std::string_view type, std::string_view help,
                               uint64_t value) {
        out += fmt::format("# HELP {0} {1}\n# TYPE {0} {2}\n{0} {3}\n", name, help, type, value);
    };
    metric("credence_mcp_rate_limited_total", "counter",
           "MCP batch calls refused by the per-IP rate limit (answered -32005)",
           impl_->rate_limited.load());
    metric("credence_mcp_responses_too_large_total", "counter",
           "MCP answers replaced by a response-too-large error", impl_->too_large.load());
    metric("credence_mcp_sessions", "gauge", "Live MCP sessions", impl_->sessions.size());
    return out;
}

HttpResponse McpEndpoint::handle(const HttpRequest& request) {
    try {
        return impl_->handle(request);
    } catch (const std::exception&) {
        // The boundary: nothing escapes a handler (nlohmann, allocation, ...), and nothing of
        // the exception reaches the client: its text may quote the client's own bytes or the
        // server's internals.
        return http_error(500, "internal", "internal error");
    }
}

}  // namespace credence::api
