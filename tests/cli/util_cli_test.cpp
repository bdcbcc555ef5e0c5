// End-to-end tests of `credence util`: run the real binary and compare its output with the
// external vectors. Plain output, --json output, and the one-line error + exit code contract.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/process.hpp"
#include "support/scratch.hpp"
#include "support/vectors.hpp"

namespace {

struct CliRun {
    int status = -1;
    std::string out;  // stdout, plus stderr when merged
};

/// Runs `credence util <args>`; stderr is appended to out when merge_stderr is true.
CliRun run_util(std::vector<std::string> args, bool merge_stderr = false) {
    args.insert(args.begin(), "util");
    auto r = credence::testing::run_command(CREDENCE_BIN, args);
    return {r.exit_code, merge_stderr ? r.out + r.err : r.out};
}

std::string trim_newlines(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    return s;
}

std::string fmt_hex(unsigned char c) {
    static constexpr char kDigits[] = "0123456789abcdef";
    return {kDigits[c >> 4], kDigits[c & 0xf]};
}

std::string vector_path(const std::string& rel) {
    return (credence::testing::vectors_dir() / rel).string();
}

std::string write_temp(const std::string& name, const std::string& content) {
    return credence::testing::write_scratch_file("util_" + name, content).string();
}

}  // namespace

TEST(cli_util, sig_matches_every_erc8004_selector) {
    const auto v = credence::testing::read_vector_json("erc8004.json");
    for (const auto& [signature, selector] : v["selectors"].items()) {
        const CliRun r = run_util({"sig", signature});
        ASSERT_EQ(r.status, 0) << signature;
        EXPECT_EQ(trim_newlines(r.out), selector.get<std::string>()) << signature;
    }
}

TEST(cli_util, sig_event_matches_every_erc8004_topic) {
    const auto v = credence::testing::read_vector_json("erc8004.json");
    for (const auto& [signature, topic] : v["eventTopics"].items()) {
        const CliRun r = run_util({"sig-event", signature});
        ASSERT_EQ(r.status, 0) << signature;
        EXPECT_EQ(trim_newlines(r.out), topic.get<std::string>()) << signature;
    }
}

TEST(cli_util, keccak_hex_and_text) {
    const auto cases = credence::testing::read_vector_json("ethers/hashes.json");
    for (size_t i = 0; i < 20; ++i) {
        const auto& c = cases[i];
        EXPECT_EQ(trim_newlines(run_util({"keccak", c["data"].get<std::string>()}).out),
                  c["keccak256"].get<std::string>());
    }
}

TEST(cli_util, to_checksum_matches_ethers_accounts) {
    const auto accounts = credence::testing::read_vector_json("ethers/accounts.json");
    ASSERT_FALSE(accounts.empty());
    for (size_t i = 0; i < 10; ++i) {
        const auto& a = accounts[i];
        const std::string checksummed = a["address"];
        std::string lower = checksummed;
        for (auto& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        lower[1] = 'x';
        EXPECT_EQ(trim_newlines(run_util({"to-checksum", lower}).out), checksummed);
        EXPECT_EQ(trim_newlines(run_util({"wallet-address", "--private-key",
                                          a["privateKey"].get<std::string>()})
                                    .out),
                  checksummed);
    }
}

TEST(cli_util, mail_example_digest_signature_and_recovery) {
    const auto mail = credence::testing::read_vector_json("eip712-mail.json");
    const auto& expected = mail["expected"];
    const std::string file = vector_path("eip712-mail.json");

    EXPECT_EQ(trim_newlines(run_util({"typed-data-hash", file}).out),
              expected["digest"].get<std::string>());

    const CliRun signed_run = run_util({"sign-typed-data", "--json", "--private-key",
                                        expected["privateKey"].get<std::string>(), file});
    ASSERT_EQ(signed_run.status, 0);
    const auto doc = nlohmann::json::parse(signed_run.out);
    const auto& sig = expected["signature"];
    const std::string v_hex = sig["v"].get<int>() == 27 ? "1b" : "1c";
    const std::string want =
        sig["r"].get<std::string>() + sig["s"].get<std::string>().substr(2) + v_hex;
    EXPECT_EQ(doc["signature"], want);
    EXPECT_EQ(doc["signer"], expected["signer"]);

    EXPECT_EQ(trim_newlines(run_util({"recover", expected["digest"].get<std::string>(), want}).out),
              expected["signer"].get<std::string>());
}

TEST(cli_util, jcs_reproduces_rfc8785_outputs) {
    for (const char* name : {"arrays", "french", "structures", "unicode", "values", "weird"}) {
        const CliRun r = run_util({"jcs", vector_path(std::string("jcs/input/") + name + ".json")});
        ASSERT_EQ(r.status, 0) << name;
        EXPECT_EQ(r.out,
                  credence::testing::read_vector_file(std::string("jcs/output/") + name + ".json"))
            << name;
    }
}

TEST(cli_util, jcs_hash_matches_erc8257_manifest_vector) {
    const auto v = credence::testing::read_vector_json("erc8257/manifest-vectors.json");
    const auto file = write_temp("nfc_manifest.json", v["erc_NFC"]["manifest"].dump());
    EXPECT_EQ(trim_newlines(run_util({"jcs", "--hash", file}).out),
              v["erc_NFC"]["keccak"].get<std::string>());
}

// ERC-8257 requires NFC strings; the NFD vector must be refused with a one-line error.
TEST(cli_util, nfc_check_accepts_nfc_and_rejects_nfd) {
    const auto v = credence::testing::read_vector_json("erc8257/manifest-vectors.json");
    EXPECT_EQ(
        run_util({"nfc-check", write_temp("nfc.json", v["erc_NFC"]["manifest"].dump())}).status, 0);
    const CliRun bad =
        run_util({"nfc-check", write_temp("nfd.json", v["erc_NFD"]["manifest"].dump())}, true);
    EXPECT_EQ(bad.status, 1);
    EXPECT_EQ(trim_newlines(bad.out), "error: not in NFC: /name");
}

TEST(cli_util, errors_are_one_line_with_nonzero_exit) {
    const std::vector<std::vector<std::string>> cases{{"recover", "0x12", "0x34"},
                                                      {"sig", "f(uint7)"},
                                                      {"to-checksum", "0x123"},
                                                      {"jcs", "/nonexistent/file.json"},
                                                      {"compute-address", "0x00", "--nonce", "1"}};
    for (const auto& args : cases) {
        const CliRun r = run_util(args, true);
        const std::string what = args.front() + " " + args.at(1);
        EXPECT_NE(r.status, 0) << what;
        EXPECT_TRUE(r.out.starts_with("error: ")) << what << ": " << r.out;
        EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << what << ": " << r.out;
    }
}

TEST(cli_util, bad_checksum_is_rejected) {
    // One letter's case flipped in a valid EIP-55 address.
    const CliRun r = run_util(
        {"compute-address", "0xF39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "--nonce", "0"}, true);
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.out.find("checksum"), std::string::npos) << r.out;
}

// ethereum/tests ABI cases through `util abi-encode`, then back through `util abi-decode --input`.
TEST(cli_util, abi_encode_matches_ethereum_tests) {
    const auto cases =
        credence::testing::read_vector_json("ethereum-tests/ABITests/basic_abi_tests.json");
    ASSERT_EQ(cases.size(), 3u);
    for (const auto& [name, c] : cases.items()) {
        std::string sig = "f(";
        for (size_t i = 0; i < c["types"].size(); ++i)
            sig += (i ? "," : "") + c["types"][i].get<std::string>();
        sig += ")";
        std::vector<std::string> args{"abi-encode", sig};
        for (size_t i = 0; i < c["args"].size(); ++i) {
            const auto& a = c["args"][i];
            std::string text;
            if (a.is_array()) {
                text = "[";
                for (size_t k = 0; k < a.size(); ++k) text += (k ? "," : "") + a[k].dump();
                text += "]";
            } else if (a.is_string()) {
                text = a.get<std::string>();
                // bytesN / bytes arguments are given as text in this suite; cast takes hex.
                const std::string type = c["types"][i];
                if (type.starts_with("bytes")) {
                    std::string hex = "0x";
                    for (char ch : text) hex += fmt_hex(static_cast<unsigned char>(ch));
                    text = hex;
                }
            } else {
                text = a.dump();
            }
            args.push_back(text);
        }
        const CliRun r = run_util(args);
        ASSERT_EQ(r.status, 0) << name;
        EXPECT_EQ(trim_newlines(r.out), "0x" + c["result"].get<std::string>()) << name;
    }
}

// Every ethers London (EIP-1559) signed transaction of the first 20 decodes to its sender.
TEST(cli_util, decode_tx_recovers_ethers_senders) {
    const auto cases = credence::testing::read_vector_json("ethers/transactions.json.gz");
    for (size_t i = 0; i < 20; ++i) {
        const auto& c = cases[i];
        const CliRun key =
            run_util({"wallet-address", "--private-key", c["privateKey"].get<std::string>()});
        for (const char* kind : {"signedLegacy", "signedEip155", "signedBerlin", "signedLondon"}) {
            const CliRun r = run_util({"decode-tx", c[kind].get<std::string>()});
            ASSERT_EQ(r.status, 0) << c["name"] << " " << kind;
            const auto doc = nlohmann::json::parse(r.out);
            EXPECT_EQ(doc["from"].get<std::string>(), trim_newlines(key.out))
                << c["name"] << " " << kind;
            EXPECT_EQ(doc["nonce"].get<uint64_t>(), c["transaction"]["nonce"].get<uint64_t>());
        }
    }
}
