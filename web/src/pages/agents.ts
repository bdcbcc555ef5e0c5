// Agents list (issue 7 §5): search and filters (text, service type, minimum score, verification
// status, active) mapped one to one onto GET /api/v1/agents; the filters live in the page's URL,
// so a search can be bookmarked and the back button restores it.
import { arr, get, items, num, obj, pick, type J } from "../api";
import { h, link } from "../dom";
import { percent, str } from "../format";
import { navigate, type Params } from "../router";
import { badge, hex, table } from "../ui";

const kServices = ["", "A2A", "MCP", "OASF", "ENS", "DID", "web", "email"];
const kPageSize = 25;

export function scoreOf(a: J): number | undefined {
    const t = obj(pick(a, "trust", "score", "trustScore"));
    return num(pick(t, "score", "value", "mean")) ?? num(pick(a, "score", "trustScore"));
}

export function verificationBadge(a: J): HTMLElement {
    const v = obj(pick(a, "verification"));
    const status = str(pick(v, "status") ?? pick(a, "verificationStatus", "verified"));
    if (status === "verified" || status === "true") return badge("ok", "verified");
    if (status === "unverified" || status === "false" || status === "failed") return badge("bad", "unverified");
    if (status === "unreachable") return badge("warn", "unreachable");
    return badge("none", "not checked");
}

function select(name: string, label: string, value: string, options: Array<[string, string]>): HTMLElement {
    return h(
        "label",
        null,
        label,
        h("select", { name }, options.map(([v, text]) => h("option", { value: v, selected: v === value }, text))),
    );
}

export async function agentsPage(p: Params, signal: AbortSignal): Promise<Node> {
    const q = p.query;
    const query = {
        q: q.get("q") ?? "",
        service: q.get("service") ?? "",
        min_score: q.get("min_score") ?? "",
        verified: q.get("verified") ?? "",
        active: q.get("active") ?? "",
        sort: q.get("sort") ?? "",
        cursor: q.get("cursor") ?? "",
        limit: kPageSize,
    };
    const page = await get("/agents", query, signal);
    const rows = arr(items(page, "agents")).map(obj);
    const next = str(pick(page, "nextCursor", "next_cursor", "cursor"));

    const form = h(
        "form",
        { class: "filters", role: "search", "aria-label": "Search agents" },
        h("label", null, "Text", h("input", { type: "search", name: "q", value: query.q, placeholder: "name or description" })),
        select("service", "Service type", query.service, kServices.map((s) => [s, s || "any"])),
        h("label", null, "Minimum score", h("input", { type: "number", name: "min_score", min: 0, max: 1, step: 0.05, value: query.min_score, inputmode: "decimal" })),
        select("verified", "Verification", query.verified, [["", "any"], ["true", "verified"], ["false", "not verified"]]),
        select("active", "Active", query.active, [["", "any"], ["true", "active"], ["false", "inactive"]]),
        select("sort", "Sort", query.sort, [["", "default"], ["-score", "score, high first"], ["score", "score, low first"], ["agent_id", "agent id"], ["-agent_id", "newest"]]),
        h("button", { type: "submit" }, "Search"),
    );
    form.addEventListener("submit", (event) => {
        event.preventDefault();
        const data = new FormData(form);
        const out = new URLSearchParams();
        for (const [k, v] of data.entries()) if (typeof v === "string" && v !== "") out.set(k, v);
        navigate(`/agents${out.toString() ? `?${out}` : ""}`);
    });

    const nextParams = new URLSearchParams(p.query);
    nextParams.set("cursor", next);
    return h(
        "div",
        null,
        h("h1", null, "Agents"),
        form,
        h("p", { class: "muted", role: "status", "data-result-count": rows.length }, `${rows.length} agent${rows.length === 1 ? "" : "s"} on this page.`),
        table(
            "Agents matching the search",
            [
                { head: "Id", cell: (a) => link(`/agents/${str(pick(a, "agentId", "id"))}`, str(pick(a, "agentId", "id"))), num: true },
                { head: "Name", cell: (a) => link(`/agents/${str(pick(a, "agentId", "id"))}`, str(pick(a, "name")) || "(unnamed)") },
                { head: "Services", cell: (a) => arr(pick(a, "services", "serviceTypes")).map((s) => badge("none", str(pick(obj(s), "name", "type")) || str(s))) },
                { head: "Score", cell: (a) => percent(scoreOf(a)), num: true },
                { head: "Verification", cell: (a) => verificationBadge(a) },
                { head: "Active", cell: (a) => (pick(a, "active") === false ? "no" : pick(a, "active") === true ? "yes" : "") },
                { head: "Owner", cell: (a) => hex(pick(a, "owner")) },
            ],
            rows,
            "No agent matches.",
        ),
        next ? h("nav", { class: "pager", "aria-label": "Pages" }, link(`/agents?${nextParams}`, "Next page →")) : null,
    );
}
