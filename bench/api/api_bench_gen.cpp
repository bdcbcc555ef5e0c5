// Writes a large synthetic index for the API benchmark (docs/benchmarks.md): N agents with
// registration profiles (and their search terms), trust scores and verification records, and M
// feedback rows spread over them with a skew (a few agents get many reviews), some answered.
// Seeded: the same arguments produce the same rows.
//
//   api_bench_gen <sqlite-file | postgresql://...> [agents=100000] [feedback=1000000]
#include <array>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <credence/index/database.hpp>
#include <credence/index/store.hpp>
#include <credence/verify/store/profile_store.hpp>

#include "api_bench_common.hpp"

namespace {

using credence::core::Bytes;
using credence::index::DbValue;

Bytes id_bytes(uint64_t id) {
    Bytes out(32, 0);
    for (size_t i = 0; i < 8; ++i) out[31 - i] = static_cast<uint8_t>(id >> (8 * i));
    return out;
}

Bytes address_bytes(uint64_t seed) {
    Bytes out(20, 0);
    std::mt19937_64 rng(seed);
    for (auto& b : out) b = static_cast<uint8_t>(rng());
    return out;
}

Bytes registry(uint8_t last) {
    const auto a = credence::bench::bench_address(last);
    return {a.bytes.begin(), a.bytes.end()};
}

int fail(const credence::index::DbError& e) {
    std::fprintf(stderr, "database: %s\n", e.to_string().c_str());
    return 1;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: api_bench_gen <db> [agents] [feedback]\n");
        return 2;
    }
    const uint64_t agents = argc > 2 ? std::stoull(argv[2]) : 100'000;
    const uint64_t feedback = argc > 3 ? std::stoull(argv[3]) : 1'000'000;
    const auto start = std::chrono::steady_clock::now();
    auto db = credence::index::open_database(argv[1]);
    if (!db) return fail(db.error());
    auto store = credence::index::IndexStore::open(**db);
    if (!store) return fail(store.error());
    auto& d = **db;
    const auto chain = static_cast<int64_t>(credence::bench::kBenchChainId);
    const Bytes identity = registry(1);
    const auto identity_address = credence::bench::bench_address(1);
    const Bytes reputation = registry(2);
    const Bytes zero(20, 0);
    std::mt19937_64 rng(8004);

    const std::array<std::string, 7> services{"a2a", "mcp", "oasf", "web", "ens", "did", "email"};
    const std::array<std::string, 12> words{"weather", "oracle", "code",  "review",
                                            "trading", "search", "image", "legal",
                                            "travel",  "health", "music", "data"};
    const std::array<std::string, 4> statuses{"verified", "verified", "unverified", "unreachable"};

    if (auto r = d.begin(); !r) return fail(r.error());
    for (uint64_t i = 0; i < agents; ++i) {
        const Bytes agent_id = id_bytes(i);
        const Bytes owner = address_bytes(i + 1'000'000);
        const auto block = static_cast<int64_t>(i / 10);
        const std::array<DbValue, 8> agent_row{chain,
                                               identity,
                                               agent_id,
                                               owner,
                                               fmt::format("https://agent{}.example/agent.json", i),
                                               owner,
                                               block,
                                               static_cast<int64_t>(i % 10)};
        if (auto r = d.exec("INSERT INTO agents (chain_id, registry, agent_id, owner, agent_uri, "
                            "wallet, registered_block_num, approved, registered_txn_hash, "
                            "updated_block_num, updated_log_index) VALUES ($1, $2, $3, $4, $5, "
                            "$6, $7, NULL, NULL, $7, $8)",
                            agent_row);
            !r) {
            return fail(r.error());
        }
        // The profile goes through verify/store/profile_store, as the verifier writes it: the row
        // and its terms (the API's whole-entry filters). The rng() calls keep their order, so the
        // same arguments still produce the same agents.
        credence::verify::AgentProfile profile;
        std::string service_json = "[";
        for (size_t s = 0; s < services.size(); ++s) {
            if (rng() % 3 != 0) continue;
            profile.service_names.push_back(services[s]);
            if (service_json.size() > 1) service_json += ",";
            service_json += fmt::format(
                R"({{"name":"{}","endpoint":"https://agent{}.example/{}","version":"1"}})",
                services[s], i, services[s]);
        }
        service_json += "]";
        const std::string& w1 = words[rng() % words.size()];
        const std::string& w2 = words[rng() % words.size()];
        const std::string name = fmt::format("Agent {} {}", i, w1);
        const std::string description = fmt::format("A {} agent that also does {}", w1, w2);
        const std::string status = statuses[rng() % statuses.size()];
        profile.name = name;
        profile.description = description;
        profile.image = fmt::format("https://agent{}.example/i.png", i);
        profile.active = rng() % 5 != 0;
        profile.services_json = service_json;
        profile.skills = {fmt::format("{}/{}", w1, w2), w2};
        profile.domains = {fmt::format("agent{}.example", i)};
        profile.trust_models = rng() % 2 == 0
                                   ? std::vector<std::string>{"reputation"}
                                   : std::vector<std::string>{"reputation", "crypto-economic"};
        profile.status = status;
        profile.checked_at = 1'700'000'000;
        profile.has_document = true;
        if (auto r = credence::verify::save_agent_profile(d, credence::bench::kBenchChainId,
                                                          identity_address, agent_id, profile);
            !r) {
            return fail(r.error());
        }
        const double score = static_cast<double>(rng() % 10'000) / 10'000.0;
        std::string explanation = R"({"contributions":[)";
        for (int c = 0; c < 5; ++c) {
            if (c > 0) explanation += ",";
            explanation += fmt::format(
                R"({{"client":"0x{:040x}","rating":{:.3f},"weight":{:.3f},"share":0.2,"standing":0.5,"discounts":["unverified_payment"]}})",
                rng() % 1'000'000, score, 0.5);
        }
        explanation += R"(],"omitted":0})";
        const std::array<DbValue, 10> score_row{
            chain,
            identity,
            agent_id,
            score,
            std::max(0.0, score - 0.1),
            std::min(1.0, score + 0.1),
            10.0,
            static_cast<int64_t>(rng() % 30),
            std::string(
                R"([{"tag":"quality","isRating":true,"score":0.7,"low":0.6,"high":0.8,"evidence":4,"reviews":4}])"),
            explanation};
        if (auto r =
                d.exec("INSERT INTO agent_scores (chain_id, registry, agent_id, score, low, high, "
                       "evidence, effective_reviewers, reviews, tags, explanation, computed_at, "
                       "covers_block_num) VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8, $9, $10, "
                       "1700000000, 0)",
                       score_row);
            !r) {
            return fail(r.error());
        }
        // The registration file itself as the verifier stores it ("document"), which the agent0
        // subgraph endpoint reads (docs/graphql.md).
        const std::string document = fmt::format(
            R"({{"type":"https://eips.ethereum.org/EIPS/eip-8004#registration-v1","name":"{}","description":"{}","image":"https://agent{}.example/i.png","services":{},"active":{},"supportedTrust":["reputation"]}})",
            name, description, i, service_json, profile.active ? "true" : "false");
        const std::string report = fmt::format(
            R"({{"agentId":"{}","agentURI":"https://agent{}.example/agent.json","status":"{}","reason":"none","detail":"","registrationFile":{{"fetched":true,"parsed":true,"valid":true,"name":"{}","document":{}}},"domains":[{{"domain":"agent{}.example","verified":true}}],"verifiedDomains":["agent{}.example"],"agentCards":[]}})",
            i, i, status, name, document, i, i);
        const std::array<DbValue, 7> verification{
            chain, identity, agent_id,
            zero,  status,   std::string(status == "verified" ? "" : "fetch_failed"),
            report};
        if (auto r = d.exec(
                "INSERT INTO verifications (chain_id, subject_kind, contract, subject_id, client, "
                "feedback_index, status, reason, detail, checked_at, covers_block_num, flags, "
                "report) VALUES ($1, 'agent', $2, $3, $4, 0, $5, $6, '', 1700000000, 0, 2, $7)",
                verification);
            !r) {
            return fail(r.error());
        }
        if (i % 10'000 == 9'999) {
            if (auto r = d.commit(); !r) return fail(r.error());
            if (auto r = d.begin(); !r) return fail(r.error());
        }
    }
    // Feedback: agent chosen with a skew (squared uniform: low ids get more), 50,000 clients.
    std::uniform_real_distribution<double> unit(0, 1);
    for (uint64_t i = 0; i < feedback; ++i) {
        const double u = unit(rng);
        const auto agent = static_cast<uint64_t>(u * u * static_cast<double>(agents));
        const int64_t value = static_cast<int64_t>(rng() % 101);
        const int64_t decimals = static_cast<int64_t>(rng() % 3);
        std::string wad = std::to_string(value);
        wad.append(static_cast<size_t>(18 - decimals), '0');
        double normalized = static_cast<double>(value);
        for (int64_t k = 0; k < decimals; ++k) normalized /= 10;
        const std::array<DbValue, 13> row{chain,
                                          reputation,
                                          id_bytes(agent),
                                          address_bytes(rng() % 50'000),
                                          static_cast<int64_t>(i),
                                          std::to_string(value),
                                          decimals,
                                          wad,
                                          normalized,
                                          std::string(rng() % 2 == 0 ? "quality" : "speed"),
                                          static_cast<int64_t>(rng() % 50 == 0),
                                          static_cast<int64_t>(agents / 10 + i / 20),
                                          static_cast<int64_t>(i % 20)};
        if (auto r = d.exec(
                "INSERT INTO feedback (chain_id, registry, agent_id, client, feedback_index, "
                "value, value_decimals, value_wad, normalized, tag1, tag2, endpoint, "
                "feedback_uri, feedback_hash, revoked, revoked_block_num, block_num, log_index, "
                "txn_hash) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, '', '', '', $3, $11, "
                "NULL, $12, $13, $3)",
                row);
            !r) {
            return fail(r.error());
        }
        if (i % 50'000 == 49'999) {
            if (auto r = d.commit(); !r) return fail(r.error());
            if (auto r = d.begin(); !r) return fail(r.error());
        }
    }
    const std::array<DbValue, 2> cursor{chain, static_cast<int64_t>(agents / 10 + feedback / 20)};
    if (auto r = d.exec("INSERT INTO cursors (chain_id, block_num) VALUES ($1, $2) ON CONFLICT "
                        "(chain_id) DO UPDATE SET block_num = excluded.block_num",
                        cursor);
        !r) {
        return fail(r.error());
    }
    if (auto r = d.commit(); !r) return fail(r.error());
    if (d.dialect() == credence::index::Dialect::postgres) {
        (void)d.exec_script("ANALYZE");
    } else {
        (void)d.exec_script("ANALYZE");
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("wrote %llu agents and %llu feedback rows to %s in %.1f s\n",
                static_cast<unsigned long long>(agents), static_cast<unsigned long long>(feedback),
                d.describe().c_str(), seconds);
    return 0;
}
