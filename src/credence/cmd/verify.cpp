// `credence verify`: the group, the shared fetch flags, and `verify fetch`.
//
//   fetch <url> [--kind registration|manifest|feedback] [--json] [fetch flags]
//       fetches one document with that kind's policy (size cap, timeouts, redirect budget, SSRF
//       guard) and prints the final URL, HTTP status, content type, size, keccak256 of the body
//       and the body; a failure is one line "fetch <url>: <reason>: <detail>" and exit 1.
#include <credence/cmd/verify.hpp>

#include <string>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <credence/cmd/commands.hpp>
#include <credence/core/bytes.hpp>
#include <credence/core/keccak.hpp>
#include <credence/verify/net/ipfs_gateways.hpp>
#include <credence/verify/net/ssrf_guard.hpp>

namespace credence::cmd {
namespace {

struct FetchCommandArgs {
    std::string url;
    std::string kind = "registration";
    bool json = false;
    FetchArgs fetch;
};

verify::FetchPolicy policy_for(const std::string& kind) {
    if (kind == "registration") return verify::registration_policy();
    if (kind == "manifest") return verify::manifest_policy();
    if (kind == "feedback") return verify::feedback_policy();
    throw CliError("--kind '" + kind + "': expected registration, manifest or feedback");
}

void run_fetch(const FetchCommandArgs& args) {
    const auto fetcher = make_fetcher(args.fetch);
    auto result = fetcher->fetch(args.url, policy_for(args.kind));
    if (!result) throw CliError(fmt::format("fetch {}: {}", args.url, describe(result.error())));
    const auto& r = *result;
    const std::string body(r.body.begin(), r.body.end());
    Output out(args.json);
    out.add("url", r.final_url);
    out.add("status", r.status);
    out.add("contentType", r.content_type);
    out.add("size", r.body.size());
    out.add("keccak256", core::to_hex(core::keccak256(core::ByteView(r.body))));
    // JSON carries the body as text only when it is valid UTF-8 (dump() throws otherwise).
    bool text = true;
    if (args.json) {
        try {
            (void)nlohmann::json(body).dump();
        } catch (const nlohmann::json::exception&) {
            text = false;
        }
    }
    if (text) {
        out.add("body", body);
    } else {
        out.add("bodyHex", core::to_hex(core::ByteView(r.body)));
    }
    out.flush();
}

}  // namespace

CLI::Validator allow_host_check() {
    return CLI::Validator(
        [](const std::string& entry) -> std::string {
            auto parsed = verify::HostAllowList::parse({entry});
            return parsed ? std::string() : parsed.error();
        },
        "HOST|IP|CIDR|NAME=IP[:PORT]");
}

void add_fetch_flags(CLI::App& cmd, FetchArgs& args) {
    cmd.add_option("--allow-host", args.allow_hosts,
                   "Host name, IP, CIDR or name=IP[:port] pin exempt from the SSRF guard "
                   "(repeatable)")
        ->check(allow_host_check());
    cmd.add_option("--connect-to", args.connect_to,
                   "curl CONNECT_TO 'host:port:connect-host:connect-port' (repeatable)");
    cmd.add_option("--ca-file", args.ca_file, "PEM CA bundle to trust instead of the system CAs")
        ->check(CLI::ExistingFile);
    cmd.add_flag("--allow-http", args.allow_http, "Allow plain http:// URLs");
    auto* gateway = cmd.add_option("--ipfs-gateway", args.ipfs_gateways,
                                   "Trustless IPFS gateway base URL, tried in order (repeatable; "
                                   "replaces the default public gateways)");
    cmd.add_flag("--no-ipfs-gateway", args.no_ipfs_gateway,
                 "Ask no IPFS gateway: ipfs:// URLs fail with no_gateway")
        ->excludes(gateway);
}

verify::FetcherConfig fetcher_config(const FetchArgs& args) {
    verify::FetcherConfig config;
    config.allow_hosts = args.allow_hosts;
    config.connect_to = args.connect_to;
    config.ca_file = args.ca_file;
    config.allow_http = args.allow_http;
    if (!args.no_ipfs_gateway) {
        config.ipfs_gateways =
            args.ipfs_gateways.empty() ? verify::default_ipfs_gateways() : args.ipfs_gateways;
    }
    return config;
}

std::unique_ptr<verify::Fetcher> make_fetcher(const FetchArgs& args) {
    return verify::make_curl_fetcher(fetcher_config(args));
}

std::string describe(const core::Error<verify::FetchError>& error) {
    return error.detail.empty()
               ? std::string(verify::to_string(error.code))
               : fmt::format("{}: {}", verify::to_string(error.code), error.detail);
}

void add_verify_commands(CLI::App& app) {
    static FetchCommandArgs fetch_args;

    auto* group = app.add_subcommand(
        "verify", "Check what the chain points to: registration files, tools, feedback, runs");
    group->require_subcommand(1);

    auto* fetch = group->add_subcommand(
        "fetch", "Fetch one document the way the verifier does (size cap, timeouts, SSRF guard)");
    fetch->add_option("url", fetch_args.url, "https://, ipfs:// or data: URL")->required();
    fetch
        ->add_option("--kind", fetch_args.kind,
                     "Policy: registration (256 KiB), manifest (1 MiB, no redirects), "
                     "feedback (1 MiB)")
        ->check(CLI::IsMember({"registration", "manifest", "feedback"}));
    fetch->add_flag("--json", fetch_args.json, "Print the result as JSON");
    add_fetch_flags(*fetch, fetch_args.fetch);
    fetch->callback([] { run_fetch(fetch_args); });

    // Subcommands from their own files (verify_<x>.cpp): one line each, below.
    add_verify_feedback_command(*group);
    add_verify_validation_command(*group);
    add_verify_agent_command(*group);
    add_verify_tool_command(*group);
    add_verify_run_command(*group);
    add_verify_pending_command(*group);
}

}  // namespace credence::cmd
