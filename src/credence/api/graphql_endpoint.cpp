#include <credence/api/graphql_endpoint.hpp>

#include <string>
#include <utility>

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

GraphqlEndpoint::GraphqlEndpoint(subgraph::Agent0GraphOptions options)
    : graph_(std::move(options)) {}

HttpResponse GraphqlEndpoint::handle(const HttpRequest& request) {
    const std::string_view type = response_type(request);
    graphql::Result<graphql::Request> parsed = graphql::fail(graphql::ErrorKind::request, "");
    if (request.method == "POST") {
        const std::string* content_type = request.header("content-type");
        if (content_type == nullptr || content_type->find("json") == std::string::npos)
            return refuse(415, "the body must be JSON (Content-Type: application/json)", type);
        parsed = graphql::parse_request(request.body, graph_.limits());
    } else if (request.method == "GET" || request.method == "HEAD") {
        const std::string* query = request.param("query");
        if (query == nullptr) return refuse(400, "the request must have a \"query\" parameter", type);
        nlohmann::json body = {{"query", *query}};
        if (const std::string* v = request.param("variables")) {
            auto variables = nlohmann::json::parse(*v, nullptr, false);
            if (variables.is_discarded())
                return refuse(400, "\"variables\" must be a JSON object", type);
            body["variables"] = std::move(variables);
        }
        if (const std::string* name = request.param("operationName")) body["operationName"] = *name;
        parsed = graphql::parse_request(body.dump(), graph_.limits());
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
    const nlohmann::ordered_json result = graph_.execute(*parsed);
    // No "data": the request could not start (GraphQL over HTTP §application/graphql-response+json).
    if (type == kGraphqlResponseType && !result.contains("data")) response.status = 400;
    // Strings from the chain (tags, URIs) need not be UTF-8: replaced, never a throw.
    response.body = result.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return response;
}

}  // namespace credence::api
