// `credence agent`: the ERC-8004 Identity Registry from the terminal (docs/cli.md, agent).
//
//   register (FILE [--uri URI] | --uri URI | --no-uri) [--metadata k=v]... [--metadata-hex
//   k=0x..]... set-uri <agentId> [URI] [--file FILE] set-metadata <agentId> <key> <value> [--hex]
//   get-metadata <agentId> <key> [--text]
//   set-wallet <agentId> [WALLET] (--wallet-key HEX | --signature HEX) [--deadline UNIX]
//   unset-wallet <agentId>
//   transfer <agentId> <to>
//   show <agentId> [--metadata KEY]...
//   check FILE                                   offline: register's rules and report, no node
//   update <agentId> [--domain D] [--address A]  first draft only (updateAgent)
//   resolve (--domain D | --address A)           first draft only (resolveByDomain/Address)
//
// --revision score|draft (revision_args.hpp) picks the earlier revisions' registries. The
// intermediate revision's Identity Registry has the current one's ABI except getAgentWallet and
// unsetAgentWallet, so the same code serves it; the first draft's (agent_draft.cpp) is
// (AgentID, AgentDomain, AgentAddress) with register --domain [--address], update, show, resolve.
//
// A registration file is validated against the ERC-8004 structure (core/registration_file.hpp)
// before anything is sent; errors stop the command, warnings are reported. Without --uri the exact
// bytes of the file go on-chain as `data:application/json;base64,...` (ERC-8004 §Agent URI: "the
// agentURI MAY be a base64-encoded data URI").
//
// set-wallet: ERC-8004 §Identity Registry: changing agentWallet "requires the new wallet to prove
// control by providing a valid EIP-712 signature (EOA) or ERC-1271 signature (smart contract
// wallet)". The digest is AgentWalletSet{agentId, newWallet, owner, deadline} in the domain
// {"ERC8004IdentityRegistry", "1", chainId, identityRegistry} (core/eip712.hpp); the owner is
// read from the chain. For an ERC-1271 wallet, give the wallet address and the key of its signer.
#include <algorithm>
#include <cctype>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <credence/chain/bindings/identity_registry.hpp>
#include <credence/cmd/chain_context.hpp>
#include <credence/cmd/erc8004_args.hpp>
#include <credence/cmd/erc8004_legacy.hpp>
#include <credence/cmd/revision_args.hpp>
#include <credence/cmd/util.hpp>
#include <credence/core/data_uri.hpp>
#include <credence/core/eip712.hpp>
#include <credence/core/registration_file.hpp>
#include <credence/core/secp256k1.hpp>

namespace credence::cmd {
namespace {

namespace idr = chain::bindings::identity_registry;

constexpr std::string_view kIdentityRegistry = "IdentityRegistry";
/// ERC-8004 §Identity Registry: the reserved metadata key that mirrors the agent wallet.
constexpr std::string_view kAgentWalletKey = "agentWallet";
/// The deployed registry rejects deadlines more than 5 minutes ahead (DeadlineTooFar); the default
/// leaves a margin for the block that mines the transaction.
constexpr uint64_t kDefaultDeadlineDelay = 240;

/// Flags every agent subcommand shares.
struct AgentCommon {
    ChainOptions chain;
    std::string registry;  // --registry: the IdentityRegistry address, else the deployment's
    std::string revision;  // --revision (revision_args.hpp)
};

CLI::App* add_agent_command(CLI::App& group, const std::string& name, const std::string& about,
                            AgentCommon& common, bool signs) {
    auto* cmd = group.add_subcommand(name, about);
    add_chain_options(*cmd, common.chain, signs);
    cmd->add_option("--registry", common.registry,
                    "IdentityRegistry address (default: from the deployment file)");
    add_revision_option(*cmd, common.revision);
    return cmd;
}

/// The revision of `--revision`, refusing the subcommands the first draft does not have: its
/// agent is (AgentID, AgentDomain, AgentAddress), with no URI, metadata, wallet or token
/// (ERC-8004 first draft §Identity Registry).
core::Erc8004Revision agent_revision(const AgentCommon& common, std::string_view subcommand) {
    const auto revision = parse_revision_arg(common.revision);
    if (revision == core::Erc8004Revision::draft)
        absent_in_revision(revision, fmt::format("`agent {}`", subcommand), "Identity Registry",
                           "its agent is (AgentID, AgentDomain, AgentAddress): use register, "
                           "update, show or resolve");
    return revision;
}

core::Address identity_address(ChainContext& ctx, const AgentCommon& common) {
    if (common.revision.empty()) return ctx.contract(kIdentityRegistry, common.registry);
    return revision_registry(ctx, parse_revision_arg(common.revision),
                             core::Erc8004Registry::identity, common.registry);
}

/// "revision" in the output of an earlier revision's registry, as every such command prints.
void add_revision_field(Output& out, const AgentCommon& common) {
    const auto revision = parse_revision_arg(common.revision);
    if (revision != core::Erc8004Revision::current)
        out.add("revision", std::string(core::to_string(revision)));
}

DraftAgentArgs draft_args(const AgentCommon& common) {
    DraftAgentArgs d;
    d.chain = common.chain;
    d.registry = common.registry;
    return d;
}

struct CheckedFile {
    std::string text;                   // the exact bytes, as read
    nlohmann::ordered_json validation;  // the report (warnings only: errors throw)
};

/// Reads the registration file at `path` and validates it; errors stop the command.
CheckedFile read_registration_file(const std::string& path) {
    std::string text = read_input(path);
    auto report = core::validate_registration_file(text);
    if (!report) throw CliError(fmt::format("{}: not JSON: {}", path, error_text(report.error())));
    require_valid_registration(*report, path);
    return {std::move(text), registration_report_json(*report)};
}

/// The agentId the Registered event of `receipt` names (the return value is not in a receipt).
std::optional<core::Uint256> registered_agent_id(const chain::Receipt& receipt,
                                                 const core::Address& registry) {
    for (const auto* log : find_logs(receipt, registry, idr::kRegisteredTopic)) {
        auto ev = idr::decode_registered_event(log->topics, log->data);
        if (ev) return ev->agent_id;
    }
    return std::nullopt;
}

// ---- register ---------------------------------------------------------------------------------

struct RegisterArgs {
    AgentCommon common;
    std::string file;
    std::optional<std::string> uri;
    std::vector<std::string> metadata;
    std::vector<std::string> metadata_hex;
    bool no_uri = false;
    std::optional<std::string> domain;   // --revision draft
    std::optional<std::string> address;  // --revision draft
};

/// True when the report warns that the file names no registration: the file cannot name the
/// agentId before register has minted it, so the usual path is register, then set-uri.
bool lacks_registrations(const nlohmann::ordered_json& report) {
    return std::ranges::any_of(report["issues"], [](const nlohmann::ordered_json& i) {
        return i["reason"] == "no_registrations";
    });
}

void run_register(const RegisterArgs& a) {
    const auto revision = parse_revision_arg(a.common.revision);
    if (revision == core::Erc8004Revision::draft) {
        if (!a.file.empty() || a.uri || a.no_uri || !a.metadata.empty() || !a.metadata_hex.empty())
            throw CliError(
                "register --revision draft takes --domain [--address] only: the first draft's "
                "agent has no URI or metadata (ERC-8004 first draft §Identity Registry)");
        auto d = draft_args(a.common);
        d.domain = a.domain;
        d.address = a.address;
        return run_draft_agent_register(d);
    }
    require_revision_for_flag(revision, core::Erc8004Revision::draft, a.domain.has_value(),
                              "--domain");
    require_revision_for_flag(revision, core::Erc8004Revision::draft, a.address.has_value(),
                              "--address");
    // ERC-8004 §Registration: register() mints with no agentURI ("added later with
    // setAgentURI()"). An agent nobody can resolve is rarely what a missing argument meant, so it
    // takes an explicit --no-uri.
    if (a.no_uri && (!a.file.empty() || a.uri))
        throw CliError(
            "--no-uri registers without an agentURI; drop the file and --uri, or --no-uri");
    if (!a.no_uri && a.file.empty() && !a.uri)
        throw CliError(
            "register needs a registration FILE or --uri URI (see docs/formats.md); to mint with "
            "no agentURI and set it later with `credence agent set-uri`, pass --no-uri");
    Output out(a.common.chain.json, OutputStyle::labeled);
    std::optional<std::string> uri = a.uri;
    // Validate before anything touches the chain, so a bad file costs nothing.
    std::optional<CheckedFile> file;
    if (!a.file.empty()) file = read_registration_file(a.file);
    if (!uri && file) uri = data_uri_of(file->text);

    std::vector<idr::MetadataEntry> entries;
    for (const auto& kv : a.metadata) {
        auto [key, value] = split_key_value("--metadata", kv);
        const auto bytes = core::as_bytes(value);
        entries.push_back({key, core::Bytes(bytes.begin(), bytes.end())});
    }
    for (const auto& kv : a.metadata_hex) {
        auto [key, value] = split_key_value("--metadata-hex", kv);
        entries.push_back({key, parse_bytes_arg("--metadata-hex " + key, value)});
    }
    for (const auto& e : entries)
        if (e.metadata_key == kAgentWalletKey)
            throw CliError("metadata key agentWallet is reserved; use `credence agent set-wallet`");

    ChainContext ctx(a.common.chain);
    const core::Address registry = identity_address(ctx, a.common);
    core::Bytes calldata;
    if (!entries.empty())
        calldata = must(idr::register_2(uri.value_or(""), entries), "register");
    else if (uri)
        calldata = must(idr::register_1(*uri), "register");
    else
        calldata = must(idr::register_0(), "register");

    const SentTxn sent = ctx.send(registry, std::move(calldata), "register");
    std::optional<core::Uint256> agent_id;
    if (sent.receipt) {
        agent_id = registered_agent_id(*sent.receipt, registry);
        if (!agent_id) throw CliError("register: the receipt holds no Registered event");
        out.add("agentId", agent_id->to_dec());
        out.add("owner", sent.receipt->from.to_checksum_hex());
    }
    out.add("agentURI", uri.value_or(""));
    std::optional<std::string> next;
    if (file) {
        if (agent_id && lacks_registrations(file->validation)) {
            // ERC-8004 §Agent URI and Agent Registration File: registrations[] names this
            // agent by {agentId, agentRegistry}, known only now. A file published at --uri is
            // republished there; one stored on chain is stored again.
            const std::string entry =
                fmt::format("{{\"agentId\": {}, \"agentRegistry\": \"eip155:{}:{}\"}}",
                            agent_id->to_dec(), ctx.chain_id(), registry.to_checksum_hex());
            next = a.uri ? fmt::format(
                               "add {} to the file's registrations, then publish it again "
                               "at {}",
                               entry, *a.uri)
                         : fmt::format(
                               "add {} to the file's registrations, then run: credence "
                               "agent set-uri {} --file {}",
                               entry, agent_id->to_dec(), a.file);
        }
        out.add("validation", a.common.chain.json
                                  ? std::move(file->validation)
                                  : nlohmann::ordered_json(report_summary(file->validation)));
    } else if (agent_id && a.no_uri) {
        next = fmt::format("credence agent set-uri {} --file FILE", agent_id->to_dec());
    }
    if (next) out.add("next", *next);
    add_revision_field(out, a.common);
    ChainContext::report(out, sent);
    out.flush();
}

// ---- check ------------------------------------------------------------------------------------

struct AgentCheckArgs {
    std::string file;
    bool json = false;
};

/// `register`'s rules and report without a node or a key: every issue is listed, and an error
/// ends the command with register's own line and exit code 1 (for CI and editors).
void run_agent_check(const AgentCheckArgs& a) {
    const std::string text = read_input(a.file);
    auto report = core::validate_registration_file(text);
    if (!report)
        throw CliError(fmt::format("{}: not JSON: {}", a.file, error_text(report.error())));
    Output out(a.json, OutputStyle::labeled);
    out.add("file", a.file);
    add_report(out, a.json, registration_report_json(*report));
    out.flush();
    require_valid_registration(*report, a.file);
}

// ---- set-uri ----------------------------------------------------------------------------------

struct SetUriArgs {
    AgentCommon common;
    std::string agent_id;
    std::string uri;
    std::string file;
};

void run_set_uri(const SetUriArgs& a) {
    (void)agent_revision(a.common, "set-uri");
    if (a.uri.empty() == a.file.empty())
        throw CliError("set-uri: give either a URI or --file FILE (not both)");
    const core::Uint256 agent_id = parse_uint256_arg("agentId", a.agent_id);
    const std::string uri =
        a.file.empty() ? a.uri : data_uri_of(read_registration_file(a.file).text);
    ChainContext ctx(a.common.chain);
    const core::Address registry = identity_address(ctx, a.common);
    const SentTxn sent =
        ctx.send(registry, must(idr::set_agent_uri(agent_id, uri), "setAgentURI"), "setAgentURI");
    Output out(a.common.chain.json, OutputStyle::labeled);
    out.add("agentId", agent_id.to_dec());
    out.add("agentURI", uri);
    add_revision_field(out, a.common);
    ChainContext::report(out, sent);
    out.flush();
}

// ---- set-metadata / get-metadata ---------------------------------------------------------------

struct SetMetadataArgs {
    AgentCommon common;
    std::string agent_id;
    std::string key;
    std::string value;
    bool hex = false;
};

void run_set_metadata(const SetMetadataArgs& a) {
    (void)agent_revision(a.common, "set-metadata");
    const core::Uint256 agent_id = parse_uint256_arg("agentId", a.agent_id);
    if (a.key == kAgentWalletKey)
        throw CliError("metadata key agentWallet is reserved; use `credence agent set-wallet`");
    core::Bytes value;
    if (a.hex) {
        value = parse_bytes_arg("value", a.value);
    } else {
        const auto b = core::as_bytes(a.value);
        value.assign(b.begin(), b.end());
    }
    ChainContext ctx(a.common.chain);
    const core::Address registry = identity_address(ctx, a.common);
    const SentTxn sent = ctx.send(
        registry, must(idr::set_metadata(agent_id, a.key, value), "setMetadata"), "setMetadata");
    Output out(a.common.chain.json, OutputStyle::labeled);
    out.add("agentId", agent_id.to_dec());
    out.add("key", a.key);
    out.add("value", core::to_hex(value));
    add_revision_field(out, a.common);
    ChainContext::report(out, sent);
    out.flush();
}

core::Bytes read_metadata(ChainContext& ctx, const core::Address& registry,
                          const core::Uint256& agent_id, const std::string& key) {
    return ctx.call(idr::call::get_metadata, registry, agent_id, key);
}

struct GetMetadataArgs {
    AgentCommon common;
    std::string agent_id;
    std::string key;
    bool text = false;
};

void run_get_metadata(const GetMetadataArgs& a) {
    (void)agent_revision(a.common, "get-metadata");
    const core::Uint256 agent_id = parse_uint256_arg("agentId", a.agent_id);
    ChainContext ctx(a.common.chain);
    const core::Address registry = identity_address(ctx, a.common);
    const core::Bytes value = read_metadata(ctx, registry, agent_id, a.key);
    Output out(a.common.chain.json, OutputStyle::labeled);
    if (a.common.chain.json) {
        out.add("agentId", agent_id.to_dec());
        out.add("key", a.key);
        out.add("value", core::to_hex(value));
        if (auto t = printable_text(value)) out.add("text", *t);
    } else if (a.text) {
        out.add("text", std::string(value.begin(), value.end()));
    } else {
        out.add("value", core::to_hex(value));
    }
    if (a.common.chain.json) add_revision_field(out, a.common);
    out.flush();
}

// ---- set-wallet / unset-wallet -----------------------------------------------------------------

struct SetWalletArgs {
    AgentCommon common;
    std::string agent_id;
    std::string wallet;
    std::optional<std::string> wallet_key;
    std::optional<std::string> signature;
    std::optional<uint64_t> deadline;
};

core::Address owner_of(ChainContext& ctx, const core::Address& registry,
                       const core::Uint256& agent_id) {
    return ctx.call(idr::call::owner_of, registry, agent_id);
}

void run_set_wallet(const SetWalletArgs& a) {
    (void)agent_revision(a.common, "set-wallet");
    if (a.wallet_key.has_value() == a.signature.has_value())
        throw CliError("set-wallet: give exactly one of --wallet-key and --signature");
    const core::Uint256 agent_id = parse_uint256_arg("agentId", a.agent_id);

    std::optional<core::SecretKey> wallet_key;
    if (a.wallet_key) {
        auto k = core::SecretKey::from_hex(*a.wallet_key);
        // The key itself is never echoed.
        if (!k) throw CliError("--wallet-key: not a valid secp256k1 private key (64 hex digits)");
        wallet_key = std::move(*k);
    }
    core::Address wallet;
    if (!a.wallet.empty())
        wallet = parse_address_arg("wallet", a.wallet);
    else if (wallet_key)
        wallet = core::address_of(*wallet_key);
    else
        throw CliError("set-wallet: the wallet address is required with --signature");

    ChainContext ctx(a.common.chain);
    const core::Address registry = identity_address(ctx, a.common);
    const core::Address owner = owner_of(ctx, registry, agent_id);
    uint64_t deadline = 0;
    if (a.deadline) {
        deadline = *a.deadline;
    } else {
        auto block = must_rpc(ctx.rpc().get_block_by_number(chain::BlockId::latest()),
                              "eth_getBlockByNumber");
        if (!block) throw CliError("eth_getBlockByNumber: the node has no latest block");
        deadline = block->timestamp + kDefaultDeadlineDelay;
    }

    const core::Hash32 digest =
        core::agent_wallet_set_digest(core::Uint256{ctx.chain_id()}, registry.bytes, agent_id,
                                      wallet.bytes, owner.bytes, core::Uint256{deadline});
    core::Bytes signature;
    if (wallet_key) {
        const auto sig = must(core::sign_digest(*wallet_key, digest), "sign AgentWalletSet");
        const auto raw = sig.to_bytes_v27();
        signature.assign(raw.begin(), raw.end());
    } else {
        signature = parse_bytes_arg("--signature", *a.signature);
    }

    const SentTxn sent =
        ctx.send(registry,
                 must(idr::set_agent_wallet(agent_id, wallet, core::Uint256{deadline}, signature),
                      "setAgentWallet"),
                 "setAgentWallet");
    Output out(a.common.chain.json, OutputStyle::labeled);
    out.add("agentId", agent_id.to_dec());
    out.add("wallet", wallet.to_checksum_hex());
    out.add("owner", owner.to_checksum_hex());
    out.add("deadline", deadline);
    out.add("digest", core::to_hex(digest));
    out.add("signature", core::to_hex(signature));
    add_revision_field(out, a.common);
    ChainContext::report(out, sent);
    out.flush();
}

struct AgentIdArgs {
    AgentCommon common;
    std::string agent_id;
};

void run_unset_wallet(const AgentIdArgs& a) {
    if (agent_revision(a.common, "unset-wallet") == core::Erc8004Revision::score)
        absent_in_revision(core::Erc8004Revision::score, "unsetAgentWallet", "Identity Registry",
                           "a transfer clears the wallet");
    const core::Uint256 agent_id = parse_uint256_arg("agentId", a.agent_id);
    ChainContext ctx(a.common.chain);
    const core::Address registry = identity_address(ctx, a.common);
    const SentTxn sent = ctx.send(
        registry, must(idr::unset_agent_wallet(agent_id), "unsetAgentWallet"), "unsetAgentWallet");
    Output out(a.common.chain.json, OutputStyle::labeled);
    out.add("agentId", agent_id.to_dec());
    add_revision_field(out, a.common);
    ChainContext::report(out, sent);
    out.flush();
}

// ---- transfer ---------------------------------------------------------------------------------

struct TransferArgs {
    AgentCommon common;
    std::string agent_id;
    std::string to;
};

void run_transfer(const TransferArgs& a) {
    (void)agent_revision(a.common, "transfer");
    const core::Uint256 agent_id = parse_uint256_arg("agentId", a.agent_id);
    const core::Address to = parse_address_arg("to", a.to);
    ChainContext ctx(a.common.chain);
    const core::Address registry = identity_address(ctx, a.common);
    // `from` must be the current owner (ERC-721); the signer may be the owner or an operator.
    const core::Address from = owner_of(ctx, registry, agent_id);
    // safeTransferFrom: a contract recipient must accept ERC-721 tokens (EIP-721
    // §onERC721Received).
    const SentTxn sent =
        ctx.send(registry, must(idr::safe_transfer_from_3(from, to, agent_id), "safeTransferFrom"),
                 "safeTransferFrom");
    Output out(a.common.chain.json, OutputStyle::labeled);
    out.add("agentId", agent_id.to_dec());
    out.add("from", from.to_checksum_hex());
    out.add("to", to.to_checksum_hex());
    add_revision_field(out, a.common);
    ChainContext::report(out, sent);
    out.flush();
}

// ---- show -------------------------------------------------------------------------------------

struct ShowArgs {
    AgentCommon common;
    std::string agent_id;
    std::vector<std::string> metadata_keys;
};

/// Decodes a data: URI holding a registration file and validates it against the chain's view.
nlohmann::ordered_json decode_registration(const std::string& uri, uint64_t chain_id,
                                           const core::Address& registry,
                                           const core::Uint256& agent_id) {
    nlohmann::ordered_json out;
    auto data = core::parse_data_uri(uri);
    if (!data) {
        out["error"] = fmt::format("bad data: URI: {}", core::to_string(data.error().code));
        return out;
    }
    out["mediaType"] = data->media_type;
    const std::string_view text(reinterpret_cast<const char*>(data->data.data()),
                                data->data.size());
    auto report = core::validate_registration_file(text);
    if (!report) {
        out["error"] = fmt::format("not JSON: {}", error_text(report.error()));
        return out;
    }
    out["file"] = nlohmann::ordered_json::parse(text, nullptr, false);
    out["validation"] = registration_report_json(*report);
    // ERC-8004 §Endpoint Domain Verification: an entry whose agentRegistry and agentId match the
    // on-chain agent ties the file to this agent.
    out["matchesAgent"] =
        core::find_registration(report->file, chain_id, registry.bytes, agent_id).has_value();
    return out;
}

/// The agent wallet of an intermediate-revision agent: that registry has no getAgentWallet, and
/// reads the reserved key as 20 packed bytes, or none when unset (ERC-8004 intermediate
/// §Identity Registry: "The key agentWallet is reserved").
core::Address score_agent_wallet(ChainContext& ctx, const core::Address& registry,
                                 const core::Uint256& agent_id) {
    const core::Bytes packed = read_metadata(ctx, registry, agent_id, std::string(kAgentWalletKey));
    core::Address wallet{};
    if (packed.size() == wallet.bytes.size())
        std::copy(packed.begin(), packed.end(), wallet.bytes.begin());
    else if (!packed.empty())
        throw CliError(
            fmt::format("getMetadata(agentWallet): {} bytes, expected 20 or none", packed.size()));
    return wallet;
}

void run_show(const ShowArgs& a) {
    const auto revision = parse_revision_arg(a.common.revision);
    if (revision == core::Erc8004Revision::draft) {
        if (!a.metadata_keys.empty())
            absent_in_revision(revision, "on-chain metadata", "Identity Registry");
        auto d = draft_args(a.common);
        d.agent_id = a.agent_id;
        return run_draft_agent_show(d);
    }
    const core::Uint256 agent_id = parse_uint256_arg("agentId", a.agent_id);
    ChainContext ctx(a.common.chain);
    const core::Address registry = identity_address(ctx, a.common);
    const core::Address owner = owner_of(ctx, registry, agent_id);
    const std::string uri = ctx.call(idr::call::token_uri, registry, agent_id);
    const core::Address wallet = revision == core::Erc8004Revision::score
                                     ? score_agent_wallet(ctx, registry, agent_id)
                                     : ctx.call(idr::call::get_agent_wallet, registry, agent_id);

    Output out(a.common.chain.json, OutputStyle::labeled);
    out.add("agentId", agent_id.to_dec());
    out.add("owner", owner.to_checksum_hex());
    out.add("agentURI", uri);
    // The zero address means "no wallet" (unset, or cleared by a transfer).
    out.add("agentWallet", wallet.is_zero() ? nlohmann::ordered_json(nullptr)
                                            : nlohmann::ordered_json(wallet.to_checksum_hex()));
    if (!a.metadata_keys.empty()) {
        nlohmann::ordered_json md = nlohmann::ordered_json::object();
        for (const auto& key : a.metadata_keys) {
            const core::Bytes v = read_metadata(ctx, registry, agent_id, key);
            if (a.common.chain.json) {
                nlohmann::ordered_json entry{{"value", core::to_hex(v)}};
                if (auto t = printable_text(v)) entry["text"] = *t;
                md[key] = std::move(entry);
            } else {
                md[key] = core::to_hex(v);
            }
        }
        if (a.common.chain.json) {
            out.add("metadata", std::move(md));
        } else {
            for (const auto& [key, v] : md.items()) out.add("metadata." + key, v);
        }
    }
    if (uri.size() >= 5 && std::equal(uri.begin(), uri.begin() + 5, "data:", [](char x, char y) {
            return std::tolower(static_cast<unsigned char>(x)) == y;
        })) {
        auto reg = decode_registration(uri, ctx.chain_id(), registry, agent_id);
        if (a.common.chain.json) {
            out.add("registration", std::move(reg));
        } else if (reg.contains("validation")) {
            out.add("registration", report_summary(reg["validation"]));
            if (reg.contains("file")) out.add("file", reg["file"].dump());
        } else {
            out.add("registration", reg["error"].get<std::string>());
        }
    }
    add_revision_field(out, a.common);
    out.flush();
}

// ---- update / resolve (first draft) ------------------------------------------------------------

struct DraftOnlyArgs {
    AgentCommon common;
    std::string agent_id;
    std::optional<std::string> domain;
    std::optional<std::string> address;
};

/// The first draft's own subcommands; the later revisions name agents by agentId alone and
/// change them with set-uri (ERC-8004 §Identity Registry).
DraftAgentArgs draft_only(const DraftOnlyArgs& a, std::string_view what, std::string_view hint) {
    const auto revision = parse_revision_arg(a.common.revision);
    if (revision != core::Erc8004Revision::draft)
        absent_in_revision(revision, what, "Identity Registry", hint);
    auto d = draft_args(a.common);
    d.agent_id = a.agent_id;
    d.domain = a.domain;
    d.address = a.address;
    return d;
}

void run_update(const DraftOnlyArgs& a) {
    run_draft_agent_update(
        draft_only(a, "updateAgent", "change the agentURI with `credence agent set-uri`"));
}

void run_resolve(const DraftOnlyArgs& a) {
    run_draft_agent_resolve(draft_only(a, "resolve by domain or address",
                                       "agents are found by agentId (`credence agent show`)"));
}

}  // namespace

void add_agent_commands(CLI::App& app) {
    auto* group =
        app.add_subcommand("agent", "ERC-8004 Identity Registry: agents and their wallets");
    group->require_subcommand(1);

    {
        auto a = std::make_shared<RegisterArgs>();
        auto* cmd = add_agent_command(*group, "register",
                                      "Register an agent from a registration file (validated, "
                                      "stored as a data: URI unless --uri is given)",
                                      a->common, true);
        cmd->add_option("file", a->file, "ERC-8004 registration file (JSON), '-' for stdin");
        cmd->add_option("--uri", a->uri, "agentURI to store instead of the file's data: URI");
        cmd->add_flag("--no-uri", a->no_uri,
                      "Register with no agentURI (ERC-8004 register()); set it later with set-uri");
        cmd->add_option("--metadata", a->metadata, "On-chain metadata key=value (UTF-8 value)");
        cmd->add_option("--metadata-hex", a->metadata_hex, "On-chain metadata key=0x.. (bytes)");
        cmd->add_option("--domain", a->domain, "--revision draft: the AgentDomain");
        cmd->add_option("--address", a->address,
                        "--revision draft: the AgentAddress (default: the signer)");
        cmd->callback([a] { run_register(*a); });
    }
    {
        auto a = std::make_shared<AgentCheckArgs>();
        auto* cmd = group->add_subcommand(
            "check",
            "Offline: check a registration file with register's rules (no node, no key; exit 1 "
            "on errors)");
        cmd->add_option("file", a->file, "ERC-8004 registration file (JSON), '-' for stdin")
            ->required();
        cmd->add_flag("--json", a->json, "Print the report as JSON");
        cmd->callback([a] { run_agent_check(*a); });
    }
    {
        auto a = std::make_shared<SetUriArgs>();
        auto* cmd =
            add_agent_command(*group, "set-uri", "Set an agent's agentURI", a->common, true);
        cmd->add_option("agentId", a->agent_id, "Agent id")->required();
        cmd->add_option("uri", a->uri, "The new agentURI");
        cmd->add_option("--file", a->file, "Registration file to store as a data: URI");
        cmd->callback([a] { run_set_uri(*a); });
    }
    {
        auto a = std::make_shared<SetMetadataArgs>();
        auto* cmd = add_agent_command(*group, "set-metadata", "Set an on-chain metadata entry",
                                      a->common, true);
        cmd->add_option("agentId", a->agent_id, "Agent id")->required();
        cmd->add_option("key", a->key, "Metadata key")->required();
        cmd->add_option("value", a->value, "Value (UTF-8 text, or 0x-hex with --hex)")->required();
        cmd->add_flag("--hex", a->hex, "The value is 0x-hex bytes");
        cmd->callback([a] { run_set_metadata(*a); });
    }
    {
        auto a = std::make_shared<GetMetadataArgs>();
        auto* cmd = add_agent_command(*group, "get-metadata", "Read an on-chain metadata entry",
                                      a->common, false);
        cmd->add_option("agentId", a->agent_id, "Agent id")->required();
        cmd->add_option("key", a->key, "Metadata key")->required();
        cmd->add_flag("--text", a->text, "Print the value as text instead of hex");
        cmd->callback([a] { run_get_metadata(*a); });
    }
    {
        auto a = std::make_shared<SetWalletArgs>();
        auto* cmd = add_agent_command(
            *group, "set-wallet",
            "Set the agent wallet with the new wallet's EIP-712 (EOA) or ERC-1271 signature",
            a->common, true);
        cmd->add_option("agentId", a->agent_id, "Agent id")->required();
        cmd->add_option("wallet", a->wallet,
                        "New wallet address (default: the address of --wallet-key)");
        cmd->add_option("--wallet-key", a->wallet_key,
                        "Private key that signs AgentWalletSet (the EOA, or the ERC-1271 "
                        "wallet's signer)");
        cmd->add_option("--signature", a->signature, "A ready AgentWalletSet signature (0x-hex)");
        cmd->add_option("--deadline", a->deadline,
                        "Signature deadline, unix seconds (default: latest block + 240 s; the "
                        "registry allows at most 300 s ahead)");
        cmd->callback([a] { run_set_wallet(*a); });
    }
    {
        auto a = std::make_shared<AgentIdArgs>();
        auto* cmd =
            add_agent_command(*group, "unset-wallet", "Clear the agent wallet", a->common, true);
        cmd->add_option("agentId", a->agent_id, "Agent id")->required();
        cmd->callback([a] { run_unset_wallet(*a); });
    }
    {
        auto a = std::make_shared<TransferArgs>();
        auto* cmd = add_agent_command(*group, "transfer",
                                      "Transfer the agent (ERC-721 safeTransferFrom); clears "
                                      "the agent wallet",
                                      a->common, true);
        cmd->add_option("agentId", a->agent_id, "Agent id")->required();
        cmd->add_option("to", a->to, "New owner")->required();
        cmd->callback([a] { run_transfer(*a); });
    }
    {
        auto a = std::make_shared<ShowArgs>();
        auto* cmd = add_agent_command(*group, "show",
                                      "On-chain state of an agent and its decoded registration "
                                      "file",
                                      a->common, false);
        cmd->add_option("agentId", a->agent_id, "Agent id")->required();
        cmd->add_option("--metadata", a->metadata_keys, "Metadata keys to read (repeatable)");
        cmd->callback([a] { run_show(*a); });
    }
    {
        auto a = std::make_shared<DraftOnlyArgs>();
        auto* cmd = add_agent_command(*group, "update",
                                      "--revision draft: change an agent's AgentDomain and/or "
                                      "AgentAddress (updateAgent, sent by its AgentAddress)",
                                      a->common, true);
        cmd->add_option("agentId", a->agent_id, "Agent id")->required();
        cmd->add_option("--domain", a->domain, "New AgentDomain");
        cmd->add_option("--address", a->address, "New AgentAddress");
        cmd->callback([a] { run_update(*a); });
    }
    {
        auto a = std::make_shared<DraftOnlyArgs>();
        auto* cmd = add_agent_command(*group, "resolve",
                                      "--revision draft: find an agent by its AgentDomain or "
                                      "AgentAddress",
                                      a->common, false);
        cmd->add_option("--domain", a->domain, "AgentDomain (resolveByDomain)");
        cmd->add_option("--address", a->address, "AgentAddress (resolveByAddress)");
        cmd->callback([a] { run_resolve(*a); });
    }
}

}  // namespace credence::cmd
