// Names of the contract kinds, as written in config files, the raw_logs.kind column's comments,
// logs and `credence index status`: "identity", "reputation", "validation", "tool", "workflow",
// "verifier" (sources.hpp).
#include <credence/index/sources.hpp>

#include <array>
#include <utility>

namespace credence::index {
namespace {

constexpr std::array<std::pair<ContractKind, std::string_view>, 6> kKindNames{{
    {ContractKind::identity_registry, "identity"},
    {ContractKind::reputation_registry, "reputation"},
    {ContractKind::validation_registry, "validation"},
    {ContractKind::tool_registry, "tool"},
    {ContractKind::workflow, "workflow"},
    {ContractKind::agent_verifier, "verifier"},
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

std::optional<std::pair<size_t, size_t>> repeated_address(
    const std::vector<RegistrySource>& sources) {
    for (size_t i = 0; i < sources.size(); ++i) {
        for (size_t j = 0; j < i; ++j) {
            if (sources[j].address == sources[i].address && sources[j].kind == sources[i].kind)
                return std::pair{j, i};
        }
    }
    return std::nullopt;
}

}  // namespace credence::index
