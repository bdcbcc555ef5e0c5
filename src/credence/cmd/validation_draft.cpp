// `credence validation ... --revision draft`: the first draft's Validation Registry. The server
// agent asks a validator agent, both named by AgentID, to check the work committed to by a
// DataHash; the validator answers 0..100 while the request is still in the registry's memory
// (ERC-8004 first draft §Validation Registry, §Validation Responses).
#include <fmt/core.h>

#include <credence/chain/bindings/draft_validation_registry.hpp>
#include <credence/cmd/erc8004_legacy.hpp>
#include <credence/cmd/revision_args.hpp>
#include <credence/cmd/util.hpp>

namespace credence::cmd {
namespace {

namespace dvr = chain::bindings::draft_validation_registry;

core::Address draft_validation(ChainContext& ctx, const DraftValidationArgs& a) {
    return revision_registry(ctx, core::Erc8004Revision::draft, core::Erc8004Registry::validation,
                             a.registry);
}

}  // namespace

void run_draft_validation_request(const DraftValidationArgs& a) {
    if (a.validator.empty() || a.server.empty() || a.data_hash.empty())
        throw CliError(
            "request --revision draft needs --validator <agentId>, --server <agentId> and "
            "--data-hash 0x...");
    const core::Uint256 validator = parse_uint256_arg("--validator", a.validator);
    const core::Uint256 server = parse_uint256_arg("--server", a.server);
    const core::Hash32 data_hash = parse_hash_arg("--data-hash", a.data_hash);
    ChainContext ctx(a.chain);
    const core::Address registry = draft_validation(ctx, a);
    const SentTxn sent = ctx.send(
        registry,
        must_abi(dvr::validation_request(validator, server, data_hash), "validationRequest"),
        "validationRequest");
    Output out(a.chain.json, OutputStyle::labeled);
    out.add("dataHash", core::to_hex(data_hash));
    out.add("agentValidatorId", validator.to_dec());
    out.add("agentServerId", server.to_dec());
    out.add("revision", "draft");
    ChainContext::report(out, sent);
    out.flush();
}

void run_draft_validation_respond(const DraftValidationArgs& a) {
    const core::Hash32 data_hash = parse_hash_arg("dataHash", a.data_hash);
    if (!a.response) throw CliError("respond --revision draft needs --response 0..100");
    // ERC-8004 first draft §Validation Responses: the Response is an integer 0 <= x <= 100.
    if (*a.response > 100)
        throw CliError(fmt::format(
            "response {} out of range: must be 0..100 (ERC-8004 first draft §Validation "
            "Responses)",
            *a.response));
    ChainContext ctx(a.chain);
    const core::Address registry = draft_validation(ctx, a);
    const SentTxn sent = ctx.send(
        registry, must_abi(dvr::validation_response(data_hash, *a.response), "validationResponse"),
        "validationResponse");
    Output out(a.chain.json, OutputStyle::labeled);
    out.add("dataHash", core::to_hex(data_hash));
    out.add("response", *a.response);
    out.add("revision", "draft");
    ChainContext::report(out, sent);
    out.flush();
}

void run_draft_validation_status(const DraftValidationArgs& a) {
    const core::Hash32 data_hash = parse_hash_arg("dataHash", a.data_hash);
    ChainContext ctx(a.chain);
    const core::Address registry = draft_validation(ctx, a);
    const auto request = ctx.call(dvr::call::get_validation_request, registry, data_hash);
    const auto pending = ctx.call(dvr::call::is_validation_pending, registry, data_hash);
    const auto response = ctx.call(dvr::call::get_validation_response, registry, data_hash);
    Output out(a.chain.json, OutputStyle::labeled);
    if (a.chain.json) out.add("dataHash", core::to_hex(data_hash));
    out.add("agentValidatorId", request.agent_validator_id.to_dec());
    out.add("agentServerId", request.agent_server_id.to_dec());
    out.add("timestamp", uint_json(request.timestamp));
    out.add("pending", pending.pending);
    // No response yet is null, not 0: 0 is a valid answer ("failed").
    out.add("response", response.has_response ? nlohmann::ordered_json(response.response)
                                              : nlohmann::ordered_json(nullptr));
    out.add("revision", "draft");
    out.flush();
}

}  // namespace credence::cmd
