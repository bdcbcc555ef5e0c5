// Tests of the ERC-8004 value/valueDecimals conversion. Expected pairs come from the spec's own
// "Examples of value / valueDecimals" table (tests/data/erc-examples/erc8004-value-decimals.tsv).
#include <credence/core/decimal_value.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "support/erc_examples.hpp"

namespace {

using credence::core::DecimalValue;
using credence::core::DecimalValueError;
using credence::core::format_decimal_value;
using credence::core::Int256;
using credence::core::make_decimal_value;
using credence::core::parse_decimal_value;
using credence::core::to_wad;
using credence::testing::read_erc_example;

Int256 int_of(const std::string& s) { return *Int256::parse(s); }

// ERC-8004 §Examples of value / valueDecimals: each table row gives a human value, `value` and
// `valueDecimals`. Rows whose human value is a plain number after dropping a unit suffix parse to
// exactly the spec's pair.
TEST(core_decimal_value, spec_table_rows) {
    std::istringstream lines(read_erc_example("erc8004-value-decimals.tsv"));
    std::string line;
    int rows = 0;
    int checked = 0;
    while (std::getline(lines, line)) {
        if (line.empty() || line.front() == '#') continue;
        ++rows;
        // Columns: tag1, what it measures, human value, value, valueDecimals.
        std::vector<std::string> cells;
        std::string cell;
        std::istringstream cs(line);
        while (std::getline(cs, cell, '\t')) cells.push_back(cell);
        ASSERT_EQ(cells.size(), 5U) << line;
        auto strip = [](std::string s) {
            std::string out;
            for (char c : s)
                if (c != ' ') out += c;
            return out;
        };
        std::string human = strip(cells[2]);
        const std::string value = strip(cells[3]);
        const std::string decimals = strip(cells[4]);
        // The spec writes "-3,2%" with a comma decimal mark; we accept only '.', so convert here
        // (and check that the raw form is rejected).
        if (human.find(',') != std::string::npos) {
            EXPECT_FALSE(parse_decimal_value(human.substr(0, human.find_first_of("%"))));
            for (char& c : human)
                if (c == ',') c = '.';
        }
        // Drop units: "87/100" -> "87", "99.77%" -> "99.77", "560ms", "$560", "4blocks".
        if (human == "true") human = "1";
        if (!human.empty() && human.front() == '$') human.erase(0, 1);
        const auto end = human.find_first_not_of("-0123456789.");
        human = human.substr(0, end);
        auto parsed = parse_decimal_value(human);
        ASSERT_TRUE(parsed) << human;
        EXPECT_EQ(parsed->value, int_of(value)) << line;
        EXPECT_EQ(parsed->decimals, std::stoi(decimals)) << line;
        ++checked;
    }
    EXPECT_EQ(rows, 9);
    EXPECT_EQ(checked, rows);
}

TEST(core_decimal_value, parse_exact) {
    auto v = parse_decimal_value("99.77");
    ASSERT_TRUE(v);
    EXPECT_EQ(v->value, Int256(9977));
    EXPECT_EQ(v->decimals, 2);
    v = parse_decimal_value("-3.2");
    ASSERT_TRUE(v);
    EXPECT_EQ(v->value, Int256(-32));
    EXPECT_EQ(v->decimals, 1);
    v = parse_decimal_value("0.005");
    ASSERT_TRUE(v);
    EXPECT_EQ(v->value, Int256(5));
    EXPECT_EQ(v->decimals, 3);
}

TEST(core_decimal_value, trailing_zeros_kept_as_written) {
    auto v = parse_decimal_value("1.50");
    ASSERT_TRUE(v);
    EXPECT_EQ(v->value, Int256(150));
    EXPECT_EQ(v->decimals, 2);
    EXPECT_EQ(format_decimal_value(*v), "1.50");
    EXPECT_FALSE(*v == *parse_decimal_value("1.5"));
}

TEST(core_decimal_value, negative_zero_is_zero) {
    auto v = parse_decimal_value("-0");
    ASSERT_TRUE(v);
    EXPECT_EQ(v->value, Int256(0));
    EXPECT_EQ(format_decimal_value(*v), "0");
    v = parse_decimal_value("-0.00");
    ASSERT_TRUE(v);
    EXPECT_EQ(v->value, Int256(0));
    EXPECT_EQ(v->decimals, 2);
    EXPECT_EQ(format_decimal_value(*v), "0.00");
}

TEST(core_decimal_value, bound_1e38_accepted_1e38_plus_1_rejected) {
    const std::string e38 = "1" + std::string(38, '0');
    auto v = parse_decimal_value(e38);
    ASSERT_TRUE(v);
    EXPECT_EQ(v->value, int_of(e38));
    v = parse_decimal_value("-" + e38);
    ASSERT_TRUE(v);
    EXPECT_EQ(v->value, int_of("-" + e38));
    EXPECT_EQ(parse_decimal_value("1" + std::string(37, '0') + "1").error().code,
              DecimalValueError::out_of_range);
    EXPECT_EQ(parse_decimal_value("-1" + std::string(37, '0') + "1").error().code,
              DecimalValueError::out_of_range);
    // The bound is on the integer `value`, so 1e38 at 18 decimals (1e20) is fine, +1 ulp not.
    EXPECT_TRUE(parse_decimal_value("1" + std::string(20, '0') + "." + std::string(18, '0')));
    EXPECT_EQ(parse_decimal_value("1" + std::string(20, '0') + "." + std::string(17, '0') + "1")
                  .error()
                  .code,
              DecimalValueError::out_of_range);
    EXPECT_EQ(parse_decimal_value(std::string(200, '9')).error().code,
              DecimalValueError::out_of_range);
    // Leading zeros of the fraction do not count toward the magnitude.
    EXPECT_TRUE(parse_decimal_value("0.000000000000000001"));
}

TEST(core_decimal_value, decimals_18_accepted_19_rejected) {
    auto v = parse_decimal_value("0." + std::string(17, '0') + "1");
    ASSERT_TRUE(v);
    EXPECT_EQ(v->decimals, 18);
    EXPECT_EQ(parse_decimal_value("0." + std::string(18, '0') + "1").error().code,
              DecimalValueError::too_many_decimals);
    EXPECT_EQ(parse_decimal_value("1." + std::string(19, '0')).error().code,
              DecimalValueError::too_many_decimals);
}

TEST(core_decimal_value, malformed_rejected) {
    for (const char* s : {"",     "-",   "+1", "1e2",  "1E2",      "1.",       ".5", "-.5",
                          "01",   "-01", "00", "1..2", "1.2.3",    " 1",       "1 ", "1,5",
                          "0x10", "--1", "1-", "abc",  "\xd9\xa1", "Infinity", "NaN"}) {
        auto r = parse_decimal_value(s);
        ASSERT_FALSE(r) << s;
        EXPECT_EQ(r.error().code, DecimalValueError::malformed) << s;
    }
}

TEST(core_decimal_value, make_checks_bounds) {
    EXPECT_TRUE(make_decimal_value(Int256(87), 0));
    EXPECT_TRUE(make_decimal_value(Int256(-1), 18));
    EXPECT_EQ(make_decimal_value(Int256(1), 19).error().code, DecimalValueError::too_many_decimals);
    const std::string e38 = "1" + std::string(38, '0');
    EXPECT_TRUE(make_decimal_value(int_of(e38), 0));
    EXPECT_TRUE(make_decimal_value(int_of("-" + e38), 0));
    EXPECT_EQ(make_decimal_value(int_of(e38.substr(0, 38) + "1"), 0).error().code,
              DecimalValueError::out_of_range);
    EXPECT_EQ(make_decimal_value(Int256::min(), 0).error().code, DecimalValueError::out_of_range);
}

TEST(core_decimal_value, format_round_trips) {
    for (const char* s :
         {"0", "1", "-1", "87", "99.77", "-3.2", "0.005", "-0.005", "0.00",
          "123456789012345678.901234567890123456", "100000000000000000000000000000000000000",
          "-100000000000000000000000000000000000000", "0.000000000000000001"}) {
        auto v = parse_decimal_value(s);
        ASSERT_TRUE(v) << s;
        EXPECT_EQ(format_decimal_value(*v), s);
    }
    EXPECT_EQ(format_decimal_value(DecimalValue{Int256(-5), 3}), "-0.005");
}

TEST(core_decimal_value, to_wad_scales_to_18_decimals) {
    EXPECT_EQ(to_wad(*parse_decimal_value("99.77")), int_of("99770000000000000000"));
    EXPECT_EQ(to_wad(*parse_decimal_value("-3.2")), int_of("-3200000000000000000"));
    EXPECT_EQ(to_wad(*parse_decimal_value("0.000000000000000001")), Int256(1));
    const std::string e38 = "1" + std::string(38, '0');
    EXPECT_EQ(to_wad(*parse_decimal_value("-" + e38)), int_of("-1" + std::string(56, '0')));
}

}  // namespace
