// Home: counts, recent activity, chain status of one chain (GET /api/v1/home, the node's default
// chain; /?chain=<id> is GET /api/v1/chains/<id>/home), and the other chains it follows
// (docs/api.md §Chains).
import { ApiError, arr, followedChains, get, num, obj, type J } from "../api";
import { chainLabel, linkChain, onChain } from "../chains";
import { h, link } from "../dom";
import { count, str } from "../format";
import { navigate, type Params } from "../router";
import { badge, facts, hex, runLink, section, table } from "../ui";

/** Which chain the home page shows: one select of the followed chains, the default first. */
function homeChainSelect(value: string, followed: readonly string[]): HTMLElement {
    const select = h(
        "select",
        { name: "chain" },
        followed.map((c) => h("option", { value: c, selected: c === value }, chainLabel(c))),
    );
    select.addEventListener("change", () => {
        const chosen = (select as HTMLSelectElement).value;
        navigate(chosen === followed[0] ? "/" : `/?chain=${encodeURIComponent(chosen)}`);
    });
    return h("form", { class: "filters", "aria-label": "Chain" }, h("label", null, "Chain", select));
}

export async function homePage(p: Params, signal: AbortSignal): Promise<Node> {
    const chosen = p.query.get("chain") ?? "";
    const followed = await followedChains();
    const picker = followed.length > 1 ? homeChainSelect(chosen || (followed[0] ?? ""), followed) : null;
    let home: J;
    try {
        home = await get(chosen ? `/chains/${encodeURIComponent(chosen)}/home` : "/home", {}, signal);
    } catch (e) {
        if (e instanceof ApiError && (e.code === "unknown_chain" || e.code === "bad_parameter")) {
            return h("div", null, h("h1", null, "Credence explorer"), picker, h("p", { class: "error", role: "alert", "data-unknown-chain": chosen }, `This node does not follow chain ${chosen}.`));
        }
        throw e;
    }
    const on = (path: string) => (chosen ? `${path}${path.includes("?") ? "&" : "?"}chain=${encodeURIComponent(chosen)}` : path);
    const status = obj(home.status);
    const counts = obj(status.counts);
    const registries = obj(status.registries);
    const node = obj(status.node);
    const card = (label: string, value: unknown, href: string) =>
        h("li", { class: "card" }, h("span", { class: "big", "data-count": label }, count(num(value))), link(href, label));
    const head = num(node.head_block_num ?? node.head_block ?? node.head);
    const lag = num(node.lag_blocks ?? node.lag);
    return h(
        "div",
        null,
        h("h1", null, "Credence explorer"),
        h(
            "p",
            { class: "muted" },
            "Agents (ERC-8004), tools (ERC-8257) and workflow runs (ERC-8301) indexed from the chains this node follows, with trust scores that resist Sybil reviewers.",
        ),
        picker,
        section(
            "Counts",
            h(
                "ul",
                { class: "cards", role: "list" },
                card("Agents", counts.agents, on("/agents")),
                card("Feedback", counts.feedback, on("/agents?sort=score")),
                card("Responses", counts.feedback_responses, on("/agents")),
                card("Validations", counts.validations, on("/agents")),
                card("Tools", counts.tools, on("/tools")),
                card("Workflow runs", counts.runs, on("/runs")),
            ),
        ),
        section(
            "Chain status",
            facts([
                ["Chain id", str(status.chain_id)],
                // Several chains: the counts and events above are the chosen chain's (the first by
                // default); each followed chain's own home is one link away.
                ["Followed chains", arr(status.chains).length > 1 ? arr(status.chains).map((c) => h("div", { "data-followed-chain": str(obj(c).chain_id) }, link(`/?chain=${str(obj(c).chain_id)}`, chainLabel(obj(c).chain_id)))) : ""],
                ["Indexed to block", status.indexed_block_num === null ? "nothing indexed yet" : count(num(status.indexed_block_num))],
                ["Chain head", head === undefined ? "" : count(head)],
                ["Lag", lag === undefined ? "" : [badge(lag <= 2 ? "ok" : "warn", lag <= 2 ? "in sync" : "catching up"), ` ${count(lag)} blocks`]],
                ["Identity registry", hex(registries.identity, 20)],
                ["Reputation registry", hex(registries.reputation, 20)],
                ["Validation registry", hex(registries.validation, 20)],
                ["Tool registries", arr(registries.tools).map((a) => h("div", null, hex(a, 20)))],
                ["Workflows", arr(registries.workflows).map((a) => h("div", null, hex(a, 20)))],
            ]),
        ),
        section("Recent activity", activityTable(arr(home.recent).map(obj), linkChain(status.chain_id, followed))),
    );
}

/** What an event is about, linked on `chain` (undefined: the default chain's short URLs). */
function subject(e: J, chain: string | undefined): Node | string {
    if (typeof e.agent_id === "string") return link(onChain("agents", e.agent_id, chain), `agent ${e.agent_id}`);
    if (typeof e.tool_id === "string") return link(onChain("tools", e.tool_id, chain), `tool ${e.tool_id}`);
    if (typeof e.run_id === "string") return runLink(e.run_id, chain) as Node;
    return "";
}

function activityTable(rows: J[], chain: string | undefined): HTMLElement {
    return table(
        "The 20 latest indexed events, newest first",
        [
            { head: "Block", cell: (e) => count(num(e.block_num)), num: true },
            { head: "Event", cell: (e) => [badge("none", str(e.kind)), str(e.event)] },
            { head: "Subject", cell: (e) => subject(e, chain) },
            { head: "Client", cell: (e) => hex(e.client) },
            { head: "Transaction", cell: (e) => hex(e.txn_hash) },
        ],
        rows,
        "No events indexed yet.",
    );
}
