#include <credence/trust/legacy_summary.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace credence::trust {

core::Result<ScoreSummary, ScoreSummaryError> score_summary(
    std::span<const index::FeedbackEntry> feedback, std::span<const core::Address> clients,
    std::string_view tag1, std::string_view tag2) {
    // Every client in the order of its first feedback, as the registry's _clients list.
    std::vector<core::Address> all;
    if (clients.empty()) {
        for (const auto& f : feedback) {
            if (std::find(all.begin(), all.end(), f.client) == all.end()) all.push_back(f.client);
        }
        clients = all;
    }
    uint64_t total = 0;
    uint64_t count = 0;
    for (const core::Address& client : clients) {
        for (const auto& f : feedback) {
            if (f.client != client || f.revoked) continue;
            if (!tag1.empty() && f.tag1 != tag1) continue;
            if (!tag2.empty() && f.tag2 != tag2) continue;
            // ERC-8004 intermediate §Giving Feedback: a score is 0..100 (the indexer stores it as
            // value = score, valueDecimals = 0).
            if (f.value_decimals != 0 || f.value.is_negative() || !f.value.bits.fits_u64() ||
                f.value.bits.limbs[0] > 100) {
                return core::fail(ScoreSummaryError::not_a_score,
                                  "feedback " + std::to_string(f.feedback_index) + " of " +
                                      client.to_checksum_hex() + " is not a score 0..100");
            }
            total += f.value.bits.limbs[0];
            ++count;
        }
    }
    if (count == 0) return ScoreSummary{};
    return ScoreSummary{count, static_cast<uint8_t>(total / count)};
}

}  // namespace credence::trust
