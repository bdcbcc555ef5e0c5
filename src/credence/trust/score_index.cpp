#include <credence/trust/score_index.hpp>

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
            *decimals < 0 || *decimals > 18) {
            return std::unexpected(unreadable("feedback row"));
        }
        auto it = agent_index.find(key_of(*id));
        auto client_address = core::Address::from_bytes(*client);
        auto parsed = core::Int256::parse(*value);
        if (!client_address || !parsed) return std::unexpected(unreadable("feedback value"));
        if (it == agent_index.end()) continue;  // an agent registered before the start block
        Review r;
        r.agent = it->second;
        r.client = *client_address;
        r.value = *parsed;
        r.value_decimals = static_cast<uint8_t>(*decimals);
        r.tag1 = *tag1;
        r.revoked = *revoked != 0;
        const double blocks_ago =
            sources.head_block_num > static_cast<uint64_t>(*block)
                ? static_cast<double>(sources.head_block_num - static_cast<uint64_t>(*block))
                : 0.0;
        r.timestamp = sources.now - static_cast<int64_t>(blocks_ago * sources.seconds_per_block);
        r.payment_verified = paid.contains({key_of(*id), key_of(*client), *index});
        in.reviews.push_back(std::move(r));
    }

    const std::array<DbValue, 2> validation_params{chain, blob(sources.validation_registry)};
    auto validations = db.query(
        "SELECT agent_id, validator, response FROM validation_requests WHERE chain_id = $1 AND "
        "registry = $2 AND response IS NOT NULL ORDER BY agent_id, request_hash",
        validation_params);
    if (!validations) return std::unexpected(validations.error());
    for (const DbRow& row : *validations) {
        const core::Bytes* id = blob_at(row, 0);
        auto validator = address_at(row, 1);
        const int64_t* response = int_at(row, 2);
        if (id == nullptr || !validator || response == nullptr || *response < 0 ||
            *response > 100) {
            return std::unexpected(unreadable("validation row"));
        }
        if (auto it = agent_index.find(key_of(*id)); it != agent_index.end()) {
            in.agents[it->second].validations.emplace_back(*validator,
                                                           static_cast<uint8_t>(*response));
        }
    }
    return in;
}

}  // namespace credence::trust
