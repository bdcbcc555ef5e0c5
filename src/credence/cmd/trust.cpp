// `credence trust`: reputation from the index (docs/architecture.md §trust/), offline.
//
//   score <agentId>     the Sybil-resistant score (trust/score.hpp) with its 95 % interval, per-tag
//                       scores and, with --explain, who contributed what and why some reviewers
//                       were discounted
//   summary <agentId>   the exact mirror of ReputationRegistry.getSummary (--client is required,
//                       as on chain) and ValidationRegistry.getSummary (--validations); the
//                       reputation mirror follows the implementation at the address (--rules:
//                       trust/summary.hpp, docs/compatibility.md §The getSummary mirror);
//                       --revision score mirrors the intermediate revision's registries instead
//                       (trust/legacy_summary.hpp)
// The chain is --chain-id, else the node's, else the one chain the index holds (index_chain_id):
// no node is needed. The registries are the chain's deployment file's (IdentityRegistry,
// ReputationRegistry, ValidationRegistry) unless --identity / --reputation / --validation name
// others. The index is --database (cmd/index_database.hpp); run `credence index` first.
#include <algorithm>
#include <chrono>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <credence/cmd/args.hpp>
#include <credence/cmd/chain_context.hpp>
#include <credence/cmd/commands.hpp>
#include <credence/cmd/index_database.hpp>
#include <credence/cmd/revision_args.hpp>
#include <credence/core/erc8004_revision.hpp>
#include <credence/index/store.hpp>
#include <credence/trust/funding_clusters.hpp>
#include <credence/trust/legacy_summary.hpp>
#include <credence/trust/score_index.hpp>
#include <credence/trust/summary.hpp>

namespace credence::cmd {
namespace {

using Json = nlohmann::ordered_json;

struct TrustArgs {
    ChainOptions chain;
    std::string database;
    std::string agent_id;
    std::string identity, reputation, validation;
    std::string revision_text = "current";
    core::Erc8004Revision revision = core::Erc8004Revision::current;
    // score
    std::vector<std::string> trusted;
    double half_life_days = 90;
    double seconds_per_block = 12;
    bool explain = false;
    size_t limit = 20;
    // summary
    std::vector<std::string> clients;
    std::string tag1, tag2;
    std::string rules = "auto";
    bool validations = false;
    std::vector<std::string> validators;
    std::string tag;
};

struct Opened {
    std::unique_ptr<index::Database> db;
    trust::TrustSources sources;
    core::Bytes agent_key;
    /// The ReputationRegistry is the deployment file's: a Credence deployment.
    bool reputation_is_credence = false;
};

Opened open(TrustArgs& a) {
    Opened o;
    o.db = open_index_database(a.database, IndexOpen::existing);
    auto store = index::IndexStore::open(*o.db);
    if (!store) throw CliError(store.error().to_string());
    // The index answers; a node, when there is one, only names the chain, and the registries
    // come from the flags or the chain's deployment file.
    ChainContext ctx(a.chain);
    o.sources.chain_id = index_chain_id(a.chain, ctx, *store);
    ctx.assume_chain_id(o.sources.chain_id);
    // The revision's registries by their deployment-file names (IdentityRegistry,
    // ScoreReputationRegistry, ...), unless the flags name others.
    const auto name = [&](core::Erc8004Registry r) {
        return std::string(core::registry_contract_name(a.revision, r));
    };
    o.sources.identity_registry = ctx.contract(name(core::Erc8004Registry::identity), a.identity);
    o.sources.reputation_registry =
        ctx.contract(name(core::Erc8004Registry::reputation), a.reputation);
    o.sources.validation_registry =
        ctx.contract(name(core::Erc8004Registry::validation), a.validation);
    if (const chain::Deployment* d = ctx.deployment(false); d != nullptr) {
        const auto it = d->contracts.find("ReputationRegistry");
        o.reputation_is_credence =
            it != d->contracts.end() && it->second == o.sources.reputation_registry;
    }
    auto cursor = store->cursor(o.sources.chain_id);
    if (!cursor) throw CliError(cursor.error().to_string());
    const std::optional<uint64_t> head = *cursor;
    if (!head) {
        throw CliError(fmt::format("the index has nothing for chain {}: run `credence index`",
                                   o.sources.chain_id));
    }
    o.sources.head_block_num = *head;
    o.sources.now = std::chrono::duration_cast<std::chrono::seconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count();
    o.sources.seconds_per_block = a.seconds_per_block;
    const auto id = parse_uint256_arg("agentId", a.agent_id).to_word();
    o.agent_key.assign(id.begin(), id.end());
    return o;
}

Json interval(double low, double high) { return Json::array({low, high}); }

void run_score(TrustArgs& a) {
    Opened o = open(a);
    auto inputs = trust::load_trust_inputs(*o.db, o.sources);
    if (!inputs) throw CliError(inputs.error().to_string());
    const auto it = std::find_if(inputs->agents.begin(), inputs->agents.end(),
                                 [&](const auto& f) { return f.agent_id == o.agent_key; });
    if (it == inputs->agents.end()) {
        throw CliError(fmt::format("agent {} is not in the index", a.agent_id));
    }
    trust::TrustConfig config;
    config.now = o.sources.now;
    config.half_life_seconds = static_cast<int64_t>(a.half_life_days * 86'400);
    for (const auto& t : a.trusted) config.trusted.push_back(parse_address_arg("--trusted", t));
    const trust::TrustResult result = trust::compute_trust(*inputs, config);
    const trust::AgentScore& s = result.agents[static_cast<size_t>(it - inputs->agents.begin())];

    Output out(a.chain.json, OutputStyle::labeled);
    out.add("agentId", a.agent_id);
    out.add("score", s.score);
    out.add("interval95", a.chain.json ? interval(s.low, s.high)
                                       : Json(fmt::format("[{:.4f}, {:.4f}]", s.low, s.high)));
    out.add("reviews", s.reviews);
    out.add("evidence", s.evidence);
    out.add("effectiveReviewers", s.effective_reviewers);
    out.add("validationEvidence", s.validation_evidence);
    out.add("domainVerified", it->domain_verified);
    Json tags = Json::array();
    for (const auto& t : s.tags) {
        tags.push_back({{"tag", t.tag},
                        {"isRating", t.is_rating},
                        {"score", t.score},
                        {"interval95", interval(t.low, t.high)},
                        {"reviews", t.reviews}});
    }
    out.add("tags", a.chain.json ? tags : Json(tags.dump()));
    if (a.explain) {
        std::vector<trust::Contribution> c = s.contributions;
        // Largest share first, ties by address: a total order, so the listing is deterministic.
        std::sort(c.begin(), c.end(), [](const auto& x, const auto& y) {
            return x.share != y.share ? x.share > y.share : x.client < y.client;
        });
        if (c.size() > a.limit) c.resize(a.limit);
        Json rows = Json::array();
        for (const auto& x : c) {
            Json discounts = Json::array();
            for (auto d : x.discounts) discounts.push_back(trust::to_string(d));
            const auto& w = result.reviewers.find(x.client);
            rows.push_back({{"client", x.client.to_checksum_hex()},
                            {"rating", x.rating},
                            {"weight", x.weight},
                            {"share", x.share},
                            {"standing", w != result.reviewers.end() ? w->second.standing : 0.0},
                            {"discounts", discounts}});
            rows.back().update(trust::funding_json(x));
        }
        // docs/trust.md §Funding: which clusters were found, why, and the funding path.
        const Json clusters = trust::clusters_json(s);
        if (a.chain.json) {
            out.add("contributions", rows);
            out.add("clusters", clusters);
        } else {
            std::string found;
            for (const auto& k : clusters) {
                std::string path;
                for (const auto& p : k["fundingPath"]) path += " <- " + p.get<std::string>();
                found += fmt::format(
                    "\n  {} reviewers {} (funded{}): {}", k["members"].size(),
                    k["reason"] == "clustered" ? "share one funder" : "were funded by the owner",
                    path,
                    k["reason"] == "clustered" ? fmt::format("one voice, weight {:.3f} together",
                                                             k["weight"].get<double>())
                                               : std::string("not counted"));
            }
            out.add("clusters", found.empty() ? std::string("(none)") : "found:" + found);
            std::string lines;
            for (const auto& r : rows) {
                std::string why;
                for (const auto& d : r["discounts"])
                    why += (why.empty() ? "" : ",") + d.get<std::string>();
                lines += fmt::format("\n  {} rating {:.3f} share {:5.1f}% {}",
                                     r["client"].get<std::string>(), r["rating"].get<double>(),
                                     100 * r["share"].get<double>(), why);
            }
            out.add("contributions", "top reviewers:" + lines);
        }
    }
    out.flush();
}

/// Whose getSummary to mirror: --rules, else what the address is known to be: a deployed v2.0.0
/// registry by its address, a Credence one by the deployment file (docs/compatibility.md §The
/// getSummary mirror).
trust::SummaryRules summary_rules(const TrustArgs& a, const Opened& o) {
    if (a.rules != "auto") {
        if (auto r = trust::parse_summary_rules(a.rules)) return *r;
        throw CliError(fmt::format("--rules {}: expected auto, credence or erc8004-v2", a.rules));
    }
    if (auto r = trust::known_summary_rules(o.sources.chain_id, o.sources.reputation_registry))
        return *r;
    if (o.reputation_is_credence) return trust::SummaryRules::credence;
    throw CliError(fmt::format(
        "ReputationRegistry {} is neither a deployed ERC-8004 registry nor the deployment "
        "file's: pass --rules credence or --rules erc8004-v2",
        o.sources.reputation_registry.to_checksum_hex()));
}

/// ScoreReputationRegistry.getSummary: every client when none is listed (ERC-8004 intermediate
/// §Read Functions), the average a truncated 0..100 score.
void run_score_summary(const TrustArgs& a, std::span<const trust::FeedbackEntry> rows,
                       std::span<const core::Address> clients, Output& out) {
    auto s = trust::score_summary(rows, clients, a.tag1, a.tag2);
    if (!s) throw CliError(fmt::format("getSummary: {}", s.error().detail));
    out.add("count", s->count);
    out.add("averageScore", s->average_score);
    out.add("revision", std::string(core::to_string(a.revision)));
    out.flush();
}

void run_summary(TrustArgs& a) {
    a.revision = parse_revision_arg(a.revision_text);
    if (a.revision == core::Erc8004Revision::draft) {
        throw CliError(
            "the first draft has no getSummary: its feedback lives off-chain and its validation "
            "registry keeps one response per DataHash (ERC-8004 first draft §Reputation "
            "Registry, §Validation Registry); read them with `credence feedback` and "
            "`credence validation` --revision draft");
    }
    if (a.revision == core::Erc8004Revision::score && a.rules != "auto") {
        throw CliError(
            "--rules applies to the current revision only: the intermediate "
            "revision's getSummary has one rule");
    }
    Opened o = open(a);
    Output out(a.chain.json, OutputStyle::labeled);
    out.add("agentId", a.agent_id);
    if (a.validations) {
        auto rows = trust::load_validations(*o.db, o.sources.chain_id,
                                            o.sources.validation_registry, o.agent_key);
        if (!rows) throw CliError(rows.error().to_string());
        std::vector<core::Address> validators;
        validators.reserve(a.validators.size());
        for (const auto& v : a.validators)
            validators.push_back(parse_address_arg("--validator", v));
        const auto s = trust::validation_summary(*rows, validators, a.tag);
        out.add("count", s.count);
        out.add("averageResponse", s.average_response);
        if (a.revision != core::Erc8004Revision::current)
            out.add("revision", std::string(core::to_string(a.revision)));
        out.flush();
        return;
    }
    auto rows =
        trust::load_feedback(*o.db, o.sources.chain_id, o.sources.reputation_registry, o.agent_key);
    if (!rows) throw CliError(rows.error().to_string());
    std::vector<core::Address> clients;
    clients.reserve(a.clients.size());
    for (const auto& c : a.clients) clients.push_back(parse_address_arg("--client", c));
    if (a.revision == core::Erc8004Revision::score)
        return run_score_summary(a, *rows, clients, out);
    const trust::SummaryRules rules = summary_rules(a, o);
    auto s = trust::reputation_summary(*rows, clients, a.tag1, a.tag2, rules);
    if (!s) {
        throw CliError(s.error().code == trust::SummaryError::client_addresses_required
                           ? "--client is required (ERC-8004: getSummary without a client list "
                             "is open to Sybil attacks)"
                           : fmt::format("getSummary: {}", s.error().detail));
    }
    out.add("count", s->count);
    out.add("summaryValue", s->summary_value.to_dec());
    out.add("summaryValueDecimals", s->summary_value_decimals);
    out.add("rules", std::string(trust::to_string(rules)));
    out.flush();
}

CLI::App* add_common(CLI::App& group, const std::string& name, const std::string& about,
                     const std::shared_ptr<TrustArgs>& a) {
    auto* cmd = group.add_subcommand(name, about);
    add_chain_options(*cmd, a->chain, false);
    cmd->add_option("agentId", a->agent_id, "The agent (ERC-8004 agentId)")->required();
    cmd->add_option("--database", a->database, kDatabaseHelp);
    cmd->add_option("--identity", a->identity, "IdentityRegistry address (default: deployment)");
    cmd->add_option("--reputation", a->reputation,
                    "ReputationRegistry address (default: deployment)");
    cmd->add_option("--validation", a->validation,
                    "ValidationRegistry address (default: deployment)");
    return cmd;
}

}  // namespace

void add_trust_commands(CLI::App& app) {
    auto* group = app.add_subcommand("trust", "Reputation from the index: scores and summaries");
    group->require_subcommand(1);
    auto score = std::make_shared<TrustArgs>();
    auto* s = add_common(*group, "score", "Sybil-resistant trust score of an agent", score);
    s->add_option("--trusted", score->trusted,
                  "An address trusted a priori (personalized PageRank seed); repeatable");
    s->add_option("--half-life-days", score->half_life_days, "Time decay of a rating (days)")
        ->check(CLI::PositiveNumber);
    s->add_option("--seconds-per-block", score->seconds_per_block,
                  "The chain's block time, to date old feedback (default 12)")
        ->check(CLI::PositiveNumber);
    s->add_flag("--explain", score->explain, "List the reviewers' contributions and discounts");
    s->add_option("--limit", score->limit, "Reviewers listed by --explain (default 20)");
    s->callback([score] { run_score(*score); });

    auto summary = std::make_shared<TrustArgs>();
    auto* m =
        add_common(*group, "summary",
                   "getSummary from the index: the contract's exact answer, offline", summary);
    m->add_option("--client", summary->clients,
                  "A client address (repeatable; required by the current revision)");
    m->add_option("--tag1", summary->tag1, "Only feedback with this tag1");
    m->add_option("--tag2", summary->tag2, "Only feedback with this tag2");
    m->add_option("--rules", summary->rules,
                  "Whose getSummary to mirror: credence, erc8004-v2 (the deployed v2.0.0 "
                  "registries: a repeated client counts again), or auto (default: by address)");
    m->add_option("--revision", summary->revision_text,
                  "Whose registries and getSummary: current, score (the intermediate revision: "
                  "every client when no --client, average 0..100) or draft (none: refused)")
        ->capture_default_str();
    m->add_flag("--validations", summary->validations,
                "ValidationRegistry.getSummary instead (--validator, --tag)");
    m->add_option("--validator", summary->validators, "A validator address (repeatable)");
    m->add_option("--tag", summary->tag, "Only validation responses with this tag");
    m->callback([summary] { run_summary(*summary); });
}

}  // namespace credence::cmd
