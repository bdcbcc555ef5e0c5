#include <credence/trust/summary.hpp>

#include <algorithm>
#include <array>
#include <variant>

#include <credence/index/indexer.hpp>
#include <credence/index/row.hpp>

namespace credence::trust {
namespace {

using core::Int256;

constexpr uint8_t kMaxDecimals = 18;

// 10^n for n <= 18 fits int64.
Int256 pow10(unsigned n) {
    int64_t out = 1;
    for (unsigned i = 0; i < n && i < kMaxDecimals; ++i) out *= 10;
    return Int256(out);
}

/// Solidity's unchecked `int128(x)` of an int256: the low 128 bits, sign-extended.
Int256 wrap_to_int128(const Int256& x) {
    core::Uint256 bits = x.bits;
    const uint64_t fill = (bits.limbs[1] >> 63) != 0 ? ~0ULL : 0;
    bits.limbs[2] = fill;
    bits.limbs[3] = fill;
    return Int256(bits);
}

bool listed(std::span<const core::Address> list, const core::Address& a) {
    return std::find(list.begin(), list.end(), a) != list.end();
}

using index::blob_at;
using index::int_at;
using index::text_at;

}  // namespace

std::string_view to_string(SummaryError e) noexcept {
    switch (e) {
        case SummaryError::client_addresses_required:
            return "client_addresses_required";
        case SummaryError::summary_overflow:
            return "summary_overflow";
        case SummaryError::bad_entry:
            return "bad_entry";
    }
    return "unknown";
}

std::string_view to_string(SummaryRules r) noexcept {
    switch (r) {
        case SummaryRules::credence:
            return "credence";
        case SummaryRules::erc8004_v2:
            return "erc8004-v2";
    }
    return "unknown";
}

std::optional<SummaryRules> parse_summary_rules(std::string_view text) noexcept {
    if (text == "credence") return SummaryRules::credence;
    if (text == "erc8004-v2") return SummaryRules::erc8004_v2;
    return std::nullopt;
}

std::optional<SummaryRules> known_summary_rules(uint64_t chain_id,
                                                const core::Address& reputation_registry) {
    for (const auto& source : index::default_erc8004_sources(chain_id)) {
        if (source.kind == index::ContractKind::reputation_registry &&
            source.address == reputation_registry) {
            return SummaryRules::erc8004_v2;
        }
    }
    return std::nullopt;
}

core::Result<ReputationSummary, SummaryError> reputation_summary(
    std::span<const FeedbackEntry> feedback, std::span<const core::Address> clients,
    std::string_view tag1, std::string_view tag2, SummaryRules rules) {
    // ERC-8004 §Reputation Registry: "clientAddresses MUST be provided (non-empty)".
    if (clients.empty()) {
        return core::fail(SummaryError::client_addresses_required,
                          "getSummary needs at least one client address");
    }
    // How often each client is counted: once (Credence dedups the list), or as often as it is
    // listed (the deployed v2.0.0 loop reads a client's feedback again for each occurrence).
    std::vector<core::Address> sorted(clients.begin(), clients.end());
    std::sort(sorted.begin(), sorted.end());
    const auto times_counted = [&](const core::Address& client) -> uint64_t {
        const auto [lo, hi] = std::equal_range(sorted.begin(), sorted.end(), client);
        if (lo == hi) return 0;
        return rules == SummaryRules::credence ? 1 : static_cast<uint64_t>(hi - lo);
    };

    Int256 sum;
    std::array<uint64_t, kMaxDecimals + 1> decimal_counts{};
    uint64_t count = 0;
    for (const FeedbackEntry& f : feedback) {
        if (f.revoked) continue;
        const uint64_t times = times_counted(f.client);
        if (times == 0) continue;
        if (!tag1.empty() && f.tag1 != tag1) continue;
        if (!tag2.empty() && f.tag2 != tag2) continue;
        if (f.value_decimals > kMaxDecimals) {
            return core::fail(SummaryError::bad_entry, "valueDecimals above 18");
        }
        const auto scaled = Int256::checked_mul(f.value, pow10(kMaxDecimals - f.value_decimals));
        for (uint64_t i = 0; i < times; ++i) {
            auto next = scaled ? Int256::checked_add(sum, *scaled) : std::nullopt;
            if (!next) return core::fail(SummaryError::summary_overflow, "int256 sum overflows");
            sum = *next;
        }
        decimal_counts[f.value_decimals] += times;
        count += times;
    }
    if (count == 0) return ReputationSummary{};
    // The mode of the decimals; a strict '>' keeps the smallest on a tie, as both contracts do.
    uint8_t decimals = 0;
    uint64_t best = 0;
    for (uint8_t d = 0; d <= kMaxDecimals; ++d) {
        if (decimal_counts[d] > best) {
            best = decimal_counts[d];
            decimals = d;
        }
    }
    const auto mean = Int256::checked_div(sum, Int256(static_cast<int64_t>(count)));
    const auto avg = mean ? Int256::checked_div(*mean, pow10(kMaxDecimals - decimals)) : mean;
    if (!avg) return core::fail(SummaryError::summary_overflow, "average outside int256");
    if (rules == SummaryRules::erc8004_v2) {
        return ReputationSummary{count, wrap_to_int128(*avg), decimals};
    }
    if (!avg->fits_bits(128)) {
        return core::fail(SummaryError::summary_overflow, "average outside int128");
    }
    return ReputationSummary{count, *avg, decimals};
}

ValidationSummary validation_summary(std::span<const ValidationEntry> requests,
                                     std::span<const core::Address> validators,
                                     std::string_view tag) {
    uint64_t total = 0;
    uint64_t count = 0;
    for (const ValidationEntry& v : requests) {
        if (!v.has_response) continue;
        if (!validators.empty() && !listed(validators, v.validator)) continue;
        if (!tag.empty() && v.tag != tag) continue;
        total += v.response;
        ++count;
    }
    if (count == 0) return {};
    return ValidationSummary{count, static_cast<uint8_t>(total / count)};
}

index::DbResult<std::vector<FeedbackEntry>> load_feedback(index::Database& db, uint64_t chain_id,
                                                          const core::Address& registry,
                                                          const core::Bytes& agent_id) {
    return index::read_agent_feedback(db, chain_id, registry, agent_id);
}

index::DbResult<std::vector<ValidationEntry>> load_validations(index::Database& db,
                                                               uint64_t chain_id,
                                                               const core::Address& registry,
                                                               const core::Bytes& agent_id) {
    const std::array<index::DbValue, 3> params{
        static_cast<int64_t>(chain_id), core::Bytes(registry.bytes.begin(), registry.bytes.end()),
        agent_id};
    auto rows = db.query(
        "SELECT validator, response, response_tag FROM validation_requests WHERE chain_id = $1 "
        "AND registry = $2 AND agent_id = $3 ORDER BY request_hash",
        params);
    if (!rows) return std::unexpected(rows.error());
    std::vector<ValidationEntry> out;
    out.reserve(rows->size());
    for (const index::DbRow& row : *rows) {
        const core::Bytes* validator = blob_at(row, 0);
        if (validator == nullptr)
            return std::unexpected(index::unreadable("trust", "validation row"));
        auto address = core::Address::from_bytes(*validator);
        if (!address) return std::unexpected(index::unreadable("trust", "validator"));
        ValidationEntry entry;
        entry.validator = *address;
        if (const int64_t* response = int_at(row, 1); response != nullptr) {
            if (*response < 0 || *response > 100)
                return std::unexpected(index::unreadable("trust", "response"));
            entry.has_response = true;
            entry.response = static_cast<uint8_t>(*response);
        }
        if (const std::string* tag = text_at(row, 2); tag != nullptr) entry.tag = *tag;
        out.push_back(std::move(entry));
    }
    return out;
}

}  // namespace credence::trust
