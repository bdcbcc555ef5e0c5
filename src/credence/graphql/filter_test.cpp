// The Graph's `where` conventions: what each key becomes in the normalized Filter tree, and the
// answers of the in-memory source that evaluates it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <optional>
#include <set>
#include <string>

#include <credence/graphql/execute.hpp>
#include <credence/graphql/memory_source_test_support.hpp>

using namespace credence::graphql;
using credence::graphql::test_support::MemorySource;
using credence::graphql::test_support::Record;
using nlohmann::json;

namespace {

class graphql_filter : public ::testing::Test {
protected:
    void SetUp() override {
        auto s = make_schema(test_support::agent0_schema_def());
        ASSERT_TRUE(s.has_value()) << s.error().message;
        schema_.emplace(std::move(*s));
        const char* names[] = {"Alpha Oracle", "beta bot", "Gamma"};
        for (int i = 0; i < 3; ++i) {
            Record a;
            a["id"] = std::to_string(i);
            a["createdAt"] = std::to_string(100 * (i + 1));
            a["owner"] = ByteString{{static_cast<std::uint8_t>(0xa0 + i)}};
            a["registrationFile"] = "rf" + std::to_string(i);
            source_.tables["Agent"].push_back(a);
            Record rf;
            rf["id"] = "rf" + std::to_string(i);
            rf["name"] = std::string(names[i]);
            rf["oasfSkills"] = i == 0 ? ScalarList{std::string("Search")} : ScalarList{};
            if (i != 2) rf["mcpEndpoint"] = std::string("https://m") + std::to_string(i);
            source_.tables["AgentRegistrationFile"].push_back(rf);
            Record v;
            v["id"] = "v" + std::to_string(i);
            v["agent"] = std::to_string(i);
            v["status"] = std::string(i == 1 ? "COMPLETED" : "PENDING");
            v["response"] = std::int64_t{i * 40};
            source_.tables["Validation"].push_back(v);
        }
    }

    std::set<std::string> ids(const std::string& entity, const std::string& where) {
        const std::string field = entity == "Agent" ? "agents" : "validations";
        const auto out = json::parse(
            execute(*schema_, source_,
                    Request{"{ " + field + "(where: " + where + ") { id } }", nullptr, {}})
                .dump());
        EXPECT_FALSE(out.contains("errors")) << where << " " << out.dump();
        std::set<std::string> got;
        if (out.contains("data"))
            for (const auto& row : out["data"][field]) got.insert(row["id"].get<std::string>());
        return got;
    }

    std::optional<Schema> schema_;
    MemorySource source_;
};

using Ids = std::set<std::string>;

}  // namespace

TEST_F(graphql_filter, comparisons) {
    EXPECT_EQ(ids("Agent", R"({createdAt_gt: "100"})"), (Ids{"1", "2"}));
    EXPECT_EQ(ids("Agent", R"({createdAt_lte: 200})"), (Ids{"0", "1"}));
    EXPECT_EQ(ids("Agent", R"({createdAt_in: ["100", "300"]})"), (Ids{"0", "2"}));
    EXPECT_EQ(ids("Agent", R"({createdAt_not_in: ["100", "300"]})"), (Ids{"1"}));
    EXPECT_EQ(ids("Agent", R"({owner: "0xA1"})"), (Ids{"1"}));  // Bytes: any hex case
    EXPECT_EQ(ids("Agent", R"({owner_not: "0xa1"})"), (Ids{"0", "2"}));
    EXPECT_EQ(ids("Agent", R"({id_in: ["0", "2", "9"]})"), (Ids{"0", "2"}));
    EXPECT_EQ(ids("Validation", "{status: COMPLETED}"), (Ids{"v1"}));
    EXPECT_EQ(ids("Validation", "{status_not_in: [COMPLETED]}"), (Ids{"v0", "v2"}));
    EXPECT_EQ(ids("Validation", "{response_gte: 40}"), (Ids{"v1", "v2"}));
    EXPECT_EQ(ids("Validation", R"({agent: "1"})"), (Ids{"v1"}));  // a reference by id
}

TEST_F(graphql_filter, nested_and_boolean_combinations) {
    EXPECT_EQ(ids("Agent", R"({registrationFile_: {name_contains_nocase: "ORACLE"}})"), (Ids{"0"}));
    EXPECT_EQ(ids("Agent", R"({registrationFile_: {name_starts_with_nocase: "B"}})"), (Ids{"1"}));
    EXPECT_EQ(ids("Agent", R"({registrationFile_: {name_not_contains: "a"}})"), (Ids{}));
    EXPECT_EQ(ids("Agent", R"({registrationFile_: {name_ends_with: "a"}})"), (Ids{"2"}));
    EXPECT_EQ(ids("Agent", R"({registrationFile_: {mcpEndpoint: null}})"), (Ids{"2"}));
    EXPECT_EQ(ids("Agent", R"({registrationFile_: {mcpEndpoint_not: null}})"), (Ids{"0", "1"}));
    EXPECT_EQ(ids("Agent", R"({registrationFile_: {oasfSkills_contains_nocase: ["search"]}})"),
              (Ids{"0"}));
    EXPECT_EQ(ids("Agent", R"({validations_: {status: COMPLETED}})"), (Ids{"1"}));
    EXPECT_EQ(ids("Agent", R"({or: [{createdAt: "100"}, {createdAt: "300"}]})"), (Ids{"0", "2"}));
    EXPECT_EQ(ids("Agent", R"({and: [{createdAt_gt: "100"}, {or: [{owner: "0xa2"}]}]})"),
              (Ids{"2"}));
    EXPECT_EQ(ids("Validation", R"({agent_: {registrationFile_: {name: "Gamma"}}})"), (Ids{"v2"}));
}

TEST_F(graphql_filter, normalized_tree) {
    ids("Agent",
        R"({owner_in: ["0xA0"], registrationFile_: {name_contains_nocase: "x"},
            validations_: {status: PENDING}, or: [{createdAt: "1"}]})");
    const Filter& f = source_.queries.back().filter;
    ASSERT_EQ(f.kind, Filter::Kind::all);
    ASSERT_EQ(f.children.size(), 4u);
    // Keys arrive in name order (the coerced object is a sorted map).
    const Filter& any = f.children[0];
    EXPECT_EQ(any.kind, Filter::Kind::any);
    ASSERT_EQ(any.children.size(), 1u);
    EXPECT_EQ(any.children[0].children[0].field, "createdAt");
    EXPECT_EQ(any.children[0].children[0].scalar, ScalarKind::big_int);
    const Filter& in = f.children[1];
    EXPECT_EQ(in.kind, Filter::Kind::compare);
    EXPECT_EQ(in.op, FilterOp::in);
    EXPECT_EQ(in.scalar, ScalarKind::bytes);
    EXPECT_EQ(std::get<ScalarList>(in.operand).at(0), Scalar(ByteString{{0xa0}}));
    const Filter& file = f.children[2];
    EXPECT_EQ(file.kind, Filter::Kind::nested);
    EXPECT_EQ(file.entity, "AgentRegistrationFile");
    EXPECT_TRUE(file.derived_from.empty());
    EXPECT_EQ(file.children.at(0).op, FilterOp::contains_nocase);
    const Filter& validations = f.children[3];
    EXPECT_EQ(validations.kind, Filter::Kind::nested);
    EXPECT_EQ(validations.entity, "Validation");
    EXPECT_EQ(validations.derived_from, "agent");
}
