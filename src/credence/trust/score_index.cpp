#include <credence/trust/score_index.hpp>

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <tuple>
#include <variant>

#include <credence/index/feedback_table.hpp>
#include <credence/index/funding_table.hpp>
#include <credence/index/in_list.hpp>
#include <credence/index/row.hpp>
#include <credence/index/verification_table.hpp>

namespace credence::trust {
namespace {

using index::DbResult;
using index::DbRow;
using index::DbValue;
using index::SubjectKind;
using index::VerificationFlag;

// Byte strings as map keys (std::string: GCC 12 warns falsely on vector<uint8_t> ordering).
std::string key_of(const core::Bytes& b) { return {b.begin(), b.end()}; }

using index::blob_at;
using index::int_at;

std::optional<core::Address> address_at(const DbRow& row, size_t i) {
    const core::Bytes* b = blob_at(row, i);
    if (b == nullptr) return std::nullopt;
    auto a = core::Address::from_bytes(*b);
    return a ? std::optional(*a) : std::nullopt;
}

core::Bytes bytes_of(const core::Address& a) { return {a.bytes.begin(), a.bytes.end()}; }

// A feedback row as a review; its time is estimated from the block (score_index.hpp) and
// payment_verified is left unset.
TrustChanges::Feedback feedback_of(index::FeedbackReview&& row, const TrustSources& sources) {
    TrustChanges::Feedback f;
    f.agent_id = std::move(row.agent_id);
    Review& r = f.review;
    r.client = row.client;
    r.feedback_index = row.feedback_index;
    r.value = row.value;
    r.value_decimals = row.value_decimals;
    r.tag1 = std::move(row.tag1);
    r.revoked = row.revoked;
    const auto block = static_cast<uint64_t>(std::max<int64_t>(row.block_num, 0));
    const double blocks_ago =
        sources.head_block_num > block ? static_cast<double>(sources.head_block_num - block) : 0.0;
    r.timestamp = sources.now - static_cast<int64_t>(blocks_ago * sources.seconds_per_block);
    return f;
}

}  // namespace

DbResult<TrustInputs> load_trust_inputs(index::Database& db, const TrustSources& sources) {
    TrustInputs in;
    const auto chain = static_cast<int64_t>(sources.chain_id);
    std::map<std::string, uint32_t> agent_index;

    const std::array<DbValue, 2> agents_params{chain,
                                               index::blob_value(sources.identity_registry.view())};
    auto agents = db.query(
        "SELECT agent_id, owner, wallet FROM agents WHERE chain_id = $1 AND registry = $2 "
        "ORDER BY agent_id",
        agents_params);
    if (!agents) return std::unexpected(agents.error());
    for (const DbRow& row : *agents) {
        const core::Bytes* id = blob_at(row, 0);
        if (id == nullptr) return std::unexpected(index::unreadable("trust", "agent id"));
        AgentFacts facts;
        facts.agent_id = *id;
        facts.owner = address_at(row, 1).value_or(core::Address{});  // NULL: burned
        facts.wallet = address_at(row, 2);
        agent_index.emplace(key_of(*id), static_cast<uint32_t>(in.agents.size()));
        in.agents.push_back(std::move(facts));
    }

    // The verifier's flags (index/verification_table.hpp): verified domains, verified payments.
    auto domains =
        index::read_flagged_subjects(db, sources.chain_id, SubjectKind::agent,
                                     sources.identity_registry, VerificationFlag::domain_verified);
    if (!domains) return std::unexpected(domains.error());
    for (const index::VerificationSubject& subject : *domains) {
        if (auto it = agent_index.find(key_of(subject.id)); it != agent_index.end()) {
            in.agents[it->second].domain_verified = true;
        }
    }
    auto paid_rows = index::read_flagged_subjects(db, sources.chain_id, SubjectKind::feedback,
                                                  sources.reputation_registry,
                                                  VerificationFlag::payment_verified);
    if (!paid_rows) return std::unexpected(paid_rows.error());
    std::set<std::tuple<std::string, std::string, uint64_t>> paid;
    for (const index::VerificationSubject& subject : *paid_rows) {
        paid.emplace(key_of(subject.id), key_of(bytes_of(subject.client)), subject.feedback_index);
    }

    auto feedback = index::read_registry_reviews(db, sources.chain_id, sources.reputation_registry);
    if (!feedback) return std::unexpected(feedback.error());
    in.reviews.reserve(feedback->size());
    for (index::FeedbackReview& row : *feedback) {
        TrustChanges::Feedback parsed = feedback_of(std::move(row), sources);
        auto it = agent_index.find(key_of(parsed.agent_id));
        if (it == agent_index.end()) continue;  // an agent registered before the start block
        Review r = std::move(parsed.review);
        r.agent = it->second;
        r.payment_verified =
            paid.contains({key_of(parsed.agent_id), key_of(bytes_of(r.client)), r.feedback_index});
        in.reviews.push_back(std::move(r));
    }

    // Where the reviewers' funds came from (index/funding_table.hpp): the funding clusters'
    // evidence (trust/funding_clusters.hpp).
    auto fundings = index::read_funding_edges(db, sources.chain_id);
    if (!fundings) return std::unexpected(fundings.error());
    in.fundings.reserve(fundings->size());
    for (const auto& [address, funder] : *fundings) in.fundings.push_back({address, funder});

    const std::array<DbValue, 2> validation_params{
        chain, index::blob_value(sources.validation_registry.view())};
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
            return std::unexpected(index::unreadable("trust", "validation row"));
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

DbResult<void> read_feedback(index::Database& db, const TrustSources& sources, int64_t block_num,
                             std::span<const core::Bytes> agents, TrustChanges& out) {
    auto rows = index::read_reviews_changed_after(db, sources.chain_id, sources.reputation_registry,
                                                  block_num, agents);
    if (!rows) return std::unexpected(rows.error());
    // Chain order, as a full load reads them: an agent's reviews keep the same order.
    std::sort(rows->begin(), rows->end(), [](const auto& x, const auto& y) {
        return std::pair(x.review.block_num, x.review.log_index) <
               std::pair(y.review.block_num, y.review.log_index);
    });
    out.feedback.reserve(out.feedback.size() + rows->size());
    for (index::CheckedReview& row : *rows) {
        TrustChanges::Feedback f = feedback_of(std::move(row.review), sources);
        f.review.payment_verified =
            row.flags.has_value() && row.flags->has(VerificationFlag::payment_verified);
        out.feedback.push_back(std::move(f));
    }
    return {};
}

DbResult<void> read_validations(index::Database& db, const TrustSources& sources,
                                std::string_view key_column, std::span<const core::Bytes> keys,
                                TrustChanges& out) {
    const std::vector<DbValue> fixed{static_cast<int64_t>(sources.chain_id),
                                     index::blob_value(sources.validation_registry.view())};
    const std::string prefix =
        "SELECT agent_id, request_hash, validator, response FROM validation_requests WHERE "
        "chain_id = $1 AND registry = $2 AND response IS NOT NULL AND " +
        std::string(key_column) + " IN ";
    return index::query_in_chunks(
        db, prefix, "", fixed, keys, [&](const DbRow& row) -> DbResult<void> {
            const core::Bytes* id = blob_at(row, 0);
            const core::Bytes* request = blob_at(row, 1);
            auto validator = address_at(row, 2);
            const int64_t* response = int_at(row, 3);
            if (id == nullptr || request == nullptr || !validator || response == nullptr ||
                *response < 0 || *response > 100) {
                return std::unexpected(index::unreadable("trust", "validation row"));
            }
            out.validations.push_back({*id, *request, *validator, static_cast<uint8_t>(*response)});
            return {};
        });
}

DbResult<void> read_agents(index::Database& db, const TrustSources& sources,
                           std::span<const core::Bytes> keys, TrustChanges& out) {
    const std::vector<DbValue> fixed{static_cast<int64_t>(sources.chain_id),
                                     index::blob_value(sources.identity_registry.view())};
    return index::query_in_chunks(
        db,
        "SELECT agent_id, owner, wallet FROM agents WHERE chain_id = $1 AND "
        "registry = $2 AND agent_id IN ",
        " ORDER BY agent_id", fixed, keys, [&](const DbRow& row) -> DbResult<void> {
            const core::Bytes* id = blob_at(row, 0);
            if (id == nullptr) return std::unexpected(index::unreadable("trust", "agent id"));
            out.agents.push_back(
                {*id, address_at(row, 1).value_or(core::Address{}), address_at(row, 2)});
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
        if (!address || entity == nullptr)
            return std::unexpected(index::unreadable("trust", "raw log entity"));
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

    // The verifier's flags (index/verification_table.hpp) of the checks since the check cursor.
    auto read_flags = [&](SubjectKind kind, const core::Address& contract,
                          std::vector<TrustChanges::Flag>& flags,
                          VerificationFlag flag) -> DbResult<void> {
        auto checks = index::read_checks_since(db, sources.chain_id, kind, contract, checked_since);
        if (!checks) return std::unexpected(checks.error());
        for (index::SubjectFlags& check : *checks) {
            flags.push_back({std::move(check.subject.id), check.subject.client,
                             check.subject.feedback_index, check.flags.has(flag)});
            out.checked_at = std::max(out.checked_at, check.checked_at);
        }
        return {};
    };
    if (auto r = read_flags(SubjectKind::feedback, sources.reputation_registry, out.payments,
                            VerificationFlag::payment_verified);
        !r) {
        return std::unexpected(r.error());
    }
    if (auto r = read_flags(SubjectKind::agent, sources.identity_registry, out.domains,
                            VerificationFlag::domain_verified);
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
    auto checks = index::read_subject_flags(db, sources.chain_id, SubjectKind::agent,
                                            sources.identity_registry, agent_ids);
    if (!checks) return std::unexpected(checks.error());
    for (index::SubjectFlags& check : *checks) {
        out.domains.push_back({std::move(check.subject.id), core::Address{}, 0,
                               check.flags.has(VerificationFlag::domain_verified)});
    }
    return out;
}

DbResult<int64_t> latest_check(index::Database& db, const TrustSources& sources) {
    constexpr std::array<SubjectKind, 2> kKinds{SubjectKind::feedback, SubjectKind::agent};
    return index::latest_checked_at(db, sources.chain_id, kKinds);
}

}  // namespace credence::trust
