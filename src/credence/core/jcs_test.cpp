#include <credence/core/jcs.hpp>

#include <gtest/gtest.h>

#include <bit>
#include <charconv>
#include <filesystem>
#include <sstream>
#include <string>

#include "support/vectors.hpp"

using namespace credence::core;

// RFC 8785 reference data (cyberphone/json-canonicalization): every input document must
// canonicalize to the output file byte for byte.
TEST(core_jcs, rfc8785_reference_documents) {
    const auto dir = credence::testing::vectors_dir() / "jcs" / "input";
    size_t count = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        const std::string name = entry.path().filename().string();
        const std::string input = credence::testing::read_vector_file("jcs/input/" + name);
        const std::string expected = credence::testing::read_vector_file("jcs/output/" + name);
        const auto out = canonicalize(input);
        ASSERT_TRUE(out.has_value()) << name << ": " << out.error().detail;
        EXPECT_EQ(*out, expected) << name;
        // Canonical output is a fixed point.
        EXPECT_EQ(canonicalize(*out).value_or("<error>"), expected) << name;
        ++count;
    }
    EXPECT_EQ(count, 6u);
}

// The outhex files spell the same expected bytes in hex; check they agree with our output too.
TEST(core_jcs, rfc8785_reference_documents_hex) {
    const auto dir = credence::testing::vectors_dir() / "jcs" / "outhex";
    size_t count = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        const std::string stem = entry.path().stem().string();
        std::istringstream hex(credence::testing::read_vector_file("jcs/outhex/" + stem + ".txt"));
        std::string expected, byte;
        while (hex >> byte) expected.push_back(static_cast<char>(std::stoi(byte, nullptr, 16)));
        const auto out =
            canonicalize(credence::testing::read_vector_file("jcs/input/" + stem + ".json"));
        ASSERT_TRUE(out.has_value()) << stem;
        EXPECT_EQ(*out, expected) << stem;
        ++count;
    }
    EXPECT_EQ(count, 6u);
}

// RFC 8785 §3.2.2.3 / ECMA-262 Number::toString: all 100,000 lines of the reference generator,
// both through append_es6_number directly and through parse + canonicalize of the printed form.
TEST(core_jcs, es6_numbers_100k) {
    const std::string data = credence::testing::read_vector_file("jcs/es6-numbers-100k.txt");
    size_t lines = 0, pos = 0;
    while (pos < data.size()) {
        size_t eol = data.find('\n', pos);
        if (eol == std::string::npos) eol = data.size();
        std::string_view line(data.data() + pos, eol - pos);
        pos = eol + 1;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.empty()) continue;
        const size_t comma = line.find(',');
        ASSERT_NE(comma, std::string_view::npos) << line;
        uint64_t bits = 0;
        const std::string hex_bits(line.substr(0, comma));
        const auto r =
            std::from_chars(hex_bits.data(), hex_bits.data() + hex_bits.size(), bits, 16);
        ASSERT_EQ(r.ec, std::errc()) << line;
        const std::string_view expected = line.substr(comma + 1);
        const double d = std::bit_cast<double>(bits);
        const auto s = es6_number_to_string(d);
        ASSERT_TRUE(s.has_value()) << line;
        EXPECT_EQ(*s, expected) << line;
        // The expected text must parse back to the same double and re-serialize identically.
        const auto doc = parse_json(expected);
        ASSERT_TRUE(doc.has_value()) << line;
        EXPECT_EQ(doc->as_number().value == 0 ? 0.0 : doc->as_number().value, d == 0 ? 0.0 : d)
            << line;
        EXPECT_EQ(canonicalize(expected).value_or("<error>"), expected) << line;
        ++lines;
    }
    EXPECT_EQ(lines, 100'000u);
}

TEST(core_jcs, number_formatting_rules) {
    EXPECT_EQ(*es6_number_to_string(-0.0), "0");
    EXPECT_EQ(*es6_number_to_string(1e21), "1e+21");
    EXPECT_EQ(*es6_number_to_string(1e20), "100000000000000000000");
    EXPECT_EQ(*es6_number_to_string(1e-6), "0.000001");
    EXPECT_EQ(*es6_number_to_string(1e-7), "1e-7");
    EXPECT_EQ(*es6_number_to_string(-1.5e-7), "-1.5e-7");
    EXPECT_EQ(*es6_number_to_string(123.456), "123.456");
    EXPECT_EQ(es6_number_to_string(std::numeric_limits<double>::infinity()).error().code,
              JcsError::non_finite_number);
    EXPECT_EQ(es6_number_to_string(std::numeric_limits<double>::quiet_NaN()).error().code,
              JcsError::non_finite_number);
    EXPECT_EQ(*canonicalize(std::string_view("[-0, 0.0, -0.0e5, 1E2, 1e-400]")), "[0,0,0,100,0]");
}

// RFC 8785 §3.2.3: names sort by UTF-16 code units, so U+1F600 (D83D DE00) sorts before
// U+E000 and U+FFFF although its UTF-8 bytes (F0 ...) sort after theirs (EE ..., EF ...).
TEST(core_jcs, sorts_keys_by_utf16_code_units) {
    const auto out = canonicalize(std::string_view(
        "{\"\xEF\xBF\xBF\":3,\"\xEE\x80\x80\":2,\"\xF0\x9F\x98\x80\":1,\"\xED\x9F\xBF\":0,\"b\":0,"
        "\"a\":0,\"ab\":0,\"\":0,\"\xC3\xA9\":0}"));
    ASSERT_TRUE(out.has_value());
    EXPECT_EQ(*out,
              "{\"\":0,\"a\":0,\"ab\":0,\"b\":0,\"\xC3\xA9\":0,\"\xED\x9F\xBF\":0,"
              "\"\xF0\x9F\x98\x80\":1,\"\xEE\x80\x80\":2,\"\xEF\xBF\xBF\":3}");
    EXPECT_LT(compare_utf16("\xF0\x9F\x98\x80", "\xEE\x80\x80"), 0);
    EXPECT_GT(compare_utf16("\xF0\x9F\x98\x81", "\xF0\x9F\x98\x80"), 0);
    EXPECT_LT(compare_utf16("\xF0\x90\x80\x80", "\xF4\x8F\xBF\xBF"), 0);
    EXPECT_EQ(compare_utf16("abc", "abc"), 0);
    EXPECT_LT(compare_utf16("ab", "abc"), 0);
    // Broken precondition (truncated UTF-8) must still not read past the end.
    EXPECT_NE(compare_utf16("a\xF0", "a\xC3"), 0);
}

// RFC 8785 §3.2.2.2: only the required escapes, lowercase \u00xx, everything else literal.
TEST(core_jcs, string_escaping) {
    const auto out = canonicalize(std::string_view(
        R"(["\u0000\u0001\u001f\u007f\u0080\u00e9\u2028\ud83d\ude00\/\"\\\b\f\n\r\t<>&'"])"));
    ASSERT_TRUE(out.has_value());
    EXPECT_EQ(*out,
              "[\"\\u0000\\u0001\\u001f\x7f\xC2\x80\xC3\xA9\xE2\x80\xA8\xF0\x9F\x98\x80/"
              "\\\"\\\\\\b\\f\\n\\r\\t<>&'\"]");
}

TEST(core_jcs, keeps_array_order_and_nests) {
    EXPECT_EQ(*canonicalize(std::string_view(R"( { "z" : [ 3 , { "b":1, "a":2 } ], "y":{} } )")),
              R"({"y":{},"z":[3,{"a":2,"b":1}]})");
}

TEST(core_jcs, propagates_parser_rejections) {
    EXPECT_EQ(canonicalize(std::string_view(R"({"a":1,"a":1})")).error().code,
              JcsError::duplicate_key);
    EXPECT_EQ(canonicalize(std::string_view(R"(["\udead"])")).error().code,
              JcsError::lone_surrogate);
    EXPECT_EQ(canonicalize(std::string_view("[1e400]")).error().code,
              JcsError::number_out_of_range);
    EXPECT_EQ(canonicalize(std::string_view("\"\xED\xA0\x80\"")).error().code,
              JcsError::invalid_utf8);
}

TEST(core_jcs, hand_built_dom_is_rechecked) {
    JsonValue::Array arr;
    arr.emplace_back(std::numeric_limits<double>::infinity());
    EXPECT_EQ(canonicalize(JsonValue(arr)).error().code, JcsError::non_finite_number);
    EXPECT_EQ(canonicalize(JsonValue(std::string("\xFF"))).error().code, JcsError::invalid_utf8);
    JsonValue::Object obj;
    obj.push_back({"k", JsonValue(1.0)});
    obj.push_back({"k", JsonValue(2.0)});
    EXPECT_EQ(canonicalize(JsonValue(obj)).error().code, JcsError::duplicate_key);
    JsonValue::Object good;
    good.push_back({"b", JsonValue(true)});
    good.push_back({"a", JsonValue(0.1)});
    EXPECT_EQ(*canonicalize(JsonValue(good)), R"({"a":0.1,"b":true})");
}
