// GraphQL over HTTP for the agent0 subgraph (docs/graphql.md): POST /subgraphs/agent0 with a JSON
// body {"query", "variables", "operationName"}, or GET with those as query parameters (queries
// only: a GraphQL GET never mutates, and this schema has no mutations).
//
// Status codes follow GraphQL over HTTP (the GraphQL Foundation's draft, §Response): a client that
// accepts application/graphql-response+json gets 400 for a request that cannot run (bad JSON, a
// syntax or validation error, a limit) and 200 when execution ran; one that accepts only
// application/json gets 200 with {"errors": [...]} for any well-formed request, as The Graph
// answers. A body that is not a GraphQL request, a wrong method or a wrong Content-Type is a 4xx.
// Nothing a client sends becomes a 5xx; an index that cannot be read is 200 with an error, and
// the previous snapshot keeps being served.
//
// Thread-safety: handle() from any number of server threads. Ownership: owns the Agent0Graph.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include <credence/api/http_types.hpp>
#include <credence/subgraph/agent0_graph.hpp>

namespace credence::api {

/// The endpoint's path: the node's default chain. `<path>/<chainId>` names a chain.
inline constexpr std::string_view kAgent0SubgraphPath = "/subgraphs/agent0";

/// The chain id of `/subgraphs/agent0/<chainId>` (decimal), or nullopt for any other path.
[[nodiscard]] std::optional<uint64_t> agent0_subgraph_chain(std::string_view path);
/// The 404 for a chain no subgraph is served for, as a GraphQL error.
[[nodiscard]] HttpResponse unknown_subgraph_chain(std::string_view path);

class GraphqlEndpoint {
public:
    explicit GraphqlEndpoint(subgraph::Agent0GraphOptions options);

    [[nodiscard]] HttpResponse handle(const HttpRequest& request);
    [[nodiscard]] subgraph::Agent0Graph& graph() noexcept { return graph_; }

private:
    subgraph::Agent0Graph graph_;
};

}  // namespace credence::api
