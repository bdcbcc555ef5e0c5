// Tests of the generated contract bindings (tools/gen_bindings.cpp, cmake/bindings.cmake).
//
// Expected values never come from our own encoder: selectors and topics from the ERC-8004 vector
// (computed with ethers), calldata and return data from the real `cast` ($CREDENCE_CAST).
#include <algorithm>
#include <array>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include <credence/chain/bindings/all.hpp>
#include <credence/chain/bindings/draft_identity_registry.hpp>
#include <credence/chain/bindings/draft_reputation_registry.hpp>
#include <credence/chain/bindings/draft_validation_registry.hpp>
#include <credence/chain/bindings/identity_registry.hpp>
#include <credence/chain/bindings/reputation_registry.hpp>
#include <credence/chain/bindings/score_identity_registry.hpp>
#include <credence/chain/bindings/score_reputation_registry.hpp>
#include <credence/chain/bindings/score_validation_registry.hpp>
#include <credence/chain/bindings/single_stage_workflow.hpp>
#include <credence/chain/bindings/tool_registry.hpp>
#include <credence/chain/bindings/validation_registry.hpp>
#include <credence/core/abi.hpp>
#include <credence/core/abi_json.hpp>
#include <credence/core/address.hpp>
#include <credence/core/bytes.hpp>
#include <credence/core/keccak.hpp>
#include <credence/core/uint256.hpp>
#include <support/process.hpp>
#include <support/vectors.hpp>

namespace credence::chain::bindings {
namespace {

using credence::testing::cast_output;

using core::Bytes;
using core::Hash32;

// Runs the real cast with `args` and returns its trimmed stdout; fails the test on a non-zero exit.

Bytes cast_bytes(const std::vector<std::string>& args) {
    const std::string hex = cast_output(args);
    auto bytes = core::from_hex(hex);
    EXPECT_TRUE(bytes.has_value()) << "cast printed " << hex;
    return bytes ? *bytes : Bytes{};
}

core::Address addr(std::string_view hex) {
    return core::Address::from_hex(hex, core::ChecksumMode::ignore).value();
}

Hash32 hash32(std::string_view hex) { return core::from_hex_fixed<32>(hex).value(); }

Bytes hex(std::string_view h) { return core::from_hex(h).value(); }

const std::string kA1 = "0x1111111111111111111111111111111111111111";
const std::string kA2 = "0x2222222222222222222222222222222222222222";
const std::string kH1 = "0x00000000000000000000000000000000000000000000000000000000000000aa";
const std::string kH2 = "0xbb00000000000000000000000000000000000000000000000000000000000001";
const std::string kH3 = "0x0102030405060708091011121314151617181920212223242526272829303132";

template <typename T>
const T& ok(const core::Result<T, core::AbiError>& r) {
    EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().detail);
    return r.value();
}

// ---- (a) ERC-8004 selectors and topics against the ethers-computed vector ----

TEST(chain_bindings, erc8004_selectors_match_vector) {
    const auto vec = testing::read_vector_json("erc8004.json");
    const std::array<std::span<const FunctionInfo>, 3> tables{identity_registry::kFunctions,
                                                              reputation_registry::kFunctions,
                                                              validation_registry::kFunctions};
    size_t checked = 0;
    for (const auto& [signature, selector_hex] : vec.at("selectors").items()) {
        const auto expected = core::from_hex_fixed<4>(selector_hex.get<std::string>()).value();
        bool found = false;
        for (const auto& table : tables) {
            for (const auto& f : table) {
                if (f.signature != signature) continue;
                found = true;
                EXPECT_EQ(f.selector, expected) << signature;
                ++checked;
            }
        }
        EXPECT_TRUE(found) << "no binding for " << signature;
    }
    EXPECT_GE(checked, vec.at("selectors").size());
    // The named constants are the same values as the tables.
    const auto& sel = vec.at("selectors");
    EXPECT_EQ(identity_registry::kRegister0Selector,
              core::from_hex_fixed<4>(sel.at("register()").get<std::string>()).value());
    EXPECT_EQ(identity_registry::kRegister1Selector,
              core::from_hex_fixed<4>(sel.at("register(string)").get<std::string>()).value());
    EXPECT_EQ(
        identity_registry::kRegister2Selector,
        core::from_hex_fixed<4>(sel.at("register(string,(string,bytes)[])").get<std::string>())
            .value());
    EXPECT_EQ(reputation_registry::kGiveFeedbackSelector,
              core::from_hex_fixed<4>(
                  sel.at("giveFeedback(uint256,int128,uint8,string,string,string,string,bytes32)")
                      .get<std::string>())
                  .value());
    EXPECT_EQ(
        validation_registry::kGetSummarySelector,
        core::from_hex_fixed<4>(sel.at("getSummary(uint256,address[],string)").get<std::string>())
            .value());
}

TEST(chain_bindings, erc8004_event_topics_match_vector) {
    const auto vec = testing::read_vector_json("erc8004.json");
    const std::array<std::span<const EventInfo>, 3> tables{
        identity_registry::kEvents, reputation_registry::kEvents, validation_registry::kEvents};
    for (const auto& [signature, topic_hex] : vec.at("eventTopics").items()) {
        const auto expected = hash32(topic_hex.get<std::string>());
        bool found = false;
        for (const auto& table : tables) {
            for (const auto& e : table) {
                if (e.signature != signature) continue;
                found = true;
                EXPECT_EQ(e.topic0, expected) << signature;
            }
        }
        EXPECT_TRUE(found) << "no binding for " << signature;
    }
    const auto& topics = vec.at("eventTopics");
    EXPECT_EQ(identity_registry::kRegisteredTopic,
              hash32(topics.at("Registered(uint256,string,address)").get<std::string>()));
    EXPECT_EQ(reputation_registry::kNewFeedbackTopic,
              hash32(topics
                         .at("NewFeedback(uint256,address,uint64,int128,uint8,string,string,"
                             "string,string,string,bytes32)")
                         .get<std::string>()));
}

// ---- (a') the earlier ERC-8004 revisions against their pinned vector ----

// Every function and event of erc8004-legacy.json (first draft and intermediate revision, each
// cited there) against the bindings generated from the legacy contracts' ABI snapshots. The
// vector's intermediate `IdentityRegistry` is implemented by ScoreIdentityRegistry.
TEST(chain_bindings, erc8004_legacy_selectors_and_topics_match_vector) {
    const auto vec = testing::read_vector_json("erc8004-legacy.json");
    struct Tables {
        std::span<const FunctionInfo> functions;
        std::span<const EventInfo> events;
    };
    const std::map<std::string, Tables> by_name{
        {"DraftIdentityRegistry",
         {draft_identity_registry::kFunctions, draft_identity_registry::kEvents}},
        {"DraftReputationRegistry",
         {draft_reputation_registry::kFunctions, draft_reputation_registry::kEvents}},
        {"DraftValidationRegistry",
         {draft_validation_registry::kFunctions, draft_validation_registry::kEvents}},
        {"IdentityRegistry",
         {score_identity_registry::kFunctions, score_identity_registry::kEvents}},
        {"ScoreReputationRegistry",
         {score_reputation_registry::kFunctions, score_reputation_registry::kEvents}},
        {"ScoreValidationRegistry",
         {score_validation_registry::kFunctions, score_validation_registry::kEvents}},
    };
    size_t functions = 0;
    size_t events = 0;
    for (const char* revision : {"firstDraft", "intermediate"}) {
        for (const auto& [contract, entry] : vec.at(revision).items()) {
            if (!entry.is_object()) continue;  // the revision's text
            const auto it = by_name.find(contract);
            ASSERT_NE(it, by_name.end()) << contract;
            for (const auto& [name, f] : entry.at("functions").items()) {
                const auto signature = f.at("signature").get<std::string>();
                const auto expected =
                    core::from_hex_fixed<4>(f.at("selector").get<std::string>()).value();
                const auto found =
                    std::ranges::find(it->second.functions, signature, &FunctionInfo::signature);
                ASSERT_NE(found, it->second.functions.end()) << contract << " " << signature;
                EXPECT_EQ(found->selector, expected) << contract << " " << signature;
                ++functions;
            }
            for (const auto& [name, e] : entry.at("events").items()) {
                const auto signature = e.at("signature").get<std::string>();
                const auto found =
                    std::ranges::find(it->second.events, signature, &EventInfo::signature);
                ASSERT_NE(found, it->second.events.end()) << contract << " " << signature;
                EXPECT_EQ(found->topic0, hash32(e.at("topic0").get<std::string>()))
                    << contract << " " << signature;
                ++events;
            }
        }
    }
    EXPECT_EQ(functions, 7U + 5 + 6 + 7 + 10 + 7);
    EXPECT_EQ(events, 2U + 1 + 2 + 3 + 3 + 2);
    // The named constants the indexer matches logs with.
    EXPECT_EQ(draft_reputation_registry::kAuthFeedbackTopic,
              hash32(vec.at("firstDraft")
                         .at("DraftReputationRegistry")
                         .at("events")
                         .at("AuthFeedback")
                         .at("topic0")
                         .get<std::string>()));
    EXPECT_EQ(score_reputation_registry::kNewFeedbackTopic,
              hash32(vec.at("intermediate")
                         .at("ScoreReputationRegistry")
                         .at("events")
                         .at("NewFeedback")
                         .at("topic0")
                         .get<std::string>()));
}

// ---- (b) calldata against `cast calldata` ----

TEST(chain_bindings, register_overloads_match_cast) {
    EXPECT_EQ(ok(identity_registry::register_0()), cast_bytes({"calldata", "register()"}));
    EXPECT_EQ(ok(identity_registry::register_1("ipfs://bafy-agent-card")),
              cast_bytes({"calldata", "register(string)", "ipfs://bafy-agent-card"}));
    const std::vector<identity_registry::MetadataEntry> metadata{
        {"agentWallet", hex("0x0102030405")}, {"empty", {}}};
    EXPECT_EQ(
        ok(identity_registry::register_2("https://agent.example/card.json", metadata)),
        cast_bytes({"calldata", "register(string,(string,bytes)[])",
                    "https://agent.example/card.json", "[(agentWallet,0x0102030405),(empty,0x)]"}));
}

TEST(chain_bindings, set_agent_wallet_with_65_byte_signature_matches_cast) {
    Bytes signature(65);
    for (size_t i = 0; i < signature.size(); ++i) signature[i] = static_cast<uint8_t>(i * 7 + 1);
    signature[64] = 0x1c;
    const auto ours =
        ok(identity_registry::set_agent_wallet(42, addr(kA1), 1'900'000'000, signature));
    EXPECT_EQ(ours, cast_bytes({"calldata", "setAgentWallet(uint256,address,uint256,bytes)", "42",
                                kA1, "1900000000", core::to_hex(signature)}));
    EXPECT_EQ(ok(identity_registry::set_metadata(42, "skills", hex("0xdeadbeef"))),
              cast_bytes(
                  {"calldata", "setMetadata(uint256,string,bytes)", "42", "skills", "0xdeadbeef"}));
}

TEST(chain_bindings, give_feedback_with_negative_int128_matches_cast) {
    const std::string sig =
        "giveFeedback(uint256,int128,uint8,string,string,string,string,bytes32)";
    EXPECT_EQ(ok(reputation_registry::give_feedback(7, core::Int256(-5), 2, "quality", "latency",
                                                    "https://agent.example/mcp", "ipfs://feedback",
                                                    hash32(kH1))),
              cast_bytes({"calldata", "--", sig, "7", "-5", "2", "quality", "latency",
                          "https://agent.example/mcp", "ipfs://feedback", kH1}));
    // int128's minimum, past int64.
    const std::string min128 = "-170141183460469231731687303715884105728";
    EXPECT_EQ(ok(reputation_registry::give_feedback(1, core::Int256::parse(min128).value(), 18, "",
                                                    "", "", "", hash32(kH2))),
              cast_bytes({"calldata", "--", sig, "1", min128, "18", "", "", "", "", kH2}));
}

TEST(chain_bindings, out_of_range_integer_argument_is_an_error) {
    // value_decimals is uint8: 300 does not fit; the builder says so instead of truncating.
    const auto r =
        reputation_registry::give_feedback(7, core::Int256(1), 300, "", "", "", "", hash32(kH1));
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().code, core::AbiError::out_of_range);
    // int128 just past its maximum.
    const auto big = core::Int256::parse("170141183460469231731687303715884105728").value();
    EXPECT_FALSE(reputation_registry::give_feedback(7, big, 0, "", "", "", "", hash32(kH1)));
}

TEST(chain_bindings, reputation_reads_and_responses_match_cast) {
    const std::vector<core::Address> clients{addr(kA1), addr(kA2)};
    EXPECT_EQ(ok(reputation_registry::get_summary(7, clients, "quality", "")),
              cast_bytes({"calldata", "getSummary(uint256,address[],string,string)", "7",
                          "[" + kA1 + "," + kA2 + "]", "quality", ""}));
    EXPECT_EQ(ok(reputation_registry::read_all_feedback(7, {}, "", "uptime", true)),
              cast_bytes({"calldata", "readAllFeedback(uint256,address[],string,string,bool)", "7",
                          "[]", "", "uptime", "true"}));
    EXPECT_EQ(ok(reputation_registry::append_response(7, addr(kA2), 3, "ipfs://resp", hash32(kH3))),
              cast_bytes({"calldata", "appendResponse(uint256,address,uint64,string,bytes32)", "7",
                          kA2, "3", "ipfs://resp", kH3}));
    EXPECT_EQ(
        ok(reputation_registry::revoke_feedback(7, 18'446'744'073'709'551'615ULL)),
        cast_bytes({"calldata", "revokeFeedback(uint256,uint64)", "7", "18446744073709551615"}));
}

TEST(chain_bindings, validation_request_matches_cast) {
    EXPECT_EQ(ok(validation_registry::validation_request(addr(kA1), 9, "ipfs://req", hash32(kH2))),
              cast_bytes({"calldata", "validationRequest(address,uint256,string,bytes32)", kA1, "9",
                          "ipfs://req", kH2}));
}

TEST(chain_bindings, tool_registry_calls_match_cast) {
    EXPECT_EQ(ok(tool_registry::register_tool("ipfs://tool-manifest", hash32(kH3), addr(kA2))),
              cast_bytes({"calldata", "registerTool(string,bytes32,address)",
                          "ipfs://tool-manifest", kH3, kA2}));
    EXPECT_EQ(ok(tool_registry::has_access(1, addr(kA1), hex("0xc0ffee"))),
              cast_bytes({"calldata", "hasAccess(uint256,address,bytes)", "1", kA1, "0xc0ffee"}));
}

TEST(chain_bindings, workflow_reply_and_task_with_nested_structs_match_cast) {
    single_stage_workflow::AgentReply reply;
    reply.operation_id = hash32(kH1);
    reply.output_hash = hash32(kH2);
    reply.output = hex("0x48656c6c6f");
    reply.timestamp = 1'700'000'000;
    reply.replier = addr(kA1);
    reply.prev_task_hashes = {hash32(kH3), hash32(kH1)};
    reply.workflow_run_id = hash32(kH2);
    const std::string reply_tuple = "(" + kH1 + "," + kH2 + ",0x48656c6c6f,1700000000," + kA1 +
                                    ",[" + kH3 + "," + kH1 + "]," + kH2 + ")";
    const std::string reply_type = "(bytes32,bytes32,bytes,uint256,address,bytes32[],bytes32)";
    EXPECT_EQ(ok(single_stage_workflow::on_agent_reply(reply)),
              cast_bytes({"calldata", "onAgentReply(" + reply_type + ")", reply_tuple}));

    single_stage_workflow::AgentTask task;
    task.stage = 2;
    task.task_seq = 5;
    task.input_hash = hash32(kH3);
    task.input = {};
    task.timestamp = 1'700'000'001;
    task.expires_at = 1'700'003'600;
    task.prev_reply_hashes = {};
    task.workflow_run_id = hash32(kH1);
    EXPECT_EQ(ok(single_stage_workflow::task_hash_of(task)),
              cast_bytes({"calldata",
                          "taskHashOf((uint8,uint256,bytes32,bytes,uint256,uint256,bytes32[],"
                          "bytes32))",
                          "(2,5," + kH3 + ",0x,1700000001,1700003600,[]," + kH1 + ")"}));
}

// ---- (c) return data from `cast abi-encode` ----

TEST(chain_bindings, decode_get_summary_result) {
    const auto data = cast_bytes({"abi-encode", "--", "f(uint64,int128,uint8)", "3", "-12", "2"});
    const auto r = ok(reputation_registry::decode_get_summary_result(data));
    EXPECT_EQ(r.count, 3U);
    EXPECT_EQ(r.summary_value, core::Int256(-12));
    EXPECT_EQ(r.summary_value_decimals, 2U);
    // Truncated return data is an error, not garbage.
    EXPECT_FALSE(reputation_registry::decode_get_summary_result(
        core::ByteView(data).first(data.size() - 1)));
}

TEST(chain_bindings, decode_read_all_feedback_result_arrays) {
    const auto data = cast_bytes({"abi-encode", "--",
                                  "f(address[],uint64[],int128[],uint8[],string[],string[],bool[])",
                                  "[" + kA1 + "," + kA2 + "]", "[0,1]", "[-5,100]", "[0,2]",
                                  "[quality,speed]", "[\"\",p95]", "[false,true]"});
    const auto r = ok(reputation_registry::decode_read_all_feedback_result(data));
    ASSERT_EQ(r.clients.size(), 2U);
    EXPECT_EQ(r.clients[1], addr(kA2));
    EXPECT_EQ(r.feedback_indexes, (std::vector<uint64_t>{0, 1}));
    EXPECT_EQ(r.values, (std::vector<core::Int256>{-5, 100}));
    EXPECT_EQ(r.value_decimals, (std::vector<uint64_t>{0, 2}));
    EXPECT_EQ(r.tag1s, (std::vector<std::string>{"quality", "speed"}));
    EXPECT_EQ(r.tag2s, (std::vector<std::string>{"", "p95"}));
    EXPECT_EQ(r.revoked_statuses, (std::vector<bool>{false, true}));
}

TEST(chain_bindings, decode_get_tool_config_result_struct) {
    const auto data = cast_bytes({"abi-encode", "f((address,string,bytes32,address))",
                                  "(" + kA1 + ",ipfs://tool," + kH3 + "," + kA2 + ")"});
    const auto cfg = ok(tool_registry::decode_get_tool_config_result(data));
    EXPECT_EQ(cfg.creator, addr(kA1));
    EXPECT_EQ(cfg.metadata_uri, "ipfs://tool");
    EXPECT_EQ(cfg.manifest_hash, hash32(kH3));
    EXPECT_EQ(cfg.access_predicate, addr(kA2));
}

TEST(chain_bindings, decode_get_agent_reply_nested_result) {
    const auto data = cast_bytes(
        {"abi-encode",
         "f((bytes32,bytes32,bytes,uint256,address,bytes32[],bytes32),address,bool,bytes32)",
         "(" + kH1 + "," + kH2 + ",0xabcd,77," + kA1 + ",[" + kH3 + "]," + kH1 + ")", kA2, "true",
         kH3});
    const auto r = ok(single_stage_workflow::decode_get_agent_reply_result(data));
    EXPECT_EQ(r.reply.operation_id, hash32(kH1));
    EXPECT_EQ(r.reply.output, hex("0xabcd"));
    EXPECT_EQ(r.reply.timestamp, core::Uint256(77));
    EXPECT_EQ(r.reply.prev_task_hashes, (std::vector<Hash32>{hash32(kH3)}));
    EXPECT_EQ(r.verifier, addr(kA2));
    EXPECT_TRUE(r.proven);
    EXPECT_EQ(r.verification_digest, hash32(kH3));
}

// ---- events ----

TEST(chain_bindings, decode_registered_event) {
    const std::array<Hash32, 3> topics{identity_registry::kRegisteredTopic,
                                       core::Uint256(12).to_word(),
                                       hash32("0x000000000000000000000000" + kA1.substr(2))};
    const auto data = cast_bytes({"abi-encode", "f(string)", "ipfs://agent-12"});
    const auto ev = ok(identity_registry::decode_registered_event(topics, data));
    EXPECT_EQ(ev.agent_id, core::Uint256(12));
    EXPECT_EQ(ev.agent_uri, "ipfs://agent-12");
    EXPECT_EQ(ev.owner, addr(kA1));
    // A log of another event is refused (topic0 check).
    auto wrong = topics;
    wrong[0] = identity_registry::kUriUpdatedTopic;
    const auto r = identity_registry::decode_registered_event(wrong, data);
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().code, core::AbiError::topic0_mismatch);
}

TEST(chain_bindings, indexed_string_event_field_is_the_topic_hash) {
    // MetadataSet(uint256 indexed agentId, string indexed indexedMetadataKey, string, bytes):
    // Solidity ABI spec §Events, an indexed string is stored as keccak256 of its bytes.
    const Hash32 key_hash = hash32(cast_output({"keccak", "agentWallet"}));
    const std::array<Hash32, 3> topics{identity_registry::kMetadataSetTopic,
                                       core::Uint256(4).to_word(), key_hash};
    const auto data = cast_bytes({"abi-encode", "f(string,bytes)", "agentWallet", "0x1234"});
    const auto ev = ok(identity_registry::decode_metadata_set_event(topics, data));
    EXPECT_EQ(ev.indexed_metadata_key, key_hash);
    EXPECT_EQ(ev.metadata_key, "agentWallet");
    EXPECT_EQ(ev.metadata_value, hex("0x1234"));
}

// ---- (d) custom errors ----

TEST(chain_bindings, custom_error_selector_matches_cast_sig) {
    const std::string sig = "NotToolCreator(uint256,address)";
    const auto expected = core::from_hex_fixed<4>(cast_output({"sig", sig})).value();
    EXPECT_EQ(tool_registry::kNotToolCreatorError, expected);
    EXPECT_EQ(find_error_signature(tool_registry::kErrors, expected), sig);
    EXPECT_EQ(find_any_error_signature(expected), sig);
    EXPECT_EQ(
        identity_registry::kNotAuthorizedError,
        core::from_hex_fixed<4>(cast_output({"sig", "NotAuthorized(uint256,address)"})).value());
    EXPECT_TRUE(find_any_error_signature({0xde, 0xad, 0xbe, 0xef}).empty());
}

TEST(chain_bindings, abi_json_text_decodes_revert_with_parameter_names) {
    // The revert decoder's path: kAbiJson -> core::parse_json_abi -> error by selector -> args.
    const auto doc = core::parse_json_abi(tool_registry::kAbiJson);
    ASSERT_TRUE(doc.has_value());
    const auto revert = cast_bytes({"calldata", "NotToolCreator(uint256,address)", "3", kA1});
    ASSERT_GE(revert.size(), 4U);
    core::Selector sel{};
    std::copy_n(revert.begin(), 4, sel.begin());
    const auto* err = doc->find_error(sel);
    ASSERT_NE(err, nullptr);
    EXPECT_EQ(err->name, "NotToolCreator");
    ASSERT_EQ(err->inputs.size(), 2U);
    EXPECT_EQ(err->inputs[0].name, "toolId");
    EXPECT_EQ(err->inputs[1].name, "caller");
    const auto args =
        core::decode(core::types_of(err->inputs), core::ByteView(revert).subspan(4)).value();
    EXPECT_EQ(*args[0].as_uint(), core::Uint256(3));
    EXPECT_EQ(*args[1].as_address(), addr(kA1).bytes);
}

// ---- (e) call helpers' errors ----

TEST(chain_bindings, call_error_is_one_line_per_kind) {
    CallError e{CallErrorKind::reverted, "getAgentWallet(uint256)",
                cast_bytes({"calldata", "ERC721NonexistentToken(uint256)", "7"}),
                "ERC721NonexistentToken(tokenId=7)"};
    EXPECT_EQ(e.name(), "getAgentWallet");
    EXPECT_EQ(e.message(), "getAgentWallet reverted: ERC721NonexistentToken(tokenId=7)");
    e.kind = CallErrorKind::rpc_failure;
    e.detail = "transport: connection refused";
    EXPECT_EQ(e.message(), "getAgentWallet: transport: connection refused");
    e.kind = CallErrorKind::bad_answer;
    e.detail = "data too short";
    EXPECT_EQ(e.message(), "getAgentWallet: bad return data: data too short");
    e.kind = CallErrorKind::encoding;
    EXPECT_EQ(e.message(), "getAgentWallet: cannot encode the arguments: data too short");
    e.function.clear();
    EXPECT_EQ(e.name(), "eth_call");
}

// A revert is matched by its selector (the generated k<Error>Error), never by its name.
TEST(chain_bindings, call_error_is_matches_the_revert_selector_only_for_reverts) {
    CallError e{CallErrorKind::reverted, "ownerOf(uint256)",
                cast_bytes({"calldata", "ERC721NonexistentToken(uint256)", "7"}), ""};
    EXPECT_TRUE(e.is(identity_registry::kERC721NonexistentTokenError));
    EXPECT_FALSE(e.is(identity_registry::kNotAuthorizedError));
    e.kind = CallErrorKind::rpc_failure;  // the same bytes, but not a revert
    EXPECT_FALSE(e.is(identity_registry::kERC721NonexistentTokenError));
    const auto& sel = identity_registry::kERC721NonexistentTokenError;
    EXPECT_TRUE(reverted_with(Bytes(sel.begin(), sel.end()), sel));
    EXPECT_FALSE(reverted_with(Bytes(sel.begin(), sel.begin() + 3), sel));  // truncated
    EXPECT_FALSE(reverted_with({}, sel));
}

TEST(chain_bindings, every_contract_is_listed_with_a_parsable_abi) {
    const auto contracts = all_contracts();
    // the 20 deployed contracts, the 6 registries of the earlier ERC-8004 revisions, 3 interfaces
    // and the test-only ERC1271WalletMock
    EXPECT_EQ(contracts.size(), 30U);
    for (const auto& c : contracts) {
        const auto doc = core::parse_json_abi(c.abi_json);
        ASSERT_TRUE(doc.has_value()) << c.name;
        EXPECT_EQ(doc->functions.size(), c.functions.size()) << c.name;
        EXPECT_EQ(doc->events.size(), c.events.size()) << c.name;
        EXPECT_EQ(doc->errors.size(), c.errors.size()) << c.name;
        // The generated tables agree with core's reading of the same ABI.
        for (const auto& f : c.functions) {
            const auto* fn = doc->find_function(f.selector);
            ASSERT_NE(fn, nullptr) << c.name << " " << f.signature;
            EXPECT_EQ(fn->signature(), f.signature);
        }
    }
}

}  // namespace
}  // namespace credence::chain::bindings
