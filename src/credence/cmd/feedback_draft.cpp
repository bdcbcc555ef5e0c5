// `credence feedback accept --revision draft`: the first draft's feedback authorization. The
// server agent pre-authorizes a client agent's feedback with AcceptFeedback; the registry
// answers with a FeedbackAuthID in the AuthFeedback event, which the client cites in its
// off-chain feedback (ERC-8004 first draft §Reputation Registry).
#include <fmt/core.h>

#include <credence/chain/bindings/draft_reputation_registry.hpp>
#include <credence/cmd/erc8004_legacy.hpp>
#include <credence/cmd/revision_args.hpp>
#include <credence/cmd/util.hpp>

namespace credence::cmd {

void run_draft_feedback_accept(const DraftAcceptArgs& a) {
    namespace drr = chain::bindings::draft_reputation_registry;
    if (a.client.empty() || a.server.empty())
        throw CliError("accept --revision draft needs --client <agentId> and --server <agentId>");
    const core::Uint256 client = parse_uint256_arg("--client", a.client);
    const core::Uint256 server = parse_uint256_arg("--server", a.server);
    ChainContext ctx(a.chain);
    const core::Address registry = revision_registry(ctx, core::Erc8004Revision::draft,
                                                     core::Erc8004Registry::reputation, a.registry);
    const SentTxn sent =
        ctx.send(registry, must_abi(drr::accept_feedback(client, server), "acceptFeedback"),
                 "acceptFeedback");
    Output out(a.chain.json, OutputStyle::labeled);
    if (sent.receipt) {
        std::optional<core::Hash32> auth_id;
        for (const auto* log : find_logs(*sent.receipt, registry, drr::kAuthFeedbackTopic)) {
            if (auto ev = drr::decode_auth_feedback_event(log->topics, log->data)) {
                auth_id = ev->feedback_auth_id;
                break;
            }
        }
        if (!auth_id) throw CliError("acceptFeedback: the receipt holds no AuthFeedback event");
        out.add("feedbackAuthId", core::to_hex(*auth_id));
    }
    out.add("agentClientId", client.to_dec());
    out.add("agentServerId", server.to_dec());
    out.add("revision", "draft");
    ChainContext::report(out, sent);
    out.flush();
}

}  // namespace credence::cmd
