// The agent routes over the earlier ERC-8004 revisions (docs/api.md §Earlier ERC-8004 revisions):
// one owner's agent registered in all three revisions on a real devnet, indexed into SQLite and
// PostgreSQL, its current record verified by the real re-verifier over real HTTPS; then every
// agent route with `?revision=` answered and checked against the registries' own reads
// (eth_call), the history linking the three records, and bad revisions refused with a 4xx.
#include <credence/api/rest_api.hpp>

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <credence/chain/bindings/draft_identity_registry.hpp>
#include <credence/chain/bindings/draft_reputation_registry.hpp>
#include <credence/chain/bindings/draft_validation_registry.hpp>
#include <credence/chain/bindings/identity_registry.hpp>
#include <credence/chain/bindings/score_identity_registry.hpp>
#include <credence/chain/bindings/score_reputation_registry.hpp>
#include <credence/chain/bindings/score_validation_registry.hpp>
#include <credence/core/registration_file.hpp>
#include <credence/index/indexer.hpp>
#include <credence/index/sources.hpp>
#include <credence/index/store.hpp>
#include <credence/verify/net/fetch.hpp>
#include <credence/verify/store/index_checks.hpp>
#include <credence/verify/store/reverifier.hpp>

#include "support/devnet.hpp"
#include "support/https_server.hpp"
#include "support/postgres.hpp"
#include "support/scratch.hpp"

namespace credence::api {
namespace {

namespace ir = chain::bindings::identity_registry;
namespace sid = chain::bindings::score_identity_registry;
namespace srep = chain::bindings::score_reputation_registry;
namespace sval = chain::bindings::score_validation_registry;
namespace did = chain::bindings::draft_identity_registry;
namespace drep = chain::bindings::draft_reputation_registry;
namespace dval = chain::bindings::draft_validation_registry;
using Json = nlohmann::json;
using Query = std::vector<std::pair<std::string, std::string>>;

constexpr size_t kOwner = 1;
constexpr std::string_view kUri = "https://agent.example/a.json";

HttpRequest revision_get(std::string path, Query query) {
    HttpRequest r;
    r.method = "GET";
    r.path = std::move(path);
    r.query = std::move(query);
    r.remote_ip = "127.0.0.1";
    return r;
}

Json answer(RestApi& api, const std::string& path, const Query& query, int status = 200) {
    const HttpResponse r = api.handle(revision_get(path, query));
    EXPECT_EQ(r.status, status) << path << ": " << r.body.substr(0, 300);
    Json j = Json::parse(r.body, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << r.body.substr(0, 200);
    return j;
}

class rest_revisions : public ::testing::Test {
protected:
    void SetUp() override {
        testing::DevnetOptions options;
        options.revisions = chain::DeployRevisions::all;
        auto started = testing::Devnet::start(options);
        ASSERT_TRUE(started) << started.error();
        devnet_ = std::move(*started);
    }

    core::Address at(std::string_view name) { return devnet_->address(name); }

    // Owner 1's agent in each revision: the current and score records at the same agentURI, the
    // first-draft record at the domain that file proves. Agent 0 of each registry; the first
    // draft's ids start at 1, and its client and validator agents are 2 and 3.
    void play_story() {
        auto& d = *devnet_;
        d.send(kOwner, at("IdentityRegistry"), ir::register_1(std::string(kUri)).value());
        d.send(kOwner, at("ScoreIdentityRegistry"), sid::register_1(std::string(kUri)).value());
        d.send(kOwner, at("DraftIdentityRegistry"),
               did::new_agent("Agent.example", d.dev_address(kOwner)).value());
        // Another owner's file at the same URI names nothing of owner 1.
        d.send(6, at("ScoreIdentityRegistry"), sid::register_1(std::string(kUri)).value());
        // An intermediate-revision agent whose file has that revision's shape (`endpoints`).
        d.send(7, at("ScoreIdentityRegistry"),
               sid::register_1("https://agent.example/score.json").value());
        d.send(2, at("DraftIdentityRegistry"),
               did::new_agent("client.example", d.dev_address(2)).value());
        d.send(3, at("DraftIdentityRegistry"),
               did::new_agent("validator.example", d.dev_address(3)).value());

        const auto rep = at("ScoreReputationRegistry");
        d.send(2, rep,
               srep::give_feedback(core::Uint256{0}, 87, "quality", "", "", "", core::Hash32{})
                   .value());
        d.send(4, rep,
               srep::give_feedback(core::Uint256{0}, 40, "", "", "", "", core::Hash32{}).value());
        d.send(5, rep,
               srep::give_feedback(core::Uint256{0}, 100, "quality", "", "", "", core::Hash32{})
                   .value());
        d.send(5, rep, srep::revoke_feedback(core::Uint256{0}, 1).value());
        core::Hash32 request{};
        request[0] = 0x51;
        d.send(kOwner, at("ScoreValidationRegistry"),
               sval::validation_request(d.dev_address(8), core::Uint256{0}, "", request).value());
        d.send(8, at("ScoreValidationRegistry"),
               sval::validation_response(request, 66, "", core::Hash32{}, "soft").value());

        d.send(kOwner, at("DraftReputationRegistry"),
               drep::accept_feedback(core::Uint256{2}, core::Uint256{1}).value());
        d.send(kOwner, at("DraftReputationRegistry"),
               drep::accept_feedback(core::Uint256{2}, core::Uint256{1}).value());
        draft_data_hash_[0] = 0xda;
        d.send(
            kOwner, at("DraftValidationRegistry"),
            dval::validation_request(core::Uint256{3}, core::Uint256{1}, draft_data_hash_).value());
        d.send(3, at("DraftValidationRegistry"),
               dval::validation_response(draft_data_hash_, 80).value());
    }

    void index_and_verify(index::Database& db) {
        auto& d = *devnet_;
        index::IndexerOptions io;
        io.chain_id = d.chain_id();
        io.sources = index::sources_from_deployment(d.deployment());
        index::Indexer indexer(io, d.rpc(), db);
        ASSERT_TRUE(indexer.start());
        ASSERT_TRUE(indexer.run(std::stop_token{}, false, std::chrono::milliseconds(10),
                                [](const index::StepReport&) {}));
        // The current record's file proves agent.example (docs/verification.md).
        const std::string registry =
            fmt::format("eip155:{}:{}", d.chain_id(), at("IdentityRegistry").to_checksum_hex());
        Json file{
            {"type", std::string(core::kRegistrationTypeV1)},
            {"name", "Moving Agent"},
            {"description", "Registered in every revision"},
            {"image", "https://agent.example/icon.png"},
            {"services", Json::array({Json{{"name", "MCP"},
                                           {"endpoint", "https://agent.example/mcp"},
                                           {"version", "2025-06-18"}}})},
            {"registrations", Json::array({Json{{"agentId", 0}, {"agentRegistry", registry}}})},
            {"supportedTrust", Json::array({"reputation"})}};
        server_.serve("agent.example", "/a.json", file.dump());
        Json score_file{
            {"type", std::string(core::kRegistrationTypeV1)},
            {"name", "Score Agent"},
            {"description", "Registered in the intermediate revision"},
            {"image", "https://agent.example/score.png"},
            {"endpoints", Json::array({Json{{"name", "MCP"},
                                            {"endpoint", "https://agent.example/mcp"},
                                            {"version", "2025-06-18"}}})},
            {"registrations",
             Json::array({Json{{"agentId", 2}, {"agentRegistry", caip("ScoreIdentityRegistry")}}})},
            {"supportedTrust", Json::array({"reputation"})}};
        server_.serve("agent.example", "/score.json", score_file.dump());
        verify::FetcherConfig config;
        config.connect_to = server_.connect_to();
        config.ca_file = server_.ca_file();
        config.allow_hosts = {"127.0.0.1"};
        auto fetcher = verify::make_curl_fetcher(config);
        chain::RpcClient rpc = d.rpc();
        std::map<verify::SubjectKind, verify::BatchCheck> checks;
        checks[verify::SubjectKind::agent] = verify::make_agent_check(*fetcher, rpc, d.chain_id());
        verify::ReverifyOptions options;
        options.now = 1'700'000'000;
        auto counts = verify::reverify_due(db, d.chain_id(), checks, options);
        ASSERT_TRUE(counts) << counts.error().to_string();
        // The current agent, the three intermediate-revision ones and the three first-draft ones.
        EXPECT_EQ(counts->checked, 7U);
    }

    RestApiOptions api_options(DatabaseOpener opener) {
        RestApiOptions options;
        options.scope.chain_id = devnet_->chain_id();
        options.scope.identity_registry = at("IdentityRegistry");
        options.scope.reputation_registry = at("ReputationRegistry");
        options.scope.validation_registry = at("ValidationRegistry");
        options.scope.score =
            Erc8004Registries{at("ScoreIdentityRegistry"), at("ScoreReputationRegistry"),
                              at("ScoreValidationRegistry")};
        options.scope.draft =
            Erc8004Registries{at("DraftIdentityRegistry"), at("DraftReputationRegistry"),
                              at("DraftValidationRegistry")};
        options.open_database = std::move(opener);
        return options;
    }

    std::string caip(std::string_view registry) {
        return fmt::format("eip155:{}:{}", devnet_->chain_id(), at(registry).to_checksum_hex());
    }

    void check_routes(RestApi& api);

    void end_to_end(const DatabaseOpener& opener) {
        play_story();
        auto db = opener();
        ASSERT_TRUE(db) << db.error().to_string();
        index_and_verify(**db);
        if (HasFatalFailure()) return;
        RestApi api(api_options(opener));
        check_routes(api);
    }

    std::unique_ptr<testing::Devnet> devnet_;
    testing::HttpsServer server_{{"agent.example"}};
    core::Hash32 draft_data_hash_{};
};

void rest_revisions::check_routes(RestApi& api) {
    auto& d = *devnet_;
    chain::RpcClient rpc = d.rpc();
    const std::string owner = d.dev_address(kOwner).to_checksum_hex();

    // Lists: each revision's own agents, each labelled.
    EXPECT_EQ(answer(api, "/api/v1/agents", {})["items"].size(), 1U);
    const Json score_list = answer(api, "/api/v1/agents", {{"revision", "score"}});
    ASSERT_EQ(score_list["items"].size(), 3U);
    for (const auto& item : score_list["items"]) EXPECT_EQ(item["revision"], "score");
    const Json draft_list = answer(api, "/api/v1/agents", {{"revision", "draft"}});
    ASSERT_EQ(draft_list["items"].size(), 3U);
    EXPECT_EQ(draft_list["items"][0]["revision"], "draft");
    EXPECT_EQ(draft_list["items"][0]["agent_domain"], "Agent.example");
    EXPECT_EQ(answer(api, "/api/v1/agents", {{"revision", "current"}})["items"][0]["revision"],
              "current");

    // The first draft's record as getAgent reads it, with its history.
    const Json draft = answer(api, "/api/v1/agents/1", {{"revision", "draft"}});
    auto info = rpc.call(
        {{}, at("DraftIdentityRegistry"), did::get_agent(core::Uint256{1}).value(), {}, {}});
    ASSERT_TRUE(info) << info.error().message;
    auto decoded = did::decode_get_agent_result(*info);
    ASSERT_TRUE(decoded);
    EXPECT_EQ(draft["agent_domain"], decoded->agent_domain);
    EXPECT_EQ(draft["agent_address"], decoded->agent_address.to_checksum_hex());
    EXPECT_EQ(draft["revision"], "draft");
    EXPECT_EQ(draft["counts"]["feedback_authorizations"], 2);
    EXPECT_EQ(draft["counts"]["validations"], 1);
    ASSERT_EQ(draft["history"].size(), 2U) << draft["history"].dump();
    EXPECT_EQ(draft["history"][0]["revision"], "current");  // registered first
    EXPECT_EQ(draft["history"][0]["agent_registry"], caip("IdentityRegistry"));
    EXPECT_EQ(draft["history"][0]["matched_by"], "owner_and_verified_domain");
    EXPECT_EQ(draft["history"][1]["revision"], "score");
    EXPECT_EQ(draft["history"][1]["agent_id"], "0");  // not owner 6's agent 1 at the same URI
    EXPECT_EQ(draft["history"][1]["matched_by"], "owner_and_agent_uri");  // via the current one

    // The current record links to both earlier ones, and the score record to both through it
    // (its own file proves no domain: earlier revisions' agents are not verified).
    const Json current = answer(api, "/api/v1/agents/0", {});
    EXPECT_EQ(current["revision"], "current");
    EXPECT_EQ(current["owner"], owner);
    ASSERT_EQ(current["history"].size(), 2U) << current["history"].dump();
    EXPECT_EQ(current["history"][0]["revision"], "score");
    EXPECT_EQ(current["history"][0]["matched_by"], "owner_and_agent_uri");
    EXPECT_EQ(current["history"][0]["agent_uri"], kUri);
    EXPECT_EQ(current["history"][1]["revision"], "draft");
    EXPECT_EQ(current["history"][1]["agent_id"], "1");
    const Json score = answer(api, "/api/v1/agents/0", {{"revision", "score"}});
    ASSERT_EQ(score["history"].size(), 2U) << score["history"].dump();
    EXPECT_EQ(score["history"][0]["revision"], "current");
    EXPECT_EQ(score["history"][1]["revision"], "draft");
    EXPECT_EQ(answer(api, "/api/v1/agents/1", {{"revision", "score"}})["history"].size(), 0U);

    // The intermediate revision's registration files are verified by its rules (`endpoints` read
    // as services, with a warning that names the earlier shape).
    const Json score_agent = answer(api, "/api/v1/agents/2", {{"revision", "score"}});
    ASSERT_TRUE(score_agent["verification"].is_object()) << score_agent.dump();
    EXPECT_EQ(score_agent["verification"]["status"], "verified") << score_agent.dump();
    EXPECT_EQ(score_agent["profile"]["name"], "Score Agent");
    EXPECT_EQ(score_agent["profile"]["service_names"], Json::array({"mcp"}));
    EXPECT_NE(score_agent["verification"].dump().find("earlier_revision"), std::string::npos);
    EXPECT_EQ(score_list["items"].size(), 3U);

    // The intermediate revision's getSummary against eth_call, for client subsets and tags.
    const std::vector<std::vector<core::Address>> subsets{
        {}, {d.dev_address(2)}, {d.dev_address(5), d.dev_address(4), d.dev_address(5)}};
    for (const auto& subset : subsets) {
        for (const std::string tag1 : {"", "quality"}) {
            Query q{{"revision", "score"}};
            for (const auto& c : subset) q.emplace_back("client", c.to_checksum_hex());
            if (!tag1.empty()) q.emplace_back("tag1", tag1);
            const Json rep = answer(api, "/api/v1/agents/0/reputation", q);
            auto onchain = rpc.call({{},
                                     at("ScoreReputationRegistry"),
                                     srep::get_summary(core::Uint256{0}, subset, tag1, "").value(),
                                     {},
                                     {}});
            ASSERT_TRUE(onchain) << onchain.error().message;
            auto expected = srep::decode_get_summary_result(*onchain);
            ASSERT_TRUE(expected);
            EXPECT_EQ(rep["summary"]["count"], expected->count) << rep.dump();
            EXPECT_EQ(rep["summary"]["average_score"], expected->average_score) << rep.dump();
            EXPECT_EQ(rep["revision"], "score");
        }
    }
    const Json feedback = answer(api, "/api/v1/agents/0/feedback",
                                 {{"revision", "score"}, {"include_revoked", "true"}});
    ASSERT_EQ(feedback["items"].size(), 3U);
    EXPECT_EQ(feedback["revision"], "score");
    EXPECT_EQ(feedback["items"][0]["value"], "87");
    EXPECT_EQ(feedback["items"][0]["value_decimals"], 0);
    const Json validations = answer(api, "/api/v1/agents/0/validations", {{"revision", "score"}});
    auto vonchain = rpc.call({{},
                              at("ScoreValidationRegistry"),
                              sval::get_summary(core::Uint256{0}, {}, "").value(),
                              {},
                              {}});
    ASSERT_TRUE(vonchain);
    auto vexpected = sval::decode_get_summary_result(*vonchain);
    ASSERT_TRUE(vexpected);
    EXPECT_EQ(validations["summary"]["count"], vexpected->count);
    EXPECT_EQ(validations["summary"]["average_response"], vexpected->average_response);

    // The first draft: authorizations instead of feedback, no getSummary, validators by AgentID.
    const Json auths = answer(api, "/api/v1/agents/1/feedback", {{"revision", "draft"}});
    ASSERT_EQ(auths["items"].size(), 2U);
    auto count =
        rpc.call({{},
                  at("DraftReputationRegistry"),
                  drep::get_feedback_auth_count(core::Uint256{2}, core::Uint256{1}).value(),
                  {},
                  {}});
    ASSERT_TRUE(count);
    EXPECT_EQ(auths["items"].size(), drep::decode_get_feedback_auth_count_result(*count).value());
    EXPECT_EQ(auths["items"][0]["agent_client_id"], "2");
    EXPECT_NE(auths["items"][0]["feedback_auth_id"], auths["items"][1]["feedback_auth_id"]);
    const Json paged =
        answer(api, "/api/v1/agents/1/feedback", {{"revision", "draft"}, {"limit", "1"}});
    ASSERT_EQ(paged["items"].size(), 1U);
    const Json next = answer(api, "/api/v1/agents/1/feedback",
                             {{"revision", "draft"}, {"cursor", paged["next_cursor"]}});
    ASSERT_EQ(next["items"].size(), 1U);
    EXPECT_EQ(next["items"][0], auths["items"][1]);
    EXPECT_EQ(answer(api, "/api/v1/agents/1/reputation", {{"revision", "draft"}}, 404)["code"],
              "not_found");
    const Json dv = answer(api, "/api/v1/agents/1/validations", {{"revision", "draft"}});
    ASSERT_EQ(dv["items"].size(), 1U);
    EXPECT_EQ(dv["items"][0]["validator_agent_id"], "3");
    EXPECT_EQ(dv["items"][0]["response"], 80);
    EXPECT_EQ(dv["items"][0]["request_hash"], core::to_hex(draft_data_hash_));
    EXPECT_TRUE(dv["summary"].is_null());

    // The first draft's resolvers: ResolveByDomain on its AgentDomain (any case), and
    // ResolveByAddress on its AgentAddress, as the registry answers.
    const Json by_domain =
        answer(api, "/api/v1/resolve/domain/AGENT.example", {{"revision", "draft"}});
    ASSERT_EQ(by_domain["items"].size(), 1U) << by_domain.dump();
    auto resolved = rpc.call(
        {{}, at("DraftIdentityRegistry"), did::resolve_by_domain("Agent.example").value(), {}, {}});
    ASSERT_TRUE(resolved);
    auto resolved_info = did::decode_resolve_by_domain_result(*resolved);
    ASSERT_TRUE(resolved_info);
    EXPECT_EQ(by_domain["items"][0]["agentId"], resolved_info->agent_id.to_dec());
    EXPECT_EQ(by_domain["items"][0]["agentAddress"], owner);
    const Json by_address =
        answer(api, "/api/v1/resolve/address/" + owner, {{"revision", "draft"}});
    ASSERT_EQ(by_address["items"].size(), 1U) << by_address.dump();
    EXPECT_EQ(by_address["items"][0]["agentId"], "1");
    EXPECT_EQ(answer(api, "/api/v1/resolve/domain/nobody.example", {{"revision", "draft"}})["items"]
                  .size(),
              0U);

    // Bad revisions: a 4xx with one line, never a 5xx.
    EXPECT_EQ(answer(api, "/api/v1/agents", {{"revision", "v1"}}, 400)["code"], "bad_parameter");
    EXPECT_EQ(answer(api, "/api/v1/tools", {{"revision", "score"}}, 400)["code"],
              "unknown_parameter");
    EXPECT_EQ(answer(api, "/api/v1/agents/1/feedback", {{"revision", "draft"}, {"client", owner}},
                     400)["code"],
              "unknown_parameter");
}

TEST_F(rest_revisions, every_agent_route_by_revision_on_sqlite) {
    const auto path = testing::scratch_dir() / "rest_revisions.sqlite";
    std::filesystem::remove(path);
    end_to_end([path] { return index::open_sqlite(path); });
}

TEST_F(rest_revisions, every_agent_route_by_revision_on_postgres) {
    CREDENCE_POSTGRES_URL(url);
    end_to_end([url] { return index::open_postgres(url); });
}

TEST(rest_revisions_scope, a_revision_the_node_does_not_follow_is_404) {
    const auto path = testing::scratch_dir() / "rest_revisions_empty.sqlite";
    std::filesystem::remove(path);
    {
        auto db = index::open_sqlite(path);
        ASSERT_TRUE(db);
        ASSERT_TRUE(index::IndexStore::open(**db));
    }
    RestApiOptions options;
    options.scope.chain_id = 31337;
    options.open_database = [path] { return index::open_sqlite(path); };
    RestApi api(std::move(options));
    const Json missing = answer(api, "/api/v1/agents", {{"revision", "draft"}}, 404);
    EXPECT_EQ(missing["code"], "not_found");
    EXPECT_NE(missing["error"].get<std::string>().find("draft"), std::string::npos);
    EXPECT_EQ(answer(api, "/api/v1/agents", {{"revision", "current"}})["items"].size(), 0U);
}

}  // namespace
}  // namespace credence::api
