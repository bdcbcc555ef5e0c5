#include <credence/trust/score_index.hpp>

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <tuple>
#include <variant>

#include <credence/index/row.hpp>

namespace credence::trust {
namespace {

using index::DbResult;
using index::DbRow;
using index::DbValue;

constexpr uint64_t kFlagPaymentVerified = 1;  // verify/verification_store.hpp
constexpr uint64_t kFlagDomainVerified = 2;

DbValue blob(const core::Address& a) { return core::Bytes(a.bytes.begin(), a.bytes.end()); }

// Byte strings as map keys (std::string: GCC 12 warns falsely on vector<uint8_t> ordering).
std::string key_of(const core::Bytes& b) { return {b.begin(), b.end()}; }

index::DbError unreadable(std::string_view what) { return index::unreadable("trust", what); }

using index::blob_at;
using index::int_at;
using index::text_at;

std::optional<core::Address> address_at(const DbRow& row, size_t i) {
    const core::Bytes* b = blob_at(row, i);
    if (b == nullptr) return std::nullopt;
    auto a = core::Address::from_bytes(*b);
    return a ? std::optional(*a) : std::nullopt;
}

core::Bytes bytes_of(const core::Address& a) { return {a.bytes.begin(), a.bytes.end()}; }

// Columns: agent_id, client, feedback_index, value, value_decimals, tag1, revoked, block_num.
// The time is estimated from the block (score_index.hpp); payment_verified is left unset.
DbResult<TrustChanges::Feedback> feedback_of(const DbRow& row, const TrustSources& sources) {
    const core::Bytes* id = blob_at(row, 0);
    const core::Bytes* client = blob_at(row, 1);
    const int64_t* index = int_at(row, 2);
    const std::string* value = text_at(row, 3);
    const int64_t* decimals = int_at(row, 4);
    const std::string* tag1 = text_at(row, 5);
    const int64_t* revoked = int_at(row, 6);
    const int64_t* block = int_at(row, 7);
    if (id == nullptr || client == nullptr || index == nullptr || value == nullptr ||
        decimals == nullptr || tag1 == nullptr || revoked == nullptr || block == nullptr ||
        *decimals < 0 || *decimals > 18 || *index < 0) {
        return std::unexpected(unreadable("feedback row"));
    }
    auto client_address = core::Address::from_bytes(*client);
    auto parsed = core::Int256::parse(*value);
    if (!client_address || !parsed) return std::unexpected(unreadable("feedback value"));
    TrustChanges::Feedback f;
    f.agent_id = *id;
    Review& r = f.review;
    r.client = *client_address;
    r.feedback_index = static_cast<uint64_t>(*index);
    r.value = *parsed;
    r.value_decimals = static_cast<uint8_t>(*decimals);
    r.tag1 = *tag1;
    r.revoked = *revoked != 0;
    const double blocks_ago =
        sources.head_block_num > static_cast<uint64_t>(*block)
            ? static_cast<double>(sources.head_block_num - static_cast<uint64_t>(*block))
            : 0.0;
    r.timestamp = sources.now - static_cast<int64_t>(blocks_ago * sources.seconds_per_block);
    return f;
}

}  // namespace

DbResult<TrustInputs> load_trust_inputs(index::Database& db, const TrustSources& sources) {
    TrustInputs in;
    const auto chain = static_cast<int64_t>(sources.chain_id);
    std::map<std::string, uint32_t> agent_index;

    const std::array<DbValue, 2> agents_params{chain, blob(sources.identity_registry)};
    auto agents = db.query(
        "SELECT agent_id, owner, wallet FROM agents WHERE chain_id = $1 AND registry = $2 "
        "ORDER BY agent_id",
        agents_params);
    if (!agents) return std::unexpected(agents.error());
    for (const DbRow& row : *agents) {
        const core::Bytes* id = blob_at(row, 0);
        if (id == nullptr) return std::unexpected(unreadable("agent id"));
        AgentFacts facts;
        facts.agent_id = *id;
        facts.owner = address_at(row, 1).value_or(core::Address{});  // NULL: burned
        facts.wallet = address_at(row, 2);
        agent_index.emplace(key_of(*id), static_cast<uint32_t>(in.agents.size()));
        in.agents.push_back(std::move(facts));
    }

    const std::array<DbValue, 3> flag_params{chain, blob(sources.identity_registry),
                                             static_cast<int64_t>(kFlagDomainVerified)};
    auto domains = db.query(
        "SELECT subject_id FROM verifications WHERE chain_id = $1 AND subject_kind = 'agent' AND "
        "contract = $2 AND (flags & $3) <> 0",
        flag_params);
    if (!domains) return std::unexpected(domains.error());
    for (const DbRow& row : *domains) {
        const core::Bytes* id = blob_at(row, 0);
        if (id == nullptr) return std::unexpected(unreadable("verified agent"));
        if (auto it = agent_index.find(key_of(*id)); it != agent_index.end()) {
            in.agents[it->second].domain_verified = true;
        }
    }

    const std::array<DbValue, 3> paid_params{chain, blob(sources.reputation_registry),
                                             static_cast<int64_t>(kFlagPaymentVerified)};
    auto paid_rows = db.query(
        "SELECT subject_id, client, feedback_index FROM verifications WHERE chain_id = $1 AND "
        "subject_kind = 'feedback' AND contract = $2 AND (flags & $3) <> 0",
        paid_params);
    if (!paid_rows) return std::unexpected(paid_rows.error());
    std::set<std::tuple<std::string, std::string, int64_t>> paid;
    for (const DbRow& row : *paid_rows) {
        const core::Bytes* id = blob_at(row, 0);
        const core::Bytes* client = blob_at(row, 1);
        const int64_t* index = int_at(row, 2);
        if (id == nullptr || client == nullptr || index == nullptr) {
            return std::unexpected(unreadable("payment flag"));
        }
        paid.emplace(key_of(*id), key_of(*client), *index);
    }

    const std::array<DbValue, 2> feedback_params{chain, blob(sources.reputation_registry)};
    auto feedback = db.query(
        "SELECT agent_id, client, feedback_index, value, value_decimals, tag1, revoked, block_num "
        "FROM feedback WHERE chain_id = $1 AND registry = $2 ORDER BY block_num, log_index",
        feedback_params);
    if (!feedback) return std::unexpected(feedback.error());
    in.reviews.reserve(feedback->size());
    for (const DbRow& row : *feedback) {
        auto parsed = feedback_of(row, sources);
        if (!parsed) return std::unexpected(parsed.error());
        auto it = agent_index.find(key_of(parsed->agent_id));
        if (it == agent_index.end()) continue;  // an agent registered before the start block
        Review r = std::move(parsed->review);
        r.agent = it->second;
        r.payment_verified = paid.contains({key_of(parsed->agent_id), key_of(bytes_of(r.client)),
                                            static_cast<int64_t>(r.feedback_index)});
        in.reviews.push_back(std::move(r));
    }

    const std::array<DbValue, 2> validation_params{chain, blob(sources.validation_registry)};
    auto validations = db.query(
        "SELECT agent_id, validator, response, request_hash FROM validation_requests WHERE "
        "chain_id = $1 AND "
        "registry = $2 AND response IS NOT NULL ORDER BY agent_id, request_hash",
        validation_params);
    if (!validations) return std::unexpected(validations.error());
    for (const DbRow& row : *validations) {
        const core::Bytes* id = blob_at(row, 0);
        auto validator = address_at(row, 1);
        const int64_t* response = int_at(row, 2);
        const core::Bytes* request = blob_at(row, 3);
        if (id == nullptr || !validator || response == nullptr || *response < 0 ||
            *response > 100 || request == nullptr) {
            return std::unexpected(unreadable("validation row"));
        }
        if (auto it = agent_index.find(key_of(*id)); it != agent_index.end()) {
            in.agents[it->second].validations.emplace_back(*validator,
                                                           static_cast<uint8_t>(*response));
            in.agents[it->second].validation_requests.push_back(*request);
        }
    }
    return in;
}

namespace {

// Keys per IN list: well under SQLite's oldest parameter limit (999) and PostgreSQL's.
constexpr size_t kKeysPerQuery = 400;

/// Runs `sql_prefix` + "($k, ...)" (+ `sql_suffix`) over `keys` in chunks, the fixed parameters
/// first; calls `each` per row.
template <typename Each>
DbResult<void> query_in(index::Database& db, std::string_view sql_prefix,
                        std::string_view sql_suffix, const std::vector<DbValue>& fixed,
                        std::span<const core::Bytes> keys, Each each) {
    for (size_t from = 0; from < keys.size(); from += kKeysPerQuery) {
        const size_t n = std::min(kKeysPerQuery, keys.size() - from);
        std::vector<DbValue> params = fixed;
        std::string sql(sql_prefix);
        sql += '(';
        for (size_t i = 0; i < n; ++i) {
            if (i > 0) sql += ", ";
            sql += '$' + std::to_string(fixed.size() + i + 1);
            params.emplace_back(keys[from + i]);
        }
        sql += ')';
        sql += sql_suffix;
        auto rows = db.query(sql, params);
        if (!rows) return std::unexpected(rows.error());
        for (const DbRow& row : *rows) {
            if (auto r = each(row); !r) return r;
        }
    }
    return {};
}

// The feedback columns feedback_of reads, then log_index and the payment flags (NULL: never
// checked), joined so that a feedback read late carries the flag a full load would give it.
constexpr std::string_view kFeedbackWithFlags =
    "SELECT f.agent_id, f.client, f.feedback_index, f.value, f.value_decimals, f.tag1, f.revoked, "
    "f.block_num, f.log_index, v.flags FROM feedback f LEFT JOIN verifications v ON v.chain_id = "
    "f.chain_id AND v.subject_kind = 'feedback' AND v.contract = f.registry AND v.subject_id = "
    "f.agent_id AND v.client = f.client AND v.feedback_index = f.feedback_index WHERE "
    "f.chain_id = $1 AND f.registry = $2 AND (f.block_num > $3 OR f.revoked_block_num > $3) AND "
    "f.agent_id IN ";

DbResult<void> read_feedback(index::Database& db, const TrustSources& sources, int64_t block_num,
                             std::span<const core::Bytes> agents, TrustChanges& out) {
    std::vector<std::pair<std::pair<int64_t, int64_t>, TrustChanges::Feedback>> rows;
    const std::vector<DbValue> fixed{static_cast<int64_t>(sources.chain_id),
                                     blob(sources.reputation_registry), block_num};
    auto r = query_in(
        db, kFeedbackWithFlags, "", fixed, agents, [&](const DbRow& row) -> DbResult<void> {
            auto f = feedback_of(row, sources);
            if (!f) return std::unexpected(f.error());
            const int64_t* block = int_at(row, 7);
            const int64_t* log_index = int_at(row, 8);
            const int64_t* flags = int_at(row, 9);  // NULL: never checked
            if (block == nullptr || log_index == nullptr) {
                return std::unexpected(unreadable("feedback position"));
            }
            f->review.payment_verified =
                flags != nullptr && (static_cast<uint64_t>(*flags) & kFlagPaymentVerified) != 0;
            rows.emplace_back(std::pair{*block, *log_index}, std::move(*f));
            return {};
        });
    if (!r) return r;
    // Chain order, as a full load reads them: an agent's reviews keep the same order.
    std::sort(rows.begin(), rows.end(),
              [](const auto& x, const auto& y) { return x.first < y.first; });
    out.feedback.reserve(out.feedback.size() + rows.size());
    for (auto& [_, f] : rows) out.feedback.push_back(std::move(f));
    return {};
}

DbResult<void> read_validations(index::Database& db, const TrustSources& sources,
                                std::string_view key_column, std::span<const core::Bytes> keys,
                                TrustChanges& out) {
    const std::vector<DbValue> fixed{static_cast<int64_t>(sources.chain_id),
                                     blob(sources.validation_registry)};
    const std::string prefix =
        "SELECT agent_id, request_hash, validator, response FROM validation_requests WHERE "
        "chain_id = $1 AND registry = $2 AND response IS NOT NULL AND " +
        std::string(key_column) + " IN ";
    return query_in(db, prefix, "", fixed, keys, [&](const DbRow& row) -> DbResult<void> {
        const core::Bytes* id = blob_at(row, 0);
        const core::Bytes* request = blob_at(row, 1);
        auto validator = address_at(row, 2);
        const int64_t* response = int_at(row, 3);
        if (id == nullptr || request == nullptr || !validator || response == nullptr ||
            *response < 0 || *response > 100) {
            return std::unexpected(unreadable("validation row"));
        }
        out.validations.push_back({*id, *request, *validator, static_cast<uint8_t>(*response)});
        return {};
    });
}

DbResult<void> read_agents(index::Database& db, const TrustSources& sources,
                           std::span<const core::Bytes> keys, TrustChanges& out) {
    const std::vector<DbValue> fixed{static_cast<int64_t>(sources.chain_id),
                                     blob(sources.identity_registry)};
    return query_in(db,
                    "SELECT agent_id, owner, wallet FROM agents WHERE chain_id = $1 AND "
                    "registry = $2 AND agent_id IN ",
                    " ORDER BY agent_id", fixed, keys, [&](const DbRow& row) -> DbResult<void> {
                        const core::Bytes* id = blob_at(row, 0);
                        if (id == nullptr) return std::unexpected(unreadable("agent id"));
                        out.agents.push_back({*id, address_at(row, 1).value_or(core::Address{}),
                                              address_at(row, 2)});
                        return {};
                    });
}

}  // namespace

DbResult<TrustChanges> load_trust_changes(index::Database& db, const TrustSources& sources,
                                          uint64_t block_num, int64_t checked_since) {
    TrustChanges out;
    const auto chain = static_cast<int64_t>(sources.chain_id);
    const auto block = static_cast<int64_t>(block_num);
    // The entities the new blocks' logs touched (projector.hpp: identity and reputation logs name
    // their agent, validation logs their request hash; ApprovalForAll names an owner: skipped).
    const std::array<DbValue, 2> log_params{chain, block};
    auto touched = db.query(
        "SELECT DISTINCT address, entity FROM raw_logs WHERE chain_id = $1 AND block_num > $2",
        log_params);
    if (!touched) return std::unexpected(touched.error());
    std::vector<core::Bytes> agents, reviewed, requests;
    for (const DbRow& row : *touched) {
        auto address = address_at(row, 0);
        const core::Bytes* entity = blob_at(row, 1);
        if (!address || entity == nullptr) return std::unexpected(unreadable("raw log entity"));
        if (entity->size() != 32) continue;
        if (*address == sources.identity_registry) agents.push_back(*entity);
        if (*address == sources.reputation_registry) reviewed.push_back(*entity);
        if (*address == sources.validation_registry) requests.push_back(*entity);
    }
    if (auto r = read_agents(db, sources, agents, out); !r) return std::unexpected(r.error());
    if (auto r = read_feedback(db, sources, block, reviewed, out); !r) {
        return std::unexpected(r.error());
    }
    if (auto r = read_validations(db, sources, "request_hash", requests, out); !r) {
        return std::unexpected(r.error());
    }

    // The verifier's flags (verify/verification_store.hpp), by the time index of verifications.
    auto read_flags = [&](std::string_view kind, const core::Address& contract,
                          std::vector<TrustChanges::Flag>& flags, uint64_t bit) -> DbResult<void> {
        const std::array<DbValue, 4> params{chain, std::string(kind), blob(contract),
                                            checked_since};
        auto rows = db.query(
            "SELECT subject_id, client, feedback_index, flags, checked_at FROM verifications "
            "WHERE chain_id = $1 AND subject_kind = $2 AND contract = $3 AND checked_at >= $4",
            params);
        if (!rows) return std::unexpected(rows.error());
        for (const DbRow& row : *rows) {
            const core::Bytes* id = blob_at(row, 0);
            auto client = address_at(row, 1);
            const int64_t* index = int_at(row, 2);
            const int64_t* f = int_at(row, 3);
            const int64_t* checked_at = int_at(row, 4);
            if (id == nullptr || !client || index == nullptr || *index < 0 || f == nullptr ||
                checked_at == nullptr) {
                return std::unexpected(unreadable("verification flags"));
            }
            flags.push_back({*id, *client, static_cast<uint64_t>(*index),
                             (static_cast<uint64_t>(*f) & bit) != 0});
            out.checked_at = std::max(out.checked_at, *checked_at);
        }
        return {};
    };
    if (auto r =
            read_flags("feedback", sources.reputation_registry, out.payments, kFlagPaymentVerified);
        !r) {
        return std::unexpected(r.error());
    }
    if (auto r = read_flags("agent", sources.identity_registry, out.domains, kFlagDomainVerified);
        !r) {
        return std::unexpected(r.error());
    }
    return out;
}

DbResult<TrustChanges> load_agent_evidence(index::Database& db, const TrustSources& sources,
                                           std::span<const core::Bytes> agent_ids) {
    TrustChanges out;
    if (auto r = read_feedback(db, sources, -1, agent_ids, out); !r) {
        return std::unexpected(r.error());
    }
    if (auto r = read_validations(db, sources, "agent_id", agent_ids, out); !r) {
        return std::unexpected(r.error());
    }
    const std::vector<DbValue> fixed{static_cast<int64_t>(sources.chain_id),
                                     blob(sources.identity_registry)};
    auto r = query_in(
        db,
        "SELECT subject_id, flags FROM verifications WHERE chain_id = $1 AND "
        "subject_kind = 'agent' AND contract = $2 AND subject_id IN ",
        "", fixed, agent_ids, [&](const DbRow& row) -> DbResult<void> {
            const core::Bytes* id = blob_at(row, 0);
            const int64_t* flags = int_at(row, 1);
            if (id == nullptr || flags == nullptr) {
                return std::unexpected(unreadable("domain flag"));
            }
            out.domains.push_back({*id, core::Address{}, 0,
                                   (static_cast<uint64_t>(*flags) & kFlagDomainVerified) != 0});
            return {};
        });
    if (!r) return std::unexpected(r.error());
    return out;
}

DbResult<int64_t> latest_check(index::Database& db, const TrustSources& sources) {
    const std::array<DbValue, 1> params{static_cast<int64_t>(sources.chain_id)};
    auto rows = db.query(
        "SELECT MAX(checked_at) FROM verifications WHERE chain_id = $1 AND subject_kind IN "
        "('feedback', 'agent')",
        params);
    if (!rows) return std::unexpected(rows.error());
    if (rows->empty()) return int64_t{-1};
    const int64_t* latest = int_at(rows->front(), 0);
    return latest != nullptr ? *latest : int64_t{-1};
}

}  // namespace credence::trust
