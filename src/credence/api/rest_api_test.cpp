// The REST API end to end: a real devnet (anvil, every contract), real transactions, the real
// indexer into SQLite and PostgreSQL, the real re-verifier fetching registration files from a
// real HTTPS server, the real trust engine; then every route answered in-process and over a real
// socket, with the getSummary mirror checked against eth_call. Plus hostile input (never a 5xx),
// a failing database (503), the OpenAPI document, metrics, and the server's limits.
#include <credence/api/rest_api.hpp>

#include <gtest/gtest.h>
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <credence/api/graphql_endpoint.hpp>
#include <credence/api/http_server.hpp>
#include <credence/api/mcp_endpoint.hpp>
#include <credence/chain/bindings/identity_registry.hpp>
#include <credence/chain/bindings/reputation_registry.hpp>
#include <credence/chain/bindings/validation_registry.hpp>
#include <credence/chain/txn_sender.hpp>
#include <credence/core/registration_file.hpp>
#include <credence/index/indexer.hpp>
#include <credence/index/sources.hpp>
#include <credence/index/store.hpp>
#include <credence/trust/score_store.hpp>
#include <credence/verify/net/fetch.hpp>
#include <credence/verify/store/index_checks.hpp>
#include <credence/verify/store/reverifier.hpp>

#include "support/devnet.hpp"
#include "support/https_server.hpp"
#include "support/postgres.hpp"
#include "support/scratch.hpp"

namespace credence::api {
namespace {

namespace ir = chain::bindings::identity_registry;
namespace rr = chain::bindings::reputation_registry;
namespace vr = chain::bindings::validation_registry;
using Json = nlohmann::json;
using Query = std::vector<std::pair<std::string, std::string>>;

HttpRequest get(std::string path, Query query = {}) {
    HttpRequest r;
    r.method = "GET";
    r.path = std::move(path);
    r.query = std::move(query);
    r.remote_ip = "127.0.0.1";
    return r;
}

Json body_of(const HttpResponse& response) {
    Json j = Json::parse(response.body, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << response.body.substr(0, 200);
    return j;
}

/// GET that must answer 200; its JSON.
Json ok(RestApi& api, const std::string& path, const Query& query = {}) {
    const HttpResponse r = api.handle(get(path, query));
    EXPECT_EQ(r.status, 200) << path << ": " << r.body.substr(0, 300);
    return body_of(r);
}

std::set<std::string> ids_of(const Json& page) {
    std::set<std::string> out;
    for (const auto& item : page["items"]) out.insert(item["agent_id"].get<std::string>());
    return out;
}

std::string registration_file(const std::string& name, const std::string& description,
                              const std::string& registry, int agent_id) {
    Json doc{
        {"type", std::string(core::kRegistrationTypeV1)},
        {"name", name},
        {"description", description},
        {"image", "https://agent.example/icon.png"},
        {"services", Json::array({Json{{"name", "MCP"},
                                       {"endpoint", "https://agent.example/mcp"},
                                       {"version", "2025-06-18"}},
                                  Json{{"name", "OASF"},
                                       {"endpoint", "https://agent.example/oasf"},
                                       {"version", "0.8"},
                                       {"skills", Json::array({"forecasting/weather"})}}})},
        {"x402Support", false},
        {"active", true},
        {"registrations", Json::array({Json{{"agentId", agent_id}, {"agentRegistry", registry}}})},
        {"supportedTrust", Json::array({"reputation"})}};
    return doc.dump();
}

struct Sent {
    std::vector<core::Address> clients;  // feedback clients of agent 0
    size_t agent0_feedback = 0;          // including the revoked one
};

/// Registers three agents, gives feedback (one revoked, one answered), asks and answers a
/// validation, all as real transactions.
Sent populate(testing::Devnet& devnet) {
    Sent sent;
    chain::RpcClient rpc = devnet.rpc();
    chain::SenderOptions options;
    options.poll_interval = std::chrono::milliseconds(5);
    std::vector<core::SecretKey> keys;
    for (size_t i = 0; i < 10; ++i) keys.push_back(devnet.secret_key(i));
    const auto send = [&](size_t account, const core::Address& to, core::Bytes data) {
        chain::TxnSender sender(rpc, keys[account], options);
        auto r = sender.send({to, std::move(data), {}, {}, {}});
        ASSERT_TRUE(r) << r.error().detail;
    };
    const core::Address identity = devnet.address("IdentityRegistry");
    const core::Address reputation = devnet.address("ReputationRegistry");
    const core::Address validation = devnet.address("ValidationRegistry");
    send(1, identity, ir::register_1("https://agent.example/a.json").value());        // agent 0
    send(2, identity, ir::register_1("https://agent.example/missing.json").value());  // 1
    send(3, identity, ir::register_1("https://agent.example/c.json").value());        // 2
    const core::Uint256 agent0{0};
    const core::Uint256 agent2{2};
    const std::vector<std::string> tags{"quality", "speed"};
    for (size_t c = 4; c <= 7; ++c) {
        sent.clients.push_back(devnet.dev_address(c));
        for (uint64_t f = 0; f < 2; ++f) {
            const int64_t value = static_cast<int64_t>(c * 10 + f * 7) - 40;
            send(c, reputation,
                 rr::give_feedback(agent0, core::Int256(value), f + c % 3, tags[(c + f) % 2],
                                   f == 0 ? "" : "fast", "", "", core::Hash32{})
                     .value());
            ++sent.agent0_feedback;
        }
    }
    send(4, reputation, rr::revoke_feedback(agent0, 1).value());
    send(1, reputation,
         rr::append_response(agent0, devnet.dev_address(5), 1, "https://agent.example/r.json",
                             core::Hash32{})
             .value());
    send(4, reputation,
         rr::give_feedback(agent2, core::Int256(90), 0, "quality", "", "", "", core::Hash32{})
             .value());
    send(5, reputation,
         rr::give_feedback(agent2, core::Int256(70), 0, "quality", "", "", "", core::Hash32{})
             .value());
    core::Hash32 request{};
    request[0] = 0x42;
    send(1, validation, vr::validation_request(devnet.dev_address(8), agent0, "", request).value());
    send(8, validation, vr::validation_response(request, 90, "", core::Hash32{}, "soft").value());
    return sent;
}

/// Indexes the devnet into `db`, checks the agents against `server`, computes the trust scores.
void build_index(testing::Devnet& devnet, index::Database& db, testing::HttpsServer& server) {
    index::IndexerOptions io;
    io.chain_id = devnet.chain_id();
    io.sources = index::sources_from_deployment(devnet.deployment());
    index::Indexer indexer(io, devnet.rpc(), db);
    ASSERT_TRUE(indexer.start());
    ASSERT_TRUE(indexer.run(std::stop_token{}, false, std::chrono::milliseconds(10),
                            [](const index::StepReport&) {}));

    verify::FetcherConfig config;
    config.connect_to = server.connect_to();
    config.ca_file = server.ca_file();
    config.allow_hosts = {"127.0.0.1"};
    auto fetcher = verify::make_curl_fetcher(config);
    chain::RpcClient rpc = devnet.rpc();
    std::map<verify::SubjectKind, verify::BatchCheck> checks;
    checks[verify::SubjectKind::agent] = verify::make_agent_check(*fetcher, rpc, devnet.chain_id());
    verify::ReverifyOptions options;
    options.now = 1'700'000'000;
    auto counts = verify::reverify_due(db, devnet.chain_id(), checks, options);
    ASSERT_TRUE(counts) << counts.error().to_string();
    ASSERT_EQ(counts->checked, 3U);

    auto head = rpc.block_number();
    ASSERT_TRUE(head);
    trust::TrustSources sources;
    sources.chain_id = devnet.chain_id();
    sources.identity_registry = devnet.address("IdentityRegistry");
    sources.reputation_registry = devnet.address("ReputationRegistry");
    sources.validation_registry = devnet.address("ValidationRegistry");
    sources.head_block_num = *head;
    sources.now = 1'700'000'000;
    trust::ScoreUpdater updater(trust::TrustConfig{});
    auto pass = updater.full_pass(db, sources);
    ASSERT_TRUE(pass) << pass.error().to_string();
}

ApiScope scope_of(const testing::Devnet& devnet) {
    ApiScope scope;
    scope.chain_id = devnet.chain_id();
    scope.identity_registry = devnet.address("IdentityRegistry");
    scope.reputation_registry = devnet.address("ReputationRegistry");
    scope.validation_registry = devnet.address("ValidationRegistry");
    return scope;
}

/// Every route over the populated index.
void check_routes(testing::Devnet& devnet, RestApi& api, const Sent& sent) {
    chain::RpcClient rpc = devnet.rpc();
    const core::Address reputation = devnet.address("ReputationRegistry");
    const core::Address validation = devnet.address("ValidationRegistry");

    // Search, paging.
    const Json all = ok(api, "/api/v1/agents");
    EXPECT_EQ(ids_of(all), (std::set<std::string>{"0", "1", "2"}));
    EXPECT_TRUE(all["next_cursor"].is_null());
    const Json page1 = ok(api, "/api/v1/agents", {{"limit", "2"}});
    ASSERT_EQ(page1["items"].size(), 2U);
    ASSERT_TRUE(page1["next_cursor"].is_string());
    const Json page2 =
        ok(api, "/api/v1/agents", {{"limit", "2"}, {"cursor", page1["next_cursor"]}});
    EXPECT_EQ(ids_of(page2), (std::set<std::string>{"2"}));
    EXPECT_TRUE(page2["next_cursor"].is_null());
    const Json newest = ok(api, "/api/v1/agents", {{"sort", "newest"}, {"limit", "1"}});
    EXPECT_EQ(newest["items"][0]["agent_id"], "2");
    // A cursor of another sort is refused.
    EXPECT_EQ(
        api.handle(get("/api/v1/agents", {{"sort", "newest"}, {"cursor", page1["next_cursor"]}}))
            .status,
        400);

    // Filters from the registration files the verifier read.
    EXPECT_EQ(ids_of(ok(api, "/api/v1/agents", {{"q", "ORACLE"}})), (std::set<std::string>{"0"}));
    EXPECT_EQ(ids_of(ok(api, "/api/v1/agents", {{"service", "mcp"}})),
              (std::set<std::string>{"0", "2"}));
    EXPECT_EQ(ids_of(ok(api, "/api/v1/agents", {{"skill", "forecasting/weather"}})),
              (std::set<std::string>{"0", "2"}));
    EXPECT_EQ(
        ids_of(ok(api, "/api/v1/agents", {{"trust_model", "reputation"}, {"active", "true"}})),
        (std::set<std::string>{"0", "2"}));
    EXPECT_TRUE(ids_of(ok(api, "/api/v1/agents", {{"active", "false"}})).empty());
    EXPECT_EQ(ids_of(ok(api, "/api/v1/agents", {{"verification", "verified"}})),
              (std::set<std::string>{"0", "2"}));
    EXPECT_EQ(ids_of(ok(api, "/api/v1/agents", {{"verification", "unreachable"}})),
              (std::set<std::string>{"1"}));
    EXPECT_EQ(ids_of(ok(api, "/api/v1/agents", {{"domain", "agent.example"}})),
              (std::set<std::string>{"0", "2"}));
    EXPECT_EQ(ids_of(ok(api, "/api/v1/agents", {{"owner", devnet.dev_address(3).to_lower_hex()}})),
              (std::set<std::string>{"2"}));

    // Sorted by score: descending, scored agents first.
    const Json by_score = ok(api, "/api/v1/agents", {{"sort", "score"}});
    double previous = 2;
    size_t scored = 0;
    for (const auto& item : by_score["items"]) {
        if (item["score"].is_null()) continue;
        ++scored;
        EXPECT_LE(item["score"]["score"].get<double>(), previous);
        previous = item["score"]["score"].get<double>();
    }
    EXPECT_GE(scored, 2U);
    const Json min_score = ok(api, "/api/v1/agents", {{"min_score", fmt::format("{}", previous)}});
    EXPECT_GE(min_score["items"].size(), 1U);
    for (const auto& item : min_score["items"]) {
        EXPECT_GE(item["score"]["score"].get<double>(), previous);
    }
    // Paging by score visits every agent once.
    std::set<std::string> visited;
    Query q{{"sort", "score"}, {"limit", "1"}};
    for (int i = 0; i < 5; ++i) {
        const Json page = ok(api, "/api/v1/agents", q);
        for (const auto& id : ids_of(page)) EXPECT_TRUE(visited.insert(id).second) << id;
        if (page["next_cursor"].is_null()) break;
        q = {{"sort", "score"}, {"limit", "1"}, {"cursor", page["next_cursor"]}};
    }
    EXPECT_EQ(visited.size(), 3U);

    // Detail.
    const Json agent = ok(api, "/api/v1/agents/0");
    EXPECT_EQ(agent["owner"], devnet.dev_address(1).to_checksum_hex());
    EXPECT_EQ(agent["agent_uri"], "https://agent.example/a.json");
    EXPECT_EQ(agent["profile"]["name"], "Weather Oracle");
    EXPECT_EQ(agent["profile"]["service_names"], Json::array({"mcp", "oasf"}));
    EXPECT_EQ(agent["verification"]["status"], "verified");
    EXPECT_TRUE(agent["badges"]["domain_verified"].get<bool>());
    EXPECT_FALSE(agent["badges"]["agent_card"].get<bool>());
    EXPECT_TRUE(agent["score"].is_object());
    EXPECT_EQ(agent["counts"]["feedback"], sent.agent0_feedback);
    EXPECT_EQ(agent["counts"]["revoked"], 1);
    EXPECT_EQ(agent["counts"]["responses"], 1);
    EXPECT_EQ(agent["counts"]["validations"], 1);
    EXPECT_EQ(ok(api, "/api/v1/agents/0x0")["agent_id"], "0");
    const HttpResponse missing = api.handle(get("/api/v1/agents/99"));
    EXPECT_EQ(missing.status, 404);
    EXPECT_EQ(body_of(missing)["code"], "not_found");
    EXPECT_EQ(ok(api, "/api/v1/agents/1")["verification"]["status"], "unreachable");
    // Its file could not be read: name, description and image are unknown, null (docs/api.md).
    const Json unreachable = ok(api, "/api/v1/agents", {{"verification", "unreachable"}});
    for (const auto& item : unreachable["items"]) {
        EXPECT_TRUE(item["name"].is_null()) << item.dump();
        EXPECT_TRUE(item["description"].is_null()) << item.dump();
        EXPECT_TRUE(item["image"].is_null()) << item.dump();
    }

    // Feedback: readAllFeedback filters, responses, paging.
    const Json feedback = ok(api, "/api/v1/agents/0/feedback", {{"limit", "100"}});
    EXPECT_EQ(feedback["items"].size(), sent.agent0_feedback - 1);
    EXPECT_EQ(ok(api, "/api/v1/agents/0/feedback", {{"include_revoked", "true"}})["items"].size(),
              sent.agent0_feedback);
    const Json of_client5 =
        ok(api, "/api/v1/agents/0/feedback", {{"client", devnet.dev_address(5).to_checksum_hex()}});
    ASSERT_EQ(of_client5["items"].size(), 2U);
    for (const auto& f : of_client5["items"]) {
        EXPECT_EQ(f["client"], devnet.dev_address(5).to_checksum_hex());
        if (f["feedback_index"] == 1) {
            ASSERT_EQ(f["responses"].size(), 1U);
            EXPECT_EQ(f["responses"][0]["responder"], devnet.dev_address(1).to_checksum_hex());
        } else {
            EXPECT_TRUE(f["responses"].empty());
        }
    }
    const Json two_clients = ok(api, "/api/v1/agents/0/feedback",
                                {{"client", devnet.dev_address(6).to_lower_hex() + "," +
                                                devnet.dev_address(7).to_lower_hex()},
                                 {"tag2", "fast"}});
    EXPECT_EQ(two_clients["items"].size(), 2U);
    for (const auto& f : two_clients["items"]) EXPECT_EQ(f["tag2"], "fast");
    // docs/api.md: a cursor is valid for its route only, so one agent's page never continues
    // another's.
    const Json first_page = ok(api, "/api/v1/agents/0/feedback", {{"limit", "1"}});
    ASSERT_TRUE(first_page["next_cursor"].is_string()) << first_page.dump();
    const HttpResponse other_agent =
        api.handle(get("/api/v1/agents/1/feedback", {{"cursor", first_page["next_cursor"]}}));
    EXPECT_EQ(other_agent.status, 400) << other_agent.body;
    EXPECT_EQ(body_of(other_agent)["code"], "bad_cursor") << other_agent.body;
    size_t paged = 0;
    Query fq{{"limit", "3"}, {"include_revoked", "true"}};
    for (int i = 0; i < 10; ++i) {
        const Json page = ok(api, "/api/v1/agents/0/feedback", fq);
        paged += page["items"].size();
        if (page["next_cursor"].is_null()) break;
        fq = {{"limit", "3"}, {"include_revoked", "true"}, {"cursor", page["next_cursor"]}};
    }
    EXPECT_EQ(paged, sent.agent0_feedback);

    // Reputation: the getSummary answer over HTTP equals eth_call on the contract.
    std::mt19937 rng(7);
    const std::vector<std::string> tag_choices{"", "quality", "speed", "fast"};
    int nonzero = 0;
    for (int trial = 0; trial < 12; ++trial) {
        std::vector<core::Address> subset;
        for (const auto& c : sent.clients) {
            if (rng() % 2 == 0) subset.push_back(c);
        }
        if (subset.empty()) subset.push_back(sent.clients[static_cast<size_t>(trial) % 4]);
        const std::string& t1 = tag_choices[rng() % 3];
        const std::string& t2 = tag_choices[rng() % 4 == 3 ? 3 : 0];
        Query query{{"tag1", t1}, {"tag2", t2}};
        for (const auto& c : subset) query.emplace_back("client", c.to_checksum_hex());
        const Json reputation_json = ok(api, "/api/v1/agents/0/reputation", query);
        auto onchain = rpc.call(
            {{}, reputation, rr::get_summary(core::Uint256{0}, subset, t1, t2).value(), {}, {}});
        ASSERT_TRUE(onchain) << onchain.error().message;
        auto expected = rr::decode_get_summary_result(*onchain);
        ASSERT_TRUE(expected);
        ASSERT_TRUE(reputation_json["summary"].is_object()) << reputation_json.dump();
        EXPECT_EQ(reputation_json["summary"]["count"], expected->count);
        EXPECT_EQ(reputation_json["summary"]["summary_value"], expected->summary_value.to_dec());
        EXPECT_EQ(reputation_json["summary"]["summary_value_decimals"],
                  expected->summary_value_decimals);
        if (expected->count > 0) ++nonzero;
    }
    EXPECT_GE(nonzero, 6);
    const Json no_clients = ok(api, "/api/v1/agents/0/reputation");
    EXPECT_TRUE(no_clients["summary"].is_null());
    EXPECT_EQ(no_clients["summary_error"], "client_addresses_required");
    EXPECT_EQ(no_clients["summary_rules"], "credence");  // a Credence deployment
    EXPECT_TRUE(no_clients["score"]["explanation"].is_object());
    EXPECT_EQ(no_clients["feedback"]["count"], sent.agent0_feedback);
    EXPECT_EQ(no_clients["feedback"]["clients"], 4);

    // History: every non-revoked feedback lands in one bucket.
    const Json history = ok(api, "/api/v1/agents/0/reputation/history", {{"buckets", "3"}});
    int64_t total = 0;
    for (const auto& p : history["points"]) total += p["count"].get<int64_t>();
    EXPECT_EQ(total, static_cast<int64_t>(sent.agent0_feedback - 1));
    EXPECT_EQ(history["points"].back()["cumulative_count"], total);

    // Validations: the ValidationRegistry getSummary mirror equals eth_call.
    const Json validations = ok(api, "/api/v1/agents/0/validations");
    ASSERT_EQ(validations["items"].size(), 1U);
    EXPECT_EQ(validations["items"][0]["validator"], devnet.dev_address(8).to_checksum_hex());
    EXPECT_EQ(validations["items"][0]["response"], 90);
    auto vcall =
        rpc.call({{}, validation, vr::get_summary(core::Uint256{0}, {}, "").value(), {}, {}});
    ASSERT_TRUE(vcall);
    auto vexpected = vr::decode_get_summary_result(*vcall);
    ASSERT_TRUE(vexpected);
    EXPECT_EQ(validations["summary"]["count"], vexpected->count);
    EXPECT_EQ(validations["summary"]["average_response"], vexpected->average_response);

    // Resolvers.
    const Json by_address =
        ok(api, "/api/v1/resolve/address/" + devnet.dev_address(1).to_lower_hex());
    ASSERT_GE(by_address["items"].size(), 1U);
    EXPECT_EQ(by_address["items"][0]["agentId"], "0");
    const Json by_domain = ok(api, "/api/v1/resolve/domain/Agent.Example");
    std::set<std::string> resolved;
    for (const auto& item : by_domain["items"]) resolved.insert(item["agentId"]);
    EXPECT_EQ(resolved, (std::set<std::string>{"0", "2"}));
    EXPECT_TRUE(ok(api, "/api/v1/resolve/domain/nobody.example")["items"].empty());
    // A URL names its host (docs/api.md §Resolvers), its slashes percent-encoded in the segment.
    EXPECT_EQ(ok(api, "/api/v1/resolve/domain/https:%2F%2FAgent.Example%2Fmcp"), by_domain);

    // Operations.
    const Json status = ok(api, "/api/v1/status");
    EXPECT_EQ(status["chain_id"], devnet.chain_id());
    EXPECT_EQ(status["counts"]["agents"], 3);
    EXPECT_EQ(status["counts"]["feedback"], sent.agent0_feedback + 2);
    EXPECT_EQ(status["counts"]["validations"], 1);
    auto head = rpc.block_number();
    ASSERT_TRUE(head);
    EXPECT_EQ(status["indexed_block_num"], *head);
    const Json home = ok(api, "/api/v1/home");
    ASSERT_FALSE(home["recent"].empty());
    EXPECT_EQ(home["recent"][0]["event"], "ValidationResponse");
    EXPECT_EQ(home["recent"][0]["block_num"], *head);
    bool saw_feedback = false;
    for (const auto& e : home["recent"]) saw_feedback |= e["event"] == "NewFeedback";
    EXPECT_TRUE(saw_feedback);
    EXPECT_TRUE(ok(api, "/api/v1/tools")["items"].empty());
    EXPECT_TRUE(ok(api, "/api/v1/runs")["items"].empty());
}

// docs/graphql.md §Chains: /subgraphs/agent0/<chainId> names a chain in decimal, nothing else.
TEST(graphql_endpoint, the_subgraph_path_names_a_decimal_chain_id) {
    EXPECT_EQ(agent0_subgraph_chain("/subgraphs/agent0/84532"), 84532U);
    EXPECT_EQ(agent0_subgraph_chain("/subgraphs/agent0/18446744073709551615"),
              18446744073709551615U);
    for (const std::string_view path :
         {"/subgraphs/agent0", "/subgraphs/agent0/", "/subgraphs/agent0x/1", "/subgraphs/agent01",
          "/subgraphs/agent0/12x", "/subgraphs/agent0/+1", "/subgraphs/agent0/-1",
          "/subgraphs/agent0/1/2", "/subgraphs/agent0/18446744073709551616", "/api/v1/agents"}) {
        EXPECT_EQ(agent0_subgraph_chain(path), std::nullopt) << path;
    }
    const HttpResponse unknown = unknown_subgraph_chain("/subgraphs/agent0/5");
    EXPECT_EQ(unknown.status, 404);
    const auto body = nlohmann::json::parse(unknown.body);
    EXPECT_EQ(body["errors"][0]["message"],
              "no subgraph at /subgraphs/agent0/5: this node does not follow that chain");
}

// The agent0 subgraph's GraphQL over the same index (docs/graphql.md): what it says agrees with
// the chain the test wrote and with the REST answers.
void check_subgraph(testing::Devnet& devnet, GraphqlEndpoint& graphql, RestApi& api,
                    const Sent& sent) {
    const auto post = [&](const std::string& query) {
        HttpRequest r;
        r.method = "POST";
        r.path = std::string(kAgent0SubgraphPath);
        r.headers = {{"content-type", "application/json"}};
        r.body = Json{{"query", query}}.dump();
        const HttpResponse answer = graphql.handle(r);
        EXPECT_EQ(answer.status, 200) << answer.body;
        const Json body = Json::parse(answer.body);
        EXPECT_FALSE(body.contains("errors")) << answer.body;
        return body["data"];
    };
    const std::string chain = std::to_string(devnet.chain_id());
    const Json agents = post(
        "{ agents(orderBy: agentId) { id agentId owner totalFeedback registrationFile "
        "{ name } } }")["agents"];
    ASSERT_EQ(agents.size(), 3U);
    for (const auto& a : agents) {
        const std::string id = a["agentId"];
        EXPECT_EQ(a["id"], chain + ":" + id);
        const Json rest = Json::parse(api.handle(get("/api/v1/agents/" + id)).body);
        std::string owner = rest["owner"].get<std::string>();
        std::ranges::transform(owner, owner.begin(), [](char c) {
            return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        });
        EXPECT_EQ(a["owner"], owner);
    }
    EXPECT_EQ(agents[0]["registrationFile"]["name"], "Weather Oracle");
    EXPECT_EQ(agents[2]["registrationFile"]["name"], "Code Reviewer");
    EXPECT_EQ(agents[0]["totalFeedback"], std::to_string(sent.agent0_feedback - 1));
    const Json feedback = post("{ feedbacks(first: 1000, where: {agent: \"" + chain +
                               ":0\"}) { isRevoked responses { id } } }")["feedbacks"];
    EXPECT_EQ(feedback.size(), sent.agent0_feedback);
    size_t revoked = 0;
    for (const auto& f : feedback) revoked += f["isRevoked"].get<bool>() ? 1U : 0U;
    EXPECT_EQ(revoked, 1U);
    const Json validations = post("{ validations { response status } }")["validations"];
    ASSERT_EQ(validations.size(), 1U);
    EXPECT_EQ(validations[0]["response"], 90);
    EXPECT_EQ(validations[0]["status"], "COMPLETED");
    auto head = devnet.rpc().block_number();
    ASSERT_TRUE(head);
    EXPECT_EQ(post("{ _meta { block { number } } }")["_meta"]["block"]["number"], *head);
}

void end_to_end(testing::Devnet& devnet,
                const std::function<index::DbResult<std::unique_ptr<index::Database>>()>& opener) {
    testing::HttpsServer server({"agent.example"});
    const std::string registry = fmt::format("eip155:{}:{}", devnet.chain_id(),
                                             devnet.address("IdentityRegistry").to_checksum_hex());
    server.serve("agent.example", "/a.json",
                 registration_file("Weather Oracle", "Forecasts for agents", registry, 0));
    server.serve("agent.example", "/c.json",
                 registration_file("Code Reviewer", "Reviews pull requests", registry, 2));
    const Sent sent = populate(devnet);
    if (::testing::Test::HasFatalFailure()) return;
    auto db = opener();
    ASSERT_TRUE(db) << db.error().to_string();
    build_index(devnet, **db, server);
    if (::testing::Test::HasFatalFailure()) return;

    RestApiOptions options;
    options.scope = scope_of(devnet);
    options.open_database = opener;
    options.node_status = [] { return nlohmann::json{{"lag", 0}}; };
    RestApi api(std::move(options));
    check_routes(devnet, api, sent);
    subgraph::Agent0GraphOptions graph_options;
    const ApiScope scope = scope_of(devnet);
    graph_options.sources = {scope.chain_id, scope.identity_registry, scope.reputation_registry,
                             scope.validation_registry};
    graph_options.open_database = opener;
    GraphqlEndpoint graphql(std::move(graph_options));
    check_subgraph(devnet, graphql, api, sent);

    // The same answers over a real socket.
    McpEndpoint mcp(api, McpOptions{});
    HttpServerOptions server_options;
    server_options.graphql = &graphql;
    server_options.port = 0;
    server_options.threads = 2;
    HttpServer http(api, mcp, server_options);
    ASSERT_TRUE(http.start());
    httplib::Client client("127.0.0.1", http.port());
    client.set_connection_timeout(2);
    client.set_read_timeout(2);
    auto answer =
        client.Get("/api/v1/agents/0/reputation?client=" + devnet.dev_address(4).to_checksum_hex());
    ASSERT_TRUE(answer);
    EXPECT_EQ(answer->status, 200);
    const HttpResponse in_process = api.handle(
        get("/api/v1/agents/0/reputation", {{"client", devnet.dev_address(4).to_checksum_hex()}}));
    EXPECT_EQ(answer->body, in_process.body);
    auto health = client.Get("/healthz");
    ASSERT_TRUE(health);
    EXPECT_EQ(health->status, 200);
    EXPECT_EQ(Json::parse(health->body)["node"]["lag"], 0);
    // GraphQL over HTTP: POST and GET answer alike; a request that cannot run is 400 for a
    // client accepting application/graphql-response+json, 200 with errors for application/json.
    const std::string query = "{ agents(first: 2) { id } }";
    auto posted = client.Post(std::string(kAgent0SubgraphPath), Json{{"query", query}}.dump(),
                              "application/json");
    ASSERT_TRUE(posted);
    EXPECT_EQ(posted->status, 200);
    auto fetched = client.Get(std::string(kAgent0SubgraphPath) +
                              "?query=" + httplib::detail::encode_query_param(query));
    ASSERT_TRUE(fetched);
    EXPECT_EQ(fetched->body, posted->body);
    const httplib::Headers graphql_accept{{"Accept", "application/graphql-response+json"}};
    auto bad = client.Post(std::string(kAgent0SubgraphPath), graphql_accept,
                           "{\"query\": \"{ nope }\"}", "application/json");
    ASSERT_TRUE(bad);
    EXPECT_EQ(bad->status, 400);
    EXPECT_TRUE(Json::parse(bad->body).contains("errors"));
    auto legacy = client.Post(std::string(kAgent0SubgraphPath), "{\"query\": \"{ nope }\"}",
                              "application/json");
    ASSERT_TRUE(legacy);
    EXPECT_EQ(legacy->status, 200);
    auto not_json = client.Post(std::string(kAgent0SubgraphPath), "query=1", "text/plain");
    ASSERT_TRUE(not_json);
    EXPECT_EQ(not_json->status, 415);
    http.stop();
}

class rest_api_devnet : public testing::DevnetFixture {};

TEST_F(rest_api_devnet, every_route_on_sqlite) {
    const auto path = testing::scratch_dir() / "rest_api_e2e.sqlite";
    std::filesystem::remove(path);
    end_to_end(devnet(), [path] { return index::open_sqlite(path); });
}

TEST_F(rest_api_devnet, every_route_on_postgres) {
    CREDENCE_POSTGRES_URL(url);
    end_to_end(devnet(), [url] { return index::open_postgres(url); });
}

/// A migrated, empty SQLite index for the tests that need no chain.
std::filesystem::path empty_index(const std::string& name) {
    const auto path = testing::scratch_dir() / name;
    std::filesystem::remove(path);
    auto db = index::open_sqlite(path);
    EXPECT_TRUE(db);
    if (db) {
        EXPECT_TRUE(index::IndexStore::open(**db));
    }
    return path;
}

RestApiOptions options_for(const std::filesystem::path& path) {
    RestApiOptions options;
    options.scope.chain_id = 31337;
    options.open_database = [path] { return index::open_sqlite(path); };
    return options;
}

TEST(rest_api, hostile_input_is_a_4xx_never_a_5xx) {
    RestApi api(options_for(empty_index("rest_hostile.sqlite")));
    const std::string bad_utf8 = "\xff\xfe\xc0\x80";
    const std::vector<std::pair<std::string, Query>> cases{
        {"/api/v1/agents/abc", {}},
        {"/api/v1/agents/-1", {}},
        {"/api/v1/agents/" + std::string(100, '9'), {}},
        {"/api/v1/agents/" + std::string(78, '9'), {}},  // past 2^256
        {"/api/v1/agents/0x" + std::string(65, 'f'), {}},
        {"/api/v1/agents/" + bad_utf8, {}},
        {"/api/v1/agents", {{"limit", "0"}}},
        {"/api/v1/agents", {{"limit", "101"}}},
        {"/api/v1/agents", {{"limit", "99999999999999999999999"}}},
        {"/api/v1/agents", {{"limit", "1e3"}}},
        {"/api/v1/agents", {{"cursor", "zz"}}},
        {"/api/v1/agents", {{"cursor", "6167656e74732d69647c"}}},
        {"/api/v1/agents", {{"cursor", std::string(5000, 'a')}}},
        {"/api/v1/agents", {{"sort", "random"}}},
        {"/api/v1/agents", {{"q", bad_utf8}}},
        {"/api/v1/agents", {{"q", std::string(1000, 'x')}}},
        {"/api/v1/agents", {{"min_score", "nan"}}},
        {"/api/v1/agents", {{"min_score", "1e999"}}},
        {"/api/v1/agents", {{"active", "maybe"}}},
        {"/api/v1/agents", {{"verification", "great"}}},
        {"/api/v1/agents", {{"owner", "0x12"}}},
        {"/api/v1/agents", {{"unknown", "1"}}},
        {"/api/v1/agents", {{bad_utf8, "1"}}},
        {"/api/v1/agents/1/feedback", {{"client", "not-an-address"}}},
        {"/api/v1/agents/1/feedback", {{"cursor", "00"}}},
        {"/api/v1/agents/1/reputation", {{"tag1", bad_utf8}}},
        {"/api/v1/agents/1/reputation/history", {{"buckets", "0"}}},
        {"/api/v1/tools/x", {}},
        {"/api/v1/tools", {{"cursor", "1234"}}},
        {"/api/v1/runs/0x1234", {}},
        {"/api/v1/runs", {{"status", "done"}}},
        {"/api/v1/runs", {{"workflow", "0x"}}},
        {"/api/v1/resolve/address/0xzz", {}},
        {"/api/v1/resolve/domain/" + bad_utf8, {}},
        {"/api/v1/resolve/domain/" + std::string(300, 'a'), {}},
        {"/api/v1/nothing", {}},
        {"/api/v2/agents", {}},
        {"/api/v1/agents//feedback", {}},
        {"", {}},
        {"relative", {}},
    };
    for (const auto& [path, query] : cases) {
        const HttpResponse r = api.handle(get(path, query));
        EXPECT_GE(r.status, 400) << path;
        EXPECT_LT(r.status, 500) << path << " " << r.body;
        const Json j = body_of(r);
        EXPECT_TRUE(j.contains("error") && j.contains("code")) << path;
    }
    // Entities that do not exist are 404 with their own words.
    for (const std::string& path :
         std::vector<std::string>{"/api/v1/agents/5", "/api/v1/agents/5/feedback",
                                  "/api/v1/tools/1", "/api/v1/runs/0x" + std::string(64, '1')}) {
        EXPECT_EQ(api.handle(get(path)).status, 404) << path;
    }
    HttpRequest post = get("/api/v1/agents");
    post.method = "POST";
    const HttpResponse refused = api.handle(post);
    EXPECT_EQ(refused.status, 405);
    EXPECT_EQ(body_of(refused)["code"], "method_not_allowed");

    // Random requests: never a 5xx.
    std::mt19937 rng(11);
    const std::vector<std::string> paths{"/api/v1/agents",
                                         "/api/v1/agents/{}",
                                         "/api/v1/agents/{}/feedback",
                                         "/api/v1/agents/{}/reputation",
                                         "/api/v1/tools",
                                         "/api/v1/runs/{}",
                                         "/api/v1/resolve/domain/{}",
                                         "/api/v1/chains/{}/agents/1",
                                         "/api/v1/chains/31337/agents/{}"};
    const std::vector<std::string> names{"limit",   "cursor",    "q",     "client",
                                         "sort",    "min_score", "tag1",  "include_revoked",
                                         "buckets", "status",    "chain", "registry"};
    for (int i = 0; i < 1500; ++i) {
        std::string junk;
        const size_t length = rng() % 40;
        for (size_t k = 0; k < length; ++k) junk += static_cast<char>(rng() % 256);
        std::string path = paths[rng() % paths.size()];
        if (auto at = path.find("{}"); at != std::string::npos) path.replace(at, 2, junk);
        Query query{{names[rng() % names.size()], junk}};
        const HttpResponse r = api.handle(get(path, query));
        ASSERT_LT(r.status, 500) << path << " " << r.body;
    }
}

TEST(rest_api, a_failing_database_is_503_unavailable) {
    RestApiOptions options;
    options.open_database = []() -> index::DbResult<std::unique_ptr<index::Database>> {
        return std::unexpected(index::DbError{index::DbErrorKind::connection, "server gone"});
    };
    RestApi api(std::move(options));
    for (const std::string path : {"/api/v1/agents", "/api/v1/agents/1", "/healthz"}) {
        const HttpResponse r = api.handle(get(path));
        EXPECT_EQ(r.status, 503) << path;
        EXPECT_EQ(body_of(r)["code"], "unavailable") << path;
    }
    // A database without the schema (a query fails) is 503 too, not a crash.
    const auto path = testing::scratch_dir() / "rest_no_schema.sqlite";
    std::filesystem::remove(path);
    RestApiOptions bare;
    bare.open_database = [path] { return index::open_sqlite(path); };
    RestApi bare_api(std::move(bare));
    EXPECT_EQ(bare_api.handle(get("/api/v1/agents")).status, 503);
    EXPECT_EQ(bare_api.handle(get("/healthz")).status, 200);  // SELECT 1 works
}

// The pool opens at most max_connections connections however many requests run at once (each
// SQLite one maps the index file); a request past the cap waits for a released one.
TEST(rest_api, connection_pool_is_bounded) {
    // max_connections 3, then the default (0: 2 for SQLite).
    for (const size_t cap : {size_t{3}, size_t{0}}) {
        auto options = options_for(empty_index("rest_pool.sqlite"));
        std::atomic<int> opened{0};
        options.open_database = [open = options.open_database, &opened] {
            ++opened;
            return open();
        };
        options.max_connections = cap;
        RestApi api(std::move(options));
        std::atomic<int> failures{0};
        std::vector<std::thread> threads;
        for (int t = 0; t < 6; ++t) {
            threads.emplace_back([&] {
                for (int i = 0; i < 25; ++i) {
                    const std::string path = i % 2 == 0 ? "/api/v1/agents" : "/api/v1/agents/1";
                    const int status = api.handle(get(path)).status;
                    if (status != 200 && status != 404) ++failures;
                }
            });
        }
        for (auto& thread : threads) thread.join();
        EXPECT_EQ(failures.load(), 0);
        EXPECT_GE(opened.load(), 1);
        EXPECT_LE(opened.load(), cap == 0 ? 2 : static_cast<int>(cap));
    }
}

// Structural validation of the OpenAPI 3.1 document: version, every route of the API described
// with a GET and a 200 answer, every $ref resolving, path parameters declared.
TEST(rest_api, openapi_describes_every_route) {
    RestApi api(options_for(empty_index("rest_openapi.sqlite")));
    const Json doc = ok(api, "/openapi.json");
    EXPECT_EQ(doc["openapi"], "3.1.0");
    ASSERT_TRUE(doc["info"]["title"].is_string());
    ASSERT_TRUE(doc["paths"].is_object());
    const std::vector<std::string> routes{"/healthz",
                                          "/metrics",
                                          "/openapi.json",
                                          "/api/v1/status",
                                          "/api/v1/home",
                                          "/api/v1/agents",
                                          "/api/v1/agents/{agent_id}",
                                          "/api/v1/agents/{agent_id}/feedback",
                                          "/api/v1/agents/{agent_id}/reputation",
                                          "/api/v1/agents/{agent_id}/reputation/history",
                                          "/api/v1/agents/{agent_id}/validations",
                                          "/api/v1/tools",
                                          "/api/v1/tools/{tool_id}",
                                          "/api/v1/runs",
                                          "/api/v1/runs/{run_id}",
                                          "/api/v1/resolve/address/{address}",
                                          "/api/v1/resolve/domain/{domain}",
                                          "/api/v1/chains/{chain_id}/status",
                                          "/api/v1/chains/{chain_id}/home",
                                          "/api/v1/chains/{chain_id}/agents/{agent_id}",
                                          "/api/v1/chains/{chain_id}/agents/{agent_id}/feedback",
                                          "/api/v1/chains/{chain_id}/agents/{agent_id}/reputation",
                                          "/api/v1/chains/{chain_id}/agents/{agent_id}/"
                                          "reputation/history",
                                          "/api/v1/chains/{chain_id}/agents/{agent_id}/validations",
                                          "/api/v1/chains/{chain_id}/tools/{tool_id}",
                                          "/api/v1/chains/{chain_id}/runs/{run_id}"};
    EXPECT_EQ(doc["paths"].size(), routes.size());
    const std::map<std::string, std::string> samples{{"{chain_id}", "31337"},
                                                     {"{agent_id}", "1"},
                                                     {"{tool_id}", "1"},
                                                     {"{run_id}", "0x" + std::string(64, '1')},
                                                     {"{address}", "0x" + std::string(40, '1')},
                                                     {"{domain}", "agent.example"}};
    std::function<void(const Json&)> check_refs = [&](const Json& node) {
        if (node.is_object()) {
            if (auto it = node.find("$ref"); it != node.end()) {
                const std::string ref = *it;
                ASSERT_TRUE(ref.starts_with("#/components/schemas/")) << ref;
                EXPECT_TRUE(doc["components"]["schemas"].contains(ref.substr(21))) << ref;
            }
            for (const auto& [key, value] : node.items()) check_refs(value);
        } else if (node.is_array()) {
            for (const auto& value : node) check_refs(value);
        }
    };
    check_refs(doc);
    for (const auto& route : routes) {
        ASSERT_TRUE(doc["paths"].contains(route)) << route;
        const Json& op = doc["paths"][route]["get"];
        EXPECT_TRUE(op["responses"].contains("200")) << route;
        EXPECT_TRUE(op["summary"].is_string()) << route;
        // Each {placeholder} is a declared path parameter, and the route answers (an entity may
        // be missing: 404 with a code other than a missing route's).
        std::string concrete = route;
        for (const auto& [placeholder, sample] : samples) {
            if (auto at = concrete.find(placeholder); at != std::string::npos) {
                bool declared = false;
                for (const auto& p : op["parameters"]) {
                    declared |= p["in"] == "path" &&
                                "{" + p["name"].get<std::string>() + "}" == placeholder;
                }
                EXPECT_TRUE(declared) << route << " " << placeholder;
                concrete.replace(at, placeholder.size(), sample);
            }
        }
        const HttpResponse r = api.handle(get(concrete));
        EXPECT_TRUE(r.status == 200 ||
                    (r.status == 404 && r.body.find("no such route") == std::string::npos))
            << concrete << " " << r.status << " " << r.body;
    }
}

TEST(rest_api, metrics_count_requests_by_route_and_status) {
    auto options = options_for(empty_index("rest_metrics.sqlite"));
    options.node_metrics = [] { return std::string("credence_indexer_lag_blocks 3\n"); };
    RestApi api(std::move(options));
    (void)api.handle(get("/api/v1/agents"));
    (void)api.handle(get("/api/v1/agents/7"));
    (void)api.handle(get("/api/v1/agents/8"));
    (void)api.handle(get("/api/v1/agents/x"));
    const HttpResponse r = api.handle(get("/metrics"));
    EXPECT_EQ(r.status, 200);
    EXPECT_TRUE(r.content_type.starts_with("text/plain"));
    EXPECT_NE(
        r.body.find("credence_http_requests_total{route=\"/api/v1/agents\",status=\"200\"} 1"),
        std::string::npos)
        << r.body;
    EXPECT_NE(r.body.find("credence_http_requests_total{route=\"/api/v1/agents/{agent_id}\","
                          "status=\"404\"} 2"),
              std::string::npos)
        << r.body;
    EXPECT_NE(r.body.find("credence_http_requests_total{route=\"/api/v1/agents/{agent_id}\","
                          "status=\"400\"} 1"),
              std::string::npos);
    EXPECT_NE(r.body.find("credence_http_request_duration_seconds_count 4"), std::string::npos);
    EXPECT_NE(r.body.find("credence_indexer_lag_blocks 3"), std::string::npos);
}

// The server over a real socket: limits, static files with the SPA fallback, /mcp routing.
TEST(http_server, limits_static_files_and_routing) {
    RestApi api(options_for(empty_index("http_server.sqlite")));
    McpEndpoint mcp(api, McpOptions{});
    const auto dir = testing::scratch_dir() / "http_static";
    std::filesystem::create_directories(dir / "assets");
    std::ofstream(dir / "index.html") << "<html>explorer</html>";
    std::ofstream(dir / "assets" / "app.js") << "console.log(1)";
    std::ofstream(testing::scratch_dir() / "secret.txt") << "secret";
    HttpServerOptions options;
    options.port = 0;
    options.static_dir = dir;
    options.max_body_bytes = 1024;
    options.rate_limit_per_second = 5;
    options.rate_limit_burst = 20;
    options.threads = 2;
    HttpServer server(api, mcp, options);
    ASSERT_TRUE(server.start());
    httplib::Client client("127.0.0.1", server.port());
    client.set_connection_timeout(2);
    client.set_read_timeout(2);

    auto js = client.Get("/assets/app.js");
    ASSERT_TRUE(js);
    EXPECT_EQ(js->status, 200);
    EXPECT_EQ(js->body, "console.log(1)");
    EXPECT_TRUE(js->get_header_value("Content-Type").starts_with("text/javascript"));
    auto spa = client.Get("/agents/7");  // an explorer route: index.html
    ASSERT_TRUE(spa);
    EXPECT_EQ(spa->status, 200);
    EXPECT_EQ(spa->body, "<html>explorer</html>");
    auto missing = client.Get("/assets/missing.js");
    ASSERT_TRUE(missing);
    EXPECT_EQ(missing->status, 404);
    auto escape = client.Get("/../secret.txt");
    ASSERT_TRUE(escape);
    EXPECT_NE(escape->body, "secret");
    auto escape2 = client.Get("/assets/%2e%2e/%2e%2e/secret.txt");
    ASSERT_TRUE(escape2);
    EXPECT_NE(escape2->body, "secret");

    auto api_answer = client.Get("/api/v1/agents?limit=1");
    ASSERT_TRUE(api_answer);
    EXPECT_EQ(api_answer->status, 200);
    auto unknown_api = client.Get("/api/v1/unknown");
    ASSERT_TRUE(unknown_api);
    EXPECT_EQ(unknown_api->status, 404);
    EXPECT_EQ(Json::parse(unknown_api->body)["code"], "not_found");

    // The MCP endpoint answers /mcp (a JSON-RPC ping).
    auto ping =
        client.Post("/mcp", R"({"jsonrpc":"2.0","id":1,"method":"ping"})", "application/json");
    ASSERT_TRUE(ping);
    EXPECT_NE(ping->status, 404);
    EXPECT_LT(ping->status, 500);

    // 413 for a body over the limit.
    auto big = client.Post("/mcp", std::string(4096, 'x'), "application/json");
    ASSERT_TRUE(big);
    EXPECT_EQ(big->status, 413);
    EXPECT_EQ(Json::parse(big->body)["code"], "payload_too_large");

    // 429 with Retry-After once the bucket is empty.
    int limited = 0;
    std::string retry_after;
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < 60 && limited == 0; ++i) {
        auto r = client.Get("/healthz");
        ASSERT_TRUE(r);
        if (r->status == 429) {
            ++limited;
            retry_after = r->get_header_value("Retry-After");
            EXPECT_EQ(Json::parse(r->body)["code"], "rate_limited");
        }
    }
    EXPECT_EQ(limited, 1);
    EXPECT_FALSE(retry_after.empty());
    EXPECT_GE(std::stoi(retry_after), 1);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
    server.stop();
    server.stop();  // idempotent
}

}  // namespace
}  // namespace credence::api
