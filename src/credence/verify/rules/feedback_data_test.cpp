// The first draft's FeedbackDataURI file (ERC-8004 first draft §Feedback Data Structure): one
// test per rule, each bad case on its own.
#include <credence/verify/rules/feedback_data.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace credence::verify {
namespace {

const std::string kAuth = "0x" + std::string(62, '0') + "2a";

core::Result<DraftFeedbackData, FeedbackDataError> parse_data(const std::string& s) {
    return parse_draft_feedback_data(
        core::ByteView(reinterpret_cast<const uint8_t*>(s.data()), s.size()));
}

DraftFeedbackData data_of(const std::string& s) {
    auto d = parse_data(s);
    EXPECT_TRUE(d) << (d ? "" : d.error().detail);
    return d ? *d : DraftFeedbackData{};
}

bool has_issue(const DraftFeedbackData& d, FeedbackDataReason reason, const std::string& path,
               core::IssueSeverity severity) {
    for (const auto& i : d.issues) {
        if (i.reason == reason && i.path == path && i.severity == severity) return true;
    }
    return false;
}

// The draft's example object, twice for one task (multidimensional feedback).
TEST(verify_draft_feedback_data, good_file_with_every_member) {
    const DraftFeedbackData d = data_of(R"([
      {"FeedbackAuthID": "eip155:1:)" + kAuth +
                                        R"(", "AgentSkillId": "find-recipe",
       "TaskId": "task-1", "contextId": "ctx-1", "Rating": 95, "ProofOfPayment": {},
       "Data": {"dimension": "speed"}},
      {"FeedbackAuthID": "eip155:1:)" + kAuth +
                                        R"(", "Rating": -3}
    ])");
    EXPECT_TRUE(d.ok());
    EXPECT_TRUE(d.issues.empty());
    ASSERT_EQ(d.entries.size(), 2U);
    EXPECT_EQ(d.entries[0].agent_skill_id, "find-recipe");
    EXPECT_EQ(d.entries[0].task_id, "task-1");
    EXPECT_EQ(d.entries[0].context_id, "ctx-1");
    EXPECT_EQ(d.entries[0].rating, 95);
    EXPECT_TRUE(d.entries[0].has_proof_of_payment);
    EXPECT_TRUE(d.entries[0].has_data);
    EXPECT_EQ(d.entries[1].rating, -3);  // the draft gives no range
    core::Hash32 auth{};
    auth[31] = 0x2a;
    EXPECT_EQ(entries_for_auth(d, 1, auth), (std::vector<size_t>{0, 1}));
    EXPECT_TRUE(entries_for_auth(d, 2, auth).empty());
}

// "a JSON file containing a list of objects".
TEST(verify_draft_feedback_data, top_level_must_be_a_list_of_objects) {
    EXPECT_TRUE(
        has_issue(data_of("{}"), FeedbackDataReason::not_a_list, "", core::IssueSeverity::error));
    EXPECT_TRUE(has_issue(data_of("[1]"), FeedbackDataReason::not_an_object, "/0",
                          core::IssueSeverity::error));
    EXPECT_TRUE(
        has_issue(data_of("[]"), FeedbackDataReason::empty_list, "", core::IssueSeverity::warning));
    auto bad = parse_data("[");
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().code, FeedbackDataError::not_json);
}

// "FeedbackAuthID": Mandatory, CAIP-10 format.
TEST(verify_draft_feedback_data, feedback_auth_id_is_mandatory_caip10) {
    const DraftFeedbackData d = data_of(R"([{"Rating": 1}, {"FeedbackAuthID": 5},
        {"FeedbackAuthID": "not-caip"}, {"FeedbackAuthID": "eip155:1:task-7"}])");
    EXPECT_TRUE(has_issue(d, FeedbackDataReason::missing_field, "/0/FeedbackAuthID",
                          core::IssueSeverity::error));
    EXPECT_TRUE(has_issue(d, FeedbackDataReason::wrong_json_type, "/1/FeedbackAuthID",
                          core::IssueSeverity::error));
    EXPECT_TRUE(has_issue(d, FeedbackDataReason::bad_feedback_auth_id, "/2/FeedbackAuthID",
                          core::IssueSeverity::error));
    // CAIP-10 but not a bytes32: kept, and it can match no AuthFeedback.
    EXPECT_TRUE(has_issue(d, FeedbackDataReason::unmatchable_auth_id, "/3/FeedbackAuthID",
                          core::IssueSeverity::warning));
    ASSERT_EQ(d.entries.size(), 1U);
    EXPECT_FALSE(d.entries[0].auth_id);
}

// AgentSkillId, TaskId, contextId: strings; ProofOfPayment, Data: objects.
TEST(verify_draft_feedback_data, optional_members_have_their_types) {
    const std::string id = R"("FeedbackAuthID": "eip155:1:)" + kAuth + R"(")";
    const DraftFeedbackData d =
        data_of("[{" + id + R"(, "AgentSkillId": 1}, {)" + id + R"(, "TaskId": null}, {)" + id +
                R"(, "contextId": []}, {)" + id + R"(, "ProofOfPayment": "0x12"}, {)" + id +
                R"(, "Data": [1]}])");
    EXPECT_TRUE(has_issue(d, FeedbackDataReason::wrong_json_type, "/0/AgentSkillId",
                          core::IssueSeverity::error));
    EXPECT_TRUE(
        has_issue(d, FeedbackDataReason::wrong_json_type, "/1/TaskId", core::IssueSeverity::error));
    EXPECT_TRUE(has_issue(d, FeedbackDataReason::wrong_json_type, "/2/contextId",
                          core::IssueSeverity::error));
    EXPECT_TRUE(has_issue(d, FeedbackDataReason::wrong_json_type, "/3/ProofOfPayment",
                          core::IssueSeverity::error));
    EXPECT_TRUE(
        has_issue(d, FeedbackDataReason::wrong_json_type, "/4/Data", core::IssueSeverity::error));
    EXPECT_TRUE(d.entries.empty());
}

// "Rating": 95, "Optional, Int".
TEST(verify_draft_feedback_data, rating_must_be_an_integer) {
    for (const char* r : {"9.5", "\"95\"", "1e2", "true", "99999999999999999999"}) {
        SCOPED_TRACE(r);
        const DraftFeedbackData d =
            data_of(R"([{"FeedbackAuthID": "eip155:1:)" + kAuth + R"(", "Rating": )" + r + "}]");
        EXPECT_TRUE(
            has_issue(d, FeedbackDataReason::bad_rating, "/0/Rating", core::IssueSeverity::error));
        EXPECT_TRUE(d.entries.empty());
    }
}

// Objects "like the following": other members are allowed, and named.
TEST(verify_draft_feedback_data, unknown_member_is_a_warning) {
    const DraftFeedbackData d =
        data_of(R"([{"FeedbackAuthID": "eip155:1:)" + kAuth + R"(", "rating": 5, "a/b": 1}])");
    EXPECT_TRUE(d.ok());
    EXPECT_EQ(d.entries.size(), 1U);
    EXPECT_TRUE(
        has_issue(d, FeedbackDataReason::unknown_field, "/0/rating", core::IssueSeverity::warning));
    EXPECT_TRUE(
        has_issue(d, FeedbackDataReason::unknown_field, "/0/a~1b", core::IssueSeverity::warning));
}

// ERC-8004 first draft §Feedback Registry: feedback is pre-authorized by the server's
// AcceptFeedback, whose AuthFeedback event carries the FeedbackAuthID. An entry of this chain
// naming no authorization of the client is an error; one of another chain is only a warning.
TEST(verify_draft_feedback_data, entries_are_matched_to_the_clients_authorizations) {
    const std::string other = "0x" + std::string(62, '0') + "2b";
    DraftFeedbackData d = data_of(R"([
      {"FeedbackAuthID": "eip155:31337:)" +
                                  kAuth + R"(", "Rating": 90},
      {"FeedbackAuthID": "eip155:31337:)" +
                                  kAuth + R"(", "Rating": 80},
      {"FeedbackAuthID": "eip155:31337:)" +
                                  other + R"("},
      {"FeedbackAuthID": "eip155:1:)" +
                                  kAuth + R"("},
      {"FeedbackAuthID": "eip155:31337:not-a-hash"}
    ])");
    ASSERT_TRUE(d.ok());
    core::Hash32 auth{};
    auth[31] = 0x2a;
    const std::vector<core::Hash32> authorized{auth};
    EXPECT_EQ(match_authorizations(d, 31337, authorized), 2U);
    EXPECT_FALSE(d.ok());
    EXPECT_EQ(d.error_count(), 1U);
    EXPECT_TRUE(has_issue(d, FeedbackDataReason::not_authorized, "/2/FeedbackAuthID",
                          core::IssueSeverity::error));
    EXPECT_TRUE(has_issue(d, FeedbackDataReason::other_chain, "/3/FeedbackAuthID",
                          core::IssueSeverity::warning));
    EXPECT_TRUE(has_issue(d, FeedbackDataReason::unmatchable_auth_id, "/4/FeedbackAuthID",
                          core::IssueSeverity::warning));

    // A client with no authorization at all: every entry of this chain is unauthorized.
    DraftFeedbackData none = data_of(R"([{"FeedbackAuthID": "eip155:31337:)" + kAuth + R"("}])");
    EXPECT_EQ(match_authorizations(none, 31337, {}), 0U);
    EXPECT_TRUE(has_issue(none, FeedbackDataReason::not_authorized, "/0/FeedbackAuthID",
                          core::IssueSeverity::error));
}

}  // namespace
}  // namespace credence::verify
