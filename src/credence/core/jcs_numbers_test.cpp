// RFC 8785 §3.2.2.3 through canonicalize(text): numbers whose text is already their ECMAScript
// form are copied, all others are parsed and reformatted. Both routes must agree with
// es6_number_to_string of the parsed double on every shape of literal, which this checks on
// generated literals near every boundary of the copy rule (15 significant digits, trailing
// fraction zeros, 1e-6 and 1e21, negative zero).
#include <credence/core/jcs.hpp>
#include <credence/core/json.hpp>

#include <gtest/gtest.h>

#include <charconv>
#include <cstdint>
#include <string>

using namespace credence::core;

namespace {

class Lcg {
public:
    uint32_t below(uint32_t n) {
        state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<uint32_t>(state_ >> 33) % n;
    }

private:
    uint64_t state_ = 8785;
};

std::string digits(Lcg& rng, int n, bool nonzero_first) {
    std::string s;
    for (int i = 0; i < n; ++i)
        s.push_back(
            static_cast<char>('0' + (i == 0 && nonzero_first ? 1 + rng.below(9) : rng.below(10))));
    return s;
}

// A random RFC 8259 number literal.
std::string literal(Lcg& rng) {
    std::string s = rng.below(3) == 0 ? "-" : "";
    if (rng.below(3) == 0)
        s += "0";
    else
        s += digits(rng, 1 + static_cast<int>(rng.below(22)), true);
    if (rng.below(2) == 0) {
        s += ".";
        s += std::string(rng.below(4) == 0 ? rng.below(9) : 0, '0');  // leading fraction zeros
        s += digits(rng, 1 + static_cast<int>(rng.below(18)), false);
        if (rng.below(5) == 0) s += "0";  // trailing zero
    }
    if (rng.below(6) == 0) {
        s += rng.below(2) == 0 ? "e" : "E";
        if (rng.below(2) == 0) s += rng.below(2) == 0 ? "+" : "-";
        s += std::to_string(rng.below(30));
    }
    return s;
}

std::string expected_form(const std::string& text) {
    const auto doc = parse_json(text);
    EXPECT_TRUE(doc.has_value()) << text;
    return doc ? es6_number_to_string(doc->as_number().value).value_or("<error>") : "<error>";
}

}  // namespace

TEST(core_jcs_numbers, copied_and_reformatted_numbers_match_es6_form) {
    Lcg rng;
    for (int i = 0; i < 200'000; ++i) {
        const std::string text = literal(rng);
        const auto out = canonicalize(std::string_view("[" + text + "]"));
        ASSERT_TRUE(out.has_value()) << text;
        ASSERT_EQ(*out, "[" + expected_form(text) + "]") << text;
    }
}

TEST(core_jcs_numbers, boundaries_of_the_copy_rule) {
    const char* const cases[] = {"0",
                                 "-0",
                                 "0.5",
                                 "-0.5",
                                 "0.000001",
                                 "0.0000001",
                                 "-0.0000012",
                                 "1.0",
                                 "10",
                                 "1.50",
                                 "123456789012345",
                                 "1234567890123456",
                                 "999999999999999.9",
                                 "0.123456789012345",
                                 "0.1234567890123456",
                                 "100000000000000000000",
                                 "1000000000000000000000",
                                 "12345678901234567890123",
                                 "9007199254740993",
                                 "1.7976931348623157e308",
                                 "5e-324",
                                 "0.30000000000000004",
                                 "4.35",
                                 "2.5e-7"};
    for (const char* c : cases) {
        const auto out = canonicalize(std::string_view(c));
        ASSERT_TRUE(out.has_value()) << c;
        EXPECT_EQ(*out, expected_form(c)) << c;
    }
    EXPECT_EQ(*canonicalize(std::string_view("[-0,0.000001,0.0000001,1.50]")),
              "[0,0.000001,1e-7,1.5]");
}

// The tape serializer and the DOM serializer are two routes to one canonical form.
TEST(core_jcs_numbers, text_and_dom_routes_agree) {
    const std::string doc =
        R"({"\u0062":[1,2.50,-0,1e2,"\u00e9\n"],"a":{"y":null,"x":true,"\u00e9":"caf\u00e9"},)"
        R"("\ud83d\ude00":0.1,"\ue000":"\"\\\/"})";
    const auto direct = canonicalize(std::string_view(doc));
    ASSERT_TRUE(direct.has_value());
    const auto parsed = parse_json(doc);
    ASSERT_TRUE(parsed.has_value());
    EXPECT_EQ(canonicalize(*parsed).value_or("<error>"), *direct);
    EXPECT_EQ(canonicalize(std::string_view(R"({"a":1,"\u0061":2})")).error().code,
              JcsError::duplicate_key);
}
