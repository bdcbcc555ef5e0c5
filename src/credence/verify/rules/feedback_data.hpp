// The first ERC-8004 draft's feedback file: the JSON a client agent's FeedbackDataURI points to
// (docs/formats.md §ERC-8004 first draft).
//
// ERC-8004 first draft §Feedback Data Structure: the Agent Card of a client that gives feedback
// must carry a FeedbackDataURI, the URL of a JSON list of objects with FeedbackAuthID (mandatory,
// CAIP-10 with the FeedbackAuthID as its account part), and the optional AgentSkillId, TaskId,
// contextId (strings, A2A names), Rating (an integer), ProofOfPayment and Data (objects). Several
// entries may share a FeedbackAuthID (one task rated on several dimensions), so repeats are
// normal, not duplicates.
//
// parse_draft_feedback_data() reads the file and reports every departure as an Issue with a
// reason, an RFC 6901 JSON Pointer and a message. Severity:
//   - error: the top level is not an array, an entry is not an object, FeedbackAuthID is missing
//     or not CAIP-10, a member has the wrong JSON type, a Rating is not an integer (int64);
//   - warning: an empty list, a member the draft does not show (the draft gives the objects as an
//     example, so more members are not forbidden), a FeedbackAuthID whose account part is
//     not the 32-byte hex that the draft's AuthFeedback event carries (it cannot name an
//     on-chain authorization).
// The draft gives Rating no range (the example is 95), so none is enforced. An entry with an error
// is not kept. Pure, thread-safe, no I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <credence/core/bytes.hpp>
#include <credence/core/caip.hpp>
#include <credence/core/error.hpp>
#include <credence/core/registration_file.hpp>

namespace credence::verify {

enum class FeedbackDataError {
    not_json,  ///< not strict JSON, or nested deeper than kFeedbackDataMaxDepth
};
[[nodiscard]] std::string_view to_string(FeedbackDataError e) noexcept;

inline constexpr size_t kFeedbackDataMaxDepth = 64;

enum class FeedbackDataReason {
    not_a_list,            ///< the top level is not an array (error)
    not_an_object,         ///< an entry is not an object (error)
    missing_field,         ///< FeedbackAuthID is absent (error)
    wrong_json_type,       ///< a member has the wrong JSON type (error)
    bad_feedback_auth_id,  ///< FeedbackAuthID is not a CAIP-10 account id (error)
    bad_rating,            ///< Rating is not an integer in int64 range (error)
    unmatchable_auth_id,   ///< the account part is not a 32-byte hex FeedbackAuthID (warning)
    empty_list,            ///< the list holds no entry (warning)
    unknown_field,         ///< a member the draft does not show (warning)
    // Set by the verifier, which knows the chain's AuthFeedback events (match_authorizations):
    not_authorized,  ///< no AuthFeedback on this chain gave the client this FeedbackAuthID (error)
    other_chain,     ///< the FeedbackAuthID is another chain's: not matched here (warning)
};
[[nodiscard]] std::string_view to_string(FeedbackDataReason r) noexcept;

using FeedbackDataIssue = core::Issue<FeedbackDataReason>;

/// One entry of the list, as the draft names its members.
struct DraftFeedbackEntry {
    size_t position = 0;               ///< its index in the file's list
    core::AccountId feedback_auth_id;  ///< "eip155:1:{FeedbackAuthID}"
    /// The FeedbackAuthID of the AuthFeedback event, when the account part is 0x + 64 hex.
    std::optional<core::Hash32> auth_id;
    std::optional<std::string> agent_skill_id;
    std::optional<std::string> task_id;
    std::optional<std::string> context_id;
    std::optional<int64_t> rating;
    bool has_proof_of_payment = false;
    bool has_data = false;
};

struct DraftFeedbackData {
    std::vector<DraftFeedbackEntry> entries;
    std::vector<FeedbackDataIssue> issues;
    [[nodiscard]] bool ok() const noexcept;
    [[nodiscard]] size_t error_count() const noexcept;
};

/// ERC-8004 first draft §Feedback Registry: a server agent pre-authorizes its client with
/// AcceptFeedback, whose AuthFeedback event carries the FeedbackAuthID. Adds to `data` an error
/// for each entry naming a FeedbackAuthID of `chain_id` that is not in `authorized` (the client's
/// AuthFeedback ids on that chain) and a warning for each naming another chain; returns how many
/// entries name an authorized one.
size_t match_authorizations(DraftFeedbackData& data, uint64_t chain_id,
                            std::span<const core::Hash32> authorized);

/// Parses a FeedbackDataURI file. Fails only when the bytes are not JSON.
[[nodiscard]] core::Result<DraftFeedbackData, FeedbackDataError> parse_draft_feedback_data(
    core::ByteView body);

/// The entries about one authorization: FeedbackAuthID "eip155:<chain_id>:0x<auth_id>" (several
/// for multidimensional feedback). Indexes into data.entries.
[[nodiscard]] std::vector<size_t> entries_for_auth(const DraftFeedbackData& data, uint64_t chain_id,
                                                   const core::Hash32& auth_id);

}  // namespace credence::verify
