// The first draft's Agent Card rules (ERC-8004 first draft §Identity Registry, §Agent Card
// Structure): one test per rule, each bad case on its own.
#include <credence/verify/rules/draft_agent_card.hpp>

#include <gtest/gtest.h>

#include <string>

namespace credence::verify {
namespace {

constexpr uint64_t kDraftChain = 31337;
const core::EvmAddress kAgentAddress =
    core::Address::from_hex("0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
                            core::ChecksumMode::ignore)
        .value()
        .bytes;

core::Result<DraftAgentCard, AgentCardError> parse_card(const std::string& s) {
    return parse_draft_agent_card(
        core::ByteView(reinterpret_cast<const uint8_t*>(s.data()), s.size()));
}

DraftAgentCard card_of(const std::string& s) {
    auto c = parse_card(s);
    EXPECT_TRUE(c) << (c ? "" : c.error().detail);
    return c ? *c : DraftAgentCard{};
}

// The draft's example shape: two registrations, the three trust models.
const std::string kGood = R"({
  "name": "Server agent",
  "registrations": [
    {"agentId": 7, "agentAddress": "eip155:31337:0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
     "signature": "0xabcdef"},
    {"agentId": 67890, "agentAddress": "eip155:59144:0x70997970c51812dc3a010c7d01b50e0d17dc79c8"}
  ],
  "trustModels": ["feedback", "inference-validation", "tee-attestation"]
})";

bool has_issue(const DraftAgentCard& card, DraftCardReason reason, const std::string& path,
               core::IssueSeverity severity) {
    for (const auto& i : card.issues) {
        if (i.reason == reason && i.path == path && i.severity == severity) return true;
    }
    return false;
}

TEST(verify_draft_agent_card, good_card_parses_and_matches) {
    const DraftAgentCard card = card_of(kGood);
    EXPECT_TRUE(card.ok());
    EXPECT_EQ(card.name, "Server agent");
    ASSERT_EQ(card.registrations.size(), 2U);
    EXPECT_EQ(card.registrations[0].agent_id, core::Uint256{7});
    EXPECT_EQ(card.registrations[0].signature, "0xabcdef");
    EXPECT_EQ(card.trust_models.size(), 3U);
    const auto b = match_draft_card(card, kDraftChain, core::Uint256{7}, kAgentAddress);
    EXPECT_EQ(b.match, DraftCardMatch::matches);
    EXPECT_EQ(b.index, 0U);
    // Lowercase hex names the same address (eip155 CAIP-10 profile).
    EXPECT_EQ(match_draft_card(card, 59144, core::Uint256{67890}, kAgentAddress).match,
              DraftCardMatch::matches);
}

// §Agent Card Structure: "signature": "...proof of ownership of the address..." with no signed
// message defined: a documented warning, never a verdict.
TEST(verify_draft_agent_card, signature_is_a_warning_not_a_check) {
    const DraftAgentCard card = card_of(kGood);
    EXPECT_TRUE(has_issue(card, DraftCardReason::signature_unspecified,
                          "/registrations/0/signature", core::IssueSeverity::warning));
    EXPECT_FALSE(has_issue(card, DraftCardReason::signature_unspecified,
                           "/registrations/1/signature", core::IssueSeverity::warning));
    const DraftAgentCard bad = card_of(
        R"({"registrations": [{"agentId": 7, "agentAddress": "eip155:31337:0x70997970C51812dc3A010C7d01b50e0d17dc79C8", "signature": 5}], "trustModels": []})");
    EXPECT_TRUE(has_issue(bad, DraftCardReason::wrong_json_type, "/registrations/0/signature",
                          core::IssueSeverity::error));
}

// §Agent Card Structure: registrations is a SHOULD.
TEST(verify_draft_agent_card, no_registrations_is_a_warning) {
    const DraftAgentCard card = card_of(R"({"trustModels": ["feedback"]})");
    EXPECT_TRUE(card.ok());
    EXPECT_TRUE(has_issue(card, DraftCardReason::no_registrations, "/registrations",
                          core::IssueSeverity::warning));
    EXPECT_EQ(match_draft_card(card, kDraftChain, core::Uint256{7}, kAgentAddress).match,
              DraftCardMatch::no_registrations);
    EXPECT_TRUE(has_issue(card_of(R"({"registrations": {}})"), DraftCardReason::wrong_json_type,
                          "/registrations", core::IssueSeverity::error));
}

// §Agent Card Structure: the card SHOULD describe its trust models, the draft names three.
TEST(verify_draft_agent_card, trust_models_should_be_listed_and_known) {
    EXPECT_TRUE(has_issue(card_of("{}"), DraftCardReason::no_trust_models, "/trustModels",
                          core::IssueSeverity::warning));
    const DraftAgentCard card =
        card_of(R"({"trustModels": ["feedback", "zk-proof", "feedback", 3]})");
    EXPECT_TRUE(has_issue(card, DraftCardReason::unknown_trust_model, "/trustModels/1",
                          core::IssueSeverity::warning));
    EXPECT_TRUE(has_issue(card, DraftCardReason::duplicate_entry, "/trustModels/2",
                          core::IssueSeverity::warning));
    EXPECT_TRUE(has_issue(card, DraftCardReason::wrong_json_type, "/trustModels/3",
                          core::IssueSeverity::error));
    EXPECT_EQ(card.trust_models, (std::vector<std::string>{"feedback", "zk-proof"}));
    EXPECT_TRUE(has_issue(card_of(R"({"trustModels": "feedback"})"),
                          DraftCardReason::wrong_json_type, "/trustModels",
                          core::IssueSeverity::error));
}

// §Agent Card Structure: every entry is {agentId, agentAddress, signature}.
TEST(verify_draft_agent_card, entry_without_agent_id_or_address_is_an_error) {
    const DraftAgentCard card = card_of(R"({"registrations": [
        {"agentAddress": "eip155:31337:0x70997970C51812dc3A010C7d01b50e0d17dc79C8"},
        {"agentId": 7},
        "eip155:31337:0x70997970C51812dc3A010C7d01b50e0d17dc79C8"]})");
    EXPECT_TRUE(has_issue(card, DraftCardReason::missing_field, "/registrations/0/agentId",
                          core::IssueSeverity::error));
    EXPECT_TRUE(has_issue(card, DraftCardReason::missing_field, "/registrations/1/agentAddress",
                          core::IssueSeverity::error));
    EXPECT_TRUE(has_issue(card, DraftCardReason::not_an_object, "/registrations/2",
                          core::IssueSeverity::error));
    EXPECT_TRUE(card.registrations.empty());
    EXPECT_FALSE(card.ok());
}

TEST(verify_draft_agent_card, agent_id_must_be_a_non_negative_integer) {
    for (const char* id : {"-1", "1.5", "\"7\"", "1e2"}) {
        SCOPED_TRACE(id);
        const DraftAgentCard card = card_of(
            std::string(R"({"registrations": [{"agentId": )") + id +
            R"(, "agentAddress": "eip155:31337:0x70997970C51812dc3A010C7d01b50e0d17dc79C8"}]})");
        EXPECT_TRUE(has_issue(card, DraftCardReason::bad_agent_id, "/registrations/0/agentId",
                              core::IssueSeverity::error));
    }
}

// §Agent Card Structure: agentAddress is a CAIP-10 account id.
TEST(verify_draft_agent_card, agent_address_must_be_caip10) {
    const DraftAgentCard card = card_of(R"({"registrations": [
        {"agentId": 7, "agentAddress": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"},
        {"agentId": 7, "agentAddress": 42}]})");
    EXPECT_TRUE(has_issue(card, DraftCardReason::bad_agent_address, "/registrations/0/agentAddress",
                          core::IssueSeverity::error));
    EXPECT_TRUE(has_issue(card, DraftCardReason::wrong_json_type, "/registrations/1/agentAddress",
                          core::IssueSeverity::error));
}

TEST(verify_draft_agent_card, duplicate_registration_is_a_warning) {
    const DraftAgentCard card = card_of(R"({"registrations": [
        {"agentId": 7, "agentAddress": "eip155:31337:0x70997970C51812dc3A010C7d01b50e0d17dc79C8"},
        {"agentId": 7, "agentAddress": "eip155:31337:0x70997970C51812dc3A010C7d01b50e0d17dc79C8"}]})");
    EXPECT_EQ(card.registrations.size(), 1U);
    EXPECT_TRUE(has_issue(card, DraftCardReason::duplicate_entry, "/registrations/1",
                          core::IssueSeverity::warning));
}

TEST(verify_draft_agent_card, not_json_or_not_an_object_fails) {
    auto bad = parse_card("{\"registrations\": [");
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().code, AgentCardError::not_json);
    auto arr = parse_card("[]");
    ASSERT_FALSE(arr);
    EXPECT_EQ(arr.error().code, AgentCardError::not_an_object);
}

// The binding: this AgentID and this AgentAddress on this chain, or the closest miss.
TEST(verify_draft_agent_card, match_names_the_closest_miss) {
    const DraftAgentCard card = card_of(kGood);
    const core::EvmAddress other{0x01};
    EXPECT_EQ(match_draft_card(card, kDraftChain, core::Uint256{7}, other).match,
              DraftCardMatch::wrong_address);
    EXPECT_EQ(match_draft_card(card, kDraftChain, core::Uint256{8}, kAgentAddress).match,
              DraftCardMatch::wrong_agent_id);
    EXPECT_EQ(match_draft_card(card, 1, core::Uint256{7}, kAgentAddress).match,
              DraftCardMatch::wrong_chain);
    EXPECT_EQ(match_draft_card(card, 1, core::Uint256{8}, kAgentAddress).match,
              DraftCardMatch::no_matching_registration);
    EXPECT_EQ(match_draft_card(card, kDraftChain, core::Uint256{67890}, kAgentAddress).match,
              DraftCardMatch::wrong_agent_id);
    const DraftAgentCard elsewhere = card_of(
        R"({"registrations": [{"agentId": 7, "agentAddress": "eip155:1:0x70997970C51812dc3A010C7d01b50e0d17dc79C8"}]})");
    EXPECT_EQ(match_draft_card(elsewhere, kDraftChain, core::Uint256{7}, kAgentAddress).match,
              DraftCardMatch::wrong_chain);
    // A non-eip155 account cannot name an EVM registry's agent.
    const DraftAgentCard solana = card_of(
        R"({"registrations": [{"agentId": 7, "agentAddress": "solana:4sGjMW1sUnHzSxGspuhpqLDx6wiyjNtZ:7S3P4HxJpyyigGzodYwHtCxZyUQe9JiBMHyRWXArAaKv"}]})");
    EXPECT_TRUE(solana.ok());
    EXPECT_EQ(match_draft_card(solana, kDraftChain, core::Uint256{7}, kAgentAddress).match,
              DraftCardMatch::no_matching_registration);
}

// §Identity Registry: "https://{AgentDomain}/.well-known/agent-card.json".
TEST(verify_draft_agent_card, card_url_of_an_agent_domain) {
    EXPECT_EQ(draft_agent_card_url("Server-2.example").value(),
              "https://server-2.example/.well-known/agent-card.json");
    EXPECT_EQ(draft_agent_card_url("agent.example.").value(),
              "https://agent.example/.well-known/agent-card.json");
    for (const char* bad : {"", "agent.example:8443", "agent.example/path", "user@agent.example",
                            "127.0.0.1", "https://agent.example"}) {
        SCOPED_TRACE(bad);
        EXPECT_FALSE(draft_agent_card_url(bad));
    }
}

// §Feedback Data Structure: a client's card points to its feedback file with FeedbackDataURI.
TEST(verify_draft_agent_card, feedback_data_uri_is_read) {
    EXPECT_EQ(
        card_of(R"({"FeedbackDataURI": "https://a.example/feedback.json"})").feedback_data_uri,
        "https://a.example/feedback.json");
    EXPECT_FALSE(card_of(kGood).feedback_data_uri);
    const DraftAgentCard bad = card_of(R"({"FeedbackDataURI": 5})");
    EXPECT_FALSE(bad.feedback_data_uri);
    EXPECT_TRUE(has_issue(bad, DraftCardReason::wrong_json_type, "/FeedbackDataURI",
                          core::IssueSeverity::error));
}

}  // namespace
}  // namespace credence::verify
