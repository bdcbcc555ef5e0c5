// Helpers of the `credence agent` / `credence feedback` end-to-end tests: run the real credence
// binary against a devnet, and read the chain back with the real `cast` (never with our own
// decoders), so what the CLI claims is checked independently.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/devnet.hpp"
#include "support/scratch.hpp"

namespace credence::testing::erc8004 {

inline std::string trim(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
    return s;
}

/// `credence <args>` with the devnet's environment (no flags needed to find the chain).
inline CommandResult run_cli(const Devnet& devnet, const std::vector<std::string>& args) {
    return run_command(CREDENCE_BIN, args, devnet.env());
}

/// `credence <args> --json`, expecting success; the parsed document.
inline nlohmann::json credence_json(const Devnet& devnet, std::vector<std::string> args) {
    args.emplace_back("--json");
    const CommandResult r = run_cli(devnet, args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    if (r.exit_code != 0) return nlohmann::json::object();
    return nlohmann::json::parse(r.out, nullptr, false);
}

/// `cast <args>` offline (keccak, decode-abi): trimmed stdout; fails the test on a non-zero exit.
inline std::string cast_offline(const std::vector<std::string>& args) {
    const CommandResult r = run_command(cast_binary(), args);
    EXPECT_EQ(r.exit_code, 0) << "cast failed: " << r.err;
    return trim(r.out);
}

/// `cast <subcommand> --rpc-url <devnet> <args...>` (the URL goes first: `send --create` takes
/// every later word as a constructor argument).
inline std::string cast(const Devnet& devnet, std::vector<std::string> args) {
    args.insert(args.begin() + 1, {"--rpc-url", devnet.rpc_url()});
    return cast_offline(args);
}

/// `cast call <to> <sig> <args...>` on the devnet.
inline std::string cast_call(const Devnet& devnet, const core::Address& to, const std::string& sig,
                             const std::vector<std::string>& args = {}) {
    std::vector<std::string> a{"call", to.to_checksum_hex(), sig};
    a.insert(a.end(), args.begin(), args.end());
    return cast(devnet, a);
}

/// Lines of a multi-value cast output.
inline std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= text.size()) {
        const auto nl = text.find('\n', start);
        const auto end = nl == std::string::npos ? text.size() : nl;
        if (end > start) out.push_back(text.substr(start, end - start));
        if (nl == std::string::npos) break;
        start = nl + 1;
    }
    return out;
}

/// cast prints big numbers with an annotation ("1893456000 [1.893e9]"); the first word.
inline std::string first_word(const std::string& s) { return s.substr(0, s.find(' ')); }

inline std::string lower(std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

inline std::filesystem::path temp_file(const std::string& name, const std::string& content) {
    return credence::testing::write_scratch_file("erc8004_" + name, content);
}

inline std::string read_file(const std::filesystem::path& path) {
    // Not through istreambuf_iterator: GCC 12 -O3 warns (-Wnull-dereference) inside <streambuf>.
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

inline std::string hex_of(const std::string& bytes) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out = "0x";
    for (const char c : bytes) {
        const auto u = static_cast<unsigned char>(c);
        out += kDigits[u >> 4];
        out += kDigits[u & 0xf];
    }
    return out;
}

/// A registration file following the example of ERC-8004 §Agent URI and Agent Registration File.
inline std::string registration_file(const std::string& name) {
    return nlohmann::ordered_json{
        {"type", "https://eips.ethereum.org/EIPS/eip-8004#registration-v1"},
        {"name", name},
        {"description", "An agent used by the CLI tests"},
        {"image", "https://example.com/agent.png"},
        {"services",
         {{{"name", "MCP"}, {"endpoint", "https://mcp.example.com/"}, {"version", "2025-06-18"}}}},
        {"x402Support", false},
        {"active", true},
        {"registrations", nlohmann::ordered_json::array()},
        {"supportedTrust", {"reputation"}}}
        .dump(2);
}

/// Registers an agent owned by dev account `owner` with `cast send` (independent of our CLI);
/// returns its id, read back from nextAgentId.
inline std::string cast_register(const Devnet& devnet, size_t owner, const std::string& uri) {
    const auto identity = devnet.address("IdentityRegistry");
    const std::string next = first_word(cast_call(devnet, identity, "nextAgentId()(uint256)"));
    cast(devnet, {"send", identity.to_checksum_hex(), "register(string)", uri, "--private-key",
                  devnet.dev_key(owner)});
    return next;
}

}  // namespace credence::testing::erc8004
