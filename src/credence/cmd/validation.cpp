// `credence validation`: the ERC-8004 Validation Registry from the command line.
//
//   request <validator> <agentId> --file F [--uri U]   validationRequest; requestHash =
//                                                      keccak256(the file's exact bytes)
//   respond <requestHash> <response> [--file F] [--uri U] [--tag T]
//                                                      validationResponse (validator only)
//   status <requestHash>                               getValidationStatus
//   summary <agentId> [--validator A]... [--tag T]     getSummary
//   list (--agent N | --validator A)                   getAgentValidations / getValidatorRequests
//
// ERC-8004 §Validation Registry: the requestHash is "a commitment to this data (keccak256 of the
// request payload)", so the file is hashed byte for byte (no re-serialization, no trimming); the
// default requestURI carries those same bytes as a data: URI so the commitment can be checked
// from the chain alone. Every command takes --registry to override the deployment's address.
//
// --revision score|draft (revision_args.hpp): the intermediate revision's Validation Registry has
// the current one's request, respond, summary and list ABI (its status has no responseHash); the
// first draft's (validation_draft.cpp) names validator and server by AgentID and a request by
// its DataHash:
//   request --revision draft --validator <agentId> --server <agentId> --data-hash 0x..
//   respond --revision draft <dataHash> --response N       status --revision draft <dataHash>
#include <optional>
#include <string>
#include <vector>

#include <fmt/core.h>

#include <credence/chain/bindings/score_validation_registry.hpp>
#include <credence/chain/bindings/validation_registry.hpp>
#include <credence/cmd/args.hpp>
#include <credence/cmd/chain_context.hpp>
#include <credence/cmd/commands.hpp>
#include <credence/cmd/erc8004_legacy.hpp>
#include <credence/cmd/revision_args.hpp>
#include <credence/cmd/util.hpp>
#include <credence/core/data_uri.hpp>
#include <credence/core/json.hpp>
#include <credence/core/keccak.hpp>
#include <credence/core/uint256.hpp>

namespace credence::cmd {
namespace {

namespace vr = chain::bindings::validation_registry;
constexpr std::string_view kValidationRegistry = "ValidationRegistry";

struct RequestArgs {
    std::string validator, agent_id, file, uri, registry, revision;
    std::string validator_id, server_id, data_hash;  // --revision draft
};
struct ValidationRespondArgs {
    std::string request_hash, file, uri, tag, registry, revision;
    std::optional<unsigned> response;
    std::optional<unsigned> response_flag;  // --response
    std::optional<std::string> response_hash;
};
struct ValidationReadArgs {
    std::string request_hash, agent_id, tag, registry, revision;
    std::vector<std::string> validators;
    std::optional<std::string> agent;
    std::optional<std::string> validator;
};

/// The registry of --revision: the current or the intermediate revision's (same ABI here).
core::Address validation_address(ChainContext& ctx, const std::string& revision,
                                 const std::string& registry) {
    return revision_registry(ctx, parse_revision_arg(revision), core::Erc8004Registry::validation,
                             registry);
}

/// The first draft keeps no per-agent index or summary of validations: requests are found by
/// their DataHash only (ERC-8004 first draft §Validation Registry).
/// Adds "revision" for an earlier revision's registry, as every earlier-revision command does.
void add_revision_field(Output& out, const std::string& revision) {
    if (parse_revision_arg(revision) != core::Erc8004Revision::current)
        out.add("revision", revision);
}

void refuse_in_draft(const std::string& revision, std::string_view what) {
    const auto r = parse_revision_arg(revision);
    if (r == core::Erc8004Revision::draft)
        absent_in_revision(r, what, "Validation Registry",
                           "read a request with `credence validation status --revision draft "
                           "<dataHash>`");
}

DraftValidationArgs draft_validation_args(const ChainOptions& o, const std::string& registry) {
    DraftValidationArgs d;
    d.chain = o;
    d.registry = registry;
    return d;
}

void run_request(ChainOptions& o, const RequestArgs& a) {
    const auto revision = parse_revision_arg(a.revision);
    if (revision == core::Erc8004Revision::draft) {
        if (!a.validator.empty() || !a.agent_id.empty() || !a.file.empty() || !a.uri.empty())
            throw CliError(
                "request --revision draft takes --validator <agentId> --server <agentId> "
                "--data-hash 0x.. (the first draft has no requestURI)");
        auto d = draft_validation_args(o, a.registry);
        d.validator = a.validator_id;
        d.server = a.server_id;
        d.data_hash = a.data_hash;
        return run_draft_validation_request(d);
    }
    require_revision_for_flag(revision, core::Erc8004Revision::draft, !a.validator_id.empty(),
                              "--validator");
    require_revision_for_flag(revision, core::Erc8004Revision::draft, !a.server_id.empty(),
                              "--server");
    require_revision_for_flag(revision, core::Erc8004Revision::draft, !a.data_hash.empty(),
                              "--data-hash");
    if (a.validator.empty() || a.agent_id.empty() || a.file.empty())
        throw CliError("request needs <validator> <agentId> --file F");
    const core::Address validator = parse_address_arg("validator", a.validator);
    const core::Uint256 agent_id = parse_uint256_arg("agent id", a.agent_id);
    const std::string bytes = read_input(a.file);
    const core::Hash32 request_hash = core::keccak256(core::as_bytes(bytes));
    const std::string uri = a.uri.empty() ? data_uri_of(bytes) : a.uri;

    ChainContext ctx(o);
    const auto registry = validation_address(ctx, a.revision, a.registry);
    auto sent = ctx.send(registry,
                         must_abi(vr::validation_request(validator, agent_id, uri, request_hash),
                                  "validationRequest"),
                         "validationRequest");
    Output out(o.json, OutputStyle::labeled);
    out.add("requestHash", core::to_hex(request_hash));
    if (o.json) {
        out.add("validator", validator.to_checksum_hex());
        out.add("agentId", agent_id.to_dec());  // uint256: a decimal string everywhere
        out.add("requestURI", uri);
    }
    add_revision_field(out, a.revision);
    ChainContext::report(out, sent);
    out.flush();
}

void run_respond(ChainOptions& o, const ValidationRespondArgs& a) {
    if (a.response && a.response_flag)
        throw CliError("respond: pass the response once (the argument or --response)");
    const std::optional<unsigned> response = a.response ? a.response : a.response_flag;
    const auto revision = parse_revision_arg(a.revision);
    if (revision == core::Erc8004Revision::draft) {
        if (!a.file.empty() || !a.uri.empty() || !a.tag.empty())
            throw CliError(
                "respond --revision draft takes <dataHash> --response N only (the first draft's "
                "response has no URI, hash or tag)");
        auto d = draft_validation_args(o, a.registry);
        d.data_hash = a.request_hash;
        d.response = response;
        return run_draft_validation_respond(d);
    }
    if (!response) throw CliError("respond needs a response 0..100");
    const core::Hash32 request_hash = parse_hash_arg("request hash", a.request_hash);
    // ERC-8004 §Validation Response: "a value between 0 and 100" (so the intermediate revision).
    if (*response > 100)
        throw CliError(fmt::format("response {} out of range: must be 0..100", *response));
    core::Hash32 response_hash{};
    std::string uri = a.uri;
    if (!a.file.empty()) {
        const std::string bytes = read_input(a.file);
        response_hash = core::keccak256(core::as_bytes(bytes));
        if (uri.empty()) uri = data_uri_of(bytes);
    }
    ChainContext ctx(o);
    const auto registry = validation_address(ctx, a.revision, a.registry);
    auto sent = ctx.send(
        registry,
        must_abi(vr::validation_response(request_hash, *response, uri, response_hash, a.tag),
                 "validationResponse"),
        "validationResponse");
    Output out(o.json, OutputStyle::labeled);
    out.add("requestHash", core::to_hex(request_hash));
    out.add("response", *response);
    if (o.json) {
        out.add("responseHash", core::to_hex(response_hash));
        out.add("responseURI", uri);
        out.add("tag", a.tag);
    }
    add_revision_field(out, a.revision);
    ChainContext::report(out, sent);
    out.flush();
}

/// `status --revision score`: that revision's getValidationStatus has no responseHash.
void run_status_score(ChainOptions& o, const ValidationReadArgs& a) {
    namespace svr = chain::bindings::score_validation_registry;
    const core::Hash32 request_hash = parse_hash_arg("request hash", a.request_hash);
    ChainContext ctx(o);
    const auto registry = validation_address(ctx, a.revision, a.registry);
    const auto s = ctx.call(svr::call::get_validation_status, registry, request_hash);
    Output out(o.json, OutputStyle::labeled);
    if (o.json) out.add("requestHash", core::to_hex(request_hash));
    out.add("validator", s.validator_address.to_checksum_hex());
    out.add("agentId", s.agent_id.to_dec());
    out.add("response", s.response);
    out.add("tag", s.tag);
    out.add("lastUpdate", uint_json(s.last_update));
    out.add("revision", "score");
    out.flush();
}

void run_status(ChainOptions& o, const ValidationReadArgs& a) {
    const auto revision = parse_revision_arg(a.revision);
    if (revision == core::Erc8004Revision::draft) {
        auto d = draft_validation_args(o, a.registry);
        d.data_hash = a.request_hash;
        return run_draft_validation_status(d);
    }
    if (revision == core::Erc8004Revision::score) return run_status_score(o, a);
    const core::Hash32 request_hash = parse_hash_arg("request hash", a.request_hash);
    ChainContext ctx(o);
    const auto registry = ctx.contract(kValidationRegistry, a.registry);
    const auto s = ctx.call(vr::call::get_validation_status, registry, request_hash);
    Output out(o.json, OutputStyle::labeled);
    if (o.json) out.add("requestHash", core::to_hex(request_hash));
    out.add("validator", s.validator_address.to_checksum_hex());
    out.add("agentId", s.agent_id.to_dec());
    out.add("response", s.response);
    out.add("responseHash", core::to_hex(s.response_hash));
    out.add("tag", s.tag);
    out.add("lastUpdate", uint_json(s.last_update));
    out.flush();
}

void run_summary(ChainOptions& o, const ValidationReadArgs& a) {
    refuse_in_draft(a.revision, "validation summary");
    const core::Uint256 agent_id = parse_uint256_arg("agent id", a.agent_id);
    std::vector<core::Address> validators;
    validators.reserve(a.validators.size());
    for (const auto& v : a.validators) validators.push_back(parse_address_arg("validator", v));
    ChainContext ctx(o);
    const auto registry = validation_address(ctx, a.revision, a.registry);
    const auto s = ctx.call(vr::call::get_summary, registry, agent_id, validators, a.tag);
    Output out(o.json, OutputStyle::labeled);
    out.add("count", s.count);
    out.add("averageResponse", s.average_response);
    add_revision_field(out, a.revision);
    out.flush();
}

void run_list(ChainOptions& o, const ValidationReadArgs& a) {
    refuse_in_draft(a.revision, "per-agent or per-validator request lists");
    if (a.agent.has_value() == a.validator.has_value())
        throw CliError("list: pass exactly one of --agent or --validator");
    ChainContext ctx(o);
    const auto registry = validation_address(ctx, a.revision, a.registry);
    std::vector<core::Hash32> hashes;
    if (a.agent) {
        hashes = ctx.call(vr::call::get_agent_validations, registry,
                          parse_uint256_arg("agent id", *a.agent));
    } else {
        hashes = ctx.call(vr::call::get_validator_requests, registry,
                          parse_address_arg("validator", *a.validator));
    }
    auto list = nlohmann::ordered_json::array();
    for (const auto& h : hashes) list.push_back(core::to_hex(h));
    Output out(o.json, OutputStyle::labeled);
    out.add("requestHashes", std::move(list));
    add_revision_field(out, a.revision);
    out.flush();
}

void add_validation_registry_option(CLI::App& cmd, std::string& registry) {
    cmd.add_option("--registry", registry,
                   "ValidationRegistry address (default: from the deployment file)");
}

}  // namespace

void add_validation_commands(CLI::App& app) {
    static ChainOptions opts;
    static RequestArgs req;
    static ValidationRespondArgs resp;
    static ValidationReadArgs rd;

    auto* group = app.add_subcommand("validation", "ERC-8004 Validation Registry");
    group->require_subcommand(1);

    auto* request = group->add_subcommand(
        "request", "Request validation of an agent's work (validationRequest)");
    request->add_option("validator", req.validator, "Validator address");
    request->add_option("agentId", req.agent_id, "Agent id");
    request->add_option("--file", req.file, "Request file; keccak256 of its bytes is requestHash");
    request->add_option("--uri", req.uri, "requestURI (default: a data: URI of the file)");
    request->add_option("--validator", req.validator_id,
                        "--revision draft: the validator agent's AgentID");
    request->add_option("--server", req.server_id, "--revision draft: the server agent's AgentID");
    request->add_option("--data-hash", req.data_hash, "--revision draft: the DataHash (0x..)");
    add_validation_registry_option(*request, req.registry);
    add_revision_option(*request, req.revision);
    add_chain_options(*request, opts, true);
    request->callback([] { run_request(opts, req); });

    auto* respond = group->add_subcommand(
        "respond", "Answer a validation request as its validator (validationResponse)");
    respond->add_option("requestHash", resp.request_hash, "The request's hash")->required();
    respond->add_option("response", resp.response, "0 (failed) .. 100 (passed)");
    respond->add_option("--response", resp.response_flag, "The response, as a flag");
    respond->add_option("--file", resp.file,
                        "Response/evidence file; keccak256 of its bytes is responseHash");
    respond->add_option("--uri", resp.uri,
                        "responseURI (default: a data: URI of --file, else empty)");
    respond->add_option("--tag", resp.tag, "Tag, e.g. soft-finality");
    add_validation_registry_option(*respond, resp.registry);
    add_revision_option(*respond, resp.revision);
    add_chain_options(*respond, opts, true);
    respond->callback([] { run_respond(opts, resp); });

    auto* status = group->add_subcommand("status", "A request's state (getValidationStatus)");
    status->add_option("requestHash", rd.request_hash, "The request's hash")->required();
    add_validation_registry_option(*status, rd.registry);
    add_revision_option(*status, rd.revision);
    add_chain_options(*status, opts, false);
    status->callback([] { run_status(opts, rd); });

    auto* summary =
        group->add_subcommand("summary", "Count and average response of an agent (getSummary)");
    summary->add_option("agentId", rd.agent_id, "Agent id")->required();
    summary->add_option("--validator", rd.validators, "Only these validators (repeatable)");
    summary->add_option("--tag", rd.tag, "Only responses with this tag");
    add_validation_registry_option(*summary, rd.registry);
    add_revision_option(*summary, rd.revision);
    add_chain_options(*summary, opts, false);
    summary->callback([] { run_summary(opts, rd); });

    auto* list = group->add_subcommand(
        "list", "Request hashes of an agent (--agent) or of a validator (--validator)");
    list->add_option("--agent", rd.agent, "Agent id: getAgentValidations");
    list->add_option("--validator", rd.validator, "Validator address: getValidatorRequests");
    add_validation_registry_option(*list, rd.registry);
    add_revision_option(*list, rd.revision);
    add_chain_options(*list, opts, false);
    list->callback([] { run_list(opts, rd); });
}

}  // namespace credence::cmd
