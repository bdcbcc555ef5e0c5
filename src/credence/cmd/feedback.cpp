// `credence feedback`: the ERC-8004 Reputation Registry from the terminal (docs/cli.md, feedback).
//
//   give <agentId> <value> [--tag1 T] [--tag2 T] [--endpoint E] [--uri URI] [--hash 0x..]
//        [--file-out PATH] [--file-data-uri] [--field k=v]... [--extra FILE] [--created-at TIME]
//   revoke <agentId> <feedbackIndex>
//   respond <agentId> <client> <feedbackIndex> <responseURI> [--hash 0x.. | --response-file F]
//   read <agentId> <client> <feedbackIndex>
//   list <agentId> [--client ADDR]... [--tag1 T] [--tag2 T] [--include-revoked]
//   summary <agentId> [--client ADDR]... [--tag1 T] [--tag2 T]
//   check FILE        offline: a feedback file's structure and its feedbackHash
//   accept --client <agentId> --server <agentId>    first draft only (acceptFeedback)
//
// --revision score|draft (revision_args.hpp): the intermediate revision's give takes --score
// 0..100 instead of a decimal value, and its revoke/respond/read/list/summary read and write
// that revision's registry (feedback_score.cpp); the first draft keeps feedback off-chain and
// records only the server's authorization, `accept` (feedback_draft.cpp).
//
// Values: ERC-8004 §Giving Feedback stores `int128 value` with `uint8 valueDecimals` (0..18); the
// decimal text is converted exactly by core/decimal_value.hpp ("99.77" -> 9977, 2; "-3.2" -> -32,
// 1) and shown back the same way.
//
// Feedback file: with --file-out or --file-data-uri, give builds the off-chain file of ERC-8004
// §Off-Chain Feedback File Structure (its MUST fields agentRegistry, agentId, clientAddress,
// createdAt, value, valueDecimals filled from the chain and the signer; tag1/tag2/endpoint when
// given; extra members from --extra and --field), canonicalized with JCS (core/feedback_file.hpp),
// and sets feedbackHash = keccak256 of exactly those bytes (§Giving Feedback). feedbackURI is
// --uri when given (where the caller publishes the --file-out file), else the data: URI
// (--file-data-uri). --file-out alone is refused: a local path is nothing a reader can fetch.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <credence/chain/bindings/reputation_registry.hpp>
#include <credence/cmd/chain_context.hpp>
#include <credence/cmd/erc8004_args.hpp>
#include <credence/cmd/erc8004_legacy.hpp>
#include <credence/cmd/revision_args.hpp>
#include <credence/cmd/util.hpp>
#include <credence/core/data_uri.hpp>
#include <credence/core/feedback_file.hpp>
#include <credence/core/json.hpp>
#include <credence/core/keccak.hpp>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace credence::cmd {
namespace {

namespace rep = chain::bindings::reputation_registry;

constexpr std::string_view kReputationRegistry = "ReputationRegistry";

struct FeedbackCommon {
    ChainOptions chain;
    std::string registry;  // --registry: the ReputationRegistry address
    std::string revision;  // --revision (revision_args.hpp)
};

CLI::App* add_feedback_command(CLI::App& group, const std::string& name, const std::string& about,
                               FeedbackCommon& common, bool signs) {
    auto* cmd = group.add_subcommand(name, about);
    add_chain_options(*cmd, common.chain, signs);
    cmd->add_option("--registry", common.registry,
                    "ReputationRegistry address (default: from the deployment file)");
    add_revision_option(*cmd, common.revision);
    return cmd;
}

/// The revision of `--revision`; the first draft has no feedback on chain, only the server's
/// authorization (ERC-8004 first draft §Reputation Registry).
core::Erc8004Revision feedback_revision(const FeedbackCommon& common) {
    const auto revision = parse_revision_arg(common.revision);
    if (revision == core::Erc8004Revision::draft)
        absent_in_revision(revision, "on-chain feedback", "Reputation Registry",
                           "the server agent authorizes a client with `credence feedback accept "
                           "--revision draft`");
    return revision;
}

ScoreFeedbackArgs score_feedback_args(const FeedbackCommon& common, std::string agent_id,
                                      std::string index) {
    ScoreFeedbackArgs s;
    s.chain = common.chain;
    s.registry = common.registry;
    s.agent_id = std::move(agent_id);
    s.index = std::move(index);
    return s;
}

core::Address reputation_address(ChainContext& ctx, const FeedbackCommon& common) {
    return ctx.contract(kReputationRegistry, common.registry);
}

void write_file(const std::string& path, const std::string& bytes) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    if (!f) throw CliError(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!f.flush()) throw CliError(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
}

// ---- give -------------------------------------------------------------------------------------

struct GiveArgs {
    FeedbackCommon common;
    std::string agent_id;
    std::string value;
    std::string tag1;
    std::string tag2;
    std::string endpoint;
    std::optional<std::string> uri;
    std::optional<std::string> hash;
    std::optional<std::string> file_out;
    bool file_data_uri = false;
    std::vector<std::string> fields;
    std::optional<std::string> extra;
    std::optional<std::string> created_at;
    std::optional<std::string> score;  // --revision score
};

/// The extra members of the feedback file: --extra's object, then each --field (a string value;
/// a --field replaces an --extra member of the same name).
core::JsonValue extra_members(const GiveArgs& a) {
    core::JsonValue::Object members;
    if (a.extra) {
        const std::string text = read_input(*a.extra);
        auto doc = core::parse_json(text);
        if (!doc)
            throw CliError(
                fmt::format("--extra {}: not JSON: {}", *a.extra, error_text(doc.error())));
        if (!doc->is_object())
            throw CliError(fmt::format("--extra {}: not a JSON object", *a.extra));
        members = doc->as_object();
    }
    for (const auto& kv : a.fields) {
        auto [key, value] = split_key_value("--field", kv);
        bool replaced = false;
        for (auto& m : members) {
            if (m.key == key) {
                m.value = core::JsonValue(value);
                replaced = true;
            }
        }
        if (!replaced) members.push_back({key, core::JsonValue(value)});
    }
    return core::JsonValue(std::move(members));
}

/// `give --revision score`: a score 0..100 (--score, or the value argument) and the fields the
/// intermediate revision has; the off-chain feedback file is the current revision's.
void run_give_score(const GiveArgs& a) {
    if (a.score && !a.value.empty())
        throw CliError("give --revision score: pass the score once (--score N or the argument)");
    if (a.file_out || a.file_data_uri || !a.fields.empty() || a.extra || a.created_at)
        throw CliError(
            "give --revision score takes --uri and --hash for the feedback file; --file-out, "
            "--file-data-uri, --field, --extra and --created-at build the current revision's");
    run_score_feedback_give({.chain = a.common.chain,
                             .registry = a.common.registry,
                             .agent_id = a.agent_id,
                             .score = a.score.value_or(a.value),
                             .tag1 = a.tag1,
                             .tag2 = a.tag2,
                             .endpoint = a.endpoint,
                             .uri = a.uri.value_or(""),
                             .hash = a.hash});
}

void run_give(const GiveArgs& a) {
    const auto revision = feedback_revision(a.common);
    if (revision == core::Erc8004Revision::score) return run_give_score(a);
    require_revision_for_flag(revision, core::Erc8004Revision::score, a.score.has_value(),
                              "--score");
    if (a.value.empty())
        throw CliError("give needs a value: a decimal number such as 99.77 or -3.2");
    // Everything that can be checked offline is checked before the node is contacted.
    const core::Uint256 agent_id = parse_uint256_arg("agentId", a.agent_id);
    const core::DecimalValue value = parse_feedback_value(a.value);
    const bool build_file = a.file_out.has_value() || a.file_data_uri;
    if (build_file && a.hash)
        throw CliError("--hash cannot be combined with a built feedback file (its hash is used)");
    if (a.file_out && !a.uri && !a.file_data_uri)
        throw CliError(fmt::format(
            "--file-out {}: feedbackURI must be where readers fetch the file, not a local path; "
            "add --uri URL where you will publish it, or --file-data-uri to put it on chain",
            *a.file_out));
    if (!build_file && (!a.fields.empty() || a.extra || a.created_at))
        throw CliError("--field, --extra and --created-at need --file-out or --file-data-uri");
    const std::string created_at = a.created_at.value_or(now_rfc3339());
    if (!core::is_rfc3339_date_time(created_at))
        throw CliError(fmt::format("--created-at '{}': not an RFC 3339 date-time", created_at));
    core::Hash32 feedback_hash{};
    if (a.hash) feedback_hash = parse_hash_arg("--hash", *a.hash);

    ChainContext ctx(a.common.chain);
    const core::Address registry = reputation_address(ctx, a.common);
    std::string feedback_uri = a.uri.value_or("");
    std::optional<std::string> file_bytes;
    if (build_file) {
        // agentRegistry names the identity registry this reputation registry is bound to.
        const core::Address identity = ctx.call(rep::call::get_identity_registry, registry);
        core::FeedbackFile file;
        file.agent_registry = {ctx.chain_id(), identity.bytes};
        file.agent_id = agent_id;
        file.client_chain_id = ctx.chain_id();
        file.client_address = ctx.signer().address.bytes;
        file.created_at = created_at;
        file.value = value;
        if (!a.tag1.empty()) file.tag1 = a.tag1;
        if (!a.tag2.empty()) file.tag2 = a.tag2;
        if (!a.endpoint.empty()) file.endpoint = a.endpoint;
        const core::JsonValue extra = extra_members(a);
        auto built = must(core::build_feedback_file(file, &extra), "feedback file");
        feedback_hash = built.feedback_hash;
        if (a.file_out) write_file(*a.file_out, built.bytes);
        if (!a.uri) {
            feedback_uri = data_uri_of(built.bytes);
        }
        file_bytes = std::move(built.bytes);
    }

    const SentTxn sent =
        ctx.send(registry,
                 must(rep::give_feedback(agent_id, value.value, value.decimals, a.tag1, a.tag2,
                                         a.endpoint, feedback_uri, feedback_hash),
                      "giveFeedback"),
                 "giveFeedback");

    Output out(a.common.chain.json, OutputStyle::labeled);
    if (sent.receipt) {
        for (const auto* log : find_logs(*sent.receipt, registry, rep::kNewFeedbackTopic)) {
            if (auto ev = rep::decode_new_feedback_event(log->topics, log->data)) {
                out.add("feedbackIndex", ev->feedback_index);
                break;
            }
        }
    }
    out.add("agentId", agent_id.to_dec());
    out.add("client", ctx.signer().address.to_checksum_hex());
    out.add("value", core::format_decimal_value(value));
    if (a.common.chain.json) {
        out.add("rawValue", value.value.to_dec());
        out.add("valueDecimals", value.decimals);
        out.add("tag1", a.tag1);
        out.add("tag2", a.tag2);
        out.add("endpoint", a.endpoint);
    }
    out.add("feedbackURI", feedback_uri);
    out.add("feedbackHash", core::to_hex(feedback_hash));
    if (a.file_out) out.add("file", *a.file_out);
    ChainContext::report(out, sent);
    out.flush();
}

// ---- check ------------------------------------------------------------------------------------

struct FeedbackCheckArgs {
    std::string file;
    bool json = false;
};

/// ERC-8004 §Off-Chain Feedback File Structure checked offline (core/feedback_file.hpp: MUST
/// fields and their forms, optional fields' types), with the feedbackHash its bytes commit to
/// (§Giving Feedback: keccak256 of the file). The on-chain comparison is `verify feedback`'s.
void run_feedback_check(const FeedbackCheckArgs& a) {
    const std::string text = read_input(a.file);
    auto report = core::validate_feedback_file(text);
    if (!report)
        throw CliError(fmt::format("{}: not JSON: {}", a.file, error_text(report.error())));
    Output out(a.json, OutputStyle::labeled);
    out.add("file", a.file);
    out.add("feedbackHash", core::to_hex(core::keccak256(core::as_bytes(text))));
    auto json = feedback_report_json(*report);
    add_report(out, a.json, json);
    out.flush();
    refuse_invalid(json, a.file, "ERC-8004 feedback file");
}

// ---- revoke / respond -------------------------------------------------------------------------

struct RevokeArgs {
    FeedbackCommon common;
    std::string agent_id;
    std::string index;
};

void run_revoke(const RevokeArgs& a) {
    if (feedback_revision(a.common) == core::Erc8004Revision::score)
        return run_score_feedback_revoke(score_feedback_args(a.common, a.agent_id, a.index));
    const core::Uint256 agent_id = parse_uint256_arg("agentId", a.agent_id);
    const uint64_t index = parse_u64_arg("feedbackIndex", a.index);
    ChainContext ctx(a.common.chain);
    const core::Address registry = reputation_address(ctx, a.common);
    const SentTxn sent = ctx.send(
        registry, must(rep::revoke_feedback(agent_id, index), "revokeFeedback"), "revokeFeedback");
    Output out(a.common.chain.json, OutputStyle::labeled);
    out.add("agentId", agent_id.to_dec());
    out.add("feedbackIndex", index);
    ChainContext::report(out, sent);
    out.flush();
}

struct FeedbackRespondArgs {
    FeedbackCommon common;
    std::string agent_id;
    std::string client;
    std::string index;
    std::string response_uri;
    std::optional<std::string> hash;
    std::optional<std::string> response_file;
};

void run_respond(const FeedbackRespondArgs& a) {
    if (feedback_revision(a.common) == core::Erc8004Revision::score) {
        auto s = score_feedback_args(a.common, a.agent_id, a.index);
        s.client = a.client;
        s.response_uri = a.response_uri;
        s.hash = a.hash;
        s.response_file = a.response_file;
        return run_score_feedback_respond(s);
    }
    const core::Uint256 agent_id = parse_uint256_arg("agentId", a.agent_id);
    const core::Address client = parse_address_arg("client", a.client);
    const uint64_t index = parse_u64_arg("feedbackIndex", a.index);
    if (a.hash && a.response_file) throw CliError("give --hash or --response-file, not both");
    core::Hash32 response_hash{};
    if (a.hash) response_hash = parse_hash_arg("--hash", *a.hash);
    // ERC-8004 §Appending Responses: responseHash is the KECCAK-256 of the response file's content.
    if (a.response_file) response_hash = core::keccak256(read_input(*a.response_file));
    ChainContext ctx(a.common.chain);
    const core::Address registry = reputation_address(ctx, a.common);
    const SentTxn sent =
        ctx.send(registry,
                 must(rep::append_response(agent_id, client, index, a.response_uri, response_hash),
                      "appendResponse"),
                 "appendResponse");
    Output out(a.common.chain.json, OutputStyle::labeled);
    out.add("agentId", agent_id.to_dec());
    out.add("client", client.to_checksum_hex());
    out.add("feedbackIndex", index);
    out.add("responseURI", a.response_uri);
    out.add("responseHash", core::to_hex(response_hash));
    ChainContext::report(out, sent);
    out.flush();
}

// ---- read / list / summary --------------------------------------------------------------------

struct FeedbackReadArgs {
    FeedbackCommon common;
    std::string agent_id;
    std::string client;
    std::string index;
};

void run_read(const FeedbackReadArgs& a) {
    if (feedback_revision(a.common) == core::Erc8004Revision::score) {
        auto s = score_feedback_args(a.common, a.agent_id, a.index);
        s.client = a.client;
        return run_score_feedback_read(s);
    }
    const core::Uint256 agent_id = parse_uint256_arg("agentId", a.agent_id);
    const core::Address client = parse_address_arg("client", a.client);
    const uint64_t index = parse_u64_arg("feedbackIndex", a.index);
    ChainContext ctx(a.common.chain);
    const core::Address registry = reputation_address(ctx, a.common);
    const auto r = ctx.call(rep::call::read_feedback, registry, agent_id, client, index);
    Output out(a.common.chain.json, OutputStyle::labeled);
    out.add("value", decimal_text(r.value, r.value_decimals));
    if (a.common.chain.json) {
        out.add("rawValue", r.value.to_dec());
        out.add("valueDecimals", r.value_decimals);
    }
    out.add("tag1", r.tag1);
    out.add("tag2", r.tag2);
    out.add("isRevoked", r.is_revoked);
    out.flush();
}

struct ListArgs {
    FeedbackCommon common;
    std::string agent_id;
    std::vector<std::string> clients;
    std::string tag1;
    std::string tag2;
    bool include_revoked = false;
};

std::vector<core::Address> parse_clients(const std::vector<std::string>& texts) {
    std::vector<core::Address> out;
    out.reserve(texts.size());
    for (const auto& t : texts) out.push_back(parse_address_arg("--client", t));
    return out;
}

void run_list(const ListArgs& a) {
    if (feedback_revision(a.common) == core::Erc8004Revision::score)
        return run_score_feedback_list({.chain = a.common.chain,
                                        .registry = a.common.registry,
                                        .agent_id = a.agent_id,
                                        .clients = a.clients,
                                        .tag1 = a.tag1,
                                        .tag2 = a.tag2,
                                        .include_revoked = a.include_revoked});
    const core::Uint256 agent_id = parse_uint256_arg("agentId", a.agent_id);
    const auto clients = parse_clients(a.clients);
    ChainContext ctx(a.common.chain);
    const core::Address registry = reputation_address(ctx, a.common);
    // ERC-8004 §Read Functions: readAllFeedback; an empty client list means every client.
    const auto r = ctx.call(rep::call::read_all_feedback, registry, agent_id, clients, a.tag1,
                            a.tag2, a.include_revoked);
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    const size_t n = r.clients.size();
    if (r.feedback_indexes.size() != n || r.values.size() != n || r.value_decimals.size() != n ||
        r.tag1s.size() != n || r.tag2s.size() != n || r.revoked_statuses.size() != n)
        throw CliError("readAllFeedback: the registry returned arrays of different lengths");
    for (size_t i = 0; i < n; ++i) {
        rows.push_back({{"client", r.clients[i].to_checksum_hex()},
                        {"feedbackIndex", r.feedback_indexes[i]},
                        {"value", decimal_text(r.values[i], r.value_decimals[i])},
                        {"rawValue", r.values[i].to_dec()},
                        {"valueDecimals", r.value_decimals[i]},
                        {"tag1", r.tag1s[i]},
                        {"tag2", r.tag2s[i]},
                        {"isRevoked", static_cast<bool>(r.revoked_statuses[i])}});
    }
    Output out(a.common.chain.json, OutputStyle::labeled);
    if (a.common.chain.json) {
        out.add("agentId", agent_id.to_dec());
        out.add("count", n);
        out.add("feedback", std::move(rows));
    } else {
        // One line per feedback: client index value tag1 tag2 [revoked].
        std::vector<std::string> lines;
        for (const auto& row : rows) {
            lines.push_back(fmt::format(
                "{} {} {} {} {}{}", row["client"].get<std::string>(),
                row["feedbackIndex"].get<uint64_t>(), row["value"].get<std::string>(),
                row["tag1"].get<std::string>().empty() ? "-" : row["tag1"].get<std::string>(),
                row["tag2"].get<std::string>().empty() ? "-" : row["tag2"].get<std::string>(),
                row["isRevoked"].get<bool>() ? " revoked" : ""));
        }
        out.add("feedback", lines);
    }
    out.flush();
}

struct SummaryArgs {
    FeedbackCommon common;
    std::string agent_id;
    std::vector<std::string> clients;
    std::string tag1;
    std::string tag2;
};

void run_summary(const SummaryArgs& a) {
    if (feedback_revision(a.common) == core::Erc8004Revision::score)
        return run_score_feedback_summary({.chain = a.common.chain,
                                           .registry = a.common.registry,
                                           .agent_id = a.agent_id,
                                           .clients = a.clients,
                                           .tag1 = a.tag1,
                                           .tag2 = a.tag2,
                                           .include_revoked = false});
    const core::Uint256 agent_id = parse_uint256_arg("agentId", a.agent_id);
    auto clients = parse_clients(a.clients);
    ChainContext ctx(a.common.chain);
    const core::Address registry = reputation_address(ctx, a.common);
    // getSummary requires client addresses (ERC-8004 §Read Functions: filtering by trusted
    // clients is the caller's Sybil defence). Without --client, every client of the agent is used,
    // and the output says so.
    const bool all_clients = clients.empty();
    if (all_clients) {
        clients = ctx.call(rep::call::get_clients, registry, agent_id);
    }
    Output out(a.common.chain.json, OutputStyle::labeled);
    if (clients.empty()) {
        out.add("count", 0);
        out.add("summary", "0");
        if (a.common.chain.json) {
            out.add("summaryValue", "0");
            out.add("summaryValueDecimals", 0);
            out.add("clients", nlohmann::ordered_json::array());
        }
        out.flush();
        return;
    }
    const auto r = ctx.call(rep::call::get_summary, registry, agent_id, clients, a.tag1, a.tag2);
    out.add("count", r.count);
    out.add("summary", decimal_text(r.summary_value, r.summary_value_decimals));
    if (a.common.chain.json) {
        out.add("summaryValue", r.summary_value.to_dec());
        out.add("summaryValueDecimals", r.summary_value_decimals);
        nlohmann::ordered_json list = nlohmann::ordered_json::array();
        for (const auto& c : clients) list.push_back(c.to_checksum_hex());
        out.add("clients", std::move(list));
        out.add("allClients", all_clients);
    }
    out.flush();
}

// ---- accept (first draft) ----------------------------------------------------------------------

struct AcceptArgs {
    FeedbackCommon common;
    std::string client;
    std::string server;
};

void run_accept(const AcceptArgs& a) {
    const auto revision = parse_revision_arg(a.common.revision);
    // Only the first draft has an on-chain feedback authorization; in the later revisions any
    // client gives feedback directly (ERC-8004 intermediate §Giving Feedback, ERC-8004 §Giving
    // Feedback).
    if (revision != core::Erc8004Revision::draft)
        absent_in_revision(revision, "feedback authorization", "Giving Feedback",
                           "any client gives feedback directly with `credence feedback give`");
    run_draft_feedback_accept({.chain = a.common.chain,
                               .registry = a.common.registry,
                               .client = a.client,
                               .server = a.server});
}

}  // namespace

void add_feedback_commands(CLI::App& app) {
    auto* group =
        app.add_subcommand("feedback", "ERC-8004 Reputation Registry: give, revoke, read feedback");
    group->require_subcommand(1);

    {
        auto a = std::make_shared<FeedbackCheckArgs>();
        auto* cmd = group->add_subcommand(
            "check",
            "Offline: check a feedback file (ERC-8004 structure) and print its feedbackHash; exit "
            "1 on errors");
        cmd->add_option("file", a->file, "Feedback file (JSON), '-' for stdin")->required();
        cmd->add_flag("--json", a->json, "Print the report as JSON");
        cmd->callback([a] { run_feedback_check(*a); });
    }
    {
        auto a = std::make_shared<GiveArgs>();
        auto* cmd = add_feedback_command(*group, "give",
                                         "Give feedback: a decimal value such as 99.77 or -3.2",
                                         a->common, true);
        cmd->add_option("agentId", a->agent_id, "Agent id")->required();
        cmd->add_option("value", a->value,
                        "Decimal value (at most 18 decimals, |v| <= 1e38); with --revision "
                        "score, the score");
        cmd->add_option("--score", a->score, "--revision score: the score, 0..100");
        cmd->add_option("--tag1", a->tag1, "tag1");
        cmd->add_option("--tag2", a->tag2, "tag2");
        cmd->add_option("--endpoint", a->endpoint, "The endpoint the feedback is about");
        cmd->add_option("--uri", a->uri, "feedbackURI");
        cmd->add_option("--hash", a->hash, "feedbackHash (0x + 64 hex) of a file made elsewhere");
        cmd->add_option("--file-out", a->file_out,
                        "Build the off-chain feedback file and write it here");
        cmd->add_flag("--file-data-uri", a->file_data_uri,
                      "Build the off-chain feedback file and use it as a data: feedbackURI");
        cmd->add_option("--field", a->fields, "Extra feedback-file member key=value (string)");
        cmd->add_option("--extra", a->extra, "JSON object file of extra feedback-file members");
        cmd->add_option("--created-at", a->created_at,
                        "createdAt of the feedback file (RFC 3339; default: now)");
        cmd->callback([a] { run_give(*a); });
    }
    {
        auto a = std::make_shared<RevokeArgs>();
        auto* cmd = add_feedback_command(*group, "revoke", "Revoke your feedback", a->common, true);
        cmd->add_option("agentId", a->agent_id, "Agent id")->required();
        cmd->add_option("feedbackIndex", a->index, "Your feedback index (1-based)")->required();
        cmd->callback([a] { run_revoke(*a); });
    }
    {
        auto a = std::make_shared<FeedbackRespondArgs>();
        auto* cmd = add_feedback_command(*group, "respond", "Append a response to a feedback",
                                         a->common, true);
        cmd->add_option("agentId", a->agent_id, "Agent id")->required();
        cmd->add_option("client", a->client, "The client that gave the feedback")->required();
        cmd->add_option("feedbackIndex", a->index, "Its feedback index")->required();
        cmd->add_option("responseURI", a->response_uri, "URI of the response")->required();
        cmd->add_option("--hash", a->hash, "responseHash (0x + 64 hex)");
        cmd->add_option("--response-file", a->response_file,
                        "The response file: responseHash = keccak256 of its bytes");
        cmd->callback([a] { run_respond(*a); });
    }
    {
        auto a = std::make_shared<FeedbackReadArgs>();
        auto* cmd = add_feedback_command(*group, "read", "Read one feedback", a->common, false);
        cmd->add_option("agentId", a->agent_id, "Agent id")->required();
        cmd->add_option("client", a->client, "Client address")->required();
        cmd->add_option("feedbackIndex", a->index, "Feedback index")->required();
        cmd->callback([a] { run_read(*a); });
    }
    {
        auto a = std::make_shared<ListArgs>();
        auto* cmd = add_feedback_command(*group, "list", "List feedback (readAllFeedback)",
                                         a->common, false);
        cmd->add_option("agentId", a->agent_id, "Agent id")->required();
        cmd->add_option("--client", a->clients, "Only these clients (repeatable)");
        cmd->add_option("--tag1", a->tag1, "Only this tag1");
        cmd->add_option("--tag2", a->tag2, "Only this tag2");
        cmd->add_flag("--include-revoked", a->include_revoked, "Include revoked feedback");
        cmd->callback([a] { run_list(*a); });
    }
    {
        auto a = std::make_shared<SummaryArgs>();
        auto* cmd = add_feedback_command(*group, "summary",
                                         "Average feedback (getSummary) as a decimal number",
                                         a->common, false);
        cmd->add_option("agentId", a->agent_id, "Agent id")->required();
        cmd->add_option("--client", a->clients,
                        "Clients to count (repeatable; default: every client of the agent)");
        cmd->add_option("--tag1", a->tag1, "Only this tag1");
        cmd->add_option("--tag2", a->tag2, "Only this tag2");
        cmd->callback([a] { run_summary(*a); });
    }
    {
        auto a = std::make_shared<AcceptArgs>();
        auto* cmd = add_feedback_command(
            *group, "accept",
            "--revision draft: as the server agent, authorize a client agent's feedback "
            "(acceptFeedback); prints the FeedbackAuthID",
            a->common, true);
        cmd->add_option("--client", a->client, "The client agent's AgentID");
        cmd->add_option("--server", a->server, "The server agent's AgentID (yours)");
        cmd->callback([a] { run_accept(*a); });
    }
}

}  // namespace credence::cmd
