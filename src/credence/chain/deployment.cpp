#include <credence/chain/deployment.hpp>

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <system_error>

#include <nlohmann/json.hpp>

namespace credence::chain {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::expected<core::Address, std::string> parse_address(const json& doc, const std::string& key,
                                                        const std::string& field) {
    const auto it = doc.find(key);
    if (it == doc.end() || !it->is_string()) {
        return std::unexpected("deployment: missing or non-string \"" + field + "\"");
    }
    // EIP-55: a mixed-case address must carry a valid checksum; single-case is accepted.
    auto address = core::Address::from_hex(it->get<std::string>());
    if (!address) {
        return std::unexpected("deployment: bad address in \"" + field +
                               "\": " + address.error().detail);
    }
    return *address;
}

}  // namespace

core::Erc8004Revision Deployment::revision_of(std::string_view name) const {
    const auto it = revisions.find(name);
    return it == revisions.end() ? core::Erc8004Revision::current : it->second;
}

std::optional<core::Erc8004Revision> legacy_registry_revision(std::string_view name) {
    using core::Erc8004Registry;
    using core::Erc8004Revision;
    for (const auto revision : {Erc8004Revision::score, Erc8004Revision::draft}) {
        for (const auto registry : {Erc8004Registry::identity, Erc8004Registry::reputation,
                                    Erc8004Registry::validation}) {
            if (core::registry_contract_name(revision, registry) == name) return revision;
        }
    }
    return std::nullopt;
}

std::expected<Deployment, std::string> parse_deployment(std::string_view text) {
    const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded()) return std::unexpected("deployment: not valid JSON");
    if (!doc.is_object()) return std::unexpected("deployment: not a JSON object");
    Deployment out;

    const auto chain_id = doc.find("chainId");
    if (chain_id == doc.end() || !chain_id->is_number_unsigned() ||
        chain_id->get<uint64_t>() == 0) {
        return std::unexpected("deployment: \"chainId\" must be a positive integer");
    }
    out.chain_id = chain_id->get<uint64_t>();

    if (const auto rpc = doc.find("rpcUrl"); rpc != doc.end() && !rpc->is_null()) {
        if (!rpc->is_string() || rpc->get<std::string>().empty()) {
            return std::unexpected("deployment: \"rpcUrl\" must be a non-empty string");
        }
        out.rpc_url = rpc->get<std::string>();
    }

    auto factory = parse_address(doc, "create2Deployer", "create2Deployer");
    if (!factory) return std::unexpected(factory.error());
    out.create2_deployer = *factory;
    auto deployer = parse_address(doc, "deployer", "deployer");
    if (!deployer) return std::unexpected(deployer.error());
    out.deployer = *deployer;

    const auto salt = doc.find("salt");
    if (salt == doc.end() || !salt->is_string()) {
        return std::unexpected("deployment: missing or non-string \"salt\"");
    }
    const std::string salt_text = salt->get<std::string>();
    auto salt_bytes = core::from_hex_fixed<32>(salt_text);
    if (!salt_text.starts_with("0x") || !salt_bytes) {
        return std::unexpected("deployment: \"salt\" must be 0x and 32 bytes of hex");
    }
    out.salt = *salt_bytes;

    const auto contracts = doc.find("contracts");
    if (contracts == doc.end() || !contracts->is_object()) {
        return std::unexpected("deployment: missing or non-object \"contracts\"");
    }
    for (const auto& [name, entry] : contracts->items()) {
        if (!entry.is_object()) {
            return std::unexpected("deployment: \"contracts." + name + "\" is not an object");
        }
        auto address = parse_address(entry, "address", "contracts." + name + ".address");
        if (!address) return std::unexpected(address.error());
        out.contracts.emplace(name, *address);
        if (const auto rev = entry.find("revision"); rev != entry.end()) {
            const auto parsed = rev->is_string()
                                    ? core::parse_erc8004_revision(rev->get<std::string>())
                                    : std::nullopt;
            if (!parsed) {
                return std::unexpected("deployment: \"contracts." + name +
                                       ".revision\" must be \"current\", \"score\" or \"draft\"");
            }
            if (*parsed != core::Erc8004Revision::current) out.revisions.emplace(name, *parsed);
        }
    }
    return out;
}

std::string serialize_deployment(const Deployment& deployment) {
    // ordered_json keeps insertion order, so the file has one stable layout.
    nlohmann::ordered_json doc;
    doc["chainId"] = deployment.chain_id;
    if (deployment.rpc_url) doc["rpcUrl"] = *deployment.rpc_url;
    doc["create2Deployer"] = deployment.create2_deployer.to_checksum_hex();
    doc["salt"] = core::to_hex(deployment.salt);
    doc["deployer"] = deployment.deployer.to_checksum_hex();
    auto contracts = nlohmann::ordered_json::object();
    for (const auto& [name, address] : deployment.contracts) {
        // The same "abi" hint as contracts/script/Deploy.s.sol writes.
        std::string abi = "contracts/out/";
        abi.append(name).append(".sol/").append(name).append(".json");
        contracts[name] = {{"address", address.to_checksum_hex()}, {"abi", std::move(abi)}};
        if (const auto revision = deployment.revision_of(name);
            revision != core::Erc8004Revision::current) {
            contracts[name]["revision"] = std::string(core::to_string(revision));
        }
    }
    doc["contracts"] = std::move(contracts);
    return doc.dump(2) + "\n";
}

std::expected<Deployment, std::string> load_deployment(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::unexpected("cannot read deployment file " + path.string());
    std::ostringstream text;
    text << in.rdbuf();
    auto parsed = parse_deployment(text.str());
    if (!parsed) return std::unexpected(path.string() + ": " + parsed.error());
    return parsed;
}

std::expected<void, std::string> save_deployment(const fs::path& path,
                                                 const Deployment& deployment) {
    std::error_code ec;
    if (path.has_parent_path()) {
        fs::create_directories(path.parent_path(), ec);
        if (ec) {
            return std::unexpected("cannot create " + path.parent_path().string() + ": " +
                                   ec.message());
        }
    }
    // Readers never see a half-written file: write a sibling, then rename(2) over the target
    // (atomic within one file system).
    const fs::path tmp =
        path.string() + ".tmp." + std::to_string(static_cast<long long>(::getpid()));
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out << serialize_deployment(deployment);
        out.flush();
        if (!out) {
            fs::remove(tmp, ec);
            return std::unexpected("cannot write " + tmp.string());
        }
    }
    fs::rename(tmp, path, ec);
    if (ec) {
        fs::remove(tmp, ec);
        return std::unexpected("cannot rename " + tmp.string() + " to " + path.string());
    }
    return {};
}

fs::path credence_home() {
    if (const char* home = std::getenv("CREDENCE_HOME"); home != nullptr && *home != '\0') {
        return home;
    }
    const char* user_home = std::getenv("HOME");
    return fs::path(user_home != nullptr && *user_home != '\0' ? user_home : ".") / ".credence";
}

fs::path deployment_path(uint64_t chain_id) {
    return credence_home() / "deployments" / (std::to_string(chain_id) + ".json");
}

fs::path devnet_path() { return credence_home() / "devnet.json"; }

std::expected<std::optional<Deployment>, std::string> find_deployment(
    uint64_t chain_id, const fs::path& explicit_path) {
    std::error_code ec;
    fs::path path = explicit_path;
    if (path.empty()) {
        if (const char* env = std::getenv("CREDENCE_DEPLOYMENT"); env != nullptr && *env != '\0')
            path = env;
    }
    if (!path.empty()) {
        if (!fs::exists(path, ec))
            return std::unexpected("no such deployment file " + path.string());
    } else {
        path = deployment_path(chain_id);
        if (!fs::exists(path, ec)) {
            path = fs::path("contracts/deployments") / (std::to_string(chain_id) + ".json");
            if (!fs::exists(path, ec)) return std::nullopt;
        }
    }
    auto d = load_deployment(path);
    if (!d) return std::unexpected(d.error());
    return std::optional<Deployment>(std::move(*d));
}

}  // namespace credence::chain
