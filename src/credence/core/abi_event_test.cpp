#include <credence/core/abi_event.hpp>

#include <gtest/gtest.h>

#include "support/vectors.hpp"

using namespace credence::core;

namespace {

Hash32 word(std::string_view hex) {
    std::string digits(64 - hex.size(), '0');
    digits += hex;
    return *from_hex_fixed<32>(digits);
}

Bytes event_words(std::initializer_list<std::string_view> ws) {
    Bytes out;
    for (auto w : ws) {
        const Hash32 h = word(w);
        out.insert(out.end(), h.begin(), h.end());
    }
    return out;
}

std::string text_word(std::string_view text) {
    std::string hex = to_hex(as_bytes(text), false);
    hex += std::string(64 - hex.size(), '0');
    return hex;
}

// ERC-8004 §Reputation Registry: the NewFeedback event as declared in the ERC.
constexpr std::string_view kNewFeedback =
    "event NewFeedback(uint256 indexed agentId, address indexed clientAddress, uint64 "
    "feedbackIndex, "
    "int128 value, uint8 valueDecimals, string indexed indexedTag1, string tag1, string tag2, "
    "string endpoint, string feedbackURI, bytes32 feedbackHash)";

struct NewFeedbackLog {
    std::vector<Hash32> topics;
    Bytes data;
};

// A NewFeedback log laid out by hand, word by word; topic0 comes from erc8004.json.
NewFeedbackLog new_feedback_log() {
    const auto v = credence::testing::read_vector_json("erc8004.json");
    const std::string topic0 = v.at("eventTopics")
                                   .at("NewFeedback(uint256,address,uint64,int128,uint8,string,"
                                       "string,string,string,string,bytes32)")
                                   .get<std::string>();
    NewFeedbackLog log;
    log.topics = {*from_hex_fixed<32>(topic0), word("2a"),
                  word("70997970c51812dc3a010c7d01b50e0d17dc79c8"),
                  word("5eba0a4e3a9d5c4b1f3f5ad0e8e1a1c2d3e4f5060718293a4b5c6d7e8f901234")};
    log.data = event_words({
        "3",                                       // feedbackIndex
        std::string(64 - 2, 'f') + "fb",           // value = -5
        "2",                                       // valueDecimals
        "100", "140", "160", "1a0",                // offsets of tag1, tag2, endpoint, feedbackURI
        "ab" + std::string(62, '0'),               // feedbackHash
        "7", text_word("quality"),                 // tag1
        "0",                                       // tag2 = ""
        "15", text_word("https://agent.example"),  // endpoint (21 bytes)
        "1f", text_word("ipfs://bafyfeedbackfeedback0001"),  // feedbackURI (31 bytes)
    });
    return log;
}

}  // namespace

TEST(core_abi_event, decodes_new_feedback_log) {
    auto event = parse_event_signature(kNewFeedback);
    ASSERT_TRUE(event.has_value());
    const auto log = new_feedback_log();
    auto values = decode_log(*event, log.topics, log.data);
    ASSERT_TRUE(values.has_value()) << values.error().detail;
    ASSERT_EQ(values->size(), 11u);
    const auto& v = *values;
    EXPECT_EQ(v[0].value, AbiValue(Uint256(42)));
    EXPECT_FALSE(v[0].hashed);
    EXPECT_EQ(to_hex(std::get<AbiValue::Address>(v[1].value.v)),
              "0x70997970c51812dc3a010c7d01b50e0d17dc79c8");
    EXPECT_EQ(v[2].value, AbiValue(Uint256(3)));
    EXPECT_EQ(v[3].value, AbiValue(Int256(-5)));
    EXPECT_EQ(v[4].value, AbiValue(Uint256(2)));
    // ABI spec §Events: an indexed string is stored as its keccak256; we hand back the topic.
    EXPECT_TRUE(v[5].hashed);
    EXPECT_EQ(to_hex(std::get<FixedBytes>(v[5].value.v).view()), to_hex(log.topics[3]));
    EXPECT_EQ(v[6].value, AbiValue("quality"));
    EXPECT_EQ(v[7].value, AbiValue(""));
    EXPECT_EQ(v[8].value, AbiValue("https://agent.example"));
    EXPECT_EQ(v[9].value, AbiValue("ipfs://bafyfeedbackfeedback0001"));
    EXPECT_EQ(std::get<FixedBytes>(v[10].value.v).data[0], 0xab);

    // The hand-laid data is canonical, so the strict canonical mode accepts it too, and the
    // precomputed decoder agrees.
    EXPECT_TRUE(decode_log(*event, log.topics, log.data, {.canonical = true}).has_value());
    const LogDecoder decoder(*event);
    EXPECT_EQ(*decoder.decode(log.topics, log.data), *values);
}

TEST(core_abi_event, rejects_wrong_topic_count_and_topic0) {
    auto event = parse_event_signature(kNewFeedback);
    ASSERT_TRUE(event.has_value());
    auto log = new_feedback_log();
    auto fewer = log.topics;
    fewer.pop_back();
    EXPECT_EQ(decode_log(*event, fewer, log.data).error().code, AbiError::topic_count);
    auto more = log.topics;
    more.push_back(word("1"));
    EXPECT_EQ(decode_log(*event, more, log.data).error().code, AbiError::topic_count);
    auto wrong0 = log.topics;
    wrong0[0][31] ^= 1;
    EXPECT_EQ(decode_log(*event, wrong0, log.data).error().code, AbiError::topic0_mismatch);
    // Indexed value types get the same padding checks as data words.
    auto bad_address = log.topics;
    bad_address[2][0] = 1;
    EXPECT_EQ(decode_log(*event, bad_address, log.data).error().code, AbiError::bad_padding);
    // Data errors surface too.
    Bytes truncated(log.data.begin(), log.data.end() - 32);
    EXPECT_EQ(decode_log(*event, log.topics, truncated).error().code, AbiError::bad_length);
}

TEST(core_abi_event, anonymous_events_have_no_topic0) {
    auto event = parse_event_signature(
        "event Ping(address indexed from, bytes indexed blob, uint256 n) anonymous");
    ASSERT_TRUE(event.has_value());
    const std::vector<Hash32> topics = {word("70997970c51812dc3a010c7d01b50e0d17dc79c8"),
                                        word("beef")};
    auto values = decode_log(*event, topics, event_words({"9"}));
    ASSERT_TRUE(values.has_value()) << values.error().detail;
    EXPECT_FALSE((*values)[0].hashed);
    EXPECT_TRUE((*values)[1].hashed);
    EXPECT_EQ((*values)[2].value, AbiValue(Uint256(9)));
    EXPECT_FALSE(LogDecoder(*event).topic0().has_value());
    const std::vector<Hash32> three = {topics[0], topics[1], word("1")};
    EXPECT_EQ(decode_log(*event, three, event_words({"9"})).error().code, AbiError::topic_count);
}

TEST(core_abi_event, indexed_static_tuples_and_arrays_are_hashed) {
    // Solidity stores every indexed reference type, static or not, as a hash.
    auto event = parse_event_signature("event E(uint256[2] indexed a, (uint8,bool) indexed b)");
    ASSERT_TRUE(event.has_value());
    const std::vector<Hash32> topics = {event->topic0(), word("1"), word("2")};
    auto values = decode_log(*event, topics, {});
    ASSERT_TRUE(values.has_value());
    EXPECT_TRUE((*values)[0].hashed);
    EXPECT_TRUE((*values)[1].hashed);
}
