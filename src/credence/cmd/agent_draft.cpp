// `credence agent ... --revision draft`: the first draft's Identity Registry, where an agent is
// the tuple (AgentID, AgentDomain, AgentAddress) and every write comes from the AgentAddress
// (ERC-8004 first draft §Identity Registry).
#include <fmt/core.h>

#include <credence/chain/bindings/draft_identity_registry.hpp>
#include <credence/cmd/erc8004_legacy.hpp>
#include <credence/cmd/revision_args.hpp>
#include <credence/cmd/util.hpp>

namespace credence::cmd {
namespace {

namespace didr = chain::bindings::draft_identity_registry;

core::Address draft_identity(ChainContext& ctx, const DraftAgentArgs& a) {
    return revision_registry(ctx, core::Erc8004Revision::draft, core::Erc8004Registry::identity,
                             a.registry);
}

void add_agent_info(Output& out, const core::Uint256& id, const std::string& domain,
                    const core::Address& address) {
    out.add("agentId", id.to_dec());
    out.add("agentDomain", domain);
    out.add("agentAddress", address.to_checksum_hex());
    out.add("revision", "draft");
}

/// The agent an AgentRegistered / AgentUpdated event of `receipt` names.
template <typename Decode>
std::optional<didr::AgentInfo> agent_event(const chain::Receipt& receipt,
                                           const core::Address& registry, const core::Hash32& topic,
                                           Decode decode) {
    for (const auto* log : find_logs(receipt, registry, topic)) {
        if (auto ev = decode(log->topics, log->data))
            return didr::AgentInfo{ev->agent_id, ev->agent_domain, ev->agent_address};
    }
    return std::nullopt;
}

void print_agent_txn(const DraftAgentArgs& a, const SentTxn& sent,
                     const std::optional<didr::AgentInfo>& info) {
    Output out(a.chain.json, OutputStyle::labeled);
    if (info) add_agent_info(out, info->agent_id, info->agent_domain, info->agent_address);
    ChainContext::report(out, sent);
    out.flush();
}

}  // namespace

void run_draft_agent_register(const DraftAgentArgs& a) {
    // ERC-8004 first draft §Identity Registry: New(AgentDomain, AgentAddress); the domain is
    // what resolveByDomain finds the agent by, so an empty one is refused before sending.
    if (!a.domain || a.domain->empty())
        throw CliError("register --revision draft needs --domain (the AgentDomain)");
    std::optional<core::Address> address;
    if (a.address) address = parse_address_arg("--address", *a.address);
    ChainContext ctx(a.chain);
    const core::Address registry = draft_identity(ctx, a);
    // ERC-8004 first draft §Identity Registry: the sender must be the AgentAddress, so the
    // signer is the natural default.
    const core::Address agent_address = address.value_or(ctx.signer().address);
    const SentTxn sent = ctx.send(
        registry, must_abi(didr::new_agent(*a.domain, agent_address), "newAgent"), "newAgent");
    std::optional<didr::AgentInfo> info;
    if (sent.receipt) {
        info = agent_event(*sent.receipt, registry, didr::kAgentRegisteredTopic,
                           didr::decode_agent_registered_event);
        if (!info) throw CliError("newAgent: the receipt holds no AgentRegistered event");
    }
    print_agent_txn(a, sent, info);
}

void run_draft_agent_update(const DraftAgentArgs& a) {
    const core::Uint256 agent_id = parse_uint256_arg("agentId", a.agent_id);
    // ERC-8004 first draft §Identity Registry: Update(AgentID, Optional NewAgentDomain, Optional
    // NewAgentAddress); with neither there is nothing to update.
    if ((!a.domain || a.domain->empty()) && !a.address)
        throw CliError("update --revision draft needs --domain or --address (or both)");
    core::Address new_address{};  // zero: keep the current AgentAddress
    if (a.address) new_address = parse_address_arg("--address", *a.address);
    ChainContext ctx(a.chain);
    const core::Address registry = draft_identity(ctx, a);
    const SentTxn sent = ctx.send(
        registry,
        must_abi(didr::update_agent(agent_id, a.domain.value_or(""), new_address), "updateAgent"),
        "updateAgent");
    std::optional<didr::AgentInfo> info;
    if (sent.receipt) {
        info = agent_event(*sent.receipt, registry, didr::kAgentUpdatedTopic,
                           didr::decode_agent_updated_event);
        if (!info) throw CliError("updateAgent: the receipt holds no AgentUpdated event");
    }
    print_agent_txn(a, sent, info);
}

void run_draft_agent_show(const DraftAgentArgs& a) {
    const core::Uint256 agent_id = parse_uint256_arg("agentId", a.agent_id);
    ChainContext ctx(a.chain);
    const auto info = ctx.call(didr::call::get_agent, draft_identity(ctx, a), agent_id);
    Output out(a.chain.json, OutputStyle::labeled);
    add_agent_info(out, info.agent_id, info.agent_domain, info.agent_address);
    out.flush();
}

void run_draft_agent_resolve(const DraftAgentArgs& a) {
    if (a.domain.has_value() == a.address.has_value())
        throw CliError("resolve --revision draft: give exactly one of --domain and --address");
    std::optional<core::Address> address;
    if (a.address) address = parse_address_arg("--address", *a.address);
    ChainContext ctx(a.chain);
    const core::Address registry = draft_identity(ctx, a);
    // ERC-8004 first draft §Identity Registry: ResolveByDomain / ResolveByAddress.
    const auto info = address ? ctx.call(didr::call::resolve_by_address, registry, *address)
                              : ctx.call(didr::call::resolve_by_domain, registry, *a.domain);
    Output out(a.chain.json, OutputStyle::labeled);
    add_agent_info(out, info.agent_id, info.agent_domain, info.agent_address);
    out.flush();
}

}  // namespace credence::cmd
