// The whole-entry search filters (docs/api.md §Agents, §Tools; index/schema.cpp migration 6) on
// SQLite and PostgreSQL: over profiles written by verify/store/profile_store, every filter value
// and paging order returns exactly the subjects that LIKE '%,value,%' over the comma-wrapped
// profile column returned before the term tables existed; a profile rewrite replaces its terms.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <credence/api/rest_api.hpp>
#include <credence/core/uint256.hpp>
#include <credence/index/store.hpp>
#include <credence/verify/store/profile_store.hpp>

#include "support/postgres.hpp"
#include "support/scratch.hpp"

namespace credence::api {
namespace {

using index::DbValue;
using Json = nlohmann::json;
using Query = std::vector<std::pair<std::string, std::string>>;

constexpr uint64_t kChain = 31337;

core::Address address(uint8_t last) {
    core::Address a;
    a.bytes[19] = last;
    return a;
}

core::Bytes id_bytes(uint64_t id) {
    core::Bytes out(32, 0);
    for (size_t i = 0; i < 8; ++i) out[31 - i] = static_cast<uint8_t>(id >> (8 * i));
    return out;
}

DbValue blob(const core::Address& a) { return core::Bytes(a.bytes.begin(), a.bytes.end()); }

HttpRequest search_request(std::string path, Query query) {
    HttpRequest r;
    r.method = "GET";
    r.path = std::move(path);
    r.query = std::move(query);
    r.remote_ip = "127.0.0.1";
    return r;
}

Json search_ok(RestApi& api, const std::string& path, const Query& query) {
    const HttpResponse r = api.handle(search_request(path, query));
    EXPECT_EQ(r.status, 200) << path << ": " << r.body.substr(0, 300);
    return Json::parse(r.body, nullptr, false);
}

/// Every id of a search, page by page (`limit` per page), in the order the pages give them.
std::vector<std::string> all_pages(RestApi& api, const std::string& path, const Query& query,
                                   const std::string& id_key, size_t limit = 7) {
    std::vector<std::string> out;
    std::optional<std::string> cursor;
    for (int page_no = 0; page_no < 200; ++page_no) {
        Query q = query;
        q.emplace_back("limit", std::to_string(limit));
        if (cursor) q.emplace_back("cursor", *cursor);
        const Json page = search_ok(api, path, q);
        if (!page.contains("items")) return out;  // the failure is reported by search_ok()
        for (const auto& item : page["items"]) out.push_back(item[id_key].get<std::string>());
        if (page["next_cursor"].is_null()) return out;
        cursor = page["next_cursor"].get<std::string>();
    }
    ADD_FAILURE() << "paging did not end";
    return out;
}

std::string decimal(const DbValue& id) {
    const auto& bytes = std::get<core::Bytes>(id);
    auto value = core::Uint256::from_be_bytes(bytes);
    return value ? value->to_dec() : std::string("?");
}

/// What the filter matched before migration 6: LIKE '%,value,%' over the comma-wrapped column
/// (value ASCII-lowercased, % _ \ escaped), in the subject's key order.
std::vector<std::string> like_reference(index::Database& db, const std::string& sql,
                                        const std::string& value) {
    std::string pattern = "%,";
    for (char c : value) {
        const char lower = c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
        if (lower == '%' || lower == '_' || lower == '\\') pattern += '\\';
        pattern += lower;
    }
    pattern += ",%";
    const std::array<DbValue, 1> params{pattern};
    auto rows = db.query(sql, params);
    EXPECT_TRUE(rows) << rows.error().to_string();
    std::vector<std::string> out;
    if (rows) {
        for (const auto& row : *rows) out.push_back(decimal(row[0]));
    }
    return out;
}

// Vocabulary with LIKE's wildcards and mixed case, so that escaping and case folding are covered.
const std::vector<std::string> kSkills{"code/review",   "Code/Review-Pro", "data_science",
                                       "data%science",  "review",          "weather",
                                       "route planning"};
const std::vector<std::string> kServices{"a2a", "MCP", "oasf", "web"};
const std::vector<std::string> kTrust{"reputation", "crypto-economic", "tee-attestation"};
constexpr uint64_t kAgents = 60;

/// kAgents agents (a few without a profile), profiles written by profile_store; 12 tools.
void populate(index::Database& db) {
    ASSERT_TRUE(index::IndexStore::open(db));
    std::mt19937 rng(8004);
    const auto pick = [&](const std::vector<std::string>& from, size_t most) {
        std::vector<std::string> out;
        const size_t n = rng() % (most + 1);
        for (size_t k = 0; k < n; ++k) out.push_back(from[rng() % from.size()]);
        return out;
    };
    for (uint64_t i = 0; i < kAgents; ++i) {
        const std::array<DbValue, 5> agent{int64_t{kChain}, blob(address(1)), id_bytes(i),
                                           blob(address(static_cast<uint8_t>(100 + i % 3))),
                                           static_cast<int64_t>(i)};
        ASSERT_TRUE(
            db.exec("INSERT INTO agents (chain_id, registry, agent_id, owner, agent_uri, "
                    "wallet, approved, registered_block_num, registered_txn_hash, "
                    "updated_block_num, updated_log_index) VALUES ($1, $2, $3, $4, "
                    "'https://a.example/', NULL, NULL, $5, NULL, $5, 0)",
                    agent));
        if (i % 11 == 5) continue;  // never checked: no profile
        verify::AgentProfile p;
        p.has_document = true;
        p.name = fmt::format("Agent {}", i);
        p.description = "an agent";
        p.active = i % 4 != 0;
        p.service_names = pick(kServices, 3);
        p.skills = pick(kSkills, 3);
        p.domains = {fmt::format("agent{}.example", i % 7)};
        p.trust_models = pick(kTrust, 2);
        p.status = "verified";
        p.checked_at = 1000;
        ASSERT_TRUE(verify::save_agent_profile(db, kChain, address(1), id_bytes(i), p));
        if (i % 3 == 0) {
            const std::array<DbValue, 4> score{int64_t{kChain}, blob(address(1)), id_bytes(i),
                                               static_cast<double>(i % 10) / 10.0};
            ASSERT_TRUE(
                db.exec("INSERT INTO agent_scores (chain_id, registry, agent_id, score, "
                        "low, high, evidence, effective_reviewers, reviews, tags, "
                        "explanation, computed_at, covers_block_num) VALUES ($1, $2, $3, "
                        "$4, $4, $4, 1, 1, 1, '[]', '{}', 0, 0)",
                        score));
        }
    }
    const std::vector<std::string> tags{"analytics", "Portfolio", "defi", "data_feed"};
    for (uint64_t i = 0; i < 12; ++i) {
        const std::array<DbValue, 3> tool{int64_t{kChain}, blob(address(9)), id_bytes(i)};
        ASSERT_TRUE(
            db.exec("INSERT INTO tools (chain_id, registry, tool_id, creator, "
                    "access_predicate, metadata_uri, manifest_hash, deregistered, "
                    "registered_block_num, updated_block_num, updated_log_index) VALUES "
                    "($1, $2, $3, NULL, NULL, NULL, NULL, 0, 1, 1, 0)",
                    tool));
        verify::ToolProfile p;
        p.has_document = true;
        p.name = fmt::format("tool-{}", i);
        p.tags = pick(tags, 2);
        p.pricing_protocols =
            i % 2 == 0 ? std::vector<std::string>{"x402"} : std::vector<std::string>{};
        p.assets = {i % 3 == 0 ? "USDC" : "eip155:8453/erc20:0xabc"};
        p.access_kinds = i % 4 == 0 ? std::vector<std::string>{"allowlist", "erc721-holding"}
                                    : std::vector<std::string>{};
        p.status = "verified";
        p.checked_at = 1000;
        ASSERT_TRUE(verify::save_tool_profile(db, kChain, address(9), id_bytes(i), p));
    }
}

RestApiOptions options(std::function<index::DbResult<std::unique_ptr<index::Database>>()> open) {
    RestApiOptions o;
    o.scope.chain_id = kChain;
    o.scope.identity_registry = address(1);
    o.scope.tool_registries = {address(9)};
    o.open_database = std::move(open);
    return o;
}

constexpr std::string_view kAgentLike =
    "SELECT a.agent_id FROM agents a JOIN agent_profiles p ON p.chain_id = a.chain_id AND "
    "p.registry = a.registry AND p.agent_id = a.agent_id WHERE a.chain_id = 31337 AND p.{} LIKE "
    "$1 ESCAPE '\\' ORDER BY a.agent_id";

void filters_match_the_comma_lists(index::Database& db, RestApi& api) {
    populate(db);
    if (::testing::Test::HasFatalFailure()) return;
    struct Case {
        std::string param;
        std::string column;
        std::vector<std::string> values;
    };
    std::vector<Case> cases{
        {"skill", "skills", kSkills},
        {"service", "service_names", kServices},
        {"trust_model", "trust_models", kTrust},
        {"domain", "domains", {"agent0.example", "agent3.example", "AGENT6.example"}},
    };
    // Case folding, a LIKE wildcard that must stay literal, an absent entry, and a prefix.
    cases[0].values.insert(cases[0].values.end(),
                           {"CODE/REVIEW", "data science", "data%", "code", "nothing"});
    size_t nonempty = 0;
    for (const Case& c : cases) {
        for (const std::string& value : c.values) {
            const auto expected =
                like_reference(db, fmt::format(fmt::runtime(kAgentLike), c.column), value);
            if (!expected.empty()) ++nonempty;
            EXPECT_EQ(all_pages(api, "/api/v1/agents", {{c.param, value}}, "agent_id"), expected)
                << c.param << "=" << value;
            // newest: the same agents, descending.
            auto reversed = expected;
            std::ranges::reverse(reversed);
            EXPECT_EQ(all_pages(api, "/api/v1/agents", {{c.param, value}, {"sort", "newest"}},
                                "agent_id", 3),
                      reversed)
                << c.param << "=" << value;
            // score: the same agents (scored first, by score, then the rest), each once.
            auto by_score = all_pages(api, "/api/v1/agents", {{c.param, value}, {"sort", "score"}},
                                      "agent_id", 2);
            std::ranges::sort(by_score, [](const std::string& a, const std::string& b) {
                return std::stoul(a) < std::stoul(b);
            });
            EXPECT_EQ(by_score, expected) << c.param << "=" << value;
        }
    }
    EXPECT_GE(nonempty, 12U);  // the data exercises the filters

    // Filters combine with AND, with each other and with the other parameters.
    std::set<std::string> skill_ids;
    for (const auto& id :
         like_reference(db, fmt::format(fmt::runtime(kAgentLike), "skills"), "code/review"))
        skill_ids.insert(id);
    std::vector<std::string> both;
    for (const auto& id :
         like_reference(db, fmt::format(fmt::runtime(kAgentLike), "trust_models"), "reputation")) {
        if (skill_ids.contains(id)) both.push_back(id);
    }
    ASSERT_FALSE(both.empty());
    EXPECT_EQ(all_pages(api, "/api/v1/agents",
                        {{"skill", "code/review"}, {"trust_model", "reputation"}}, "agent_id", 2),
              both);
    for (const auto& id : all_pages(api, "/api/v1/agents",
                                    {{"skill", "code/review"}, {"active", "true"}}, "agent_id")) {
        EXPECT_NE(std::stoul(id) % 4, 0U) << id;
        EXPECT_TRUE(skill_ids.contains(id)) << id;
    }
    // No entry holds a comma (profile_store strips them), so such a value matches nothing.
    EXPECT_TRUE(
        all_pages(api, "/api/v1/agents", {{"skill", "code/review,review"}}, "agent_id").empty());

    // Tools: tag, pricing, asset, access.
    constexpr std::string_view kToolLike =
        "SELECT t.tool_id FROM tools t JOIN tool_profiles p ON p.chain_id = t.chain_id AND "
        "p.registry = t.registry AND p.tool_id = t.tool_id WHERE t.chain_id = 31337 AND p.{} LIKE "
        "$1 ESCAPE '\\' ORDER BY t.registry, t.tool_id";
    const std::vector<Case> tool_cases{
        {"tag", "tags", {"analytics", "portfolio", "DEFI", "data_feed", "data%feed", "none"}},
        {"pricing", "pricing_protocols", {"x402", "x40"}},
        {"asset", "assets", {"usdc", "eip155:8453/erc20:0xabc"}},
        {"access", "access_kinds", {"allowlist", "erc721-holding", "erc20"}},
    };
    size_t tool_hits = 0;
    for (const Case& c : tool_cases) {
        for (const std::string& value : c.values) {
            const auto expected =
                like_reference(db, fmt::format(fmt::runtime(kToolLike), c.column), value);
            tool_hits += expected.size();
            EXPECT_EQ(all_pages(api, "/api/v1/tools", {{c.param, value}}, "tool_id", 2), expected)
                << c.param << "=" << value;
        }
    }
    EXPECT_GE(tool_hits, 20U);

    // The domain resolver looks the domain up the same way.
    std::set<std::string> resolved;
    const Json by_domain = search_ok(api, "/api/v1/resolve/domain/Agent3.Example", {});
    for (const auto& item : by_domain["items"]) resolved.insert(item["agentId"].get<std::string>());
    const auto domain_ids =
        like_reference(db, fmt::format(fmt::runtime(kAgentLike), "domains"), "agent3.example");
    EXPECT_EQ(resolved, std::set<std::string>(domain_ids.begin(), domain_ids.end()));
    EXPECT_FALSE(resolved.empty());
}

void a_rewrite_replaces_terms(index::Database& db, RestApi& api) {
    ASSERT_TRUE(index::IndexStore::open(db));
    const std::array<DbValue, 3> agent{int64_t{kChain}, blob(address(1)), id_bytes(7)};
    ASSERT_TRUE(
        db.exec("INSERT INTO agents (chain_id, registry, agent_id, owner, agent_uri, "
                "wallet, approved, registered_block_num, registered_txn_hash, "
                "updated_block_num, updated_log_index) VALUES ($1, $2, $3, $2, 'x', NULL, "
                "NULL, 1, NULL, 1, 0)",
                agent));
    verify::AgentProfile p;
    p.has_document = true;
    p.name = "seven";
    p.skills = {"Translation", "summarizing"};
    p.service_names = {"mcp"};
    p.status = "verified";
    ASSERT_TRUE(verify::save_agent_profile(db, kChain, address(1), id_bytes(7), p));
    const auto skill = [&](const std::string& value) {
        return all_pages(api, "/api/v1/agents", {{"skill", value}}, "agent_id");
    };
    EXPECT_EQ(skill("translation"), std::vector<std::string>{"7"});
    EXPECT_EQ(skill("summarizing"), std::vector<std::string>{"7"});

    // A later check read another file: the old skill no longer matches, the new one does.
    p.skills = {"summarizing", "routing"};
    p.service_names = {};
    ASSERT_TRUE(verify::save_agent_profile(db, kChain, address(1), id_bytes(7), p));
    EXPECT_TRUE(skill("translation").empty());
    EXPECT_EQ(skill("summarizing"), std::vector<std::string>{"7"});
    EXPECT_EQ(skill("routing"), std::vector<std::string>{"7"});
    EXPECT_TRUE(all_pages(api, "/api/v1/agents", {{"service", "mcp"}}, "agent_id").empty());
    auto count = db.query("SELECT COUNT(*) FROM agent_profile_terms", {});
    ASSERT_TRUE(count);
    EXPECT_EQ(std::get<int64_t>(count->front()[0]), 2);  // summarizing, routing

    // A check that read no document keeps the contents, and so the terms.
    verify::AgentProfile unreachable;
    unreachable.status = "unreachable";
    ASSERT_TRUE(verify::save_agent_profile(db, kChain, address(1), id_bytes(7), unreachable));
    EXPECT_EQ(skill("routing"), std::vector<std::string>{"7"});

    // Inside the caller's transaction: a rollback takes the profile and its terms back together.
    ASSERT_TRUE(db.begin());
    p.skills = {"gone"};
    ASSERT_TRUE(verify::save_agent_profile(db, kChain, address(1), id_bytes(7), p));
    ASSERT_TRUE(db.rollback());
    EXPECT_TRUE(skill("gone").empty());
    EXPECT_EQ(skill("routing"), std::vector<std::string>{"7"});
}

TEST(rest_search, filters_match_the_comma_lists_sqlite) {
    const auto path = testing::scratch_dir() / "rest_search.sqlite";
    std::filesystem::remove(path);
    auto db = index::open_sqlite(path);
    ASSERT_TRUE(db) << db.error().to_string();
    RestApi api(options([path] { return index::open_sqlite(path); }));
    filters_match_the_comma_lists(**db, api);
}

TEST(rest_search, filters_match_the_comma_lists_postgres) {
    CREDENCE_POSTGRES_URL(url);
    auto db = index::open_postgres(url);
    ASSERT_TRUE(db) << db.error().to_string();
    RestApi api(options([url] { return index::open_postgres(url); }));
    filters_match_the_comma_lists(**db, api);
}

TEST(rest_search, a_rewrite_replaces_terms_sqlite) {
    const auto path = testing::scratch_dir() / "rest_search_rewrite.sqlite";
    std::filesystem::remove(path);
    auto db = index::open_sqlite(path);
    ASSERT_TRUE(db) << db.error().to_string();
    RestApi api(options([path] { return index::open_sqlite(path); }));
    a_rewrite_replaces_terms(**db, api);
}

TEST(rest_search, a_rewrite_replaces_terms_postgres) {
    CREDENCE_POSTGRES_URL(url);
    auto db = index::open_postgres(url);
    ASSERT_TRUE(db) << db.error().to_string();
    RestApi api(options([url] { return index::open_postgres(url); }));
    a_rewrite_replaces_terms(**db, api);
}

}  // namespace
}  // namespace credence::api
