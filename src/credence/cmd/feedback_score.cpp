// `credence feedback ... --revision score`: the intermediate revision's Reputation Registry, where
// feedback is a score from 0 to 100 with optional tags, endpoint, feedbackURI and feedbackHash,
// given by any client without a prior authorization (ERC-8004 intermediate §Giving Feedback).
// Output names follow the current revision's commands, with `score` where they print `value`.
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <credence/chain/bindings/score_reputation_registry.hpp>
#include <credence/cmd/erc8004_legacy.hpp>
#include <credence/cmd/revision_args.hpp>
#include <credence/cmd/util.hpp>
#include <credence/core/keccak.hpp>

namespace credence::cmd {
namespace {

namespace srr = chain::bindings::score_reputation_registry;

/// ERC-8004 intermediate §Giving Feedback: "The score MUST be between 0 and 100".
uint64_t parse_score_arg(const std::string& text) {
    if (text.empty()) throw CliError("give --revision score needs --score 0..100");
    uint64_t score = 0;
    bool digits = text.size() <= 3;
    for (const char c : text) {
        if (c < '0' || c > '9') digits = false;
    }
    if (digits) score = std::stoull(text);
    if (!digits || score > 100)
        throw CliError(fmt::format(
            "score {}: out of range; the intermediate revision's score is an integer 0..100 "
            "(ERC-8004 intermediate §Giving Feedback)",
            text));
    return score;
}

core::Address score_reputation(ChainContext& ctx, const std::string& override_flag) {
    return revision_registry(ctx, core::Erc8004Revision::score, core::Erc8004Registry::reputation,
                             override_flag);
}

std::vector<core::Address> parse_client_list(const std::vector<std::string>& texts) {
    std::vector<core::Address> out;
    out.reserve(texts.size());
    for (const auto& t : texts) out.push_back(parse_address_arg("--client", t));
    return out;
}

}  // namespace

void run_score_feedback_give(const ScoreGiveArgs& a) {
    const core::Uint256 agent_id = parse_uint256_arg("agentId", a.agent_id);
    const uint64_t score = parse_score_arg(a.score);
    core::Hash32 feedback_hash{};
    if (a.hash) feedback_hash = parse_hash_arg("--hash", *a.hash);
    ChainContext ctx(a.chain);
    const core::Address registry = score_reputation(ctx, a.registry);
    const SentTxn sent = ctx.send(registry,
                                  must_abi(srr::give_feedback(agent_id, score, a.tag1, a.tag2,
                                                              a.endpoint, a.uri, feedback_hash),
                                           "giveFeedback"),
                                  "giveFeedback");
    Output out(a.chain.json, OutputStyle::labeled);
    if (sent.receipt) {
        for (const auto* log : find_logs(*sent.receipt, registry, srr::kNewFeedbackTopic)) {
            if (auto ev = srr::decode_new_feedback_event(log->topics, log->data)) {
                out.add("feedbackIndex", ev->feedback_index);
                break;
            }
        }
    }
    out.add("agentId", agent_id.to_dec());
    out.add("client", ctx.signer().address.to_checksum_hex());
    out.add("score", score);
    if (a.chain.json) {
        out.add("tag1", a.tag1);
        out.add("tag2", a.tag2);
        out.add("endpoint", a.endpoint);
    }
    out.add("feedbackURI", a.uri);
    out.add("feedbackHash", core::to_hex(feedback_hash));
    out.add("revision", "score");
    ChainContext::report(out, sent);
    out.flush();
}

void run_score_feedback_revoke(const ScoreFeedbackArgs& a) {
    const core::Uint256 agent_id = parse_uint256_arg("agentId", a.agent_id);
    const uint64_t index = parse_u64_arg("feedbackIndex", a.index);
    ChainContext ctx(a.chain);
    const core::Address registry = score_reputation(ctx, a.registry);
    // ERC-8004 intermediate §Revoking Feedback: the client revokes its own feedback.
    const SentTxn sent =
        ctx.send(registry, must_abi(srr::revoke_feedback(agent_id, index), "revokeFeedback"),
                 "revokeFeedback");
    Output out(a.chain.json, OutputStyle::labeled);
    out.add("agentId", agent_id.to_dec());
    out.add("feedbackIndex", index);
    out.add("revision", "score");
    ChainContext::report(out, sent);
    out.flush();
}

void run_score_feedback_respond(const ScoreFeedbackArgs& a) {
    const core::Uint256 agent_id = parse_uint256_arg("agentId", a.agent_id);
    const core::Address client = parse_address_arg("client", a.client);
    const uint64_t index = parse_u64_arg("feedbackIndex", a.index);
    if (a.hash && a.response_file) throw CliError("give --hash or --response-file, not both");
    core::Hash32 response_hash{};
    if (a.hash) response_hash = parse_hash_arg("--hash", *a.hash);
    // ERC-8004 intermediate §Appending Responses: responseHash is the KECCAK-256 of the file.
    if (a.response_file) response_hash = core::keccak256(read_input(*a.response_file));
    ChainContext ctx(a.chain);
    const core::Address registry = score_reputation(ctx, a.registry);
    const SentTxn sent = ctx.send(
        registry,
        must_abi(srr::append_response(agent_id, client, index, a.response_uri, response_hash),
                 "appendResponse"),
        "appendResponse");
    Output out(a.chain.json, OutputStyle::labeled);
    out.add("agentId", agent_id.to_dec());
    out.add("client", client.to_checksum_hex());
    out.add("feedbackIndex", index);
    out.add("responseURI", a.response_uri);
    out.add("responseHash", core::to_hex(response_hash));
    out.add("revision", "score");
    ChainContext::report(out, sent);
    out.flush();
}

void run_score_feedback_read(const ScoreFeedbackArgs& a) {
    const core::Uint256 agent_id = parse_uint256_arg("agentId", a.agent_id);
    const core::Address client = parse_address_arg("client", a.client);
    const uint64_t index = parse_u64_arg("feedbackIndex", a.index);
    ChainContext ctx(a.chain);
    const auto r = ctx.call(srr::call::read_feedback, score_reputation(ctx, a.registry), agent_id,
                            client, index);
    Output out(a.chain.json, OutputStyle::labeled);
    out.add("score", r.score);
    out.add("tag1", r.tag1);
    out.add("tag2", r.tag2);
    out.add("isRevoked", r.is_revoked);
    out.add("revision", "score");
    out.flush();
}

void run_score_feedback_list(const ScoreFilterArgs& a) {
    const core::Uint256 agent_id = parse_uint256_arg("agentId", a.agent_id);
    const auto clients = parse_client_list(a.clients);
    ChainContext ctx(a.chain);
    // ERC-8004 intermediate §Read Functions: readAllFeedback with optional filters.
    const auto r = ctx.call(srr::call::read_all_feedback, score_reputation(ctx, a.registry),
                            agent_id, clients, a.tag1, a.tag2, a.include_revoked);
    const size_t n = r.clients.size();
    if (r.feedback_indexes.size() != n || r.scores.size() != n || r.tag1s.size() != n ||
        r.tag2s.size() != n || r.revoked_statuses.size() != n)
        throw CliError("readAllFeedback: the registry returned arrays of different lengths");
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    std::vector<std::string> lines;
    for (size_t i = 0; i < n; ++i) {
        const bool revoked = r.revoked_statuses[i];
        rows.push_back({{"client", r.clients[i].to_checksum_hex()},
                        {"feedbackIndex", r.feedback_indexes[i]},
                        {"score", r.scores[i]},
                        {"tag1", r.tag1s[i]},
                        {"tag2", r.tag2s[i]},
                        {"isRevoked", revoked}});
        // One line per feedback, as the current revision's list: client index score tag1 tag2.
        lines.push_back(
            fmt::format("{} {} {} {} {}{}", r.clients[i].to_checksum_hex(), r.feedback_indexes[i],
                        r.scores[i], r.tag1s[i].empty() ? "-" : r.tag1s[i],
                        r.tag2s[i].empty() ? "-" : r.tag2s[i], revoked ? " revoked" : ""));
    }
    Output out(a.chain.json, OutputStyle::labeled);
    if (a.chain.json) {
        out.add("agentId", agent_id.to_dec());
        out.add("count", n);
        out.add("feedback", std::move(rows));
        out.add("revision", "score");
    } else {
        out.add("feedback", lines);
    }
    out.flush();
}

void run_score_feedback_summary(const ScoreFilterArgs& a) {
    const core::Uint256 agent_id = parse_uint256_arg("agentId", a.agent_id);
    const auto clients = parse_client_list(a.clients);
    ChainContext ctx(a.chain);
    // ERC-8004 intermediate §Read Functions: getSummary's client filter is optional (an empty
    // list counts every client), unlike the current revision's.
    const auto r = ctx.call(srr::call::get_summary, score_reputation(ctx, a.registry), agent_id,
                            clients, a.tag1, a.tag2);
    Output out(a.chain.json, OutputStyle::labeled);
    out.add("count", r.count);
    out.add("averageScore", r.average_score);
    if (a.chain.json) {
        nlohmann::ordered_json list = nlohmann::ordered_json::array();
        for (const auto& c : clients) list.push_back(c.to_checksum_hex());
        out.add("clients", std::move(list));
        out.add("allClients", clients.empty());
        out.add("revision", "score");
    }
    out.flush();
}

}  // namespace credence::cmd
