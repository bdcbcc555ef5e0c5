// The /api/v1/agents routes (docs/api.md): search, detail, feedback with
// ERC-8004 readAllFeedback filters, the getSummary mirror, reputation history, validations.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include <credence/api/detail/rest_common.hpp>
#include <credence/api/detail/rest_list.hpp>
#include <credence/core/caip.hpp>
#include <credence/core/uint256.hpp>
#include <credence/index/feedback_table.hpp>
#include <credence/index/schema.hpp>
#include <credence/index/verification_table.hpp>
#include <credence/trust/summary.hpp>

namespace credence::api::detail {

namespace {

using index::DbRow;
using index::DbValue;

ApiResult<core::Bytes> agent_id_capture(const Ctx& ctx) {
    return parse_uint256_id(ctx.captures.at(0), "agent_id");
}

std::string format_double(double value) { return fmt::format("{:.17g}", value); }

/// The agent's global identity (ERC-8004 §Identity Registry), first in every per-agent answer.
Json agent_identity(const Ctx& ctx, const core::Bytes& agent_id) {
    return Json{
        {"chain_id", ctx.scope.chain_id},
        {"agent_registry", agent_registry_of(ctx.scope.chain_id, ctx.scope.identity_registry)},
        {"agent_id", uint256_or_null(DbValue(agent_id))}};
}

/// 404 unless the identity registry holds `agent_id`.
ApiResult<DbRow> load_agent_row(Ctx& ctx, const core::Bytes& agent_id) {
    const std::array<DbValue, 3> params{chain(ctx), blob(ctx.scope.identity_registry),
                                        DbValue(agent_id)};
    auto rows = ctx.db.query(
        "SELECT owner, agent_uri, wallet, approved, registered_block_num, registered_txn_hash, "
        "updated_block_num, revision, agent_domain, agent_address FROM agents "
        "WHERE chain_id = $1 AND registry = $2 AND agent_id = $3",
        params);
    if (!rows) return std::unexpected(unavailable(rows.error()));
    if (rows->empty()) return std::unexpected(not_found("no such agent"));
    return std::move(rows->front());
}

Json score_json(const DbRow& row, size_t at) {
    // score, low, high, evidence, effective_reviewers, reviews, tags, explanation, computed_at,
    // covers_block_num
    if (!as_real(row[at])) return nullptr;
    return Json{{"score", real_or_null(row[at])},
                {"low", real_or_null(row[at + 1])},
                {"high", real_or_null(row[at + 2])},
                {"evidence", real_or_null(row[at + 3])},
                {"effective_reviewers", real_or_null(row[at + 4])},
                {"reviews", int_or_null(row[at + 5])},
                {"tags", stored_json(as_text(row[at + 6]).value_or("{}"))},
                {"explanation", stored_json(as_text(row[at + 7]).value_or("{}"))},
                {"computed_at", int_or_null(row[at + 8])},
                {"covers_block_num", int_or_null(row[at + 9])}};
}

ApiResult<Json> load_score(Ctx& ctx, const core::Bytes& agent_id) {
    const std::array<DbValue, 3> params{chain(ctx), blob(ctx.scope.identity_registry),
                                        DbValue(agent_id)};
    auto rows = ctx.db.query(
        "SELECT score, low, high, evidence, effective_reviewers, reviews, tags, explanation, "
        "computed_at, covers_block_num FROM agent_scores "
        "WHERE chain_id = $1 AND registry = $2 AND agent_id = $3",
        params);
    if (!rows) return std::unexpected(unavailable(rows.error()));
    if (rows->empty()) return Json(nullptr);
    return score_json(rows->front(), 0);
}

/// ERC-8004 first draft §Reputation Registry: feedback is off-chain; the chain holds only the
/// server's authorizations (the feedback route lists them).
ApiError no_draft_reputation() {
    return not_found(
        "the first draft keeps feedback off-chain: no reputation on chain (ERC-8004 first draft "
        "§Reputation Registry); /feedback?revision=draft lists the agent's authorizations");
}

/// The agent's latest check as "v" ($2: the zero address), for the list query.
const std::string& agent_check_join() {
    static const std::string kJoin = index::latest_check_join(
        {index::SubjectKind::agent, "v", "a", "registry", "agent_id", "$2"});
    return kJoin;
}

}  // namespace

ApiResult<Json> list_agents(Ctx& ctx) {
    const HttpRequest& request = ctx.request;
    if (auto ok = check_params(
            request, {"q", "service", "skill", "domain", "trust_model", "active", "min_score",
                      "verification", "owner", "sort", "limit", "cursor"});
        !ok) {
        return std::unexpected(ok.error());
    }
    auto limit = limit_param(request);
    if (!limit) return std::unexpected(limit.error());
    // $1 the first chain, $2 the zero address (agent_check_join), then the chains' keys.
    SqlWhere where("", {chain(ctx), blob(core::Address{})});
    const ChainKeys chains(where, ctx.chains, [](const ApiScope& scope) {
        return std::vector<core::Address>{scope.identity_registry};
    });
    where.add(chains.clause("a", "registry"));
    // The agent profile: free text in search_text (migration 3), whole entries of its lists in
    // agent_profile_terms (migration 6; the list names are profile_store's).
    constexpr std::array<ListFilter, 5> kFilters{{
        {"q", "p.search_text", true},
        {"service", "service"},
        {"skill", "skill"},
        {"domain", "domain"},
        {"trust_model", "trust_model"},
    }};
    constexpr TermTable kTerms{"agent_profile_terms",
                               "{0}.chain_id = a.chain_id AND {0}.registry = a.registry AND "
                               "{0}.agent_id = a.agent_id"};
    if (auto ok = add_list_filters(request, kFilters, kTerms, where); !ok) {
        return std::unexpected(ok.error());
    }
    auto active = bool_param(request, "active");
    if (!active) return std::unexpected(active.error());
    if (const std::optional<bool> flag = *active; flag.has_value()) {
        where.add("p.active = ${}", int64_t{*flag ? 1 : 0});
    }
    auto min_score = number_param(request, "min_score");
    if (!min_score) return std::unexpected(min_score.error());
    if (const std::optional<double> floor = *min_score; floor.has_value()) {
        where.add("s.score >= ${}", *floor);
    }
    if (const std::string* owner = request.param("owner")) {
        auto address = parse_address(*owner, "owner");
        if (!address) return std::unexpected(address.error());
        where.add("a.owner = ${}", blob(*address));
    }
    if (auto ok = add_verification_filter(request, "v.status", where); !ok) {
        return std::unexpected(ok.error());
    }
    constexpr std::array<std::string_view, 3> kSorts{"id", "newest", "score"};
    auto sort_index = choice_param(request, "sort", kSorts, 0, "sort must be id, newest or score");
    if (!sort_index) return std::unexpected(sort_index.error());
    const std::string_view sort = kSorts.at(*sort_index);
    // Cursor parts: phase ("s" scored, "u" unscored, "a" any), last score ("" when none), last
    // agent_id, its chain. sort=score pages the scored agents by the score index first
    // (agent_scores_by_score keeps it an index walk), then the unscored ones by agentId. Across
    // chains the chain id breaks ties (docs/api.md §Chains: agents interleave by agentId).
    const std::string cursor_route = fmt::format("agents-{}", sort);
    std::string phase = sort == "score" ? "s" : "a";
    std::optional<double> last_score;
    std::optional<core::Bytes> last_id;
    int64_t last_chain = 0;
    auto cursor = cursor_param(request, cursor_route, 4);
    if (!cursor) return std::unexpected(cursor.error());
    if (const std::optional<std::vector<std::string>> parts = std::move(*cursor);
        parts.has_value()) {
        const std::string& part_phase = (*parts)[0];
        const bool phase_ok =
            sort == "score" ? (part_phase == "s" || part_phase == "u") : part_phase == "a";
        last_id = cursor_bytes((*parts)[2], 32);
        const auto chain_part = cursor_int((*parts)[3]);
        if (!last_id || !phase_ok || !chain_part) return std::unexpected(bad_cursor());
        last_chain = *chain_part;
        phase = part_phase;
        if (phase == "s") {
            last_score = cursor_double((*parts)[1]);
            if (!last_score) return std::unexpected(bad_cursor());
        }
    }
    // After (agent_id, chain) in `direction` ("<" or ">"); one chain needs no tie-break, and
    // the plain range keeps the key's index walk.
    const auto after_id = [&](SqlWhere& w, std::string_view direction) {
        const size_t id_n = w.bind(*last_id);
        if (!chains.several()) return fmt::format("a.agent_id {} ${}", direction, id_n);
        const size_t chain_n = w.bind(last_chain);
        return fmt::format("(a.agent_id {0} ${1} OR (a.agent_id = ${1} AND a.chain_id {0} ${2}))",
                           direction, id_n, chain_n);
    };
    const auto run_phase = [&](const std::string& which,
                               size_t wanted) -> index::DbResult<std::vector<DbRow>> {
        SqlWhere w = where;
        std::string order;
        const bool resume = last_id && which == phase;
        if (which == "s") {
            w.add(chains.clause("s", "registry") + " AND s.score IS NOT NULL");
            order = "s.score DESC, a.agent_id ASC, a.chain_id ASC";
            if (resume && last_score) {
                const size_t score_n = w.bind(*last_score);
                const std::string after = after_id(w, ">");
                w.add(fmt::format("(s.score < ${0} OR (s.score = ${0} AND {1}))", score_n, after));
            }
        } else {
            if (which == "u") w.add("s.score IS NULL");
            order = sort == "newest" ? "a.agent_id DESC, a.chain_id DESC"
                                     : "a.agent_id ASC, a.chain_id ASC";
            if (resume) w.add(after_id(w, sort == "newest" ? "<" : ">"));
        }
        const size_t limit_n = w.bind(static_cast<int64_t>(wanted));
        const std::string sql = fmt::format(
            "SELECT a.agent_id, a.owner, a.wallet, a.agent_uri, a.registered_block_num, p.name, "
            "p.description, p.image, p.active, p.service_names, v.status, s.score, s.low, s.high, "
            "s.reviews, a.revision, a.agent_domain, a.chain_id, a.registry FROM agents a "
            "LEFT JOIN agent_profiles p ON p.chain_id = a.chain_id AND p.registry = a.registry "
            "AND p.agent_id = a.agent_id "
            "LEFT JOIN agent_scores s ON s.chain_id = a.chain_id AND s.registry = a.registry AND "
            "s.agent_id = a.agent_id "
            "{}WHERE {} ORDER BY {} LIMIT ${}",
            agent_check_join(), w.sql(), order, limit_n);
        return ctx.db.query(sql, w.params());
    };
    auto rows = run_phase(phase, *limit + 1);
    if (!rows) return std::unexpected(unavailable(rows.error()));
    std::vector<std::string> row_phase(rows->size(), phase);
    if (phase == "s" && rows->size() <= *limit) {
        // The scored agents are exhausted: the unscored ones follow.
        phase = "u";
        last_id.reset();
        auto more = run_phase("u", *limit + 1 - rows->size());
        if (!more) return std::unexpected(unavailable(more.error()));
        for (auto& row : *more) {
            rows->push_back(std::move(row));
            row_phase.emplace_back("u");
        }
    }
    const auto item = [](const DbRow& row) {
        Json score = nullptr;
        if (as_real(row[11])) {
            score = Json{{"score", real_or_null(row[11])},
                         {"low", real_or_null(row[12])},
                         {"high", real_or_null(row[13])},
                         {"reviews", int_or_null(row[14])}};
        }
        const auto active_flag = as_int(row[8]);
        const auto chain_id = as_int(row[17]).value_or(0);
        auto registry = core::Address::from_bytes(as_bytes(row[18]));
        return Json{
            {"chain_id", chain_id},
            {"agent_registry",
             registry ? Json(agent_registry_of(static_cast<uint64_t>(chain_id), *registry))
                      : Json(nullptr)},
            {"agent_id", uint256_or_null(row[0])},
            {"owner", address_or_null(row[1])},
            {"wallet", address_or_null(row[2])},
            {"agent_uri", text_or_null(row[3])},
            {"registered_block_num", int_or_null(row[4])},
            {"name", nonempty_text_or_null(row[5])},
            {"description", nonempty_text_or_null(row[6])},
            {"image", nonempty_text_or_null(row[7])},
            {"active", active_flag ? Json(*active_flag != 0) : Json(nullptr)},
            {"services", comma_list(as_text(row[9]).value_or(""))},
            {"verification", text_or_null(row[10])},
            {"score", std::move(score)},
            {"revision", text_or_null(row[15])},
            {"agent_domain", text_or_null(row[16])},
        };
    };
    const auto cursor_parts = [&](size_t last) {
        const DbRow& row = (*rows)[last];
        const std::string& last_phase = row_phase[last];
        const auto score_value = as_real(row[11]);
        return std::array<std::string, 4>{
            last_phase, last_phase == "s" && score_value ? format_double(*score_value) : "",
            core::to_hex(as_bytes(row[0]), false), std::to_string(as_int(row[17]).value_or(0))};
    };
    Json out = Json::object();
    if (auto ok = put_page(out, *rows, *limit, cursor_route, item, cursor_parts); !ok) {
        return std::unexpected(ok.error());
    }
    return out;
}

ApiResult<Json> get_agent(Ctx& ctx) {
    if (auto ok = check_params(ctx.request, {}); !ok) return std::unexpected(ok.error());
    auto agent_id = agent_id_capture(ctx);
    if (!agent_id) return std::unexpected(agent_id.error());
    auto row = load_agent_row(ctx, *agent_id);
    if (!row) return std::unexpected(row.error());
    const std::array<DbValue, 3> key{chain(ctx), blob(ctx.scope.identity_registry),
                                     DbValue(*agent_id)};
    const std::string id_dec = uint256_or_null(DbValue(*agent_id)).get<std::string>();

    Json out{{"chain_id", ctx.scope.chain_id},
             {"agent_registry", agent_registry_of(ctx.scope.chain_id, ctx.scope.identity_registry)},
             {"agent_id", id_dec},
             {"owner", address_or_null((*row)[0])},
             {"wallet", address_or_null((*row)[2])},
             {"approved", address_or_null((*row)[3])},
             {"agent_uri", text_or_null((*row)[1])},
             {"registered_block_num", int_or_null((*row)[4])},
             {"registered_txn_hash", hex_or_null((*row)[5])},
             {"updated_block_num", int_or_null((*row)[6])},
             {"revision", text_or_null((*row)[7])}};
    const bool draft = ctx.scope.revision == core::Erc8004Revision::draft;
    if (draft) {
        // ERC-8004 first draft §Identity Registry: (AgentID, AgentDomain, AgentAddress).
        out["agent_domain"] = text_or_null((*row)[8]);
        out["agent_address"] = address_or_null((*row)[9]);
    }

    auto metadata = ctx.db.query(
        "SELECT metadata_key, metadata_value, block_num FROM agent_metadata "
        "WHERE chain_id = $1 AND registry = $2 AND agent_id = $3 ORDER BY metadata_key",
        key);
    if (!metadata) return std::unexpected(unavailable(metadata.error()));
    Json meta = Json::array();
    for (const DbRow& m : *metadata) {
        const core::Bytes value = as_bytes(m[1]);
        const std::string text(value.begin(), value.end());
        meta.push_back(Json{{"key", text_or_null(m[0])},
                            {"value", core::to_hex(value)},
                            {"text", is_valid_utf8(text) ? Json(text) : Json(nullptr)},
                            {"block_num", int_or_null(m[2])}});
    }
    out["metadata"] = std::move(meta);

    auto profile = ctx.db.query(
        "SELECT name, description, image, active, x402_support, services, service_names, skills, "
        "domains, trust_models, status, checked_at FROM agent_profiles "
        "WHERE chain_id = $1 AND registry = $2 AND agent_id = $3",
        key);
    if (!profile) return std::unexpected(unavailable(profile.error()));
    if (profile->empty()) {
        out["profile"] = nullptr;
    } else {
        const DbRow& p = profile->front();
        const auto flag = [](const DbValue& v) {
            auto i = as_int(v);
            return i ? Json(*i != 0) : Json(nullptr);
        };
        out["profile"] = Json{{"name", nonempty_text_or_null(p[0])},
                              {"description", nonempty_text_or_null(p[1])},
                              {"image", nonempty_text_or_null(p[2])},
                              {"active", flag(p[3])},
                              {"x402_support", flag(p[4])},
                              {"services", stored_json(as_text(p[5]).value_or("[]"))},
                              {"service_names", comma_list(as_text(p[6]).value_or(""))},
                              {"skills", comma_list(as_text(p[7]).value_or(""))},
                              {"domains", comma_list(as_text(p[8]).value_or(""))},
                              {"trust_models", comma_list(as_text(p[9]).value_or(""))},
                              {"status", text_or_null(p[10])},
                              {"checked_at", int_or_null(p[11])}};
    }

    const index::VerificationSubject subject{
        index::SubjectKind::agent, ctx.scope.identity_registry, *agent_id, {}, 0};
    auto record = index::load_verification(ctx.db, ctx.scope.chain_id, subject);
    if (!record) return std::unexpected(unavailable(record.error()));
    const std::optional<index::VerificationRecord> stored = std::move(*record);
    const index::VerificationFlags flags =
        stored.has_value() ? stored->flags : index::VerificationFlags{};
    const auto wallet = as_bytes((*row)[2]);
    const bool has_wallet =
        wallet.size() == 20 && std::ranges::any_of(wallet, [](uint8_t b) { return b != 0; });
    // ERC-8004 §Identity Registry: agentWallet is set only with a signature of that wallet, so
    // a stored wallet is a proven one.
    out["badges"] = Json{{"domain_verified", flags.has(index::VerificationFlag::domain_verified)},
                         {"agent_card", flags.has(index::VerificationFlag::agent_card)},
                         {"wallet", has_wallet}};
    out["verification"] = stored.has_value() ? verification_json(*stored) : Json(nullptr);

    auto score = load_score(ctx, *agent_id);
    if (!score) return std::unexpected(score.error());
    out["score"] = std::move(*score);

    auto feedback_counts = index::count_agent_feedback(ctx.db, ctx.scope.chain_id,
                                                       ctx.scope.reputation_registry, *agent_id);
    if (!feedback_counts) return std::unexpected(unavailable(feedback_counts.error()));
    const std::array<DbValue, 3> val_key{chain(ctx), blob(ctx.scope.validation_registry),
                                         DbValue(*agent_id)};
    auto validations = ctx.db.query(
        "SELECT COUNT(*) FROM validation_requests "
        "WHERE chain_id = $1 AND registry = $2 AND agent_id = $3",
        val_key);
    if (!validations) return std::unexpected(unavailable(validations.error()));
    out["counts"] = Json{{"feedback", feedback_counts->feedback},
                         {"revoked", feedback_counts->revoked},
                         {"responses", feedback_counts->responses},
                         {"validations", as_int(validations->front()[0]).value_or(0)}};
    if (draft) {
        const std::array<DbValue, 3> auth_key{chain(ctx), blob(ctx.scope.reputation_registry),
                                              DbValue(*agent_id)};
        auto authorizations = ctx.db.query(
            "SELECT COUNT(*) FROM contract_events WHERE chain_id = $1 AND address = $2 AND "
            "entity = $3 AND name = 'AuthFeedback'",
            auth_key);
        if (!authorizations) return std::unexpected(unavailable(authorizations.error()));
        out["counts"]["feedback_authorizations"] = as_int(authorizations->front()[0]).value_or(0);
    }
    auto history = agent_history(ctx, *agent_id);
    if (!history) return std::unexpected(history.error());
    out["history"] = std::move(*history);
    auto elsewhere = same_agent(ctx, *agent_id);
    if (!elsewhere) return std::unexpected(elsewhere.error());
    out["same_agent"] = std::move(*elsewhere);
    return out;
}

ApiResult<Json> list_feedback(Ctx& ctx) {
    const HttpRequest& request = ctx.request;
    if (auto ok =
            check_params(request, {"client", "tag1", "tag2", "include_revoked", "limit", "cursor"});
        !ok) {
        return std::unexpected(ok.error());
    }
    auto agent_id = agent_id_capture(ctx);
    if (!agent_id) return std::unexpected(agent_id.error());
    auto limit = limit_param(request);
    if (!limit) return std::unexpected(limit.error());
    auto clients = address_list(request, "client");
    if (!clients) return std::unexpected(clients.error());
    auto tag1 = text_param(request, "tag1");
    if (!tag1) return std::unexpected(tag1.error());
    auto tag2 = text_param(request, "tag2");
    if (!tag2) return std::unexpected(tag2.error());
    auto include_revoked = bool_param(request, "include_revoked");
    if (!include_revoked) return std::unexpected(include_revoked.error());
    if (auto agent = load_agent_row(ctx, *agent_id); !agent) {
        return std::unexpected(agent.error());
    }
    if (ctx.scope.revision == core::Erc8004Revision::draft) {
        return list_feedback_authorizations(ctx, *agent_id);
    }

    // ERC-8004 readAllFeedback's filters; keyset paging in chain order (index/feedback_table.hpp).
    index::FeedbackPageQuery query;
    query.chain_id = ctx.scope.chain_id;
    query.registry = ctx.scope.reputation_registry;
    query.agent_id = *agent_id;
    query.clients = *clients;
    query.tag1 = tag1->value_or("");
    query.tag2 = tag2->value_or("");
    query.include_revoked = include_revoked->value_or(false);
    // The cursor names its agent: a page of one agent's feedback never continues another's.
    const std::string cursor_route = "feedback-" + core::to_hex(*agent_id);
    auto cursor = cursor_param(request, cursor_route, 2);
    if (!cursor) return std::unexpected(cursor.error());
    if (const std::optional<std::vector<std::string>> parts = std::move(*cursor);
        parts.has_value()) {
        const auto block_num = cursor_int((*parts)[0]);
        const auto log_index = cursor_int((*parts)[1]);
        if (!block_num || !log_index) return std::unexpected(bad_cursor());
        query.after = std::pair{*block_num, *log_index};
    }
    query.limit = *limit + 1;
    auto rows = index::read_feedback_page(ctx.db, query);
    if (!rows) return std::unexpected(unavailable(rows.error()));
    const auto item = [&](const index::FeedbackRow& f) -> ApiResult<Json> {
        auto responses = index::read_feedback_responses(ctx.db, ctx.scope.chain_id,
                                                        ctx.scope.reputation_registry, *agent_id,
                                                        f.client, f.feedback_index);
        if (!responses) return std::unexpected(unavailable(responses.error()));
        Json answers = Json::array();
        for (const index::FeedbackResponse& r : *responses) {
            answers.push_back(Json{{"responder", r.responder.to_checksum_hex()},
                                   {"response_uri", r.response_uri},
                                   {"response_hash", core::to_hex(r.response_hash)},
                                   {"block_num", r.block_num},
                                   {"log_index", r.log_index},
                                   {"txn_hash", core::to_hex(r.txn_hash)}});
        }
        return Json{{"chain_id", ctx.scope.chain_id},
                    {"client", f.client.to_checksum_hex()},
                    {"feedback_index", static_cast<int64_t>(f.feedback_index)},
                    {"value", f.value},
                    {"value_decimals", static_cast<int64_t>(f.value_decimals)},
                    {"normalized", f.normalized},
                    {"tag1", f.tag1},
                    {"tag2", f.tag2},
                    {"endpoint", f.endpoint},
                    {"feedback_uri", f.feedback_uri},
                    {"feedback_hash", core::to_hex(f.feedback_hash)},
                    {"revoked", f.revoked},
                    {"block_num", f.block_num},
                    {"log_index", f.log_index},
                    {"txn_hash", core::to_hex(f.txn_hash)},
                    {"responses", std::move(answers)}};
    };
    const auto cursor_parts = [&](size_t last) {
        const index::FeedbackRow& row = (*rows)[last];
        return std::array<std::string, 2>{std::to_string(row.block_num),
                                          std::to_string(row.log_index)};
    };
    Json out = agent_identity(ctx, *agent_id);
    out["revision"] = std::string(core::to_string(ctx.scope.revision));
    if (auto ok = put_page(out, *rows, *limit, cursor_route, item, cursor_parts); !ok) {
        return std::unexpected(ok.error());
    }
    return out;
}

Json feedback_counts_json(std::span<const trust::FeedbackEntry> feedback) {
    std::set<core::Address> distinct;
    uint64_t revoked = 0;
    for (const auto& entry : feedback) {
        distinct.insert(entry.client);
        if (entry.revoked) ++revoked;
    }
    return Json{{"count", feedback.size()}, {"revoked", revoked}, {"clients", distinct.size()}};
}

ApiResult<Json> get_reputation(Ctx& ctx) {
    const HttpRequest& request = ctx.request;
    if (auto ok = check_params(request, {"client", "tag1", "tag2"}); !ok) {
        return std::unexpected(ok.error());
    }
    auto agent_id = agent_id_capture(ctx);
    if (!agent_id) return std::unexpected(agent_id.error());
    auto clients = address_list(request, "client");
    if (!clients) return std::unexpected(clients.error());
    auto tag1 = text_param(request, "tag1");
    if (!tag1) return std::unexpected(tag1.error());
    auto tag2 = text_param(request, "tag2");
    if (!tag2) return std::unexpected(tag2.error());
    if (auto agent = load_agent_row(ctx, *agent_id); !agent) {
        return std::unexpected(agent.error());
    }
    if (ctx.scope.revision == core::Erc8004Revision::draft)
        return std::unexpected(no_draft_reputation());
    if (ctx.scope.revision == core::Erc8004Revision::score) {
        return score_reputation(ctx, *agent_id);
    }
    auto feedback =
        trust::load_feedback(ctx.db, ctx.scope.chain_id, ctx.scope.reputation_registry, *agent_id);
    if (!feedback) return std::unexpected(unavailable(feedback.error()));
    // ERC-8004 §Reputation Registry getSummary, mirrored exactly (trust/summary.hpp): the deployed
    // v2.0.0 registries' rules at their addresses; any other registry the node follows comes from
    // a Credence deployment file (docs/compatibility.md §The getSummary mirror).
    const trust::SummaryRules rules =
        trust::known_summary_rules(ctx.scope.chain_id, ctx.scope.reputation_registry)
            .value_or(trust::SummaryRules::credence);
    auto summary = trust::reputation_summary(*feedback, *clients, tag1->value_or(""),
                                             tag2->value_or(""), rules);
    Json out = agent_identity(ctx, *agent_id);
    if (summary) {
        out["summary"] = Json{{"count", summary->count},
                              {"summary_value", summary->summary_value.to_dec()},
                              {"summary_value_decimals", summary->summary_value_decimals}};
        out["summary_error"] = nullptr;
    } else {
        out["summary"] = nullptr;
        out["summary_error"] = std::string(trust::to_string(summary.error().code));
    }
    Json client_list = Json::array();
    for (const auto& c : *clients) client_list.push_back(c.to_checksum_hex());
    out["clients"] = std::move(client_list);
    out["summary_rules"] = std::string(trust::to_string(rules));
    out["tag1"] = tag1->value_or("");
    out["tag2"] = tag2->value_or("");
    auto score = load_score(ctx, *agent_id);
    if (!score) return std::unexpected(score.error());
    out["score"] = std::move(*score);
    out["feedback"] = feedback_counts_json(*feedback);
    return out;
}

ApiResult<Json> get_reputation_history(Ctx& ctx) {
    if (auto ok = check_params(ctx.request, {"buckets"}); !ok) return std::unexpected(ok.error());
    auto agent_id = agent_id_capture(ctx);
    if (!agent_id) return std::unexpected(agent_id.error());
    auto buckets = int_param(ctx.request, "buckets", 1, 500, 50);
    if (!buckets) return std::unexpected(buckets.error());
    if (auto agent = load_agent_row(ctx, *agent_id); !agent) {
        return std::unexpected(agent.error());
    }
    if (ctx.scope.revision == core::Erc8004Revision::draft)
        return std::unexpected(no_draft_reputation());
    auto rows = index::read_feedback_points(ctx.db, ctx.scope.chain_id,
                                            ctx.scope.reputation_registry, *agent_id);
    if (!rows) return std::unexpected(unavailable(rows.error()));
    Json out = agent_identity(ctx, *agent_id);
    Json points = Json::array();
    if (rows->empty()) {
        out["from_block_num"] = nullptr;
        out["to_block_num"] = nullptr;
        out["bucket_blocks"] = nullptr;
        out["points"] = std::move(points);
        return out;
    }
    const int64_t first = rows->front().block_num;
    const int64_t last = rows->back().block_num;
    const int64_t span = last - first + 1;
    const int64_t width = std::max<int64_t>(1, (span + *buckets - 1) / *buckets);
    int64_t cumulative_count = 0;
    double cumulative_sum = 0;
    size_t i = 0;
    while (i < rows->size()) {
        const int64_t bucket = ((*rows)[i].block_num - first) / width;
        int64_t count = 0;
        double sum = 0;
        while (i < rows->size() && ((*rows)[i].block_num - first) / width == bucket) {
            ++count;
            sum += (*rows)[i].normalized;
            ++i;
        }
        cumulative_count += count;
        cumulative_sum += sum;
        points.push_back(
            Json{{"block_num", first + (bucket + 1) * width - 1},
                 {"count", count},
                 {"average", sum / static_cast<double>(count)},
                 {"cumulative_count", cumulative_count},
                 {"cumulative_average", cumulative_sum / static_cast<double>(cumulative_count)}});
    }
    out["from_block_num"] = first;
    out["to_block_num"] = last;
    out["bucket_blocks"] = width;
    out["points"] = std::move(points);
    return out;
}

ApiResult<Json> list_validations(Ctx& ctx) {
    if (auto ok = check_params(ctx.request, {"validator", "tag"}); !ok) {
        return std::unexpected(ok.error());
    }
    auto agent_id = agent_id_capture(ctx);
    if (!agent_id) return std::unexpected(agent_id.error());
    auto validators = address_list(ctx.request, "validator");
    if (!validators) return std::unexpected(validators.error());
    auto tag = text_param(ctx.request, "tag");
    if (!tag) return std::unexpected(tag.error());
    if (auto agent = load_agent_row(ctx, *agent_id); !agent) {
        return std::unexpected(agent.error());
    }
    const std::array<DbValue, 3> key{chain(ctx), blob(ctx.scope.validation_registry),
                                     DbValue(*agent_id)};
    auto rows = ctx.db.query(
        "SELECT request_hash, validator, request_uri, block_num, txn_hash, response, "
        "response_uri, response_hash, response_tag, response_block_num, response_count, "
        "validator_agent_id FROM validation_requests WHERE chain_id = $1 AND registry = $2 AND "
        "agent_id = $3 "
        "ORDER BY COALESCE(block_num, response_block_num), request_hash LIMIT 500",
        key);
    if (!rows) return std::unexpected(unavailable(rows.error()));
    auto entries = trust::load_validations(ctx.db, ctx.scope.chain_id,
                                           ctx.scope.validation_registry, *agent_id);
    if (!entries) return std::unexpected(unavailable(entries.error()));
    // ValidationRegistry.getSummary(agentId, validatorAddresses, tag) (trust/summary.hpp).
    const auto summary = trust::validation_summary(*entries, *validators, tag->value_or(""));
    Json items = Json::array();
    for (const DbRow& r : *rows) {
        items.push_back(Json{{"chain_id", ctx.scope.chain_id},
                             {"request_hash", hex_or_null(r[0])},
                             {"validator", address_or_null(r[1])},
                             {"request_uri", text_or_null(r[2])},
                             {"block_num", int_or_null(r[3])},
                             {"txn_hash", hex_or_null(r[4])},
                             {"response", int_or_null(r[5])},
                             {"response_uri", text_or_null(r[6])},
                             {"response_hash", hex_or_null(r[7])},
                             {"response_tag", text_or_null(r[8])},
                             {"response_block_num", int_or_null(r[9])},
                             {"response_count", int_or_null(r[10])}});
        // ERC-8004 first draft §Validation Registry: the validator is an agent (its AgentID).
        if (ctx.scope.revision == core::Erc8004Revision::draft) {
            items.back()["validator_agent_id"] = uint256_or_null(r[11]);
        }
    }
    // The first draft has no getSummary (ERC-8004 first draft §Validation Registry).
    Json summary_json =
        ctx.scope.revision == core::Erc8004Revision::draft
            ? Json(nullptr)
            : Json{{"count", summary.count}, {"average_response", summary.average_response}};
    Json out = agent_identity(ctx, *agent_id);
    out["revision"] = std::string(core::to_string(ctx.scope.revision));
    out["summary"] = std::move(summary_json);
    out["items"] = std::move(items);
    return out;
}

}  // namespace credence::api::detail
