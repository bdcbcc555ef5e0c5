// The same agent on several chains (docs/api.md §The same agent on several chains): records of
// the followed chains' identity registries that name each other in their registration files'
// `registrations` (ERC-8004 §Agent URI and Agent Registration File) and share their owner. Like the
// history across revisions (rest_agents_legacy.cpp), the links are followed transitively from the
// record asked about, reading only the index: the owner from `agents`, the file from the latest
// check's report in `verifications`.
#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <credence/api/detail/rest_common.hpp>
#include <credence/core/caip.hpp>
#include <credence/core/json_lenient.hpp>
#include <credence/core/uint256.hpp>
#include <credence/index/verification_table.hpp>

namespace credence::api::detail {

namespace {

using index::DbValue;

/// One record: an agentId in one chain's identity registry.
struct ChainRecord {
    uint64_t chain_id = 0;
    core::Address registry{};
    core::Bytes agent_id;  ///< 32 bytes, big-endian
    friend bool operator==(const ChainRecord&, const ChainRecord&) = default;
};

/// What the link rule reads of a record: its owner and the entries of its registration file.
struct LinkFacts {
    core::Address owner{};
    std::vector<ChainRecord> registrations;
};

/// A `registrations` entry's agentId: a JSON integer or a decimal string (files use both).
std::optional<core::Bytes> entry_agent_id(const Json& value) {
    std::optional<core::Uint256> id;
    if (value.is_number_unsigned()) {
        id = core::Uint256{value.get<uint64_t>()};
    } else if (value.is_string()) {
        auto parsed = core::Uint256::from_dec(value.get<std::string>());
        if (parsed) id = *parsed;
    }
    if (!id) return std::nullopt;
    const auto bytes = id->to_word();
    return core::Bytes(bytes.begin(), bytes.end());
}

/// The registration file's `registrations` as the latest check of `record` read it, when that
/// file is the record's own: the check found the entry naming this very record (ERC-8004 §Agent
/// URI and Agent Registration File), so whoever controls the agentURI vouches for the others.
/// Empty when the record was never checked, its file was not read, or it does not name itself.
ApiResult<std::vector<ChainRecord>> own_registrations(Ctx& ctx, const ChainRecord& record) {
    const index::VerificationSubject subject{
        index::SubjectKind::agent, record.registry, record.agent_id, {}, 0};
    auto loaded = index::load_verification(ctx.db, record.chain_id, subject);
    if (!loaded) return std::unexpected(unavailable(loaded.error()));
    const std::optional<index::VerificationRecord> stored = std::move(*loaded);
    std::vector<ChainRecord> out;
    if (!stored.has_value()) return out;
    using core::lenient::member;
    const Json report = Json::parse(stored->report_json, nullptr, false);
    if (core::lenient::bool_at(member(report, "registration"), "matches") != true) return out;
    const Json& entries =
        member(member(member(report, "registrationFile"), "document"), "registrations");
    if (!entries.is_array()) return out;
    for (const Json& entry : entries) {
        const auto registry =
            core::parse_agent_registry(core::lenient::string_at(entry, "agentRegistry"));
        auto agent_id = entry_agent_id(member(entry, "agentId"));
        if (!registry || !agent_id) continue;
        out.push_back(
            {registry->chain_id, core::Address{registry->identity_registry}, std::move(*agent_id)});
    }
    return out;
}

/// The record's owner and own registrations; nullopt when the index holds no such record.
ApiResult<std::optional<LinkFacts>> link_facts(Ctx& ctx, const ChainRecord& record) {
    const std::array<DbValue, 3> key{static_cast<int64_t>(record.chain_id), blob(record.registry),
                                     DbValue(record.agent_id)};
    auto rows = ctx.db.query(
        "SELECT owner FROM agents WHERE chain_id = $1 AND registry = $2 AND agent_id = $3", key);
    if (!rows) return std::unexpected(unavailable(rows.error()));
    if (rows->empty()) return std::optional<LinkFacts>{};
    auto owner = core::Address::from_bytes(as_bytes(rows->front()[0]));
    if (!owner) return std::optional<LinkFacts>{};
    auto registrations = own_registrations(ctx, record);
    if (!registrations) return std::unexpected(registrations.error());
    return std::optional<LinkFacts>{LinkFacts{*owner, std::move(*registrations)}};
}

}  // namespace

ApiResult<Json> same_agent(Ctx& ctx, const core::Bytes& agent_id) {
    Json out = Json::array();
    // The rule reads registration files, which only the current revision's records have in this
    // shape; and a node following one chain has no other chain to look on: no query.
    if (ctx.scope.revision != core::Erc8004Revision::current || ctx.chains.size() < 2) return out;
    const auto followed = [&](const ChainRecord& r) {
        return std::ranges::any_of(ctx.chains, [&](const ApiScope& s) {
            return s.chain_id == r.chain_id && s.identity_registry == r.registry;
        });
    };
    const ChainRecord self{ctx.scope.chain_id, ctx.scope.identity_registry, agent_id};
    auto self_loaded = link_facts(ctx, self);
    if (!self_loaded) return std::unexpected(self_loaded.error());
    std::optional<LinkFacts> self_facts = std::move(*self_loaded);
    if (!self_facts.has_value()) return out;
    const core::Address owner = self_facts->owner;
    // Breadth-first over mutual links; every record found is the same owner's.
    std::vector<std::pair<ChainRecord, LinkFacts>> found{{self, std::move(*self_facts)}};
    constexpr size_t kMaxRecords = 20;
    for (size_t next = 0; next < found.size() && found.size() < kMaxRecords; ++next) {
        const ChainRecord from = found[next].first;
        // A copy: `found` grows below.
        const std::vector<ChainRecord> named = found[next].second.registrations;
        for (const ChainRecord& candidate : named) {
            if (found.size() >= kMaxRecords) break;
            // Another followed chain only: one chain's records are one registry's agents.
            if (candidate.chain_id == from.chain_id || !followed(candidate)) continue;
            if (std::ranges::any_of(found, [&](const auto& f) { return f.first == candidate; })) {
                continue;
            }
            auto loaded = link_facts(ctx, candidate);
            if (!loaded) return std::unexpected(loaded.error());
            std::optional<LinkFacts> facts = std::move(*loaded);
            if (!facts.has_value() || facts->owner != owner) continue;
            // Mutual: the candidate's own file names the record that named it.
            if (std::ranges::find(facts->registrations, from) == facts->registrations.end()) {
                continue;
            }
            found.emplace_back(candidate, std::move(*facts));
        }
    }
    // Stable for clients: by chain, then agentId (32 big-endian bytes order as the numbers do).
    std::vector<ChainRecord> others;
    for (size_t i = 1; i < found.size(); ++i) others.push_back(std::move(found[i].first));
    std::ranges::sort(others, [](const ChainRecord& a, const ChainRecord& b) {
        return std::tie(a.chain_id, a.agent_id) < std::tie(b.chain_id, b.agent_id);
    });
    for (const ChainRecord& r : others) {
        out.push_back(Json{{"chain_id", r.chain_id},
                           {"agent_registry", agent_registry_of(r.chain_id, r.registry)},
                           {"agent_id", uint256_or_null(DbValue(r.agent_id))}});
    }
    return out;
}

}  // namespace credence::api::detail
