#include <credence/verify/verifiers/resolver.hpp>

#include <algorithm>
#include <utility>

namespace credence::verify {
namespace {

using Json = nlohmann::ordered_json;
using index::DbValue;

core::Bytes blob(const core::Address& a) { return {a.bytes.begin(), a.bytes.end()}; }

std::optional<core::Address> address_of(const DbValue& v) {
    const auto* b = std::get_if<core::Bytes>(&v);
    if (b == nullptr) return std::nullopt;
    auto a = core::Address::from_bytes(*b);
    if (!a) return std::nullopt;
    return *a;
}

/// Columns: chain_id, registry, agent_id, owner, agent_uri, wallet.
constexpr std::string_view kSelect =
    "SELECT chain_id, registry, agent_id, owner, agent_uri, wallet FROM agents";
constexpr std::string_view kOrder = " ORDER BY chain_id, registry, agent_id";

/// Appends the filter's conditions ("chain_id = $n", "registry = $n") to `sql` and `params`.
void add_filter(std::string& sql, std::vector<DbValue>& params, const IndexFilter& filter,
                bool has_where) {
    const auto add = [&](std::string_view column, DbValue value) {
        params.push_back(std::move(value));
        sql += has_where ? " AND " : " WHERE ";
        has_where = true;
        sql += std::string(column) + " = $" + std::to_string(params.size());
    };
    if (filter.chain_id) add("chain_id", static_cast<int64_t>(*filter.chain_id));
    if (filter.registry) add("registry", blob(*filter.registry));
}

std::optional<OnChainAgent> agent_of(const index::DbRow& row) {
    OnChainAgent a;
    const auto* chain = std::get_if<int64_t>(&row[0]);
    auto registry = address_of(row[1]);
    const auto* id = std::get_if<core::Bytes>(&row[2]);
    auto owner = address_of(row[3]);
    if (chain == nullptr || *chain < 0 || !registry || id == nullptr || !owner) return std::nullopt;
    auto agent_id = core::Uint256::from_be_bytes(*id);
    if (!agent_id) return std::nullopt;
    a.chain_id = static_cast<uint64_t>(*chain);
    a.identity_registry = *registry;
    a.agent_id = *agent_id;
    a.owner = *owner;
    if (const auto* uri = std::get_if<std::string>(&row[4])) a.agent_uri = *uri;
    a.wallet = address_of(row[5]);
    return a;
}

index::DbResult<std::vector<OnChainAgent>> query_agents(index::Database& db, const std::string& sql,
                                                        const std::vector<DbValue>& params) {
    auto rows = db.query(sql, params);
    if (!rows) return std::unexpected(std::move(rows.error()));
    std::vector<OnChainAgent> out;
    out.reserve(rows->size());
    for (const auto& row : *rows) {
        if (auto a = agent_of(row)) out.push_back(std::move(*a));
    }
    return out;
}

}  // namespace

std::string_view to_string(ResolveMatch m) noexcept {
    switch (m) {
        case ResolveMatch::owner:
            return "owner";
        case ResolveMatch::wallet:
            return "wallet";
        case ResolveMatch::domain:
            return "domain";
    }
    return "unknown";
}

nlohmann::ordered_json ResolvedAgent::to_json() const {
    Json j = agent.to_json();
    j["domains"] = domains;
    Json by = Json::array();
    for (const auto m : matched_by) by.push_back(std::string(to_string(m)));
    j["matchedBy"] = std::move(by);
    return j;
}

index::DbResult<std::vector<OnChainAgent>> load_indexed_agents(index::Database& db,
                                                               const IndexFilter& filter) {
    std::string sql(kSelect);
    std::vector<DbValue> params;
    add_filter(sql, params, filter, false);
    sql += kOrder;
    return query_agents(db, sql, params);
}

index::DbResult<std::vector<ResolvedAgent>> resolve_by_address(index::Database& db,
                                                               const core::Address& address,
                                                               const IndexFilter& filter) {
    // First draft ResolveByAddress(AgentAddress); in the final text the agent's addresses are its
    // owner (ERC-721) and its agentWallet (ERC-8004 §On-chain metadata).
    std::string sql(kSelect);
    std::vector<DbValue> params{blob(address)};
    sql += " WHERE (owner = $1 OR wallet = $1)";
    add_filter(sql, params, filter, true);
    sql += kOrder;
    auto agents = query_agents(db, sql, params);
    if (!agents) return std::unexpected(std::move(agents.error()));
    std::vector<ResolvedAgent> out;
    for (auto& a : *agents) {
        ResolvedAgent r;
        if (a.owner == address) r.matched_by.push_back(ResolveMatch::owner);
        if (a.wallet && *a.wallet == address) r.matched_by.push_back(ResolveMatch::wallet);
        r.agent = std::move(a);
        out.push_back(std::move(r));
    }
    return out;
}

std::optional<std::string> normalize_domain(std::string_view domain_or_url) {
    if (domain_or_url.find("://") != std::string_view::npos) {
        auto d = endpoint_domain(domain_or_url);
        if (!d) return std::nullopt;
        return std::move(*d);
    }
    auto d = endpoint_domain("https://" + std::string(domain_or_url) + "/");
    if (!d) return std::nullopt;
    return std::move(*d);
}

std::vector<ResolvedAgent> resolve_by_domain(std::span<const AgentVerification> verifications,
                                             std::string_view domain) {
    std::vector<ResolvedAgent> out;
    const auto wanted = normalize_domain(domain);
    if (!wanted) return out;
    for (const auto& v : verifications) {
        auto domains = v.verified_domains();
        if (std::find(domains.begin(), domains.end(), *wanted) == domains.end()) continue;
        ResolvedAgent r;
        r.agent = v.agent;
        r.domains = std::move(domains);
        r.matched_by.push_back(ResolveMatch::domain);
        out.push_back(std::move(r));
    }
    return out;
}

index::DbResult<std::vector<ResolvedAgent>> resolve_domain_live(index::Database& db,
                                                                Fetcher& fetcher,
                                                                std::string_view domain,
                                                                const IndexFilter& filter) {
    auto agents = load_indexed_agents(db, filter);
    if (!agents) return std::unexpected(std::move(agents.error()));
    AgentVerifyOptions options;
    options.fetch_agent_cards = false;  // cards do not decide domains
    const auto verified = verify_agents(*agents, fetcher, options);
    return resolve_by_domain(verified, domain);
}

}  // namespace credence::verify
