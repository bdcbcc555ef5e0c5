#!/usr/bin/env node
// Unit tests of the explorer's pure modules (web/src: format, chart and graph layout, data: URI
// decoding, safe links, reason codes, ERC-8004 revisions, chains), run by CTest with Node's test runner. The TypeScript
// sources are bundled for Node with rolldown (Vite's bundler, already a dependency), so the code
// under test is the code the browser runs. Expected values come from the specs' examples and
// from geometry, never from our own output.
//
// The reason tables are checked against the C++ enums they describe: every ToolReason
// (verify/verifiers/tool_verifier.hpp, ERC-8257 §7), EvidenceReason
// (verify/verifiers/evidence.hpp, ERC-8301) and Discount (trust/score.hpp) must have a sentence,
// so a new code cannot reach the page as a bare identifier.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test, after } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createRequire } from "node:module";

const here = path.dirname(fileURLToPath(import.meta.url));
const source = process.env.CREDENCE_SOURCE_DIR || path.resolve(here, "../..");
const src = path.join(source, "web/src");
const require = createRequire(path.join(source, "package.json"));
const { build } = await import(pathToFileURL(require.resolve("rolldown")).href);

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "credence-web-units-"));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));
const entry = path.join(scratch, "entry.ts");
fs.writeFileSync(
    entry,
    ["format", "chart", "graph", "datauri", "dom", "reasons", "revisions", "chains"]
        .map((m) => `export * from ${JSON.stringify(path.join(src, `${m}.ts`))};`)
        .join("\n"),
);
const bundle = await build({ input: entry, platform: "node", write: false, output: { format: "esm" }, logLevel: "silent" });
const out = path.join(scratch, "bundle.mjs");
fs.writeFileSync(out, bundle.output[0].code);
const web = await import(pathToFileURL(out).href);

test("decimalValue: ERC-8004 value/valueDecimals as exact decimals", () => {
    // ERC-8004 §Giving Feedback examples: 9977 with 2 decimals is 99.77; -32 with 1 is -3.2.
    assert.equal(web.decimalValue("9977", 2), "99.77");
    assert.equal(web.decimalValue("-32", 1), "-3.2");
    assert.equal(web.decimalValue("1", 18), "0.000000000000000001");
    assert.equal(web.decimalValue("100", 2), "1");
    assert.equal(web.decimalValue("875", 1), "87.5");
    assert.equal(web.decimalValue("-5", 0), "-5");
    assert.equal(web.decimalValue("0", 3), "0");
    // int128 extremes stay exact (a JS number would round them).
    assert.equal(web.decimalValue("170141183460469231731687303715884105727", 18), "170141183460469231731.687303715884105727");
    assert.equal(web.decimalValue("not a number", 2), "not a number");
});

test("shortHex and utc", () => {
    assert.equal(web.shortHex("0x" + "ab".repeat(32), 4), "0xabab…abab");
    assert.equal(web.shortHex("0x12", 4), "0x12");
    assert.equal(web.utc(0), "");
    assert.equal(web.utc(1700000000), "2023-11-14 22:13:20 UTC");
});

test("chartLayout: points inside the plot, in x order, extremes on the edges", () => {
    const points = [
        { x: 30, y: 0.5 },
        { x: 10, y: 0.2 },
        { x: 20, y: 0.9 },
    ];
    const L = web.chartLayout(points, { title: "t", xLabel: String, yLabel: String, width: 400, height: 200 });
    assert.equal(L.dots.length, 3);
    assert.deepEqual(L.dots.map((d) => d.point.x), [10, 20, 30]);
    assert.match(L.path, /^M[\d.]+ [\d.]+ L[\d.]+ [\d.]+ L[\d.]+ [\d.]+$/);
    const xs = L.dots.map((d) => d.cx);
    assert.ok(xs[0] < xs[1] && xs[1] < xs[2]);
    // Left pad 56, right pad 16, top 12, bottom 32 (chart.ts kPad).
    assert.equal(xs[0], 56);
    assert.equal(xs[2], 400 - 16);
    const ys = L.dots.map((d) => d.cy);
    assert.equal(Math.min(...ys), 12); // the highest value at the top
    assert.equal(Math.max(...ys), 200 - 32); // the lowest at the bottom
    // A fixed y range maps 0.5 halfway.
    const F = web.chartLayout([{ x: 1, y: 0.5 }, { x: 2, y: 0.5 }], { title: "t", xLabel: String, yLabel: String, yMin: 0, yMax: 1, width: 400, height: 200 });
    assert.equal(F.dots[0].cy, 12 + (200 - 12 - 32) / 2);
});

test("chartLayout: one point and no point still lay out", () => {
    const one = web.chartLayout([{ x: 5, y: 3 }], { title: "t", xLabel: String, yLabel: String });
    assert.equal(one.dots.length, 1);
    assert.ok(Number.isFinite(one.dots[0].cx) && Number.isFinite(one.dots[0].cy));
    const none = web.chartLayout([], { title: "t", xLabel: String, yLabel: String });
    assert.equal(none.path, "");
});

test("graphLayout: an ERC-8301 chain task -> reply -> task is laid out left to right", () => {
    const nodes = [
        { id: "t2", kind: "task", title: "final", subtitle: "", status: "ok" },
        { id: "r1", kind: "reply", title: "reply", subtitle: "", status: "ok" },
        { id: "t1", kind: "task", title: "task", subtitle: "", status: "ok" },
    ];
    const edges = [
        { from: "t1", to: "r1" },
        { from: "r1", to: "t2" },
        { from: "r1", to: "missing" }, // a link to a node not in the trace is dropped
    ];
    const L = web.graphLayout(nodes, edges);
    const at = Object.fromEntries(L.nodes.map((n) => [n.id, n]));
    assert.deepEqual([at.t1.layer, at.r1.layer, at.t2.layer], [0, 1, 2]);
    assert.ok(at.t1.x < at.r1.x && at.r1.x < at.t2.x);
    assert.equal(L.edges.length, 2);
    assert.ok(L.width >= at.t2.x + 176);
});

test("graphLayout: a parallel stage fans out and joins; a cycle terminates", () => {
    const n = (id, kind) => ({ id, kind, title: id, subtitle: "", status: "ok" });
    const fan = web.graphLayout(
        [n("t0", "task"), n("ra", "reply"), n("rb", "reply"), n("t1", "task")],
        [
            { from: "t0", to: "ra" },
            { from: "t0", to: "rb" },
            { from: "ra", to: "t1" },
            { from: "rb", to: "t1" },
        ],
    );
    const at = Object.fromEntries(fan.nodes.map((x) => [x.id, x]));
    assert.equal(at.ra.layer, 1);
    assert.equal(at.rb.layer, 1);
    assert.notEqual(at.ra.y, at.rb.y);
    assert.equal(at.t1.layer, 2);
    const cyc = web.graphLayout([n("a", "task"), n("b", "reply")], [{ from: "a", to: "b" }, { from: "b", to: "a" }]);
    assert.equal(cyc.nodes.length, 2);
});

test("dataUriJson: base64 and percent-encoded JSON; anything else is null", () => {
    const doc = { name: "Wéather", n: 1 };
    const b64 = Buffer.from(JSON.stringify(doc), "utf8").toString("base64");
    assert.deepEqual(web.dataUriJson(`data:application/json;base64,${b64}`), doc);
    assert.deepEqual(web.dataUriJson(`data:application/json,${encodeURIComponent(JSON.stringify(doc))}`), doc);
    assert.equal(web.dataUriJson("https://example.com/a.json"), null);
    assert.equal(web.dataUriJson("data:application/json;base64,!!!"), null);
    assert.equal(web.dataUriJson(`data:application/json;base64,${Buffer.from([0xff, 0xfe]).toString("base64")}`), null);
    assert.equal(web.dataUriJson(`data:application/json,${encodeURIComponent("[1,2]")}`), null);
});

test("safeHref: only https becomes a link (ERC-8257 §Rendering Manifest Content)", () => {
    assert.equal(web.safeHref("https://tools.example.com/x"), "https://tools.example.com/x");
    for (const bad of ["javascript:alert(1)", "JaVaScRiPt:alert(1)", "http://example.com/", "file:///etc/passwd", "data:text/html,<script>", "blob:https://x/1", "vbscript:x", "/relative", 42, null]) {
        assert.equal(web.safeHref(bad), null, String(bad));
    }
});

function enumValues(file, name) {
    const text = fs.readFileSync(path.join(source, file), "utf8");
    const m = new RegExp(`enum class ${name}[^{]*\\{([\\s\\S]*?)\\};`).exec(text);
    assert.ok(m, `enum ${name} in ${file}`);
    const body = m[1].replace(/\/\/[^\n]*/g, "");
    return body
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
}

test("every ERC-8257 tool reason code has a sentence", () => {
    const codes = enumValues("src/credence/verify/verifiers/tool_verifier.hpp", "ToolReason");
    assert.ok(codes.length >= 25, `found ${codes.length} codes`);
    for (const c of codes) {
        assert.ok(web.toolReasons[c], `toolReasons lacks ${c}`);
        assert.ok(web.toolReasons[c].endsWith("."), `toolReasons.${c} is a sentence`);
    }
});

test("every ERC-8301 evidence reason and trust discount has words", () => {
    for (const c of enumValues("src/credence/verify/verifiers/evidence.hpp", "EvidenceReason")) {
        assert.ok(web.evidenceReasons[c], `evidenceReasons lacks ${c}`);
    }
    for (const c of enumValues("src/credence/trust/score.hpp", "Discount")) {
        assert.ok(web.discountReasons[c], `discountReasons lacks ${c}`);
    }
    assert.equal(web.explain(web.toolReasons, "some_new_code"), "some new code");
    assert.equal(web.explain(web.toolReasons, ""), "");
});

test("randomized: decoders never throw; decimalValue agrees with BigInt arithmetic", () => {
    // A small deterministic PRNG (xorshift32), so a failure reproduces.
    let state = 0x9e3779b9;
    const rnd = () => {
        state ^= state << 13;
        state ^= state >>> 17;
        state ^= state << 5;
        return (state >>> 0) / 2 ** 32;
    };
    const alphabet = "data:application/json;base64,%{}[]\"\\:,0123456789abcdefABCDEF+/=é\u0000\n-";
    // CREDENCE_WEB_FUZZ_ITERATIONS scales the run (docs/fuzzing.md records a long one).
    const iterations = Number(process.env.CREDENCE_WEB_FUZZ_ITERATIONS) || 5000;
    for (let i = 0; i < iterations; ++i) {
        let s = rnd() < 0.5 ? "data:application/json;base64," : "";
        const n = Math.floor(rnd() * 40);
        for (let k = 0; k < n; ++k) s += alphabet[Math.floor(rnd() * alphabet.length)];
        const v = web.dataUriJson(s);
        assert.ok(v === null || typeof v === "object");
        assert.ok(web.safeHref(s) === null || web.safeHref(s).startsWith("https:"));
        assert.equal(typeof web.decimalValue(s, Math.floor(rnd() * 20)), "string");
    }
    for (let i = 0; i < iterations; ++i) {
        // Random int128 values (up to 38 digits) and decimals 0..18 (ERC-8004 §Giving Feedback).
        const digits = 1 + Math.floor(rnd() * 38);
        let text = String(1 + Math.floor(rnd() * 9));
        for (let k = 1; k < digits; ++k) text += String(Math.floor(rnd() * 10));
        const value = (rnd() < 0.5 ? -1n : 1n) * BigInt(text);
        const d = Math.floor(rnd() * 19);
        const scale = 10n ** BigInt(d);
        const abs = value < 0n ? -value : value;
        let frac = (abs % scale).toString().padStart(d, "0").replace(/0+$/, "");
        if (d === 0) frac = "";
        const body = `${abs / scale}${frac ? `.${frac}` : ""}`;
        const want = value < 0n && body !== "0" ? `-${body}` : body;
        assert.equal(web.decimalValue(value.toString(), d), want, `${value} / 10^${d}`);
    }
});

test("chartLayout: axis ticks are round values inside the data range, labels never repeat", () => {
    const L = web.chartLayout([{ x: 23, y: 87.5 }, { x: 24, y: 89.75 }, { x: 25, y: 91.58 }], {
        title: "t",
        xLabel: (x) => `block ${Math.round(x)}`,
        xInteger: true,
        yLabel: (y) => String(Math.round(y * 100) / 100),
    });
    assert.deepEqual(L.yTicks.map((t) => t.text), ["88", "89", "90", "91"]);
    assert.deepEqual(L.xTicks.map((t) => t.text), ["block 23", "block 24", "block 25"]);
    // Each block's tick sits exactly above that block's point.
    assert.deepEqual(L.xTicks.map((t) => t.x), L.dots.map((d) => d.cx));
});

test("revisions: ?revision= values, labels, links and history matches in words", () => {
    // docs/api.md §Earlier ERC-8004 revisions: current (the default), score, draft; anything else
    // is refused, so the page says so instead of asking the node.
    assert.equal(web.parseRevision(null), "current");
    assert.equal(web.parseRevision(""), "current");
    assert.equal(web.parseRevision("current"), "current");
    assert.equal(web.parseRevision("score"), "score");
    assert.equal(web.parseRevision("draft"), "draft");
    assert.equal(web.parseRevision("Draft"), null);
    assert.equal(web.parseRevision("v1"), null);
    assert.deepEqual(web.revisionQuery("current"), {});
    assert.deepEqual(web.revisionQuery("draft"), { revision: "draft" });
    // Every revision has a label, and every label is distinct.
    const labels = web.kRevisions.map((r) => web.revisionLabel(r));
    assert.deepEqual(labels, ["ERC-8004 current", "ERC-8004 intermediate", "ERC-8004 first draft"]);
    assert.equal(web.revisionLabel("v9"), "ERC-8004 v9"); // shown as given, never hidden
    assert.equal(web.revisionLabel(null), "ERC-8004 current");
    assert.equal(new Set(web.kRevisions.map((r) => web.revisionOption(r))).size, 3);
    // A record's page: the current revision's URL has no parameter, the others carry theirs.
    assert.equal(web.agentHref("7", "current"), "/agents/7");
    assert.equal(web.agentHref("7", undefined), "/agents/7");
    assert.equal(web.agentHref("0", "score"), "/agents/0?revision=score");
    assert.equal(web.agentHref("12", "draft"), "/agents/12?revision=draft");
    // docs/api.md §One agent across revisions: the two ways records are matched.
    assert.equal(web.matchedByWords("owner_and_agent_uri"), "same owner and agentURI");
    assert.equal(web.matchedByWords("owner_and_verified_domain"), "same owner and a verified domain");
    assert.equal(web.matchedByWords("something_new"), "something_new");
    assert.match(web.notFollowedText("draft"), /does not follow the ERC-8004 first draft registries/);
});

test("revisions: every matched_by the node emits has words", () => {
    // src/credence/api/rest_agents_legacy.cpp names the history matches; a new one must get words.
    const cpp = fs.readFileSync(path.join(source, "src/credence/api/rest_agents_legacy.cpp"), "utf8");
    const codes = [...new Set(cpp.match(/"owner_and_[a-z_]+"/g) ?? [])].map((c) => c.slice(1, -1));
    assert.ok(codes.length >= 2, `matched_by codes found: ${codes.join(", ")}`);
    for (const code of codes) assert.notEqual(web.matchedByWords(code), code, code);
});

test("chains: ?chain= values, labels and links on a chain (docs/api.md §Chains)", () => {
    assert.deepEqual(web.parseChains(null), []);
    assert.deepEqual(web.parseChains(""), []);
    assert.deepEqual(web.parseChains("8453"), ["8453"]);
    assert.deepEqual(web.parseChains("1,8453,1"), ["1", "8453"]);
    for (const bad of ["abc", "0", "01", "-1", "1,", "1e3", "99999999999999999999"]) assert.equal(web.parseChains(bad), null, bad);
    // EIP-155 chain ids: 1 Ethereum, 8453 Base; others by number.
    assert.equal(web.chainLabel(1), "Ethereum · 1");
    assert.equal(web.chainLabel("8453"), "Base · 8453");
    assert.equal(web.chainLabel(777), "chain 777");
    assert.equal(web.chainLabel(undefined), "");
    // The default chain keeps the short URLs; another chain is in the path.
    assert.equal(web.linkChain(1, ["1", "8453"]), undefined);
    assert.equal(web.linkChain(8453, ["1", "8453"]), "8453");
    assert.equal(web.linkChain(8453, []), undefined);
    assert.equal(web.onChain("tools", "3"), "/tools/3");
    assert.equal(web.onChain("runs", "0xab", "10"), "/chains/10/runs/0xab");
    assert.equal(web.agentHref("7", "current", "8453"), "/chains/8453/agents/7");
    assert.equal(web.agentHref("0", "score", 8453), "/chains/8453/agents/0?revision=score");
    assert.equal(web.agentHref("7", "current", undefined), "/agents/7");
});
