#include <credence/verify/rules/feedback_data.hpp>

#include <algorithm>
#include <array>
#include <charconv>

#include <fmt/format.h>

#include <credence/core/json.hpp>

namespace credence::verify {
namespace {

using core::IssueSeverity;
using core::JsonValue;

/// ERC-8004 first draft §Feedback Data Structure: the members the example object shows.
constexpr std::array<std::string_view, 7> kFeedbackDataMembers{
    "FeedbackAuthID", "AgentSkillId", "TaskId", "contextId", "Rating", "ProofOfPayment", "Data"};

/// An integer number literal (no fraction or exponent) in int64 range.
std::optional<int64_t> feedback_data_int(const JsonValue& v) {
    if (!v.is_number()) return std::nullopt;
    const core::JsonNumber& n = v.as_number();
    if (n.text.empty()) {
        if (!(n.value >= -9007199254740991.0 && n.value <= 9007199254740991.0) ||
            static_cast<double>(static_cast<int64_t>(n.value)) != n.value) {
            return std::nullopt;
        }
        return static_cast<int64_t>(n.value);
    }
    int64_t out = 0;
    const char* end = n.text.data() + n.text.size();
    const auto [ptr, ec] = std::from_chars(n.text.data(), end, out);
    if (ec != std::errc{} || ptr != end) return std::nullopt;
    return out;
}

class FeedbackDataReader {
public:
    explicit FeedbackDataReader(DraftFeedbackData& data) : data_(data) {}

    void run(const JsonValue& doc) {
        // §Feedback Data Structure: the file is a list of objects.
        if (!doc.is_array()) {
            error(FeedbackDataReason::not_a_list, "", "the file must be a list (JSON array)");
            return;
        }
        const auto& arr = doc.as_array();
        if (arr.empty()) {
            warning(FeedbackDataReason::empty_list, "", "the list holds no feedback");
        }
        for (size_t i = 0; i < arr.size(); ++i) entry(arr[i], i);
    }

private:
    void add(FeedbackDataReason reason, IssueSeverity severity, std::string path,
             std::string message) {
        data_.issues.push_back({reason, severity, std::move(path), std::move(message)});
    }
    void error(FeedbackDataReason reason, std::string path, std::string message) {
        add(reason, IssueSeverity::error, std::move(path), std::move(message));
    }
    void warning(FeedbackDataReason reason, std::string path, std::string message) {
        add(reason, IssueSeverity::warning, std::move(path), std::move(message));
    }

    /// An optional string member (AgentSkillId, TaskId, contextId: A2A names).
    bool text(const JsonValue& obj, std::string_view key, const std::string& base,
              std::optional<std::string>& out) {
        const JsonValue* v = obj.find(key);
        if (v == nullptr) return true;
        if (!v->is_string()) {
            error(FeedbackDataReason::wrong_json_type, base + "/" + core::json_pointer_token(key),
                  std::string(key) + " must be a string");
            return false;
        }
        out = v->as_string();
        return true;
    }

    /// An optional object member (ProofOfPayment, Data).
    bool object(const JsonValue& obj, std::string_view key, const std::string& base, bool& out) {
        const JsonValue* v = obj.find(key);
        if (v == nullptr) return true;
        if (!v->is_object()) {
            error(FeedbackDataReason::wrong_json_type, base + "/" + core::json_pointer_token(key),
                  std::string(key) + " must be an object");
            return false;
        }
        out = true;
        return true;
    }

    bool auth_id(const JsonValue& obj, const std::string& base, DraftFeedbackEntry& out) {
        const std::string path = base + "/FeedbackAuthID";
        const JsonValue* v = obj.find("FeedbackAuthID");
        if (v == nullptr) {
            error(FeedbackDataReason::missing_field, path, "FeedbackAuthID is mandatory");
            return false;
        }
        if (!v->is_string()) {
            error(FeedbackDataReason::wrong_json_type, path, "FeedbackAuthID must be a string");
            return false;
        }
        // §Feedback Data Structure: CAIP-10, the FeedbackAuthID as the account part.
        auto acc = core::parse_account_id(v->as_string());
        if (!acc) {
            error(FeedbackDataReason::bad_feedback_auth_id, path,
                  "not a CAIP-10 account id {namespace}:{reference}:{FeedbackAuthID}: " +
                      std::string(core::to_string(acc.error().code)));
            return false;
        }
        out.feedback_auth_id = *acc;
        // The AuthFeedback event's FeedbackAuthID is a bytes32: only 0x + 64 hex digits can name
        // one.
        const std::string& a = acc->address;
        if (a.size() == 66 && a.starts_with("0x")) {
            if (auto h = core::from_hex_fixed<32>(a)) out.auth_id = *h;
        }
        if (!out.auth_id) {
            warning(FeedbackDataReason::unmatchable_auth_id, path,
                    "the account part is not 0x + 64 hex digits, the FeedbackAuthID of an "
                    "AuthFeedback event");
        }
        return true;
    }

    void entry(const JsonValue& e, size_t position) {
        const std::string base = "/" + std::to_string(position);
        if (!e.is_object()) {
            error(FeedbackDataReason::not_an_object, base, "an entry must be an object");
            return;
        }
        DraftFeedbackEntry out;
        out.position = position;
        bool ok = auth_id(e, base, out);
        ok = text(e, "AgentSkillId", base, out.agent_skill_id) && ok;
        ok = text(e, "TaskId", base, out.task_id) && ok;
        ok = text(e, "contextId", base, out.context_id) && ok;
        if (const JsonValue* r = e.find("Rating"); r != nullptr) {
            // §Feedback Data Structure: Rating is an optional integer with no range given.
            out.rating = feedback_data_int(*r);
            if (!out.rating) {
                ok = false;
                error(FeedbackDataReason::bad_rating, base + "/Rating",
                      "Rating must be an integer number (no fraction or exponent) in int64 range");
            }
        }
        ok = object(e, "ProofOfPayment", base, out.has_proof_of_payment) && ok;
        ok = object(e, "Data", base, out.has_data) && ok;
        for (const auto& m : e.as_object()) {
            if (std::ranges::find(kFeedbackDataMembers, m.key) != kFeedbackDataMembers.end()) {
                continue;
            }
            warning(FeedbackDataReason::unknown_field, base + "/" + core::json_pointer_token(m.key),
                    "a member the first draft does not show");
        }
        if (ok) data_.entries.push_back(std::move(out));
    }

    DraftFeedbackData& data_;
};

/// The entry's FeedbackAuthID names an eip155 account on `chain_id`.
bool on_chain(const DraftFeedbackEntry& e, uint64_t chain_id) {
    const auto cid = core::eip155_chain_id(e.feedback_auth_id.chain);
    return cid && *cid == chain_id;
}

}  // namespace

std::string_view to_string(FeedbackDataError e) noexcept {
    switch (e) {
        case FeedbackDataError::not_json:
            return "not_json";
    }
    return "unknown";
}

std::string_view to_string(FeedbackDataReason r) noexcept {
    switch (r) {
        case FeedbackDataReason::not_a_list:
            return "not_a_list";
        case FeedbackDataReason::not_an_object:
            return "not_an_object";
        case FeedbackDataReason::missing_field:
            return "missing_field";
        case FeedbackDataReason::wrong_json_type:
            return "wrong_json_type";
        case FeedbackDataReason::bad_feedback_auth_id:
            return "bad_feedback_auth_id";
        case FeedbackDataReason::bad_rating:
            return "bad_rating";
        case FeedbackDataReason::unmatchable_auth_id:
            return "unmatchable_auth_id";
        case FeedbackDataReason::empty_list:
            return "empty_list";
        case FeedbackDataReason::unknown_field:
            return "unknown_field";
        case FeedbackDataReason::not_authorized:
            return "not_authorized";
        case FeedbackDataReason::other_chain:
            return "other_chain";
    }
    return "unknown";
}

size_t match_authorizations(DraftFeedbackData& data, uint64_t chain_id,
                            std::span<const core::Hash32> authorized) {
    size_t matched = 0;
    for (const DraftFeedbackEntry& e : data.entries) {
        if (!e.auth_id) continue;  // unmatchable_auth_id says why already
        const std::string path = "/" + std::to_string(e.position) + "/FeedbackAuthID";
        const core::ChainId& on = e.feedback_auth_id.chain;
        if (!on_chain(e, chain_id)) {
            data.issues.push_back({FeedbackDataReason::other_chain, IssueSeverity::warning, path,
                                   fmt::format("a FeedbackAuthID of {}:{}, not of this chain "
                                               "(eip155:{}): not matched here",
                                               on.chain_namespace, on.reference, chain_id)});
            continue;
        }
        if (std::ranges::find(authorized, *e.auth_id) != authorized.end()) {
            ++matched;
            continue;
        }
        data.issues.push_back({FeedbackDataReason::not_authorized, IssueSeverity::error, path,
                               "no AuthFeedback on this chain gave this client that "
                               "FeedbackAuthID: the feedback was not pre-authorized"});
    }
    return matched;
}

bool DraftFeedbackData::ok() const noexcept { return error_count() == 0; }

size_t DraftFeedbackData::error_count() const noexcept {
    return static_cast<size_t>(std::ranges::count_if(
        issues, [](const FeedbackDataIssue& i) { return i.severity == IssueSeverity::error; }));
}

core::Result<DraftFeedbackData, FeedbackDataError> parse_draft_feedback_data(core::ByteView body) {
    core::ParseLimits limits;
    limits.max_depth = kFeedbackDataMaxDepth;
    auto doc = core::parse_json(body, limits);
    if (!doc) {
        return core::fail(FeedbackDataError::not_json,
                          std::string(core::to_string(doc.error().code)) +
                              (doc.error().detail.empty() ? "" : ": " + doc.error().detail));
    }
    DraftFeedbackData data;
    FeedbackDataReader(data).run(*doc);
    return data;
}

std::vector<size_t> entries_for_auth(const DraftFeedbackData& data, uint64_t chain_id,
                                     const core::Hash32& auth_id) {
    std::vector<size_t> out;
    for (size_t i = 0; i < data.entries.size(); ++i) {
        const DraftFeedbackEntry& e = data.entries[i];
        if (on_chain(e, chain_id) && e.auth_id && *e.auth_id == auth_id) out.push_back(i);
    }
    return out;
}

}  // namespace credence::verify
