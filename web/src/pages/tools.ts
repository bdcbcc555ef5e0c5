// Tools list and tool page: the manifest, pricing, access requirements and the
// ERC-8257 §7 verification report with its reason code in words. Manifest strings are
// creator-controlled: text only, https links only, no remote image (ERC-8257 §Rendering
// Manifest Content). The manifest is shown when its bytes are on chain (a data: URI); an
// https manifest is described by the fields the node's last check extracted.
import { arr, followedChains, get, num, obj, type J } from "../api";
import { linkChain, onChain } from "../chains";
import { dataUriJson } from "../datauri";
import { extLink, h, link } from "../dom";
import { count, firstText, str, utc } from "../format";
import { explain, toolReasons } from "../reasons";
import { navigate, type Params } from "../router";
import { badge, facts, hex, jsonBlock, section, table } from "../ui";
import { chainBadge, chainSelect } from "./agents";

const kPageSize = 25;
const kParams = ["chain", "q", "tag", "pricing", "asset", "access", "verification", "cursor"] as const;

/** ERC-8257 §7: "verified" in the index means canonical (all four checks passed). */
function verdictBadge(status: unknown, reason: unknown): HTMLElement {
    const s = str(status);
    if (s === "verified") return badge("ok", "canonical");
    if (s === "unverified") return badge("bad", "unverified", explain(toolReasons, reason));
    if (s === "unreachable") return badge("warn", "unreachable", explain(toolReasons, reason));
    return badge("none", "not checked");
}

export async function toolsPage(p: Params, signal: AbortSignal): Promise<Node> {
    const query: Record<string, string | number> = { limit: kPageSize };
    for (const k of kParams) query[k] = p.query.get(k) ?? "";
    const [page, followed] = await Promise.all([get("/tools", query, signal), followedChains()]);
    const rows = arr(page.items).map(obj);
    const next = typeof page.next_cursor === "string" ? page.next_cursor : "";
    const v = (k: string) => String(query[k] ?? "");
    const input = (name: string, label: string) => h("label", null, label, h("input", { type: "search", name, value: v(name) }));
    const form = h(
        "form",
        { class: "filters", role: "search", "aria-label": "Search tools" },
        chainSelect(v("chain"), followed),
        input("q", "Text"),
        input("tag", "Tag"),
        input("pricing", "Pricing protocol"),
        input("asset", "Asset"),
        input("access", "Access kind"),
        h(
            "label",
            null,
            "Verification",
            h(
                "select",
                { name: "verification" },
                [["", "any"], ["verified", "canonical"], ["unverified", "unverified"], ["unreachable", "unreachable"], ["none", "not checked"]].map(([val, t]) => h("option", { value: val, selected: val === v("verification") }, t)),
            ),
        ),
        h("button", { type: "submit" }, "Search"),
    );
    form.addEventListener("submit", (event) => {
        event.preventDefault();
        const out = new URLSearchParams();
        for (const [k, val] of new FormData(form).entries()) if (typeof val === "string" && val !== "") out.set(k, val);
        navigate(`/tools${out.toString() ? `?${out}` : ""}`);
    });
    const nextParams = new URLSearchParams(p.query);
    nextParams.set("cursor", next);
    const href = (t: J) => onChain("tools", str(t.tool_id), linkChain(t.chain_id, followed));
    return h(
        "div",
        null,
        h("h1", null, "Tools"),
        form,
        table(
            "ERC-8257 tools matching the search",
            [
                { head: "Id", cell: (t) => link(href(t), str(t.tool_id)), num: true },
                { head: "Name", cell: (t) => link(href(t), firstText(t.name, dataUriJson(t.metadata_uri)?.name) || "(manifest not read yet)") },
                { head: "Chain", cell: (t) => chainBadge(t.chain_id) },
                { head: "Tags", cell: (t) => arr(t.tags).map((x) => badge("none", str(x))) },
                { head: "Pricing", cell: (t) => arr(t.pricing_protocols).map(str).join(", ") || "free" },
                { head: "Verification", cell: (t) => verdictBadge(t.verification, t.reason) },
                { head: "Creator", cell: (t) => hex(t.creator) },
            ],
            rows,
            "No tool matches.",
        ),
        next ? h("nav", { class: "pager", "aria-label": "Pages" }, link(`/tools?${nextParams}`, "Next page →")) : null,
    );
}

export async function toolPage(p: Params, signal: AbortSignal): Promise<Node> {
    // /tools/{id} (the default chain) or /chains/{chainId}/tools/{id}.
    const id = p.path[p.path.length - 1] ?? "";
    const chain = p.path.length > 1 ? (p.path[0] ?? "") : "";
    const registry = p.query.get("registry") ?? "";
    const tool = await get(onChain("tools", id, chain), { registry }, signal);
    const manifest = dataUriJson(tool.metadata_uri);
    const record = obj(tool.verification_record);
    const name = firstText(tool.name, manifest?.name) || `Tool ${id}`;
    const version = firstText(tool.version, manifest?.version);
    return h(
        "article",
        { "data-tool-id": id },
        h("h1", null, name, " ", h("span", { class: "muted" }, `#${id}`)),
        h("p", null, verdictBadge(tool.verification, tool.reason), version ? badge("none", `v${version}`) : null, tool.deregistered === true ? badge("bad", "deregistered") : null),
        h("p", null, firstText(tool.description, manifest?.description)),
        facts([
            ["Endpoint", manifest ? extLink(manifest.endpoint) : ""],
            ["Creator (on chain)", hex(tool.creator, 20)],
            ["metadataURI", /^data:/i.test(str(tool.metadata_uri)) ? "a data: URI (the manifest is stored on chain)" : extLink(tool.metadata_uri)],
            ["manifestHash", hex(tool.manifest_hash, 32)],
            ["Registry", hex(tool.registry, 20)],
            ["Registered at block", count(num(tool.registered_block_num))],
            ["Tags", (arr(tool.tags).length ? arr(tool.tags) : arr(manifest?.tags)).map((t) => badge("none", str(t)))],
        ]),
        section("Verification report (ERC-8257 §7)", verificationReport(tool, record)),
        section("Pricing", pricingSection(tool, manifest)),
        section("Access requirements", accessSection(tool, manifest)),
        section("Manifest", manifest ? jsonBlock(manifest, "The manifest from its data: URI (JSON)") : h("p", { class: "muted" }, "The manifest is served at its metadataURI; this explorer never fetches outside its node.")),
        section("History", historyTable(arr(tool.history).map(obj))),
    );
}

function verificationReport(tool: J, record: J): Node[] {
    const report = obj(record.report);
    const status = str(tool.verification ?? record.status);
    const reason = str(tool.reason ?? record.reason ?? report.reason);
    const out: Node[] = [];
    if (status === "verified") {
        out.push(h("p", { class: "verdict ok", "data-verdict": "canonical" }, "Canonical: ", explain(toolReasons, "none")));
    } else if (status === "unverified" || status === "unreachable") {
        out.push(
            h(
                "p",
                { class: `verdict ${status === "unverified" ? "bad" : "warn"}`, "data-verdict": status, "data-reason": reason },
                status === "unverified" ? "Unverified: " : "Unreachable: ",
                h("span", { class: "reason-text" }, explain(toolReasons, reason)),
                " ",
                h("code", null, reason),
            ),
            h("p", { class: "muted" }, "ERC-8257 §7: an unverified tool must not be invoked on a user's behalf."),
        );
    } else {
        out.push(h("p", { class: "verdict warn", "data-verdict": "none" }, "Not verified yet: the node has not checked this tool."));
    }
    const detail = str(record.detail ?? report.detail);
    if (detail) out.push(h("p", { class: "muted" }, "Detail: ", detail));
    if (record.checked_at) out.push(h("p", { class: "muted" }, `Checked ${utc(record.checked_at)}.`));
    const checks = obj(report.checks);
    if (Object.keys(checks).length) {
        const names: Array<[string, string]> = [
            ["fetch", "1. Fetch the manifest (no redirects, at most 1 MiB)"],
            ["originBinding", "2. Origin binding: metadataURI on the endpoint's origin"],
            ["canonicalBytes", "3. Canonical bytes: keccak256(JCS) equals manifestHash"],
            ["creatorBinding", "4. Creator binding: creatorAddress equals the on-chain creator"],
        ];
        out.push(
            table(
                "The four checks of ERC-8257 §7, in order",
                [
                    { head: "Check", cell: (c: [string, string]) => c[1] },
                    {
                        head: "Result",
                        cell: (c: [string, string]) => {
                            const r = str(checks[c[0]]);
                            return badge(r === "passed" ? "ok" : r === "failed" ? "bad" : "none", r === "not_run" || !r ? "not run" : r);
                        },
                    },
                ],
                names,
            ),
        );
    }
    const issues = arr(report.issues).map(obj);
    if (issues.length) {
        out.push(
            table(
                "Manifest schema issues",
                [
                    { head: "Severity", cell: (i) => badge(str(i.severity) === "error" ? "bad" : "warn", str(i.severity)) },
                    { head: "Code", cell: (i) => h("code", null, str(i.reason)) },
                    { head: "Where", cell: (i) => h("code", null, str(i.path)) },
                    { head: "Message", cell: (i) => str(i.message) },
                ],
                issues,
            ),
        );
    }
    const predicate = obj(report.predicate);
    const risks = arr(predicate.risks).map(str);
    if (risks.length) out.push(h("p", null, "Access predicate risks (informational): ", risks.map((r) => badge("warn", r))));
    const tier = str(report.effectiveTier);
    if (tier) out.push(h("p", null, "Effective trust tier: ", badge("none", tier), report.declaredTier ? ` (declared ${str(report.declaredTier)})` : ""));
    return out;
}

function pricingSection(tool: J, manifest: J | null): Node {
    const entries = arr(manifest?.pricing).map(obj);
    if (entries.length) {
        return table(
            "Payment options, in the creator's order of preference (ERC-8257 §3; amounts in the asset's smallest unit)",
            [
                { head: "Protocol", cell: (r) => str(r.protocol) },
                { head: "Amount", cell: (r) => (str(r.amount) === "0" ? "0 (free through the protocol)" : str(r.amount)), num: true },
                { head: "Asset (CAIP-19)", cell: (r) => h("span", { class: "mono" }, str(r.asset)) },
                { head: "Recipient (CAIP-10)", cell: (r) => h("span", { class: "mono" }, str(r.recipient)) },
            ],
            entries,
        );
    }
    const protocols = arr(tool.pricing_protocols).map(str);
    if (protocols.length) {
        return facts([
            ["Protocols", protocols.join(", ")],
            ["Assets", arr(tool.assets).map(str).join(", ")],
        ]);
    }
    return h("p", null, manifest || firstText(tool.name) ? "Free: the manifest lists no payment option." : "Unknown until the manifest is read.");
}

function accessSection(tool: J, manifest: J | null): Node[] {
    const predicate = str(tool.access_predicate);
    const open = !predicate || /^0x0{40}$/i.test(predicate);
    const access = obj(manifest?.access);
    const reqs = arr(access.requirements).map(obj);
    const out: Node[] = [
        h(
            "p",
            null,
            open ? badge("ok", "open access") : badge("warn", "gated"),
            open ? "No access predicate: anyone may call this tool." : ["An on-chain access predicate decides who may call this tool (hasAccess): ", hex(predicate, 20)],
        ),
    ];
    if (reqs.length) {
        out.push(
            h("p", null, access.logic === "OR" ? "Any one of these suffices:" : "All of these are required:"),
            table(
                "Access requirements the manifest declares (ERC-8257 §4; advisory, hasAccess decides)",
                [
                    { head: "Requirement", cell: (r) => str(r.label) },
                    { head: "Kind", cell: (r) => h("code", null, str(r.kind)) },
                    { head: "Data", cell: (r) => hex(r.data, 10) },
                    { head: "Links", cell: (r) => Object.entries(obj(r.links)).map(([k, u]) => h("div", null, extLink(u, k))) },
                ],
                reqs,
            ),
        );
    } else {
        const kinds = arr(tool.access_kinds).map(str);
        if (kinds.length) out.push(h("p", null, "Requirement kinds: ", kinds.map((k) => h("code", null, k, " "))));
    }
    return out;
}

function historyTable(rows: J[]): HTMLElement {
    return table(
        "Registry events of this tool",
        [
            { head: "Block", cell: (r) => count(num(r.block_num)), num: true },
            { head: "Event", cell: (r) => str(r.event) },
            { head: "manifestHash", cell: (r) => hex(r.manifest_hash) },
            { head: "Access predicate", cell: (r) => hex(r.access_predicate) },
            { head: "Transaction", cell: (r) => hex(r.txn_hash) },
        ],
        rows,
        "No events.",
    );
}
