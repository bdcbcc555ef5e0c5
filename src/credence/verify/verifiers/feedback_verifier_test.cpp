// Feedback, response and validation file checks (docs/architecture.md §verify/). Pure rules on
// bytes first (the ERC-8004 hash rules, the feedback file's MUST fields against the chain), then
// end to end: real feedback given on a real anvil, its file served over real HTTPS
// (tests/support/https_server.hpp) or as a data: URI, read back with read_onchain_feedback and
// verified with the real fetcher.
#include <credence/verify/verifiers/feedback_verifier.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include <credence/chain/bindings/identity_registry.hpp>
#include <credence/chain/bindings/reputation_registry.hpp>
#include <credence/chain/bindings/validation_registry.hpp>
#include <credence/chain/rpc_codec.hpp>
#include <credence/core/caip.hpp>
#include <credence/core/data_uri.hpp>
#include <credence/core/keccak.hpp>
#include <credence/verify/store/index_checks.hpp>

#include "support/devnet.hpp"
#include "support/https_server.hpp"

namespace {

using namespace credence;
using core::IssueSeverity;
using nlohmann::json;
using verify::FileReason;
using verify::FileStatus;
using verify::HashRule;
using verify::Integrity;

core::Address address(uint8_t fill) {
    core::Address a{};
    a.bytes.fill(fill);
    return a;
}

/// A feedback file for (agent 7, client 0x11.., value 4.5) on chain 31337, by hand.
std::string file_text(const std::string& agent_id = "7", const std::string& value = "45",
                      const std::string& decimals = "1",
                      const std::string& client = "0x1111111111111111111111111111111111111111") {
    return R"({"agentRegistry":"eip155:31337:0x2222222222222222222222222222222222222222",)"
           R"("agentId":)" +
           agent_id + R"(,"clientAddress":"eip155:31337:)" + client +
           R"(","createdAt":"2025-09-23T12:00:00Z","value":)" + value + R"(,"valueDecimals":)" +
           decimals + "}";
}

verify::OnchainFeedbackRecord record_for(const std::string& uri, const core::Hash32& hash) {
    verify::OnchainFeedbackRecord r;
    r.facts.agent_registry = {31337, address(0x22).bytes};
    r.facts.agent_id = core::Uint256(7);
    r.facts.client_address = address(0x11).bytes;
    r.facts.value = {core::Int256(45), 1};
    r.feedback_index = 1;
    r.feedback_uri = uri;
    r.feedback_hash = hash;
    return r;
}

bool has_issue(const std::vector<verify::FileIssue>& issues, FileReason reason) {
    for (const auto& i : issues)
        if (i.reason == reason) return true;
    return false;
}

// ---- pure: the hash rules ----------------------------------------------------------------------

TEST(verify_feedback, hash_of_the_bytes_equal_to_the_chain_is_verified) {
    const std::string text = file_text();
    const auto v = verify::verify_file_bytes("https://a.test/f.json", core::keccak256(text),
                                             core::as_bytes(text), HashRule::required);
    EXPECT_EQ(v.status, FileStatus::verified);
    EXPECT_EQ(v.integrity, Integrity::keccak256);
    EXPECT_TRUE(v.issues.empty());
}

// ERC-8004 §Giving Feedback: feedbackHash is the KECCAK-256 of the content.
TEST(verify_feedback, hash_mismatch_fails) {
    const std::string text = file_text();
    const auto v =
        verify::verify_file_bytes("https://a.test/f.json", core::keccak256("other"),
                                  core::as_bytes(text), HashRule::optional_for_content_addressed);
    EXPECT_EQ(v.status, FileStatus::failed);
    EXPECT_EQ(v.reason, FileReason::hash_mismatch);
    EXPECT_EQ(v.to_json()["reason"], "hash_mismatch");
}

// ERC-8004 §Giving Feedback: "For IPFS (or other content-addressed URIs), feedbackHash is OPTIONAL
// and can be omitted (e.g., set to bytes32(0))".
TEST(verify_feedback, zero_hash_on_ipfs_relies_on_the_cid) {
    const std::string text = file_text();
    const auto v = verify::verify_file_bytes("ipfs://bafkreiabc", {}, core::as_bytes(text),
                                             HashRule::optional_for_content_addressed);
    EXPECT_EQ(v.status, FileStatus::verified);
    EXPECT_EQ(v.integrity, Integrity::cid);
    // "Where provided" the hash is still checked, even on IPFS.
    const auto wrong =
        verify::verify_file_bytes("ipfs://bafkreiabc", core::keccak256("x"), core::as_bytes(text),
                                  HashRule::optional_for_content_addressed);
    EXPECT_EQ(wrong.reason, FileReason::hash_mismatch);
    const auto both =
        verify::verify_file_bytes("IPFS://bafkreiabc", core::keccak256(text), core::as_bytes(text),
                                  HashRule::optional_for_content_addressed);
    EXPECT_EQ(both.integrity, Integrity::keccak256_and_cid);
}

TEST(verify_feedback, zero_hash_on_https_is_unverified_hash_missing) {
    const std::string text = file_text();
    const auto v = verify::verify_file_bytes("https://a.test/f.json", {}, core::as_bytes(text),
                                             HashRule::optional_for_content_addressed);
    EXPECT_EQ(v.status, FileStatus::unverified);
    EXPECT_EQ(v.reason, FileReason::hash_missing);
    ASSERT_EQ(v.issues.size(), 1U);
    EXPECT_EQ(v.issues[0].severity, IssueSeverity::warning);
}

TEST(verify_feedback, zero_hash_on_a_data_uri_is_inline) {
    const std::string text = file_text();
    const auto v =
        verify::verify_file_bytes("data:application/json;base64,e30=", {}, core::as_bytes(text),
                                  HashRule::optional_for_content_addressed);
    EXPECT_EQ(v.status, FileStatus::verified);
    EXPECT_EQ(v.integrity, Integrity::inline_data);
}

// ERC-8004 §Validation Request: requestHash is the keccak256 commitment, with no IPFS exemption.
TEST(verify_feedback, validation_request_hash_is_required_even_on_ipfs) {
    const std::string text = "{\"task\":1}";
    const auto zero = verify::verify_file_bytes("ipfs://bafkreiabc", {}, core::as_bytes(text),
                                                HashRule::required);
    EXPECT_EQ(zero.status, FileStatus::failed);
    EXPECT_EQ(zero.reason, FileReason::hash_mismatch);
    const auto ok = verify::verify_file_bytes("ipfs://bafkreiabc", core::keccak256(text),
                                              core::as_bytes(text), HashRule::required);
    EXPECT_EQ(ok.status, FileStatus::verified);
}

// ---- pure: the feedback file against the event --------------------------------------------------

TEST(verify_feedback, file_agreeing_with_the_event_is_verified) {
    const std::string text = file_text();
    const auto v = verify::verify_feedback_bytes(
        core::as_bytes(text), record_for("https://a.test/f.json", core::keccak256(text)));
    EXPECT_EQ(v.status, FileStatus::verified) << v.to_json().dump();
    EXPECT_TRUE(v.mismatches.empty());
    ASSERT_TRUE(v.file);
    EXPECT_FALSE(v.payment);
    EXPECT_FALSE(v.payment_verified());
}

// ERC-8004 §Off-Chain Feedback File Structure: the MUST fields agree with the chain.
TEST(verify_feedback, each_must_field_that_differs_is_a_field_mismatch) {
    struct Case {
        std::string text;
        core::FeedbackField field;
    };
    const Case cases[] = {
        {file_text("8"), core::FeedbackField::agent_id},
        {file_text("7", "46"), core::FeedbackField::value},
        {file_text("7", "450", "2"), core::FeedbackField::value_decimals},
        {file_text("7", "45", "1", "0x3333333333333333333333333333333333333333"),
         core::FeedbackField::client_address},
    };
    for (const auto& c : cases) {
        const auto v = verify::verify_feedback_bytes(
            core::as_bytes(c.text), record_for("https://a.test/f.json", core::keccak256(c.text)));
        EXPECT_EQ(v.status, FileStatus::failed) << c.text;
        EXPECT_EQ(v.reason, FileReason::field_mismatch) << c.text;
        bool found = false;
        for (const auto& m : v.mismatches) found = found || m.field == c.field;
        EXPECT_TRUE(found) << c.text << " " << v.to_json().dump();
    }
    // Another identity registry in agentRegistry.
    auto rec = record_for("https://a.test/f.json", {});
    rec.facts.agent_registry.identity_registry = address(0x44).bytes;
    const std::string text = file_text();
    rec.feedback_hash = core::keccak256(text);
    const auto v = verify::verify_feedback_bytes(core::as_bytes(text), rec);
    ASSERT_EQ(v.mismatches.size(), 1U);
    EXPECT_EQ(v.mismatches[0].field, core::FeedbackField::agent_registry);
    EXPECT_EQ(v.to_json()["mismatches"][0]["field"], "agentRegistry");
}

TEST(verify_feedback, not_json_and_missing_must_fields_are_reported) {
    const std::string garbage = "not json";
    const auto nj = verify::verify_feedback_bytes(
        core::as_bytes(garbage), record_for("https://a.test/f.json", core::keccak256(garbage)));
    EXPECT_EQ(nj.reason, FileReason::not_json);

    // No "value": invalid_file, and no spurious value mismatch from a default-filled field.
    const std::string partial =
        R"({"agentRegistry":"eip155:31337:0x2222222222222222222222222222222222222222",)"
        R"("agentId":7,"clientAddress":"eip155:31337:0x1111111111111111111111111111111111111111",)"
        R"("createdAt":"2025-09-23T12:00:00Z","valueDecimals":1})";
    const auto v = verify::verify_feedback_bytes(
        core::as_bytes(partial), record_for("https://a.test/f.json", core::keccak256(partial)));
    EXPECT_EQ(v.status, FileStatus::failed);
    EXPECT_EQ(v.reason, FileReason::invalid_file);
    for (const auto& m : v.mismatches) EXPECT_NE(m.field, core::FeedbackField::value);
}

// ---- end to end: devnet + HTTPS ----------------------------------------------------------------

// Sends from an unlocked dev account and returns the receipt (anvil mines each txn).
chain::Receipt send(credence::testing::Devnet& devnet, const core::Address& from,
                    const core::Address& to, const core::Bytes& data, uint64_t wei = 0) {
    auto rpc = devnet.rpc();
    const json txn = {{"from", from.to_lower_hex()},
                      {"to", to.to_lower_hex()},
                      {"value", chain::to_quantity(wei)},
                      {"data", core::to_hex(data)}};
    auto hash = rpc.request("eth_sendTransaction", json::array({txn}));
    EXPECT_TRUE(hash) << (hash ? "" : hash.error().to_string());
    if (!hash) return {};
    const auto parsed = core::from_hex_fixed<32>(hash->get<std::string>());
    for (int i = 0; i < 100; ++i) {
        auto receipt = rpc.get_transaction_receipt(*parsed);
        if (receipt && *receipt) {
            EXPECT_TRUE((*receipt)->status);
            return **receipt;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ADD_FAILURE() << "no receipt";
    return {};
}

class VerifyFeedbackDevnet : public credence::testing::SharedDevnetFixture {
protected:
    static constexpr const char* kHost = "files.test";

    void SetUp() override {
        SharedDevnetFixture::SetUp();
        if (!server_)
            server_ =
                std::make_unique<credence::testing::HttpsServer>(std::vector<std::string>{kHost});
        verify::FetcherConfig config;
        config.connect_to = server_->connect_to();
        config.ca_file = server_->ca_file();
        config.allow_hosts = {"127.0.0.1"};
        fetcher_ = verify::make_curl_fetcher(config);
    }
    static void TearDownTestSuite() {
        server_.reset();
        SharedDevnetFixture::TearDownTestSuite();
    }

    core::Address owner() { return devnet().dev_address(0); }
    core::Address client() { return devnet().dev_address(1); }

    /// Registers a new agent owned by dev account 0 and returns its id.
    core::Uint256 register_agent() {
        namespace idr = chain::bindings::identity_registry;
        const auto receipt = send(devnet(), owner(), devnet().address("IdentityRegistry"),
                                  *idr::register_1("ipfs://agent"));
        for (const auto& log : receipt.logs)
            if (auto ev = idr::decode_registered_event(log.topics, log.data)) return ev->agent_id;
        ADD_FAILURE() << "no Registered event";
        return {};
    }

    /// The canonical file for (agent, client, value 4.5), with `extra` members merged in.
    core::BuiltFeedbackFile build(const core::Uint256& agent, const json& extra = json::object()) {
        core::FeedbackFile f;
        f.agent_registry = {devnet().chain_id(), devnet().address("IdentityRegistry").bytes};
        f.agent_id = agent;
        f.client_chain_id = devnet().chain_id();
        f.client_address = client().bytes;
        f.created_at = "2026-01-02T03:04:05Z";
        f.value = {core::Int256(45), 1};
        auto extra_dom = core::parse_json(extra.dump());
        EXPECT_TRUE(extra_dom);
        auto built = core::build_feedback_file(f, &*extra_dom);
        EXPECT_TRUE(built);
        return *built;
    }

    /// giveFeedback from the client with value 4.5; returns the feedback index.
    uint64_t give(const core::Uint256& agent, const std::string& uri, const core::Hash32& hash,
                  int64_t value = 45) {
        namespace rep = chain::bindings::reputation_registry;
        const auto receipt =
            send(devnet(), client(), devnet().address("ReputationRegistry"),
                 *rep::give_feedback(agent, core::Int256(value), 1, "", "", "", uri, hash));
        for (const auto& log : receipt.logs)
            if (auto ev = rep::decode_new_feedback_event(log.topics, log.data))
                return ev->feedback_index;
        ADD_FAILURE() << "no NewFeedback event";
        return 0;
    }

    verify::OnchainFeedbackRecord read(const core::Uint256& agent, uint64_t index) {
        auto rpc = devnet().rpc();
        auto rec = verify::read_onchain_feedback(rpc, devnet().address("ReputationRegistry"), agent,
                                                 client(), index);
        EXPECT_TRUE(rec) << (rec ? "" : rec.error().detail);
        return rec ? *rec : verify::OnchainFeedbackRecord{};
    }

    verify::FeedbackVerification check(const verify::OnchainFeedbackRecord& rec) {
        chain::RpcClient rpc = devnet().rpc();
        const uint64_t id = devnet().chain_id();
        verify::FeedbackVerifyOptions options;
        options.rpc_for_chain = [&](uint64_t chain) -> chain::RpcClient* {
            return chain == id ? &rpc : nullptr;
        };
        return verify::verify_feedback(*fetcher_, rec, options);
    }

    std::string serve(const std::string& path, const std::string& body) {
        server_->serve(kHost, path, body);
        return std::string("https://") + kHost + path;
    }

    static std::unique_ptr<credence::testing::HttpsServer> server_;
    std::unique_ptr<verify::Fetcher> fetcher_;
};

std::unique_ptr<credence::testing::HttpsServer> VerifyFeedbackDevnet::server_;

TEST_F(VerifyFeedbackDevnet, served_file_with_its_hash_is_verified) {
    const auto agent = register_agent();
    const auto built = build(agent);
    const std::string uri = serve("/ok.json", built.bytes);
    const uint64_t index = give(agent, uri, built.feedback_hash);
    const auto rec = read(agent, index);
    EXPECT_EQ(rec.feedback_uri, uri);
    EXPECT_EQ(rec.feedback_hash, built.feedback_hash);
    ASSERT_EQ(rec.payees.size(), 1U);  // the owner; no wallet set
    EXPECT_EQ(rec.payees[0], owner());
    const auto v = check(rec);
    EXPECT_EQ(v.status, FileStatus::verified) << v.to_json().dump();
    EXPECT_EQ(v.content.integrity, Integrity::keccak256);
}

TEST_F(VerifyFeedbackDevnet, served_file_with_another_hash_fails) {
    const auto agent = register_agent();
    const auto built = build(agent);
    const std::string uri = serve("/wrong-hash.json", built.bytes);
    const auto v = check(read(agent, give(agent, uri, core::keccak256("something else"))));
    EXPECT_EQ(v.status, FileStatus::failed);
    EXPECT_EQ(v.reason, FileReason::hash_mismatch);
}

TEST_F(VerifyFeedbackDevnet, file_with_other_value_than_the_event_fails) {
    const auto agent = register_agent();
    const auto built = build(agent);  // says 4.5
    const std::string uri = serve("/other-value.json", built.bytes);
    const auto v = check(read(agent, give(agent, uri, built.feedback_hash, 46)));  // 4.6
    EXPECT_EQ(v.status, FileStatus::failed);
    EXPECT_EQ(v.reason, FileReason::field_mismatch);
    ASSERT_EQ(v.mismatches.size(), 1U);
    EXPECT_EQ(v.mismatches[0].field, core::FeedbackField::value);
}

TEST_F(VerifyFeedbackDevnet, file_for_another_agent_fails) {
    const auto agent = register_agent();
    const auto other = register_agent();
    const auto built = build(other);
    const std::string uri = serve("/other-agent.json", built.bytes);
    const auto v = check(read(agent, give(agent, uri, built.feedback_hash)));
    EXPECT_EQ(v.reason, FileReason::field_mismatch);
    ASSERT_EQ(v.mismatches.size(), 1U);
    EXPECT_EQ(v.mismatches[0].field, core::FeedbackField::agent_id);
}

TEST_F(VerifyFeedbackDevnet, data_uri_feedback_is_verified) {
    const auto agent = register_agent();
    const auto built = build(agent);
    const std::string uri =
        *core::encode_base64_data_uri("application/json", core::as_bytes(built.bytes));
    const auto v = check(read(agent, give(agent, uri, built.feedback_hash)));
    EXPECT_EQ(v.status, FileStatus::verified) << v.to_json().dump();
    // With a zero hash the bytes are still bound to the chain: they are in the URI.
    const auto inline_only = check(read(agent, give(agent, uri, {})));
    EXPECT_EQ(inline_only.status, FileStatus::verified);
    EXPECT_EQ(inline_only.content.integrity, Integrity::inline_data);
}

TEST_F(VerifyFeedbackDevnet, unreachable_file_is_fetch_failed) {
    const auto agent = register_agent();
    const auto v =
        check(read(agent, give(agent, std::string("https://") + kHost + "/missing.json", {})));
    EXPECT_EQ(v.status, FileStatus::failed);
    EXPECT_EQ(v.reason, FileReason::fetch_failed);
    EXPECT_EQ(v.content.fetch_error, verify::FetchError::http_status);
}

TEST_F(VerifyFeedbackDevnet, proof_of_payment_to_the_owner_is_a_verified_payment) {
    const auto agent = register_agent();
    const auto paid = send(devnet(), client(), owner(), {}, 1'000'000'000'000'000ULL);
    const json proof = {{"proofOfPayment",
                         {{"fromAddress", client().to_checksum_hex()},
                          {"toAddress", owner().to_checksum_hex()},
                          {"chainId", std::to_string(devnet().chain_id())},
                          {"txHash", core::to_hex(paid.txn_hash)}}}};
    const auto built = build(agent, proof);
    const std::string uri = serve("/paid.json", built.bytes);
    const auto v = check(read(agent, give(agent, uri, built.feedback_hash)));
    EXPECT_EQ(v.status, FileStatus::verified) << v.to_json().dump();
    ASSERT_TRUE(v.payment);
    EXPECT_TRUE(v.payment_verified());
    EXPECT_EQ(v.payment->amount.to_dec(), "1000000000000000");
    EXPECT_EQ(v.to_json()["paymentVerified"], true);
}

TEST_F(VerifyFeedbackDevnet, proof_of_payment_to_a_stranger_fails_the_feedback) {
    const auto agent = register_agent();
    const auto paid = send(devnet(), client(), devnet().dev_address(6), {}, 1000);
    const json proof = {{"proofOfPayment",
                         {{"fromAddress", client().to_checksum_hex()},
                          {"toAddress", devnet().dev_address(6).to_checksum_hex()},
                          {"chainId", std::to_string(devnet().chain_id())},
                          {"txHash", core::to_hex(paid.txn_hash)}}}};
    const auto built = build(agent, proof);
    const auto v =
        check(read(agent, give(agent, serve("/stranger.json", built.bytes), built.feedback_hash)));
    EXPECT_EQ(v.status, FileStatus::failed);
    EXPECT_EQ(v.reason, FileReason::payment_wrong_parties);
    EXPECT_FALSE(v.payment_verified());
}

TEST_F(VerifyFeedbackDevnet, proof_of_payment_on_an_unknown_chain_is_only_a_warning) {
    const auto agent = register_agent();
    const json proof = {{"proofOfPayment",
                         {{"fromAddress", client().to_checksum_hex()},
                          {"toAddress", owner().to_checksum_hex()},
                          {"chainId", "8453"},
                          {"txHash", core::to_hex(core::keccak256("x"))}}}};
    const auto built = build(agent, proof);
    const auto v =
        check(read(agent, give(agent, serve("/base.json", built.bytes), built.feedback_hash)));
    EXPECT_EQ(v.status, FileStatus::verified);
    EXPECT_FALSE(v.payment_verified());
    EXPECT_TRUE(has_issue(v.issues, FileReason::payment_chain_unavailable));
}

TEST_F(VerifyFeedbackDevnet, response_files_are_checked_against_their_hash) {
    namespace rep = chain::bindings::reputation_registry;
    const auto agent = register_agent();
    const auto built = build(agent);
    const uint64_t index =
        give(agent, serve("/with-response.json", built.bytes), built.feedback_hash);
    const std::string good = R"({"refund":"0x01"})";
    const std::string good_uri = serve("/response-good.json", good);
    const std::string bad_uri = serve("/response-bad.json", "{\"tampered\":true}");
    send(devnet(), owner(), devnet().address("ReputationRegistry"),
         *rep::append_response(agent, client(), index, good_uri, core::keccak256(good)));
    send(devnet(), owner(), devnet().address("ReputationRegistry"),
         *rep::append_response(agent, client(), index, bad_uri, core::keccak256(good)));
    const auto rec = read(agent, index);
    ASSERT_EQ(rec.responses.size(), 2U);
    EXPECT_EQ(rec.responses[0].responder, owner());
    const auto v = check(rec);
    ASSERT_EQ(v.responses.size(), 2U);
    EXPECT_EQ(v.responses[0].status, FileStatus::verified);
    EXPECT_EQ(v.responses[1].reason, FileReason::hash_mismatch);
}

TEST_F(VerifyFeedbackDevnet, validation_request_and_response_files) {
    namespace val = chain::bindings::validation_registry;
    const auto agent = register_agent();
    const core::Address validator = devnet().dev_address(3);
    const std::string request = R"({"inputs":"2+2","outputs":"4"})";
    const core::Hash32 request_hash = core::keccak256(request);
    send(devnet(), owner(), devnet().address("ValidationRegistry"),
         *val::validation_request(validator, agent, serve("/request.json", request), request_hash));
    const std::string response = R"({"verdict":"pass"})";
    send(devnet(), validator, devnet().address("ValidationRegistry"),
         *val::validation_response(request_hash, 100, serve("/response.json", response),
                                   core::keccak256(response), "hard"));
    auto rpc = devnet().rpc();
    auto rec =
        verify::read_onchain_validation(rpc, devnet().address("ValidationRegistry"), request_hash);
    ASSERT_TRUE(rec) << rec.error().detail;
    EXPECT_EQ(rec->validator, validator);
    ASSERT_EQ(rec->responses.size(), 1U);
    EXPECT_EQ(rec->responses[0].response, 100);
    const auto v = verify::verify_validation(*fetcher_, *rec);
    EXPECT_EQ(v.status, FileStatus::verified) << v.to_json(*rec).dump();
    EXPECT_EQ(v.request.integrity, Integrity::keccak256);

    // The host swaps the request file: the commitment no longer matches.
    serve("/request.json", R"({"inputs":"2+2","outputs":"5"})");
    const auto swapped = verify::verify_validation(*fetcher_, *rec);
    EXPECT_EQ(swapped.status, FileStatus::failed);
    EXPECT_EQ(swapped.request.reason, FileReason::hash_mismatch);

    core::Hash32 unknown{};
    unknown.fill(0x5A);
    auto missing =
        verify::read_onchain_validation(rpc, devnet().address("ValidationRegistry"), unknown);
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().code, verify::ReadError::not_found);
}

// The reverifier's check (store/index_checks.hpp): status, reason and the payment flag the trust
// engine reads.
TEST_F(VerifyFeedbackDevnet, batch_check_records_status_reason_and_payment_flag) {
    const auto agent = register_agent();
    const auto paid = send(devnet(), client(), owner(), {}, 777);
    const json proof = {{"proofOfPayment",
                         {{"fromAddress", client().to_checksum_hex()},
                          {"toAddress", owner().to_checksum_hex()},
                          {"chainId", std::to_string(devnet().chain_id())},
                          {"txHash", core::to_hex(paid.txn_hash)}}}};
    const auto good = build(agent, proof);
    const uint64_t good_index =
        give(agent, serve("/batch-good.json", good.bytes), good.feedback_hash);
    const uint64_t bad_index =
        give(agent, serve("/batch-bad.json", good.bytes), core::keccak256("not it"));
    const uint64_t no_file_index = give(agent, "", {});

    const auto subject = [&](uint64_t index) {
        verify::DueSubject d;
        d.subject.kind = verify::SubjectKind::feedback;
        d.subject.contract = devnet().address("ReputationRegistry");
        const auto word = agent.to_word();
        d.subject.id.assign(word.begin(), word.end());
        d.subject.client = client();
        d.subject.feedback_index = index;
        return d;
    };
    const std::vector<verify::DueSubject> due = {subject(good_index), subject(bad_index),
                                                 subject(no_file_index), subject(99)};
    chain::RpcClient rpc = devnet().rpc();
    const uint64_t id = devnet().chain_id();
    verify::FeedbackVerifyOptions options;
    options.rpc_for_chain = [&](uint64_t chain) -> chain::RpcClient* {
        return chain == id ? &rpc : nullptr;
    };
    const auto check_batch = verify::make_feedback_check(*fetcher_, rpc, options);
    const auto records = check_batch(due);
    ASSERT_EQ(records.size(), 4U);
    EXPECT_EQ(records[0].status, verify::VerificationStatus::verified) << records[0].detail;
    EXPECT_TRUE(records[0].flags.has(verify::VerificationFlag::payment_verified));
    EXPECT_EQ(json::parse(records[0].report_json)["paymentVerified"], true);
    EXPECT_EQ(records[1].status, verify::VerificationStatus::unverified);
    EXPECT_EQ(records[1].reason, "hash_mismatch");
    EXPECT_EQ(records[1].flags, verify::VerificationFlags{});
    EXPECT_EQ(records[2].status,
              verify::VerificationStatus::verified);  // no file: nothing to contradict
    EXPECT_EQ(records[3].status, verify::VerificationStatus::unverified);
    EXPECT_EQ(records[3].reason, "not_found");
    EXPECT_EQ(records[3].subject, due[3].subject);
}

TEST_F(VerifyFeedbackDevnet, unknown_feedback_is_not_found) {
    const auto agent = register_agent();
    auto rpc = devnet().rpc();
    auto rec = verify::read_onchain_feedback(rpc, devnet().address("ReputationRegistry"), agent,
                                             client(), 99);
    ASSERT_FALSE(rec);
    EXPECT_EQ(rec.error().code, verify::ReadError::not_found);
}

}  // namespace
