#include <credence/cmd/revision_args.hpp>

#include <vector>

#include <fmt/core.h>

namespace credence::cmd {
namespace {

/// The suffix every revision's registry of one kind shares in deployment files.
std::string_view registry_suffix(core::Erc8004Registry registry) noexcept {
    switch (registry) {
        case core::Erc8004Registry::identity:
            return "IdentityRegistry";
        case core::Erc8004Registry::reputation:
            return "ReputationRegistry";
        case core::Erc8004Registry::validation:
            return "ValidationRegistry";
    }
    return "Registry";
}

/// "Identity Registry": the registry as the revisions' texts name their sections.
std::string registry_words(core::Erc8004Registry registry) {
    const std::string_view s = registry_suffix(registry);
    return fmt::format("{} Registry", s.substr(0, s.size() - 8));
}

}  // namespace

void add_revision_option(CLI::App& cmd, std::string& revision) {
    cmd.add_option("--revision", revision,
                   "ERC-8004 revision of the registry: current, score (intermediate) or draft "
                   "(first draft)")
        ->default_str("current");
}

core::Erc8004Revision parse_revision_arg(std::string_view text) {
    if (text.empty()) return core::Erc8004Revision::current;
    if (auto r = core::parse_erc8004_revision(text)) return *r;
    throw CliError(fmt::format(
        "--revision '{}': unknown ERC-8004 revision (expected current, score or draft)", text));
}

std::string_view revision_citation(core::Erc8004Revision revision) noexcept {
    switch (revision) {
        case core::Erc8004Revision::current:
            return "ERC-8004";
        case core::Erc8004Revision::score:
            return "ERC-8004 intermediate";
        case core::Erc8004Revision::draft:
            return "ERC-8004 first draft";
    }
    return "ERC-8004";
}

std::string_view revision_title(core::Erc8004Revision revision) noexcept {
    switch (revision) {
        case core::Erc8004Revision::current:
            return "the current revision";
        case core::Erc8004Revision::score:
            return "the intermediate revision";
        case core::Erc8004Revision::draft:
            return "the first draft";
    }
    return "this revision";
}

core::Address revision_registry(ChainContext& ctx, core::Erc8004Revision revision,
                                core::Erc8004Registry registry, std::string_view override_flag) {
    const std::string_view name = core::registry_contract_name(revision, registry);
    if (!override_flag.empty() || revision == core::Erc8004Revision::current)
        return ctx.contract(name, override_flag);
    const chain::Deployment* d = ctx.deployment(true);
    // The recorded revision decides, not the name alone: the usual name first, else the one
    // contract of this kind recorded with the revision.
    if (d->revision_of(name) == revision && d->contracts.contains(name))
        return d->contracts.find(name)->second;
    std::vector<std::string_view> found;
    for (const auto& [contract, r] : d->revisions) {
        if (r == revision && contract.ends_with(registry_suffix(registry)) &&
            d->contracts.contains(contract))
            found.push_back(contract);
    }
    if (found.size() == 1) return d->contracts.find(found.front())->second;
    if (found.size() > 1)
        throw CliError(fmt::format("the deployment records {} {}s of {}; pass --registry",
                                   found.size(), registry_words(registry),
                                   revision_title(revision)));
    throw CliError(fmt::format(
        "the deployment has no {} ({}'s {}); deploy it with `credence devnet --revisions all`, or "
        "pass --registry",
        name, revision_title(revision), registry_words(registry)));
}

void absent_in_revision(core::Erc8004Revision revision, std::string_view what,
                        std::string_view section, std::string_view hint) {
    throw CliError(fmt::format("{} has no {} ({} §{}){}{}", revision_title(revision), what,
                               revision_citation(revision), section, hint.empty() ? "" : "; ",
                               hint));
}

void require_revision_for_flag(core::Erc8004Revision revision, core::Erc8004Revision owner,
                               bool given, std::string_view flag) {
    if (!given || revision == owner) return;
    throw CliError(fmt::format("{} is a flag of {}: add --revision {}", flag, revision_title(owner),
                               core::to_string(owner)));
}

}  // namespace credence::cmd
