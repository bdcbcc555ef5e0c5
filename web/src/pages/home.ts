// Home: counts, recent activity, chain status (GET /api/v1/home): the node's default chain, and
// the other chains it follows (docs/api.md §Chains).
import { arr, get, num, obj, type J } from "../api";
import { chainLabel } from "../chains";
import { h, link } from "../dom";
import { count, str } from "../format";
import type { Params } from "../router";
import { badge, facts, hex, runLink, section, table } from "../ui";

export async function homePage(_p: Params, signal: AbortSignal): Promise<Node> {
    const home = await get("/home", {}, signal);
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
        section(
            "Counts",
            h(
                "ul",
                { class: "cards", role: "list" },
                card("Agents", counts.agents, "/agents"),
                card("Feedback", counts.feedback, "/agents?sort=score"),
                card("Responses", counts.feedback_responses, "/agents"),
                card("Validations", counts.validations, "/agents"),
                card("Tools", counts.tools, "/tools"),
                card("Workflow runs", counts.runs, "/runs"),
            ),
        ),
        section(
            "Chain status",
            facts([
                ["Chain id", str(status.chain_id)],
                // Several chains: the counts and events above are the default chain's (the first).
                ["Followed chains", arr(status.chains).length > 1 ? arr(status.chains).map((c) => h("div", { "data-followed-chain": str(obj(c).chain_id) }, link(`/agents?chain=${str(obj(c).chain_id)}`, chainLabel(obj(c).chain_id)))) : ""],
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
        section("Recent activity", activityTable(arr(home.recent).map(obj))),
    );
}

function subject(e: J): Node | string {
    if (typeof e.agent_id === "string") return link(`/agents/${e.agent_id}`, `agent ${e.agent_id}`);
    if (typeof e.tool_id === "string") return link(`/tools/${e.tool_id}`, `tool ${e.tool_id}`);
    if (typeof e.run_id === "string") return runLink(e.run_id) as Node;
    return "";
}

function activityTable(rows: J[]): HTMLElement {
    return table(
        "The 20 latest indexed events, newest first",
        [
            { head: "Block", cell: (e) => count(num(e.block_num)), num: true },
            { head: "Event", cell: (e) => [badge("none", str(e.kind)), str(e.event)] },
            { head: "Subject", cell: (e) => subject(e) },
            { head: "Client", cell: (e) => hex(e.client) },
            { head: "Transaction", cell: (e) => hex(e.txn_hash) },
        ],
        rows,
        "No events indexed yet.",
    );
}
