// GraphQL §6 Execution over the agent0 schema and an in-memory data source: the agent0 SDK's own
// queries, The Graph's collection conventions, batching, output encoding and execution errors.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>

#include <credence/graphql/execute.hpp>
#include <credence/graphql/memory_source_test_support.hpp>

using namespace credence::graphql;
using credence::graphql::test_support::MemorySource;
using credence::graphql::test_support::Record;
using nlohmann::json;

namespace {

ByteString bytes(std::string_view hex) {
    ByteString b;
    for (std::size_t i = 2; i + 1 < hex.size(); i += 2)
        b.bytes.push_back(
            static_cast<std::uint8_t>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
    return b;
}

ScalarList strings(std::initializer_list<const char*> items) {
    ScalarList out;
    for (const char* s : items) out.emplace_back(std::string(s));
    return out;
}

class graphql_execute : public ::testing::Test {
protected:
    void SetUp() override {
        auto s = make_schema(test_support::agent0_schema_def());
        ASSERT_TRUE(s.has_value()) << s.error().message;
        schema_.emplace(std::move(*s));
        auto& agents = source_.tables["Agent"];
        const char* owners[] = {"0x00000000000000000000000000000000000000aa",
                                "0x00000000000000000000000000000000000000bb",
                                "0x00000000000000000000000000000000000000aa"};
        for (int i = 1; i <= 3; ++i) {
            Record a;
            a["id"] = fmt::format("11155111:{}", i);
            a["chainId"] = std::string("11155111");
            a["agentId"] = std::int64_t{i};
            a["owner"] = bytes(owners[i - 1]);
            a["operators"] = i == 2 ? ScalarList{bytes("0x01")} : ScalarList{};
            a["createdAt"] = std::to_string(1700000000 + i * 10);
            a["updatedAt"] = std::to_string(1700000100 + i);
            a["totalFeedback"] = std::string(i == 1 ? "2" : "0");
            a["lastActivity"] = std::string("1700000200");
            a["agentURI"] = fmt::format("ipfs://cid{}", i);
            if (i != 3) a["registrationFile"] = fmt::format("file{}", i);
            agents.push_back(std::move(a));
        }
        for (int i = 1; i <= 2; ++i) {
            Record f;
            f["id"] = fmt::format("file{}", i);
            f["cid"] = fmt::format("cid{}", i);
            f["agentId"] = fmt::format("11155111:{}", i);
            f["name"] = std::string(i == 1 ? "Weather Oracle" : "Code Reviewer");
            f["active"] = true;
            f["supportedTrusts"] = strings({"reputation"});
            f["mcpEndpoint"] = i == 1 ? Cell(std::string("https://mcp.example")) : Cell{};
            f["oasfSkills"] = strings({});
            f["oasfDomains"] = strings({});
            f["hasOASF"] = false;
            f["mcpTools"] = strings({"forecast"});
            f["mcpPrompts"] = strings({});
            f["mcpResources"] = strings({});
            f["a2aSkills"] = strings({});
            f["createdAt"] = std::string("1700000000");
            source_.tables["AgentRegistrationFile"].push_back(std::move(f));
        }
        const struct {
            const char* id;
            const char* agent;
            const char* value;
            const char* tag1;
            bool revoked;
        } feedback[] = {{"f1", "11155111:1", "90", "uptime", false},
                        {"f2", "11155111:1", "40.5", "speed", false},
                        {"f3", "11155111:2", "75", "uptime", true}};
        for (const auto& fb : feedback) {
            Record r;
            r["id"] = std::string(fb.id);
            r["agent"] = std::string(fb.agent);
            r["clientAddress"] = bytes("0x00000000000000000000000000000000000000cc");
            r["feedbackIndex"] = std::string("1");
            r["value"] = std::string(fb.value);
            r["tag1"] = std::string(fb.tag1);
            r["isRevoked"] = fb.revoked;
            r["createdAt"] = std::string(fb.id == std::string("f2") ? "300" : "200");
            source_.tables["Feedback"].push_back(std::move(r));
        }
        for (int i = 1; i <= 2; ++i) {
            Record r;
            r["id"] = fmt::format("f1:{}", i);
            r["feedback"] = std::string("f1");
            r["responder"] = bytes("0xdd");
            r["createdAt"] = std::to_string(400 + i);
            source_.tables["FeedbackResponse"].push_back(std::move(r));
        }
        source_.index_status.block_num = 123;
        source_.index_status.block_hash = bytes("0xabcd");
        source_.index_status.block_timestamp = 1700000999;
        source_.index_status.deployment = "credence";
    }

    json run(const std::string& query, json variables = nullptr, const Limits& limits = {}) {
        Request r;
        r.query = query;
        r.variables = std::move(variables);
        const auto out = execute(*schema_, source_, r, limits);
        return json::parse(out.dump());
    }

    // The one error's message, expecting no data.
    std::string error_of(const std::string& query, json variables = nullptr,
                         const Limits& limits = {}) {
        const auto out = run(query, std::move(variables), limits);
        EXPECT_TRUE(out.contains("errors")) << out.dump();
        if (!out.contains("errors")) return {};
        EXPECT_TRUE(!out.contains("data") || out["data"].is_null()) << out.dump();
        return out["errors"][0]["message"].get<std::string>();
    }

    std::optional<Schema> schema_;
    MemorySource source_;
};

}  // namespace

// The agent0 SDK's getAgentById query, as it sends it.
TEST_F(graphql_execute, sdk_get_agent_by_id) {
    const auto out = run(R"(
      query GetAgent($agentId: String!) {
        agent(id: $agentId) {
          id chainId agentId owner operators agentURI agentURIType agentWallet createdAt
          updatedAt totalFeedback lastActivity
          registrationFile { id agentId name description image active x402Support
            supportedTrusts mcpEndpoint mcpVersion a2aEndpoint a2aVersion webEndpoint
            emailEndpoint oasfSkills oasfDomains hasOASF ens did mcpTools mcpPrompts
            mcpResources a2aSkills }
        }
      })",
                         {{"agentId", "11155111:1"}});
    ASSERT_FALSE(out.contains("errors")) << out.dump();
    const auto& agent = out["data"]["agent"];
    EXPECT_EQ(agent["id"], "11155111:1");
    EXPECT_EQ(agent["agentId"], "1");  // BigInt: a string, even from an integer cell
    EXPECT_EQ(agent["owner"], "0x00000000000000000000000000000000000000aa");  // Bytes: 0x-hex
    EXPECT_EQ(agent["operators"], json::array());
    EXPECT_TRUE(agent["agentWallet"].is_null());
    EXPECT_EQ(agent["registrationFile"]["name"], "Weather Oracle");
    EXPECT_EQ(agent["registrationFile"]["mcpTools"], json::array({"forecast"}));
    EXPECT_EQ(agent["registrationFile"]["hasOASF"], false);
    // Field order follows the query (the raw, ordered response).
    const auto raw =
        execute(*schema_, source_,
                Request{"{ agent(id: \"11155111:1\") { owner id agentId } }", nullptr, {}})
            .dump();
    EXPECT_EQ(raw, R"({"data":{"agent":{"owner":"0x00000000000000000000000000000000000000aa",)"
                   R"("id":"11155111:1","agentId":"1"}}})");
    EXPECT_TRUE(run("{ agent(id: \"nope\") { id } }")["data"]["agent"].is_null());
}

// The SDK's searchAgentsV2: the where tree comes in a variable, as the indexer builds it.
TEST_F(graphql_execute, sdk_search_agents_v2_where_variable) {
    const std::string query = R"(
      query SearchAgentsV2($where: Agent_filter, $first: Int!, $skip: Int!,
                           $orderBy: Agent_orderBy!, $orderDirection: OrderDirection!) {
        agents(where: $where, first: $first, skip: $skip, orderBy: $orderBy,
               orderDirection: $orderDirection) {
          id owner registrationFile { name mcpEndpoint }
        }
      })";
    json vars = {{"first", 10}, {"skip", 0}, {"orderBy", "createdAt"}, {"orderDirection", "desc"}};
    vars["where"] = {{"and",
                      {{{"registrationFile_not", nullptr},
                        {"owner_in", {"0x00000000000000000000000000000000000000AA"}}},
                       {{"registrationFile_",
                         {{"name_contains_nocase", "weather"}, {"mcpEndpoint_not", nullptr}}}}}}};
    auto out = run(query, vars);
    ASSERT_FALSE(out.contains("errors")) << out.dump();
    ASSERT_EQ(out["data"]["agents"].size(), 1u);
    EXPECT_EQ(out["data"]["agents"][0]["id"], "11155111:1");

    // or over operators_contains, as the indexer writes it; createdAt_gte as a BigInt string.
    vars["where"] = {
        {"or", {{{"operators_contains", {"0x01"}}}, {{"createdAt_gte", "1700000030"}}}}};
    out = run(query, vars);
    ASSERT_FALSE(out.contains("errors")) << out.dump();
    ASSERT_EQ(out["data"]["agents"].size(), 2u);
    EXPECT_EQ(out["data"]["agents"][0]["id"], "11155111:3");  // createdAt desc
    EXPECT_EQ(out["data"]["agents"][1]["id"], "11155111:2");
    // totalFeedback_gt: "0" (the hasFeedback push-down).
    vars["where"] = {{"totalFeedback_gt", "0"}};
    out = run(query, vars);
    ASSERT_EQ(out["data"]["agents"].size(), 1u);
    // What reached the data source: the normalized filter and only the requested columns.
    const auto& q = source_.queries.back();
    EXPECT_EQ(q.entity, "Agent");
    EXPECT_EQ(q.fields, (std::vector<std::string>{"id", "owner", "registrationFile"}));
    EXPECT_EQ(q.order.field, "createdAt");
    EXPECT_TRUE(q.order.descending);
    ASSERT_EQ(q.filter.children.size(), 1u);
    EXPECT_EQ(q.filter.children[0].op, FilterOp::gt);
    EXPECT_EQ(q.filter.children[0].field, "totalFeedback");
    EXPECT_EQ(q.filter.children[0].scalar, ScalarKind::big_int);
}

// The SDK's searchFeedback: a literal where with `or` alternatives, value_gte, enum arguments
// written inline, a reference and a @derivedFrom list.
TEST_F(graphql_execute, sdk_search_feedback) {
    const auto out = run(R"({
        feedbacks(
          where: { or: [{ agent_in: ["11155111:1", "11155111:2"], isRevoked: false, tag1: "uptime" },
                        { agent_in: ["11155111:1", "11155111:2"], isRevoked: false, tag2: "uptime" }] }
          first: 100 skip: 0 orderBy: createdAt orderDirection: desc
        ) {
          id agent { id agentId chainId } clientAddress value tag1 isRevoked createdAt
          feedbackFile { id text }
          responses { id responder createdAt }
        }
      })");
    ASSERT_FALSE(out.contains("errors")) << out.dump();
    const auto& list = out["data"]["feedbacks"];
    ASSERT_EQ(list.size(), 1u);
    EXPECT_EQ(list[0]["id"], "f1");
    EXPECT_EQ(list[0]["agent"]["agentId"], "1");
    EXPECT_EQ(list[0]["value"], "90");  // BigDecimal: a string
    EXPECT_TRUE(list[0]["feedbackFile"].is_null());
    ASSERT_EQ(list[0]["responses"].size(), 2u);
    EXPECT_EQ(list[0]["responses"][0]["id"], "f1:1");
    EXPECT_EQ(list[0]["responses"][0]["responder"], "0xdd");

    const auto ranged = run(R"({ feedbacks(where: {value_gte: "40", value_lte: 80}) { id } })");
    ASSERT_FALSE(ranged.contains("errors")) << ranged.dump();
    ASSERT_EQ(ranged["data"]["feedbacks"].size(), 2u);  // 40.5 and 75, compared as numbers
}

// @derivedFrom lists of a whole page: one list() call with per-parent paging, not one per row.
TEST_F(graphql_execute, nested_fields_are_batched) {
    auto& agents = source_.tables["Agent"];
    for (int i = 4; i <= 1000; ++i) {
        Record a = agents[0];
        a["id"] = fmt::format("11155111:{}", i);
        a["registrationFile"] = std::string(i % 2 == 0 ? "file1" : "file2");
        agents.push_back(std::move(a));
    }
    source_.calls.clear();
    const auto out = run(R"({ agents(first: 1000) {
        id registrationFile { name } feedback(first: 1, orderBy: createdAt) { id } } })");
    ASSERT_FALSE(out.contains("errors")) << out.dump();
    ASSERT_EQ(out["data"]["agents"].size(), 1000u);
    EXPECT_EQ(source_.calls,
              (std::vector<std::string>{"list Agent", "get_many AgentRegistrationFile 2",
                                        "list Feedback"}));
    const auto& q = source_.queries.back();
    ASSERT_TRUE(q.per_parent.has_value());
    EXPECT_EQ(q.per_parent->field, "agent");
    EXPECT_EQ(q.per_parent->ids.size(), 1000u);
    EXPECT_EQ(q.first, 1);
    const auto& first = out["data"]["agents"][0];
    EXPECT_EQ(first["feedback"], json::array({{{"id", "f1"}}}));  // createdAt 200 before 300
}

TEST_F(graphql_execute, aliases_fragments_typename_and_directives) {
    const auto out = run(R"(
      query Q($withOwner: Boolean!, $skipName: Boolean = true) {
        one: agent(id: "11155111:1") { ...Ids kind: __typename }
        two: agent(id: "11155111:2") {
          ... on Agent { id owner @include(if: $withOwner) }
          registrationFile { name @skip(if: $skipName) cid }
        }
        __typename
      }
      fragment Ids on Agent { id agentId })",
                         {{"withOwner", false}});
    ASSERT_FALSE(out.contains("errors")) << out.dump();
    EXPECT_EQ(out["data"]["one"]["kind"], "Agent");
    EXPECT_EQ(out["data"]["one"]["agentId"], "1");
    EXPECT_FALSE(out["data"]["two"].contains("owner"));
    EXPECT_FALSE(out["data"]["two"]["registrationFile"].contains("name"));
    EXPECT_EQ(out["data"]["two"]["registrationFile"]["cid"], "cid2");
    EXPECT_EQ(out["data"]["__typename"], "Query");
    // GraphQL §6.3.2: the same response key merges its sub-selections.
    const auto merged =
        run("{ agent(id: \"11155111:1\") { id } agent(id: \"11155111:1\") { owner } }");
    ASSERT_FALSE(merged.contains("errors")) << merged.dump();
    EXPECT_EQ(merged["data"]["agent"].size(), 2u);
}

TEST_F(graphql_execute, meta_and_enums_and_pages) {
    auto out = run("{ _meta { block { number hash timestamp } deployment hasIndexingErrors } }");
    ASSERT_FALSE(out.contains("errors")) << out.dump();
    EXPECT_EQ(out["data"]["_meta"]["block"]["number"], 123);
    EXPECT_EQ(out["data"]["_meta"]["block"]["hash"], "0xabcd");
    EXPECT_EQ(out["data"]["_meta"]["block"]["timestamp"], 1700000999);
    EXPECT_EQ(out["data"]["_meta"]["deployment"], "credence");
    EXPECT_EQ(out["data"]["_meta"]["hasIndexingErrors"], false);
    // Default order is by id; skip and first page.
    out = run("{ agents(skip: 1, first: 1) { id } }");
    EXPECT_EQ(out["data"]["agents"], json::array({{{"id", "11155111:2"}}}));
    EXPECT_EQ(source_.queries.back().first, 1);
    EXPECT_EQ(source_.queries.back().skip, 1);
    out = run("{ agents { id } }");
    EXPECT_EQ(source_.queries.back().first, 100);  // The Graph's default
    // The mutation and subscription that parse are refused at execution.
    EXPECT_NE(error_of("mutation { agents { id } }").find("Only queries"), std::string::npos);
    EXPECT_NE(error_of("subscription { agents { id } }").find("Only queries"), std::string::npos);
    // GraphQL §6.1 GetOperation.
    EXPECT_NE(
        error_of("query A { agents { id } } query B { agents { id } }").find("operation name"),
        std::string::npos);
    Request r{"query A { agents { id } } query B { _meta { deployment } }", nullptr, "B"};
    EXPECT_EQ(json::parse(execute(*schema_, source_, r).dump())["data"]["_meta"]["deployment"],
              "credence");
    r.operation_name = "C";
    EXPECT_TRUE(json::parse(execute(*schema_, source_, r).dump()).contains("errors"));
}

TEST_F(graphql_execute, data_source_failure_gives_null_data_and_an_error) {
    source_.fail_next = true;
    const auto out = run("{ agents { id } }");
    ASSERT_TRUE(out.contains("errors"));
    EXPECT_TRUE(out.contains("data"));
    EXPECT_TRUE(out["data"].is_null());
    EXPECT_NE(out["errors"][0]["message"].get<std::string>().find("connection lost"),
              std::string::npos);
}

TEST_F(graphql_execute, wrong_cells_from_the_source_are_errors_not_answers) {
    source_.tables["Agent"][0]["owner"] = std::int64_t{5};  // not Bytes
    auto out = run("{ agent(id: \"11155111:1\") { owner } }");
    ASSERT_TRUE(out.contains("errors")) << out.dump();
    EXPECT_TRUE(out["data"].is_null());
    source_.tables["Agent"][0].erase("createdAt");  // null in a non-null field
    out = run("{ agent(id: \"11155111:1\") { createdAt } }");
    EXPECT_NE(out["errors"][0]["message"].get<std::string>().find("non-nullable"),
              std::string::npos);
}

TEST(graphql_request, parse_request_body) {
    auto r = parse_request(R"({"query":"{ a }","variables":{"x":1},"operationName":null})");
    ASSERT_TRUE(r.has_value()) << r.error().message;
    EXPECT_EQ(r->query, "{ a }");
    EXPECT_EQ(r->variables["x"], 1);
    EXPECT_FALSE(parse_request("[]").has_value());
    EXPECT_FALSE(parse_request(R"({"variables":{}})").has_value());
    EXPECT_FALSE(parse_request(R"({"query":"{a}","variables":[1]})").has_value());
    EXPECT_FALSE(parse_request("{\"query\":\"\xC0\xAF\"}").has_value());  // invalid UTF-8
    // Deep variables are refused before the JSON parser sees them.
    std::string deep = R"({"query":"{a}","variables":{"x":)" + std::string(100'000, '[') +
                       std::string(100'000, ']') + "}}";
    const auto d = parse_request(deep);
    ASSERT_FALSE(d.has_value());
    EXPECT_EQ(d.error().kind, ErrorKind::limit);
}
