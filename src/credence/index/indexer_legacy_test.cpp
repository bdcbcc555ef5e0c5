// The earlier ERC-8004 revisions through the indexer (projector_erc8004_legacy.cpp), on a real
// devnet with every revision deployed (`credence devnet --revisions all`): each revision's story
// sent in-process, indexed into SQLite and PostgreSQL, every projected row compared with the
// registries' own reads, both backends' canonical dumps equal, and a reorg across the legacy
// events rolled back to an index equal to a fresh one.
#include <credence/index/indexer.hpp>

#include <unistd.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <credence/chain/bindings/draft_identity_registry.hpp>
#include <credence/chain/bindings/draft_reputation_registry.hpp>
#include <credence/chain/bindings/draft_validation_registry.hpp>
#include <credence/chain/bindings/score_identity_registry.hpp>
#include <credence/chain/bindings/score_reputation_registry.hpp>
#include <credence/chain/bindings/score_validation_registry.hpp>
#include <credence/chain/contract_call.hpp>
#include <credence/core/keccak.hpp>
#include <credence/index/projector.hpp>

#include "support/devnet.hpp"
#include "support/postgres.hpp"
#include "support/scratch.hpp"

namespace credence::index {
namespace {

namespace sid = chain::bindings::score_identity_registry;
namespace srep = chain::bindings::score_reputation_registry;
namespace sval = chain::bindings::score_validation_registry;
namespace did = chain::bindings::draft_identity_registry;
namespace drep = chain::bindings::draft_reputation_registry;
namespace dval = chain::bindings::draft_validation_registry;

// Dev accounts of the story: 1 the agent's owner (the first draft's server agent), 2 and 4
// clients, 3 the validator.
constexpr size_t kLegacyOwner = 1;
constexpr size_t kLegacyClient = 2;
constexpr size_t kLegacyValidator = 3;
constexpr size_t kLegacySecondClient = 4;

core::Hash32 legacy_hash_of(std::string_view text) { return core::keccak256(text); }

core::Bytes legacy_key_of(const core::Uint256& id) {
    const auto w = id.to_word();
    return {w.begin(), w.end()};
}
core::Bytes legacy_key_of(const core::Address& a) { return {a.bytes.begin(), a.bytes.end()}; }
core::Bytes legacy_key_of(const core::Hash32& h) { return {h.begin(), h.end()}; }

const core::Bytes& legacy_blob_cell(const DbRow& row, size_t i) {
    return std::get<core::Bytes>(row[i]);
}
int64_t legacy_int_cell(const DbRow& row, size_t i) { return std::get<int64_t>(row[i]); }
const std::string& legacy_text_cell(const DbRow& row, size_t i) {
    return std::get<std::string>(row[i]);
}
bool legacy_null_cell(const DbRow& row, size_t i) {
    return std::holds_alternative<std::monostate>(row[i]);
}

class LegacyIndexDevnet : public ::testing::Test {
protected:
    void SetUp() override {
        testing::DevnetOptions options;
        options.revisions = chain::DeployRevisions::all;
        auto started = testing::Devnet::start(options);
        ASSERT_TRUE(started) << started.error();
        devnet_ = std::move(*started);
    }

    testing::Devnet& devnet() { return *devnet_; }
    core::Address at(std::string_view name) { return devnet().address(name); }

    // The intermediate revision's story: an agent, feedback as scores (one revoked, one answered),
    // a validation with two responses.
    void score_story() {
        auto& d = devnet();
        d.send(kLegacyOwner, at("ScoreIdentityRegistry"),
               sid::register_1("ipfs://score-agent").value());
        d.send(kLegacyOwner, at("ScoreIdentityRegistry"),
               sid::set_agent_uri(core::Uint256{0}, "ipfs://score-agent-v2").value());
        d.send(kLegacyOwner, at("ScoreIdentityRegistry"),
               sid::set_metadata(core::Uint256{0}, "model", core::Bytes{'g', 'p', 't'}).value());
        const auto rep = at("ScoreReputationRegistry");
        d.send(kLegacyClient, rep,
               srep::give_feedback(core::Uint256{0}, 87, "quality", "fast", "https://a.example/mcp",
                                   "ipfs://feedback-1", legacy_hash_of("feedback-1"))
                   .value());
        d.send(kLegacyClient, rep,
               srep::give_feedback(core::Uint256{0}, 40, "", "", "", "", core::Hash32{}).value());
        d.send(kLegacySecondClient, rep,
               srep::give_feedback(core::Uint256{0}, 100, "quality", "", "", "", core::Hash32{})
                   .value());
        d.send(kLegacyClient, rep, srep::revoke_feedback(core::Uint256{0}, 2).value());
        d.send(kLegacyOwner, rep,
               srep::append_response(core::Uint256{0}, d.dev_address(kLegacyClient), 1,
                                     "ipfs://response-1", legacy_hash_of("response-1"))
                   .value());
        const auto val = at("ScoreValidationRegistry");
        d.send(kLegacyOwner, val,
               sval::validation_request(d.dev_address(kLegacyValidator), core::Uint256{0},
                                        "ipfs://request-1", legacy_hash_of("request-1"))
                   .value());
        d.send(kLegacyValidator, val,
               sval::validation_response(legacy_hash_of("request-1"), 90, "ipfs://vr-1",
                                         legacy_hash_of("vr-1"), "soft")
                   .value());
        d.send(
            kLegacyValidator, val,
            sval::validation_response(legacy_hash_of("request-1"), 95, "", core::Hash32{}, "hard")
                .value());
    }

    // The first draft's story: three agents (server, client, validator), an update, two feedback
    // authorizations, a validation by DataHash answered once.
    void draft_story() {
        auto& d = devnet();
        const auto idr = at("DraftIdentityRegistry");
        d.send(kLegacyOwner, idr,
               did::new_agent("server.example", d.dev_address(kLegacyOwner)).value());
        d.send(kLegacyClient, idr,
               did::new_agent("client.example", d.dev_address(kLegacyClient)).value());
        d.send(kLegacyValidator, idr,
               did::new_agent("validator.example", d.dev_address(kLegacyValidator)).value());
        d.send(kLegacyOwner, idr,
               did::update_agent(core::Uint256{1}, "Server-2.example", core::Address{}).value());
        const auto rep = at("DraftReputationRegistry");
        d.send(kLegacyOwner, rep,
               drep::accept_feedback(core::Uint256{2}, core::Uint256{1}).value());
        d.send(kLegacyOwner, rep,
               drep::accept_feedback(core::Uint256{2}, core::Uint256{1}).value());
        const auto val = at("DraftValidationRegistry");
        d.send(kLegacyOwner, val,
               dval::validation_request(core::Uint256{3}, core::Uint256{1}, legacy_hash_of("job-1"))
                   .value());
        d.send(kLegacyValidator, val,
               dval::validation_response(legacy_hash_of("job-1"), 77).value());
    }

    IndexerOptions indexer_options() {
        IndexerOptions o;
        o.chain_id = devnet().chain_id();
        o.sources = sources_from_deployment(devnet().deployment());
        o.range.initial_blocks = 4;
        o.range.max_blocks = 8;
        return o;
    }

    // Indexes to the head; the warnings (rejected logs) on the way.
    std::vector<std::string> index_all(Database& db) {
        Indexer indexer(indexer_options(), devnet().rpc(), db);
        auto started = indexer.start();
        EXPECT_TRUE(started) << started.error().message;
        std::vector<std::string> warnings;
        std::stop_source stop;
        auto done = indexer.run(
            stop.get_token(), false, std::chrono::milliseconds(10), [&](const StepReport& r) {
                warnings.insert(warnings.end(), r.warnings.begin(), r.warnings.end());
            });
        EXPECT_TRUE(done) << done.error().message;
        return warnings;
    }

    std::unique_ptr<Database> scratch_sqlite(const std::string& name) {
        const auto path =
            testing::scratch_dir() / ("legacy-" + name + "-" + std::to_string(::getpid()) + "-" +
                                      std::to_string(counter_++) + ".sqlite");
        auto db = open_sqlite(path);
        EXPECT_TRUE(db) << db.error().to_string();
        return db ? std::move(*db) : nullptr;
    }

    static std::string dump_of(Database& db) {
        auto text = canonical_dump(db, IndexStore::data_tables());
        EXPECT_TRUE(text) << text.error().to_string();
        return text ? *text : std::string();
    }

    static std::vector<DbRow> rows(Database& db, std::string_view sql,
                                   std::vector<DbValue> params) {
        auto r = db.query(sql, params);
        EXPECT_TRUE(r) << r.error().to_string();
        return r ? std::move(*r) : std::vector<DbRow>{};
    }

    DbValue chain_param() { return static_cast<int64_t>(devnet().chain_id()); }

    // Every projected row of the intermediate revision against the registries' reads.
    void expect_score_rows_match_the_chain(Database& db) {
        auto rpc = devnet().rpc();
        chain::ContractCaller caller(rpc);
        const core::Uint256 agent{0};
        const auto identity = at("ScoreIdentityRegistry");
        auto agents = rows(db,
                           "SELECT owner, agent_uri, wallet, revision FROM agents WHERE "
                           "chain_id = $1 AND registry = $2",
                           {chain_param(), legacy_key_of(identity)});
        ASSERT_EQ(agents.size(), 1U);
        EXPECT_EQ(legacy_blob_cell(agents[0], 0),
                  legacy_key_of(sid::call::owner_of(caller, identity, agent).value()));
        EXPECT_EQ(legacy_text_cell(agents[0], 1),
                  sid::call::token_uri(caller, identity, agent).value());
        // ERC-8004 intermediate §Onchain metadata: the wallet starts as the owner's address.
        EXPECT_EQ(legacy_blob_cell(agents[0], 2),
                  sid::call::get_metadata(caller, identity, agent, "agentWallet").value());
        EXPECT_EQ(legacy_text_cell(agents[0], 3), "score");
        auto metadata = rows(db,
                             "SELECT metadata_value FROM agent_metadata WHERE chain_id = $1 AND "
                             "registry = $2 AND metadata_key = 'model'",
                             {chain_param(), legacy_key_of(identity)});
        ASSERT_EQ(metadata.size(), 1U);
        EXPECT_EQ(legacy_blob_cell(metadata[0], 0),
                  sid::call::get_metadata(caller, identity, agent, "model").value());

        const auto reputation = at("ScoreReputationRegistry");
        const auto all =
            srep::call::read_all_feedback(caller, reputation, agent, {}, "", "", true).value();
        auto feedback = rows(db,
                             "SELECT client, feedback_index, value, value_decimals, tag1, tag2, "
                             "revoked, revision, endpoint, feedback_uri FROM feedback WHERE "
                             "chain_id = $1 AND registry = $2 ORDER BY block_num, log_index",
                             {chain_param(), legacy_key_of(reputation)});
        ASSERT_EQ(feedback.size(), all.clients.size());
        for (size_t i = 0; i < feedback.size(); ++i) {
            SCOPED_TRACE("feedback " + std::to_string(i));
            EXPECT_EQ(legacy_blob_cell(feedback[i], 0), legacy_key_of(all.clients[i]));
            EXPECT_EQ(static_cast<uint64_t>(legacy_int_cell(feedback[i], 1)),
                      all.feedback_indexes[i]);
            // A score s is value = s, valueDecimals = 0.
            EXPECT_EQ(legacy_text_cell(feedback[i], 2), std::to_string(all.scores[i]));
            EXPECT_EQ(legacy_int_cell(feedback[i], 3), 0);
            EXPECT_EQ(legacy_text_cell(feedback[i], 4), all.tag1s[i]);
            EXPECT_EQ(legacy_text_cell(feedback[i], 5), all.tag2s[i]);
            EXPECT_EQ(legacy_int_cell(feedback[i], 6) != 0, all.revoked_statuses[i]);
            EXPECT_EQ(legacy_text_cell(feedback[i], 7), "score");
        }
        EXPECT_EQ(legacy_text_cell(feedback[0], 8), "https://a.example/mcp");
        EXPECT_EQ(legacy_text_cell(feedback[0], 9), "ipfs://feedback-1");
        auto responses = rows(db,
                              "SELECT COUNT(*) FROM feedback_responses WHERE chain_id = $1 AND "
                              "registry = $2",
                              {chain_param(), legacy_key_of(reputation)});
        EXPECT_EQ(static_cast<uint64_t>(legacy_int_cell(responses[0], 0)),
                  srep::call::get_response_count(caller, reputation, agent, core::Address{}, 0, {})
                      .value());

        const auto validation = at("ScoreValidationRegistry");
        const auto status =
            sval::call::get_validation_status(caller, validation, legacy_hash_of("request-1"))
                .value();
        auto request = rows(db,
                            "SELECT validator, agent_id, response, response_tag, response_count, "
                            "revision, request_uri FROM validation_requests WHERE chain_id = $1 "
                            "AND registry = $2",
                            {chain_param(), legacy_key_of(validation)});
        ASSERT_EQ(request.size(), 1U);
        EXPECT_EQ(legacy_blob_cell(request[0], 0), legacy_key_of(status.validator_address));
        EXPECT_EQ(legacy_blob_cell(request[0], 1), legacy_key_of(status.agent_id));
        EXPECT_EQ(static_cast<uint64_t>(legacy_int_cell(request[0], 2)), status.response);
        EXPECT_EQ(legacy_text_cell(request[0], 3), status.tag);
        EXPECT_EQ(legacy_int_cell(request[0], 4), 2);
        EXPECT_EQ(legacy_text_cell(request[0], 5), "score");
        EXPECT_EQ(legacy_text_cell(request[0], 6), "ipfs://request-1");
    }

    // Every projected row of the first draft against the registries' reads.
    void expect_draft_rows_match_the_chain(Database& db) {
        auto rpc = devnet().rpc();
        chain::ContractCaller caller(rpc);
        const auto identity = at("DraftIdentityRegistry");
        const uint64_t count = did::call::get_agent_count(caller, identity).value().limbs[0];
        ASSERT_EQ(count, 3U);
        auto agents = rows(db,
                           "SELECT agent_id, owner, agent_address, agent_domain, revision, "
                           "agent_uri, registered_block_num FROM agents WHERE chain_id = $1 AND "
                           "registry = $2 ORDER BY agent_id",
                           {chain_param(), legacy_key_of(identity)});
        ASSERT_EQ(agents.size(), count);
        for (uint64_t id = 1; id <= count; ++id) {
            SCOPED_TRACE("draft agent " + std::to_string(id));
            const auto info = did::call::get_agent(caller, identity, core::Uint256{id}).value();
            const DbRow& row = agents[id - 1];
            EXPECT_EQ(legacy_blob_cell(row, 0), legacy_key_of(core::Uint256{id}));
            EXPECT_EQ(legacy_blob_cell(row, 1), legacy_key_of(info.agent_address));
            EXPECT_EQ(legacy_blob_cell(row, 2), legacy_key_of(info.agent_address));
            EXPECT_EQ(legacy_text_cell(row, 3), info.agent_domain);
            EXPECT_EQ(legacy_text_cell(row, 4), "draft");
            EXPECT_TRUE(legacy_null_cell(row, 5));  // the draft has no agentURI
            EXPECT_FALSE(legacy_null_cell(row, 6));
        }
        EXPECT_EQ(legacy_text_cell(agents[0], 3), "Server-2.example");  // after the update

        // AuthFeedback: one contract_events row per authorization, the latest FeedbackAuthID the
        // registry's.
        const auto reputation = at("DraftReputationRegistry");
        auto auths = rows(db,
                          "SELECT args FROM contract_events WHERE chain_id = $1 AND address = $2 "
                          "AND name = 'AuthFeedback' ORDER BY block_num, log_index",
                          {chain_param(), legacy_key_of(reputation)});
        ASSERT_EQ(auths.size(), drep::call::get_feedback_auth_count(
                                    caller, reputation, core::Uint256{2}, core::Uint256{1})
                                    .value());
        const auto latest =
            drep::call::get_feedback_auth_id(caller, reputation, core::Uint256{2}, core::Uint256{1})
                .value();
        const auto args = nlohmann::json::parse(legacy_text_cell(auths.back(), 0));
        EXPECT_EQ(args["feedbackAuthId"], core::to_hex(latest));
        EXPECT_EQ(args["agentClientId"], "2");
        EXPECT_EQ(args["agentServerId"], "1");
        const auto pair = drep::call::get_feedback_auth(
                              caller, reputation,
                              core::from_hex_fixed<32>(nlohmann::json::parse(legacy_text_cell(
                                                           auths.front(), 0))["feedbackAuthId"]
                                                           .get<std::string>())
                                  .value())
                              .value();
        EXPECT_EQ(pair.agent_client_id, core::Uint256{2});
        EXPECT_EQ(pair.agent_server_id, core::Uint256{1});

        const auto validation = at("DraftValidationRegistry");
        const auto stored =
            dval::call::get_validation_request(caller, validation, legacy_hash_of("job-1")).value();
        const auto answered =
            dval::call::get_validation_response(caller, validation, legacy_hash_of("job-1"))
                .value();
        auto request = rows(db,
                            "SELECT request_hash, agent_id, validator_agent_id, validator, "
                            "response, response_count, revision FROM validation_requests WHERE "
                            "chain_id = $1 AND registry = $2",
                            {chain_param(), legacy_key_of(validation)});
        ASSERT_EQ(request.size(), 1U);
        EXPECT_EQ(legacy_blob_cell(request[0], 0), legacy_key_of(stored.data_hash));
        EXPECT_EQ(legacy_blob_cell(request[0], 1), legacy_key_of(stored.agent_server_id));
        EXPECT_EQ(legacy_blob_cell(request[0], 2), legacy_key_of(stored.agent_validator_id));
        EXPECT_EQ(legacy_blob_cell(request[0], 3), legacy_key_of(core::Address{}));
        ASSERT_TRUE(answered.has_response);
        EXPECT_EQ(static_cast<uint64_t>(legacy_int_cell(request[0], 4)), answered.response);
        EXPECT_EQ(legacy_int_cell(request[0], 5), stored.responded ? 1 : 0);
        EXPECT_EQ(legacy_text_cell(request[0], 6), "draft");
    }

    std::unique_ptr<testing::Devnet> devnet_;
    int counter_ = 0;
};

TEST_F(LegacyIndexDevnet, each_revision_projects_into_the_current_tables_as_the_chain_reads) {
    score_story();
    draft_story();
    auto sqlite = scratch_sqlite("rows");
    ASSERT_TRUE(sqlite);
    EXPECT_EQ(index_all(*sqlite), std::vector<std::string>{});
    expect_score_rows_match_the_chain(*sqlite);
    expect_draft_rows_match_the_chain(*sqlite);

    // The same rows on PostgreSQL: the canonical dumps are byte-identical.
    CREDENCE_POSTGRES_URL(url);
    auto pg = open_postgres(url);
    ASSERT_TRUE(pg) << pg.error().to_string();
    EXPECT_EQ(index_all(**pg), std::vector<std::string>{});
    expect_score_rows_match_the_chain(**pg);
    expect_draft_rows_match_the_chain(**pg);
    EXPECT_EQ(dump_of(**pg), dump_of(*sqlite));
}

// A reorg across every legacy kind: rollback replays each touched entity's raw logs with its own
// kind (store.hpp), so the followed index equals a fresh index of the final chain.
TEST_F(LegacyIndexDevnet, a_reorg_across_the_legacy_events_leaves_an_index_equal_to_a_fresh_one) {
    auto rpc = devnet().rpc();
    score_story();
    auto followed = scratch_sqlite("followed");
    ASSERT_TRUE(followed);
    index_all(*followed);
    auto snapshot = rpc.request("evm_snapshot");
    ASSERT_TRUE(snapshot) << snapshot.error().to_string();
    draft_story();  // the abandoned branch
    devnet().send(kLegacySecondClient, at("ScoreReputationRegistry"),
                  srep::revoke_feedback(core::Uint256{0}, 1).value());
    index_all(*followed);
    auto reverted = rpc.request("evm_revert", nlohmann::json::array({*snapshot}));
    ASSERT_TRUE(reverted && *reverted == true);
    // The new branch: other draft agents, longer than the old one.
    for (uint64_t i = 0; i < 12; ++i) {
        devnet().send(
            kLegacyClient, at("ScoreReputationRegistry"),
            srep::give_feedback(core::Uint256{0}, 10 + i, "late", "", "", "", core::Hash32{})
                .value());
    }
    devnet().send(kLegacyOwner, at("DraftIdentityRegistry"),
                  did::new_agent("other.example", devnet().dev_address(kLegacyOwner)).value());
    EXPECT_EQ(index_all(*followed), std::vector<std::string>{});
    auto fresh = scratch_sqlite("fresh");
    ASSERT_TRUE(fresh);
    index_all(*fresh);
    EXPECT_EQ(dump_of(*followed), dump_of(*fresh));
    auto draft_agents = rows(*followed,
                             "SELECT agent_domain FROM agents WHERE chain_id = $1 AND "
                             "registry = $2",
                             {chain_param(), legacy_key_of(at("DraftIdentityRegistry"))});
    ASSERT_EQ(draft_agents.size(), 1U);
    EXPECT_EQ(legacy_text_cell(draft_agents[0], 0), "other.example");
}

// An earlier revision's registry followed as the current kind: its own events are refused with
// the kind that knows them, and nothing is stored for them.
TEST(index_legacy_kinds, an_event_of_another_revision_names_its_kind) {
    RawLog log;
    log.topics = {srep::kNewFeedbackTopic, core::Hash32{}, core::Hash32{}, core::Hash32{}};
    auto projected = project_log(31337, log, ContractKind::reputation_registry, {});
    ASSERT_FALSE(projected);
    EXPECT_NE(projected.error().find("NewFeedback of kind reputation-score"), std::string::npos)
        << projected.error();
    EXPECT_EQ(parse_contract_kind("validation-draft"), ContractKind::validation_draft);
    EXPECT_EQ(to_string(ContractKind::identity_score), "identity-score");
    // One address as two revisions of one registry is refused; two registries are not.
    std::vector<RegistrySource> sources{{ContractKind::reputation_registry, {}, 0, "a"},
                                        {ContractKind::reputation_score, {}, 0, "b"}};
    EXPECT_TRUE(repeated_address(sources).has_value());
    sources[1].kind = ContractKind::validation_score;
    EXPECT_FALSE(repeated_address(sources).has_value());
}

}  // namespace
}  // namespace credence::index
