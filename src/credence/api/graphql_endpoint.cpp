#include <credence/api/graphql_endpoint.hpp>

#include <charconv>
#include <string>
#include <system_error>
#include <utility>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace credence::api {
namespace {

constexpr std::string_view kGraphqlResponseType = "application/graphql-response+json";

HttpResponse refuse(int status, std::string_view message, std::string_view content_type) {
    HttpResponse r;
    r.status = status;
    r.content_type = std::string(content_type);
    nlohmann::ordered_json body;
    body["errors"] = nlohmann::ordered_json::array({{{"message", message}}});
    r.body = body.dump();
    return r;
}

// The client's preferred response type (GraphQL over HTTP §Accept): the GraphQL media type when
// it names it, else application/json (what The Graph answers and older clients expect).
std::string_view response_type(const HttpRequest& request) {
    const std::string* accept = request.header("accept");
    if (accept != nullptr && accept->find(kGraphqlResponseType) != std::string::npos)
        return kGraphqlResponseType;
    return "application/json";
}

}  // namespace

std::optional<uint64_t> agent0_subgraph_chain(std::string_view path) {
    if (!path.starts_with(kAgent0SubgraphPath)) return std::nullopt;
    path.remove_prefix(kAgent0SubgraphPath.size());
    if (!path.starts_with('/')) return std::nullopt;
    path.remove_prefix(1);
    uint64_t chain_id = 0;
    const auto [end, ec] = std::from_chars(path.data(), path.data() + path.size(), chain_id);
    if (ec != std::errc{} || end != path.data() + path.size() || path.empty()) return std::nullopt;
    return chain_id;
}

HttpResponse unknown_subgraph_chain(std::string_view path) {
    return refuse(404, fmt::format("no subgraph at {}: this node does not follow that chain", path),
                  "application/json");
}

GraphqlEndpoint::GraphqlEndpoint(subgraph::Agent0GraphOptions options)
    : graph_(std::move(options)) {}

HttpResponse GraphqlEndpoint::handle(const HttpRequest& request) {
    const std::string_view type = response_type(request);
    graphql::Result<graphql::Request> parsed = graphql::fail(graphql::ErrorKind::request, "");
    std::string key;  // the request as sent: identical requests share a cached answer
    if (request.method == "POST") {
        const std::string* content_type = request.header("content-type");
        if (content_type == nullptr || content_type->find("json") == std::string::npos)
            return refuse(415, "the body must be JSON (Content-Type: application/json)", type);
        parsed = graphql::parse_request(request.body, graph_.limits());
        key = request.body;
    } else if (request.method == "GET" || request.method == "HEAD") {
        const std::string* query = request.param("query");
        if (query == nullptr)
            return refuse(400, "the request must have a \"query\" parameter", type);
        // The body a POST would carry, with the variables as sent: parse_request checks their
        // nesting before anything parses them.
        key = R"({"query":)" +
              nlohmann::json(*query).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        if (const std::string* v = request.param("variables")) key += R"(,"variables":)" + *v;
        if (const std::string* name = request.param("operationName")) {
            key += R"(,"operationName":)" +
                   nlohmann::json(*name).dump(-1, ' ', false,
                                              nlohmann::json::error_handler_t::replace);
        }
        key += "}";
        parsed = graphql::parse_request(key, graph_.limits());
    } else {
        HttpResponse r = refuse(405, "use POST or GET", type);
        r.headers.emplace_back("Allow", "GET, POST");
        return r;
    }
    HttpResponse response;
    response.content_type = std::string(type);
    if (!parsed) {
        response.status = type == kGraphqlResponseType ? 400 : 200;
        response.body = graphql::error_response({parsed.error()})
                            .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        return response;
    }
    const auto answer = graph_.answer(*parsed, key);
    // No "data": the request could not start (GraphQL over HTTP,
    // application/graphql-response+json).
    if (type == kGraphqlResponseType && !answer.has_data) response.status = 400;
    response.body = *answer.body;
    return response;
}

}  // namespace credence::api
