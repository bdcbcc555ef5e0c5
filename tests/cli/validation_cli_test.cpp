// End-to-end tests of `credence validation`: the real binary against a real devnet, with the
// chain state and the commitments checked through the real `cast` (cast keccak of the file's
// bytes, cast call of the registry's getters), never only against the CLI's own output.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/labeled_output.hpp"
#include "support/devnet.hpp"
#include "support/scratch.hpp"

namespace {

using credence::testing::run_cast;
using credence::testing::trimmed;

using credence::testing::CommandResult;
using credence::testing::run_command;

using credence::testing::cast_binary;

std::string to_hex(const std::string& bytes) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string h = "0x";
    for (const char ch : bytes) {
        const auto c = static_cast<unsigned char>(ch);
        h += kDigits[c >> 4U];
        h += kDigits[c & 0xFU];
    }
    return h;
}

size_t line_count(const std::string& s) {
    return static_cast<size_t>(std::count(s.begin(), s.end(), '\n'));
}

class ValidationCli : public credence::testing::DevnetFixture {
protected:
    std::string registry() { return devnet().address("ValidationRegistry").to_checksum_hex(); }
    std::string key(size_t i) { return devnet().dev_key(i); }
    std::string addr(size_t i) { return devnet().dev_address(i).to_checksum_hex(); }

    CommandResult run(const std::vector<std::string>& args) {
        return run_command(CREDENCE_BIN, args, devnet().env());
    }
    nlohmann::json run_json(std::vector<std::string> args) {
        args.emplace_back("--json");
        const CommandResult r = run(args);
        EXPECT_EQ(r.exit_code, 0) << r.err;
        return nlohmann::json::parse(r.out, nullptr, false);
    }

    std::string write_file(const std::string& name, const std::string& content) {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        return credence::testing::write_scratch_file(
                   std::string("validation_") + info->name() + "/" + name, content)
            .string();
    }

    /// keccak256 of the exact bytes, by cast (hex input, so nothing is re-encoded).
    std::string cast_keccak(const std::string& bytes) {
        const CommandResult r = run_cast({"keccak", to_hex(bytes)});
        EXPECT_EQ(r.exit_code, 0) << r.err;
        return trimmed(r.out);
    }

    /// Registers an agent owned by dev account `owner` with the real cast; returns its id.
    std::string cast_register_agent(size_t owner) {
        const std::string identity = devnet().address("IdentityRegistry").to_checksum_hex();
        const CommandResult r =
            run_cast({"send", identity, "register(string)", "https://agent.example/a.json",
                      "--private-key", key(owner), "--rpc-url", devnet().rpc_url()});
        EXPECT_EQ(r.exit_code, 0) << r.err;
        const std::string id = std::to_string(next_agent_);
        const CommandResult o = run_cast(
            {"call", identity, "ownerOf(uint256)(address)", id, "--rpc-url", devnet().rpc_url()});
        EXPECT_EQ(trimmed(o.out), addr(owner)) << o.err;
        ++next_agent_;
        return id;
    }

    CommandResult cast_call(const std::vector<std::string>& args) {
        std::vector<std::string> full = {"call", registry()};
        full.insert(full.end(), args.begin(), args.end());
        full.emplace_back("--rpc-url");
        full.push_back(devnet().rpc_url());
        return run_cast(full);
    }

private:
    unsigned next_agent_ = 0;  // IdentityRegistry ids start at 0
};

}  // namespace

TEST_F(ValidationCli, request_respond_status_summary_list) {
    const std::string agent = cast_register_agent(0);
    // Exact bytes, with a trailing newline and no canonical form: the hash is over these bytes.
    const std::string request = "{\"task\": \"re-run inference #42\",\n \"input\": [1, 2, 3]}\n";
    const std::string request_file = write_file("request.json", request);
    const std::string request_hash = cast_keccak(request);

    // request (agent owner = dev 0), validator = dev 1.
    const auto req = run_json(
        {"validation", "request", addr(1), agent, "--file", request_file, "--private-key", key(0)});
    EXPECT_EQ(req["requestHash"], request_hash);
    EXPECT_EQ(req["validator"], addr(1));
    EXPECT_TRUE(req["requestURI"].get<std::string>().starts_with("data:application/json;base64,"));
    EXPECT_TRUE(req.contains("txHash"));

    // status through the CLI and through cast: pending (response 0, no tag).
    const auto st0 = run_json({"validation", "status", request_hash});
    EXPECT_EQ(st0["validator"], addr(1));
    EXPECT_EQ(st0["agentId"], agent);  // a uint256 as a decimal string, as everywhere
    EXPECT_EQ(st0["response"], 0);
    EXPECT_EQ(st0["tag"], "");
    CommandResult c =
        cast_call({"getValidationStatus(bytes32)(address,uint256,uint8,bytes32,string,uint256)",
                   request_hash});
    ASSERT_EQ(c.exit_code, 0) << c.err;
    EXPECT_TRUE(c.out.starts_with(addr(1) + "\n" + agent + "\n0\n")) << c.out;

    // respond as the validator with an evidence file and a tag.
    const std::string response = "audit: outputs match\n";
    const std::string response_hash = cast_keccak(response);
    const auto resp =
        run_json({"validation", "respond", request_hash, "80", "--tag", "soft-finality", "--file",
                  write_file("response.txt", response), "--private-key", key(1)});
    EXPECT_EQ(resp["response"], 80);
    EXPECT_EQ(resp["responseHash"], response_hash);
    c = cast_call({"getValidationStatus(bytes32)(address,uint256,uint8,bytes32,string,uint256)",
                   request_hash});
    ASSERT_EQ(c.exit_code, 0) << c.err;
    EXPECT_TRUE(c.out.starts_with(addr(1) + "\n" + agent + "\n80\n" + response_hash +
                                  "\n\"soft-finality\"\n"))
        << c.out;
    // Plain status output: every value labeled with its --json name, in the getter's order
    // (docs/cli.md §Output).
    const CommandResult plain = run({"validation", "status", request_hash});
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    EXPECT_EQ(credence::testing::labels(plain.out),
              (std::vector<std::string>{"validator", "agentId", "response", "responseHash", "tag",
                                        "lastUpdate"}))
        << plain.out;
    EXPECT_EQ(credence::testing::labeled_value(plain.out, "validator"), addr(1));
    EXPECT_EQ(credence::testing::labeled_value(plain.out, "agentId"), agent);
    EXPECT_EQ(credence::testing::labeled_value(plain.out, "response"), "80");
    EXPECT_EQ(credence::testing::labeled_value(plain.out, "responseHash"), response_hash);
    EXPECT_EQ(credence::testing::labeled_value(plain.out, "tag"), "soft-finality");

    // A second request to validator dev 2, answered 40 with another tag.
    const std::string request2 = "{\"task\":\"second\"}";
    const std::string request2_hash = cast_keccak(request2);
    const auto req2 = run_json({"validation", "request", addr(2), agent, "--file",
                                write_file("request2.json", request2), "--uri",
                                "https://agent.example/requests/2.json", "--private-key", key(0)});
    EXPECT_EQ(req2["requestHash"], request2_hash);
    EXPECT_EQ(req2["requestURI"], "https://agent.example/requests/2.json");
    ASSERT_EQ(run({"validation", "respond", request2_hash, "40", "--tag", "hard-finality",
                   "--private-key", key(2)})
                  .exit_code,
              0);

    // summary: all, by validator, by tag; each checked against cast's getSummary.
    struct Case {
        std::vector<std::string> flags;
        std::string validators;  // cast array literal
        std::string tag;
        int count, average;
    };
    const std::vector<Case> cases = {
        {{}, "[]", "", 2, 60},
        {{"--validator", addr(1)}, "[" + addr(1) + "]", "", 1, 80},
        {{"--validator", addr(1), "--validator", addr(2)},
         "[" + addr(1) + "," + addr(2) + "]",
         "",
         2,
         60},
        {{"--validator", addr(3)}, "[" + addr(3) + "]", "", 0, 0},
        {{"--tag", "hard-finality"}, "[]", "hard-finality", 1, 40},
        {{"--tag", "none"}, "[]", "none", 0, 0},
    };
    for (const auto& k : cases) {
        std::vector<std::string> args = {"validation", "summary", agent};
        args.insert(args.end(), k.flags.begin(), k.flags.end());
        const auto s = run_json(args);
        EXPECT_EQ(s["count"], k.count) << k.validators << k.tag;
        EXPECT_EQ(s["averageResponse"], k.average) << k.validators << k.tag;
        const CommandResult cs = cast_call(
            {"getSummary(uint256,address[],string)(uint64,uint8)", agent, k.validators, k.tag});
        ASSERT_EQ(cs.exit_code, 0) << cs.err;
        EXPECT_EQ(trimmed(cs.out), std::to_string(k.count) + "\n" + std::to_string(k.average));
    }

    // list: the agent's requests and each validator's.
    const auto by_agent = run_json({"validation", "list", "--agent", agent});
    EXPECT_EQ(by_agent["requestHashes"], nlohmann::json::array({request_hash, request2_hash}));
    c = cast_call({"getAgentValidations(uint256)(bytes32[])", agent});
    EXPECT_EQ(trimmed(c.out), "[" + request_hash + ", " + request2_hash + "]") << c.err;
    const auto by_validator = run_json({"validation", "list", "--validator", addr(2)});
    EXPECT_EQ(by_validator["requestHashes"], nlohmann::json::array({request2_hash}));
    const CommandResult plain_list = run({"validation", "list", "--agent", agent});
    EXPECT_EQ(plain_list.out, request_hash + "\n" + request2_hash + "\n");
}

TEST_F(ValidationCli, failures_are_one_line_with_the_decoded_revert) {
    const std::string agent = cast_register_agent(0);
    const std::string file = write_file("request.json", "{\"task\":1}");
    const std::string request_hash = cast_keccak("{\"task\":1}");
    ASSERT_EQ(
        run({"validation", "request", addr(1), agent, "--file", file, "--private-key", key(0)})
            .exit_code,
        0);

    const auto expect_error = [&](const std::vector<std::string>& args, const std::string& text) {
        const CommandResult r = run(args);
        EXPECT_EQ(r.exit_code, 1) << args[1];
        EXPECT_TRUE(r.out.empty()) << r.out;
        EXPECT_NE(r.err.find(text), std::string::npos) << r.err;
        EXPECT_EQ(line_count(r.err), 1U) << r.err;
    };
    // The same request again.
    expect_error({"validation", "request", addr(1), agent, "--file", file, "--private-key", key(0)},
                 "validationRequest reverted: RequestExists(requestHash=" + request_hash + ")");
    // Not the agent's owner (ERC-8004: MUST be called by the owner or operator).
    expect_error({"validation", "request", addr(1), agent, "--file",
                  write_file("other.json", "other"), "--private-key", key(2)},
                 "NotAuthorized(agentId=" + agent + ", caller=" + addr(2) + ")");
    // Not the request's validator.
    expect_error({"validation", "respond", request_hash, "50", "--private-key", key(2)},
                 "validationResponse reverted: NotValidator(requestHash=" + request_hash +
                     ", caller=" + addr(2) + ")");
    // ERC-8004: response is 0..100; refused before signing.
    expect_error({"validation", "respond", request_hash, "101", "--private-key", key(1)},
                 "response 101 out of range: must be 0..100");
    // Unknown request.
    const std::string unknown = cast_keccak("nothing");
    expect_error({"validation", "status", unknown},
                 "getValidationStatus reverted: UnknownRequest(requestHash=" + unknown + ")");
    expect_error({"validation", "status", "0x1234"}, "request hash '0x1234'");
    expect_error({"validation", "list"}, "pass exactly one of --agent or --validator");

    // Nothing but the first request reached the chain.
    const CommandResult c = cast_call({"getAgentValidations(uint256)(bytes32[])", agent});
    EXPECT_EQ(trimmed(c.out), "[" + request_hash + "]") << c.err;
}
