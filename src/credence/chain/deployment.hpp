// Where the Credence contracts live on a chain: the deployment file that contracts/script/
// Deploy.s.sol and `credence devnet` write, and where commands look for it (docs/cli.md: "other
// commands find it through the deployment file, with no flags needed").
//
// File format (one JSON object; unknown fields are ignored):
//   {"chainId":31337,"create2Deployer":"0x4e59…","salt":"0x…","deployer":"0x…",
//    "rpcUrl":"http://127.0.0.1:8545",                      (optional; written by the devnet)
//    "contracts":{"IdentityRegistry":{"address":"0x…","abi":"contracts/out/…"},…,
//                 "DraftIdentityRegistry":{"address":"0x…","abi":"…","revision":"draft"}}}
// A registry of an earlier ERC-8004 revision carries its revision (core/erc8004_revision.hpp:
// "score" or "draft"); an entry without one is of the current revision or no ERC-8004 registry.
// Locations: $CREDENCE_HOME (default $HOME/.credence) holds deployments/<chainId>.json and
// devnet.json (the running devnet's deployment, with its rpcUrl).
// Thread-safety: pure functions, except that the path helpers read the environment.
#pragma once

#include <cstdint>
#include <expected>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <credence/core/address.hpp>
#include <credence/core/bytes.hpp>
#include <credence/core/erc8004_revision.hpp>

namespace credence::chain {

struct Deployment {
    uint64_t chain_id = 0;
    std::optional<std::string> rpc_url;
    core::Address create2_deployer;
    core::Hash32 salt{};
    core::Address deployer;
    std::map<std::string, core::Address, std::less<>> contracts;
    /// The ERC-8004 revision of each earlier-revision registry among `contracts`, by name.
    std::map<std::string, core::Erc8004Revision, std::less<>> revisions;

    /// The revision of the contract named `name` (current when none is recorded).
    [[nodiscard]] core::Erc8004Revision revision_of(std::string_view name) const;
};

/// The earlier-revision registries of ERC-8004 and their revisions, by contract name
/// (DraftIdentityRegistry -> draft, ScoreReputationRegistry -> score, ...); nullopt for any
/// other name. What `credence devnet --revisions all` records in the deployment file.
[[nodiscard]] std::optional<core::Erc8004Revision> legacy_registry_revision(std::string_view name);

/// Parses a deployment file; the error is one line naming the bad field.
[[nodiscard]] std::expected<Deployment, std::string> parse_deployment(std::string_view json);
/// The file text (stable key order, EIP-55 addresses, trailing newline).
[[nodiscard]] std::string serialize_deployment(const Deployment& deployment);
/// Reads and parses a file; the error names the path.
[[nodiscard]] std::expected<Deployment, std::string> load_deployment(
    const std::filesystem::path& path);
/// Writes atomically (temporary file + rename), creating parent directories.
[[nodiscard]] std::expected<void, std::string> save_deployment(const std::filesystem::path& path,
                                                               const Deployment& deployment);

/// $CREDENCE_HOME, else $HOME/.credence.
[[nodiscard]] std::filesystem::path credence_home();
/// credence_home()/deployments/<chain_id>.json
[[nodiscard]] std::filesystem::path deployment_path(uint64_t chain_id);
/// credence_home()/devnet.json: the running devnet's deployment, with rpcUrl.
[[nodiscard]] std::filesystem::path devnet_path();

/// The deployment file of a chain, looked up in one order by every command and by the node
/// (docs/cli.md §Flags every on-chain command takes, `--deployment`): `explicit_path` when given
/// (it must exist), then $CREDENCE_DEPLOYMENT, then deployment_path(chain_id), then
/// contracts/deployments/<id>.json under the working directory (the forge script's output in a
/// checkout). nullopt when none exists; an error when a file exists but does not parse, or the
/// explicit path is missing.
[[nodiscard]] std::expected<std::optional<Deployment>, std::string> find_deployment(
    uint64_t chain_id, const std::filesystem::path& explicit_path = {});

}  // namespace credence::chain
