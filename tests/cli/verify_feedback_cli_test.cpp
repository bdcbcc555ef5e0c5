// End-to-end tests of `credence verify feedback` and `credence verify validation`
// (docs/architecture.md §verify/): feedback given with the real binary on a devnet, its file served
// by a real HTTPS server on loopback (tests/support/https_server.hpp), a real ETH payment made with
// `cast send`, and the validation request hashed with `cast keccak` (not by credence).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/erc8004_cli_helpers.hpp"
#include "cli/labeled_output.hpp"
#include "support/devnet.hpp"
#include "support/https_server.hpp"

namespace {

using namespace credence::testing;
using namespace credence::testing::erc8004;

constexpr const char* kHost = "files.test";

class VerifyFeedbackCli : public DevnetFixture {
protected:
    void SetUp() override {
        DevnetFixture::SetUp();
        server_ = std::make_unique<HttpsServer>(std::vector<std::string>{kHost});
    }
    void TearDown() override {
        server_.reset();
        DevnetFixture::TearDown();
    }
    std::string addr(size_t i) { return devnet().dev_address(i).to_checksum_hex(); }
    std::vector<std::string> fetch_flags() {
        std::vector<std::string> f = {"--ca-file", server_->ca_file(), "--allow-host", "127.0.0.1"};
        for (const auto& c : server_->connect_to()) {
            f.emplace_back("--connect-to");
            f.push_back(c);
        }
        return f;
    }
    CommandResult verify(std::vector<std::string> args, bool as_json = true) {
        for (auto& f : fetch_flags()) args.push_back(std::move(f));
        if (as_json) args.emplace_back("--json");
        return run_cli(devnet(), args);
    }
    std::string url(const std::string& path) { return std::string("https://") + kHost + path; }

    std::unique_ptr<HttpsServer> server_;
};

TEST_F(VerifyFeedbackCli, served_feedback_file_with_a_real_payment_is_verified) {
    const std::string agent = cast_register(devnet(), 0, "ipfs://agent");
    // The client (dev 1) pays the agent's owner (dev 0) 0.001 ETH.
    const auto paid =
        nlohmann::json::parse(cast(devnet(), {"send", addr(0), "--value", "1000000000000000",
                                              "--private-key", devnet().dev_key(1), "--json"}));
    const std::string txn = paid["transactionHash"].get<std::string>();
    const nlohmann::json extra = {{"proofOfPayment",
                                   {{"fromAddress", addr(1)},
                                    {"toAddress", addr(0)},
                                    {"chainId", std::to_string(devnet().chain_id())},
                                    {"txHash", txn}}}};
    const auto extra_path = temp_file("extra.json", extra.dump());
    const auto file_path = temp_file("feedback.json", "");
    const auto given =
        credence_json(devnet(), {"feedback", "give", agent, "4.5", "--file-out", file_path.string(),
                                 "--uri", url("/fb.json"), "--extra", extra_path.string(),
                                 "--private-key", devnet().dev_key(1)});
    ASSERT_EQ(given["feedbackIndex"], 1);
    server_->serve(kHost, "/fb.json", read_file(file_path));

    const CommandResult r = verify({"verify", "feedback", agent, addr(1), "1"});
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    const auto doc = nlohmann::json::parse(r.out);
    EXPECT_EQ(doc["status"], "verified");
    EXPECT_EQ(doc["feedbackURI"], url("/fb.json"));
    EXPECT_EQ(doc["report"]["content"]["integrity"], "keccak256");
    EXPECT_EQ(doc["report"]["paymentVerified"], true);
    EXPECT_EQ(doc["report"]["payment"]["kind"], "eth");
    EXPECT_EQ(doc["report"]["payment"]["amount"], "1000000000000000");
    EXPECT_EQ(lower(doc["report"]["payment"]["txnHash"].get<std::string>()), lower(txn));

    // Plain output: the status first, labeled, then the payment line.
    const CommandResult plain = verify({"verify", "feedback", agent, addr(1), "1"}, false);
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    ASSERT_FALSE(credence::testing::labels(plain.out).empty()) << plain.out;
    EXPECT_EQ(credence::testing::labels(plain.out)[0], "status") << plain.out;
    EXPECT_EQ(credence::testing::labeled_value(plain.out, "status"), "verified") << plain.out;
    EXPECT_NE(plain.out.find("payment verified: 1000000000000000 wei"), std::string::npos)
        << plain.out;

    // The host swaps the file: hash_mismatch, the report on stdout, the error (JSON, as --json
    // asks; docs/cli.md §Errors) on stderr, exit 1.
    server_->serve(kHost, "/fb.json", read_file(file_path) + " ");
    const CommandResult bad = verify({"verify", "feedback", agent, addr(1), "1"});
    EXPECT_EQ(bad.exit_code, 1);
    EXPECT_EQ(nlohmann::json::parse(bad.out)["reason"], "hash_mismatch");
    EXPECT_EQ(nlohmann::json::parse(bad.err)["error"]["message"],
              "feedback failed verification: hash_mismatch");
}

TEST_F(VerifyFeedbackCli, data_uri_feedback_needs_no_server) {
    const std::string agent = cast_register(devnet(), 0, "ipfs://agent");
    const auto given =
        credence_json(devnet(), {"feedback", "give", agent, "-3.2", "--file-data-uri",
                                 "--private-key", devnet().dev_key(2)});
    const CommandResult r =
        run_cli(devnet(), {"verify", "feedback", agent, addr(2),
                           std::to_string(given["feedbackIndex"].get<int>()), "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["status"], "verified");
}

TEST_F(VerifyFeedbackCli, unknown_feedback_is_one_error_line) {
    const std::string agent = cast_register(devnet(), 0, "ipfs://agent");
    const CommandResult r = run_cli(devnet(), {"verify", "feedback", agent, addr(1), "7"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("error: no NewFeedback for agent"), std::string::npos) << r.err;
}

TEST_F(VerifyFeedbackCli, validation_request_file_is_checked_against_request_hash) {
    const std::string agent = cast_register(devnet(), 0, "ipfs://agent");
    const std::string request = R"({"inputs":"2+2","outputs":"4"})";
    // requestHash computed by cast, independently of credence.
    const std::string request_hash = cast_offline({"keccak", request});
    server_->serve(kHost, "/request.json", request);
    cast(devnet(), {"send", devnet().address("ValidationRegistry").to_checksum_hex(),
                    "validationRequest(address,uint256,string,bytes32)", addr(3), agent,
                    url("/request.json"), request_hash, "--private-key", devnet().dev_key(0)});

    const CommandResult r = verify({"verify", "validation", request_hash});
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    const auto doc = nlohmann::json::parse(r.out);
    EXPECT_EQ(doc["status"], "verified");
    EXPECT_EQ(doc["request"]["integrity"], "keccak256");
    EXPECT_EQ(doc["validator"], addr(3));
    EXPECT_TRUE(doc["responses"].empty());

    server_->serve(kHost, "/request.json", R"({"inputs":"2+2","outputs":"5"})");
    const CommandResult bad = verify({"verify", "validation", request_hash});
    EXPECT_EQ(bad.exit_code, 1);
    EXPECT_EQ(nlohmann::json::parse(bad.out)["request"]["reason"], "hash_mismatch");
}

}  // namespace
