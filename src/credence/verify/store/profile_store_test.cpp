// The API's read models: profiles from real agent and tool reports (the verifiers' to_json), saved
// and loaded on SQLite and PostgreSQL; a check that read nothing keeps the last contents.
#include <credence/verify/store/profile_store.hpp>

#include <gtest/gtest.h>

#include <algorithm>

#include <credence/core/registration_file.hpp>
#include <credence/index/schema.hpp>
#include <credence/index/store.hpp>
#include <credence/verify/rules/manifest_summary.hpp>
#include <credence/verify/verifiers/tool_verifier.hpp>

#include "support/postgres.hpp"
#include "support/scratch.hpp"

namespace credence::verify {
namespace {

using Json = nlohmann::json;

AgentVerification agent_report() {
    AgentVerification v;
    v.status = AgentStatus::verified;
    v.fetched = true;
    const Json file{
        {"type", std::string(core::kRegistrationTypeV1)},
        {"name", "Weather Oracle"},
        {"description", "Forecasts, for agents"},
        {"image", "https://agent.example/i.png"},
        {"services", Json::array({Json{{"name", "A2A"},
                                       {"endpoint", "https://agent.example/card.json"},
                                       {"version", "0.3.0"}},
                                  Json{{"name", "OASF"},
                                       {"endpoint", "https://agent.example/oasf"},
                                       {"version", "0.8"},
                                       {"skills", Json::array({"Forecasting/Weather"})}}})},
        {"active", false},
        {"registrations", Json::array()},
        {"supportedTrust", Json::array({"reputation", "tee-attestation"})}};
    auto report = core::validate_registration_file(file.dump());
    EXPECT_TRUE(report);
    if (report) v.registration = std::move(*report);
    DomainCheck domain;
    domain.domain = "agent.example";
    domain.verified = true;
    v.domains.push_back(domain);
    DomainCheck other;
    other.domain = "unverified.example";
    other.verified = false;
    other.reason = DomainReason::not_found;
    v.domains.push_back(other);
    AgentCardCheck card;
    card.fetched = true;
    card.card = AgentCard{};
    AgentSkill skill;
    skill.id = "route-planning";
    skill.name = "Route planning";
    card.card->skills.push_back(skill);
    v.agent_cards.push_back(card);
    return v;
}

void save_and_load(index::Database& db) {
    ASSERT_TRUE(index::IndexStore::open(db));
    core::Address registry;
    registry.bytes.fill(0x11);
    const core::Bytes agent_id(32, 0x01);

    ASSERT_TRUE(save_agent_profile(db, 31337, registry, agent_id, agent_report(), 1000));
    auto loaded = load_agent_profile(db, 31337, registry, agent_id);
    ASSERT_TRUE(loaded) << loaded.error().to_string();
    ASSERT_TRUE(loaded->has_value());
    const AgentProfile& p = **loaded;
    EXPECT_EQ(p.name, "Weather Oracle");
    EXPECT_EQ(p.description, "Forecasts, for agents");
    EXPECT_EQ(p.active, std::optional<bool>(false));
    EXPECT_EQ(p.x402_support, std::nullopt);
    EXPECT_EQ(p.service_names, (std::vector<std::string>{"a2a", "oasf"}));
    EXPECT_EQ(p.skills, (std::vector<std::string>{"forecasting/weather", "route-planning",
                                                  "route planning"}));
    // Only verified domains (ERC-8004 §Endpoint Domain Verification).
    EXPECT_EQ(p.domains, (std::vector<std::string>{"agent.example"}));
    EXPECT_EQ(p.trust_models, (std::vector<std::string>{"reputation", "tee-attestation"}));
    EXPECT_EQ(p.status, "verified");
    EXPECT_EQ(p.checked_at, 1000);
    EXPECT_EQ(Json::parse(p.services_json).size(), 2U);

    // The comma-wrapped columns match whole entries with LIKE (what the API's filters do).
    const std::array<index::DbValue, 1> like{std::string("%,oasf,%")};
    auto hits = db.query("SELECT COUNT(*) FROM agent_profiles WHERE service_names LIKE $1", like);
    ASSERT_TRUE(hits);
    EXPECT_EQ(std::get<int64_t>(hits->front()[0]), 1);
    const std::array<index::DbValue, 1> partial{std::string("%,oas,%")};
    hits = db.query("SELECT COUNT(*) FROM agent_profiles WHERE service_names LIKE $1", partial);
    ASSERT_TRUE(hits);
    EXPECT_EQ(std::get<int64_t>(hits->front()[0]), 0);

    // The same entries, one row each, for the API's whole-entry filters (migration 6).
    auto terms = db.query(
        "SELECT list, term FROM agent_profile_terms WHERE chain_id = 31337 ORDER BY list, term",
        {});
    ASSERT_TRUE(terms) << terms.error().to_string();
    std::vector<std::string> entries;
    for (const auto& r : *terms) {
        entries.push_back(std::get<std::string>(r[0]) + " " + std::get<std::string>(r[1]));
    }
    std::ranges::sort(entries);  // bytewise, whatever the server's collation
    EXPECT_EQ(entries,
              (std::vector<std::string>{"domain agent.example", "service a2a", "service oasf",
                                        "skill forecasting/weather", "skill route planning",
                                        "skill route-planning", "trust_model reputation",
                                        "trust_model tee-attestation"}));

    // A later check that could not read the file keeps the contents, updates the status.
    VerificationRecord unreachable;
    unreachable.subject = Subject{SubjectKind::agent, registry, agent_id, {}, 0};
    unreachable.status = VerificationStatus::unreachable;
    unreachable.checked_at = 2000;
    AgentVerification failed;
    failed.status = AgentStatus::unreachable;
    unreachable.report_json = failed.to_json().dump();
    ASSERT_TRUE(save_profile(db, 31337, unreachable));
    loaded = load_agent_profile(db, 31337, registry, agent_id);
    ASSERT_TRUE(loaded && loaded->has_value());
    EXPECT_EQ((*loaded)->name, "Weather Oracle");
    EXPECT_EQ((*loaded)->status, "unreachable");
    EXPECT_EQ((*loaded)->checked_at, 2000);

    // Tools: the manifest summary travels in the report (ERC-8257 §2-§4 fields).
    const Json manifest = Json::parse(R"({
        "type": "https://ercs.ethereum.org/ERCS/erc-8257#tool-manifest-v1",
        "name": "premium-analytics", "description": "Advanced portfolio analytics",
        "version": "1.0.0", "tags": ["analytics", "Portfolio"],
        "pricing": [{"amount": "20000", "protocol": "x402",
                     "asset": "eip155:8453/erc20:0x833589fcd6edb6e08f4c7c32d4f71b54bda02913",
                     "recipient": "eip155:8453:0xabcdef0123456789abcdef0123456789abcdef01"}],
        "access": {"requirements": [{"kind": "erc721-holding"}, {"kind": "allowlist"}]}
    })");
    ToolVerification tool;
    tool.verdict = ToolVerdict::canonical;
    tool.manifest_summary = tool_manifest_summary(manifest);
    ASSERT_TRUE(tool.manifest_summary);
    VerificationRecord tool_record;
    tool_record.subject = Subject{SubjectKind::tool, registry, agent_id, {}, 0};
    tool_record.status = VerificationStatus::verified;
    tool_record.checked_at = 3000;
    tool_record.report_json = tool.to_json().dump();
    ASSERT_TRUE(save_profile(db, 31337, tool_record));
    auto t = load_tool_profile(db, 31337, registry, agent_id);
    ASSERT_TRUE(t && t->has_value());
    EXPECT_EQ((*t)->name, "premium-analytics");
    EXPECT_EQ((*t)->version, "1.0.0");
    EXPECT_EQ((*t)->tags, (std::vector<std::string>{"analytics", "portfolio"}));
    EXPECT_EQ((*t)->pricing_protocols, (std::vector<std::string>{"x402"}));
    EXPECT_EQ(
        (*t)->assets,
        (std::vector<std::string>{"eip155:8453/erc20:0x833589fcd6edb6e08f4c7c32d4f71b54bda02913"}));
    EXPECT_EQ((*t)->access_kinds, (std::vector<std::string>{"erc721-holding", "allowlist"}));
    EXPECT_EQ((*t)->status, "verified");
    EXPECT_EQ((*t)->reason, "");

    // Other kinds have no profile; unknown subjects load as nullopt.
    VerificationRecord run;
    run.subject.kind = SubjectKind::run;
    EXPECT_TRUE(save_profile(db, 31337, run));
    auto none = load_tool_profile(db, 31337, registry, core::Bytes(32, 0x02));
    ASSERT_TRUE(none);
    EXPECT_FALSE(none->has_value());
}

/// Migration 6 on a database at version 5: the term tables are filled from the comma lists
/// already stored, entry for entry.
void migration_backfills_terms(index::Database& db) {
    const auto all = index::index_migrations();
    ASSERT_GE(all.size(), 6U);
    auto at5 = index::migrate(db, all.first(5));
    ASSERT_TRUE(at5) << at5.error().to_string();
    ASSERT_EQ(*at5, 5);
    const core::Bytes registry(20, 0x11);
    // Rows as migration 3's writers left them (profile_store before migration 6).
    const auto agent = [&](uint8_t id, const char* services, const char* skills,
                           const char* domains, const char* trust) {
        const std::array<index::DbValue, 7> row{int64_t{31337},      registry,
                                                core::Bytes(32, id), std::string(services),
                                                std::string(skills), std::string(domains),
                                                std::string(trust)};
        ASSERT_TRUE(
            db.exec("INSERT INTO agent_profiles (chain_id, registry, agent_id, name, "
                    "description, image, active, x402_support, services, service_names, "
                    "skills, domains, trust_models, search_text, status, checked_at) "
                    "VALUES ($1, $2, $3, 'n', '', '', NULL, NULL, '[]', $4, $5, $6, $7, "
                    "'', 'verified', 1)",
                    row));
    };
    agent(1, ",a2a,mcp,", ",code/review,x_y%z,route planning,", ",agent.example,", ",reputation,");
    agent(2, ",", ",", ",", ",");  // never read a document
    agent(3, ",mcp,", ",review,", ",", ",reputation,crypto-economic,");
    const std::array<index::DbValue, 3> tool{int64_t{31337}, registry, core::Bytes(32, 9)};
    ASSERT_TRUE(
        db.exec("INSERT INTO tool_profiles (chain_id, registry, tool_id, name, "
                "description, version, tags, pricing_protocols, assets, access_kinds, "
                "search_text, status, reason, checked_at) VALUES ($1, $2, $3, 't', '', "
                "'', ',analytics,portfolio,', ',x402,', ',', ',allowlist,', '', "
                "'verified', '', 1)",
                tool));

    auto latest = index::migrate(db, all.first(6));
    ASSERT_TRUE(latest) << latest.error().to_string();
    EXPECT_EQ(*latest, 6);
    auto rows = db.query(
        "SELECT agent_id, list, term FROM agent_profile_terms ORDER BY agent_id, list, term", {});
    ASSERT_TRUE(rows) << rows.error().to_string();
    std::vector<std::string> got;
    for (const auto& r : *rows) {
        got.push_back(std::to_string(std::get<core::Bytes>(r[0]).front()) + " " +
                      std::get<std::string>(r[1]) + " " + std::get<std::string>(r[2]));
    }
    std::ranges::sort(got);  // bytewise, whatever the server's collation
    EXPECT_EQ(got, (std::vector<std::string>{
                       "1 domain agent.example", "1 service a2a", "1 service mcp",
                       "1 skill code/review", "1 skill route planning", "1 skill x_y%z",
                       "1 trust_model reputation", "3 service mcp", "3 skill review",
                       "3 trust_model crypto-economic", "3 trust_model reputation"}));
    auto tools = db.query("SELECT list, term FROM tool_profile_terms ORDER BY list, term", {});
    ASSERT_TRUE(tools) << tools.error().to_string();
    got.clear();
    for (const auto& r : *tools) {
        got.push_back(std::get<std::string>(r[0]) + " " + std::get<std::string>(r[1]));
    }
    std::ranges::sort(got);
    EXPECT_EQ(got, (std::vector<std::string>{"access allowlist", "pricing x402", "tag analytics",
                                             "tag portfolio"}));

    // The next write of a backfilled profile replaces its terms like any other.
    AgentProfile p;
    p.has_document = true;
    p.skills = {"Review"};
    p.status = "verified";
    core::Address reg;
    reg.bytes.fill(0x11);
    ASSERT_TRUE(save_agent_profile(db, 31337, reg, core::Bytes(32, 1), p));
    auto one = db.query("SELECT list, term FROM agent_profile_terms WHERE agent_id = $1",
                        std::array<index::DbValue, 1>{core::Bytes(32, 1)});
    ASSERT_TRUE(one);
    ASSERT_EQ(one->size(), 1U);
    EXPECT_EQ(std::get<std::string>((*one)[0][1]), "review");
}

TEST(profile_store, migration_backfills_terms_sqlite) {
    const auto path = testing::scratch_dir() / "profile_terms_backfill.sqlite";
    std::filesystem::remove(path);
    auto db = index::open_sqlite(path);
    ASSERT_TRUE(db) << db.error().to_string();
    migration_backfills_terms(**db);
}

TEST(profile_store, migration_backfills_terms_postgres) {
    CREDENCE_POSTGRES_URL(url);
    auto db = index::open_postgres(url);
    ASSERT_TRUE(db) << db.error().to_string();
    migration_backfills_terms(**db);
}

TEST(profile_store, sqlite) {
    const auto path = testing::scratch_dir() / "profile_store.sqlite";
    std::filesystem::remove(path);
    auto db = index::open_sqlite(path);
    ASSERT_TRUE(db) << db.error().to_string();
    save_and_load(**db);
}

TEST(profile_store, postgres) {
    CREDENCE_POSTGRES_URL(url);
    auto db = index::open_postgres(url);
    ASSERT_TRUE(db) << db.error().to_string();
    save_and_load(**db);
}

TEST(profile_store, lists_are_lowercase_whole_entries) {
    EXPECT_EQ(wrap_list({}), ",");
    EXPECT_EQ(wrap_list({"MCP", "a,b", "", "mcp"}), ",mcp,ab,");
}

}  // namespace
}  // namespace credence::verify
