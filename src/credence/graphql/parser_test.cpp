// GraphQL §2 Language: the parser's grammar, values, locations and limits.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include <credence/graphql/parser.hpp>

using namespace credence::graphql;
using Kind = ast::Value::Kind;

namespace {

GraphqlError parse_error(std::string_view text, const ParseLimits& limits = {}) {
    auto doc = parse_document(text, limits);
    EXPECT_FALSE(doc.has_value()) << text;
    return doc ? GraphqlError{} : doc.error();
}

ast::Value arg_value(std::string_view text) {
    auto doc = parse_document(text);
    EXPECT_TRUE(doc.has_value()) << (doc ? "" : doc.error().message);
    if (!doc) return {};
    return doc->operations.at(0).selection_set.selections.at(0).arguments.at(0).value;
}

}  // namespace

TEST(graphql_parser, kitchen_sink_operation) {
    const auto doc = parse_document(R"(
# a comment, then commas that are ignored
query Agents($first: Int! = 10, $where: Agent_filter, $ids: [ID!]) @dir {
  top: agents(first: $first, where: $where) @include(if: true) {
    id,, owner
    ... on Agent { createdAt }
    ...Rest @skip(if: false)
  }
}
fragment Rest on Agent { updatedAt }
)");
    ASSERT_TRUE(doc.has_value()) << doc.error().message;
    ASSERT_EQ(doc->operations.size(), 1u);
    const auto& op = doc->operations[0];
    EXPECT_EQ(op.name, "Agents");
    ASSERT_EQ(op.variables.size(), 3u);
    EXPECT_EQ(op.variables[0].type.name, "Int");
    EXPECT_TRUE(op.variables[0].type.non_null);
    ASSERT_TRUE(op.variables[0].default_value.has_value());
    EXPECT_EQ(op.variables[0].default_value->text, "10");
    EXPECT_TRUE(op.variables[2].type.is_list());
    EXPECT_EQ(op.variables[2].type.of[0].name, "ID");
    EXPECT_EQ(op.directives.at(0).name, "dir");
    const auto& top = op.selection_set.selections.at(0);
    EXPECT_EQ(top.alias, "top");
    EXPECT_EQ(top.name, "agents");
    EXPECT_EQ(top.response_key(), "top");
    EXPECT_EQ(top.loc, (Location{4, 3}));
    EXPECT_EQ(top.arguments.at(0).value.kind, Kind::variable);
    EXPECT_EQ(top.directives.at(0).name, "include");
    const auto& sels = top.selection_set->selections;
    ASSERT_EQ(sels.size(), 4u);
    EXPECT_EQ(sels[2].kind, ast::Selection::Kind::inline_fragment);
    EXPECT_EQ(sels[2].type_condition, "Agent");
    EXPECT_EQ(sels[3].kind, ast::Selection::Kind::fragment_spread);
    EXPECT_EQ(sels[3].name, "Rest");
    ASSERT_EQ(doc->fragments.size(), 1u);
    EXPECT_EQ(doc->fragments[0].type_condition, "Agent");
}

TEST(graphql_parser, shorthand_mutation_subscription_and_inline_without_condition) {
    const auto doc = parse_document(
        "{ a } mutation M { b } subscription S { c } "
        "query { ... @include(if: true) { d } }");
    ASSERT_TRUE(doc.has_value()) << doc.error().message;
    ASSERT_EQ(doc->operations.size(), 4u);
    EXPECT_EQ(doc->operations[1].kind, ast::OperationDefinition::Kind::mutation);
    EXPECT_EQ(doc->operations[2].kind, ast::OperationDefinition::Kind::subscription);
    EXPECT_TRUE(doc->operations[3].selection_set.selections[0].type_condition.empty());
}

// GraphQL §2.9 Input Values: every literal kind.
TEST(graphql_parser, literal_kinds) {
    EXPECT_EQ(arg_value("{ f(a: -12) }").kind, Kind::int_value);
    EXPECT_EQ(arg_value("{ f(a: -12) }").text, "-12");
    EXPECT_EQ(arg_value("{ f(a: 1.5e-3) }").kind, Kind::float_value);
    EXPECT_EQ(arg_value("{ f(a: 0.0) }").text, "0.0");
    EXPECT_EQ(arg_value("{ f(a: 2E10) }").kind, Kind::float_value);
    EXPECT_EQ(arg_value("{ f(a: true) }").kind, Kind::boolean);
    EXPECT_TRUE(arg_value("{ f(a: true) }").boolean);
    EXPECT_EQ(arg_value("{ f(a: null) }").kind, Kind::null);
    EXPECT_EQ(arg_value("{ f(a: desc) }").kind, Kind::enum_value);
    EXPECT_EQ(arg_value("{ f(a: desc) }").text, "desc");
    const auto list = arg_value("{ f(a: [1, \"x\", [true]]) }");
    ASSERT_EQ(list.kind, Kind::list);
    ASSERT_EQ(list.list.size(), 3u);
    EXPECT_EQ(list.list[2].list.at(0).kind, Kind::boolean);
    const auto obj = arg_value("{ f(a: {owner_in: [\"0x1\"], or: [{x: 1}], n: $v}) }");
    ASSERT_EQ(obj.kind, Kind::object);
    ASSERT_EQ(obj.fields.size(), 3u);
    EXPECT_EQ(obj.fields[1].name, "or");
    EXPECT_EQ(obj.fields[2].value.kind, Kind::variable);
    EXPECT_EQ(obj.fields[2].value.text, "v");
    EXPECT_EQ(arg_value("{ f(a: []) }").list.size(), 0u);
    EXPECT_EQ(arg_value("{ f(a: {}) }").fields.size(), 0u);
}

// GraphQL §2.9.4 String Value: escapes, including braced and surrogate-pair Unicode escapes.
TEST(graphql_parser, string_escapes) {
    EXPECT_EQ(arg_value(R"({ f(a: "q\"b\\s\/\b\f\n\r\t") })").text, "q\"b\\s/\b\f\n\r\t");
    EXPECT_EQ(arg_value(R"({ f(a: "\u00e9") })").text, "\xC3\xA9");
    EXPECT_EQ(arg_value(R"({ f(a: "\u{1F600}") })").text, "\xF0\x9F\x98\x80");
    EXPECT_EQ(arg_value(R"({ f(a: "\uD83D\uDE00") })").text, "\xF0\x9F\x98\x80");
    EXPECT_EQ(arg_value("{ f(a: \"\xC3\xA9t\xC3\xA9\") }").text, "\xC3\xA9t\xC3\xA9");
    EXPECT_EQ(parse_error(R"({ f(a: "\uD83D") })").locations.at(0), (Location{1, 9}));
    EXPECT_EQ(parse_error(R"({ f(a: "\uDE00") })").kind, ErrorKind::syntax);
    EXPECT_EQ(parse_error(R"({ f(a: "\x") })").locations.at(0), (Location{1, 9}));
    EXPECT_EQ(parse_error(R"({ f(a: "\u{110000}") })").kind, ErrorKind::syntax);
    EXPECT_EQ(parse_error(R"({ f(a: "\u12") })").kind, ErrorKind::syntax);
}

// GraphQL §2.9.4 BlockStringValue(): common indentation and blank edge lines removed.
TEST(graphql_parser, block_strings) {
    EXPECT_EQ(arg_value("{ f(a: \"\"\"\n    Hello,\n      World!\n\n    Yours\n  \"\"\") }").text,
              "Hello,\n  World!\n\nYours");
    EXPECT_EQ(arg_value("{ f(a: \"\"\"x \\\"\"\" y\"\"\") }").text, "x \"\"\" y");
    EXPECT_EQ(arg_value("{ f(a: \"\"\"raw \\n stays\"\"\") }").text, "raw \\n stays");
    EXPECT_EQ(arg_value("{ f(a: \"\"\"\"\"\") }").text, "");
    // Lines after a block string are counted.
    const auto err = parse_error("{ f(a: \"\"\"\n\n\"\"\") ! }");
    EXPECT_EQ(err.locations.at(0), (Location{3, 6}));
}

TEST(graphql_parser, ignored_tokens_and_locations) {
    const auto doc = parse_document("\xEF\xBB\xBF# c\r\n{\r\n  a\n\tb }");
    ASSERT_TRUE(doc.has_value()) << doc.error().message;
    const auto& sels = doc->operations[0].selection_set.selections;
    EXPECT_EQ(sels[0].loc, (Location{3, 3}));
    EXPECT_EQ(sels[1].loc, (Location{4, 2}));
    // Columns count code points, not bytes.
    EXPECT_EQ(parse_error("{ f(a: \"\xC3\xA9\xC3\xA9\") ? }").locations.at(0), (Location{1, 14}));
}

TEST(graphql_parser, syntax_errors_carry_locations) {
    struct Case {
        const char* text;
        Location at;
    };
    const Case cases[] = {
        {"", {1, 1}},                              // no definitions
        {"{ }", {1, 3}},                           // empty selection set
        {"{ a", {1, 4}},                           // unexpected EOF
        {"{ a(x: \"open) }", {1, 8}},              // unterminated string
        {"{ a(x: \"\"\"open) }", {1, 8}},          // unterminated block string
        {"{ a(x: 01) }", {1, 8}},                  // leading zero
        {"{ a(x: 1.) }", {1, 8}},                  // fraction without digits
        {"{ a(x: 1e) }", {1, 8}},                  // exponent without digits
        {"{ a(x: 12abc) }", {1, 8}},               // number followed by a name
        {"{ a(x: 1.5.2) }", {1, 8}},               // number followed by "."
        {"{ a() }", {1, 5}},                       // empty arguments
        {"{ a(x 1) }", {1, 7}},                    // missing colon
        {"{ a(x: $) }", {1, 9}},                   // variable without a name
        {"query Q() { a }", {1, 9}},               // empty variable list
        {"query Q($v: Int = $w) { a }", {1, 19}},  // variable in a default (a constant)
        {"query Q($v: [Int) { a }", {1, 17}},      // unclosed list type
        {"fragment on on A { a }", {1, 10}},       // `on` is not a fragment name
        {"fragment F A { a }", {1, 12}},           // missing `on`
        {"type Agent { id: ID! }", {1, 1}},        // type-system definitions are not executable
        {"{ a } }", {1, 7}},                       // trailing token
        {"{ a.b }", {1, 4}},                       // lone dot
        {"{ a ? }", {1, 5}},                       // invalid character
        {"{ a(x: {b: 1) }", {1, 13}},              // unclosed object
        {"{ ...on }", {1, 9}},                     // inline fragment missing its type
        {"{ a \x01 }", {1, 5}},                    // control character
    };
    for (const auto& c : cases) {
        const auto err = parse_error(c.text);
        ASSERT_EQ(err.locations.size(), 1u) << c.text;
        EXPECT_EQ(err.locations[0], c.at) << c.text << ": " << err.message;
        EXPECT_EQ(err.kind, ErrorKind::syntax) << c.text;
        EXPECT_FALSE(err.message.empty());
    }
}

TEST(graphql_parser, invalid_utf8_is_refused) {
    EXPECT_EQ(parse_error("{ a(x: \"\xC0\xAF\") }").kind, ErrorKind::syntax);      // overlong
    EXPECT_EQ(parse_error("{ a(x: \"\xED\xA0\x80\") }").kind, ErrorKind::syntax);  // surrogate
    EXPECT_EQ(parse_error("{ a(x: \"\xE2\x82\") }").kind, ErrorKind::syntax);      // truncated
}

TEST(graphql_parser, types_and_constants_alone) {
    const auto t = parse_type("[[Bytes!]]!");
    ASSERT_TRUE(t.has_value());
    EXPECT_TRUE(t->non_null);
    EXPECT_FALSE(t->of[0].non_null);
    EXPECT_EQ(t->of[0].of[0].name, "Bytes");
    EXPECT_TRUE(t->of[0].of[0].non_null);
    EXPECT_FALSE(parse_type("Int!!").has_value());
    EXPECT_FALSE(parse_type("").has_value());
    EXPECT_TRUE(parse_const_value("{a: [1, 2.5, \"s\", E]}").has_value());
    EXPECT_FALSE(parse_const_value("$v").has_value());
}

// The limits are checked while parsing: hostile input is refused after bounded work.
namespace {

template <typename F>
double seconds(F&& f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST(graphql_parser_limits, deep_selection_nesting_100k) {
    std::string text;
    for (int i = 0; i < 100'000; ++i) text += "{a";
    for (int i = 0; i < 100'000; ++i) text += "}";
    GraphqlError err;
    EXPECT_LT(seconds([&] { err = parse_error(text); }), 1.0);
    EXPECT_EQ(err.kind, ErrorKind::limit);
    EXPECT_EQ(err.locations.at(0), (Location{1, 129}));  // the 65th "{"
}

TEST(graphql_parser_limits, deep_value_and_type_nesting_100k) {
    std::string list = "{ f(a: " + std::string(100'000, '[') + std::string(100'000, ']') + ") }";
    EXPECT_EQ(parse_error(list).kind, ErrorKind::limit);
    std::string object = "{ f(a: ";
    for (int i = 0; i < 100'000; ++i) object += "{a:";
    object += "1" + std::string(100'000, '}') + ") }";
    EXPECT_EQ(parse_error(object).kind, ErrorKind::limit);
    std::string type =
        "query($v: " + std::string(100'000, '[') + "Int" + std::string(100'000, ']') + ") { a }";
    EXPECT_EQ(parse_error(type).kind, ErrorKind::limit);
    // At the limit, nesting is fine.
    std::string ok;
    for (int i = 0; i < 64; ++i) ok += "{a";
    for (int i = 0; i < 64; ++i) ok += "}";
    EXPECT_TRUE(parse_document(ok).has_value());
}

TEST(graphql_parser_limits, one_million_aliases) {
    std::string text = "{";
    for (int i = 0; i < 1'000'000; ++i) text += " a" + std::to_string(i) + ": id";
    text += " }";
    // Refused by size first with the default limits ...
    EXPECT_EQ(parse_error(text).kind, ErrorKind::limit);
    // ... and by the field count when the size and token limits are lifted.
    ParseLimits loose;
    loose.max_document_bytes = text.size();
    loose.max_tokens = 10'000'000;
    GraphqlError err;
    EXPECT_LT(seconds([&] { err = parse_error(text, loose); }), 1.0);
    EXPECT_EQ(err.kind, ErrorKind::limit);
    EXPECT_NE(err.message.find("fields"), std::string::npos) << err.message;
}

TEST(graphql_parser_limits, token_count_and_document_size) {
    ParseLimits small;
    small.max_tokens = 5;
    EXPECT_TRUE(parse_document("{ a b c }", small).has_value());
    EXPECT_EQ(parse_error("{ a b c d }", small).kind, ErrorKind::limit);
    small.max_document_bytes = 4;
    EXPECT_EQ(parse_error("{ ab }", small).kind, ErrorKind::limit);
}
