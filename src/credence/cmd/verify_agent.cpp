// `credence verify agent` and `credence verify resolve` (docs/architecture.md §verify/).
//
//   verify agent <agentId> [--registry ADDR] [--no-domains] [--no-card] [chain flags] [fetch flags]
//       reads ownerOf, tokenURI and getAgentWallet from the IdentityRegistry, fetches the agentURI,
//       validates the registration file, matches its registrations[] against the on-chain
//       agentRegistry and agentId, verifies every HTTPS endpoint-domain (well-known file or the
//       same-domain shortcut) and fetches each A2A agent card
//       (verify/verifiers/registration_verifier.hpp).
//   verify agent --revision score|draft <agentId> [--registry ADDR] [chain flags] [fetch flags]
//       a first-draft agent: reads getAgent from the DraftIdentityRegistry, fetches
//       https://{AgentDomain}/.well-known/agent-card.json and looks for a `registrations` entry
//       naming this agentId and AgentAddress on this chain
//       (verify/verifiers/draft_agent_verifier.hpp).
//   verify resolve address <address> [--database PATH|URL] [--chain-id N] [--registry ADDR]
//       first draft ResolveByAddress, from the index: agents whose owner or agentWallet it is.
//   verify resolve domain <domain> [--database PATH|URL] [--chain-id N] [--registry ADDR]
//                         [fetch flags]
//       first draft ResolveByDomain: verifies the index's agents (concurrently) and lists those
//       for which the domain is verified.
//
// Output: plain text one value per line, or --json the whole report. `verify agent` exits 0 for
// verified, unverified and unreachable agents alike (the status says which); errors reading the
// chain or the index are one line and exit 1.
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <credence/chain/deployment.hpp>
#include <credence/cmd/args.hpp>
#include <credence/cmd/chain_context.hpp>
#include <credence/cmd/commands.hpp>
#include <credence/cmd/index_database.hpp>
#include <credence/cmd/revision_args.hpp>
#include <credence/cmd/verify.hpp>
#include <credence/core/erc8004_revision.hpp>
#include <credence/verify/verifiers/draft_agent_verifier.hpp>
#include <credence/verify/verifiers/registration_verifier.hpp>
#include <credence/verify/verifiers/resolver.hpp>

namespace credence::cmd {
namespace {

struct VerifyAgentArgs {
    ChainOptions chain;
    FetchArgs fetch;
    std::string registry;
    std::string agent_id;
    std::string revision = "current";
    bool no_domains = false;
    bool no_card = false;
};

struct ResolveArgs {
    bool json = false;
    FetchArgs fetch;
    std::string database;
    std::optional<uint64_t> chain_id;
    std::string registry;
    std::string key;  // the address or the domain
};

std::vector<std::string> domain_lines(const verify::AgentVerification& v) {
    std::vector<std::string> out;
    out.reserve(v.domains.size());
    for (const auto& d : v.domains) {
        out.push_back(fmt::format(
            "{} {}{}", d.domain.empty() ? d.endpoints.front() : d.domain,
            d.verified ? "verified" : "unverified",
            d.verified && d.reason == verify::DomainReason::verified
                ? std::string()
                : fmt::format(" ({}{})", verify::to_string(d.reason),
                              d.detail.empty() || d.verified ? std::string() : ": " + d.detail)));
    }
    return out;
}

std::vector<std::string> card_lines(const verify::AgentVerification& v) {
    std::vector<std::string> out;
    out.reserve(v.agent_cards.size());
    for (const auto& c : v.agent_cards) {
        if (!c.card) {
            out.push_back(fmt::format("{} not read: {}", c.url.empty() ? c.service_endpoint : c.url,
                                      c.detail));
            continue;
        }
        std::string skills;
        for (const auto& s : c.card->skills) skills += (skills.empty() ? "" : ",") + s.id;
        out.push_back(fmt::format("{} binding={} skills={}", c.url, verify::to_string(c.binding),
                                  skills.empty() ? "-" : skills));
    }
    return out;
}

// ERC-8004 first draft §Identity Registry, §Agent Card Structure: the card at the AgentDomain.
void run_verify_draft_agent(const VerifyAgentArgs& a, const core::Uint256& agent_id) {
    ChainContext ctx(a.chain);
    const core::Address registry = ctx.contract(
        core::registry_contract_name(core::Erc8004Revision::draft, core::Erc8004Registry::identity),
        a.registry);
    auto agent = verify::read_draft_onchain_agent(ctx.rpc(), ctx.chain_id(), registry, agent_id);
    if (!agent)
        throw CliError(
            fmt::format("reading draft agent {}: {}", agent_id.to_dec(), agent.error().message()));
    const auto fetcher = make_fetcher(a.fetch);
    const auto report = verify::verify_draft_agent(*agent, *fetcher);
    Output out(a.chain.json, OutputStyle::labeled);
    if (a.chain.json) {
        const auto doc = report.to_json();
        for (const auto& [key, value] : doc.items()) out.add(key, value);
        out.flush();
        return;
    }
    out.add("status", std::string(verify::to_string(report.status)));
    if (report.reason != verify::DraftAgentReason::none) {
        out.add("reason", fmt::format("{}: {}", verify::to_string(report.reason), report.detail));
    }
    out.add("revision", "draft");
    out.add("agentDomain", agent->agent_domain);
    out.add("agentAddress", agent->agent_address.to_checksum_hex());
    out.add("agentCard", report.url.empty() ? std::string("-") : report.url);
    if (report.card) {
        for (const auto& i : report.card->issues) {
            out.add("issue", fmt::format("{} {} {}: {}", core::to_string(i.severity),
                                         verify::to_string(i.reason), i.path.empty() ? "/" : i.path,
                                         i.message));
        }
        std::string models;
        for (const auto& m : report.card->trust_models) models += (models.empty() ? "" : ",") + m;
        out.add("trustModels", models.empty() ? std::string("-") : models);
    }
    if (const auto& f = report.feedback_data) {
        out.add("feedbackData", f->data
                                    ? fmt::format("{} entries={} issues={}", f->uri,
                                                  f->data->entries.size(), f->data->issues.size())
                                    : fmt::format("{} not read: {}", f->uri, f->detail));
    }
    out.flush();
}

void run_verify_agent(const VerifyAgentArgs& a) {
    const core::Uint256 agent_id = parse_uint256_arg("agentId", a.agent_id);
    const core::Erc8004Revision revision = parse_revision_arg(a.revision);
    if (revision == core::Erc8004Revision::draft) {
        if (a.no_domains || a.no_card) {
            throw CliError("--no-domains and --no-card apply to the current revision only");
        }
        run_verify_draft_agent(a, agent_id);
        return;
    }
    ChainContext ctx(a.chain);
    // The intermediate revision's registration files are checked by the same rules: its
    // `endpoints` read as services (ERC-8004 intermediate §Identity Registry).
    const core::Address registry = ctx.contract(
        std::string(core::registry_contract_name(revision, core::Erc8004Registry::identity)),
        a.registry);
    auto agent =
        verify::read_onchain_agent(ctx.rpc(), ctx.chain_id(), registry, agent_id, revision);
    if (!agent)
        throw CliError(
            fmt::format("reading agent {}: {}", agent_id.to_dec(), agent.error().message()));
    verify::AgentVerifyOptions options;
    options.check_domains = !a.no_domains;
    options.fetch_agent_cards = !a.no_card;
    const auto fetcher = make_fetcher(a.fetch);
    const auto report = verify::verify_agent(*agent, *fetcher, options);
    Output out(a.chain.json, OutputStyle::labeled);
    if (a.chain.json) {
        // A named object: a range-for over a temporary's items() would dangle (no P2718 in GCC 12).
        const auto doc = report.to_json();
        for (const auto& [key, value] : doc.items()) out.add(key, value);
        out.flush();
        return;
    }
    out.add("status", std::string(verify::to_string(report.status)));
    if (report.reason != verify::AgentReason::none) {
        out.add("reason", fmt::format("{}: {}", verify::to_string(report.reason), report.detail));
    }
    out.add("agentURI", agent->agent_uri);
    out.add("agentRegistry", agent->agent_registry());
    out.add("owner", agent->owner.to_checksum_hex());
    if (report.registration) {
        for (const auto& i : report.registration->issues) {
            out.add("issue", fmt::format("{} {} {}: {}", core::to_string(i.severity),
                                         core::to_string(i.reason), i.path.empty() ? "/" : i.path,
                                         i.message));
        }
    }
    out.add("domains", domain_lines(report));
    out.add("agentCards", card_lines(report));
    out.flush();
}

void print_resolved(const ResolveArgs& a, const std::vector<verify::ResolvedAgent>& agents) {
    Output out(a.json, OutputStyle::labeled);
    if (a.json) {
        nlohmann::ordered_json list = nlohmann::ordered_json::array();
        for (const auto& r : agents) list.push_back(r.to_json());
        out.add("agents", list);
    } else {
        std::vector<std::string> lines;
        lines.reserve(agents.size());
        for (const auto& r : agents) {
            std::string by;
            for (const auto m : r.matched_by)
                by += (by.empty() ? "" : ",") + std::string(verify::to_string(m));
            std::string domains;
            for (const auto& d : r.domains) domains += (domains.empty() ? "" : ",") + d;
            lines.push_back(fmt::format("{} {} owner={} by={}{}", r.agent.agent_registry(),
                                        r.agent.agent_id.to_dec(), r.agent.owner.to_checksum_hex(),
                                        by, domains.empty() ? "" : " domains=" + domains));
        }
        out.add("agents", lines);
    }
    out.flush();
}

verify::IndexFilter filter_of(const ResolveArgs& a) {
    verify::IndexFilter f;
    f.chain_id = a.chain_id;
    if (!a.registry.empty()) f.registry = parse_address_arg("--registry", a.registry);
    return f;
}

void run_resolve_address(const ResolveArgs& a) {
    const core::Address address = parse_address_arg("address", a.key);
    auto db = open_index_database(a.database, IndexOpen::existing);
    auto found = verify::resolve_by_address(*db, address, filter_of(a));
    if (!found) throw CliError(found.error().to_string());
    print_resolved(a, *found);
}

void run_resolve_domain(const ResolveArgs& a) {
    if (!verify::normalize_domain(a.key)) {
        throw CliError(fmt::format("domain: \"{}\" is not a DNS name", a.key));
    }
    auto db = open_index_database(a.database, IndexOpen::existing);
    const auto fetcher = make_fetcher(a.fetch);
    auto found = verify::resolve_domain_live(*db, *fetcher, a.key, filter_of(a));
    if (!found) throw CliError(found.error().to_string());
    print_resolved(a, *found);
}

void add_resolve_options(CLI::App& cmd, ResolveArgs& a) {
    cmd.add_flag("--json", a.json, "Print one JSON document");
    cmd.add_option("--database", a.database,
                   "The index: SQLite file or postgresql:// URL (default $CREDENCE_DATABASE, else "
                   "~/.credence/index.sqlite)");
    cmd.add_option("--chain-id", a.chain_id, "Only agents of this chain");
    cmd.add_option("--registry", a.registry, "Only agents of this IdentityRegistry");
}

}  // namespace

void add_verify_agent_command(CLI::App& verify_group) {
    static VerifyAgentArgs agent_args;
    auto* cmd = verify_group.add_subcommand(
        "agent", "Verify an ERC-8004 agent's registration file, endpoint domains and agent card");
    cmd->add_option("agentId", agent_args.agent_id, "The agent (decimal or 0x-hex)")->required();
    cmd->add_option("--registry", agent_args.registry,
                    "IdentityRegistry address (default: the deployment's)");
    cmd->add_option("--revision", agent_args.revision,
                    "ERC-8004 revision of the agent: current (default), score (the "
                    "intermediate revision's registration file) or draft (the first draft: the "
                    "Agent Card at its AgentDomain)");
    cmd->add_flag("--no-domains", agent_args.no_domains, "Skip endpoint-domain verification");
    cmd->add_flag("--no-card", agent_args.no_card, "Skip fetching A2A agent cards");
    add_chain_options(*cmd, agent_args.chain, false);
    add_fetch_flags(*cmd, agent_args.fetch);
    cmd->callback([] { run_verify_agent(agent_args); });

    static ResolveArgs address_args;
    static ResolveArgs domain_args;
    auto* resolve = verify_group.add_subcommand(
        "resolve", "The first draft's resolvers over the index: by address or by domain");
    resolve->require_subcommand(1);
    auto* by_address = resolve->add_subcommand(
        "address", "Agents whose owner or agentWallet is ADDRESS (from the index)");
    by_address->add_option("address", address_args.key, "0x address")->required();
    add_resolve_options(*by_address, address_args);
    by_address->callback([] { run_resolve_address(address_args); });
    auto* by_domain =
        resolve->add_subcommand("domain", "Agents that prove DOMAIN (verifies the index's agents)");
    by_domain->add_option("domain", domain_args.key, "a DNS name, or a URL (its host is used)")
        ->required();
    add_resolve_options(*by_domain, domain_args);
    add_fetch_flags(*by_domain, domain_args.fetch);
    by_domain->callback([] { run_resolve_domain(domain_args); });
}

}  // namespace credence::cmd
