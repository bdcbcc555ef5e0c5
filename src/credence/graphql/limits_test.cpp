// The execution limits (limits.hpp): every one refuses the request with an error, quickly, and
// before the data source is asked anything (except the response-size limit, which is counted as
// values are written).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <optional>
#include <string>

#include <credence/graphql/execute.hpp>
#include <credence/graphql/memory_source_test_support.hpp>

using namespace credence::graphql;
using credence::graphql::test_support::MemorySource;
using nlohmann::json;

namespace {

class graphql_limits : public ::testing::Test {
protected:
    void SetUp() override {
        auto s = make_schema(test_support::agent0_schema_def());
        ASSERT_TRUE(s.has_value()) << s.error().message;
        schema_.emplace(std::move(*s));
        test_support::Record agent;
        agent["id"] = std::string("1");
        agent["owner"] = ByteString{{0xaa}};
        source_.tables["Agent"].push_back(agent);
    }

    // The error message; the request must fail fast and without touching the data source.
    // `max_seconds` is generous for sanitizer builds on a shared machine; the point is that no
    // request here takes the time its size would suggest.
    std::string refused(const std::string& query, json variables = nullptr,
                        const Limits& limits = {}, double max_seconds = 2.0) {
        source_.calls.clear();
        const auto t0 = std::chrono::steady_clock::now();
        const auto out = json::parse(
            execute(*schema_, source_, Request{query, std::move(variables), {}}, limits).dump());
        const double s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        EXPECT_LT(s, max_seconds) << query.substr(0, 80);
        EXPECT_TRUE(source_.calls.empty()) << query.substr(0, 80);
        EXPECT_TRUE(out.contains("errors")) << out.dump().substr(0, 200);
        if (!out.contains("errors")) return {};
        return out["errors"][0]["message"];
    }

    bool accepted(const std::string& query, json variables = nullptr) {
        const auto out = json::parse(
            execute(*schema_, source_, Request{query, std::move(variables), {}}).dump());
        return !out.contains("errors");
    }

    std::optional<Schema> schema_;
    MemorySource source_;
};

}  // namespace

// The Graph's page bounds: `first` at most 1000, `skip` at most 5000.
TEST_F(graphql_limits, first_and_skip) {
    EXPECT_NE(refused("{ agents(first: 1001) { id } }").find("between 0 and 1000"),
              std::string::npos);
    EXPECT_NE(refused("{ agents(first: 2000000000) { id } }").find("first"), std::string::npos);
    EXPECT_NE(refused("query($n: Int!) { agents(first: $n) { id } }", {{"n", 5000}}).find("first"),
              std::string::npos);
    EXPECT_NE(refused("{ agents(first: -1) { id } }").find("first"), std::string::npos);
    EXPECT_NE(refused("{ agents(skip: 5001) { id } }").find("skip"), std::string::npos);
    EXPECT_NE(refused("{ agents { feedback(first: 1001) { id } } }").find("first"),
              std::string::npos);
    EXPECT_TRUE(accepted("{ agents(first: 1000, skip: 5000) { id } }"));
}

// The cost estimate: rows = product of `first` along nested lists, summed over fields.
TEST_F(graphql_limits, nested_list_cost) {
    EXPECT_NE(refused("{ agents(first: 1000) { feedback(first: 1000) { id } } }")
                  .find("more than 1000000 rows"),
              std::string::npos);
    EXPECT_NE(refused("{ agents(first: 1000) { feedback(first: 100) { responses(first: 100) { id "
                      "} } } }")
                  .find("rows"),
              std::string::npos);
    // 1000 + 1000 * 999 = 1,000,000 is at the limit, not over it.
    EXPECT_TRUE(accepted("{ agents(first: 1000) { feedback(first: 999) { id } } }"));
    // Aliases add up.
    std::string many = "{";
    for (int i = 0; i < 11; ++i)
        many += fmt::format(" a{}: agents(first: 1000) {{ feedback(first: 100) {{ id }} }}", i);
    many += " }";
    EXPECT_NE(refused(many).find("rows"), std::string::npos);
}

TEST_F(graphql_limits, depth_after_fragment_expansion) {
    std::string query = "{ agents(first: 1) { ...L0 } }";
    // Each fragment goes two fields down: feedback -> agent.
    for (int i = 0; i < 20; ++i)
        query += fmt::format(
            " fragment L{} on Agent {{ feedback(first: 1) {{ agent {{ ...L{} }} }} }}", i, i + 1);
    query += " fragment L20 on Agent { id }";
    EXPECT_NE(refused(query).find("deeper than 32"), std::string::npos);
}

// Fragments that double at each level ("billion laughs"): stopped by the selected-field count.
TEST_F(graphql_limits, fragment_explosion) {
    std::string query = "{ agents(first: 1) { ...L0 } }";
    for (int i = 0; i < 14; ++i)
        query += fmt::format(
            " fragment L{0} on Agent {{ a: feedback(first: 1) {{ agent {{ ...L{1} }} }} "
            "b: feedback(first: 1) {{ agent {{ ...L{1} }} }} }}",
            i, i + 1);
    query += " fragment L14 on Agent { id }";
    EXPECT_NE(refused(query).find("more than 5000 fields"), std::string::npos);
}

TEST_F(graphql_limits, one_million_aliases) {
    std::string query = "{ agents(first: 1) {";
    for (int i = 0; i < 1'000'000; ++i) query += fmt::format(" a{}: id", i);
    query += " } }";
    Limits loose;
    loose.parse.max_document_bytes = query.size();
    loose.parse.max_tokens = 10'000'000;
    loose.parse.max_fields = 2'000'000;
    // The parser's own limits are lifted on purpose here, so it builds all 1M fields (about half
    // a second, more under ASan); planning then stops at the 5,001st.
    EXPECT_NE(refused(query, nullptr, loose, 20.0).find("more than 5000 fields"),
              std::string::npos);
    // With the default parse limits the document itself is refused.
    EXPECT_NE(refused(query).find("larger than"), std::string::npos);
}

TEST_F(graphql_limits, where_filters) {
    std::string big = "{ agents(where: {or: [";
    for (int i = 0; i < 2000; ++i) big += "{owner: \"0x01\"} ";
    big += "]}) { id } }";
    EXPECT_NE(refused(big).find("more than 1000 conditions"), std::string::npos);
    // Deep variable values stop at ExecLimits::max_input_depth.
    json where = {{"owner", "0x01"}};
    for (int i = 0; i < 40; ++i) where = {{"and", json::array({where})}};
    EXPECT_NE(refused("query($w: Agent_filter) { agents(where: $w) { id } }", {{"w", where}})
                  .find("deeper than"),
              std::string::npos);
}

TEST_F(graphql_limits, response_size) {
    for (int i = 2; i < 50; ++i) {
        auto a = source_.tables["Agent"][0];
        a["id"] = std::to_string(i);
        source_.tables["Agent"].push_back(a);
    }
    Limits small;
    small.exec.max_output_values = 60;
    const auto out = json::parse(
        execute(*schema_, source_, Request{"{ agents { id owner } }", nullptr, {}}, small).dump());
    ASSERT_TRUE(out.contains("errors"));
    EXPECT_TRUE(out["data"].is_null());  // no partial data
    EXPECT_NE(out["errors"][0]["message"].get<std::string>().find("more than 60 values"),
              std::string::npos);
}

// The parse limits hold through execute() too.
TEST_F(graphql_limits, hostile_documents) {
    std::string deep;
    for (int i = 0; i < 100'000; ++i) deep += "{a";
    deep += std::string(100'000, '}');
    EXPECT_NE(refused(deep).find("deeper than 64"), std::string::npos);
    std::string cyc = "{ agents { ...A } }";
    for (int i = 0; i < 10'000; ++i)
        cyc += fmt::format(" fragment A{} on Agent {{ ...A{} }}", i, i + 1);
    cyc += " fragment A10000 on Agent { ...A0 } fragment A on Agent { ...A0 }";
    EXPECT_NE(refused(cyc).find("within itself"), std::string::npos);
}
