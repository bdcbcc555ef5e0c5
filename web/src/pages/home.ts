// Home (issue 7 §5): counts, recent activity, chain status.
import { arr, get, items, num, obj, pick, tryGet } from "../api";
import { h, link } from "../dom";
import { count, str, utc } from "../format";
import type { Params } from "../router";
import { badge, facts, hex, runLink, section, table } from "../ui";

export async function homePage(_p: Params, signal: AbortSignal): Promise<Node> {
    const [status, activity] = await Promise.all([
        get("/status", {}, signal),
        tryGet("/activity", { limit: 20 }, signal),
    ]);
    const counts = obj(pick(status, "counts"));
    const chain = obj(pick(status, "chain"));
    const field = (...names: string[]) => pick(status, ...names) ?? pick(chain, ...names);
    const card = (label: string, value: unknown, href: string) =>
        h("li", { class: "card" }, h("span", { class: "big", "data-count": label }, count(num(value))), link(href, label));
    const lag = num(field("lag", "lagBlocks"));
    return h(
        "div",
        null,
        h("h1", null, "Credence explorer"),
        h(
            "p",
            { class: "muted" },
            "Agents (ERC-8004), tools (ERC-8257) and workflow runs (ERC-8301) indexed from one chain, with trust scores that resist Sybil reviewers.",
        ),
        section(
            "Counts",
            h(
                "ul",
                { class: "cards", role: "list" },
                card("Agents", pick(counts, "agents"), "/agents"),
                card("Feedback", pick(counts, "feedback"), "/agents"),
                card("Validations", pick(counts, "validations", "validationRequests"), "/agents"),
                card("Tools", pick(counts, "tools"), "/tools"),
                card("Workflow runs", pick(counts, "runs", "workflowRuns"), "/runs"),
            ),
        ),
        section(
            "Chain status",
            facts([
                ["Chain id", str(field("chainId"))],
                ["Head block", count(num(field("headBlock", "head")))],
                ["Indexed to block", count(num(field("indexedBlock", "cursor")))],
                ["Lag", lag === undefined ? "" : [badge(lag <= 2 ? "ok" : "warn", lag <= 2 ? "in sync" : "catching up"), `${count(lag)} blocks`]],
                ["Identity registry", hex(field("identityRegistry"), 10)],
                ["Reputation registry", hex(field("reputationRegistry"), 10)],
                ["Validation registry", hex(field("validationRegistry"), 10)],
            ]),
        ),
        section("Recent activity", activity ? activityTable(items(activity, "activity")) : h("p", { class: "muted" }, "No activity feed on this node.")),
    );
}

function subject(e: Record<string, unknown>): Node | string {
    const agentId = str(pick(e, "agentId"));
    const toolId = str(pick(e, "toolId"));
    const runId = pick(e, "runId");
    if (agentId) return link(`/agents/${agentId}`, `agent ${agentId}`);
    if (toolId) return link(`/tools/${toolId}`, `tool ${toolId}`);
    if (typeof runId === "string") return runLink(runId) as Node;
    return "";
}

function activityTable(rows: unknown[]): HTMLElement {
    return table(
        "The latest indexed events, newest first",
        [
            { head: "Block", cell: (e) => count(num(pick(e, "blockNum", "block"))), num: true },
            { head: "When", cell: (e) => utc(pick(e, "timestamp", "time")) },
            { head: "Event", cell: (e) => str(pick(e, "event", "kind", "type")) },
            { head: "Subject", cell: (e) => subject(e) },
            { head: "By", cell: (e) => hex(pick(e, "actor", "from", "client", "owner")) },
            { head: "Detail", cell: (e) => str(pick(e, "summary", "detail", "value")) },
        ],
        arr(rows).map(obj),
        "No events indexed yet.",
    );
}
