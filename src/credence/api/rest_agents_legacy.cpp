// The agent routes over the earlier ERC-8004 revisions (docs/api.md §Earlier ERC-8004 revisions):
// which records name the same agent across revisions, the first draft's feedback authorizations
// and the intermediate revision's getSummary. rest_api.cpp swaps the scope's registries for
// `?revision=`; rest_agents.cpp calls these where a revision answers differently.
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <credence/api/detail/rest_common.hpp>
#include <credence/api/detail/rest_list.hpp>
#include <credence/trust/legacy_summary.hpp>
#include <credence/trust/summary.hpp>

namespace credence::api::detail {

namespace {

using index::DbRow;
using index::DbValue;

using core::Erc8004Revision;

/// What history needs of the record asked about.
struct HistoryRecord {
    core::Address owner{};
    std::string agent_uri;
    std::string agent_domain;          ///< the first draft's AgentDomain, lowercased
    std::vector<std::string> domains;  ///< verified domains, lowercased (other revisions)
};

ApiResult<std::optional<HistoryRecord>> load_history_record(Ctx& ctx, const core::Address& registry,
                                                            const core::Bytes& agent_id) {
    const std::array<DbValue, 3> key{chain(ctx), blob(registry), DbValue(agent_id)};
    auto rows = ctx.db.query(
        "SELECT owner, agent_uri, agent_domain FROM agents "
        "WHERE chain_id = $1 AND registry = $2 AND agent_id = $3",
        key);
    if (!rows) return std::unexpected(unavailable(rows.error()));
    if (rows->empty()) return std::optional<HistoryRecord>{};
    const DbRow& row = rows->front();
    HistoryRecord r;
    const core::Bytes owner = as_bytes(row[0]);
    if (owner.size() != 20) return std::optional<HistoryRecord>{};
    std::copy(owner.begin(), owner.end(), r.owner.bytes.begin());
    r.agent_uri = as_text(row[1]).value_or("");
    r.agent_domain = ascii_lower(as_text(row[2]).value_or(""));
    auto terms = ctx.db.query(
        "SELECT term FROM agent_profile_terms WHERE chain_id = $1 AND registry = $2 AND "
        "agent_id = $3 AND list = 'domain'",
        key);
    if (!terms) return std::unexpected(unavailable(terms.error()));
    for (const DbRow& t : *terms) r.domains.push_back(ascii_lower(as_text(t[0]).value_or("")));
    return std::optional<HistoryRecord>{std::move(r)};
}

/// The records of `registry` (revision `other`) that name the same agent as `self` (of
/// `self_revision`): docs/api.md §Earlier ERC-8004 revisions, "the same agent".
ApiResult<std::vector<DbRow>> matching_records(Ctx& ctx, const HistoryRecord& self,
                                               Erc8004Revision self_revision, Erc8004Revision other,
                                               const core::Address& registry) {
    std::vector<DbValue> params{chain(ctx), blob(registry), blob(self.owner)};
    std::string match;
    if (other == Erc8004Revision::draft) {
        // The draft record's AgentDomain is a domain this agent's registration file proved.
        if (self.domains.empty()) return std::vector<DbRow>{};
        match = "lower(a.agent_domain) IN " + placeholders(4, self.domains.size());
        for (const auto& d : self.domains) params.emplace_back(d);
    } else if (self_revision == Erc8004Revision::draft) {
        if (self.agent_domain.empty()) return std::vector<DbRow>{};
        match =
            "EXISTS (SELECT 1 FROM agent_profile_terms t WHERE t.chain_id = a.chain_id AND "
            "t.registry = a.registry AND t.agent_id = a.agent_id AND t.list = 'domain' AND "
            "lower(t.term) = $4)";
        params.emplace_back(self.agent_domain);
    } else {
        // Both keep a registration file: the same file at the same agentURI.
        if (self.agent_uri.empty()) return std::vector<DbRow>{};
        match = "a.agent_uri = $4";
        params.emplace_back(self.agent_uri);
    }
    auto rows =
        ctx.db.query(fmt::format("SELECT a.agent_id, a.agent_uri, a.agent_domain, "
                                 "a.registered_block_num, a.registered_txn_hash FROM agents a "
                                 "WHERE a.chain_id = $1 AND a.registry = $2 AND a.owner = $3 AND "
                                 "{} ORDER BY a.agent_id LIMIT 20",
                                 match),
                     params);
    if (!rows) return std::unexpected(unavailable(rows.error()));
    return std::move(*rows);
}

}  // namespace

std::optional<core::Address> identity_of(const ApiScope& scope, Erc8004Revision revision) {
    if (revision == scope.revision) return scope.identity_registry;
    switch (revision) {
        case Erc8004Revision::current:
            if (scope.current) return scope.current->identity;
            return std::nullopt;
        case Erc8004Revision::score:
            if (scope.score) return scope.score->identity;
            return std::nullopt;
        case Erc8004Revision::draft:
            if (scope.draft) return scope.draft->identity;
            return std::nullopt;
    }
    return std::nullopt;
}

ApiResult<Json> agent_history(Ctx& ctx, const core::Bytes& agent_id) {
    // The records linked to this one, and to those, and so on (a record of the first draft and
    // one of the intermediate revision are the same agent when each is the current one's).
    struct Found {
        Erc8004Revision revision;
        core::Bytes agent_id;
    };
    Json out = Json::array();
    // A node that follows one revision has no history to look for: no query.
    constexpr std::array kRevisions{Erc8004Revision::draft, Erc8004Revision::score,
                                    Erc8004Revision::current};
    if (std::ranges::none_of(kRevisions, [&](Erc8004Revision r) {
            return r != ctx.scope.revision && identity_of(ctx.scope, r).has_value();
        })) {
        return out;
    }
    std::vector<Found> seen{{ctx.scope.revision, agent_id}};
    constexpr size_t kMaxRecords = 20;
    for (size_t next = 0; next < seen.size() && seen.size() < kMaxRecords; ++next) {
        const Found from = seen[next];
        const std::optional<core::Address> from_registry = identity_of(ctx.scope, from.revision);
        if (!from_registry) continue;
        auto self = load_history_record(ctx, *from_registry, from.agent_id);
        if (!self) return std::unexpected(self.error());
        if (!*self) continue;
        for (const Erc8004Revision other : kRevisions) {
            if (other == from.revision) continue;
            const std::optional<core::Address> registry = identity_of(ctx.scope, other);
            if (!registry) continue;
            auto rows = matching_records(ctx, **self, from.revision, other, *registry);
            if (!rows) return std::unexpected(rows.error());
            for (const DbRow& r : *rows) {
                const core::Bytes id = as_bytes(r[0]);
                if (std::ranges::any_of(seen, [&](const Found& f) {
                        return f.revision == other && f.agent_id == id;
                    })) {
                    continue;
                }
                seen.push_back({other, id});
                Json item{{"revision", std::string(core::to_string(other))},
                          {"agent_registry", fmt::format("eip155:{}:{}", ctx.scope.chain_id,
                                                         registry->to_checksum_hex())},
                          {"agent_id", uint256_or_null(r[0])},
                          {"matched_by", other == Erc8004Revision::draft ||
                                                 from.revision == Erc8004Revision::draft
                                             ? "owner_and_verified_domain"
                                             : "owner_and_agent_uri"},
                          {"registered_block_num", int_or_null(r[3])},
                          {"registered_txn_hash", hex_or_null(r[4])}};
                if (other == Erc8004Revision::draft) {
                    item["agent_domain"] = text_or_null(r[2]);
                } else {
                    item["agent_uri"] = text_or_null(r[1]);
                }
                out.push_back(std::move(item));
            }
        }
    }
    // Oldest first: the order the agent moved in (ties, and unknown blocks last, by revision).
    std::vector<Json> items(out.begin(), out.end());
    const auto key = [](const Json& j) {
        const Json& block = j["registered_block_num"];
        return std::pair{block.is_number() ? block.get<int64_t>() : INT64_MAX,
                         j["revision"].get<std::string>()};
    };
    std::sort(items.begin(), items.end(),
              [&](const Json& a, const Json& b) { return key(a) < key(b); });
    return Json(std::move(items));
}

ApiResult<Json> list_feedback_authorizations(Ctx& ctx, const core::Bytes& agent_id) {
    if (auto ok = check_params(ctx.request, {"limit", "cursor"}); !ok) {
        return std::unexpected(ok.error());
    }
    auto limit = limit_param(ctx.request);
    if (!limit) return std::unexpected(limit.error());
    std::vector<DbValue> params{chain(ctx), blob(ctx.scope.reputation_registry), DbValue(agent_id)};
    std::string after;
    const std::string cursor_route = "authorizations-" + core::to_hex(agent_id);
    auto cursor = cursor_param(ctx.request, cursor_route, 2);
    if (!cursor) return std::unexpected(cursor.error());
    if (const std::optional<std::vector<std::string>> parts = std::move(*cursor);
        parts.has_value()) {
        const auto block_num = cursor_int((*parts)[0]);
        const auto log_index = cursor_int((*parts)[1]);
        if (!block_num || !log_index) return std::unexpected(bad_cursor());
        params.emplace_back(*block_num);
        params.emplace_back(*log_index);
        after = " AND (block_num > $4 OR (block_num = $4 AND log_index > $5))";
    }
    params.emplace_back(static_cast<int64_t>(*limit + 1));
    // ERC-8004 first draft §Reputation Registry: AcceptFeedback emits AuthFeedback(AgentClientID,
    // AgentServerID, FeedbackAuthID); the feedback itself lives off-chain (index: a
    // contract_events row of the server agent).
    auto rows =
        ctx.db.query(fmt::format("SELECT block_num, log_index, args, txn_hash FROM contract_events "
                                 "WHERE chain_id = $1 AND address = $2 AND entity = $3 AND name = "
                                 "'AuthFeedback'{} ORDER BY block_num, log_index LIMIT ${}",
                                 after, params.size()),
                     params);
    if (!rows) return std::unexpected(unavailable(rows.error()));
    const auto item = [](const DbRow& r) {
        const Json args = stored_json(as_text(r[2]).value_or("{}"));
        const auto field = [&](const char* name) {
            return args.is_object() && args.contains(name) ? args[name] : Json(nullptr);
        };
        return Json{{"agent_client_id", field("agentClientId")},
                    {"agent_server_id", field("agentServerId")},
                    {"feedback_auth_id", field("feedbackAuthId")},
                    {"block_num", int_or_null(r[0])},
                    {"log_index", int_or_null(r[1])},
                    {"txn_hash", hex_or_null(r[3])}};
    };
    const auto cursor_parts = [&](size_t last) {
        const DbRow& r = (*rows)[last];
        return std::array<std::string, 2>{std::to_string(as_int(r[0]).value_or(0)),
                                          std::to_string(as_int(r[1]).value_or(0))};
    };
    Json out{{"chain_id", ctx.scope.chain_id},
             {"agent_registry", agent_registry_of(ctx.scope.chain_id, ctx.scope.identity_registry)},
             {"agent_id", uint256_or_null(DbValue(agent_id))},
             {"revision", "draft"}};
    if (auto ok = put_page(out, *rows, *limit, cursor_route, item, cursor_parts); !ok) {
        return std::unexpected(ok.error());
    }
    return out;
}

ApiResult<Json> score_reputation(Ctx& ctx, const core::Bytes& agent_id) {
    const HttpRequest& request = ctx.request;
    auto clients = address_list(request, "client");
    if (!clients) return std::unexpected(clients.error());
    auto tag1 = text_param(request, "tag1");
    if (!tag1) return std::unexpected(tag1.error());
    auto tag2 = text_param(request, "tag2");
    if (!tag2) return std::unexpected(tag2.error());
    auto feedback =
        trust::load_feedback(ctx.db, ctx.scope.chain_id, ctx.scope.reputation_registry, agent_id);
    if (!feedback) return std::unexpected(unavailable(feedback.error()));
    // ERC-8004 intermediate §Read Functions: getSummary(agentId, clientAddresses, tag1, tag2)
    // -> (count, averageScore), every client when none is listed.
    auto summary =
        trust::score_summary(*feedback, *clients, tag1->value_or(""), tag2->value_or(""));
    Json out{{"chain_id", ctx.scope.chain_id},
             {"agent_registry", agent_registry_of(ctx.scope.chain_id, ctx.scope.identity_registry)},
             {"agent_id", uint256_or_null(DbValue(agent_id))},
             {"revision", "score"}};
    if (summary) {
        out["summary"] = Json{{"count", summary->count}, {"average_score", summary->average_score}};
        out["summary_error"] = nullptr;
    } else {
        out["summary"] = nullptr;
        out["summary_error"] = "not_a_score";
    }
    Json client_list = Json::array();
    for (const auto& c : *clients) client_list.push_back(c.to_checksum_hex());
    out["clients"] = std::move(client_list);
    out["tag1"] = tag1->value_or("");
    out["tag2"] = tag2->value_or("");
    out["feedback"] = feedback_counts_json(*feedback);
    return out;
}

}  // namespace credence::api::detail
