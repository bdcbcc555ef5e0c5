// The evidence chain of an ERC-8301 run drawn as a graph (the workflow run page): tasks
// and replies are nodes, an edge goes from what came first to what it led to (a task to the reply
// that answers it, a reply to the next task that cites it in prevReplyHashes). Layers follow the
// longest path from the initial tasks, so the final task sits at the right. graphLayout() is pure.
import { h, s } from "./dom";

export type GraphNode = {
    id: string;
    kind: "task" | "reply";
    title: string; // first line, e.g. "task #2 (stage 1)"
    subtitle: string; // second line, e.g. a short hash
    status: "ok" | "failed" | "unproven" | "pending";
    href?: string;
};
export type GraphEdge = { from: string; to: string };

export type GraphLayout = {
    width: number;
    height: number;
    nodes: Array<GraphNode & { x: number; y: number; layer: number }>;
    edges: Array<GraphEdge & { d: string }>;
};

const kNodeW = 176;
const kNodeH = 48;
const kGapX = 56;
const kGapY = 20;
const kMargin = 12;

export function graphLayout(nodes: GraphNode[], edges: GraphEdge[]): GraphLayout {
    const ids = new Map(nodes.map((n, i) => [n.id, i]));
    const good = edges.filter((e) => ids.has(e.from) && ids.has(e.to) && e.from !== e.to);
    const indeg = new Map(nodes.map((n) => [n.id, 0]));
    const out = new Map<string, string[]>(nodes.map((n) => [n.id, []]));
    for (const e of good) {
        indeg.set(e.to, (indeg.get(e.to) ?? 0) + 1);
        out.get(e.from)?.push(e.to);
    }
    // Kahn's order; nodes left on a cycle (an invalid chain) keep layer 0 and are still drawn.
    const layer = new Map(nodes.map((n) => [n.id, 0]));
    const queue = nodes.filter((n) => indeg.get(n.id) === 0).map((n) => n.id);
    for (let i = 0; i < queue.length; ++i) {
        const id = queue[i] as string;
        for (const to of out.get(id) ?? []) {
            layer.set(to, Math.max(layer.get(to) ?? 0, (layer.get(id) ?? 0) + 1));
            const d = (indeg.get(to) ?? 1) - 1;
            indeg.set(to, d);
            if (d === 0) queue.push(to);
        }
    }
    const rows = new Map<number, number>();
    const placed = nodes.map((n) => {
        const l = layer.get(n.id) ?? 0;
        const row = rows.get(l) ?? 0;
        rows.set(l, row + 1);
        return { ...n, layer: l, x: kMargin + l * (kNodeW + kGapX), y: kMargin + row * (kNodeH + kGapY) };
    });
    const at = new Map(placed.map((n) => [n.id, n]));
    const placedEdges = good.map((e) => {
        const a = at.get(e.from)!;
        const b = at.get(e.to)!;
        const x1 = a.x + kNodeW;
        const y1 = a.y + kNodeH / 2;
        const x2 = b.x;
        const y2 = b.y + kNodeH / 2;
        const mid = (x1 + x2) / 2;
        return { ...e, d: `M${x1} ${y1} C${mid} ${y1} ${mid} ${y2} ${x2 - 6} ${y2}` };
    });
    const layers = Math.max(0, ...placed.map((n) => n.layer)) + 1;
    const maxRows = Math.max(1, ...rows.values());
    return {
        width: kMargin * 2 + layers * kNodeW + (layers - 1) * kGapX,
        height: kMargin * 2 + maxRows * kNodeH + (maxRows - 1) * kGapY,
        nodes: placed,
        edges: placedEdges,
    };
}

let graphSeq = 0;

export function graph(nodes: GraphNode[], edges: GraphEdge[], title: string): HTMLElement {
    const L = graphLayout(nodes, edges);
    const id = `graph-${++graphSeq}`;
    const svg = s(
        "svg",
        {
            class: "graph",
            viewBox: `0 0 ${L.width} ${L.height}`,
            width: L.width,
            height: L.height,
            role: "img",
            "aria-labelledby": `${id}-t`,
        },
        s("title", { id: `${id}-t` }, title),
        s(
            "defs",
            null,
            s(
                "marker",
                { id: `${id}-arrow`, viewBox: "0 0 10 10", refX: 4, refY: 5, markerWidth: 8, markerHeight: 8, orient: "auto-start-reverse" },
                s("path", { d: "M0 0 L10 5 L0 10 z", class: "arrow" }),
            ),
        ),
        L.edges.map((e) => s("path", { class: "edge", d: e.d, "marker-end": `url(#${id}-arrow)` })),
        L.nodes.map((n) => {
            const box = s(
                "g",
                { class: `node ${n.kind} ${n.status}`, transform: `translate(${n.x} ${n.y})`, "data-id": n.id },
                s("title", null, `${n.title}: ${n.status} (${n.id})`),
                s("rect", { width: kNodeW, height: kNodeH, rx: n.kind === "task" ? 4 : 16 }),
                s("text", { x: 10, y: 20, class: "n1" }, n.title),
                s("text", { x: 10, y: 38, class: "n2" }, n.subtitle),
            );
            return n.href ? s("a", { href: n.href }, box) : box;
        }),
    );
    return h("div", { class: "graph-box", tabindex: 0, role: "region", "aria-label": title }, svg);
}
