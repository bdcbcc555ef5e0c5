// GraphQL §4 Introspection: the full start-up query of GraphiQL (tests/data/graphql/), __type,
// and __typename, against the agent0 schema.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <string>

#include <credence/graphql/execute.hpp>
#include <credence/graphql/memory_source_test_support.hpp>
#include <support/process.hpp>

using namespace credence::graphql;
using credence::graphql::test_support::MemorySource;
using nlohmann::json;

namespace {

std::string read_data(const std::string& name) {
    std::ifstream in(credence::testing::source_dir() / "tests/data/graphql" / name);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

class graphql_introspection : public ::testing::Test {
protected:
    void SetUp() override {
        auto s = make_schema(test_support::agent0_schema_def());
        ASSERT_TRUE(s.has_value()) << s.error().message;
        schema_.emplace(std::move(*s));
    }

    json run(const std::string& query) {
        return json::parse(execute(*schema_, source_, Request{query, nullptr, {}}).dump());
    }

    std::optional<Schema> schema_;
    MemorySource source_;
};

// The innermost named type of an introspected type reference.
std::string ref_name(const json& ref) {
    const json* r = &ref;
    while (r->at("name").is_null()) r = &r->at("ofType");
    return r->at("name");
}

}  // namespace

// What a client such as graphql-js's buildClientSchema needs from the answer: every referenced
// type defined, each kind with its members, the root type named.
TEST_F(graphql_introspection, graphiql_startup_query) {
    const std::string query = read_data("introspection_query.graphql");
    ASSERT_FALSE(query.empty());
    const auto out = run(query);
    ASSERT_FALSE(out.contains("errors")) << out.dump().substr(0, 500);
    EXPECT_TRUE(source_.calls.empty());  // answered from the schema alone
    const auto& schema = out["data"]["__schema"];
    EXPECT_EQ(schema["queryType"]["name"], "Query");
    EXPECT_TRUE(schema["mutationType"].is_null());
    EXPECT_TRUE(schema["subscriptionType"].is_null());

    std::set<std::string> names;
    for (const auto& t : schema["types"]) EXPECT_TRUE(names.insert(t["name"]).second) << t["name"];
    for (const char* expected : {"Query",
                                 "Agent",
                                 "Agent_filter",
                                 "Agent_orderBy",
                                 "OrderDirection",
                                 "BigInt",
                                 "BigDecimal",
                                 "Bytes",
                                 "ID",
                                 "String",
                                 "Int",
                                 "Boolean",
                                 "_Meta_",
                                 "_Block_",
                                 "Block_height",
                                 "_SubgraphErrorPolicy_",
                                 "ValidationStatus",
                                 "__Schema",
                                 "__Type",
                                 "__TypeKind",
                                 "__Field",
                                 "__InputValue",
                                 "__EnumValue",
                                 "__Directive",
                                 "__DirectiveLocation"})
        EXPECT_TRUE(names.contains(expected)) << expected;

    const auto check_ref = [&](const json& ref) {
        EXPECT_TRUE(names.contains(ref_name(ref))) << ref.dump();
    };
    for (const auto& t : schema["types"]) {
        const std::string kind = t["kind"];
        EXPECT_EQ(t["fields"].is_array(), kind == "OBJECT") << t["name"];
        EXPECT_EQ(t["interfaces"].is_array(), kind == "OBJECT") << t["name"];
        EXPECT_EQ(t["inputFields"].is_array(), kind == "INPUT_OBJECT") << t["name"];
        EXPECT_EQ(t["enumValues"].is_array(), kind == "ENUM") << t["name"];
        EXPECT_TRUE(t["possibleTypes"].is_null());
        if (kind == "OBJECT") {
            EXPECT_FALSE(t["fields"].empty()) << t["name"];
            for (const auto& f : t["fields"]) {
                check_ref(f["type"]);
                EXPECT_EQ(f["isDeprecated"], false);
                for (const auto& a : f["args"]) check_ref(a["type"]);
            }
        }
        if (kind == "INPUT_OBJECT")
            for (const auto& f : t["inputFields"]) check_ref(f["type"]);
    }
    std::set<std::string> directives;
    for (const auto& d : schema["directives"]) {
        directives.insert(d["name"]);
        EXPECT_EQ(d["args"][0]["name"], "if");
        EXPECT_EQ(d["args"][0]["type"]["kind"], "NON_NULL");
        EXPECT_EQ(d["isRepeatable"], false);
    }
    EXPECT_EQ(directives, (std::set<std::string>{"include", "skip"}));

    // The generated filter: `owner_in: [Bytes!]`, `registrationFile_:
    // AgentRegistrationFile_filter`, the root collection's arguments and their defaults.
    for (const auto& t : schema["types"]) {
        if (t["name"] == "Agent_filter") {
            std::map<std::string, json> fields;
            for (const auto& f : t["inputFields"]) fields[f["name"]] = f["type"];
            EXPECT_EQ(fields["owner_in"]["kind"], "LIST");
            EXPECT_EQ(fields["owner_in"]["ofType"]["kind"], "NON_NULL");
            EXPECT_EQ(fields["owner_in"]["ofType"]["ofType"]["name"], "Bytes");
            EXPECT_EQ(fields["registrationFile_"]["name"], "AgentRegistrationFile_filter");
            EXPECT_EQ(fields["feedback_"]["name"], "Feedback_filter");
            EXPECT_EQ(fields["operators_contains"]["kind"], "LIST");
            EXPECT_TRUE(fields.contains("and"));
            EXPECT_TRUE(fields.contains("or"));
        }
        if (t["name"] == "Query") {
            for (const auto& f : t["fields"]) {
                if (f["name"] != "agents") continue;
                std::map<std::string, json> args;
                for (const auto& a : f["args"]) args[a["name"]] = a;
                EXPECT_EQ(args["first"]["defaultValue"], "100");
                EXPECT_EQ(args["skip"]["defaultValue"], "0");
                EXPECT_EQ(args["where"]["type"]["name"], "Agent_filter");
                EXPECT_EQ(f["type"]["kind"], "NON_NULL");
            }
        }
    }
}

TEST_F(graphql_introspection, type_lookup_and_typename) {
    auto out = run(R"({ __type(name: "Agent") { name kind description
        fields { name type { kind name ofType { name kind } } } } })");
    ASSERT_FALSE(out.contains("errors")) << out.dump();
    const auto& agent = out["data"]["__type"];
    EXPECT_EQ(agent["kind"], "OBJECT");
    EXPECT_EQ(agent["description"], "An ERC-8004 agent.");
    EXPECT_EQ(agent["fields"][0]["name"], "id");
    EXPECT_EQ(agent["fields"][0]["type"]["kind"], "NON_NULL");
    EXPECT_EQ(agent["fields"][0]["type"]["ofType"]["name"], "ID");
    EXPECT_TRUE(run("{ __type(name: \"Nope\") { name } }")["data"]["__type"].is_null());
    // A type reached through a field's type expands again (the value is recursive).
    out = run(R"({ __type(name: "Feedback") { fields(includeDeprecated: true) {
        name type { ofType { name fields { name } } } } } })");
    ASSERT_FALSE(out.contains("errors")) << out.dump();
    for (const auto& f : out["data"]["__type"]["fields"]) {
        if (f["name"] == "agent") {
            EXPECT_FALSE(f["type"]["ofType"]["fields"].empty());
        }
    }
    out = run("{ __schema { __typename queryType { __typename name } } }");
    EXPECT_EQ(out["data"]["__schema"]["__typename"], "__Schema");
    EXPECT_EQ(out["data"]["__schema"]["queryType"]["__typename"], "__Type");
    // __type needs its name (GraphQL §4.2).
    out = run("{ __type { name } }");
    ASSERT_TRUE(out.contains("errors"));
    // Introspection fields are typed like any other.
    out = run("{ __schema { types { nope } } }");
    ASSERT_TRUE(out.contains("errors"));
    EXPECT_NE(out["errors"][0]["message"].get<std::string>().find("on type \"__Type\""),
              std::string::npos);
}

// Nested __Type selections multiply (a field's type has fields, whose types have fields ...);
// the response-size limit bounds them like any other answer.
TEST_F(graphql_introspection, recursive_selection_is_bounded) {
    const std::string q = R"({ __schema { types { name inputFields { name type { name ofType {
        name inputFields { name type { name } } } } } } } })";
    auto out = json::parse(execute(*schema_, source_, Request{q, nullptr, {}}).dump());
    ASSERT_FALSE(out.contains("errors")) << out.dump().substr(0, 300);
    Limits small;
    small.exec.max_output_values = 10'000;
    out = json::parse(execute(*schema_, source_, Request{q, nullptr, {}}, small).dump());
    ASSERT_TRUE(out.contains("errors")) << out.dump().substr(0, 300);
    EXPECT_TRUE(out["data"].is_null());
}
