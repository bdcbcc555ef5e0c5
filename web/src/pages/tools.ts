// Tools list and tool page (issue 7 §5): the manifest, pricing, access requirements and the
// ERC-8257 §7 verification report with its reason code in words. Manifest strings are
// creator-controlled: text only, https links only, no remote image (ERC-8257 §Rendering
// Manifest Content).
import { arr, get, items, num, obj, pick, type J } from "../api";
import { extLink, h, link } from "../dom";
import { count, str } from "../format";
import { explain, toolReasons } from "../reasons";
import { navigate, type Params } from "../router";
import { badge, facts, hex, jsonBlock, section, table } from "../ui";

const kPageSize = 25;

function verdictOf(t: J): { canonical: boolean | undefined; reason: string } {
    const v = obj(pick(t, "verification", "report"));
    const verdict = str(pick(v, "verdict", "status") ?? pick(t, "verdict", "verificationStatus"));
    const reason = str(pick(v, "reason") ?? pick(t, "reason"));
    if (verdict === "canonical" || verdict === "verified" || pick(t, "verified") === true) return { canonical: true, reason };
    if (verdict === "unverified" || verdict === "failed" || pick(t, "verified") === false) return { canonical: false, reason };
    return { canonical: undefined, reason };
}

function verdictBadge(t: J): HTMLElement {
    const v = verdictOf(t);
    if (v.canonical === true) return badge("ok", "canonical");
    if (v.canonical === false) return badge("bad", "unverified", explain(toolReasons, v.reason));
    return badge("none", "not checked");
}

function manifestOf(t: J): J {
    return obj(pick(t, "manifest"));
}

export async function toolsPage(p: Params, signal: AbortSignal): Promise<Node> {
    const q = p.query;
    const query = {
        q: q.get("q") ?? "",
        tag: q.get("tag") ?? "",
        pricing: q.get("pricing") ?? "",
        access: q.get("access") ?? "",
        verified: q.get("verified") ?? "",
        cursor: q.get("cursor") ?? "",
        limit: kPageSize,
    };
    const page = await get("/tools", query, signal);
    const rows = arr(items(page, "tools")).map(obj);
    const next = str(pick(page, "nextCursor", "next_cursor"));
    const input = (name: string, label: string, value: string) => h("label", null, label, h("input", { type: "search", name, value }));
    const form = h(
        "form",
        { class: "filters", role: "search", "aria-label": "Search tools" },
        input("q", "Text", query.q),
        input("tag", "Tag", query.tag),
        input("pricing", "Pricing protocol", query.pricing),
        input("access", "Access kind", query.access),
        h(
            "label",
            null,
            "Verification",
            h("select", { name: "verified" }, [["", "any"], ["true", "canonical"], ["false", "unverified"]].map(([v, t]) => h("option", { value: v, selected: v === query.verified }, t))),
        ),
        h("button", { type: "submit" }, "Search"),
    );
    form.addEventListener("submit", (event) => {
        event.preventDefault();
        const out = new URLSearchParams();
        for (const [k, v] of new FormData(form).entries()) if (typeof v === "string" && v !== "") out.set(k, v);
        navigate(`/tools${out.toString() ? `?${out}` : ""}`);
    });
    const nextParams = new URLSearchParams(p.query);
    nextParams.set("cursor", next);
    const idOf = (t: J) => str(pick(t, "toolId", "id"));
    return h(
        "div",
        null,
        h("h1", null, "Tools"),
        form,
        table(
            "Tools matching the search",
            [
                { head: "Id", cell: (t) => link(`/tools/${idOf(t)}`, idOf(t)), num: true },
                { head: "Name", cell: (t) => link(`/tools/${idOf(t)}`, str(pick(t, "name") ?? pick(manifestOf(t), "name")) || "(no manifest)") },
                { head: "Tags", cell: (t) => arr(pick(t, "tags") ?? pick(manifestOf(t), "tags")).map((x) => badge("none", str(x))) },
                { head: "Verification", cell: (t) => verdictBadge(t) },
                { head: "Creator", cell: (t) => hex(pick(t, "creator")) },
            ],
            rows,
            "No tool matches.",
        ),
        next ? h("nav", { class: "pager", "aria-label": "Pages" }, link(`/tools?${nextParams}`, "Next page →")) : null,
    );
}

export async function toolPage(p: Params, signal: AbortSignal): Promise<Node> {
    const id = p.path[0] ?? "";
    const tool = await get(`/tools/${encodeURIComponent(id)}`, {}, signal);
    const m = manifestOf(tool);
    const report = obj(pick(tool, "verification", "report"));
    const v = verdictOf(tool);
    const name = str(pick(m, "name") ?? pick(tool, "name")) || `Tool ${id}`;
    return h(
        "article",
        { "data-tool-id": id },
        h("h1", null, name, " ", h("span", { class: "muted" }, `#${id}`)),
        h("p", null, verdictBadge(tool), str(pick(m, "version")) ? badge("none", `v${str(pick(m, "version"))}`) : null),
        h("p", null, str(pick(m, "description"))),
        facts([
            ["Endpoint", extLink(pick(m, "endpoint"))],
            ["Creator (on chain)", hex(pick(tool, "creator"), 20)],
            ["metadataURI", extLink(pick(tool, "metadataURI", "metadataUri"))],
            ["manifestHash", hex(pick(tool, "manifestHash"), 32)],
            ["Access predicate", pick(tool, "accessPredicate") ? hex(pick(tool, "accessPredicate"), 20) : ""],
            ["Registered at block", count(num(pick(tool, "registeredBlockNum")))],
            ["Deregistered", pick(tool, "deregistered") === true ? "yes" : ""],
        ]),
        section("Verification report (ERC-8257 §7)", verificationReport(v, report)),
        section("Pricing", pricingTable(arr(pick(m, "pricing") ?? pick(tool, "pricing")).map(obj))),
        section("Access requirements", accessSection(tool, m)),
        section("Manifest", jsonBlock(m, "The manifest as fetched (JSON)")),
    );
}

function verificationReport(v: { canonical: boolean | undefined; reason: string }, report: J): Node[] {
    const checks = obj(pick(report, "checks"));
    const issues = arr(pick(report, "issues")).map(obj);
    const checkNames: Array<[string, string]> = [
        ["fetch", "1. Fetch the manifest (no redirects, 1 MiB)"],
        ["originBinding", "2. Origin binding of metadataURI and endpoint"],
        ["canonicalBytes", "3. Canonical bytes and manifestHash"],
        ["creatorBinding", "4. creatorAddress equals the on-chain creator"],
    ];
    const verdict =
        v.canonical === true
            ? h("p", { class: "verdict ok", "data-verdict": "canonical" }, "Canonical: all four checks passed.")
            : v.canonical === false
              ? h("p", { class: "verdict bad", "data-verdict": "unverified" }, "Unverified: ", explain(toolReasons, v.reason || "none"), " ", h("code", null, v.reason))
              : h("p", { class: "verdict warn", "data-verdict": "unknown" }, "Not verified yet.");
    const out: Node[] = [verdict];
    const detail = str(pick(report, "detail"));
    if (detail) out.push(h("p", { class: "muted" }, detail));
    if (Object.keys(checks).length) {
        out.push(
            table(
                "The four checks, in the order §7 gives them",
                [
                    { head: "Check", cell: (c: [string, string]) => c[1] },
                    {
                        head: "Result",
                        cell: (c: [string, string]) => {
                            const r = str(checks[c[0]]);
                            return badge(r === "passed" ? "ok" : r === "failed" ? "bad" : "none", r || "not run");
                        },
                    },
                ],
                checkNames,
            ),
        );
    }
    if (issues.length) {
        out.push(
            table(
                "Manifest schema issues",
                [
                    { head: "Severity", cell: (i) => badge(str(pick(i, "severity")) === "error" ? "bad" : "warn", str(pick(i, "severity"))) },
                    { head: "Reason", cell: (i) => h("code", null, str(pick(i, "reason", "code"))) },
                    { head: "Where", cell: (i) => h("code", null, str(pick(i, "pointer"))) },
                    { head: "Message", cell: (i) => str(pick(i, "message")) },
                ],
                issues,
            ),
        );
    }
    const predicate = obj(pick(report, "predicate"));
    const risks = arr(pick(predicate, "risks")).map(str);
    if (risks.length) out.push(h("p", null, "Predicate risks: ", risks.map((r) => badge("warn", r))));
    return out;
}

function pricingTable(rows: J[]): HTMLElement {
    return table(
        "Payment options (ERC-8257 §3)",
        [
            { head: "Protocol", cell: (r) => str(pick(r, "protocol", "scheme")) },
            { head: "Amount", cell: (r) => str(pick(r, "amount", "price")), num: true },
            { head: "Asset", cell: (r) => h("span", { class: "mono" }, str(pick(r, "asset", "currency"))) },
            { head: "Chain", cell: (r) => str(pick(r, "chainId", "network", "chain")) },
            { head: "Pay to", cell: (r) => hex(pick(r, "payTo", "recipient")) },
            { head: "Per", cell: (r) => str(pick(r, "per", "unit", "model")) },
        ],
        rows,
        "Free: the manifest lists no payment option.",
    );
}

function accessSection(tool: J, m: J): Node[] {
    const access = pick(m, "access") ?? pick(tool, "access", "requirements");
    const reqs = arr(pick(obj(access), "requirements") ?? access).map(obj);
    const predicate = str(pick(tool, "accessPredicate"));
    const open = !predicate || /^0x0{40}$/i.test(predicate);
    return [
        h("p", null, open ? badge("ok", "open access") : badge("warn", "gated"), open ? "Anyone may call this tool (no access predicate)." : "An on-chain access predicate decides who may call this tool (hasAccess)."),
        table(
            "Access requirements the manifest declares (ERC-8257 §4; advisory: hasAccess decides)",
            [
                { head: "Kind", cell: (r) => str(pick(r, "kind", "type")) },
                { head: "Detail", cell: (r) => h("span", { class: "mono" }, JSON.stringify(r)) },
            ],
            reqs,
            "No access requirements declared.",
        ),
    ];
}
