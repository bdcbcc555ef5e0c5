// Agents list: search and filters (chain, ERC-8004 revision, text, service type, minimum score,
// verification status, active) mapped one to one onto GET /api/v1/agents (docs/api.md); the
// filters live in the page's URL, so a search can be bookmarked and the back button restores it.
import { ApiError, arr, followedChains, get, num, obj, type J } from "../api";
import { chainLabel, linkChain, parseChains } from "../chains";
import { h, link } from "../dom";
import { percent, str } from "../format";
import { agentHref, kRevisions, notFollowedText, parseRevision, revisionLabel, revisionOption } from "../revisions";
import { navigate, type Params } from "../router";
import { badge, hex, table, type Tone } from "../ui";

const kServices = ["a2a", "mcp", "oasf", "ens", "did", "web", "email"];
const kPageSize = 25;
// The parameters of GET /api/v1/agents this page sets; the API refuses unknown ones.
const kParams = ["chain", "revision", "q", "service", "min_score", "verification", "active", "sort", "cursor"] as const;

export function verificationBadge(status: unknown): HTMLElement {
    const tones: Record<string, [Tone, string]> = {
        verified: ["ok", "verified"],
        unverified: ["bad", "unverified"],
        unreachable: ["warn", "unreachable"],
    };
    const [tone, text] = tones[str(status)] ?? ["none", "not checked"];
    return badge(tone, text);
}

/** Which ERC-8004 revision a record belongs to, on every record (docs/api.md §Earlier ERC-8004
 * revisions): the current one quietly, the earlier ones so they stand out. */
export function revisionBadge(revision: unknown): HTMLElement {
    const r = parseRevision(str(revision));
    return h(
        "span",
        { "data-revision": str(revision) || "current" },
        badge(r === "current" ? "none" : "warn", revisionLabel(revision)),
    );
}

/** The chain a record lives on (docs/api.md §Chains), on every row and record. */
export function chainBadge(chainId: unknown): HTMLElement {
    return h("span", { "data-chain-id": str(chainId) }, badge("none", chainLabel(chainId)));
}

/** The chain filter: every chain the node follows (GET /api/v1/status `chains`), or one. */
export function chainSelect(value: string, followed: readonly string[]): HTMLElement {
    const chains = [...followed];
    if (value && !chains.includes(value)) chains.push(value);
    return select("chain", "Chain", value, [["", "all chains"], ...chains.map((c): [string, string] => [c, chainLabel(c)])]);
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
    const query: Record<string, string | number> = { limit: kPageSize };
    for (const k of kParams) query[k] = p.query.get(k) ?? "";
    // The current revision is the API's default: its URLs carry no revision.
    if (query.revision === "current") query.revision = "";
    const revision = parseRevision(String(query.revision));
    const v = (k: string) => String(query[k] ?? "");

    const chains = parseChains(v("chain"));
    const followed = await followedChains();
    const form = h(
        "form",
        { class: "filters", role: "search", "aria-label": "Search agents" },
        chainSelect(v("chain"), followed),
        select("revision", "ERC-8004 revision", revision ?? "current", kRevisions.map((r): [string, string] => [r, revisionOption(r)])),
        h("label", null, "Text", h("input", { type: "search", name: "q", value: v("q"), placeholder: "name, description, skill" })),
        select("service", "Service type", v("service"), [["", "any"], ...kServices.map((s): [string, string] => [s, s.toUpperCase()])]),
        h("label", null, "Minimum score", h("input", { type: "number", name: "min_score", min: 0, max: 1, step: "any", value: v("min_score"), inputmode: "decimal" })),
        select("verification", "Verification", v("verification"), [["", "any"], ["verified", "verified"], ["unverified", "unverified"], ["unreachable", "unreachable"], ["none", "not checked"]]),
        select("active", "Active", v("active"), [["", "any"], ["true", "active"], ["false", "inactive"]]),
        select("sort", "Sort", v("sort"), [["", "agent id"], ["newest", "newest"], ["score", "score"]]),
        h("button", { type: "submit" }, "Search"),
    );
    form.addEventListener("submit", (event) => {
        event.preventDefault();
        const out = new URLSearchParams();
        for (const [k, val] of new FormData(form).entries()) {
            if (typeof val === "string" && val !== "" && !(k === "revision" && val === "current")) out.set(k, val);
        }
        navigate(`/agents${out.toString() ? `?${out}` : ""}`);
    });
    // Switching the revision shows that revision's agents at once, with the other filters kept.
    form.querySelector("select[name=revision]")?.addEventListener("change", () => form.requestSubmit());
    form.querySelector("select[name=chain]")?.addEventListener("change", () => form.requestSubmit());

    const heading = h("h1", null, "Agents");
    if (chains === null) {
        return h("div", null, heading, form, h("p", { class: "error", role: "alert" }, `Unknown chain "${v("chain")}": a chain id is a decimal number.`));
    }
    if (revision === null) {
        return h("div", null, heading, form, h("p", { class: "error", role: "alert" }, `Unknown ERC-8004 revision "${v("revision")}": choose current, score or draft.`));
    }
    let page: J;
    try {
        page = await get("/agents", query, signal);
    } catch (e) {
        // A revision the node does not follow is a 404 (docs/api.md §Earlier ERC-8004 revisions):
        // a message under the form, from which another revision can be chosen.
        if (e instanceof ApiError && e.code === "unknown_chain") {
            return h("div", null, heading, form, h("p", { class: "error", role: "alert", "data-unknown-chain": v("chain") }, `This node does not follow chain ${v("chain")}.`));
        }
        if (e instanceof ApiError && e.status === 404 && revision !== "current") {
            return h("div", null, heading, form, h("p", { class: "error", role: "alert", "data-not-followed": revision }, notFollowedText(revision), " ", h("span", { class: "muted" }, `(${e.message})`)));
        }
        throw e;
    }
    const rows = arr(page.items).map(obj);
    const next = typeof page.next_cursor === "string" ? page.next_cursor : "";

    const nextParams = new URLSearchParams(p.query);
    nextParams.set("cursor", next);
    const id = (a: J) => str(a.agent_id);
    const href = (a: J) => agentHref(id(a), a.revision ?? revision, linkChain(a.chain_id, followed));
    const score = (a: J) => num(obj(a.score).score);
    // ERC-8004 first draft §Identity Registry: a record is (AgentID, AgentDomain, AgentAddress),
    // with no registration file, so the AgentDomain stands where the name would be.
    const name = (a: J) =>
        str(a.agent_domain) && !str(a.name)
            ? [h("span", { class: "muted" }, "AgentDomain "), link(href(a), h("span", { "data-agent-domain": str(a.agent_domain) }, str(a.agent_domain)))]
            : link(href(a), str(a.name) || "(no registration file read yet)");
    return h(
        "div",
        null,
        heading,
        form,
        h("p", { class: "muted", role: "status", "data-result-count": rows.length }, `${rows.length} agent${rows.length === 1 ? "" : "s"}${next ? " on this page" : ""}.`),
        table(
            "Agents matching the search",
            [
                { head: "Id", cell: (a) => link(href(a), id(a)), num: true },
                { head: "Name", cell: name },
                { head: "Chain", cell: (a) => chainBadge(a.chain_id) },
                { head: "Revision", cell: (a) => revisionBadge(a.revision ?? revision) },
                { head: "Services", cell: (a) => arr(a.services).map((s) => badge("none", str(s).toUpperCase())) },
                { head: "Score", cell: (a) => (score(a) === undefined ? "–" : h("span", { title: `95 % interval ${percent(obj(a.score).low)} – ${percent(obj(a.score).high)}` }, percent(score(a)))), num: true },
                { head: "Verification", cell: (a) => verificationBadge(a.verification) },
                { head: "Active", cell: (a) => (a.active === true ? "yes" : a.active === false ? "no" : "") },
                { head: "Owner", cell: (a) => hex(a.owner) },
            ],
            rows,
            "No agent matches.",
        ),
        next ? h("nav", { class: "pager", "aria-label": "Pages" }, link(`/agents?${nextParams}`, "Next page →")) : null,
    );
}
