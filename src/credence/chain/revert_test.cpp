// Revert decoding: Error(string), every Panic code Solidity defines, custom errors from a JSON
// ABI, empty and unknown data, and truncated or hostile data (never a crash).
#include <credence/chain/revert.hpp>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <credence/chain/bindings/all.hpp>
#include <credence/core/abi.hpp>
#include <credence/core/abi_json.hpp>
#include <credence/core/address.hpp>

#include "support/anvil.hpp"
#include "support/process.hpp"

namespace {

using credence::chain::decode_revert;
using credence::chain::describe_revert;
using credence::chain::RevertKind;
using credence::core::AbiType;
using credence::core::AbiValue;
using credence::core::Bytes;
using credence::core::Uint256;

Bytes error_string(const std::string& reason) {
    const AbiType types[] = {AbiType::make_string()};
    const AbiValue values[] = {AbiValue(reason)};
    auto data =
        credence::core::encode_call(credence::core::selector_of("Error(string)"), types, values);
    EXPECT_TRUE(data);
    return *data;
}

Bytes panic(uint64_t code) {
    const AbiType types[] = {AbiType::make_uint(256)};
    const AbiValue values[] = {AbiValue(Uint256(code))};
    auto data =
        credence::core::encode_call(credence::core::selector_of("Panic(uint256)"), types, values);
    EXPECT_TRUE(data);
    return *data;
}

// The selectors are the ones Solidity uses (keccak256 of the signatures).
TEST(chain_revert, builtin_selectors_match_their_signatures) {
    EXPECT_EQ(credence::chain::kErrorStringSelector, credence::core::selector_of("Error(string)"));
    EXPECT_EQ(credence::chain::kPanicSelector, credence::core::selector_of("Panic(uint256)"));
}

TEST(chain_revert, error_string_prints_the_reason) {
    const auto d = decode_revert(error_string("nope"));
    EXPECT_EQ(d.kind, RevertKind::error_string);
    EXPECT_EQ(d.text, "reason: \"nope\"");
    EXPECT_EQ(describe_revert(error_string("ERC721: caller is not token owner")),
              "reason: \"ERC721: caller is not token owner\"");
    EXPECT_EQ(describe_revert(error_string("")), "reason: \"\"");
}

TEST(chain_revert, reason_is_one_line_with_control_bytes_escaped) {
    EXPECT_EQ(describe_revert(error_string("a\nb\"c\\\x1b[31m")), R"(reason: "a\nb\"c\\\x1b[31m")");
    // UTF-8 passes through; invalid bytes are escaped.
    EXPECT_EQ(describe_revert(error_string("caf\xc3\xa9 \xff")), "reason: \"caf\xc3\xa9 \\xff\"");
}

// Solidity docs, "Panic via assert and Error via require": the codes and their meaning.
TEST(chain_revert, panic_codes_have_their_meaning) {
    const std::pair<uint64_t, const char*> cases[] = {
        {0x01, "panic 0x1: assertion failed"},
        {0x11, "panic 0x11: arithmetic overflow or underflow"},
        {0x12, "panic 0x12: division or modulo by zero"},
        {0x21, "panic 0x21: invalid enum value"},
        {0x22, "panic 0x22: incorrectly encoded storage byte array"},
        {0x31, "panic 0x31: pop() on an empty array"},
        {0x32, "panic 0x32: array index out of bounds"},
        {0x41, "panic 0x41: out of memory (too much memory allocated or array too large)"},
        {0x51, "panic 0x51: call to a zero-initialized internal function"},
        {0x99, "panic 0x99: unknown panic code"},
    };
    for (const auto& [code, text] : cases) {
        const auto d = decode_revert(panic(code));
        EXPECT_EQ(d.kind, RevertKind::panic) << code;
        EXPECT_EQ(d.text, text);
    }
}

constexpr const char* kToolRegistryAbi = R"([
  {"type":"function","name":"updateTool","inputs":[{"name":"toolId","type":"uint256"}],
   "outputs":[],"stateMutability":"nonpayable"},
  {"type":"error","name":"NotToolCreator",
   "inputs":[{"name":"toolId","type":"uint256","internalType":"uint256"},
             {"name":"caller","type":"address","internalType":"address"}]},
  {"type":"error","name":"ToolDeregistered","inputs":[{"name":"toolId","type":"uint256"}]},
  {"type":"error","name":"BadManifest","inputs":[{"name":"why","type":"string"},
                                                 {"name":"hash","type":"bytes32"}]},
  {"type":"error","name":"Paused","inputs":[]},
  {"type":"error","name":"Anon","inputs":[{"name":"","type":"int8"},
                                          {"name":"","type":"bool"}]}
])";

std::vector<credence::core::AbiDocument> tool_abi() {
    auto doc = credence::core::parse_json_abi(kToolRegistryAbi);
    EXPECT_TRUE(doc) << doc.error().detail;
    std::vector<credence::core::AbiDocument> docs;
    docs.push_back(std::move(*doc));
    return docs;
}

Bytes custom(const std::string& signature, std::vector<AbiType> types,
             std::vector<AbiValue> values) {
    auto data = credence::core::encode_call(credence::core::selector_of(signature), types, values);
    EXPECT_TRUE(data);
    return *data;
}

TEST(chain_revert, custom_error_from_json_abi_names_its_params) {
    const auto abis = tool_abi();
    auto caller = credence::core::Address::from_hex("0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266");
    ASSERT_TRUE(caller);
    const Bytes data = custom("NotToolCreator(uint256,address)",
                              {AbiType::make_uint(256), AbiType::make_address()},
                              {AbiValue(Uint256(3)), AbiValue(caller->bytes)});
    const auto d = decode_revert(data, abis);
    EXPECT_EQ(d.kind, RevertKind::custom);
    // Addresses print EIP-55 checksummed.
    EXPECT_EQ(d.text,
              "NotToolCreator(toolId=3, caller=0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266)");

    EXPECT_EQ(describe_revert(custom("Paused()", {}, {}), abis), "Paused()");
    EXPECT_EQ(
        describe_revert(custom("Anon(int8,bool)", {AbiType::make_int(8), AbiType::make_bool()},
                               {AbiValue(credence::core::Int256(-5)), AbiValue(true)}),
                        abis),
        "Anon(-5, true)");
    credence::core::Hash32 h{};
    h[31] = 0xab;
    EXPECT_EQ(
        describe_revert(custom("BadManifest(string,bytes32)",
                               {AbiType::make_string(), AbiType::make_fixed_bytes(32)},
                               {AbiValue("bad\nname"), AbiValue(credence::core::FixedBytes(h))}),
                        abis),
        "BadManifest(why=\"bad\\nname\", "
        "hash=0x00000000000000000000000000000000000000000000000000000000000000ab)");
}

// The ToolRegistry's own ABI (contracts/abi/, exported from the Foundry build): docs/cli.md's
// example line.
TEST(chain_revert, tool_registry_abi_decodes_not_tool_creator) {
    const auto path = credence::testing::source_dir() / "contracts/abi/ToolRegistry.json";
    std::ifstream in(path);
    ASSERT_TRUE(in) << path.string();
    std::ostringstream buf;
    buf << in.rdbuf();
    const std::string text = buf.str();
    auto doc = credence::core::parse_json_abi(text);
    ASSERT_TRUE(doc) << doc.error().detail;
    const std::vector<credence::core::AbiDocument> abis{std::move(*doc)};
    auto caller = credence::core::Address::from_hex("0x70997970c51812dc3a010c7d01b50e0d17dc79c8");
    ASSERT_TRUE(caller);
    EXPECT_EQ(describe_revert(custom("NotToolCreator(uint256,address)",
                                     {AbiType::make_uint(256), AbiType::make_address()},
                                     {AbiValue(Uint256(3)), AbiValue(caller->bytes)}),
                              abis),
              "NotToolCreator(toolId=3, caller=0x70997970C51812dc3A010C7d01b50e0d17dc79C8)");
    EXPECT_EQ(describe_revert(custom("ToolIsDeregistered(uint256)", {AbiType::make_uint(256)},
                                     {AbiValue(Uint256(7))}),
                              abis),
              "ToolIsDeregistered(toolId=7)");
}

TEST(chain_revert, custom_error_found_in_any_of_several_abis) {
    auto other = credence::core::parse_json_abi(
        R"([{"type":"error","name":"OwnableUnauthorizedAccount",
             "inputs":[{"name":"account","type":"address"}]}])");
    ASSERT_TRUE(other);
    std::vector<credence::core::AbiDocument> abis = tool_abi();
    abis.push_back(std::move(*other));
    const Bytes data = custom("OwnableUnauthorizedAccount(address)", {AbiType::make_address()},
                              {AbiValue(credence::core::AbiValue::Address{})});
    EXPECT_EQ(describe_revert(data, abis),
              "OwnableUnauthorizedAccount(account=0x0000000000000000000000000000000000000000)");
    // Without the ABI it is unknown, with the selector and size.
    const auto d = decode_revert(data);
    EXPECT_EQ(d.kind, RevertKind::unknown);
    EXPECT_EQ(d.text, "unknown error " + credence::core::to_hex(data).substr(0, 10) +
                          " (36 bytes of data)");
}

// The one describer of Credence reverts knows every contract's custom errors, whichever raised it.
TEST(chain_revert, credence_describer_knows_every_contract) {
    EXPECT_EQ(credence::chain::credence_abis().size(),
              credence::chain::bindings::all_contracts().size());
    EXPECT_EQ(
        credence::chain::describe_credence_revert(custom(
            "ERC721NonexistentToken(uint256)", {AbiType::make_uint(256)}, {AbiValue(Uint256(7))})),
        "ERC721NonexistentToken(tokenId=7)");
    EXPECT_EQ(
        credence::chain::describe_credence_revert(custom(
            "ToolIsDeregistered(uint256)", {AbiType::make_uint(256)}, {AbiValue(Uint256(7))})),
        "ToolIsDeregistered(toolId=7)");
    const auto builtin = credence::chain::decode_credence_revert(error_string("nope"));
    EXPECT_EQ(builtin.kind, RevertKind::error_string);
    EXPECT_EQ(builtin.text, "reason: \"nope\"");
}

TEST(chain_revert, empty_data) {
    const auto d = decode_revert({});
    EXPECT_EQ(d.kind, RevertKind::empty);
    EXPECT_EQ(d.text, "execution reverted (no data)");
}

TEST(chain_revert, unknown_selector) {
    const Bytes data = {0x12, 0x34, 0x56, 0x78, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                        0,    0,    0,    0,    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    EXPECT_EQ(describe_revert(data, tool_abi()), "unknown error 0x12345678 (36 bytes of data)");
    EXPECT_EQ(describe_revert(Bytes{0x12, 0x34, 0x56, 0x78}),
              "unknown error 0x12345678 (4 bytes of data)");
    EXPECT_EQ(describe_revert(Bytes{0xde, 0xad}), "malformed revert data 0xdead (2 bytes of data)");
}

TEST(chain_revert, truncated_and_hostile_data_never_crash) {
    const auto abis = tool_abi();
    const Bytes good = error_string("a reason long enough to need two words of tail data ....");
    // Every prefix of a valid Error(string) (and of a custom error) decodes or reports malformed.
    for (size_t n = 0; n <= good.size(); ++n) {
        const auto d = decode_revert(credence::core::ByteView(good.data(), n), abis);
        EXPECT_FALSE(d.text.empty());
        if (n > 4 && n < good.size()) {
            EXPECT_EQ(d.kind, RevertKind::unknown) << n;
            EXPECT_EQ(d.text,
                      "malformed Error(string) revert (" + std::to_string(n) + " bytes of data)");
        }
    }
    const Bytes p = panic(0x11);
    EXPECT_EQ(describe_revert(credence::core::ByteView(p.data(), 20)),
              "malformed Panic(uint256) revert (20 bytes of data)");
    // A string whose length word claims 2^255 bytes.
    Bytes hostile = error_string("x");
    hostile[4 + 32] = 0x80;
    EXPECT_EQ(decode_revert(hostile).kind, RevertKind::unknown);
    // An offset pointing far outside the data.
    Bytes bad_offset = error_string("x");
    bad_offset[4 + 31] = 0xff;
    bad_offset[4 + 30] = 0xff;
    EXPECT_EQ(decode_revert(bad_offset).kind, RevertKind::unknown);
    // A custom error whose address word has dirty high bytes does not decode: unknown.
    Bytes dirty = custom("NotToolCreator(uint256,address)",
                         {AbiType::make_uint(256), AbiType::make_address()},
                         {AbiValue(Uint256(3)), AbiValue(credence::core::AbiValue::Address{})});
    dirty[4 + 32] = 0x01;
    const auto d = decode_revert(dirty, abis);
    EXPECT_EQ(d.kind, RevertKind::unknown);
    EXPECT_EQ(d.text.substr(0, 14), "unknown error ");
}

// --- Against a real EVM ---------------------------------------------------------------------
// anvil runs a contract whose runtime reverts with Error("nope"); the revert bytes come back from
// eth_call (sent with cast: our RPC client had not landed when this test was written) and must
// decode to the reason the EVM produced.

/// Init code that deploys a runtime which stores `revert_data` in memory and reverts with it.
std::string reverting_contract(const Bytes& revert_data) {
    Bytes runtime;
    Bytes mem = revert_data;
    mem.resize((mem.size() + 31) / 32 * 32);
    for (size_t off = 0; off < mem.size(); off += 32) {
        runtime.push_back(0x7f);  // PUSH32 chunk
        runtime.insert(runtime.end(), mem.begin() + static_cast<std::ptrdiff_t>(off),
                       mem.begin() + static_cast<std::ptrdiff_t>(off + 32));
        runtime.insert(runtime.end(), {0x60, static_cast<uint8_t>(off), 0x52});  // MSTORE
    }
    runtime.insert(runtime.end(),
                   {0x60, static_cast<uint8_t>(revert_data.size()), 0x60, 0x00, 0xfd});  // REVERT
    const auto len = static_cast<uint8_t>(runtime.size());
    // CODECOPY(0, 14, len); RETURN(0, len): the 14 bytes of this prefix.
    Bytes init = {0x61, 0x00, len, 0x60, 0x0e, 0x60, 0x00, 0x39, 0x61, 0x00, len, 0x60, 0x00, 0xf3};
    init.insert(init.end(), runtime.begin(), runtime.end());
    return credence::core::to_hex(init);
}

TEST(chain_revert, decodes_revert_data_returned_by_anvil) {
    auto anvil = credence::testing::AnvilProcess::start();
    ASSERT_TRUE(anvil) << anvil.error();
    const auto cast = [](const std::vector<std::string>& args) {
        auto r = credence::testing::run_command(credence::testing::cast_binary(), args);
        return std::pair{r.exit_code, r.out + r.err};
    };
    const auto [deployed, deploy] =
        cast({"send", "--json", "--rpc-url", (*anvil)->url(), "--private-key",
              std::string(credence::testing::kAnvilDevKeys[0]), "--create",
              reverting_contract(error_string("nope"))});
    ASSERT_EQ(deployed, 0) << deploy;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(
        deploy, m, std::regex(R"re("contractAddress"\s*:\s*"(0x[0-9a-fA-F]{40})")re")))
        << deploy;
    const std::string address = m[1];

    // eth_call fails with JSON-RPC error 3, whose data member is the revert bytes.
    const auto [called, call] = cast({"rpc", "--rpc-url", (*anvil)->url(), "eth_call",
                                      R"({"to":")" + address + R"(","data":"0x"})", "latest"});
    ASSERT_NE(called, 0) << call;
    ASSERT_TRUE(std::regex_search(call, m, std::regex(R"re(data: "(0x[0-9a-fA-F]*)")re"))) << call;
    auto data = credence::core::from_hex(m[1].str());
    ASSERT_TRUE(data);
    const auto d = decode_revert(*data);
    EXPECT_EQ(d.kind, RevertKind::error_string);
    EXPECT_EQ(d.text, "reason: \"nope\"");
}

}  // namespace
