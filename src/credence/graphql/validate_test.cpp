// GraphQL §5 Validation: each rule, with the location the error points at. The typed rules run
// against the agent0 schema while the operation is planned; the untyped ones in
// validate_document().
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include <credence/graphql/execute.hpp>
#include <credence/graphql/memory_source_test_support.hpp>
#include <credence/graphql/parser.hpp>
#include <credence/graphql/validate.hpp>

using namespace credence::graphql;
using credence::graphql::test_support::MemorySource;
using nlohmann::json;

namespace {

class graphql_validate : public ::testing::Test {
protected:
    void SetUp() override {
        auto s = make_schema(test_support::agent0_schema_def());
        ASSERT_TRUE(s.has_value()) << s.error().message;
        schema_.emplace(std::move(*s));
    }

    struct Failure {
        std::string message;
        std::optional<Location> at;
    };

    // The first error of a request expected to fail before execution; no data-source call.
    Failure failure(const std::string& query, json variables = nullptr) {
        const auto out = json::parse(
            execute(*schema_, source_, Request{query, std::move(variables), {}}).dump());
        EXPECT_TRUE(out.contains("errors")) << query;
        EXPECT_FALSE(out.contains("data")) << out.dump();
        EXPECT_TRUE(source_.calls.empty()) << query;
        if (!out.contains("errors")) return {};
        Failure f;
        f.message = out["errors"][0]["message"];
        if (out["errors"][0].contains("locations"))
            f.at = Location{out["errors"][0]["locations"][0]["line"],
                            out["errors"][0]["locations"][0]["column"]};
        return f;
    }

    void expect(const std::string& query, std::string_view words, Location at,
                json variables = nullptr) {
        const auto f = failure(query, std::move(variables));
        EXPECT_NE(f.message.find(words), std::string::npos) << query << " -> " << f.message;
        ASSERT_TRUE(f.at.has_value()) << query << " -> " << f.message;
        EXPECT_EQ(*f.at, at) << query << " -> " << f.message;
    }

    std::optional<Schema> schema_;
    MemorySource source_;
};

}  // namespace

// GraphQL §5.3.1 Field Selections: the message the agent0 SDK matches to fall back
// (`Cannot query field "hasOASF"`).
TEST_F(graphql_validate, unknown_fields) {
    expect("{ agents { id hasOASF } }", "Cannot query field \"hasOASF\" on type \"Agent\".",
           {1, 15});
    expect("{ agentz { id } }", "Cannot query field \"agentz\" on type \"Query\".", {1, 3});
    expect("{ agents { id @skip(if: true) nope } }", "Cannot query field \"nope\"", {1, 31});
    expect("{ agents { ... on Agent { nope @include(if: false) } } }", "\"nope\"", {1, 27});
    expect("{ agent(id: \"1\") { __schema { types { name } } } }",
           "Cannot query field \"__schema\" on type \"Agent\"", {1, 20});
}

// GraphQL §5.3.2 Field Selection Merging.
TEST_F(graphql_validate, conflicting_response_keys) {
    expect("{ agents { a: id a: owner } }", "Fields \"a\" conflict", {1, 18});
    expect("{ agents(first: 1) { id } agents(first: 2) { id } }", "differing arguments", {1, 27});
}

// GraphQL §5.3.3 Leaf Field Selections.
TEST_F(graphql_validate, leaf_selections) {
    expect("{ agents }", "must have a selection of subfields", {1, 3});
    expect("{ agents { id { x } } }", "must not have a selection", {1, 12});
    expect("{ agents { registrationFile } }", "must have a selection", {1, 12});
}

// GraphQL §5.4 Arguments.
TEST_F(graphql_validate, arguments) {
    expect("{ agents(frist: 10) { id } }", "Unknown argument \"frist\" on field \"Query.agents\"",
           {1, 10});
    expect("{ agents(first: 1, first: 2) { id } }", "only one argument named \"first\"", {1, 20});
    expect("{ agent { id } }", "argument \"id\" of type \"ID!\" is required", {1, 3});
    expect("{ agents(first: \"ten\") { id } }", "Int cannot represent", {1, 17});
    expect("{ agents(first: 1.5) { id } }", "Int cannot represent", {1, 17});
    expect("{ agents(first: 3000000000) { id } }", "non 32-bit", {1, 17});
    expect("{ agents(orderBy: nope) { id } }", "Value \"nope\" does not exist in \"Agent_orderBy\"",
           {1, 19});
    expect("{ agents(orderBy: \"createdAt\") { id } }", "non-enum value", {1, 19});
    expect("{ agents(where: {owner_gt_lt: \"0x\"}) { id } }",
           "Field \"owner_gt_lt\" is not defined by type \"Agent_filter\"", {1, 18});
    expect("{ agents(where: {owner: \"0xzz\"}) { id } }", "Bytes cannot represent", {1, 25});
    expect("{ agents(where: {agentId: \"12a\"}) { id } }", "BigInt cannot represent", {1, 27});
    expect("{ agents(where: {owner: \"0x01\", owner: \"0x02\"}) { id } }",
           "only one input field named \"owner\"", {1, 33});
    expect("{ agents(where: 5) { id } }", "Expected value of type \"Agent_filter\"", {1, 17});
    expect("{ agents(block: {number: 5}) { id } }", "time-travel", {1, 3});
}

// GraphQL §5.5 Fragments.
TEST_F(graphql_validate, fragments) {
    expect("{ agents { ...Missing } }", "Unknown fragment \"Missing\".", {1, 12});
    expect("{ agents { ...A } } fragment A on Agent { ...B } fragment B on Agent { ...A }",
           "Cannot spread fragment \"A\" within itself.", {1, 72});
    expect("{ agents { ...A } } fragment A on Agent { id ...A }", "within itself", {1, 46});
    expect("{ agents { ...F } } fragment F on Feedback { id }", "can never be of type \"Feedback\"",
           {1, 12});
    expect("{ agents { ... on Feedback { id } } }", "can never be of type \"Feedback\"", {1, 12});
    expect("{ agents { ... on Nope { id } } }", "Unknown type \"Nope\".", {1, 12});
    expect("{ agents { ...F } } fragment F on BigInt { id }", "non composite type", {1, 12});
    expect("{ agents { id } } fragment Unused on Agent { id }",
           "Fragment \"Unused\" is never used.", {1, 19});
    expect("{ agents { ...F } } fragment F on Agent { id } fragment F on Agent { owner }",
           "only one fragment named \"F\"", {1, 21});
}

// GraphQL §5.7 Directives.
TEST_F(graphql_validate, directives) {
    expect("{ agents { id @deprecated } }", "Unknown directive \"@deprecated\".", {1, 15});
    expect("{ agents { id @skip } }", "argument \"if\" of type \"Boolean!\" is required", {1, 15});
    expect("{ agents { id @skip(if: true) @skip(if: false) } }", "only be used once", {1, 31});
    expect("{ agents { id @skip(if: \"yes\") } }", "Boolean cannot represent", {1, 25});
    expect("query Q @include(if: true) { agents { id } }", "may not be used", {1, 9});
}

// GraphQL §5.8 Variables and §6.1.2 CoerceVariableValues.
TEST_F(graphql_validate, variables) {
    expect("query($a: Int, $a: Int) { agents(first: $a) { id } }", "only one variable named",
           {1, 16});
    expect("query Q { agents(first: $n) { id } }",
           "Variable \"$n\" is not defined by operation \"Q\".", {1, 25});
    expect("query($n: Int) { agents { id } }", "Variable \"$n\" is never used.", {1, 7});
    expect("query($n: Agent) { agents(where: $n) { id } }", "cannot be non-input type", {1, 11});
    expect("query($n: Nope) { agents(where: $n) { id } }", "Unknown type \"Nope\".", {1, 11});
    expect("query($n: String) { agents(first: $n) { id } }",
           "Variable \"$n\" of type \"String\" used in position expecting type \"Int\".", {1, 35});
    expect("query($n: Int) { agent(id: $n) { id } }", "used in position expecting", {1, 28});
    expect("query($first: Int!) { agents(first: $first) { id } }",
           "Variable \"$first\" of required type \"Int!\" was not provided.", {1, 7});
    expect("query($first: Int!) { agents(first: $first) { id } }", "got invalid value \"10\"",
           {1, 7}, {{"first", "10"}});
    expect("query($first: Int!) { agents(first: $first) { id } }", "must not be null", {1, 7},
           {{"first", nullptr}});
    expect("query($w: Agent_filter) { agents(where: $w) { id } }", "\"nope\", which is not defined",
           {1, 7}, {{"w", {{"nope", 1}}}});
    expect("query($w: Agent_filter) { agents(where: $w) { id } }", "Bytes cannot represent", {1, 7},
           {{"w", {{"owner_in", {"0x1"}}}}});
    expect("query($o: OrderDirection) { agents(orderDirection: $o) { id } }",
           "OrderDirection cannot represent", {1, 7}, {{"o", "DESC"}});
    // A nullable variable in a non-null position is allowed only with a default (§5.8.5).
    expect("query($id: ID) { agent(id: $id) { id } }", "used in position expecting type \"ID!\"",
           {1, 28});
    // Variables that coerce: a single value for a list (§3.11), defaults, ID from an integer.
    source_.calls.clear();
    const auto ok = json::parse(
        execute(*schema_, source_,
                Request{"query($ids: [ID!], $first: Int = 2, $one: ID!) { agents(first: $first, "
                        "where: {id_in: $ids}) { id } agent(id: $one) { id } }",
                        {{"ids", "11155111:1"}, {"one", 7}},
                        {}})
            .dump());
    EXPECT_FALSE(ok.contains("errors")) << ok.dump();
    ASSERT_EQ(source_.queries.size(), 1u);
    EXPECT_EQ(source_.queries[0].first, 2);
    EXPECT_EQ(source_.lookups.at(0).ids, (std::vector<std::string>{"7"}));
}

TEST_F(graphql_validate, operations) {
    expect("{ agents { id } } { agents { id } }", "anonymous operation must be the only", {1, 1});
    expect("query A { agents { id } } query A { agents { id } }", "only one operation named",
           {1, 1});
}

// validate_document() reports every violation, not just the first.
TEST(graphql_validate_document, reports_all) {
    const auto doc = parse_document(
        "query($a: Int, $b: Int) { x(v: $c) ...F ...Nope } fragment G on T { y } "
        "fragment F on T { ...F }");
    ASSERT_TRUE(doc.has_value());
    const auto errors = validate_document(*doc);
    std::vector<std::string> messages;
    for (const auto& e : errors) messages.push_back(e.message);
    EXPECT_EQ(errors.size(), 6u) << ::testing::PrintToString(messages);
    for (const auto& e : errors) EXPECT_FALSE(e.locations.empty()) << e.message;
}
