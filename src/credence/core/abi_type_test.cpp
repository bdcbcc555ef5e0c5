#include <credence/core/abi_type.hpp>

#include <gtest/gtest.h>

using namespace credence::core;

TEST(core_abi_type, canonical_forms) {
    const std::pair<const char*, const char*> cases[] = {
        {"uint256", "uint256"},
        {"uint", "uint256"},
        {"int", "int256"},
        {"uint8", "uint8"},
        {"int128", "int128"},
        {"address", "address"},
        {"bool", "bool"},
        {"bytes1", "bytes1"},
        {"bytes32", "bytes32"},
        {"bytes", "bytes"},
        {"string", "string"},
        {"uint[]", "uint256[]"},
        {"int[2][]", "int256[2][]"},
        {"(uint,string)[]", "(uint256,string)[]"},
        {"tuple(string,bytes)[]", "(string,bytes)[]"},
        {"((uint8,(bool)[3]),address)[2][]", "((uint8,(bool)[3]),address)[2][]"},
    };
    for (const auto& [in, out] : cases) {
        auto t = parse_type(in);
        ASSERT_TRUE(t.has_value()) << in << ": " << t.error().detail;
        EXPECT_EQ(t->canonical(), out);
        // Canonical strings parse back to the same type.
        auto again = parse_type(t->canonical());
        ASSERT_TRUE(again.has_value());
        EXPECT_TRUE(*again == *t);
    }
}

TEST(core_abi_type, rejects_types_outside_the_grammar) {
    // ABI spec §Types: uint<M>/int<M> with 0 < M <= 256 and M % 8 == 0; bytes<M> with 0 < M <= 32.
    const char* bad[] = {"uint7",
                         "uint264",
                         "uint0",
                         "int9",
                         "int512",
                         "bytes0",
                         "bytes33",
                         "uint08",
                         "bytes01",
                         "",
                         "uint256 ",
                         " uint256",
                         "Uint256",
                         "float",
                         "fixed128x18",
                         "uint256[",
                         "uint256]",
                         "uint256[01]",
                         "uint256[0]",
                         "uint256[-1]",
                         "()",
                         "(uint256",
                         "(uint256,)",
                         "(,uint256)",
                         "uint256,",
                         "tuple",
                         "tuple[]",
                         "uint256[4294967297]",
                         "address payable",
                         "string memory",
                         "(uint256)x"};
    for (const char* s : bad) {
        auto t = parse_type(s);
        EXPECT_FALSE(t.has_value()) << s;
        if (!t) {
            EXPECT_TRUE(t.error().code == AbiError::bad_type)
                << s << ": " << to_string(t.error().code);
        }
    }
}

TEST(core_abi_type, depth_limit) {
    std::string deep = "uint256";
    for (unsigned i = 0; i < kMaxAbiDepth; ++i) deep += "[]";
    EXPECT_TRUE(parse_type(deep).has_value());
    EXPECT_EQ(parse_type(deep + "[]").error().code, AbiError::too_deep);

    // Deep tuple nesting must fail cleanly rather than recurse without bound.
    std::string tuples(100000, '(');
    tuples += "uint256";
    tuples += std::string(100000, ')');
    EXPECT_EQ(parse_type(tuples).error().code, AbiError::too_deep);
}

TEST(core_abi_type, dynamic_and_head_sizes) {
    EXPECT_FALSE(parse_type("uint256")->is_dynamic());
    EXPECT_TRUE(parse_type("bytes")->is_dynamic());
    EXPECT_TRUE(parse_type("uint8[]")->is_dynamic());
    EXPECT_TRUE(parse_type("string[2]")->is_dynamic());
    EXPECT_TRUE(parse_type("(uint8,string)")->is_dynamic());
    EXPECT_EQ(parse_type("(uint8,bytes32)[3]")->head_size(), 192u);
    EXPECT_EQ(parse_type("(uint8,string)[3]")->head_size(), 32u);
    // Saturates instead of overflowing.
    EXPECT_EQ(parse_type("uint256[4294967296][4294967296][4294967296]")->head_size(),
              uint64_t{1} << 62);
}

TEST(core_abi_type, type_lists) {
    auto list = parse_type_list("(uint,(bool,bytes)[],string)");
    ASSERT_TRUE(list.has_value());
    EXPECT_EQ(canonical_list(*list), "(uint256,(bool,bytes)[],string)");
    EXPECT_TRUE(parse_type_list("()")->empty());
    EXPECT_FALSE(parse_type_list("uint256").has_value());
    EXPECT_FALSE(parse_type_list("(uint256)x").has_value());
}
