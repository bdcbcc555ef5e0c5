// SnapshotSource: The Graph's filters, order and paging over a hand-built snapshot, through the
// real executor and the agent0 schema.
#include <credence/subgraph/snapshot_source.hpp>

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include <credence/graphql/execute.hpp>
#include <credence/subgraph/agent0_schema.hpp>

namespace credence::subgraph {
namespace {

using OJson = nlohmann::ordered_json;
using graphql::ScalarKind;

core::Address address(uint8_t last) {
    core::Address a;
    a.bytes.back() = last;
    return a;
}

// Four agents, feedback with values that compare differently as text and as numbers, a response.
std::shared_ptr<const ServedSnapshot> world() {
    Snapshot s;
    s.chain_id = 31337;
    s.chain_prefix = "31337:";
    s.block_num = 99;
    const std::vector<std::string> names = {"Weather Oracle", "code reviewer", "Weather Bot", ""};
    for (uint32_t i = 0; i < 4; ++i) {
        AgentRecord a;
        a.agent_id = std::to_string(i == 3 ? 10 : i);  // "10" sorts before "2" as text
        a.owner = address(static_cast<uint8_t>(i % 2 + 1));
        a.created_at = 100 + i;
        a.updated_at = i == 2 ? 500 : 200;  // a tie between agents 0, 1 and 3
        a.agent_uri = "https://a/" + a.agent_id;
        if (i < 3) {
            RegistrationFileRecord f;
            f.id = "file-" + a.agent_id;
            f.agent = i;
            f.name = names[i];
            f.active = i != 1;
            f.supported_trusts = i == 0 ? std::vector<std::string>{"reputation", "tee-attestation"}
                                        : std::vector<std::string>{"reputation"};
            if (i == 0) f.mcp_endpoint = "https://mcp/";
            a.registration_file = static_cast<uint32_t>(s.registration_files.size());
            s.registration_file_by_id.emplace(f.id, a.registration_file);
            s.registration_files.push_back(f);
        }
        s.agent_by_id.emplace(a.agent_id, i);
        s.agents.push_back(a);
    }
    s.feedback_by_agent.resize(4);
    s.validations_by_agent.resize(4);
    s.metadata_by_agent.resize(4);
    const std::vector<std::pair<uint32_t, std::string>> values = {
        {0, "9"}, {0, "10"}, {0, "-2.5"}, {1, "85"}, {3, "100"}};
    for (uint32_t k = 0; k < values.size(); ++k) {
        FeedbackRecord f;
        f.agent = values[k].first;
        f.client = address(static_cast<uint8_t>(0x10 + k));
        f.feedback_index = 1;
        f.value = values[k].second;
        f.tag1 = k % 2 == 0 ? "starred" : "uptime";
        f.created_at = 300 + k;
        f.revoked = k == 1;
        s.feedback_by_agent[f.agent].push_back(k);
        s.feedback.push_back(f);
    }
    s.responses_by_feedback.resize(s.feedback.size());
    ResponseRecord r;
    r.feedback = 0;
    r.responder = address(1);
    r.created_at = 400;
    s.responses_by_feedback[0].push_back(0);
    s.responses.push_back(r);
    return std::make_shared<const ServedSnapshot>(std::move(s));
}

OJson run(const std::shared_ptr<const ServedSnapshot>& snapshot, const std::string& query) {
    SnapshotSource source(snapshot);
    graphql::Request request;
    request.query = query;
    return graphql::execute(agent0_schema(), source, request);
}

std::vector<std::string> ids(const OJson& list) {
    std::vector<std::string> out;
    for (const auto& x : list) out.push_back(x["id"].get<std::string>());
    return out;
}

TEST(subgraph_snapshot_source, numbers_compare_exactly_and_null_sorts_first) {
    EXPECT_LT(compare_cells(std::string("9"), std::string("10"), ScalarKind::big_decimal), 0);
    EXPECT_LT(compare_cells(std::string("-2.5"), std::string("-2"), ScalarKind::big_decimal), 0);
    EXPECT_EQ(compare_cells(std::string("1.50"), std::string("1.5"), ScalarKind::big_decimal), 0);
    EXPECT_GT(compare_cells(int64_t{10}, std::string("9"), ScalarKind::big_int), 0);
    EXPECT_LT(compare_cells(graphql::Cell(), std::string("0"), ScalarKind::big_int), 0);
    EXPECT_GT(compare_cells(std::string("b"), std::string("a"), ScalarKind::string), 0);
}

TEST(subgraph_snapshot_source, order_ties_break_by_id_in_the_same_direction) {
    const auto s = world();
    const OJson asc = run(s, "{ agents(orderBy: updatedAt) { id } }");
    EXPECT_EQ(ids(asc["data"]["agents"]),
              (std::vector<std::string>{"31337:0", "31337:1", "31337:10", "31337:2"}));
    const OJson desc = run(s, "{ agents(orderBy: updatedAt, orderDirection: desc) { id } }");
    EXPECT_EQ(ids(desc["data"]["agents"]),
              (std::vector<std::string>{"31337:2", "31337:10", "31337:1", "31337:0"}));
    const OJson by_value = run(s, "{ feedbacks(orderBy: value) { value } }");
    std::vector<std::string> values;
    for (const auto& f : by_value["data"]["feedbacks"]) values.push_back(f["value"]);
    EXPECT_EQ(values, (std::vector<std::string>{"-2.5", "9", "10", "85", "100"}));
    const OJson paged = run(s, "{ feedbacks(orderBy: value, first: 2, skip: 1) { value } }");
    EXPECT_EQ(paged["data"]["feedbacks"].size(), 2U);
    EXPECT_EQ(paged["data"]["feedbacks"][0]["value"], "9");
}

TEST(subgraph_snapshot_source, the_sdks_filters_hold) {
    const auto s = world();
    const auto agents = [&](const std::string& where) {
        const OJson r = run(s, "{ agents(where: " + where + ") { id } }");
        EXPECT_FALSE(r.contains("errors")) << r.dump();
        return ids(r["data"]["agents"]);
    };
    using V = std::vector<std::string>;
    EXPECT_EQ(agents("{registrationFile_not: null}"), (V{"31337:0", "31337:1", "31337:2"}));
    EXPECT_EQ(agents("{registrationFile: null}"), V{"31337:10"});
    EXPECT_EQ(agents("{registrationFile_: {name_contains_nocase: \"WEATHER\"}}"),
              (V{"31337:0", "31337:2"}));
    EXPECT_EQ(agents("{registrationFile_: {mcpEndpoint_not: null}}"), V{"31337:0"});
    EXPECT_EQ(agents("{registrationFile_: {active: false}}"), V{"31337:1"});
    EXPECT_EQ(agents("{registrationFile_: {supportedTrusts_contains: [\"tee-attestation\"]}}"),
              V{"31337:0"});
    EXPECT_EQ(agents("{owner_in: [\"0x0000000000000000000000000000000000000002\"]}"),
              (V{"31337:1", "31337:10"}));
    EXPECT_EQ(agents("{id_in: [\"31337:2\", \"31337:404\", \"nope\"]}"), V{"31337:2"});
    EXPECT_EQ(agents("{createdAt_gte: \"102\"}"), (V{"31337:10", "31337:2"}));
    EXPECT_EQ(agents("{or: [{agentId: \"1\"}, {agentId: \"10\"}]}"), (V{"31337:1", "31337:10"}));
    // A filter over an @derivedFrom list: agents with a feedback tagged "uptime".
    EXPECT_EQ(agents("{feedback_: {tag1: \"uptime\"}}"), (V{"31337:0", "31337:1"}));
}

TEST(subgraph_snapshot_source, feedback_by_agent_and_nested_lists) {
    const auto s = world();
    const OJson r = run(s,
                        "{ feedbacks(where: {agent_in: [\"31337:0\"], isRevoked: false}, "
                        "orderBy: createdAt, orderDirection: desc) { id value agent { id } "
                        "responses { responder } } }");
    ASSERT_FALSE(r.contains("errors")) << r.dump();
    const OJson& list = r["data"]["feedbacks"];
    ASSERT_EQ(list.size(), 2U);  // the revoked one is left out
    EXPECT_EQ(list[0]["value"], "-2.5");
    EXPECT_EQ(list[1]["id"], "31337:0:0x0000000000000000000000000000000000000010:1");
    EXPECT_EQ(list[1]["agent"]["id"], "31337:0");
    ASSERT_EQ(list[1]["responses"].size(), 1U);
    EXPECT_EQ(list[1]["responses"][0]["responder"], "0x0000000000000000000000000000000000000001");
    EXPECT_TRUE(list[0]["responses"].empty());
    // By id, the way the SDK reads one agent.
    const OJson one = run(s, "{ agent(id: \"31337:1\") { agentId feedback { value } } }");
    EXPECT_EQ(one["data"]["agent"]["feedback"][0]["value"], "85");
    EXPECT_TRUE(run(s, "{ agent(id: \"1\") { id } }")["data"]["agent"].is_null());
    EXPECT_EQ(run(s, "{ _meta { block { number } } }")["data"]["_meta"]["block"]["number"], 99);
}

}  // namespace
}  // namespace credence::subgraph
