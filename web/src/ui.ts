// Small widgets shared by the pages: badges, fact lists, tables, error boxes, hashes.
import { ApiError } from "./api";
import { onChain } from "./chains";
import { type Child, h, link } from "./dom";
import { shortHex } from "./format";

export type Tone = "ok" | "bad" | "warn" | "none";

export function badge(tone: Tone, text: string, title?: string): HTMLElement {
    return h("span", { class: `badge ${tone}`, title: title ?? null, "data-badge": text }, text);
}

/** A definition list of label/value pairs; pairs with an empty value are left out. */
export function facts(pairs: Array<[string, Child]>): HTMLElement {
    const kept = pairs.filter(([, v]) => v !== undefined && v !== null && v !== "" && v !== false);
    return h("dl", { class: "facts" }, kept.map(([k, v]) => [h("dt", null, k), h("dd", null, v)]));
}

export type Column<T> = { head: string; cell: (row: T) => Child; num?: boolean };

export function table<T>(caption: string, columns: Column<T>[], rows: T[], empty = "None yet."): HTMLElement {
    if (rows.length === 0) return h("p", { class: "muted" }, empty);
    return h(
        "div",
        { class: "table-wrap" },
        h(
            "table",
            null,
            h("caption", null, caption),
            h("thead", null, h("tr", null, columns.map((c) => h("th", { scope: "col", class: c.num ? "num" : null }, c.head)))),
            h("tbody", null, rows.map((r) => h("tr", null, columns.map((c) => h("td", { class: c.num ? "num" : null }, c.cell(r)))))),
        ),
    );
}

/** A hash or address in short form, the full value in its title (and selectable on hover). */
export function hex(value: unknown, keep = 6): HTMLElement {
    const v = typeof value === "string" ? value : "";
    return h("span", { class: "mono", title: v }, shortHex(v, keep));
}

export function runLink(runId: unknown, chainId?: string): Child {
    // A run id is bytes32; anything else (an event without one) is not a link.
    return typeof runId === "string" && /^0x[0-9a-fA-F]{64}$/.test(runId) ? link(onChain("runs", runId, chainId), hex(runId)) : "";
}

export function errorBox(e: unknown): HTMLElement {
    if (e instanceof ApiError) {
        return h(
            "div",
            { class: "error", role: "alert" },
            h("strong", null, e.status === 404 ? "Not found. " : "The node refused the request. "),
            e.message,
            " ",
            h("code", null, e.code),
        );
    }
    const message = e instanceof Error ? e.message : String(e);
    return h("div", { class: "error", role: "alert" }, h("strong", null, "Could not load this page. "), message);
}

export function section(title: string, ...children: Child[]): HTMLElement {
    return h("section", { "aria-label": title }, h("h2", null, title), ...children);
}

export function jsonBlock(value: unknown, label: string): HTMLElement {
    return h(
        "details",
        null,
        h("summary", null, label),
        h("pre", { class: "json", tabindex: 0 }, JSON.stringify(value, null, 2)),
    );
}
