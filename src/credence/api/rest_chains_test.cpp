// The API across chains (docs/api.md §Chains, §The same agent on several chains) on SQLite and
// PostgreSQL: three chains' agents, tools and runs in one index (rows as the projector keys them,
// agent checks saved from the verifier's own AgentVerification reports), answered by one RestApi
// following the three: lists span and filter chains and page stably across them, entities are
// addressed on a chain (path or agentRegistry), the old routes answer the default chain, unknown
// chains are 4xx, the same-agent rule links mutual same-owner records only, and the MCP tools take
// a chain. Then the same over two real devnets with different chain ids, indexed and verified by
// the real indexer and re-verifier into one index.
#include <credence/api/rest_api.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <credence/api/mcp_endpoint.hpp>
#include <credence/chain/bindings/identity_registry.hpp>
#include <credence/core/registration_file.hpp>
#include <credence/index/indexer.hpp>
#include <credence/index/sources.hpp>
#include <credence/index/store.hpp>
#include <credence/index/verification_table.hpp>
#include <credence/verify/net/fetch.hpp>
#include <credence/verify/store/index_checks.hpp>
#include <credence/verify/store/reverifier.hpp>
#include <credence/verify/verifiers/registration_verifier.hpp>

#include "support/devnet.hpp"
#include "support/https_server.hpp"
#include "support/postgres.hpp"
#include "support/scratch.hpp"

namespace credence::api {
namespace {

using index::DbValue;
using Json = nlohmann::json;
using Query = std::vector<std::pair<std::string, std::string>>;

constexpr uint64_t kMainnet = 1;  // the default chain: first in RestApiOptions::chains
constexpr uint64_t kBase = 8453;
constexpr uint64_t kOptimism = 10;

core::Address contract(uint8_t last) {
    core::Address a;
    a.bytes[0] = 0xc0;
    a.bytes[19] = last;
    return a;
}

core::Address owner(uint8_t last) {
    core::Address a;
    a.bytes[0] = 0x0e;
    a.bytes[19] = last;
    return a;
}

/// Each chain's identity registry (the same address on two chains would do too: the chain id
/// keeps them apart).
core::Address identity_of_chain(uint64_t chain_id) {
    return contract(chain_id == kMainnet ? 1 : chain_id == kBase ? 2 : 3);
}

std::string registry_of(uint64_t chain_id) {
    return fmt::format("eip155:{}:{}", chain_id, identity_of_chain(chain_id).to_checksum_hex());
}

core::Bytes word(uint64_t id) {
    core::Bytes out(32, 0);
    for (size_t i = 0; i < 8; ++i) out[31 - i] = static_cast<uint8_t>(id >> (8 * i));
    return out;
}

DbValue blob_of(const core::Address& a) { return core::Bytes(a.bytes.begin(), a.bytes.end()); }

struct NamedRecord {
    uint64_t chain_id;
    uint64_t agent_id;
};

void insert_agent(index::Database& db, uint64_t chain_id, const core::Address& registry,
                  uint64_t agent_id, const core::Address& holder) {
    const std::array<DbValue, 5> row{static_cast<int64_t>(chain_id), blob_of(registry),
                                     word(agent_id), blob_of(holder),
                                     static_cast<int64_t>(100 + agent_id)};
    ASSERT_TRUE(db.exec(
        "INSERT INTO agents (chain_id, registry, agent_id, owner, agent_uri, wallet, approved, "
        "registered_block_num, registered_txn_hash, updated_block_num, updated_log_index) VALUES "
        "($1, $2, $3, $4, 'https://agent.example/', NULL, NULL, $5, NULL, $5, 0)",
        row));
}

/// The agent's latest check as the verifier reports it: its registration file lists `entries`,
/// and the file names the agent itself unless `names_itself` is false (ERC-8004 §Agent URI and
/// Agent Registration File).
void save_check(index::Database& db, uint64_t chain_id, uint64_t agent_id,
                const core::Address& holder, const std::vector<NamedRecord>& entries,
                bool names_itself = true) {
    verify::AgentVerification v;
    v.agent.chain_id = chain_id;
    v.agent.identity_registry = identity_of_chain(chain_id);
    v.agent.agent_id = core::Uint256{agent_id};
    v.agent.owner = holder;
    v.agent.agent_uri = "https://agent.example/";
    v.status = names_itself ? verify::AgentStatus::verified : verify::AgentStatus::unverified;
    v.fetched = true;
    nlohmann::ordered_json registrations = nlohmann::ordered_json::array();
    if (names_itself) {
        registrations.push_back({{"agentId", agent_id}, {"agentRegistry", registry_of(chain_id)}});
    }
    for (const NamedRecord& e : entries) {
        // Both forms of agentId that files use: a number and a decimal string.
        nlohmann::ordered_json id = e.agent_id % 2 == 0
                                        ? nlohmann::ordered_json(e.agent_id)
                                        : nlohmann::ordered_json(std::to_string(e.agent_id));
        registrations.push_back({{"agentId", id}, {"agentRegistry", registry_of(e.chain_id)}});
    }
    v.document = nlohmann::ordered_json{{"name", "Agent"}, {"registrations", registrations}};
    v.registration_matches = names_itself;
    index::VerificationRecord record;
    record.subject = {
        index::SubjectKind::agent, identity_of_chain(chain_id), word(agent_id), {}, 0};
    record.status =
        names_itself ? index::VerificationStatus::verified : index::VerificationStatus::unverified;
    record.checked_at = 1000;
    record.report_json = v.to_json().dump();
    ASSERT_TRUE(index::save_verification(db, chain_id, record));
}

/// Three chains: 5 agents on mainnet, 4 on Base, 3 on Optimism; tools and runs on two of them; an
/// intermediate-revision registry on Base only. The owners and files make the same-agent cases:
///   mainnet 0 <-> Base 1 <-> Optimism 2, one owner, each file naming its neighbours: one agent;
///   mainnet 1 <-> Base 2 name each other, different owners: not the same agent;
///   mainnet 2 -> Base 3, one owner, Base 3's file names nothing back: not the same agent;
///   Optimism 0 -> mainnet 3 and back, but mainnet 3's file does not name itself: not its file.
void populate_chains(index::Database& db) {
    ASSERT_TRUE(index::IndexStore::open(db));
    const core::Address alice = owner(1);
    const core::Address bob = owner(2);
    for (uint64_t i = 0; i < 5; ++i) insert_agent(db, kMainnet, contract(1), i, alice);
    for (uint64_t i = 0; i < 4; ++i) insert_agent(db, kBase, contract(2), i, i == 2 ? bob : alice);
    for (uint64_t i = 0; i < 3; ++i) insert_agent(db, kOptimism, contract(3), i, alice);
    save_check(db, kMainnet, 0, alice, {{kBase, 1}});
    save_check(db, kBase, 1, alice, {{kMainnet, 0}, {kOptimism, 2}});
    save_check(db, kOptimism, 2, alice, {{kBase, 1}});
    save_check(db, kMainnet, 1, alice, {{kBase, 2}});
    save_check(db, kBase, 2, bob, {{kMainnet, 1}});
    save_check(db, kMainnet, 2, alice, {{kBase, 3}});
    save_check(db, kBase, 3, alice, {});
    save_check(db, kOptimism, 0, alice, {{kMainnet, 3}});
    save_check(db, kMainnet, 3, alice, {{kOptimism, 0}}, false);
    // Scores on some agents of two chains, so that sort=score pages both phases across chains.
    for (const auto& [chain_id, agent_id, score] :
         std::vector<std::tuple<uint64_t, uint64_t, double>>{
             {kMainnet, 1, 0.5}, {kBase, 1, 0.5}, {kBase, 3, 0.9}, {kOptimism, 2, 0.2}}) {
        const std::array<DbValue, 4> row{static_cast<int64_t>(chain_id),
                                         blob_of(identity_of_chain(chain_id)), word(agent_id),
                                         score};
        ASSERT_TRUE(
            db.exec("INSERT INTO agent_scores (chain_id, registry, agent_id, score, low, high, "
                    "evidence, effective_reviewers, reviews, tags, explanation, computed_at, "
                    "covers_block_num) VALUES ($1, $2, $3, $4, $4, $4, 1, 1, 1, '[]', '{}', 0, 0)",
                    row));
    }
    // The intermediate revision's identity registry on Base: one agent.
    insert_agent(db, kBase, contract(42), 0, alice);
    // Tools: 3 on mainnet, 2 on Base (each chain its own registry).
    for (const auto& [chain_id, registry, count] :
         std::vector<std::tuple<uint64_t, uint8_t, uint64_t>>{{kMainnet, 21, 3}, {kBase, 22, 2}}) {
        for (uint64_t i = 0; i < count; ++i) {
            const std::array<DbValue, 3> row{static_cast<int64_t>(chain_id),
                                             blob_of(contract(registry)), word(i)};
            ASSERT_TRUE(
                db.exec("INSERT INTO tools (chain_id, registry, tool_id, creator, "
                        "access_predicate, metadata_uri, manifest_hash, deregistered, "
                        "registered_block_num, updated_block_num, updated_log_index) VALUES "
                        "($1, $2, $3, NULL, NULL, NULL, NULL, 0, 1, 1, 0)",
                        row));
        }
    }
    // Runs: 2 on mainnet, 2 on Base, two of them started in the same block.
    for (const auto& [chain_id, workflow, run, block] :
         std::vector<std::tuple<uint64_t, uint8_t, uint64_t, int64_t>>{{kMainnet, 31, 1, 50},
                                                                       {kMainnet, 31, 2, 70},
                                                                       {kBase, 32, 3, 50},
                                                                       {kBase, 32, 4, 60}}) {
        const std::array<DbValue, 4> row{static_cast<int64_t>(chain_id),
                                         blob_of(contract(workflow)), word(run), block};
        ASSERT_TRUE(db.exec(
            "INSERT INTO workflow_runs (chain_id, workflow, run_id, status, final_task_hash, "
            "completed_at, started_block_num, completed_block_num) VALUES ($1, $2, $3, 0, NULL, "
            "NULL, $4, NULL)",
            row));
    }
}

ApiScope scope_of(uint64_t chain_id, uint8_t tools, uint8_t workflow) {
    ApiScope scope;
    scope.chain_id = chain_id;
    scope.identity_registry = identity_of_chain(chain_id);
    scope.reputation_registry = contract(identity_of_chain(chain_id).bytes[19] + 10);
    scope.validation_registry = contract(identity_of_chain(chain_id).bytes[19] + 20);
    if (tools != 0) scope.tool_registries = {contract(tools)};
    if (workflow != 0) scope.workflows = {contract(workflow)};
    return scope;
}

RestApiOptions three_chains(DatabaseOpener opener) {
    RestApiOptions o;
    o.chains = {scope_of(kMainnet, 21, 31), scope_of(kBase, 22, 32), scope_of(kOptimism, 0, 0)};
    o.chains[1].score = Erc8004Registries{contract(42), contract(43), contract(44)};
    o.open_database = std::move(opener);
    return o;
}

HttpRequest chain_request(std::string path, Query query) {
    HttpRequest r;
    r.method = "GET";
    r.path = std::move(path);
    r.query = std::move(query);
    r.remote_ip = "127.0.0.1";
    return r;
}

Json chain_answer(RestApi& api, const std::string& path, const Query& query = {},
                  int status = 200) {
    const HttpResponse r = api.handle(chain_request(path, query));
    EXPECT_EQ(r.status, status) << path << ": " << r.body.substr(0, 300);
    Json j = Json::parse(r.body, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << r.body.substr(0, 200);
    return j;
}

/// "<chain>/<agent_id>" of every item.
std::vector<std::string> keys_of(const Json& items, const std::string& id_key = "agent_id") {
    std::vector<std::string> out;
    for (const auto& item : items) {
        out.push_back(fmt::format("{}/{}", item["chain_id"].get<uint64_t>(),
                                  item[id_key].get<std::string>()));
    }
    return out;
}

/// Every item of a list, `limit` per page, in page order.
std::vector<std::string> chain_pages(RestApi& api, const std::string& path, Query query,
                                     size_t limit, const std::string& id_key = "agent_id") {
    std::vector<std::string> out;
    std::optional<std::string> cursor;
    for (int page = 0; page < 100; ++page) {
        Query q = query;
        q.emplace_back("limit", std::to_string(limit));
        if (cursor) q.emplace_back("cursor", *cursor);
        const Json j = chain_answer(api, path, q);
        if (!j.contains("items")) return out;
        const auto keys = keys_of(j["items"], id_key);
        out.insert(out.end(), keys.begin(), keys.end());
        if (j["next_cursor"].is_null()) return out;
        cursor = j["next_cursor"].get<std::string>();
    }
    ADD_FAILURE() << "paging did not end";
    return out;
}

void lists_span_and_filter_chains(RestApi& api) {
    // Every followed chain by default, interleaved by agentId, the chain breaking ties.
    const Json all = chain_answer(api, "/api/v1/agents", {{"limit", "100"}});
    EXPECT_EQ(keys_of(all["items"]),
              (std::vector<std::string>{"1/0", "10/0", "8453/0", "1/1", "10/1", "8453/1", "1/2",
                                        "10/2", "8453/2", "1/3", "8453/3", "1/4"}));
    for (const auto& item : all["items"]) {
        EXPECT_EQ(item["agent_registry"], registry_of(item["chain_id"].get<uint64_t>()));
    }
    // ?chain=: one chain, a comma list, repeated; a chain named twice counts once.
    EXPECT_EQ(keys_of(chain_answer(api, "/api/v1/agents", {{"chain", "8453"}})["items"]),
              (std::vector<std::string>{"8453/0", "8453/1", "8453/2", "8453/3"}));
    EXPECT_EQ(chain_answer(api, "/api/v1/agents", {{"chain", "1,10"}})["items"].size(), 8U);
    EXPECT_EQ(chain_answer(api, "/api/v1/agents",
                           {{"chain", "10"}, {"chain", "1"}, {"chain", "10"}})["items"]
                  .size(),
              8U);
    // Paging across chains, for every order: each record once, in the one-page order.
    for (const std::string sort : {"id", "newest", "score"}) {
        const Json one = chain_answer(api, "/api/v1/agents", {{"sort", sort}, {"limit", "100"}});
        const auto expected = keys_of(one["items"]);
        EXPECT_EQ(expected.size(), 12U);
        for (const size_t limit : {size_t{1}, size_t{2}, size_t{5}}) {
            EXPECT_EQ(chain_pages(api, "/api/v1/agents", {{"sort", sort}}, limit), expected)
                << sort << " " << limit;
        }
        EXPECT_EQ(
            chain_pages(api, "/api/v1/agents", {{"sort", sort}, {"chain", "1,8453"}}, 3).size(),
            9U);
    }
    const Json scored = chain_answer(api, "/api/v1/agents", {{"sort", "score"}, {"limit", "4"}});
    EXPECT_EQ(keys_of(scored["items"]),
              (std::vector<std::string>{"8453/3", "1/1", "8453/1", "10/2"}));
    // A cursor of one chain set continues only that list's order: still a valid page.
    // Tools in key order (chain, registry, tool_id), runs newest first.
    EXPECT_EQ(chain_pages(api, "/api/v1/tools", {}, 2, "tool_id"),
              (std::vector<std::string>{"1/0", "1/1", "1/2", "8453/0", "8453/1"}));
    EXPECT_EQ(keys_of(chain_answer(api, "/api/v1/tools", {{"chain", "8453"}})["items"], "tool_id"),
              (std::vector<std::string>{"8453/0", "8453/1"}));
    const auto runs = chain_pages(api, "/api/v1/runs", {}, 1, "run_id");
    ASSERT_EQ(runs.size(), 4U);
    EXPECT_TRUE(runs[0].starts_with("1/"));     // block 70
    EXPECT_TRUE(runs[1].starts_with("8453/"));  // block 60
    EXPECT_TRUE(runs[2].starts_with("1/"));     // block 50, the lower chain id first
    EXPECT_TRUE(runs[3].starts_with("8453/"));
    EXPECT_EQ(chain_answer(api, "/api/v1/runs", {{"chain", "8453"}})["items"].size(), 2U);
    EXPECT_EQ(chain_answer(api, "/api/v1/runs", {{"chain", "10"}})["items"].size(), 0U);
    // Resolvers: alice owns agents on every chain; each item says its chain.
    const Json resolved = chain_answer(api, "/api/v1/resolve/address/" + owner(1).to_checksum_hex(),
                                       {{"chain", "10"}});
    ASSERT_EQ(resolved["items"].size(), 3U);
    for (const auto& item : resolved["items"]) EXPECT_EQ(item["chain_id"], kOptimism);
    EXPECT_EQ(
        chain_answer(api, "/api/v1/resolve/address/" + owner(1).to_checksum_hex())["items"].size(),
        11U);
    // The status names every followed chain, default first.
    const Json status = chain_answer(api, "/api/v1/status");
    EXPECT_EQ(status["chain_id"], kMainnet);
    ASSERT_EQ(status["chains"].size(), 3U);
    EXPECT_EQ(status["chains"][1]["chain_id"], kBase);
    EXPECT_EQ(status["chains"][1]["agent_registry"], registry_of(kBase));
}

void entities_on_a_chain(RestApi& api) {
    // The canonical route names the chain.
    const Json base = chain_answer(api, "/api/v1/chains/8453/agents/2");
    EXPECT_EQ(base["chain_id"], kBase);
    EXPECT_EQ(base["agent_registry"], registry_of(kBase));
    EXPECT_EQ(base["agent_id"], "2");
    EXPECT_EQ(base["owner"], owner(2).to_checksum_hex());
    for (const std::string sub :
         {"/feedback", "/reputation", "/reputation/history", "/validations"}) {
        const Json j = chain_answer(api, "/api/v1/chains/8453/agents/2" + sub);
        EXPECT_EQ(j["chain_id"], kBase) << sub;
        EXPECT_EQ(j["agent_registry"], registry_of(kBase)) << sub;
    }
    // The old route answers the default chain; agentRegistry names another.
    const Json main = chain_answer(api, "/api/v1/agents/2");
    EXPECT_EQ(main["chain_id"], kMainnet);
    EXPECT_EQ(main["owner"], owner(1).to_checksum_hex());
    EXPECT_EQ(chain_answer(api, "/api/v1/agents/2", {{"registry", registry_of(kBase)}})["owner"],
              owner(2).to_checksum_hex());
    EXPECT_EQ(chain_answer(api, "/api/v1/agents/2/reputation",
                           {{"registry", registry_of(kOptimism)}})["chain_id"],
              kOptimism);
    // Agents beyond a chain's count are that chain's 404, not another chain's record.
    EXPECT_EQ(chain_answer(api, "/api/v1/chains/10/agents/4", {}, 404)["code"], "not_found");
    EXPECT_EQ(chain_answer(api, "/api/v1/chains/1/agents/4")["chain_id"], kMainnet);
    // ?revision= on the chosen chain: Base follows the intermediate revision, mainnet does not.
    const Json score = chain_answer(api, "/api/v1/chains/8453/agents/0", {{"revision", "score"}});
    EXPECT_EQ(score["agent_registry"],
              fmt::format("eip155:{}:{}", kBase, contract(42).to_checksum_hex()));
    EXPECT_EQ(
        chain_answer(api, "/api/v1/agents/0",
                     {{"registry", fmt::format("eip155:{}:{}", kBase,
                                               contract(42).to_checksum_hex())}})["agent_registry"],
        score["agent_registry"]);
    EXPECT_EQ(chain_answer(api, "/api/v1/chains/1/agents/0", {{"revision", "score"}}, 404)["code"],
              "not_found");
    const Json score_list = chain_answer(api, "/api/v1/agents", {{"revision", "score"}});
    EXPECT_EQ(keys_of(score_list["items"]), std::vector<std::string>{"8453/0"});
    EXPECT_EQ(
        chain_answer(api, "/api/v1/agents", {{"revision", "score"}, {"chain", "1"}}, 404)["code"],
        "not_found");
    // Tools and runs on a chain.
    EXPECT_EQ(chain_answer(api, "/api/v1/chains/8453/tools/1")["chain_id"], kBase);
    EXPECT_EQ(chain_answer(api, "/api/v1/tools/1")["chain_id"], kMainnet);
    EXPECT_EQ(chain_answer(api, "/api/v1/chains/8453/tools/2", {}, 404)["code"], "not_found");
    const std::string run3 = "0x" + std::string(62, '0') + "03";
    EXPECT_EQ(chain_answer(api, "/api/v1/chains/8453/runs/" + run3)["chain_id"], kBase);
    EXPECT_EQ(chain_answer(api, "/api/v1/runs/" + run3, {}, 404)["code"], "not_found");
}

void chains_that_are_not_followed(RestApi& api) {
    // Followed chains only: 404 unknown_chain. Not a chain id: 400.
    for (const auto& [path, query] : std::vector<std::pair<std::string, Query>>{
             {"/api/v1/agents", {{"chain", "5"}}},
             {"/api/v1/agents", {{"chain", "1,5"}}},
             {"/api/v1/tools", {{"chain", "137"}}},
             {"/api/v1/runs", {{"chain", "137"}}},
             {"/api/v1/resolve/domain/agent.example", {{"chain", "5"}}},
             {"/api/v1/chains/5/agents/0", {}},
             {"/api/v1/chains/5/tools/0", {}},
             {"/api/v1/agents/0", {{"registry", registry_of(5)}}}}) {
        EXPECT_EQ(chain_answer(api, path, query, 404)["code"], "unknown_chain") << path;
    }
    for (const auto& [path, query] : std::vector<std::pair<std::string, Query>>{
             {"/api/v1/agents", {{"chain", "abc"}}},
             {"/api/v1/agents", {{"chain", ""}}},
             {"/api/v1/agents", {{"chain", "0"}}},
             {"/api/v1/agents", {{"chain", "-1"}}},
             {"/api/v1/agents", {{"chain", "01"}}},
             {"/api/v1/agents", {{"chain", "1,"}}},
             {"/api/v1/agents", {{"chain", "99999999999999999999999"}}},
             {"/api/v1/agents", {{"chain", "9223372036854775808"}}},
             {"/api/v1/chains/x/agents/0", {}},
             {"/api/v1/chains/99999999999999999999/runs/0x00", {}},
             {"/api/v1/agents/0", {{"registry", "eip155:1"}}},
             {"/api/v1/agents/0", {{"registry", registry_of(kBase)}, {"revision", "score"}}}}) {
        EXPECT_EQ(chain_answer(api, path, query, 400)["code"], "bad_parameter") << path;
    }
    // A registry the chain does not follow, and `chain` where a route takes none.
    EXPECT_EQ(
        chain_answer(api, "/api/v1/agents/0",
                     {{"registry", fmt::format("eip155:1:{}", contract(99).to_checksum_hex())}},
                     404)["code"],
        "not_found");
    EXPECT_EQ(chain_answer(api, "/api/v1/agents/0", {{"chain", "1"}}, 400)["code"],
              "unknown_parameter");
    EXPECT_EQ(
        chain_answer(api, "/api/v1/chains/1/agents/0", {{"registry", registry_of(1)}}, 400)["code"],
        "unknown_parameter");
}

void same_agent_rule(RestApi& api) {
    const auto same = [&](const std::string& path) {
        const Json j = chain_answer(api, path);
        std::vector<std::string> out;
        for (const auto& s : j["same_agent"]) {
            EXPECT_EQ(s["agent_registry"], registry_of(s["chain_id"].get<uint64_t>()));
            out.push_back(fmt::format("{}/{}", s["chain_id"].get<uint64_t>(),
                                      s["agent_id"].get<std::string>()));
        }
        return out;
    };
    // Mutual naming, one owner, followed transitively (mainnet 0 names Base 1 only).
    EXPECT_EQ(same("/api/v1/chains/1/agents/0"), (std::vector<std::string>{"10/2", "8453/1"}));
    EXPECT_EQ(same("/api/v1/chains/8453/agents/1"), (std::vector<std::string>{"1/0", "10/2"}));
    EXPECT_EQ(same("/api/v1/chains/10/agents/2"), (std::vector<std::string>{"1/0", "8453/1"}));
    // Different owners; one-sided naming; a file that does not name its own record.
    EXPECT_TRUE(same("/api/v1/chains/1/agents/1").empty());
    EXPECT_TRUE(same("/api/v1/chains/8453/agents/2").empty());
    EXPECT_TRUE(same("/api/v1/chains/1/agents/2").empty());
    EXPECT_TRUE(same("/api/v1/chains/8453/agents/3").empty());
    EXPECT_TRUE(same("/api/v1/chains/10/agents/0").empty());
    EXPECT_TRUE(same("/api/v1/chains/1/agents/3").empty());
    // Never checked.
    EXPECT_TRUE(same("/api/v1/chains/1/agents/4").empty());
}

void chains_end_to_end(const DatabaseOpener& opener) {
    {
        auto db = opener();
        ASSERT_TRUE(db) << db.error().to_string();
        populate_chains(**db);
        if (::testing::Test::HasFatalFailure()) return;
    }
    RestApi api(three_chains(opener));
    lists_span_and_filter_chains(api);
    entities_on_a_chain(api);
    chains_that_are_not_followed(api);
    same_agent_rule(api);
}

TEST(rest_chains, three_chains_in_one_index_sqlite) {
    const auto path = testing::scratch_dir() / "rest_chains.sqlite";
    std::filesystem::remove(path);
    chains_end_to_end([path] { return index::open_sqlite(path); });
}

TEST(rest_chains, three_chains_in_one_index_postgres) {
    CREDENCE_POSTGRES_URL(url);
    chains_end_to_end([url] { return index::open_postgres(url); });
}

// The MCP tools take a chain: lookups on that chain (default: the default chain), searches over
// the listed chains (default: all); every tool that names an entity declares the argument.
TEST(rest_chains, mcp_tools_take_a_chain) {
    const auto path = testing::scratch_dir() / "rest_chains_mcp.sqlite";
    std::filesystem::remove(path);
    {
        auto db = index::open_sqlite(path);
        ASSERT_TRUE(db) << db.error().to_string();
        populate_chains(**db);
        if (HasFatalFailure()) return;
    }
    RestApi api(three_chains([path] { return index::open_sqlite(path); }));
    McpEndpoint mcp(api, McpOptions{"credence", "test"});
    const auto post = [&](const Json& message, const std::string& session) {
        HttpRequest r;
        r.method = "POST";
        r.path = "/mcp";
        r.body = message.dump();
        r.remote_ip = "127.0.0.1";
        r.headers.emplace_back("content-type", "application/json");
        if (!session.empty()) r.headers.emplace_back("mcp-session-id", session);
        return mcp.handle(r);
    };
    const HttpResponse init = post(Json{{"jsonrpc", "2.0"},
                                        {"id", 1},
                                        {"method", "initialize"},
                                        {"params",
                                         {{"protocolVersion", "2025-06-18"},
                                          {"capabilities", Json::object()},
                                          {"clientInfo", {{"name", "test"}, {"version", "1"}}}}}},
                                   "");
    std::string session;
    for (const auto& [k, v] : init.headers) {
        if (k == "Mcp-Session-Id") session = v;
    }
    ASSERT_FALSE(session.empty()) << init.body;
    const auto call = [&](const std::string& tool, const Json& arguments) {
        const HttpResponse r = post(Json{{"jsonrpc", "2.0"},
                                         {"id", 2},
                                         {"method", "tools/call"},
                                         {"params", {{"name", tool}, {"arguments", arguments}}}},
                                    session);
        return Json::parse(r.body, nullptr, false)["result"];
    };
    const Json listed =
        Json::parse(post(Json{{"jsonrpc", "2.0"}, {"id", 3}, {"method", "tools/list"}}, session)
                        .body)["result"];
    for (const auto& tool : listed["tools"]) {
        EXPECT_TRUE(tool["inputSchema"]["properties"].contains("chain")) << tool["name"];
    }
    const Json agent = call("get_agent", {{"agent_id", "2"}, {"chain", kBase}});
    EXPECT_FALSE(agent["isError"].get<bool>()) << agent.dump();
    EXPECT_EQ(agent["structuredContent"]["chain_id"], kBase);
    EXPECT_EQ(agent["structuredContent"]["owner"], owner(2).to_checksum_hex());
    EXPECT_EQ(call("get_agent", {{"agent_id", "2"}})["structuredContent"]["chain_id"], kMainnet);
    EXPECT_EQ(call("get_reputation",
                   {{"agent_id", "1"}, {"chain", "10"}})["structuredContent"]["chain_id"],
              kOptimism);
    EXPECT_EQ(call("search_agents", {{"chain", "10"}})["structuredContent"]["items"].size(), 3U);
    EXPECT_EQ(call("search_agents", Json::object())["structuredContent"]["items"].size(), 12U);
    EXPECT_EQ(
        call("verify_tool", {{"tool_id", "0"}, {"chain", "8453"}})["structuredContent"]["chain_id"],
        kBase);
    const Json unknown = call("get_agent", {{"agent_id", "0"}, {"chain", "5"}});
    EXPECT_TRUE(unknown["isError"].get<bool>());
    EXPECT_EQ(unknown["structuredContent"]["code"], "unknown_chain");
    // A chain argument cannot leave its path segment.
    EXPECT_TRUE(
        call("get_agent", {{"agent_id", "0"}, {"chain", "1/agents/1"}})["isError"].get<bool>());
}

}  // namespace
}  // namespace credence::api

namespace credence::api {
namespace {

namespace ir = chain::bindings::identity_registry;

// Two real devnets with different chain ids, indexed by the real indexer into one index and
// checked by the real re-verifier over real HTTPS: the registries have the same address on both
// chains (the same deployer and nonces), so only the chain id tells the records apart. One owner's
// agent on both chains whose files list each other is one agent; two owners' agents whose files
// list each other are not.
class rest_chains_devnet : public ::testing::Test {
protected:
    static constexpr uint64_t kFirst = 31337;
    static constexpr uint64_t kSecond = 8453;

    void SetUp() override {
        for (const uint64_t chain_id : {kFirst, kSecond}) {
            testing::DevnetOptions options;
            options.chain_id = chain_id;
            auto started = testing::Devnet::start(options);
            ASSERT_TRUE(started) << started.error();
            devnets_.push_back(std::move(*started));
        }
    }

    std::string file_uri(uint64_t chain_id, int agent) {
        return fmt::format("https://agent.example/{}-{}.json", chain_id, agent);
    }

    std::string caip(const testing::Devnet& d) {
        return fmt::format("eip155:{}:{}", d.chain_id(),
                           d.address("IdentityRegistry").to_checksum_hex());
    }

    /// Agent 0 on each chain by dev account 1; agent 1 by account 2 on the first chain and
    /// account 3 on the second. Every file names its own record and the other chain's record of
    /// the same agentId.
    void register_agents() {
        for (size_t i = 0; i < devnets_.size(); ++i) {
            testing::Devnet& d = *devnets_[i];
            const testing::Devnet& other = *devnets_[1 - i];
            for (int agent = 0; agent < 2; ++agent) {
                const size_t account = agent == 0 ? 1 : 2 + i;
                d.send(account, d.address("IdentityRegistry"),
                       ir::register_1(file_uri(d.chain_id(), agent)).value());
                Json file{{"type", std::string(core::kRegistrationTypeV1)},
                          {"name", fmt::format("Agent {} on {}", agent, d.chain_id())},
                          {"description", "Registered on two chains"},
                          {"image", "https://agent.example/icon.png"},
                          {"services", Json::array({Json{{"name", "MCP"},
                                                         {"endpoint", "https://agent.example/mcp"},
                                                         {"version", "2025-06-18"}}})},
                          {"registrations",
                           Json::array({Json{{"agentId", agent}, {"agentRegistry", caip(d)}},
                                        Json{{"agentId", agent}, {"agentRegistry", caip(other)}}})},
                          {"supportedTrust", Json::array({"reputation"})}};
                server_.serve("agent.example", fmt::format("/{}-{}.json", d.chain_id(), agent),
                              file.dump());
            }
        }
    }

    void index_and_verify(index::Database& db) {
        verify::FetcherConfig config;
        config.connect_to = server_.connect_to();
        config.ca_file = server_.ca_file();
        config.allow_hosts = {"127.0.0.1"};
        auto fetcher = verify::make_curl_fetcher(config);
        for (const auto& devnet : devnets_) {
            testing::Devnet& d = *devnet;
            index::IndexerOptions io;
            io.chain_id = d.chain_id();
            io.sources = index::sources_from_deployment(d.deployment());
            index::Indexer indexer(io, d.rpc(), db);
            ASSERT_TRUE(indexer.start());
            ASSERT_TRUE(indexer.run(std::stop_token{}, false, std::chrono::milliseconds(10),
                                    [](const index::StepReport&) {}));
            chain::RpcClient rpc = d.rpc();
            std::map<verify::SubjectKind, verify::BatchCheck> checks;
            checks[verify::SubjectKind::agent] =
                verify::make_agent_check(*fetcher, rpc, d.chain_id());
            verify::ReverifyOptions options;
            options.now = 1'700'000'000;
            auto counts = verify::reverify_due(db, d.chain_id(), checks, options);
            ASSERT_TRUE(counts) << counts.error().to_string();
            EXPECT_EQ(counts->checked, 2U);
        }
    }

    RestApiOptions options(DatabaseOpener opener) {
        RestApiOptions o;
        for (const auto& d : devnets_) {
            ApiScope scope;
            scope.chain_id = d->chain_id();
            scope.identity_registry = d->address("IdentityRegistry");
            scope.reputation_registry = d->address("ReputationRegistry");
            scope.validation_registry = d->address("ValidationRegistry");
            o.chains.push_back(scope);
        }
        o.open_database = std::move(opener);
        return o;
    }

    void end_to_end(const DatabaseOpener& opener) {
        ASSERT_EQ(devnets_[0]->address("IdentityRegistry"),
                  devnets_[1]->address("IdentityRegistry"));
        register_agents();
        {
            auto db = opener();
            ASSERT_TRUE(db) << db.error().to_string();
            index_and_verify(**db);
            if (HasFatalFailure()) return;
        }
        RestApi api(options(opener));
        const Json all = chain_answer(api, "/api/v1/agents", {});
        EXPECT_EQ(keys_of(all["items"]),
                  (std::vector<std::string>{"8453/0", "31337/0", "8453/1", "31337/1"}));
        for (const auto& item : all["items"]) {
            EXPECT_EQ(item["verification"], "verified") << item.dump();
            EXPECT_EQ(item["name"],
                      fmt::format("Agent {} on {}", item["agent_id"].get<std::string>(),
                                  item["chain_id"].get<uint64_t>()));
        }
        const Json second = chain_answer(api, "/api/v1/chains/8453/agents/0");
        EXPECT_EQ(second["owner"], devnets_[1]->dev_address(1).to_checksum_hex());
        ASSERT_EQ(second["same_agent"].size(), 1U) << second.dump();
        EXPECT_EQ(second["same_agent"][0]["chain_id"], kFirst);
        EXPECT_EQ(second["same_agent"][0]["agent_registry"], caip(*devnets_[0]));
        EXPECT_EQ(second["same_agent"][0]["agent_id"], "0");
        // The default chain's route, and the record found from it.
        const Json first = chain_answer(api, "/api/v1/agents/0");
        EXPECT_EQ(first["chain_id"], kFirst);
        ASSERT_EQ(first["same_agent"].size(), 1U);
        EXPECT_EQ(first["same_agent"][0]["chain_id"], kSecond);
        // Files naming each other, but two owners.
        EXPECT_EQ(chain_answer(api, "/api/v1/chains/31337/agents/1")["same_agent"].size(), 0U);
        EXPECT_EQ(
            chain_answer(api, "/api/v1/agents/1", {{"registry", caip(*devnets_[1])}})["same_agent"]
                .size(),
            0U);
    }

    std::vector<std::unique_ptr<testing::Devnet>> devnets_;
    testing::HttpsServer server_{{"agent.example"}};
};

TEST_F(rest_chains_devnet, one_agent_on_two_chains_sqlite) {
    const auto path = testing::scratch_dir() / "rest_chains_devnet.sqlite";
    std::filesystem::remove(path);
    end_to_end([path] { return index::open_sqlite(path); });
}

TEST_F(rest_chains_devnet, one_agent_on_two_chains_postgres) {
    CREDENCE_POSTGRES_URL(url);
    end_to_end([url] { return index::open_postgres(url); });
}

}  // namespace
}  // namespace credence::api
