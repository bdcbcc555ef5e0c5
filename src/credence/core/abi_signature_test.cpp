#include <credence/core/abi_signature.hpp>

#include <gtest/gtest.h>

using namespace credence::core;

TEST(core_abi_signature, cast_style_outputs) {
    auto f = parse_function_signature("f(uint256)(uint256,string)");
    ASSERT_TRUE(f.has_value());
    EXPECT_EQ(f->name, "f");
    EXPECT_EQ(f->signature(), "f(uint256)");
    ASSERT_EQ(f->outputs.size(), 2u);
    EXPECT_EQ(f->outputs[1].type.canonical(), "string");
}

TEST(core_abi_signature, solidity_declarations) {
    auto f = parse_function_signature(
        "function register(string calldata agentURI, (string metadataKey, bytes metadataValue)[] "
        "calldata "
        "metadata) external returns (uint256 agentId)");
    ASSERT_TRUE(f.has_value()) << f.error().detail;
    EXPECT_EQ(f->signature(), "register(string,(string,bytes)[])");
    EXPECT_EQ(f->inputs[0].name, "agentURI");
    EXPECT_EQ(f->inputs[1].name, "metadata");
    ASSERT_EQ(f->outputs.size(), 1u);
    EXPECT_EQ(f->outputs[0].name, "agentId");

    auto v = parse_function_signature(
        "function getClients(uint256 agentId) external view returns (address[] memory)");
    ASSERT_TRUE(v.has_value()) << v.error().detail;
    EXPECT_EQ(v->state_mutability, "view");
    EXPECT_EQ(v->outputs[0].type.canonical(), "address[]");

    auto e = parse_event_signature(
        "event Transfer(address indexed from, address indexed to, uint256 value)");
    ASSERT_TRUE(e.has_value());
    EXPECT_TRUE(e->inputs[0].indexed);
    EXPECT_TRUE(e->inputs[1].indexed);
    EXPECT_FALSE(e->inputs[2].indexed);
    EXPECT_FALSE(e->anonymous);

    auto a = parse_event_signature("Ping(uint256 indexed id) anonymous");
    ASSERT_TRUE(a.has_value());
    EXPECT_TRUE(a->anonymous);

    auto err = parse_error_signature("error Unauthorized(address caller)");
    ASSERT_TRUE(err.has_value());
    EXPECT_EQ(err->signature(), "Unauthorized(address)");
}

TEST(core_abi_signature, rejects_malformed_signatures) {
    const char* bad[] = {"f(uint256",
                         "f(uint7)",
                         "f(uint256))",
                         "f(uint256) garbage",
                         "f(uint256 indexed)",
                         "(uint256)x",
                         "f(uint256 a b)",
                         "f(uint256)(string)(bool)",
                         "f(,)",
                         "f uint256"};
    for (const char* s : bad) EXPECT_FALSE(parse_function_signature(s).has_value()) << s;
    EXPECT_FALSE(parse_event_signature("(uint256)").has_value());
    EXPECT_FALSE(parse_event_signature("E(uint256) view").has_value());
    EXPECT_FALSE(parse_error_signature("E(uint256 indexed x)").has_value());
}

TEST(core_abi_signature, builtin_error_selectors) {
    // Solidity docs §Error handling: Error(string) is 0x08c379a0, Panic(uint256) is 0x4e487b71.
    EXPECT_EQ(to_hex(parse_error_signature("Error(string)")->selector()), "0x08c379a0");
    EXPECT_EQ(to_hex(parse_error_signature("error Panic(uint256 code)")->selector()), "0x4e487b71");
}
