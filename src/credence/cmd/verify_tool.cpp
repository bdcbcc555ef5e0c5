// `credence verify tool` (docs/architecture.md §verify/): ERC-8257 §7 Consumer Verification of a
// registered tool.
//
//   verify tool <toolId> [--registry ADDR] [--no-predicate] [--json] [chain flags] [fetch flags]
//       reads getToolConfig, checks the metadataURI grammar, fetches the manifest without
//       redirects, runs the four checks in the text's order (re-reading getToolConfig once on a
//       hash mismatch), the full manifest schema, and the access predicate's risk flags
//       (verify/verifiers/tool_verifier.hpp).
//
// Output: the report (plain: verdict, reason in words, the four checks, the hashes, one line per
// schema issue and per predicate risk; --json: the whole report). Exit status: 0 when the tool is
// `canonical`; when it is `unverified` the report is still printed on stdout, then one error line
// "tool <id>: unverified: <reason>: <detail>" on stderr and exit 1. ERC-8257 §7 says an
// unverified tool MUST NOT be invoked, so `credence verify tool N && invoke` must stop there;
// scripts that want the report either way read --json's `verdict` and ignore the status.
#include <string>
#include <vector>

#include <fmt/core.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <credence/cmd/args.hpp>
#include <credence/cmd/chain_context.hpp>
#include <credence/cmd/commands.hpp>
#include <credence/cmd/verify.hpp>
#include <credence/verify/verifiers/tool_verifier.hpp>

namespace credence::cmd {
namespace {

struct VerifyToolArgs {
    ChainOptions chain;
    FetchArgs fetch;
    std::string registry;
    std::string tool_id;
    bool no_predicate = false;
};

void run_verify_tool(const VerifyToolArgs& a) {
    const core::Uint256 tool_id = parse_uint256_arg("toolId", a.tool_id);
    ChainContext ctx(a.chain);
    const core::Address registry = ctx.contract("ToolRegistry", a.registry);
    const auto fetcher = make_fetcher(a.fetch);
    verify::ToolVerifyOptions options;
    options.check_predicate = !a.no_predicate;
    const verify::ToolVerification report =
        verify::verify_tool(ctx.rpc(), registry, tool_id, *fetcher, options);

    Output out(a.chain.json, OutputStyle::labeled);
    if (a.chain.json) {
        // Keep the document alive across the loop: items() only references it (GCC 12 does not
        // extend temporaries in a range-for initializer).
        const auto doc = nlohmann::ordered_json::parse(report.to_json().dump());
        for (const auto& [k, v] : doc.items()) out.add(k, v);
    } else {
        out.add("verdict", fmt::format("{} ({})", verify::to_string(report.verdict),
                                       verify::describe(report.reason)));
        if (!report.detail.empty())
            out.add("detail",
                    fmt::format("{}: {}", verify::to_string(report.reason), report.detail));
        static constexpr const char* kNames[] = {"1 fetch", "2 origin binding",
                                                 "3 canonical bytes + hash", "4 creator binding"};
        std::vector<std::string> checks;
        checks.reserve(report.checks.size());
        for (size_t i = 0; i < report.checks.size(); ++i)
            checks.push_back(
                fmt::format("check {}: {}", kNames[i], verify::to_string(report.checks[i])));
        out.add("checks", checks);
        if (report.config) {
            out.add("metadataURI", report.config->metadata_uri);
            out.add("creator", report.config->creator.to_checksum_hex());
            out.add("onchainHash", core::to_hex(report.config->manifest_hash));
        }
        // keccak256 of the served manifest's JCS bytes: equal to onchainHash when canonical.
        if (report.manifest_hash) out.add("manifestHash", core::to_hex(*report.manifest_hash));
        if (report.config_reread) out.add("reread", "getToolConfig re-read once (hash mismatch)");
        if (report.effective_tier && report.declared_tier)
            out.add("tier",
                    fmt::format("{} (effective {})", verify::to_string(*report.declared_tier),
                                verify::to_string(*report.effective_tier)));
        std::vector<std::string> issues;
        issues.reserve(report.issues.size());
        for (const auto& i : report.issues)
            issues.push_back(fmt::format("{} {} {}: {}", core::to_string(i.severity),
                                         verify::to_string(i.reason), i.path.empty() ? "/" : i.path,
                                         i.message));
        out.add("issues", issues);
        if (report.predicate) {
            const auto& p = *report.predicate;
            std::vector<std::string> lines;
            if (p.open_access)
                lines.emplace_back("none (open access)");
            else if (p.risks.empty())
                lines.push_back(p.predicate.to_checksum_hex() + ": no risk flag");
            for (auto r : p.risks) {
                std::string line =
                    fmt::format("{}: {}", p.predicate.to_checksum_hex(), verify::to_string(r));
                if (r == verify::PredicateRisk::erc1967_proxy && p.implementation)
                    line += " (implementation " + p.implementation->to_checksum_hex() + ")";
                if (r == verify::PredicateRisk::probe_failed) line += " (" + p.detail + ")";
                lines.push_back(std::move(line));
            }
            out.add("predicate", lines);
        }
    }
    out.flush();
    if (!report.canonical())
        throw CliError(fmt::format("tool {}: unverified: {}: {}", tool_id.to_dec(),
                                   verify::to_string(report.reason),
                                   report.detail.empty() ? verify::describe(report.reason)
                                                         : std::string_view(report.detail)));
}

}  // namespace

void add_verify_tool_command(CLI::App& verify_group) {
    static VerifyToolArgs args;
    auto* cmd = verify_group.add_subcommand(
        "tool", "ERC-8257 §7: verify a registered tool (the four checks, schema, predicate risks)");
    cmd->add_option("toolId", args.tool_id, "Tool id")->required();
    cmd->add_option("--registry", args.registry,
                    "ToolRegistry address (default: the deployment's)");
    cmd->add_flag("--no-predicate", args.no_predicate,
                  "Skip the access predicate's risk flags (eth_getCode, storage, ERC-165)");
    add_chain_options(*cmd, args.chain, false);
    add_fetch_flags(*cmd, args.fetch);
    cmd->callback([] { run_verify_tool(args); });
}

}  // namespace credence::cmd
