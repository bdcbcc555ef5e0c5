// ERC-8004 selectors and event topics from erc8004.json, computed from the vector's signature
// strings through our own parser (so the parser's canonical form is tested too).
#include <credence/core/abi_signature.hpp>

#include <gtest/gtest.h>

#include "support/vectors.hpp"

using namespace credence::core;

TEST(core_erc8004_abi, every_function_selector) {
    const auto v = credence::testing::read_vector_json("erc8004.json");
    const auto& selectors = v.at("selectors");
    ASSERT_GE(selectors.size(), 26u);
    size_t checked = 0;
    for (const auto& [signature, expected] : selectors.items()) {
        auto f = parse_function_signature(signature);
        ASSERT_TRUE(f.has_value()) << signature << ": " << f.error().detail;
        EXPECT_EQ(f->signature(), signature);
        EXPECT_EQ(to_hex(f->selector()), expected.get<std::string>()) << signature;
        ++checked;
    }
    EXPECT_EQ(checked, selectors.size());
}

TEST(core_erc8004_abi, every_event_topic) {
    const auto v = credence::testing::read_vector_json("erc8004.json");
    const auto& topics = v.at("eventTopics");
    ASSERT_GE(topics.size(), 9u);
    size_t checked = 0;
    for (const auto& [signature, expected] : topics.items()) {
        auto e = parse_event_signature(signature);
        ASSERT_TRUE(e.has_value()) << signature << ": " << e.error().detail;
        EXPECT_EQ(e->signature(), signature);
        EXPECT_EQ(to_hex(e->topic0()), expected.get<std::string>()) << signature;
        ++checked;
    }
    EXPECT_EQ(checked, topics.size());
}

// The events as written in the ERC text (names, `indexed`) hash to the same topics as the vector's
// canonical signatures.
TEST(core_erc8004_abi, spec_event_declarations_match_vector_topics) {
    const auto v = credence::testing::read_vector_json("erc8004.json");
    const auto& topics = v.at("eventTopics");
    const char* declarations[] = {
        "event NewFeedback(uint256 indexed agentId, address indexed clientAddress, uint64 "
        "feedbackIndex, "
        "int128 value, uint8 valueDecimals, string indexed indexedTag1, string tag1, string tag2, "
        "string endpoint, string feedbackURI, bytes32 feedbackHash)",
        "event MetadataSet(uint256 indexed agentId, string indexed indexedMetadataKey, string "
        "metadataKey, "
        "bytes metadataValue)",
        "event ValidationResponse(address indexed validatorAddress, uint256 indexed agentId, "
        "bytes32 indexed "
        "requestHash, uint8 response, string responseURI, bytes32 responseHash, string tag)",
    };
    for (const char* d : declarations) {
        auto e = parse_event_signature(d);
        ASSERT_TRUE(e.has_value()) << d << ": " << e.error().detail;
        ASSERT_TRUE(topics.contains(e->signature())) << e->signature();
        EXPECT_EQ(to_hex(e->topic0()), topics.at(e->signature()).get<std::string>());
    }
}

// A giveFeedback call starts with the vector's selector and its params decode back canonically.
TEST(core_erc8004_abi, give_feedback_call_round_trip) {
    const auto v = credence::testing::read_vector_json("erc8004.json");
    const std::string sig =
        "giveFeedback(uint256,int128,uint8,string,string,string,string,bytes32)";
    auto f = parse_function_signature(sig);
    ASSERT_TRUE(f.has_value());
    const auto types = types_of(f->inputs);
    Hash32 feedback_hash{};
    feedback_hash[0] = 0x5e;
    const std::vector<AbiValue> values = {Uint256(42),
                                          Int256(-250),
                                          Uint256(2),
                                          "quality",
                                          "",
                                          "https://agent.example/mcp",
                                          "ipfs://bafy...",
                                          FixedBytes(feedback_hash)};
    auto calldata = encode_call(f->selector(), types, values);
    ASSERT_TRUE(calldata.has_value());
    EXPECT_EQ(to_hex(ByteView(*calldata).first(4)), v.at("selectors").at(sig).get<std::string>());
    auto decoded = decode(types, ByteView(*calldata).subspan(4), {.canonical = true});
    ASSERT_TRUE(decoded.has_value()) << decoded.error().detail;
    EXPECT_EQ(*decoded, values);
}
