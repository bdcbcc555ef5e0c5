// An SVG line chart (the agent page's reputation over time). Pure layout in
// chartLayout() (tested without a browser); chart() turns it into SVG with a text alternative:
// a title and description for assistive technology and a data table behind a <details>.
import { h, s } from "./dom";

export type Point = { x: number; y: number; label?: string };
export type ChartOptions = {
    title: string;
    xLabel: (x: number) => string;
    yLabel: (y: number) => string;
    yMin?: number;
    yMax?: number;
    width?: number;
    height?: number;
    /** The x values are integers (block numbers): no tick between two of them. */
    xInteger?: boolean;
    /** An optional band drawn under the line (e.g. a confidence interval): [x, low, high]. */
    band?: Array<[number, number, number]>;
};

export type Layout = {
    width: number;
    height: number;
    path: string; // "M x y L x y ..."
    band: string; // a closed polygon path, or ""
    dots: Array<{ cx: number; cy: number; point: Point }>;
    xTicks: Array<{ x: number; text: string }>;
    yTicks: Array<{ y: number; text: string }>;
};

const kPad = { left: 56, right: 16, top: 12, bottom: 32 };

/** Ticks at round values (1, 2 or 5 x 10^k apart) inside [min, max], about n of them. */
function niceTicks(min: number, max: number, n: number, minStep = 0): number[] {
    if (!(max > min)) return [min];
    const raw = Math.max((max - min) / n, minStep);
    const magnitude = 10 ** Math.floor(Math.log10(raw));
    const norm = raw / magnitude;
    const step = (norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10) * magnitude;
    const out: number[] = [];
    for (let v = Math.ceil(min / step) * step; v <= max + step * 1e-9; v += step) {
        out.push(Math.round(v / step) * step);
    }
    return out;
}

/** Drops ticks whose label repeats the previous one (labels rounder than the step). */
function distinct<T extends { text: string }>(ticks: T[]): T[] {
    return ticks.filter((t, i) => i === 0 || t.text !== ticks[i - 1]?.text);
}

/** Maps points to pixel coordinates; x and y ranges come from the data unless given. */
export function chartLayout(points: Point[], opt: ChartOptions): Layout {
    const width = opt.width ?? 640;
    const height = opt.height ?? 240;
    const sorted = [...points].filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
    sorted.sort((a, b) => a.x - b.x);
    const xs = sorted.map((p) => p.x);
    const ys = sorted.map((p) => p.y);
    for (const [, lo, hi] of opt.band ?? []) ys.push(lo, hi);
    let xMin = Math.min(...xs);
    let xMax = Math.max(...xs);
    if (!Number.isFinite(xMin)) [xMin, xMax] = [0, 1];
    if (xMin === xMax) [xMin, xMax] = [xMin - 1, xMax + 1];
    let yMin = opt.yMin ?? Math.min(...ys);
    let yMax = opt.yMax ?? Math.max(...ys);
    if (!Number.isFinite(yMin) || !Number.isFinite(yMax)) [yMin, yMax] = [0, 1];
    if (yMin === yMax) [yMin, yMax] = [yMin - 1, yMax + 1];
    const plotW = width - kPad.left - kPad.right;
    const plotH = height - kPad.top - kPad.bottom;
    const px = (x: number) => kPad.left + ((x - xMin) / (xMax - xMin)) * plotW;
    const py = (y: number) => kPad.top + (1 - (y - yMin) / (yMax - yMin)) * plotH;
    const r = (v: number) => Math.round(v * 10) / 10;
    const dots = sorted.map((p) => ({ cx: r(px(p.x)), cy: r(py(p.y)), point: p }));
    const path = dots.map((d, i) => `${i === 0 ? "M" : "L"}${d.cx} ${d.cy}`).join(" ");
    let band = "";
    const b = [...(opt.band ?? [])].sort((u, v) => u[0] - v[0]);
    if (b.length > 0) {
        const upper = b.map(([x, , hi]) => `${r(px(x))} ${r(py(hi))}`);
        const lower = b.reverse().map(([x, lo]) => `${r(px(x))} ${r(py(lo))}`);
        band = `M${upper.join(" L")} L${lower.join(" L")} Z`;
    }
    const xTicks = distinct(niceTicks(xMin, xMax, 4, opt.xInteger ? 1 : 0).map((x) => ({ x: r(px(x)), text: opt.xLabel(x) })));
    const yTicks = distinct(niceTicks(yMin, yMax, 4).map((y) => ({ y: r(py(y)), text: opt.yLabel(y) })));
    return { width, height, path, band, dots, xTicks, yTicks };
}

let chartSeq = 0;

export function chart(points: Point[], opt: ChartOptions): HTMLElement {
    const L = chartLayout(points, opt);
    const id = `chart-${++chartSeq}`;
    const last = points.length > 0 ? points[points.length - 1] : undefined;
    const summary =
        points.length === 0
            ? "No data points."
            : `${points.length} points from ${opt.xLabel(L.dots[0]?.point.x ?? 0)} to ` +
              `${opt.xLabel(L.dots[L.dots.length - 1]?.point.x ?? 0)}; latest ${last ? opt.yLabel(last.y) : ""}.`;
    const svg = s(
        "svg",
        {
            class: "chart",
            viewBox: `0 0 ${L.width} ${L.height}`,
            role: "img",
            "aria-labelledby": `${id}-t ${id}-d`,
            preserveAspectRatio: "xMidYMid meet",
        },
        s("title", { id: `${id}-t` }, opt.title),
        s("desc", { id: `${id}-d` }, summary),
        L.yTicks.map((t) => [
            s("line", { class: "grid", x1: kPad.left, x2: L.width - kPad.right, y1: t.y, y2: t.y }),
            s("text", { class: "tick", x: kPad.left - 6, y: t.y + 4, "text-anchor": "end" }, t.text),
        ]),
        // The outer ticks align inwards so their labels stay inside the view box.
        L.xTicks.map((t, i) =>
            s("text", { class: "tick", x: t.x, y: L.height - 10, "text-anchor": i === 0 ? "start" : i === L.xTicks.length - 1 ? "end" : "middle" }, t.text),
        ),
        L.band ? s("path", { class: "band", d: L.band }) : null,
        s("path", { class: "line", d: L.path, "data-points": L.dots.length }),
        L.dots.map((d) =>
            s(
                "circle",
                { class: "dot", cx: d.cx, cy: d.cy, r: 3.5 },
                s("title", null, `${opt.xLabel(d.point.x)}: ${opt.yLabel(d.point.y)}${d.point.label ? ` (${d.point.label})` : ""}`),
            ),
        ),
    );
    const table = h(
        "details",
        { class: "chart-data" },
        h("summary", null, "Chart data as a table"),
        h(
            "table",
            null,
            h("thead", null, h("tr", null, h("th", { scope: "col" }, "When"), h("th", { scope: "col" }, "Value"), h("th", { scope: "col" }, "Note"))),
            h(
                "tbody",
                null,
                points.map((p) => h("tr", null, h("td", null, opt.xLabel(p.x)), h("td", null, opt.yLabel(p.y)), h("td", null, p.label ?? ""))),
            ),
        ),
    );
    return h("figure", { class: "chart-box" }, svg, h("figcaption", null, opt.title), table);
}
