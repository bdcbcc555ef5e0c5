#include <credence/core/erc8004_revision.hpp>

#include <array>

namespace credence::core {
namespace {

constexpr std::array<std::string_view, 3> kRevisionWords{"current", "score", "draft"};

// [revision][registry], in the enums' order.
constexpr std::array<std::array<std::string_view, 3>, 3> kRegistryNames{{
    {"IdentityRegistry", "ReputationRegistry", "ValidationRegistry"},
    {"ScoreIdentityRegistry", "ScoreReputationRegistry", "ScoreValidationRegistry"},
    {"DraftIdentityRegistry", "DraftReputationRegistry", "DraftValidationRegistry"},
}};

}  // namespace

std::string_view to_string(Erc8004Revision revision) noexcept {
    const auto i = static_cast<size_t>(revision);
    return i < kRevisionWords.size() ? kRevisionWords[i] : "unknown";
}

std::optional<Erc8004Revision> parse_erc8004_revision(std::string_view text) noexcept {
    for (size_t i = 0; i < kRevisionWords.size(); ++i) {
        if (kRevisionWords[i] == text) return static_cast<Erc8004Revision>(i);
    }
    return std::nullopt;
}

std::string_view registry_contract_name(Erc8004Revision revision,
                                        Erc8004Registry registry) noexcept {
    const auto r = static_cast<size_t>(revision);
    const auto k = static_cast<size_t>(registry);
    if (r >= kRegistryNames.size() || k >= kRegistryNames[r].size()) return {};
    return kRegistryNames[r][k];
}

}  // namespace credence::core
