#include <credence/core/abi_json.hpp>

#include <gtest/gtest.h>

#include "support/vectors.hpp"

using namespace credence::core;

namespace {

// The shape solc emits for part of the ERC-8004 registries (internalType included, and ignored).
constexpr std::string_view kAbi = R"([
  {"type":"function","name":"giveFeedback","stateMutability":"nonpayable","outputs":[],
   "inputs":[{"name":"agentId","type":"uint256","internalType":"uint256"},
             {"name":"value","type":"int128","internalType":"int128"},
             {"name":"valueDecimals","type":"uint8","internalType":"uint8"},
             {"name":"tag1","type":"string","internalType":"string"},
             {"name":"tag2","type":"string","internalType":"string"},
             {"name":"endpoint","type":"string","internalType":"string"},
             {"name":"feedbackURI","type":"string","internalType":"string"},
             {"name":"feedbackHash","type":"bytes32","internalType":"bytes32"}]},
  {"type":"function","name":"register","stateMutability":"nonpayable",
   "inputs":[{"name":"agentURI","type":"string","internalType":"string"},
             {"name":"metadata","type":"tuple[]","internalType":"struct IIdentityRegistry.MetadataEntry[]",
              "components":[{"name":"metadataKey","type":"string","internalType":"string"},
                            {"name":"metadataValue","type":"bytes","internalType":"bytes"}]}],
   "outputs":[{"name":"agentId","type":"uint256","internalType":"uint256"}]},
  {"type":"event","name":"NewFeedback","anonymous":false,
   "inputs":[{"name":"agentId","type":"uint256","indexed":true,"internalType":"uint256"},
             {"name":"clientAddress","type":"address","indexed":true,"internalType":"address"},
             {"name":"feedbackIndex","type":"uint64","indexed":false,"internalType":"uint64"},
             {"name":"value","type":"int128","indexed":false,"internalType":"int128"},
             {"name":"valueDecimals","type":"uint8","indexed":false,"internalType":"uint8"},
             {"name":"indexedTag1","type":"string","indexed":true,"internalType":"string"},
             {"name":"tag1","type":"string","indexed":false,"internalType":"string"},
             {"name":"tag2","type":"string","indexed":false,"internalType":"string"},
             {"name":"endpoint","type":"string","indexed":false,"internalType":"string"},
             {"name":"feedbackURI","type":"string","indexed":false,"internalType":"string"},
             {"name":"feedbackHash","type":"bytes32","indexed":false,"internalType":"bytes32"}]},
  {"type":"error","name":"Unauthorized","inputs":[{"name":"caller","type":"address","internalType":"address"}]},
  {"type":"constructor","inputs":[{"name":"identity","type":"address","internalType":"address"}],"stateMutability":"nonpayable"},
  {"type":"receive","stateMutability":"payable"}
])";

}  // namespace

TEST(core_abi_json, parses_solc_abi_and_matches_erc8004_vectors) {
    const auto v = credence::testing::read_vector_json("erc8004.json");
    auto doc = parse_json_abi(kAbi);
    ASSERT_TRUE(doc.has_value()) << doc.error().detail;
    ASSERT_EQ(doc->functions.size(), 2u);
    ASSERT_EQ(doc->events.size(), 1u);
    ASSERT_EQ(doc->errors.size(), 1u);
    ASSERT_EQ(doc->constructor_inputs.size(), 1u);

    for (const auto& f : doc->functions) {
        const auto& expected = v.at("selectors").at(f.signature());
        EXPECT_EQ(to_hex(f.selector()), expected.get<std::string>()) << f.signature();
        EXPECT_EQ(doc->find_function(f.selector()), &f);
    }
    const auto* reg = doc->find_function("register");
    ASSERT_NE(reg, nullptr);
    EXPECT_EQ(reg->signature(), "register(string,(string,bytes)[])");
    EXPECT_EQ(reg->outputs[0].name, "agentId");

    const auto& e = doc->events[0];
    EXPECT_EQ(to_hex(e.topic0()), v.at("eventTopics").at(e.signature()).get<std::string>());
    EXPECT_TRUE(e.inputs[0].indexed);
    EXPECT_FALSE(e.inputs[2].indexed);
    EXPECT_TRUE(e.inputs[5].indexed);
    EXPECT_EQ(doc->find_event(e.topic0()), &e);
    EXPECT_EQ(doc->errors[0].signature(), "Unauthorized(address)");

    // Same items from the human-readable form.
    auto human = parse_event_signature(
        "NewFeedback(uint256 indexed agentId, address indexed clientAddress, uint64 feedbackIndex, "
        "int128 value, "
        "uint8 valueDecimals, string indexed indexedTag1, string tag1, string tag2, string "
        "endpoint, "
        "string feedbackURI, bytes32 feedbackHash)");
    ASSERT_TRUE(human.has_value());
    EXPECT_EQ(human->inputs, e.inputs);
}

TEST(core_abi_json, foundry_artifact_and_nested_tuples) {
    auto doc = parse_json_abi(R"({"abi":[{"type":"function","name":"f","inputs":[
        {"name":"x","type":"tuple[2][]","components":[
            {"name":"a","type":"tuple","components":[{"name":"b","type":"bytes32[]"}]},
            {"name":"c","type":"uint"}]}],"outputs":[]}]})");
    ASSERT_TRUE(doc.has_value()) << doc.error().detail;
    EXPECT_EQ(doc->functions[0].signature(), "f(((bytes32[]),uint256)[2][])");
}

TEST(core_abi_json, rejects_malformed_documents) {
    const char* bad[] = {
        "",
        "{",
        "42",
        R"({"notabi":[]})",
        R"([1])",
        R"([{"type":"function","inputs":[]}])",  // no name
        R"([{"type":"function","name":"f","inputs":[{"name":"x","type":"uint7"}]}])",
        R"([{"type":"function","name":"f","inputs":[{"name":"x"}]}])",                 // no type
        R"([{"type":"function","name":"f","inputs":[{"name":"x","type":"tuple"}]}])",  // no
                                                                                       // components
        R"([{"type":"function","name":"f","inputs":[{"name":"x","type":"tuple","components":[]}]}])",
        R"([{"type":"function","name":"f","inputs":[{"name":"x","type":"uint256","indexed":true}]}])",
        R"([{"type":"event","name":"E","inputs":[{"name":"x","type":"uint256","indexed":"yes"}]}])",
        R"([{"type":"event","name":"E","anonymous":1,"inputs":[]}])",
        R"([{"type":"modifier","name":"m"}])",
        R"([{"type":"function","name":7,"inputs":[]}])",
    };
    for (const char* s : bad) {
        auto r = parse_json_abi(s);
        EXPECT_FALSE(r.has_value()) << s;
    }
}
