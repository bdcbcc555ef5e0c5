#include <credence/core/unicode.hpp>

#include <gtest/gtest.h>

#include <charconv>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/vectors.hpp"

using namespace credence::core;

namespace {

std::u32string parse_cps(std::string_view field) {
    std::u32string out;
    size_t pos = 0;
    while (pos < field.size()) {
        while (pos < field.size() && field[pos] == ' ') ++pos;
        if (pos == field.size()) break;
        uint32_t v = 0;
        const auto r = std::from_chars(field.data() + pos, field.data() + field.size(), v, 16);
        EXPECT_EQ(r.ec, std::errc()) << field;
        out.push_back(v);
        pos = static_cast<size_t>(r.ptr - field.data());
    }
    return out;
}

std::string hex_cps(std::u32string_view s) {
    std::ostringstream o;
    o << std::hex << std::uppercase;
    for (const char32_t c : s) o << static_cast<uint32_t>(c) << ' ';
    return o.str();
}

struct NormalizationCase {
    std::u32string source, nfc, nfd;
    bool part1 = false;
};

std::vector<NormalizationCase> load_cases() {
    const std::string data = credence::testing::read_vector_file("unicode/nfc-unicode17.tsv");
    std::vector<NormalizationCase> cases;
    std::istringstream in(data);
    std::string line;
    bool part1 = false;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty()) continue;
        if (line[0] == '#') {
            if (line.find("@Part") != std::string::npos)
                part1 = line.find("@Part1") != std::string::npos;
            continue;
        }
        const size_t t1 = line.find('\t');
        const size_t t2 = line.find('\t', t1 + 1);
        EXPECT_NE(t2, std::string::npos) << line;
        NormalizationCase c;
        c.source = parse_cps(std::string_view(line).substr(0, t1));
        c.nfc = parse_cps(std::string_view(line).substr(t1 + 1, t2 - t1 - 1));
        c.nfd = parse_cps(std::string_view(line).substr(t2 + 1));
        c.part1 = part1;
        cases.push_back(std::move(c));
    }
    return cases;
}

}  // namespace

// Unicode 17.0 NormalizationTest (every line): NFC(source) must be the NFC column, and is_nfc
// must hold exactly when the source already equals it. Also the conformance invariants
// NFC(c2) = NFC(c3) = c2 of NormalizationTest.txt, on code points and on UTF-8.
TEST(core_unicode, normalization_test_unicode17) {
    const auto cases = load_cases();
    ASSERT_EQ(cases.size(), 19'965u);
    for (const auto& c : cases) {
        const std::string where = hex_cps(c.source);
        EXPECT_EQ(to_nfc(c.source), c.nfc) << where;
        EXPECT_EQ(is_nfc(c.source), c.source == c.nfc) << where;
        EXPECT_EQ(to_nfc(c.nfc), c.nfc) << where;
        EXPECT_EQ(to_nfc(c.nfd), c.nfc) << where;
        EXPECT_TRUE(is_nfc(c.nfc)) << where;
        if (nfc_quick_check(c.source) == NfcQuickCheck::no) {
            EXPECT_NE(c.source, c.nfc) << where;
        }

        const auto src8 = code_points_to_utf8(c.source);
        const auto nfc8 = code_points_to_utf8(c.nfc);
        ASSERT_TRUE(src8 && nfc8) << where;
        EXPECT_EQ(is_nfc(*src8), c.source == c.nfc) << where;
        EXPECT_EQ(to_nfc(*src8).value_or("<error>"), *nfc8) << where;
        EXPECT_TRUE(is_nfc(*nfc8)) << where;
    }
}

// NormalizationTest.txt Part 1 lists every code point with a decomposition; every other code
// point must normalize to itself.
TEST(core_unicode, code_points_outside_part1_are_stable) {
    std::set<char32_t> listed;
    for (const auto& c : load_cases())
        if (c.part1 && c.source.size() == 1) listed.insert(c.source[0]);
    ASSERT_GT(listed.size(), 1000u);
    size_t checked = 0;
    for (char32_t cp = 0; cp <= 0x10FFFF; ++cp) {
        if (cp >= 0xD800 && cp <= 0xDFFF) continue;
        if (listed.count(cp)) continue;
        const std::u32string s(1, cp);
        ASSERT_EQ(to_nfc(s), s) << std::hex << static_cast<uint32_t>(cp);
        ASSERT_TRUE(is_nfc(s)) << std::hex << static_cast<uint32_t>(cp);
        ++checked;
    }
    EXPECT_GT(checked, 1'000'000u);
}

TEST(core_unicode, quick_check_answers) {
    EXPECT_EQ(nfc_quick_check(std::string_view("plain ascii")), NfcQuickCheck::yes);
    EXPECT_EQ(nfc_quick_check(std::string_view("caf\xC3\xA9")), NfcQuickCheck::yes);
    // e + U+0301 COMBINING ACUTE: Maybe (it may compose), and not NFC.
    EXPECT_EQ(nfc_quick_check(std::string_view("cafe\xCC\x81")), NfcQuickCheck::maybe);
    EXPECT_FALSE(is_nfc(std::string_view("cafe\xCC\x81")));
    // U+0301 after a character it cannot compose with: Maybe, but NFC.
    EXPECT_EQ(nfc_quick_check(std::string_view("x\xCC\x81")), NfcQuickCheck::maybe);
    EXPECT_TRUE(is_nfc(std::string_view("x\xCC\x81")));
    // U+212B ANGSTROM SIGN is NFC_QC=No (singleton decomposition).
    EXPECT_EQ(nfc_quick_check(std::string_view("\xE2\x84\xAB")), NfcQuickCheck::no);
    // Misordered marks: U+0301 (230) before U+0323 (220).
    EXPECT_FALSE(is_nfc(std::u32string_view(U"a\u0301\u0323")));
    // Invalid UTF-8 is never NFC.
    EXPECT_EQ(nfc_quick_check(std::string_view("\xC3")), NfcQuickCheck::no);
    EXPECT_FALSE(is_nfc(std::string_view("a\xED\xA0\x80")));
    EXPECT_FALSE(to_nfc(std::string_view("\xFF")).has_value());
}

TEST(core_unicode, combining_classes_and_floor) {
    EXPECT_EQ(canonical_combining_class(U'a'), 0);
    EXPECT_EQ(canonical_combining_class(0x0301), 230);
    EXPECT_EQ(canonical_combining_class(0x0323), 220);
    EXPECT_EQ(canonical_combining_class(0x110000), 0);
    // unicode.cpp skips table lookups below U+0300; that relies on these all being ccc 0 / NFC.
    for (char32_t cp = 0; cp < 0x300; ++cp) {
        EXPECT_EQ(canonical_combining_class(cp), 0);
        EXPECT_EQ(to_nfc(std::u32string(1, cp)), std::u32string(1, cp));
    }
}

TEST(core_unicode, hangul_is_algorithmic) {
    // U+D4DB = L U+1111 + V U+1171 + T U+11B6 (Unicode §3.12 example).
    EXPECT_EQ(to_nfc(std::u32string_view(U"\u1111\u1171\u11B6")), U"\uD4DB");
    EXPECT_TRUE(is_nfc(std::u32string_view(U"\uD4DB")));
    EXPECT_FALSE(is_nfc(std::u32string_view(U"\u1111\u1171")));
}

TEST(core_unicode, utf8_conversion_is_strict) {
    EXPECT_EQ(*utf8_to_code_points("a\xC3\xA9\xF0\x9F\x98\x80"), U"a\u00E9\U0001F600");
    EXPECT_FALSE(utf8_to_code_points("\xC0\x80").has_value());
    EXPECT_FALSE(utf8_to_code_points("\xED\xB0\x80").has_value());
    EXPECT_FALSE(utf8_to_code_points("\xF4\x90\x80\x80").has_value());
    EXPECT_FALSE(code_points_to_utf8(std::u32string(1, 0xD800)).has_value());
    EXPECT_FALSE(code_points_to_utf8(std::u32string(1, 0x110000)).has_value());
}

// Long runs of combining marks must not go quadratic (attacker-controlled manifests).
TEST(core_unicode, long_combining_runs) {
    std::u32string s = U"a";
    for (int i = 0; i < 200'000; ++i) s.push_back(i % 2 ? 0x0301 : 0x0323);
    const auto n = to_nfc(s);
    EXPECT_EQ(n.size(), s.size() - 1);  // a + U+0323 -> U+1EA1, the rest reordered
    EXPECT_FALSE(is_nfc(s));
}
