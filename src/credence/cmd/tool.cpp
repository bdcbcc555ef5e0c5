// `credence tool`: the ERC-8257 Tool Registry from the command line.
//
//   register <manifest> [--uri U] [--predicate P]   registerTool; the manifest is checked
//                                                   (tool_manifest.hpp), JCS-hashed, and its
//                                                   creatorAddress must be the signer
//   update <toolId> <manifest> [--uri U]            updateToolMetadata; creatorAddress must be
//                                                   the tool's onchain creator
//   set-predicate <toolId> <predicate>              setAccessPredicate (0x0…0: open access)
//   deregister <toolId>                             deregisterTool (permanent)
//   show <toolId>                                   getToolConfig, plus the §7 check 3/4 result
//                                                   for a manifest carried in a data: URI
//   access <toolId> <account> [--data HEX]          tryHasAccess: granted / denied / predicate
//                                                   broken
//   hash <manifest>                                 offline: the byte rules, JCS and keccak256
//   check <manifest>                                offline: every rule register applies
//
// ERC-8257 §7 Registration-Time Enforcement: "SDKs ... SHOULD validate at registration time that
// the signing account matches manifest.creatorAddress and refuse to submit the transaction on
// mismatch", which register does before anything is signed. The default metadataURI is the
// JCS bytes as data:application/json;base64 so the registration is verifiable from the chain
// alone; a production tool passes --uri with its /.well-known/ai-tool/<slug>.json URL (§6).
#include <optional>
#include <string>

#include <fmt/core.h>

#include <credence/chain/bindings/tool_registry.hpp>
#include <credence/cmd/args.hpp>
#include <credence/cmd/chain_context.hpp>
#include <credence/cmd/commands.hpp>
#include <credence/cmd/tool_manifest.hpp>
#include <credence/cmd/util.hpp>
#include <credence/core/bytes.hpp>
#include <credence/core/data_uri.hpp>
#include <credence/core/keccak.hpp>
#include <credence/core/manifest_checks.hpp>
#include <credence/core/uint256.hpp>

namespace credence::cmd {
namespace {

namespace tr = chain::bindings::tool_registry;
constexpr std::string_view kToolRegistry = "ToolRegistry";
/// ERC-8257 §Metadata URI Length Cap (ToolRegistry.MAX_METADATA_URI_LENGTH).
constexpr size_t kMaxMetadataUriBytes = 2048;

/// --uri, else the JCS bytes as a base64 data: URI (which must fit the 2,048-byte cap).
std::string metadata_uri(const ToolManifest& m, const std::string& flag) {
    if (!flag.empty()) return flag;
    std::string uri = data_uri_of(m.canonical.jcs);
    if (uri.size() > kMaxMetadataUriBytes)
        throw CliError(fmt::format(
            "{}: the manifest as a data: URI is {} bytes, over the registry's {}-byte cap; "
            "publish it and pass --uri",
            m.source, uri.size(), kMaxMetadataUriBytes));
    return uri;
}

/// After a data: URI went on chain (no --uri): said once the transaction is through, so that a
/// failure stays one line.
void warn_if_data_uri(const ToolManifest& m, const std::string& flag) {
    if (!flag.empty()) return;
    fmt::print(stderr,
               "warning: {}: stored as a data: URI, which ERC-8257 §7 never verifies (the "
               "metadataURI must be https://); publish the manifest and pass --uri\n",
               m.source);
}

tr::ToolConfig read_config(ChainContext& ctx, const core::Address& registry,
                           const core::Uint256& tool_id) {
    return ctx.call(tr::call::get_tool_config, registry, tool_id);
}

struct ToolArgs {
    std::string manifest, uri, predicate, tool_id, account, data, registry;
};

void run_register(ChainOptions& o, const ToolArgs& a) {
    const ToolManifest m = load_tool_manifest(a.manifest);
    const core::Address predicate =
        a.predicate.empty() ? core::Address{} : parse_address_arg("predicate", a.predicate);
    const std::string uri = metadata_uri(m, a.uri);

    ChainContext ctx(o);
    const auto& signer = ctx.signer().address;
    // ERC-8257 §7 Registration-Time Enforcement: refuse before signing.
    if (m.creator != signer)
        throw CliError(fmt::format(
            "{}: creatorAddress {} is not the signer {} (ERC-8257 §7: only the declared creator "
            "may register the tool)",
            m.source, m.creator.to_lower_hex(), signer.to_lower_hex()));
    const auto registry = ctx.contract(kToolRegistry, a.registry);
    auto sent = ctx.send(
        registry,
        must_abi(tr::register_tool(uri, m.canonical.manifest_hash, predicate), "registerTool"),
        "registerTool");

    Output out(o.json, OutputStyle::labeled);
    if (sent.receipt) {
        std::optional<core::Uint256> tool_id;
        for (const auto& log : sent.receipt->logs) {
            if (log.address != registry) continue;
            if (auto ev = tr::decode_tool_registered_event(log.topics, log.data)) {
                tool_id = ev->tool_id;
                break;
            }
        }
        if (!tool_id) throw CliError("registerTool: the receipt has no ToolRegistered event");
        out.add("toolId", uint_json(*tool_id));
    }
    out.add("manifestHash", core::to_hex(m.canonical.manifest_hash));
    if (o.json) {
        out.add("creator", signer.to_checksum_hex());
        out.add("accessPredicate", predicate.to_checksum_hex());
        out.add("metadataURI", uri);
    }
    ChainContext::report(out, sent);
    out.flush();
    warn_if_data_uri(m, a.uri);
}

void run_update(ChainOptions& o, const ToolArgs& a) {
    const core::Uint256 tool_id = parse_uint256_arg("tool id", a.tool_id);
    const ToolManifest m = load_tool_manifest(a.manifest);
    const std::string uri = metadata_uri(m, a.uri);

    ChainContext ctx(o);
    const auto registry = ctx.contract(kToolRegistry, a.registry);
    // ToolNotFound / ToolIsDeregistered surface here, decoded, before anything is signed.
    const auto config = read_config(ctx, registry, tool_id);
    // ERC-8257 §7 Consumer Verification check 4 must keep holding after the update. Whether the
    // signer may update is the registry's rule (NotToolCreator), so it is left to the contract.
    if (m.creator != config.creator)
        throw CliError(
            fmt::format("{}: creatorAddress {} is not the tool's creator {} (ERC-8257 §7 check 4)",
                        m.source, m.creator.to_lower_hex(), config.creator.to_lower_hex()));
    auto sent = ctx.send(registry,
                         must_abi(tr::update_tool_metadata(tool_id, uri, m.canonical.manifest_hash),
                                  "updateToolMetadata"),
                         "updateToolMetadata");
    Output out(o.json, OutputStyle::labeled);
    out.add("toolId", uint_json(tool_id));
    out.add("manifestHash", core::to_hex(m.canonical.manifest_hash));
    if (o.json) out.add("metadataURI", uri);
    ChainContext::report(out, sent);
    out.flush();
    warn_if_data_uri(m, a.uri);
}

void run_set_predicate(ChainOptions& o, const ToolArgs& a) {
    const core::Uint256 tool_id = parse_uint256_arg("tool id", a.tool_id);
    const core::Address predicate = parse_address_arg("predicate", a.predicate);
    ChainContext ctx(o);
    const auto registry = ctx.contract(kToolRegistry, a.registry);
    auto sent = ctx.send(
        registry, must_abi(tr::set_access_predicate(tool_id, predicate), "setAccessPredicate"),
        "setAccessPredicate");
    Output out(o.json, OutputStyle::labeled);
    out.add("toolId", uint_json(tool_id));
    out.add("accessPredicate", predicate.to_checksum_hex());
    ChainContext::report(out, sent);
    out.flush();
}

void run_deregister(ChainOptions& o, const ToolArgs& a) {
    const core::Uint256 tool_id = parse_uint256_arg("tool id", a.tool_id);
    ChainContext ctx(o);
    const auto registry = ctx.contract(kToolRegistry, a.registry);
    auto sent = ctx.send(registry, must_abi(tr::deregister_tool(tool_id), "deregisterTool"),
                         "deregisterTool");
    Output out(o.json, OutputStyle::labeled);
    out.add("toolId", uint_json(tool_id));
    ChainContext::report(out, sent);
    out.flush();
}

/// What `tool show` can say without fetching, in `verify tool`'s words (ERC-8257 §7). A data:
/// URI fails §7's first check (the metadataURI must be https://) whatever it holds, so the best
/// it gets is not_https with its bytes checked against checks 3 and 4; other URIs are left to
/// `verify tool`, which fetches them.
std::string manifest_status(const tr::ToolConfig& config) {
    if (!config.metadata_uri.starts_with("data:"))
        return "not checked here (`credence verify tool` fetches and checks it)";
    auto uri = core::parse_data_uri(config.metadata_uri);
    if (!uri) return fmt::format("unverified: bad data: URI ({})", to_string(uri.error().code));
    auto m = core::verify_manifest_bytes(uri->data, config.manifest_hash);
    if (!m) {
        const auto& e = m.error();
        return fmt::format("unverified: {}{}{}", to_string(e.code), e.detail.empty() ? "" : ": ",
                           e.detail);
    }
    const core::JsonValue* creator = m->document.find("creatorAddress");
    if (creator == nullptr || !creator->is_string() ||
        creator->as_string() != config.creator.to_lower_hex())
        return "unverified: creatorAddress is not the onchain creator";
    return "unverified: not_https (a data: URI; its manifest matches manifestHash and the creator)";
}

void run_show(ChainOptions& o, const ToolArgs& a) {
    const core::Uint256 tool_id = parse_uint256_arg("tool id", a.tool_id);
    ChainContext ctx(o);
    const auto registry = ctx.contract(kToolRegistry, a.registry);
    const auto config = read_config(ctx, registry, tool_id);
    Output out(o.json, OutputStyle::labeled);
    out.add("toolId", uint_json(tool_id));
    out.add("creator", config.creator.to_checksum_hex());
    out.add("metadataURI", config.metadata_uri);
    out.add("manifestHash", core::to_hex(config.manifest_hash));
    out.add("accessPredicate", config.access_predicate.to_checksum_hex());
    out.add("manifest", manifest_status(config));
    out.flush();
}

void run_access(ChainOptions& o, const ToolArgs& a) {
    const core::Uint256 tool_id = parse_uint256_arg("tool id", a.tool_id);
    const core::Address account = parse_address_arg("account", a.account);
    const core::Bytes data =
        a.data.empty() ? core::Bytes{} : must(core::from_prefixed_hex(a.data), "invalid --data");
    ChainContext ctx(o);
    const auto registry = ctx.contract(kToolRegistry, a.registry);
    const auto r = ctx.call(tr::call::try_has_access, registry, tool_id, account, data);
    // ERC-8257 IToolRegistry.tryHasAccess: (true, true) granted, (true, false) a clean denial,
    // (false, _) the predicate malfunctioned (revert, out of gas, non-canonical word, no code).
    const char* verdict = !r.ok ? "predicate broken" : r.granted ? "granted" : "denied";
    Output out(o.json, OutputStyle::labeled);
    out.add("access", verdict);
    if (o.json) {
        out.add("toolId", uint_json(tool_id));
        out.add("account", account.to_checksum_hex());
        out.add("ok", r.ok);
        out.add("granted", r.granted);
    }
    out.flush();
}

void run_hash(bool json, const ToolArgs& a, bool full) {
    Output out(json, OutputStyle::labeled);
    if (full) {
        const ToolManifest m = load_tool_manifest(a.manifest);
        out.add("manifestHash", core::to_hex(m.canonical.manifest_hash));
        out.add("creator", m.creator.to_lower_hex());
        if (json) out.add("jcs", m.canonical.jcs);
    } else {
        const auto c = canonical_manifest_bytes(read_input(a.manifest), a.manifest);
        out.add("manifestHash", core::to_hex(c.manifest_hash));
        if (json) {
            out.add("jcs", c.jcs);
            out.add("length", c.jcs.size());
        }
    }
    out.flush();
}

void add_tool_registry_option(CLI::App& cmd, std::string& registry) {
    cmd.add_option("--registry", registry, "ToolRegistry address (default: from the deployment)");
}

}  // namespace

void add_tool_commands(CLI::App& app) {
    static ChainOptions opts;
    static ToolArgs args;

    auto* group = app.add_subcommand("tool", "ERC-8257 Tool Registry");
    group->require_subcommand(1);

    auto* reg = group->add_subcommand(
        "register", "Register a tool from its manifest (checked, JCS-hashed; creator = signer)");
    reg->add_option("manifest", args.manifest, "Manifest JSON file ('-' for stdin)")->required();
    reg->add_option("--uri", args.uri,
                    "metadataURI (default: the JCS manifest as a data: URI, at most 2,048 bytes)");
    reg->add_option("--predicate", args.predicate, "Access predicate (default: open access)");
    add_tool_registry_option(*reg, args.registry);
    add_chain_options(*reg, opts, true);
    reg->callback([] { run_register(opts, args); });

    auto* update = group->add_subcommand(
        "update", "Point a tool at a new manifest (updateToolMetadata; creator only)");
    update->add_option("toolId", args.tool_id, "Tool id")->required();
    update->add_option("manifest", args.manifest, "Manifest JSON file")->required();
    update->add_option("--uri", args.uri, "metadataURI (default: the JCS manifest as data: URI)");
    add_tool_registry_option(*update, args.registry);
    add_chain_options(*update, opts, true);
    update->callback([] { run_update(opts, args); });

    auto* setp = group->add_subcommand("set-predicate",
                                       "Change a tool's access predicate (setAccessPredicate)");
    setp->add_option("toolId", args.tool_id, "Tool id")->required();
    setp->add_option("predicate", args.predicate, "Predicate address; 0x0…0 for open access")
        ->required();
    add_tool_registry_option(*setp, args.registry);
    add_chain_options(*setp, opts, true);
    setp->callback([] { run_set_predicate(opts, args); });

    auto* dereg = group->add_subcommand("deregister", "Deregister a tool, permanently");
    dereg->add_option("toolId", args.tool_id, "Tool id")->required();
    add_tool_registry_option(*dereg, args.registry);
    add_chain_options(*dereg, opts, true);
    dereg->callback([] { run_deregister(opts, args); });

    auto* show = group->add_subcommand("show", "A tool's onchain configuration (getToolConfig)");
    show->add_option("toolId", args.tool_id, "Tool id")->required();
    add_tool_registry_option(*show, args.registry);
    add_chain_options(*show, opts, false);
    show->callback([] { run_show(opts, args); });

    auto* access = group->add_subcommand(
        "access", "Whether an account may use a tool: granted, denied or predicate broken");
    access->add_option("toolId", args.tool_id, "Tool id")->required();
    access->add_option("account", args.account, "Account address")->required();
    access->add_option("--data", args.data, "0x-hex data passed to the predicate");
    add_tool_registry_option(*access, args.registry);
    add_chain_options(*access, opts, false);
    access->callback([] { run_access(opts, args); });

    auto* hash = group->add_subcommand(
        "hash", "Offline: manifestHash = keccak256(JCS(manifest)) after the byte rules");
    hash->add_option("manifest", args.manifest, "Manifest JSON file ('-' for stdin)")->required();
    hash->add_flag("--json", opts.json, "Print the result as JSON");
    hash->callback([] { run_hash(opts.json, args, false); });

    auto* check = group->add_subcommand(
        "check", "Offline: every manifest rule register applies (bytes and fields)");
    check->add_option("manifest", args.manifest, "Manifest JSON file ('-' for stdin)")->required();
    check->add_flag("--json", opts.json, "Print the result as JSON");
    check->callback([] { run_hash(opts.json, args, true); });
}

}  // namespace credence::cmd
