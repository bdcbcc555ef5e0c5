// End-to-end tests of `credence verify tool`: tools registered with the real binary (`credence
// tool register --uri`) on a real devnet, manifests served by a real HTTPS server with the test
// CA, and the verdict read back from the binary's plain and JSON output and its exit status.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/labeled_output.hpp"
#include "support/devnet.hpp"
#include "support/erc_examples.hpp"
#include "support/https_server.hpp"
#include "support/scratch.hpp"

namespace {

using credence::testing::CommandResult;
using credence::testing::run_command;
using nlohmann::json;

class VerifyToolCli : public credence::testing::SharedDevnetFixture {
protected:
    static void SetUpTestSuite() {
        SharedDevnetFixture::SetUpTestSuite();
        server_ = std::make_unique<credence::testing::HttpsServer>(
            std::vector<std::string>{"tools.test", "other.test"});
    }
    static void TearDownTestSuite() {
        server_.reset();
        SharedDevnetFixture::TearDownTestSuite();
    }

    CommandResult run(std::vector<std::string> args) {
        return run_command(CREDENCE_BIN, args, devnet().env());
    }

    std::vector<std::string> fetch_flags() const {
        std::vector<std::string> flags = {"--ca-file", server_->ca_file(), "--allow-host",
                                          "127.0.0.1"};
        for (const auto& c : server_->connect_to()) {
            flags.push_back("--connect-to");
            flags.push_back(c);
        }
        return flags;
    }

    /// The spec's free-tool example on https://tools.test, created by dev account 0.
    json manifest() {
        json m =
            json::parse(credence::testing::read_erc_example("erc8257-free-tool-manifest.json"));
        m["endpoint"] = "https://tools.test/api";
        m["creatorAddress"] = devnet().dev_address(0).to_lower_hex();
        return m;
    }

    /// Serves `m` at /.well-known/ai-tool/<slug>.json and registers it with `credence tool
    /// register --uri`; returns the tool id.
    std::string publish(const std::string& slug, const json& m) {
        const std::string body = m.dump(2);
        const std::string path = "/.well-known/ai-tool/" + slug + ".json";
        server_->serve("tools.test", path, body);
        const auto file =
            credence::testing::write_scratch_file("verify_tool_cli/" + slug + ".json", body);
        const auto r = run({"tool", "register", file.string(), "--uri", "https://tools.test" + path,
                            "--private-key", devnet().dev_key(0), "--json"});
        EXPECT_EQ(r.exit_code, 0) << r.err;
        if (r.exit_code != 0) return "0";
        return std::to_string(json::parse(r.out)["toolId"].get<uint64_t>());
    }

    std::vector<std::string> verify_args(const std::string& id, bool as_json) {
        std::vector<std::string> args = {"verify", "tool", id};
        if (as_json) args.emplace_back("--json");
        for (auto& f : fetch_flags()) args.push_back(std::move(f));
        return args;
    }

    static inline std::unique_ptr<credence::testing::HttpsServer> server_;
};

TEST_F(VerifyToolCli, canonical_tool_exits_zero_with_the_report) {
    const std::string id = publish("good", manifest());
    const auto plain = run(verify_args(id, false));
    EXPECT_EQ(plain.exit_code, 0) << plain.err;
    EXPECT_NE(plain.out.find("canonical (all four checks passed)"), std::string::npos) << plain.out;
    EXPECT_NE(plain.out.find("check 4 creator binding: passed"), std::string::npos) << plain.out;
    EXPECT_EQ(credence::testing::labeled_value(plain.out, "predicate"), "none (open access)")
        << plain.out;

    const auto j = run(verify_args(id, true));
    ASSERT_EQ(j.exit_code, 0) << j.err;
    const auto doc = json::parse(j.out);
    EXPECT_EQ(doc["verdict"], "canonical");
    EXPECT_EQ(doc["reason"], "none");
    EXPECT_EQ(doc["toolId"], std::stoull(id));
    EXPECT_EQ(doc["slug"], "good");
    EXPECT_EQ(doc["checks"]["originBinding"], "passed");
    // The computed keccak256(JCS) equals the on-chain manifestHash `tool register` committed.
    EXPECT_EQ(doc["manifestHash"], doc["onchain"]["manifestHash"]);
}

// Unverified: the report on stdout, one error line on stderr, exit 1.
TEST_F(VerifyToolCli, origin_mismatch_is_unverified_with_one_error_line) {
    auto m = manifest();
    m["endpoint"] = "https://other.test/api";
    const std::string id = publish("elsewhere", m);
    const auto r = run(verify_args(id, true));
    EXPECT_EQ(r.exit_code, 1);
    const auto doc = json::parse(r.out);
    EXPECT_EQ(doc["verdict"], "unverified");
    EXPECT_EQ(doc["reason"], "origin_mismatch");
    EXPECT_EQ(doc["checks"]["originBinding"], "failed");
    EXPECT_NE(r.err.find("tool " + id + ": unverified: origin_mismatch"), std::string::npos)
        << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

// Served bytes that differ from what was registered: hash mismatch after one re-read.
TEST_F(VerifyToolCli, changed_manifest_is_a_hash_mismatch) {
    const std::string id = publish("changed", manifest());
    auto changed = manifest();
    changed["description"] = "Quietly changed after registration.";
    server_->serve("tools.test", "/.well-known/ai-tool/changed.json", changed.dump());
    const auto r = run(verify_args(id, false));
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find("unverified (keccak256(JCS(manifest)) differs from manifestHash)"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("getToolConfig re-read once"), std::string::npos) << r.out;
    EXPECT_NE(r.err.find("unverified: hash_mismatch"), std::string::npos) << r.err;
}

TEST_F(VerifyToolCli, unknown_tool_and_bad_arguments_are_one_line_errors) {
    const auto missing = run(verify_args("424242", false));
    EXPECT_EQ(missing.exit_code, 1);
    EXPECT_NE(missing.err.find("unverified: tool_not_found"), std::string::npos) << missing.err;
    const auto bad = run({"verify", "tool", "not-a-number"});
    EXPECT_EQ(bad.exit_code, 1);
    EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
}

}  // namespace
