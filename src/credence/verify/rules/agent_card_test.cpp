// The A2A agent card parser and the rules that bind a card to an on-chain agent (first draft
// §Agent Card Structure; ERC-8004 §Agent URI and Agent Registration File's "A2A" service).
#include <credence/verify/rules/agent_card.hpp>

#include <gtest/gtest.h>

#include <string>

namespace credence::verify {
namespace {

const core::Address kRegistry =
    core::Address::from_hex("0x8004A169FB4a3325136EB29fA0ceB6D2e539a432",
                            core::ChecksumMode::ignore)
        .value();
const core::Address kOwner = core::Address::from_hex("0x742d35Cc6634C0532925a3b844Bc9e7595f0bEb7",
                                                     core::ChecksumMode::ignore)
                                 .value();
const core::Address kWallet = core::Address::from_hex("0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
                                                      core::ChecksumMode::ignore)
                                  .value();

core::Result<AgentCard, AgentCardError> parse(const std::string& s) {
    return parse_agent_card(core::ByteView(reinterpret_cast<const uint8_t*>(s.data()), s.size()));
}

// The first draft's example card, with the owner written in EIP-55 form (the draft's own example
// address is not checksum-valid, and the eip155 CAIP-10 profile accepts only checksum or
// lowercase).
const std::string kCard = R"({
  "protocolVersion": "0.3.0",
  "name": "Recipe Agent",
  "description": "Agent that helps users with recipes and cooking.",
  "url": "https://agent.example/a2a/v1",
  "version": "1.0.0",
  "capabilities": {"streaming": true},
  "defaultInputModes": ["text/plain"],
  "defaultOutputModes": ["text/plain"],
  "skills": [
    {"id": "find-recipe", "name": "Find recipe", "description": "Finds recipes",
     "tags": ["cooking", "recipes"], "examples": ["I need a recipe for bread"]},
    {"id": "plan-meals", "name": "Plan meals", "description": "Weekly plans", "tags": []}
  ],
  "registrations": [
    {"agentId": 12345, "agentAddress": "eip155:1:)" +
                          kOwner.to_checksum_hex() + R"(",
     "signature": "0xabcdef"}
  ],
  "trustModels": ["feedback", "inference-validation", "tee-attestation"]
})";

TEST(verify_agent_card, skills_and_first_draft_extensions_are_extracted) {
    const auto card = parse(kCard);
    ASSERT_TRUE(card) << card.error().detail;
    EXPECT_EQ(card->name, "Recipe Agent");
    EXPECT_EQ(card->protocol_version, "0.3.0");
    ASSERT_EQ(card->skills.size(), 2U);
    EXPECT_EQ(card->skills[0].id, "find-recipe");
    EXPECT_EQ(card->skills[0].tags, (std::vector<std::string>{"cooking", "recipes"}));
    EXPECT_EQ(card->skills[0].examples.size(), 1U);
    EXPECT_EQ(card->skills[1].id, "plan-meals");
    ASSERT_EQ(card->registrations.size(), 1U) << card->issues.size();
    EXPECT_EQ(card->registrations[0].agent_id, core::Uint256{12345});
    EXPECT_TRUE(card->registrations[0].has_signature);
    EXPECT_EQ(card->trust_models.size(), 3U);
    EXPECT_TRUE(card->issues.empty()) << card->issues.front().path;
}

TEST(verify_agent_card, first_draft_example_address_does_not_bind_without_a_valid_checksum) {
    // erc-8004-first-draft.md §Agent Card Structure writes 0x742d35Cc...bEb7 in mixed case that is
    // not its EIP-55 checksum; the eip155 CAIP-10 profile accepts only checksum or lowercase hex,
    // so the entry cannot name the owner even when the bytes are equal.
    const auto card = parse(R"({"registrations": [{"agentId": 12345,
        "agentAddress": "eip155:1:0x742d35Cc6634C0532925a3b844Bc9e7595f0bEb7"}]})");
    ASSERT_TRUE(card);
    ASSERT_EQ(card->registrations.size(), 1U);
    EXPECT_EQ(card_entry_binding(*card, 1, kRegistry.bytes, core::Uint256{12345}, kOwner, {}),
              CardBinding::none);
    const auto lower = parse(R"({"registrations": [{"agentId": 12345,
        "agentAddress": "eip155:1:)" +
                             kOwner.to_lower_hex() + R"("}]})");
    EXPECT_EQ(card_entry_binding(*lower, 1, kRegistry.bytes, core::Uint256{12345}, kOwner, {}),
              CardBinding::agent_address);
}

TEST(verify_agent_card, a2a_shape_departures_are_issues_not_failures) {
    const auto card = parse(R"({"name": 5, "skills": [{"name": "no id"}, 7,
        {"id": "ok", "name": "n", "description": "d", "tags": ["t", 1]}]})");
    ASSERT_TRUE(card);
    ASSERT_EQ(card->skills.size(), 1U);  // the skill without an id is skipped
    EXPECT_EQ(card->skills[0].id, "ok");
    EXPECT_EQ(card->skills[0].tags, std::vector<std::string>{"t"});
    auto has = [&](const std::string& path) {
        for (const auto& i : card->issues)
            if (i.path == path) return true;
        return false;
    };
    EXPECT_TRUE(has("/name"));
    EXPECT_TRUE(has("/description"));
    EXPECT_TRUE(has("/url"));
    EXPECT_TRUE(has("/skills/0/id"));
    EXPECT_TRUE(has("/skills/1"));
    EXPECT_TRUE(has("/skills/2/tags/1"));
}

TEST(verify_agent_card, bad_json_and_non_objects_fail) {
    EXPECT_EQ(parse("{").error().code, AgentCardError::not_json);
    EXPECT_EQ(parse(R"({"a":1,"a":2})").error().code, AgentCardError::not_json);
    EXPECT_EQ(parse("[1]").error().code, AgentCardError::not_an_object);
    // Depth is bounded (kAgentCardMaxDepth).
    std::string deep = R"({"x":)" + std::string(40, '[') + std::string(40, ']') + "}";
    EXPECT_EQ(parse(deep).error().code, AgentCardError::not_json);
}

TEST(verify_agent_card, first_draft_agent_address_binds_to_owner_or_wallet_on_this_chain) {
    const auto card = parse(kCard).value();
    EXPECT_EQ(card_entry_binding(card, 1, kRegistry.bytes, core::Uint256{12345}, kOwner, {}),
              CardBinding::agent_address);
    // The same address as agentWallet instead of owner.
    EXPECT_EQ(card_entry_binding(card, 1, kRegistry.bytes, core::Uint256{12345}, kWallet, kOwner),
              CardBinding::agent_address);
    // Another agentId, another chain, an address that is neither owner nor wallet: no binding.
    EXPECT_EQ(card_entry_binding(card, 1, kRegistry.bytes, core::Uint256{12346}, kOwner, {}),
              CardBinding::none);
    EXPECT_EQ(card_entry_binding(card, 59144, kRegistry.bytes, core::Uint256{12345}, kOwner, {}),
              CardBinding::none);
    EXPECT_EQ(card_entry_binding(card, 1, kRegistry.bytes, core::Uint256{12345}, kWallet, {}),
              CardBinding::none);
}

TEST(verify_agent_card, registration_file_style_entry_binds_by_agent_registry) {
    const auto card = parse(R"({"registrations": [{"agentId": 3, "agentRegistry": "eip155:1:)" +
                            kRegistry.to_checksum_hex() + R"("}]})")
                          .value();
    EXPECT_EQ(card_entry_binding(card, 1, kRegistry.bytes, core::Uint256{3}, kOwner, {}),
              CardBinding::agent_registry);
    EXPECT_EQ(card_entry_binding(card, 1, kRegistry.bytes, core::Uint256{4}, kOwner, {}),
              CardBinding::none);
    EXPECT_EQ(card_entry_binding(card, 10, kRegistry.bytes, core::Uint256{3}, kOwner, {}),
              CardBinding::none);
}

}  // namespace
}  // namespace credence::verify
