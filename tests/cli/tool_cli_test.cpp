// End-to-end tests of `credence tool`: the real binary against a real devnet (anvil with every
// Credence contract), checked against the chain with the real `cast`, never only against values
// the CLI computed itself. Offline tests run the ERC-8257 manifest vectors through `tool hash` and
// the manifest rules through `tool check` / `tool register`.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/erc8004_cli_helpers.hpp"
#include "cli/labeled_output.hpp"
#include "support/devnet.hpp"
#include "support/scratch.hpp"
#include "support/vectors.hpp"

namespace {

using credence::testing::run_cast;
using credence::testing::trimmed;

using credence::testing::CommandResult;
using credence::testing::labeled_value;
using credence::testing::run_command;

using credence::testing::cast_binary;
using credence::testing::erc8004::lower;

CommandResult run_tool_cli(const std::vector<std::string>& args,
                           const std::map<std::string, std::string>& env = {}) {
    return run_command(CREDENCE_BIN, args, env);
}

/// A file in a per-test temporary directory.
std::string write_file(const std::string& name, const std::string& content) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    return credence::testing::write_scratch_file(std::string("tool_") + info->name() + "/" + name,
                                                 content)
        .string();
}

/// The ERC-8257 §2 free-tool example with the given creator (lowercase hex).
nlohmann::json example_manifest(const std::string& creator,
                                const std::string& description = "Returns estimated floor price.") {
    return {{"type", "https://ercs.ethereum.org/ERCS/erc-8257#tool-manifest-v1"},
            {"name", "nft-price-oracle"},
            {"description", description},
            {"endpoint", "https://tools.example.com/nft-price-oracle"},
            {"inputs",
             {{"type", "object"},
              {"properties",
               {{"collection", {{"type", "string"}}}, {"chainId", {{"type", "integer"}}}}},
              {"required", {"collection", "chainId"}}}},
            {"outputs",
             {{"type", "object"}, {"properties", {{"floorPriceEth", {{"type", "string"}}}}}}},
            {"version", "1.0.0"},
            {"tags", {"nft", "pricing", "oracle"}},
            {"creatorAddress", creator}};
}

/// keccak256 of the manifest's JCS form, computed by cast. For ASCII-only manifests without
/// numbers, nlohmann's compact dump (keys sorted bytewise) is exactly RFC 8785's output.
std::string cast_keccak_of_jcs(const nlohmann::json& manifest) {
    const CommandResult r = run_cast({"keccak", manifest.dump()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return trimmed(r.out);
}

nlohmann::json parse_json_out(const CommandResult& r) {
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out, nullptr, false);
}

std::string vectors_file(const std::string& name, const std::string& content) {
    return write_file(name, content);
}

}  // namespace

// ─────────────────────────── Offline: manifest bytes and fields ───────────────────────────

// ERC-8257 §Test Cases, NFC vs NFD Divergence: the NFC manifest hashes to the published keccak,
// served compact (the JCS bytes) or pretty-printed (JCS removes the whitespace).
TEST(cli_tool, hash_matches_erc8257_nfc_vector) {
    const auto v = credence::testing::read_vector_json("erc8257/manifest-vectors.json");
    const auto& nfc = v["erc_NFC"];
    for (const std::string& text : {nfc["jcs"].get<std::string>(), nfc["manifest"].dump(2)}) {
        const CommandResult r = run_tool_cli({"tool", "hash", vectors_file("nfc.json", text)});
        ASSERT_EQ(r.exit_code, 0) << r.err;
        EXPECT_EQ(trimmed(r.out), nfc["keccak"].get<std::string>());
    }
    const CommandResult j = run_tool_cli(
        {"tool", "hash", "--json", vectors_file("nfc.json", nfc["jcs"].get<std::string>())});
    const auto doc = parse_json_out(j);
    EXPECT_EQ(doc["jcs"], nfc["jcs"]);
    EXPECT_EQ(doc["length"], nfc["length"]);
}

// ERC-8257 §Canonical Manifest Bytes: consumers MUST reject non-NFC strings (the NFD vector).
TEST(cli_tool, hash_rejects_erc8257_nfd_vector) {
    const auto v = credence::testing::read_vector_json("erc8257/manifest-vectors.json");
    const CommandResult r = run_tool_cli(
        {"tool", "hash", vectors_file("nfd.json", v["erc_NFD"]["jcs"].get<std::string>())});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_TRUE(r.out.empty());
    EXPECT_NE(r.err.find("not_nfc"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

// ERC-8257 §Test Cases, BOM vs No-BOM: without the BOM the published hash; with it, rejected.
TEST(cli_tool, hash_rejects_bom_and_matches_without) {
    const auto v = credence::testing::read_vector_json("erc8257/manifest-vectors.json");
    const auto& bom = v["erc_BOM"];
    const std::string jcs = bom["jcs"].get<std::string>();
    const CommandResult ok = run_tool_cli({"tool", "hash", vectors_file("nobom.json", jcs)});
    ASSERT_EQ(ok.exit_code, 0) << ok.err;
    EXPECT_EQ(trimmed(ok.out), bom["keccak"].get<std::string>());
    const CommandResult bad =
        run_tool_cli({"tool", "hash", vectors_file("bom.json", "\xEF\xBB\xBF" + jcs)});
    EXPECT_EQ(bad.exit_code, 1);
    EXPECT_NE(bad.err.find("bom"), std::string::npos) << bad.err;
}

TEST(cli_tool, check_accepts_the_spec_example_and_names_the_creator) {
    const std::string creator = "0xabcdefabcdef1234567890abcdefabcdef123456";
    const auto m = example_manifest(creator);
    const CommandResult r =
        run_tool_cli({"tool", "check", "--json", write_file("m.json", m.dump(2))});
    const auto doc = parse_json_out(r);
    EXPECT_EQ(doc["creator"], creator);
    EXPECT_EQ(doc["manifestHash"], cast_keccak_of_jcs(m));
}

// Each field rule of ERC-8257 §2-§4 and §7, one broken manifest each.
TEST(cli_tool, check_rejects_field_violations_with_the_pointer) {
    const std::string creator = "0xabcdefabcdef1234567890abcdefabcdef123456";
    struct Case {
        const char* what;
        std::function<void(nlohmann::json&)> mutate;
        const char* expect;
    };
    const std::vector<Case> cases = {
        {"missing name", [](auto& m) { m.erase("name"); }, "/name: required field missing"},
        {"http endpoint", [](auto& m) { m["endpoint"] = "http://tools.example.com/x"; },
         "/endpoint: must be an https:// URL"},
        {"unknown type", [](auto& m) { m["type"] = "https://example.com/v0"; }, "/type"},
        {"zero creator",
         [](auto& m) { m["creatorAddress"] = "0x0000000000000000000000000000000000000000"; },
         "/creatorAddress: must not be the zero address"},
        {"short creator", [](auto& m) { m["creatorAddress"] = "0x1234"; }, "/creatorAddress"},
        {"bad tag", [](auto& m) { m["tags"] = {"NFT"}; }, "/tags/0"},
        {"duplicate tag", [](auto& m) { m["tags"] = {"nft", "nft"}; }, "/tags/1: duplicate tag"},
        {"control in name", [](auto& m) { m["name"] = "a\tb"; }, "/name: contains a control"},
        {"empty pricing", [](auto& m) { m["pricing"] = nlohmann::json::array(); }, "/pricing"},
        {"leading-zero amount",
         [](auto& m) {
             m["pricing"] = {{{"amount", "020"},
                              {"asset", "eip155:1/slip44:60"},
                              {"recipient", "eip155:1:0xabcdef0123456789abcdef0123456789abcdef01"},
                              {"protocol", "x402"}}};
         },
         "/pricing/0/amount"},
        {"chain mismatch",
         [](auto& m) {
             m["pricing"] = {
                 {{"amount", "1"},
                  {"asset", "eip155:1/slip44:60"},
                  {"recipient", "eip155:8453:0xabcdef0123456789abcdef0123456789abcdef01"},
                  {"protocol", "x402"}}};
         },
         "/pricing/0: asset chain eip155:1 differs"},
        {"empty requirements",
         [](auto& m) {
             m["access"] = {{"logic", "OR"}, {"requirements", nlohmann::json::array()}};
         },
         "/access/requirements: must be a non-empty array"},
        {"inputs not an object", [](auto& m) { m["inputs"] = "x"; }, "/inputs"},
    };
    for (const auto& c : cases) {
        auto m = example_manifest(creator);
        c.mutate(m);
        const CommandResult r = run_tool_cli({"tool", "check", write_file("bad.json", m.dump(2))});
        EXPECT_EQ(r.exit_code, 1) << c.what;
        EXPECT_NE(r.err.find(c.expect), std::string::npos) << c.what << ": " << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << c.what << ": " << r.err;
    }
}

// §Canonical Manifest Bytes, hex-field casing: rejected, not lowercased.
TEST(cli_tool, check_rejects_uppercase_hex_creator) {
    const auto m = example_manifest("0xABCDEFabcdef1234567890abcdefabcdef123456");
    const std::string file = write_file("upper.json", m.dump(2));
    const CommandResult r = run_tool_cli({"tool", "check", file});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("not a valid ERC-8257 tool manifest (1 error): uppercase_hex: "),
              std::string::npos)
        << r.err;
    // With --json the error carries the report, as the field rules' errors do.
    const auto j = run_tool_cli({"tool", "check", file, "--json"});
    EXPECT_EQ(j.exit_code, 1);
    const auto doc = nlohmann::json::parse(j.err, nullptr, false);
    ASSERT_TRUE(doc.is_object()) << j.err;
    EXPECT_EQ(doc["error"]["issues"][0]["reason"], "uppercase_hex") << j.err;
    // Not JSON is worded as agent check and feedback check word it, with line and column.
    const auto nj = run_tool_cli({"tool", "check", write_file("nj-tool.json", "{\n  \"a\" 1\n}")});
    EXPECT_EQ(nj.exit_code, 1);
    EXPECT_NE(nj.err.find("not JSON: unexpected_char: expected ':' at line 2, column 7"),
              std::string::npos)
        << nj.err;
}

// ─────────────────────────── Devnet ───────────────────────────

class ToolCli : public credence::testing::DevnetFixture {
protected:
    std::string registry() { return devnet().address("ToolRegistry").to_checksum_hex(); }
    std::string key(size_t i) { return devnet().dev_key(i); }
    std::string addr(size_t i) { return devnet().dev_address(i).to_checksum_hex(); }
    std::string addr_lower(size_t i) { return lower(addr(i)); }

    CommandResult run(const std::vector<std::string>& args) {
        return run_tool_cli(args, devnet().env());
    }

    /// getToolConfig(toolId) through cast: "(creator, uri, hash, predicate)" on one line.
    CommandResult cast_config(const std::string& tool_id) {
        return run_cast({"call", registry(),
                         "getToolConfig(uint256)((address,string,bytes32,address))", tool_id,
                         "--rpc-url", devnet().rpc_url()});
    }
    std::string cast_tool_count() {
        const CommandResult r =
            run_cast({"call", registry(), "toolCount()(uint256)", "--rpc-url", devnet().rpc_url()});
        EXPECT_EQ(r.exit_code, 0) << r.err;
        return trimmed(r.out);
    }
};

TEST_F(ToolCli, register_show_update_access_deregister) {
    const auto manifest = example_manifest(addr_lower(0));
    const std::string file = write_file("tool.json", manifest.dump(2));
    const std::string expected_hash = cast_keccak_of_jcs(manifest);

    // register: toolId 1, the hash of the JCS bytes, creator = signer.
    const CommandResult registered =
        run({"tool", "register", file, "--private-key", key(0), "--json"});
    // Without --uri the manifest goes on chain as a data: URI, which §7 never verifies: said.
    EXPECT_NE(registered.err.find("stored as a data: URI, which ERC-8257 §7 never verifies"),
              std::string::npos)
        << registered.err;
    const auto reg = parse_json_out(registered);
    EXPECT_EQ(reg["toolId"], 1);
    EXPECT_EQ(reg["manifestHash"], expected_hash);
    const std::string uri = reg["metadataURI"].get<std::string>();
    EXPECT_TRUE(uri.starts_with("data:application/json;base64,")) << uri;
    CommandResult chain_cfg = cast_config("1");
    ASSERT_EQ(chain_cfg.exit_code, 0) << chain_cfg.err;
    EXPECT_NE(chain_cfg.out.find(addr(0)), std::string::npos) << chain_cfg.out;
    EXPECT_NE(chain_cfg.out.find(expected_hash), std::string::npos) << chain_cfg.out;
    EXPECT_NE(chain_cfg.out.find(uri), std::string::npos) << chain_cfg.out;
    EXPECT_EQ(cast_tool_count(), "1");

    // show: the onchain config, and what `verify tool` would say of a data: URI (§7 check 1
    // fails), with its bytes checked against checks 3 and 4.
    const auto show = parse_json_out(run({"tool", "show", "1", "--json"}));
    EXPECT_EQ(show["creator"], addr(0));
    EXPECT_EQ(show["manifestHash"], expected_hash);
    EXPECT_EQ(show["metadataURI"], uri);
    EXPECT_EQ(show["accessPredicate"], "0x0000000000000000000000000000000000000000");
    const std::string data_uri_status =
        "unverified: not_https (a data: URI; its manifest matches manifestHash and the creator)";
    EXPECT_EQ(show["manifest"], data_uri_status);
    // Without --json each value is labeled with its --json name (docs/cli.md §Output).
    const CommandResult plain = run({"tool", "show", "1"});
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    EXPECT_EQ(labeled_value(plain.out, "toolId"), "1") << plain.out;
    EXPECT_EQ(labeled_value(plain.out, "creator"), addr(0)) << plain.out;
    EXPECT_EQ(labeled_value(plain.out, "manifest"), data_uri_status) << plain.out;

    // access: open access is granted for anyone.
    CommandResult acc = run({"tool", "access", "1", addr(3)});
    ASSERT_EQ(acc.exit_code, 0) << acc.err;
    EXPECT_EQ(trimmed(acc.out), "granted");

    // update: a new manifest; the chain holds its hash.
    const auto manifest2 = example_manifest(addr_lower(0), "Floor prices, now with history.");
    const std::string expected_hash2 = cast_keccak_of_jcs(manifest2);
    const auto upd =
        parse_json_out(run({"tool", "update", "1", write_file("tool2.json", manifest2.dump(2)),
                            "--private-key", key(0), "--json"}));
    EXPECT_EQ(upd["manifestHash"], expected_hash2);
    chain_cfg = cast_config("1");
    EXPECT_NE(chain_cfg.out.find(expected_hash2), std::string::npos) << chain_cfg.out;

    // set-predicate: the deployer-owned AllowlistPredicate denies until the account is allowed.
    const std::string allowlist = devnet().address("AllowlistPredicate").to_checksum_hex();
    const auto sp = parse_json_out(
        run({"tool", "set-predicate", "1", allowlist, "--private-key", key(0), "--json"}));
    EXPECT_EQ(sp["accessPredicate"], allowlist);
    chain_cfg = cast_config("1");
    EXPECT_NE(chain_cfg.out.find(allowlist), std::string::npos) << chain_cfg.out;
    acc = run({"tool", "access", "1", addr(3)});
    ASSERT_EQ(acc.exit_code, 0) << acc.err;
    EXPECT_EQ(trimmed(acc.out), "denied");
    const CommandResult allow =
        run_cast({"send", allowlist, "setAllowed(address[],bool)", "[" + addr(3) + "]", "true",
                  "--private-key", key(0), "--rpc-url", devnet().rpc_url()});
    ASSERT_EQ(allow.exit_code, 0) << allow.err;
    const auto granted = parse_json_out(run({"tool", "access", "1", addr(3), "--json"}));
    EXPECT_EQ(granted["access"], "granted");
    EXPECT_EQ(granted["ok"], true);
    EXPECT_EQ(granted["granted"], true);
    // Cross-check the verdict with the registry's own hasAccess through cast.
    const CommandResult has =
        run_cast({"call", registry(), "hasAccess(uint256,address,bytes)(bool)", "1", addr(3), "0x",
                  "--rpc-url", devnet().rpc_url()});
    EXPECT_EQ(trimmed(has.out), "true") << has.err;

    // A zero-code predicate is accepted at registration but is a malfunction when asked (§Zero-Code
    // Access Predicates): tryHasAccess says (false, false).
    ASSERT_EQ(run({"tool", "set-predicate", "1", addr(7), "--private-key", key(0)}).exit_code, 0);
    const auto broken =
        parse_json_out(run({"tool", "access", "1", addr(3), "--json", "--data", "0x01"}));
    EXPECT_EQ(broken["access"], "predicate broken");
    EXPECT_EQ(broken["ok"], false);

    // deregister: getToolConfig now reverts on chain; the CLI explains it in one line.
    const CommandResult dereg = run({"tool", "deregister", "1", "--private-key", key(0)});
    ASSERT_EQ(dereg.exit_code, 0) << dereg.err;
    EXPECT_NE(cast_config("1").exit_code, 0);
    EXPECT_EQ(cast_tool_count(), "1");  // ids are never reused
}

// A deregistered tool. Every later action fails with ToolIsDeregistered.
TEST_F(ToolCli, deregistered_tool_update_and_access_fail) {
    const auto manifest = example_manifest(addr_lower(0));
    const std::string file = write_file("tool.json", manifest.dump(2));
    ASSERT_EQ(run({"tool", "register", file, "--private-key", key(0)}).exit_code, 0);
    ASSERT_EQ(run({"tool", "deregister", "1", "--private-key", key(0)}).exit_code, 0);

    const CommandResult upd = run({"tool", "update", "1", file, "--private-key", key(0)});
    EXPECT_EQ(upd.exit_code, 1);
    EXPECT_NE(upd.err.find("ToolIsDeregistered(toolId=1)"), std::string::npos) << upd.err;
    EXPECT_EQ(std::count(upd.err.begin(), upd.err.end(), '\n'), 1) << upd.err;

    const CommandResult acc = run({"tool", "access", "1", addr(3)});
    EXPECT_EQ(acc.exit_code, 1);
    EXPECT_TRUE(acc.out.empty()) << acc.out;
    EXPECT_NE(acc.err.find("ToolIsDeregistered(toolId=1)"), std::string::npos) << acc.err;

    for (const auto& args : std::vector<std::vector<std::string>>{
             {"tool", "deregister", "1", "--private-key", key(0)},
             {"tool", "set-predicate", "1", addr(5), "--private-key", key(0)},
             {"tool", "show", "1"}}) {
        const CommandResult r = run(args);
        EXPECT_EQ(r.exit_code, 1) << args[1];
        EXPECT_NE(r.err.find("ToolIsDeregistered(toolId=1)"), std::string::npos) << r.err;
    }
    // A tool that never existed is a different state (ERC-8257: consumers MUST distinguish them).
    const CommandResult missing = run({"tool", "show", "9"});
    EXPECT_EQ(missing.exit_code, 1);
    EXPECT_NE(missing.err.find("ToolNotFound(toolId=9)"), std::string::npos) << missing.err;
}

// A non-creator tool update, with the revert decoded into one line.
TEST_F(ToolCli, non_creator_update_set_predicate_and_deregister_revert) {
    const auto manifest = example_manifest(addr_lower(0));
    const std::string file = write_file("tool.json", manifest.dump(2));
    ASSERT_EQ(run({"tool", "register", file, "--private-key", key(0)}).exit_code, 0);
    const std::string expected = "NotToolCreator(toolId=1, caller=" + addr(1) + ")";

    const CommandResult upd = run({"tool", "update", "1", file, "--private-key", key(1)});
    EXPECT_EQ(upd.exit_code, 1);
    EXPECT_NE(upd.err.find("updateToolMetadata reverted: " + expected), std::string::npos)
        << upd.err;
    EXPECT_EQ(std::count(upd.err.begin(), upd.err.end(), '\n'), 1) << upd.err;

    const CommandResult sp = run({"tool", "set-predicate", "1", addr(5), "--private-key", key(1)});
    EXPECT_EQ(sp.exit_code, 1);
    EXPECT_NE(sp.err.find(expected), std::string::npos) << sp.err;
    const CommandResult dr = run({"tool", "deregister", "1", "--private-key", key(1)});
    EXPECT_EQ(dr.exit_code, 1);
    EXPECT_NE(dr.err.find(expected), std::string::npos) << dr.err;

    // Nothing changed on chain: still the creator's tool with the original hash.
    const CommandResult cfg = cast_config("1");
    ASSERT_EQ(cfg.exit_code, 0) << cfg.err;
    EXPECT_NE(cfg.out.find(addr(0)), std::string::npos);
    EXPECT_NE(cfg.out.find(cast_keccak_of_jcs(manifest)), std::string::npos);
}

// docs/cli.md / ERC-8257 §7 Registration-Time Enforcement: creatorAddress != signer is refused
// before anything is sent; invalid manifests likewise never reach the chain.
TEST_F(ToolCli, register_refuses_creator_mismatch_and_invalid_manifests) {
    const auto other = example_manifest(addr_lower(0));
    const CommandResult mismatch =
        run({"tool", "register", write_file("other.json", other.dump(2)), "--private-key", key(1)});
    EXPECT_EQ(mismatch.exit_code, 1);
    EXPECT_NE(mismatch.err.find("creatorAddress " + addr_lower(0) + " is not the signer " +
                                addr_lower(1)),
              std::string::npos)
        << mismatch.err;
    EXPECT_EQ(std::count(mismatch.err.begin(), mismatch.err.end(), '\n'), 1) << mismatch.err;

    // Non-NFC (the name decomposed: "e" + U+0301), a BOM, uppercase hex.
    auto nfd = example_manifest(addr_lower(0));
    nfd["name"] = "cafe\xCC\x81-oracle";
    auto upper = example_manifest("0x" + addr(0).substr(2));  // EIP-55 mixed case
    const std::vector<std::pair<std::string, std::string>> bad = {
        {nfd.dump(2), "not_nfc"},
        {"\xEF\xBB\xBF" + example_manifest(addr_lower(0)).dump(2), "bom"},
        {upper.dump(2), "uppercase_hex"},
    };
    for (const auto& [text, reason] : bad) {
        const CommandResult r =
            run({"tool", "register", write_file("bad.json", text), "--private-key", key(0)});
        EXPECT_EQ(r.exit_code, 1) << reason;
        EXPECT_NE(r.err.find(reason), std::string::npos) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
    EXPECT_EQ(cast_tool_count(), "0");
}

// --dry-run signs the registration without sending it: the chain stays empty.
TEST_F(ToolCli, register_dry_run_sends_nothing) {
    const auto manifest = example_manifest(addr_lower(2));
    const auto r =
        parse_json_out(run({"tool", "register", write_file("tool.json", manifest.dump(2)),
                            "--private-key", key(2), "--dry-run", "--json"}));
    EXPECT_TRUE(r["rawTransaction"].get<std::string>().starts_with("0x02")) << r.dump();
    EXPECT_FALSE(r.contains("toolId"));
    EXPECT_EQ(cast_tool_count(), "0");
}

// ERC-8257 §Metadata URI Length Cap: the default data: URI must fit 2,048 bytes; a larger
// manifest is refused before any node is contacted (the RPC URL here has no server behind it).
TEST(cli_tool, register_refuses_a_data_uri_over_the_cap_before_sending) {
    auto m = example_manifest("0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266", std::string(500, 'x'));
    for (int i = 0; i < 20; ++i)
        m["outputs"]["properties"]["field" + std::to_string(i)] = {{"type", "string"},
                                                                   {"description", "a field"}};
    const CommandResult r = run_tool_cli(
        {"tool", "register", write_file("big.json", m.dump(2)), "--rpc", "http://127.0.0.1:1",
         "--private-key", "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("over the registry's 2048-byte cap; publish it and pass --uri"),
              std::string::npos)
        << r.err;
}
