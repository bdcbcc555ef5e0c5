// `credence validator`: an ERC-8004 validator agent (agent/validator.hpp).
//
//   credence validator --handler 'CMD' | builtin:NAME [--registry NAME|ADDR] [--tag T]
//                      [--soft-tag T] [--default-score N] [--publish-dir DIR --publish-base URL]
//                      [--allow-host H]... [--ca-file PEM] [--state-dir DIR] [--once] [--json]
//                      [--poll-ms N] [--ws-url URL | --no-subscribe]
//
// Answers the ValidationRequest events addressed to the signing key's address: fetches
// requestURI (safely), refuses it when keccak256(content) != requestHash, re-runs the job through
// the handler, publishes the response file (a data: URI, or a file in --publish-dir served at
// --publish-base) and calls validationResponse. Runs until SIGINT / SIGTERM, or with --once
// handles what is pending and exits. One line per request (--json: one JSON object per line).
// Requests are read by polling eth_getLogs; eth_subscribe (--ws-url, default: the RPC URL as
// ws:// or wss://) wakes the validator as soon as one is emitted, when the node offers it.
#include <filesystem>
#include <optional>
#include <string>

#include <fmt/core.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <credence/agent/handler.hpp>
#include <credence/agent/stop_signals.hpp>
#include <credence/agent/validator.hpp>
#include <credence/chain/deployment.hpp>
#include <credence/cmd/agent_subscribe.hpp>
#include <credence/cmd/chain_context.hpp>
#include <credence/cmd/commands.hpp>
#include <credence/cmd/util.hpp>
#include <credence/cmd/verify.hpp>
#include <credence/verify/net/fetch.hpp>

namespace credence::cmd {
namespace {

struct ValidatorArgs {
    ChainOptions chain;
    std::string registry;
    std::string handler;
    std::string tag = "hard-finality";
    std::string soft_tag;
    unsigned default_score = 100;
    std::string publish_dir;
    std::string publish_base;
    std::vector<std::string> allow_hosts;
    std::string ca_file;
    std::string state_dir;
    uint64_t from_block = 0;
    bool once = false;
    unsigned poll_ms = 500;
    SubscribeOptions subscribe;
    unsigned handler_timeout_ms = 30'000;
};

/// Writes each response file into a directory that some server publishes at `base`.
class DirectoryPublisher final : public agent::Publisher {
public:
    DirectoryPublisher(std::filesystem::path dir, std::string base)
        : dir_(std::move(dir)), base_(std::move(base)) {}

    std::expected<std::string, std::string> publish(const core::Hash32& request_hash,
                                                    core::ByteView content) override {
        const std::string name = core::to_hex(request_hash, false) + ".json";
        std::error_code ec;
        std::filesystem::create_directories(dir_, ec);
        std::FILE* f = std::fopen((dir_ / name).c_str(), "wb");
        if (f == nullptr)
            return std::unexpected(fmt::format("{}: cannot write", (dir_ / name).string()));
        const bool ok = std::fwrite(content.data(), 1, content.size(), f) == content.size();
        if (std::fclose(f) != 0 || !ok)
            return std::unexpected(fmt::format("{}: write failed", (dir_ / name).string()));
        return base_ + (base_.ends_with('/') ? "" : "/") + name;
    }

private:
    std::filesystem::path dir_;
    std::string base_;
};

void print_report(const agent::ValidationReport& r, bool json) {
    if (json) {
        nlohmann::ordered_json j{{"requestHash", core::to_hex(r.request_hash)},
                                 {"agentId", r.agent_id.to_dec()},
                                 {"requestURI", r.request_uri},
                                 {"answered", r.answered},
                                 {"alreadyAnswered", r.already_answered}};
        j["refusal"] = r.refusal ? nlohmann::ordered_json(agent::to_string(*r.refusal)) : nullptr;
        j["detail"] = r.detail;
        j["score"] = r.score;
        j["responseURI"] = r.response_uri;
        j["responseHash"] = core::to_hex(r.response_hash);
        j["tags"] = r.tags_sent;
        fmt::print("{}\n", j.dump());
    } else if (r.answered) {
        fmt::print(
            "request {} (agent {}): {} score {}{}\n", core::to_hex(r.request_hash),
            r.agent_id.to_dec(), r.already_answered ? "already answered" : "answered", r.score,
            r.tags_sent.empty() ? "" : " tags " + fmt::format("{}", fmt::join(r.tags_sent, ",")));
    } else {
        fmt::print("request {} (agent {}): refused: {}: {}\n", core::to_hex(r.request_hash),
                   r.agent_id.to_dec(), r.refusal ? agent::to_string(*r.refusal) : "", r.detail);
    }
    std::fflush(stdout);
}

void run_validator(ValidatorArgs& a) {
    ChainContext ctx(a.chain);
    const core::Address registry = ctx.contract("ValidationRegistry", a.registry);
    const uint64_t chain_id = ctx.chain_id();
    const auto& signer = ctx.signer();
    auto key = core::SecretKey::from_bytes(signer.key.expose_secret());
    if (!key) throw CliError("signing key: invalid");
    if (a.default_score > 100) throw CliError("--default-score: 0..100");
    if (a.publish_dir.empty() != a.publish_base.empty())
        throw CliError("give --publish-dir and --publish-base together");

    agent::BuiltinContext builtin;
    builtin.secret = agent::agent_secret(*key);
    auto handler = agent::make_handler(
        a.handler, builtin, agent::CommandOptions{std::chrono::milliseconds(a.handler_timeout_ms)});
    if (!handler) throw CliError(fmt::format("--handler: {}", handler.error().detail));

    verify::FetcherConfig fetch;
    fetch.allow_hosts = a.allow_hosts;
    fetch.ca_file = a.ca_file;
    std::optional<DirectoryPublisher> publisher;
    if (!a.publish_dir.empty()) publisher.emplace(a.publish_dir, a.publish_base);

    agent::ValidatorConfig config;
    config.registry = registry;
    config.state_dir = a.state_dir.empty()
                           ? chain::credence_home() / "agents" /
                                 fmt::format("{}-{}", chain_id, signer.address.to_checksum_hex()) /
                                 "validator"
                           : std::filesystem::path(a.state_dir);
    config.start_block = a.from_block;
    config.txn_confirmations = a.chain.confirmations;
    config.tag = a.tag;
    if (!a.soft_tag.empty()) config.soft_tag = a.soft_tag;
    config.default_score = static_cast<uint8_t>(a.default_score);
    config.poll_interval = std::chrono::milliseconds(a.poll_ms);
    config.subscribe = subscribe_config(a.subscribe, ctx.rpc_url(), "validator");
    const bool json = a.chain.json;
    auto validator = agent::Validator::create(std::move(ctx.rpc()), std::move(*key),
                                              std::move(*handler), verify::make_curl_fetcher(fetch),
                                              publisher ? &*publisher : nullptr, config);
    if (!validator) throw CliError(fmt::format("validator: {}", validator.error().detail));
    if (!json)
        fmt::print(stderr, "validator {} on {} (chain {}), handler {}\n",
                   (*validator)->address().to_checksum_hex(), registry.to_checksum_hex(), chain_id,
                   a.handler);
    if (a.once) {
        auto r = (*validator)->step();
        if (!r)
            throw CliError(fmt::format("validator: {}: {}", agent::to_string(r.error().code),
                                       r.error().detail));
        for (const auto& rep : *r) print_report(rep, json);
        return;
    }
    agent::StopOnSignals signals;
    (*validator)
        ->run(
            signals.token(), [json](const agent::ValidationReport& r) { print_report(r, json); },
            [](const agent::AgentFailure& f) {
                fmt::print(stderr, "validator: {}: {} (retrying)\n", agent::to_string(f.code),
                           f.detail);
            });
    if (!json) fmt::print(stderr, "validator stopped\n");
}

}  // namespace

void add_validator_commands(CLI::App& app) {
    static ValidatorArgs args;
    auto* cmd = app.add_subcommand(
        "validator",
        "Answer ERC-8004 validation requests with a handler (runs until SIGINT/SIGTERM)");
    add_chain_options(*cmd, args.chain, true);
    cmd->add_option("--registry", args.registry,
                    "ValidationRegistry address (default: deployment)");
    cmd->add_option("--handler", args.handler,
                    "A command (the request content in the job JSON on stdin; the response file "
                    "on stdout, its \"score\" member the response) or builtin:score|echo")
        ->required();
    cmd->add_option("--tag", args.tag, "Tag of the (final) response")->capture_default_str();
    cmd->add_option("--soft-tag", args.soft_tag,
                    "Send a first response with this tag, then the final one (progressive)");
    cmd->add_option("--default-score", args.default_score, "Score when the handler output has none")
        ->capture_default_str();
    cmd->add_option("--publish-dir", args.publish_dir, "Write response files here");
    cmd->add_option("--publish-base", args.publish_base, "URL the --publish-dir is served at");
    cmd->add_option("--allow-host", args.allow_hosts, "Host exempt from the SSRF guard")
        ->check(allow_host_check());
    cmd->add_option("--ca-file", args.ca_file, "Extra trusted CA bundle (PEM)");
    cmd->add_option("--state-dir", args.state_dir, "Cursor (default: under the credence home)");
    cmd->add_option("--from-block", args.from_block, "First block to read without a cursor");
    cmd->add_flag("--once", args.once, "Handle what is pending, then exit");
    cmd->add_option("--poll-ms", args.poll_ms, "Milliseconds between polls")->capture_default_str();
    add_subscribe_options(*cmd, args.subscribe);
    cmd->add_option("--handler-timeout-ms", args.handler_timeout_ms, "Handler time limit")
        ->capture_default_str();
    cmd->callback([] { run_validator(args); });
}

}  // namespace credence::cmd
