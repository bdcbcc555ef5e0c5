// `credence verify feedback` and `credence verify validation` (docs/architecture.md §verify/).
//
//   verify feedback <agentId> <clientAddress> <feedbackIndex> [--registry ADDR]
//                   [--payment-rpc CHAIN=URL]... [chain flags] [fetch flags]
//       reads the NewFeedback event (feedbackURI and feedbackHash are only emitted, ERC-8004
//       §Giving Feedback), fetches the file, checks its hash (or CID), its MUST fields against the
//       event, its proofOfPayment (on the connected chain, or a --payment-rpc one), and the files
//       of the responses appended to it.
//   verify validation <requestHash> [--registry ADDR] [chain flags] [fetch flags]
//       reads the ValidationRequest and every ValidationResponse for requestHash and checks the
//       request file against requestHash and each response file against its responseHash.
//
// Output: the report (plain: status, reason, URI, integrity, payment, one line per issue; --json:
// the whole report). A report whose status is `failed` also ends with one error line and exit 1,
// so scripts can test the exit code; verified, unverified and absent exit 0.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <credence/cmd/args.hpp>
#include <credence/cmd/chain_context.hpp>
#include <credence/cmd/commands.hpp>
#include <credence/cmd/verify.hpp>
#include <credence/verify/verifiers/feedback_verifier.hpp>

namespace credence::cmd {
namespace {

struct VerifyFeedbackArgs {
    ChainOptions chain;
    FetchArgs fetch;
    std::string registry;
    std::string agent_id;
    std::string client;
    std::string index;
    std::vector<std::string> payment_rpcs;  // CHAIN=URL
};

struct VerifyValidationArgs {
    ChainOptions chain;
    FetchArgs fetch;
    std::string registry;
    std::string request_hash;
};

[[noreturn]] void throw_read_error(const core::Error<verify::ReadError>& e) {
    throw CliError(e.detail);
}

std::vector<std::string> issue_lines(const std::vector<verify::FileIssue>& issues) {
    std::vector<std::string> out;
    out.reserve(issues.size());
    for (const auto& i : issues)
        out.push_back(fmt::format("{} {}{}: {}", core::to_string(i.severity),
                                  verify::to_string(i.reason), i.path.empty() ? "" : " " + i.path,
                                  i.message));
    return out;
}

void fail_if(verify::FileStatus status, std::optional<verify::FileReason> reason,
             std::string_view what) {
    if (status != verify::FileStatus::failed) return;
    throw CliError(fmt::format("{} failed verification: {}", what,
                               reason ? verify::to_string(*reason) : "unknown"));
}

void run_verify_feedback(const VerifyFeedbackArgs& a) {
    const core::Uint256 agent_id = parse_uint256_arg("agentId", a.agent_id);
    const core::Address client = parse_address_arg("clientAddress", a.client);
    const uint64_t index = parse_u64_arg("feedbackIndex", a.index);
    std::map<uint64_t, std::unique_ptr<chain::RpcClient>> payment_rpcs;
    for (const auto& kv : a.payment_rpcs) {
        auto [chain, url] = split_key_value("--payment-rpc", kv);
        payment_rpcs[parse_u64_arg("--payment-rpc chain id", chain)] =
            std::make_unique<chain::RpcClient>(chain::RpcClient::make_http(url));
    }

    ChainContext ctx(a.chain);
    const core::Address registry = ctx.contract("ReputationRegistry", a.registry);
    auto record = verify::read_onchain_feedback(ctx.rpc(), registry, agent_id, client, index);
    if (!record) throw_read_error(record.error());

    const uint64_t own_chain = ctx.chain_id();
    verify::FeedbackVerifyOptions options;
    options.rpc_for_chain = [&](uint64_t chain_id) -> chain::RpcClient* {
        if (auto it = payment_rpcs.find(chain_id); it != payment_rpcs.end())
            return it->second.get();
        return chain_id == own_chain ? &ctx.rpc() : nullptr;
    };
    const auto fetcher = make_fetcher(a.fetch);
    const auto report = verify::verify_feedback(*fetcher, *record, options);

    Output out(a.chain.json, OutputStyle::labeled);
    out.add("status", std::string(verify::to_string(report.status)));
    if (report.reason) out.add("reason", std::string(verify::to_string(*report.reason)));
    out.add("feedbackURI", record->feedback_uri);
    out.add("feedbackHash", core::to_hex(record->feedback_hash));
    if (a.chain.json) {
        out.add("agentId", uint_json(agent_id));
        out.add("client", client.to_checksum_hex());
        out.add("feedbackIndex", index);
        out.add("revoked", record->revoked);
        out.add("blockNum", record->block_num);
        out.add("report", nlohmann::ordered_json::parse(report.to_json().dump()));
    } else {
        out.add("integrity", std::string(verify::to_string(report.content.integrity)));
        if (report.payment) {
            const auto& p = *report.payment;
            out.add("payment",
                    p.verified
                        ? fmt::format("payment verified: {} {} from {} to {}", p.amount.to_dec(),
                                      p.token ? p.token->to_checksum_hex() : std::string("wei"),
                                      p.from ? p.from->to_checksum_hex() : "?",
                                      p.to ? p.to->to_checksum_hex() : "?")
                        : fmt::format("payment not verified: {}", p.detail));
        }
        out.add("issues", issue_lines(report.issues));
        std::vector<std::string> responses;
        responses.reserve(report.responses.size());
        for (const auto& r : report.responses)
            responses.push_back(
                fmt::format("response {} {}{}", r.uri, verify::to_string(r.status),
                            r.reason ? fmt::format(" ({})", verify::to_string(*r.reason)) : ""));
        out.add("responses", responses);
    }
    out.flush();
    fail_if(report.status, report.reason, "feedback");
}

void run_verify_validation(const VerifyValidationArgs& a) {
    const core::Hash32 request_hash = parse_hash_arg("requestHash", a.request_hash);
    ChainContext ctx(a.chain);
    const core::Address registry = ctx.contract("ValidationRegistry", a.registry);
    auto record = verify::read_onchain_validation(ctx.rpc(), registry, request_hash);
    if (!record) throw_read_error(record.error());
    const auto fetcher = make_fetcher(a.fetch);
    const auto report = verify::verify_validation(*fetcher, *record);

    Output out(a.chain.json, OutputStyle::labeled);
    if (a.chain.json) {
        const auto doc = nlohmann::ordered_json::parse(report.to_json(*record).dump());
        for (const auto& [key, value] : doc.items()) out.add(key, value);
    } else {
        out.add("status", std::string(verify::to_string(report.status)));
        if (report.reason) out.add("reason", std::string(verify::to_string(*report.reason)));
        std::vector<std::string> lines;
        lines.push_back(fmt::format("request {} {}", record->request_uri,
                                    verify::to_string(report.request.status)));
        for (const auto& i : issue_lines(report.request.issues)) lines.push_back("  " + i);
        for (size_t n = 0; n < report.responses.size(); ++n) {
            const auto& r = report.responses[n];
            lines.push_back(
                fmt::format("response {} ({}) {} {}", n + 1, record->responses[n].response,
                            r.uri.empty() ? "(no file)" : r.uri, verify::to_string(r.status)));
            for (const auto& i : issue_lines(r.issues)) lines.push_back("  " + i);
        }
        out.add("files", lines);
    }
    out.flush();
    fail_if(report.status, report.reason, "validation");
}

}  // namespace

void add_verify_feedback_command(CLI::App& verify_group) {
    static VerifyFeedbackArgs feedback;
    auto* cmd = verify_group.add_subcommand(
        "feedback", "Check a feedback file against the chain: hash or CID, MUST fields, payment");
    cmd->add_option("agentId", feedback.agent_id, "Agent id")->required();
    cmd->add_option("clientAddress", feedback.client, "Address that gave the feedback")->required();
    cmd->add_option("feedbackIndex", feedback.index, "The client's 1-based feedback index")
        ->required();
    cmd->add_option("--registry", feedback.registry,
                    "ReputationRegistry address (default: from the deployment file)");
    cmd->add_option("--payment-rpc", feedback.payment_rpcs,
                    "CHAIN=URL: JSON-RPC for proofOfPayment on another chain (repeatable; the "
                    "connected chain is always used for its own id)");
    add_chain_options(*cmd, feedback.chain, false);
    add_fetch_flags(*cmd, feedback.fetch);
    cmd->callback([] { run_verify_feedback(feedback); });
}

void add_verify_validation_command(CLI::App& verify_group) {
    static VerifyValidationArgs validation;
    auto* cmd = verify_group.add_subcommand(
        "validation", "Check a validation's request and response files against their hashes");
    cmd->add_option("requestHash", validation.request_hash, "The request's requestHash")
        ->required();
    cmd->add_option("--registry", validation.registry,
                    "ValidationRegistry address (default: from the deployment file)");
    add_chain_options(*cmd, validation.chain, false);
    add_fetch_flags(*cmd, validation.fetch);
    cmd->callback([] { run_verify_validation(validation); });
}

}  // namespace credence::cmd
