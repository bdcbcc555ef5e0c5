// End-to-end tests of `credence agent` (docs/cli.md): the real binary against a devnet (real
// anvil, real contracts), every result read back from the chain with the real `cast`.
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/erc8004_cli_helpers.hpp"
#include "cli/labeled_output.hpp"
#include "support/devnet.hpp"

namespace {

using namespace credence::testing;
using namespace credence::testing::erc8004;

class AgentCli : public DevnetFixture {
protected:
    std::string identity() { return devnet().address("IdentityRegistry").to_checksum_hex(); }
    /// `credence agent register FILE` by dev account `owner`; the agentId it reports.
    std::string register_agent(size_t owner, const std::string& name,
                               std::vector<std::string> extra = {}) {
        const auto file = temp_file(name + ".json", registration_file(name));
        std::vector<std::string> args{"agent", "register", file.string(), "--private-key",
                                      devnet().dev_key(owner)};
        args.insert(args.end(), extra.begin(), extra.end());
        const auto doc = credence_json(devnet(), args);
        return doc.value("agentId", std::string());
    }
    std::string latest_timestamp() {
        return cast(devnet(), {"block", "latest", "--field", "timestamp"});
    }
};

TEST_F(AgentCli, register_stores_the_file_as_a_base64_data_uri) {
    const std::string text = registration_file("alpha");
    const auto file = temp_file("alpha.json", text);
    const auto doc = credence_json(
        devnet(), {"agent", "register", file.string(), "--metadata", "category=search",
                   "--metadata-hex", "blob=0x00ff10", "--private-key", devnet().dev_key(0)});
    ASSERT_TRUE(doc.contains("agentId")) << doc.dump();
    const std::string id = doc["agentId"];
    EXPECT_TRUE(doc["validation"]["ok"].get<bool>());

    // base64 by coreutils, not by us.
    const CommandResult b64 = run_command("/usr/bin/base64", {"-w0", file.string()});
    ASSERT_EQ(b64.exit_code, 0);
    const std::string want_uri = "data:application/json;base64," + trim(b64.out);
    EXPECT_EQ(doc["agentURI"], want_uri);
    EXPECT_EQ(cast_call(devnet(), devnet().address("IdentityRegistry"), "tokenURI(uint256)(string)",
                        {id}),
              "\"" + want_uri + "\"");
    EXPECT_EQ(cast_call(devnet(), devnet().address("IdentityRegistry"), "ownerOf(uint256)(address)",
                        {id}),
              devnet().dev_address(0).to_checksum_hex());
    EXPECT_EQ(cast_call(devnet(), devnet().address("IdentityRegistry"),
                        "getMetadata(uint256,string)(bytes)", {id, "category"}),
              hex_of("search"));
    EXPECT_EQ(cast_call(devnet(), devnet().address("IdentityRegistry"),
                        "getMetadata(uint256,string)(bytes)", {id, "blob"}),
              "0x00ff10");
}

TEST_F(AgentCli, register_with_uri_and_without_file) {
    const auto doc = credence_json(devnet(), {"agent", "register", "--uri", "ipfs://bafyagent",
                                              "--private-key", devnet().dev_key(1)});
    ASSERT_TRUE(doc.contains("agentId")) << doc.dump();
    EXPECT_EQ(cast_call(devnet(), devnet().address("IdentityRegistry"), "tokenURI(uint256)(string)",
                        {doc["agentId"].get<std::string>()}),
              "\"ipfs://bafyagent\"");
    EXPECT_EQ(doc["owner"], devnet().dev_address(1).to_checksum_hex());
}

TEST_F(AgentCli, register_refuses_an_invalid_file_before_sending) {
    const std::string before =
        cast_call(devnet(), devnet().address("IdentityRegistry"), "nextAgentId()(uint256)");
    auto bad = nlohmann::json::parse(registration_file("bad"));
    bad["type"] = "https://example.com/not-8004";
    bad.erase("name");
    const auto file = temp_file("bad.json", bad.dump());
    const CommandResult r = run_cli(
        devnet(), {"agent", "register", file.string(), "--private-key", devnet().dev_key(0)});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("not a valid ERC-8004 registration file (2 errors)"), std::string::npos)
        << r.err;
    // The one line names every error, each by its JSON pointer.
    EXPECT_NE(r.err.find(" /type: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("; /name: "), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    // With --json the error document carries the whole report.
    const CommandResult j = run_cli(devnet(), {"agent", "register", file.string(), "--json",
                                               "--private-key", devnet().dev_key(0)});
    EXPECT_EQ(j.exit_code, 1);
    const auto doc = nlohmann::json::parse(j.err, nullptr, false);
    ASSERT_TRUE(doc.is_object()) << j.err;
    EXPECT_EQ(doc["error"]["errors"], 2) << j.err;
    ASSERT_EQ(doc["error"]["issues"].size(), 3u) << j.err;  // and the warning
    EXPECT_EQ(doc["error"]["issues"][0]["path"], "/type") << j.err;
    EXPECT_EQ(doc["error"]["issues"][1]["path"], "/name") << j.err;
    EXPECT_EQ(cast_call(devnet(), devnet().address("IdentityRegistry"), "nextAgentId()(uint256)"),
              before);
}

// ERC-8004 §Registration's register() mints with no agentURI; the CLI takes that only when asked
// (--no-uri), so a forgotten file never mints an agent nobody can resolve.
TEST_F(AgentCli, register_without_a_file_or_uri_is_refused_unless_no_uri) {
    const auto registry = devnet().address("IdentityRegistry");
    const std::string before = cast_call(devnet(), registry, "nextAgentId()(uint256)");
    const CommandResult r =
        run_cli(devnet(), {"agent", "register", "--private-key", devnet().dev_key(0)});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_TRUE(r.err.starts_with("error: register needs a registration FILE or --uri URI"))
        << r.err;
    EXPECT_NE(r.err.find("pass --no-uri"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(cast_call(devnet(), registry, "nextAgentId()(uint256)"), before);

    const auto doc = credence_json(
        devnet(), {"agent", "register", "--no-uri", "--private-key", devnet().dev_key(0)});
    const std::string id = doc.value("agentId", std::string());
    ASSERT_EQ(id, first_word(before)) << doc.dump();
    EXPECT_EQ(cast_call(devnet(), registry, "tokenURI(uint256)(string)", {id}), "\"\"");
    EXPECT_EQ(doc["next"], "credence agent set-uri " + id + " --file FILE");
}

// A file cannot name its own agentId before register mints it (ERC-8004 §Agent URI and Agent
// Registration File, registrations[]). register says the next step with the id it printed, and
// following it as written gives a file with no warning left.
TEST_F(AgentCli, register_names_the_set_uri_step_a_file_without_registrations_needs) {
    auto file_json = nlohmann::ordered_json::parse(registration_file("gamma"));
    const auto file = temp_file("gamma.json", file_json.dump(2));
    const auto doc = credence_json(
        devnet(), {"agent", "register", file.string(), "--private-key", devnet().dev_key(0)});
    const std::string id = doc.value("agentId", std::string());
    ASSERT_FALSE(id.empty()) << doc.dump();
    const std::string registry = "eip155:31337:" + identity();
    EXPECT_EQ(doc["next"],
              "add {\"agentId\": " + id + ", \"agentRegistry\": \"" + registry +
                  "\"} to the file's registrations, then run: credence agent set-uri " + id +
                  " --file " + file.string())
        << doc.dump();

    file_json["registrations"].push_back(
        {{"agentId", std::stoll(id)}, {"agentRegistry", registry}});
    const auto fixed = temp_file("gamma.json", file_json.dump(2));
    credence_json(devnet(), {"agent", "set-uri", id, "--file", fixed.string(), "--private-key",
                             devnet().dev_key(0)});
    const auto show = credence_json(devnet(), {"agent", "show", id});
    EXPECT_EQ(show["registration"]["validation"]["errors"], 0) << show.dump();
    EXPECT_EQ(show["registration"]["validation"]["warnings"], 0) << show.dump();
}

// Without --json, the show and write commands label each value with its --json name
// (docs/cli.md §Output), so a person can tell the owner from the wallet.
TEST_F(AgentCli, human_output_labels_every_field) {
    const auto file = temp_file("labels.json", registration_file("labels"));
    const CommandResult reg =
        run_cli(devnet(), {"agent", "register", file.string(), "--metadata", "category=search",
                           "--private-key", devnet().dev_key(0)});
    ASSERT_EQ(reg.exit_code, 0) << reg.err;
    const std::string id = labeled_value(reg.out, "agentId");
    EXPECT_EQ(labeled_value(reg.out, "owner"), devnet().dev_address(0).to_checksum_hex())
        << reg.out;
    EXPECT_TRUE(labeled_value(reg.out, "agentURI").starts_with("data:application/json;base64,"));
    EXPECT_TRUE(labeled_value(reg.out, "validation").starts_with("valid (0 errors")) << reg.out;
    EXPECT_EQ(labeled_value(reg.out, "txHash").size(), 66u) << reg.out;

    const CommandResult show = run_cli(devnet(), {"agent", "show", id, "--metadata", "category"});
    ASSERT_EQ(show.exit_code, 0) << show.err;
    EXPECT_EQ(labels(show.out),
              (std::vector<std::string>{"agentId", "owner", "agentURI", "agentWallet",
                                        "metadata.category", "registration", "file"}))
        << show.out;
    EXPECT_EQ(labeled_value(show.out, "agentId"), id);
    EXPECT_EQ(labeled_value(show.out, "owner"), devnet().dev_address(0).to_checksum_hex());
    EXPECT_EQ(labeled_value(show.out, "agentWallet"), devnet().dev_address(0).to_checksum_hex());
    EXPECT_EQ(labeled_value(show.out, "metadata.category"), hex_of("search"));
    EXPECT_TRUE(labeled_value(show.out, "registration").starts_with("valid (0 errors")) << show.out;
    // Values start in one column.
    std::set<size_t> columns;
    std::istringstream in(show.out);
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line.front() == ' ') continue;
        columns.insert(line.find_first_not_of(' ', line.find(' ')));
    }
    EXPECT_EQ(columns.size(), 1u) << show.out;

    // One value is printed bare, so `$(credence agent get-metadata ...)` needs no parsing.
    const CommandResult one = run_cli(devnet(), {"agent", "get-metadata", id, "category"});
    EXPECT_EQ(trim(one.out), hex_of("search"));
}

// Errors are one line, each layer adding its context once (docs/cli.md §Errors).
TEST_F(AgentCli, missing_key_is_said_once) {
    const CommandResult r = run_cli(devnet(), {"agent", "register", "--uri", "ipfs://bafyagent"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err,
              "error: no signing key: pass --private-key or --keystore, or set "
              "$CREDENCE_PRIVATE_KEY\n");
}

TEST_F(AgentCli, set_uri_set_metadata_and_get_metadata) {
    const std::string id = register_agent(0, "beta");
    ASSERT_FALSE(id.empty());
    const auto set = credence_json(devnet(), {"agent", "set-uri", id, "https://beta.example/a.json",
                                              "--private-key", devnet().dev_key(0)});
    EXPECT_EQ(set["agentURI"], "https://beta.example/a.json");
    EXPECT_EQ(set["txHash"].get<std::string>().size(), 66u);
    EXPECT_EQ(cast_call(devnet(), devnet().address("IdentityRegistry"), "tokenURI(uint256)(string)",
                        {id}),
              "\"https://beta.example/a.json\"");

    credence_json(devnet(), {"agent", "set-metadata", id, "model", "gpt-x", "--private-key",
                             devnet().dev_key(0)});
    EXPECT_EQ(cast_call(devnet(), devnet().address("IdentityRegistry"),
                        "getMetadata(uint256,string)(bytes)", {id, "model"}),
              hex_of("gpt-x"));
    credence_json(devnet(), {"agent", "set-metadata", id, "raw", "0xdeadbeef", "--hex",
                             "--private-key", devnet().dev_key(0)});
    EXPECT_EQ(cast_call(devnet(), devnet().address("IdentityRegistry"),
                        "getMetadata(uint256,string)(bytes)", {id, "raw"}),
              "0xdeadbeef");

    const CommandResult text = run_cli(devnet(), {"agent", "get-metadata", id, "model", "--text"});
    EXPECT_EQ(text.exit_code, 0) << text.err;
    EXPECT_EQ(trim(text.out), "gpt-x");
    const CommandResult hex = run_cli(devnet(), {"agent", "get-metadata", id, "raw"});
    EXPECT_EQ(trim(hex.out), "0xdeadbeef");
    // The reserved key reads the wallet: the owner's address right after registration.
    const auto wallet = credence_json(devnet(), {"agent", "get-metadata", id, "agentWallet"});
    EXPECT_EQ(wallet["value"], lower(devnet().dev_address(0).to_checksum_hex()));
}

// "wrong owner".
TEST_F(AgentCli, set_uri_by_non_owner_fails_with_not_authorized) {
    const std::string id = register_agent(0, "gamma");
    ASSERT_FALSE(id.empty());
    const CommandResult r = run_cli(devnet(), {"agent", "set-uri", id, "https://evil.example/",
                                               "--private-key", devnet().dev_key(1)});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err, "error: setAgentURI reverted: NotAuthorized(agentId=" + id +
                         ", caller=" + devnet().dev_address(1).to_checksum_hex() + ")\n");
    EXPECT_EQ(
        cast_call(devnet(), devnet().address("IdentityRegistry"), "tokenURI(uint256)(string)", {id})
            .find("evil"),
        std::string::npos);
}

TEST_F(AgentCli, set_wallet_with_an_eoa_key_then_unset) {
    const std::string id = register_agent(0, "delta");
    ASSERT_FALSE(id.empty());
    const auto doc =
        credence_json(devnet(), {"agent", "set-wallet", id, "--wallet-key", devnet().dev_key(1),
                                 "--private-key", devnet().dev_key(0)});
    EXPECT_EQ(doc["wallet"], devnet().dev_address(1).to_checksum_hex());
    EXPECT_EQ(cast_call(devnet(), devnet().address("IdentityRegistry"),
                        "getAgentWallet(uint256)(address)", {id}),
              devnet().dev_address(1).to_checksum_hex());

    credence_json(devnet(), {"agent", "unset-wallet", id, "--private-key", devnet().dev_key(0)});
    EXPECT_EQ(cast_call(devnet(), devnet().address("IdentityRegistry"),
                        "getAgentWallet(uint256)(address)", {id}),
              "0x0000000000000000000000000000000000000000");
}

// The signature made by cast's own EIP-712 signer is accepted: our digest is the registry's.
TEST_F(AgentCli, set_wallet_with_a_signature_made_by_cast) {
    const std::string id = register_agent(0, "epsilon");
    ASSERT_FALSE(id.empty());
    const std::string deadline = std::to_string(std::stoull(first_word(latest_timestamp())) + 200);
    const nlohmann::json typed{{"types",
                                {{"EIP712Domain",
                                  {{{"name", "name"}, {"type", "string"}},
                                   {{"name", "version"}, {"type", "string"}},
                                   {{"name", "chainId"}, {"type", "uint256"}},
                                   {{"name", "verifyingContract"}, {"type", "address"}}}},
                                 {"AgentWalletSet",
                                  {{{"name", "agentId"}, {"type", "uint256"}},
                                   {{"name", "newWallet"}, {"type", "address"}},
                                   {{"name", "owner"}, {"type", "address"}},
                                   {{"name", "deadline"}, {"type", "uint256"}}}}}},
                               {"primaryType", "AgentWalletSet"},
                               {"domain",
                                {{"name", "ERC8004IdentityRegistry"},
                                 {"version", "1"},
                                 {"chainId", devnet().chain_id()},
                                 {"verifyingContract", identity()}}},
                               {"message",
                                {{"agentId", id},
                                 {"newWallet", devnet().dev_address(2).to_checksum_hex()},
                                 {"owner", devnet().dev_address(0).to_checksum_hex()},
                                 {"deadline", deadline}}}};
    const CommandResult sig = run_command(cast_binary(), {"wallet", "sign", "--data", typed.dump(),
                                                          "--private-key", devnet().dev_key(2)});
    ASSERT_EQ(sig.exit_code, 0) << sig.err;

    const auto doc = credence_json(
        devnet(),
        {"agent", "set-wallet", id, devnet().dev_address(2).to_checksum_hex(), "--signature",
         trim(sig.out), "--deadline", deadline, "--private-key", devnet().dev_key(0)});
    EXPECT_EQ(doc["signature"], trim(sig.out));
    EXPECT_EQ(cast_call(devnet(), devnet().address("IdentityRegistry"),
                        "getAgentWallet(uint256)(address)", {id}),
              devnet().dev_address(2).to_checksum_hex());
}

// ERC-8004: contract wallets prove control with ERC-1271.
TEST_F(AgentCli, set_wallet_with_an_erc1271_wallet) {
    const std::string id = register_agent(0, "zeta");
    ASSERT_FALSE(id.empty());
    const std::string code =
        trim(read_file(source_dir() / "contracts/bytecode/ERC1271WalletMock.hex"));
    ASSERT_FALSE(code.empty());
    const std::string deployed =
        cast(devnet(), {"send", "--json", "--private-key", devnet().dev_key(3), "--create",
                        code.starts_with("0x") ? code : "0x" + code, "constructor(address)",
                        devnet().dev_address(2).to_checksum_hex()});
    const auto receipt = nlohmann::json::parse(deployed, nullptr, false);
    ASSERT_TRUE(receipt.contains("contractAddress")) << deployed;
    const std::string wallet = receipt["contractAddress"];

    const auto doc =
        credence_json(devnet(), {"agent", "set-wallet", id, wallet, "--wallet-key",
                                 devnet().dev_key(2), "--private-key", devnet().dev_key(0)});
    EXPECT_EQ(lower(doc.value("wallet", std::string())), lower(wallet));
    EXPECT_EQ(lower(cast_call(devnet(), devnet().address("IdentityRegistry"),
                              "getAgentWallet(uint256)(address)", {id})),
              lower(wallet));

    // The same wallet with a key that is not its signer: the ERC-1271 check says no.
    const CommandResult bad =
        run_cli(devnet(), {"agent", "set-wallet", id, wallet, "--wallet-key", devnet().dev_key(1),
                           "--private-key", devnet().dev_key(0)});
    EXPECT_EQ(bad.exit_code, 1);
    EXPECT_EQ(bad.err, "error: setAgentWallet reverted: InvalidWalletSignature()\n");
}

// "an expired wallet signature".
TEST_F(AgentCli, set_wallet_with_an_expired_deadline_fails) {
    const std::string id = register_agent(0, "eta");
    ASSERT_FALSE(id.empty());
    const std::string deadline = std::to_string(std::stoull(first_word(latest_timestamp())) - 10);
    const CommandResult r =
        run_cli(devnet(), {"agent", "set-wallet", id, "--wallet-key", devnet().dev_key(1),
                           "--deadline", deadline, "--private-key", devnet().dev_key(0)});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err,
              "error: setAgentWallet reverted: DeadlineExpired(deadline=" + deadline + ")\n");
    EXPECT_EQ(cast_call(devnet(), devnet().address("IdentityRegistry"),
                        "getAgentWallet(uint256)(address)", {id}),
              devnet().dev_address(0).to_checksum_hex());
}

// "a wallet signature from the wrong key".
TEST_F(AgentCli, set_wallet_signed_by_the_wrong_key_fails) {
    const std::string id = register_agent(0, "theta");
    ASSERT_FALSE(id.empty());
    // The wallet is account 1, but account 2 signs.
    const CommandResult r = run_cli(
        devnet(), {"agent", "set-wallet", id, devnet().dev_address(1).to_checksum_hex(),
                   "--wallet-key", devnet().dev_key(2), "--private-key", devnet().dev_key(0)});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err, "error: setAgentWallet reverted: InvalidWalletSignature()\n");
}

TEST_F(AgentCli, transfer_moves_the_agent_and_clears_the_wallet) {
    const std::string id = register_agent(0, "iota");
    ASSERT_FALSE(id.empty());
    const auto doc =
        credence_json(devnet(), {"agent", "transfer", id, devnet().dev_address(1).to_checksum_hex(),
                                 "--private-key", devnet().dev_key(0)});
    EXPECT_EQ(doc["from"], devnet().dev_address(0).to_checksum_hex());
    EXPECT_EQ(cast_call(devnet(), devnet().address("IdentityRegistry"), "ownerOf(uint256)(address)",
                        {id}),
              devnet().dev_address(1).to_checksum_hex());
    // ERC-8004: the wallet is cleared on transfer.
    EXPECT_EQ(cast_call(devnet(), devnet().address("IdentityRegistry"),
                        "getAgentWallet(uint256)(address)", {id}),
              "0x0000000000000000000000000000000000000000");
    // The old owner can no longer act on it.
    const CommandResult r =
        run_cli(devnet(), {"agent", "transfer", id, devnet().dev_address(2).to_checksum_hex(),
                           "--private-key", devnet().dev_key(0)});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("ERC721InsufficientApproval"), std::string::npos) << r.err;
}

TEST_F(AgentCli, show_reports_chain_state_and_the_decoded_registration_file) {
    const std::string id = register_agent(0, "kappa", {"--metadata", "category=search"});
    ASSERT_FALSE(id.empty());
    const auto doc = credence_json(devnet(), {"agent", "show", id, "--metadata", "category"});
    EXPECT_EQ(doc["owner"], cast_call(devnet(), devnet().address("IdentityRegistry"),
                                      "ownerOf(uint256)(address)", {id}));
    EXPECT_EQ("\"" + doc["agentURI"].get<std::string>() + "\"",
              cast_call(devnet(), devnet().address("IdentityRegistry"), "tokenURI(uint256)(string)",
                        {id}));
    EXPECT_EQ(doc["agentWallet"], devnet().dev_address(0).to_checksum_hex());
    EXPECT_EQ(doc["metadata"]["category"]["text"], "search");
    EXPECT_EQ(doc["metadata"]["category"]["value"], hex_of("search"));
    const auto& reg = doc["registration"];
    EXPECT_EQ(reg["file"]["name"], "kappa");
    EXPECT_TRUE(reg["validation"]["ok"].get<bool>());
    // The test file lists no registrations: a SHOULD, reported as a warning.
    EXPECT_GE(reg["validation"]["warnings"].get<int>(), 1);
    EXPECT_FALSE(reg["matchesAgent"].get<bool>());

    // A file naming this very agent matches it (ERC-8004 §Endpoint Domain Verification).
    auto file = nlohmann::ordered_json::parse(registration_file("kappa"));
    file["registrations"] = {
        {{"agentId", std::stoull(id)},
         {"agentRegistry", "eip155:" + std::to_string(devnet().chain_id()) + ":" + identity()}}};
    const auto path = temp_file("kappa2.json", file.dump());
    credence_json(devnet(), {"agent", "set-uri", id, "--file", path.string(), "--private-key",
                             devnet().dev_key(0)});
    const auto again = credence_json(devnet(), {"agent", "show", id});
    EXPECT_TRUE(again["registration"]["matchesAgent"].get<bool>()) << again.dump();
    EXPECT_EQ(again["registration"]["validation"]["warnings"], 0);
}

TEST_F(AgentCli, show_of_a_missing_agent_is_one_line) {
    const CommandResult r = run_cli(devnet(), {"agent", "show", "424242"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err, "error: ownerOf reverted: ERC721NonexistentToken(tokenId=424242)\n");
}

}  // namespace
