// Names of the contract kinds, as written in config files, the raw_logs.kind column's comments,
// logs and `credence index status`: "identity", "reputation", "validation", "tool", "workflow",
// "verifier", and the earlier ERC-8004 revisions' "<registry>-score" / "<registry>-draft"
// (sources.hpp).
#include <credence/index/sources.hpp>

#include <array>
#include <utility>

namespace credence::index {
namespace {

constexpr std::array<std::pair<ContractKind, std::string_view>, 12> kKindNames{{
    {ContractKind::identity_registry, "identity"},
    {ContractKind::reputation_registry, "reputation"},
    {ContractKind::validation_registry, "validation"},
    {ContractKind::tool_registry, "tool"},
    {ContractKind::workflow, "workflow"},
    {ContractKind::agent_verifier, "verifier"},
    {ContractKind::identity_score, "identity-score"},
    {ContractKind::reputation_score, "reputation-score"},
    {ContractKind::validation_score, "validation-score"},
    {ContractKind::identity_draft, "identity-draft"},
    {ContractKind::reputation_draft, "reputation-draft"},
    {ContractKind::validation_draft, "validation-draft"},
}};

using core::Erc8004Registry;
using core::Erc8004Revision;

// [revision][registry] -> kind, in the enums' order.
constexpr std::array<std::array<ContractKind, 3>, 3> kErc8004Kinds{{
    {ContractKind::identity_registry, ContractKind::reputation_registry,
     ContractKind::validation_registry},
    {ContractKind::identity_score, ContractKind::reputation_score, ContractKind::validation_score},
    {ContractKind::identity_draft, ContractKind::reputation_draft, ContractKind::validation_draft},
}};

}  // namespace

std::string_view to_string(ContractKind kind) noexcept {
    for (const auto& [k, name] : kKindNames) {
        if (k == kind) return name;
    }
    return "unknown";
}

std::optional<ContractKind> parse_contract_kind(std::string_view text) noexcept {
    for (const auto& [k, name] : kKindNames) {
        if (name == text) return k;
    }
    return std::nullopt;
}

std::optional<Erc8004Kind> erc8004_kind(ContractKind kind) noexcept {
    for (size_t r = 0; r < kErc8004Kinds.size(); ++r) {
        for (size_t k = 0; k < kErc8004Kinds[r].size(); ++k) {
            if (kErc8004Kinds[r][k] == kind) {
                return Erc8004Kind{static_cast<Erc8004Registry>(k),
                                   static_cast<Erc8004Revision>(r)};
            }
        }
    }
    return std::nullopt;
}

ContractKind erc8004_contract_kind(Erc8004Registry registry, Erc8004Revision revision) noexcept {
    const auto r = static_cast<size_t>(revision);
    const auto k = static_cast<size_t>(registry);
    if (r >= kErc8004Kinds.size() || k >= kErc8004Kinds[r].size()) {
        return ContractKind::identity_registry;
    }
    return kErc8004Kinds[r][k];
}

std::optional<std::pair<size_t, size_t>> repeated_address(
    const std::vector<RegistrySource>& sources) {
    const auto same_registry = [](ContractKind a, ContractKind b) {
        const auto x = erc8004_kind(a);
        const auto y = erc8004_kind(b);
        return x && y && x->registry == y->registry;
    };
    for (size_t i = 0; i < sources.size(); ++i) {
        for (size_t j = 0; j < i; ++j) {
            if (sources[j].address != sources[i].address) continue;
            if (sources[j].kind == sources[i].kind ||
                same_registry(sources[j].kind, sources[i].kind))
                return std::pair{j, i};
        }
    }
    return std::nullopt;
}

}  // namespace credence::index
