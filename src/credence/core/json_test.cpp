#include <credence/core/json.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <string>

using namespace credence::core;

namespace {

JsonError parse_error(std::string_view text, const ParseLimits& limits = {}) {
    const auto r = parse_json(text, limits);
    EXPECT_FALSE(r.has_value()) << "accepted: " << text;
    return r ? JsonError::too_large : r.error().code;  // too_large: a sentinel never expected here
}

}  // namespace

TEST(core_json, parses_all_kinds_in_input_order) {
    const auto doc =
        parse_json(R"( {"b": [1, -2.5e3, true, false, null], "a": "x\u00e9", "c": {}} )");
    ASSERT_TRUE(doc.has_value()) << doc.error().detail;
    ASSERT_TRUE(doc->is_object());
    const auto& obj = doc->as_object();
    ASSERT_EQ(obj.size(), 3u);
    EXPECT_EQ(obj[0].key, "b");
    EXPECT_EQ(obj[1].key, "a");
    EXPECT_EQ(obj[2].key, "c");
    const auto& arr = obj[0].value.as_array();
    ASSERT_EQ(arr.size(), 5u);
    EXPECT_EQ(arr[0].as_number().value, 1.0);
    EXPECT_EQ(arr[1].as_number().value, -2500.0);
    EXPECT_EQ(arr[1].as_number().text, "-2.5e3");
    EXPECT_TRUE(arr[2].as_bool());
    EXPECT_FALSE(arr[3].as_bool());
    EXPECT_TRUE(arr[4].is_null());
    EXPECT_EQ(obj[1].value.as_string(), "x\xC3\xA9");
    EXPECT_TRUE(obj[2].value.is_object());
    EXPECT_EQ(doc->find("a"), &obj[1].value);
    EXPECT_EQ(doc->find("zz"), nullptr);
}

TEST(core_json, top_level_scalars) {
    EXPECT_TRUE(parse_json("0")->is_number());
    EXPECT_TRUE(parse_json(" \"s\" ")->is_string());
    EXPECT_TRUE(parse_json("null")->is_null());
}

TEST(core_json, escapes_and_surrogate_pairs) {
    const auto doc = parse_json(R"("\"\\\/\b\f\n\r\t\u0000\ud83d\ude02\uFFFF")");
    ASSERT_TRUE(doc.has_value());
    EXPECT_EQ(doc->as_string(), std::string("\"\\/\b\f\n\r\t\0\xF0\x9F\x98\x82\xEF\xBF\xBF", 16));
}

// RFC 8259 §4 / I-JSON §2.3 / RFC 8785 §3.1: names must be unique, compared after unescaping.
TEST(core_json, rejects_duplicate_keys) {
    EXPECT_EQ(parse_error(R"({"a":1,"a":2})"), JsonError::duplicate_key);
    EXPECT_EQ(parse_error(R"({"a":1,"\u0061":2})"), JsonError::duplicate_key);
    EXPECT_EQ(parse_error(R"({"x":{"k":1,"k":1}})"), JsonError::duplicate_key);
    // The sorted path for larger objects.
    EXPECT_EQ(parse_error(R"({"a":0,"b":0,"c":0,"d":0,"e":0,"f":0,"g":0,"h":0,"i":0,"e":1})"),
              JsonError::duplicate_key);
    EXPECT_TRUE(parse_json(R"({"a":0,"b":0,"c":0,"d":0,"e":0,"f":0,"g":0,"h":0,"i":0,"j":1})"));
    // Same name in different objects is fine.
    EXPECT_TRUE(parse_json(R"({"a":{"a":1},"b":{"a":2}})"));
}

// I-JSON §2.1: no unpaired surrogates.
TEST(core_json, rejects_lone_surrogates) {
    EXPECT_EQ(parse_error(R"("\ud800")"), JsonError::lone_surrogate);
    EXPECT_EQ(parse_error(R"("\udbff x")"), JsonError::lone_surrogate);
    EXPECT_EQ(parse_error(R"("\udc00")"), JsonError::lone_surrogate);
    EXPECT_EQ(parse_error(R"("\ude02\ud83d")"), JsonError::lone_surrogate);
    EXPECT_EQ(parse_error(R"("\ud83d\u0041")"), JsonError::lone_surrogate);
    EXPECT_EQ(parse_error(R"("\ud83d\ud83d")"), JsonError::lone_surrogate);
    EXPECT_EQ(parse_error(R"("\ud83d\n")"), JsonError::lone_surrogate);
}

// RFC 8259 §8.1 requires UTF-8; Unicode Table 3-7 defines the well-formed sequences.
TEST(core_json, rejects_invalid_utf8) {
    EXPECT_EQ(parse_error("\"\xC0\xAF\""), JsonError::invalid_utf8);          // overlong '/'
    EXPECT_EQ(parse_error("\"\xC1\xBF\""), JsonError::invalid_utf8);          // overlong
    EXPECT_EQ(parse_error("\"\xE0\x80\xAF\""), JsonError::invalid_utf8);      // overlong 3-byte
    EXPECT_EQ(parse_error("\"\xF0\x80\x80\xAF\""), JsonError::invalid_utf8);  // overlong 4-byte
    EXPECT_EQ(parse_error("\"\xED\xA0\x80\""), JsonError::invalid_utf8);      // U+D800 in UTF-8
    EXPECT_EQ(parse_error("\"\xED\xBF\xBF\""), JsonError::invalid_utf8);      // U+DFFF in UTF-8
    EXPECT_EQ(parse_error("\"\xF4\x90\x80\x80\""), JsonError::invalid_utf8);  // U+110000
    EXPECT_EQ(parse_error("\"\xF5\x80\x80\x80\""), JsonError::invalid_utf8);
    EXPECT_EQ(parse_error("\"\xFF\""), JsonError::invalid_utf8);
    EXPECT_EQ(parse_error("\"\x80\""), JsonError::invalid_utf8);          // lone continuation
    EXPECT_EQ(parse_error("\"\xC3\""), JsonError::invalid_utf8);          // truncated
    EXPECT_EQ(parse_error("\"\xE2\x82\""), JsonError::invalid_utf8);      // truncated
    EXPECT_EQ(parse_error("\"\xF0\x9F\x98\""), JsonError::invalid_utf8);  // truncated
    EXPECT_EQ(parse_error("\"\xE2\x82"), JsonError::invalid_utf8);        // truncated at end
    EXPECT_EQ(parse_error("{\"\xC3\x28\":1}"), JsonError::invalid_utf8);  // in a key
    // The extremes that are valid.
    EXPECT_TRUE(parse_json("\"\xF4\x8F\xBF\xBF \xEE\x80\x80 \xED\x9F\xBF \xC2\x80\""));
}

// RFC 8785 §3.2.2.3 / I-JSON §2.2: numbers must be IEEE-754 doubles; infinity is not one.
TEST(core_json, rejects_numbers_outside_double_range) {
    EXPECT_EQ(parse_error("1e400"), JsonError::number_out_of_range);
    EXPECT_EQ(parse_error("-1e400"), JsonError::number_out_of_range);
    EXPECT_EQ(parse_error("[1.7976931348623159e308]"), JsonError::number_out_of_range);
    EXPECT_EQ(parse_error("0.0000001e99999999999999999999"), JsonError::number_out_of_range);
    EXPECT_TRUE(parse_json("1.7976931348623157e308"));
    // Underflow rounds to zero, as ECMAScript's JSON.parse does.
    const auto tiny = parse_json("-1e-400");
    ASSERT_TRUE(tiny.has_value());
    EXPECT_EQ(tiny->as_number().value, 0.0);
    EXPECT_TRUE(std::signbit(tiny->as_number().value));
    EXPECT_EQ(parse_json("5e-324")->as_number().value, 4.9406564584124654e-324);
    EXPECT_EQ(parse_json("1000e-99999999999999")->as_number().value, 0.0);
}

// RFC 8259 §6 number grammar.
TEST(core_json, rejects_bad_numbers) {
    EXPECT_EQ(parse_error("01"), JsonError::invalid_number);
    EXPECT_EQ(parse_error("-01"), JsonError::invalid_number);
    EXPECT_EQ(parse_error("00"), JsonError::invalid_number);
    EXPECT_EQ(parse_error("1."), JsonError::invalid_number);
    EXPECT_EQ(parse_error("1.e5"), JsonError::invalid_number);
    EXPECT_EQ(parse_error("1e"), JsonError::invalid_number);
    EXPECT_EQ(parse_error("1e+"), JsonError::invalid_number);
    EXPECT_EQ(parse_error("-"), JsonError::unexpected_end);
    EXPECT_EQ(parse_error("-a"), JsonError::invalid_number);
    EXPECT_EQ(parse_error(".5"), JsonError::unexpected_char);
    EXPECT_EQ(parse_error("+1"), JsonError::unexpected_char);
    EXPECT_EQ(parse_error("0x10"), JsonError::trailing_garbage);
    EXPECT_EQ(parse_error("NaN"), JsonError::unexpected_char);
    EXPECT_EQ(parse_error("Infinity"), JsonError::unexpected_char);
    EXPECT_EQ(parse_error("[1,]"), JsonError::unexpected_char);
    EXPECT_TRUE(parse_json("-0"));
    EXPECT_TRUE(parse_json("0.5E-0"));
}

TEST(core_json, rejects_trailing_garbage) {
    EXPECT_EQ(parse_error("{} {}"), JsonError::trailing_garbage);
    EXPECT_EQ(parse_error("1 2"), JsonError::trailing_garbage);
    EXPECT_EQ(parse_error("nullx"), JsonError::trailing_garbage);
    EXPECT_EQ(parse_error(std::string_view("[]\0", 3)), JsonError::trailing_garbage);
    EXPECT_TRUE(parse_json(" \t\r\n[] \t\r\n"));
}

// RFC 8259 §7: U+0000..U+001F must be escaped inside strings.
TEST(core_json, rejects_control_characters_in_strings) {
    EXPECT_EQ(parse_error("\"a\nb\""), JsonError::control_character);
    EXPECT_EQ(parse_error("\"\t\""), JsonError::control_character);
    EXPECT_EQ(parse_error(std::string_view("\"\0\"", 3)), JsonError::control_character);
    EXPECT_EQ(parse_error("{\"\x1f\":1}"), JsonError::control_character);
    EXPECT_TRUE(parse_json("\"\x7f\""));  // DEL is not a JSON control character
}

TEST(core_json, rejects_bad_escapes) {
    EXPECT_EQ(parse_error(R"("\x41")"), JsonError::invalid_escape);
    EXPECT_EQ(parse_error(R"("\u00g1")"), JsonError::invalid_escape);
    EXPECT_EQ(parse_error(R"("\u12")"), JsonError::invalid_escape);
    EXPECT_EQ(parse_error(R"("\')"), JsonError::invalid_escape);
    EXPECT_EQ(parse_error("\"\\u12"), JsonError::unexpected_end);
    EXPECT_EQ(parse_error("\"\\"), JsonError::unexpected_end);
}

// RFC 8259 §8.1 lets parsers ignore a BOM; a strict parser for hashed documents rejects it.
TEST(core_json, rejects_bom) { EXPECT_EQ(parse_error("\xEF\xBB\xBF{}"), JsonError::bom); }

TEST(core_json, rejects_structural_errors) {
    EXPECT_EQ(parse_error(""), JsonError::unexpected_end);
    EXPECT_EQ(parse_error("   "), JsonError::unexpected_end);
    EXPECT_EQ(parse_error("["), JsonError::unexpected_end);
    EXPECT_EQ(parse_error("[1"), JsonError::unexpected_end);
    EXPECT_EQ(parse_error("{\"a\""), JsonError::unexpected_end);
    EXPECT_EQ(parse_error("{\"a\":"), JsonError::unexpected_end);
    EXPECT_EQ(parse_error("\"abc"), JsonError::unexpected_end);
    EXPECT_EQ(parse_error("{a:1}"), JsonError::unexpected_char);
    EXPECT_EQ(parse_error("{\"a\" 1}"), JsonError::unexpected_char);
    EXPECT_EQ(parse_error("{\"a\":1,}"), JsonError::unexpected_char);
    EXPECT_EQ(parse_error("[1 2]"), JsonError::unexpected_char);
    EXPECT_EQ(parse_error("[1}"), JsonError::unexpected_char);
    EXPECT_EQ(parse_error("{'a':1}"), JsonError::unexpected_char);
    EXPECT_EQ(parse_error("tru"), JsonError::invalid_literal);
    EXPECT_EQ(parse_error("nul"), JsonError::invalid_literal);
    EXPECT_EQ(parse_error("True"), JsonError::unexpected_char);
    EXPECT_EQ(parse_error("\xC3\xA9"), JsonError::unexpected_char);  // non-ASCII outside strings
    EXPECT_EQ(parse_error("\v1"), JsonError::unexpected_char);       // not JSON whitespace
}

// Every syntax error says where, as an editor counts: line and column from 1, columns in code
// points (the "é" below is two bytes and one column).
TEST(core_json, syntax_errors_name_line_and_column) {
    const auto detail = [](std::string_view text) {
        auto r = parse_json(text);
        return r ? std::string("parsed") : r.error().detail;
    };
    EXPECT_EQ(detail("{\n  \"a\": tru\n}"), "expected true, false or null at line 2, column 8");
    EXPECT_EQ(detail("[1,\n\"\xC3\xA9\" 2]"),
              "expected ',' or a closing bracket at line 2, column 5");
    EXPECT_EQ(detail("{} x"), "data after the value at line 1, column 4");
    EXPECT_EQ(detail("\n\n"), "expected a value at line 3, column 1");
}

TEST(core_json, enforces_depth_limit) {
    ParseLimits limits;
    limits.max_depth = 16;
    const std::string ok = std::string(16, '[') + std::string(16, ']');
    const std::string deep = std::string(17, '[') + std::string(17, ']');
    EXPECT_TRUE(parse_json(ok, limits));
    EXPECT_EQ(parse_error(deep, limits), JsonError::too_deep);
    EXPECT_EQ(parse_error(R"({"a":{"b":{"c":1}}})", ParseLimits{.max_bytes = 100, .max_depth = 2}),
              JsonError::too_deep);
    // The default limit holds far below any stack trouble, and the parser does not recurse.
    EXPECT_EQ(parse_error(std::string(1'000'000, '[')), JsonError::too_deep);
    ParseLimits huge;
    huge.max_depth = 200'000;
    EXPECT_EQ(parse_error(std::string(100'000, '['), huge), JsonError::unexpected_end);
}

TEST(core_json, enforces_size_limit) {
    ParseLimits limits;
    limits.max_bytes = 8;
    EXPECT_TRUE(parse_json("[1,2,33]", limits));
    EXPECT_EQ(parse_error("[1,2,333]", limits), JsonError::too_large);
}

TEST(core_json, error_names) {
    EXPECT_EQ(to_string(JsonError::duplicate_key), "duplicate_key");
    EXPECT_EQ(to_string(JsonError::lone_surrogate), "lone_surrogate");
}

TEST(core_json, hand_built_values) {
    EXPECT_TRUE(JsonValue("text").is_string());  // not the bool constructor
    EXPECT_EQ(JsonValue(std::string_view("sv")).as_string(), "sv");
    EXPECT_TRUE(JsonValue(true).is_bool());
    EXPECT_EQ(JsonValue(2.5).as_number().value, 2.5);
    EXPECT_TRUE(JsonValue().is_null());
}
