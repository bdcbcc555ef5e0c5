#!/usr/bin/env node
// End-to-end test of the web explorer, run by CTest (tests/CMakeLists.txt):
//   1. starts a real `credence node` (no --rpc: its embedded devnet; --port 0; data in a temp dir)
//      serving the built explorer (web/dist);
//   2. seeds real data with the real `credence` CLI: two agents registered from registration
//      files (stored as data: URIs), feedback from two other accounts, the owner's response, a
//      validation request and response, a priced tool with an access requirement, and a
//      SingleStageWorkflow run replied to and proven; and, with cast, one agent in each earlier
//      ERC-8004 revision (an intermediate one sharing owner and agentURI with a current one,
//      scored by two clients; two first-draft agents, one authorizing the other's feedback
//      and validated by it);
//   3. waits until the node has indexed, verified and scored it (through its REST API);
//   4. drives Debian's chromium headless with playwright-core: loads every page, searches, opens an
//      agent, reads its score, sees the reputation chart drawn (an SVG path with points), opens
//      the tool's verification report (its reason code in words) and the run's evidence graph and
//      verdict; switches the agents list between revisions, opens the first-draft and the
//      intermediate agent and follows the history between revisions; a second node that follows
//      only the current revision shows its 404s as messages; no page may log an error or ask for
//      anything outside the node's origin.
// Prints one line per check and "N passed, N failed". Exit 0 when all pass, 1 on any failure,
// 77 (CTest SKIP_RETURN_CODE) when the node binary has no `node` command. Every process it starts
// is killed on exit, and the whole run is bounded (kTotalMs).
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const kTotalMs = 75_000; // hard bound for the whole test (the target is well under 60 s)
const kSkip = 77;
const here = path.dirname(fileURLToPath(import.meta.url));
const source = process.env.CREDENCE_SOURCE_DIR || path.resolve(here, "../..");
const bin = process.env.CREDENCE_BIN || path.join(source, "build/release/src/credence/credence");
const dist = process.env.CREDENCE_WEB_DIST || path.join(source, "web/dist");
const chromiumPath = process.env.CREDENCE_CHROMIUM || "/usr/bin/chromium";
// anvil's development accounts (its public test mnemonic, devnets only), derived by cast: 0
// registers, 1 and 2 review.
const kMnemonic = "test test test test test test test test test test test junk";
const castBin = process.env.CREDENCE_CAST || path.join(source, "node_modules/@foundry-rs/cast-linux-amd64/bin/cast");
const kKeys = [];
const addresses = [];

const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)}s`;
const log = (...a) => console.log(`[${elapsed()}]`, ...a);

// ─── processes we start, killed on every way out ───
const children = new Set();
let scratch = "";
let browser = null;

function killAll() {
    for (const child of children) {
        // The node runs in its own process group (detached), so its anvil goes with it.
        try {
            process.kill(-child.pid, "SIGTERM");
        } catch {}
    }
}
function hardKillAll() {
    for (const child of children) {
        try {
            process.kill(-child.pid, "SIGKILL");
        } catch {}
    }
}
async function cleanup() {
    if (browser) {
        await Promise.race([browser.close().catch(() => {}), sleep(3000)]);
        browser = null;
    }
    killAll();
    const deadline = Date.now() + 5000;
    while ([...children].some((c) => c.exitCode === null && c.signalCode === null) && Date.now() < deadline) {
        await sleep(50);
    }
    hardKillAll();
    if (scratch && !process.env.CREDENCE_KEEP_SCRATCH) fs.rmSync(scratch, { recursive: true, force: true });
}
process.on("exit", () => hardKillAll());
for (const sig of ["SIGINT", "SIGTERM"]) {
    process.on(sig, async () => {
        await cleanup();
        process.exit(1);
    });
}
const watchdog = setTimeout(async () => {
    console.error(`FAIL: the test did not finish within ${kTotalMs / 1000} s`);
    await cleanup();
    process.exit(1);
}, kTotalMs);

function sleep(ms) {
    return new Promise((r) => setTimeout(r, ms));
}

// ─── checks ───
let passed = 0;
let failed = 0;
// CREDENCE_E2E_ARTIFACTS=DIR keeps a full-page screenshot after each check (for a failure's
// post-mortem, or to look at the pages).
const artifacts = process.env.CREDENCE_E2E_ARTIFACTS || "";
let currentPage = null;
async function check(name, fn) {
    const t0 = Date.now();
    try {
        await fn();
        ++passed;
        log(`PASS ${name} (${Date.now() - t0} ms)`);
    } catch (e) {
        ++failed;
        log(`FAIL ${name}: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (artifacts && currentPage) {
        fs.mkdirSync(artifacts, { recursive: true });
        const file = path.join(artifacts, `${passed + failed}-${name.replace(/[^a-z0-9]+/gi, "-").slice(0, 40)}.png`);
        await currentPage.screenshot({ path: file, fullPage: true }).catch(() => {});
    }
}
function expect(cond, message) {
    if (!cond) throw new Error(message);
}

// ─── the CLI ───
function run(args, options = {}) {
    return runProgram(bin, args, options);
}
function runProgram(program, args, { env = {}, timeoutMs = 20_000 } = {}) {
    return new Promise((resolve, reject) => {
        const child = spawn(program, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
        let out = "";
        let err = "";
        child.stdout.on("data", (d) => (out += d));
        child.stderr.on("data", (d) => (err += d));
        const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
        child.on("error", reject);
        child.on("close", (code) => {
            clearTimeout(timer);
            resolve({ code, out, err });
        });
    });
}

async function cli(args, env) {
    const r = await run([...args, "--json"], { env });
    if (r.code !== 0) throw new Error(`credence ${args.join(" ")}: exit ${r.code}: ${r.err.trim()}`);
    try {
        return JSON.parse(r.out);
    } catch {
        throw new Error(`credence ${args.join(" ")}: not JSON: ${r.out.slice(0, 200)}`);
    }
}

// ─── the node ───
function startNode(args, env) {
    return new Promise((resolve, reject) => {
        const child = spawn(bin, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"], detached: true });
        children.add(child);
        let out = "";
        let err = "";
        let done = false;
        const finish = (fn, value) => {
            if (done) return;
            done = true;
            clearTimeout(timer);
            fn(value);
        };
        const timer = setTimeout(() => finish(reject, new Error(`credence node printed no URL within 25 s\nstdout: ${out}\nstderr: ${err}`)), 25_000);
        child.stdout.on("data", (d) => {
            out += d;
            const m = /credence node: serving (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
            if (m) finish(resolve, { child, url: m[1], output: () => out, errors: () => err });
        });
        child.stderr.on("data", (d) => {
            err += d;
            if (process.env.CREDENCE_E2E_VERBOSE) process.stderr.write(d);
        });
        child.on("exit", (code, signal) => finish(reject, new Error(`credence node exited (${code ?? signal}) before serving\nstdout: ${out}\nstderr: ${err}`)));
    });
}

async function api(base, route) {
    const r = await fetch(`${base}/api/v1${route}`);
    const body = await r.json().catch(() => null);
    return { status: r.status, body };
}

/** Polls `probe` (returns a truthy value when ready) every 200 ms up to `ms`. */
async function waitFor(what, ms, probe) {
    const deadline = Date.now() + ms;
    let last = null;
    while (Date.now() < deadline) {
        try {
            const v = await probe();
            if (v) return v;
        } catch (e) {
            last = e;
        }
        await sleep(200);
    }
    throw new Error(`timed out after ${ms} ms waiting for ${what}${last ? `: ${last.message}` : ""}`);
}

function registrationFile(name, description, services) {
    return JSON.stringify(
        {
            type: "https://eips.ethereum.org/EIPS/eip-8004#registration-v1",
            name,
            description,
            image: "https://example.com/agent.png",
            services,
            x402Support: false,
            active: true,
            registrations: [],
            supportedTrust: ["reputation"],
        },
        null,
        2,
    );
}

async function main() {
    for (const [what, p] of [["credence binary", bin], ["built explorer", path.join(dist, "index.html")], ["chromium", chromiumPath]]) {
        if (!fs.existsSync(p)) {
            console.error(`FAIL: no ${what} at ${p}${what === "built explorer" ? " (run scripts/build-web.sh)" : ""}`);
            process.exit(1);
        }
    }
    const help = await run(["node", "--help"]);
    if (help.code !== 0 || !help.out.includes("--static-dir")) {
        console.log(`SKIP: ${bin} has no working \`node\` command yet (exit ${help.code}: ${help.err.trim().split("\n")[0]})`);
        process.exit(kSkip);
    }
    for (const i of [0, 1, 2]) {
        const r = await runProgram(castBin, ["wallet", "private-key", kMnemonic, String(i)]);
        if (r.code !== 0) throw new Error(`cast wallet private-key: ${r.err.trim()}`);
        kKeys.push(r.out.trim());
        const a = await runProgram(castBin, ["wallet", "address", kKeys[i]]);
        addresses.push(a.out.trim());
    }
    const requireFromRoot = createRequire(path.join(source, "package.json"));
    const { chromium } = requireFromRoot("playwright-core");

    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "credence-web-e2e-"));
    const home = path.join(scratch, "home");
    fs.mkdirSync(home);
    // The CLI finds the node's devnet through $CREDENCE_HOME/devnet.json (the node writes it);
    // nothing from the caller's environment may point it elsewhere.
    for (const k of ["ETH_RPC_URL", "CREDENCE_DATABASE", "CREDENCE_DEPLOYMENT", "CREDENCE_PRIVATE_KEY", "ETH_PRIVATE_KEY", "CREDENCE_KEYSTORE_PASSWORD"]) {
        delete process.env[k];
    }
    const env = { CREDENCE_HOME: home };

    // 1. The node: embedded devnet, a free port, its data in the scratch directory.
    const node = await startNode(nodeArgs(scratch), env);
    const base = node.url;
    log(`node serving ${base}`);
    const rpc = await rpcUrl(node, base, home);
    const chainEnv = { ...env, ETH_RPC_URL: rpc };

    // 2. Seed with the real CLI.
    const write = (name, text) => {
        const p = path.join(scratch, name);
        fs.writeFileSync(p, text);
        return p;
    };
    const alphaName = `Weather Oracle ${process.pid}`;
    const alpha = await cli(["agent", "register", write("alpha.json", registrationFile(alphaName, "Forecasts for any city, with sources.", [{ name: "MCP", endpoint: "https://mcp.example.com/", version: "2025-06-18" }, { name: "A2A", endpoint: "https://a2a.example.com/.well-known/agent-card.json", version: "0.3.0" }])), "--private-key", kKeys[0]], chainEnv);
    const beta = await cli(["agent", "register", write("beta.json", registrationFile("Translator", "Translates text between languages.", [{ name: "A2A", endpoint: "https://translate.example.com/.well-known/agent-card.json", version: "0.3.0" }])), "--private-key", kKeys[0]], chainEnv);
    const agentId = String(alpha.agentId);
    log(`registered agents ${agentId} and ${beta.agentId}`);
    // Feedback values are our inputs; the page must show them as given.
    const given = [
        ["87.5", kKeys[1], "quality"],
        ["92", kKeys[2], "quality"],
        ["95.25", kKeys[1], "quality"],
    ];
    for (const [value, key, tag] of given) {
        await cli(["feedback", "give", agentId, value, "--tag1", tag, "--private-key", key], chainEnv);
    }
    // Two fresh addresses (mnemonic indexes 10 and 11, which anvil does not fund) funded by
    // account 2 rate the agent: one funder that is not a hub, so the explorer shows one funding
    // cluster with its path (docs/trust.md §Funding).
    const clusterKeys = [];
    for (const i of [10, 11]) {
        const k = await runProgram(castBin, ["wallet", "private-key", kMnemonic, String(i)]);
        const a = await runProgram(castBin, ["wallet", "address", k.out.trim()]);
        clusterKeys.push(k.out.trim());
        const sent = await runProgram(castBin, ["send", "--rpc-url", rpc, "--private-key", kKeys[2], "--value", "1ether", a.out.trim()]);
        if (sent.code !== 0) throw new Error(`cast send: ${sent.err.trim()}`);
    }
    for (const key of clusterKeys) {
        await cli(["feedback", "give", agentId, "100", "--tag1", "quality", "--private-key", key], chainEnv);
    }
    // The owner answers the first feedback; account 2 validates the agent (ERC-8004).
    const responseUri = "https://weather.example.com/responses/1.json";
    await cli(["feedback", "respond", agentId, addresses[1], "1", responseUri, "--hash", `0x${"11".repeat(32)}`, "--private-key", kKeys[0]], chainEnv);
    const request = await cli(["validation", "request", addresses[2], agentId, "--file", write("request.json", '{"check":"forecast accuracy"}'), "--uri", "https://weather.example.com/validation/1.json", "--private-key", kKeys[0]], chainEnv);
    await cli(["validation", "respond", request.requestHash, "90", "--tag", "accuracy", "--uri", "https://validator.example.com/1.json", "--private-key", kKeys[2]], chainEnv);
    const manifest = {
        type: "https://ercs.ethereum.org/ERCS/erc-8257#tool-manifest-v1",
        name: "nft-price-oracle",
        description: "Returns estimated floor price.",
        endpoint: "https://tools.example.com/nft-price-oracle",
        inputs: { type: "object", properties: { collection: { type: "string" } } },
        outputs: { type: "object", properties: { floorPriceEth: { type: "string" } } },
        version: "1.0.0",
        tags: ["nft", "pricing"],
        // ERC-8257 §3 / §4: one x402 price (USDC on Base, smallest unit) and an advisory access
        // requirement, shown as given on the tool page.
        pricing: [{ amount: "20000", asset: "eip155:8453/erc20:0x833589fcd6edb6e08f4c7c32d4f71b54bda02913", recipient: `eip155:8453:${addresses[0].toLowerCase()}`, protocol: "x402" }],
        access: { logic: "OR", requirements: [{ kind: "0xabcd1234", data: "0x", label: "Hold a test pass" }] },
        creatorAddress: addresses[0].toLowerCase(),
    };
    const tool = await cli(["tool", "register", write("manifest.json", JSON.stringify(manifest, null, 2)), "--private-key", kKeys[0]], chainEnv);
    const toolId = String(tool.toolId);
    const wf = ["--workflow", "SingleStageWorkflow"];
    const runStart = await cli(["workflow", "run", write("in.txt", "summarize: the quick brown fox"), ...wf, "--private-key", kKeys[0]], chainEnv);
    const runId = runStart.runId;
    const reply = await cli(["workflow", "reply", runStart.tasks[0].taskHash, "--output-file", write("out.txt", "a quick fox"), ...wf, "--private-key", kKeys[0]], chainEnv);
    await cli(["workflow", "prove", reply.replyHash, ...wf, "--private-key", kKeys[0]], chainEnv);
    log(`seeded: tool ${toolId}, run ${runId}`);

    // The earlier ERC-8004 revisions (docs/compatibility.md §Earlier ERC-8004 revisions): the
    // node's devnet deploys their registries too; seeded with cast, as their users would.
    const legacy = await seedEarlierRevisions({ home, rpc, base, betaId: String(beta.agentId) });
    log(`seeded earlier revisions: score agent ${legacy.scoreId}, draft agents ${legacy.serverId} (server) and ${legacy.clientId} (client)`);

    // 3. Wait for the node to index, verify and score it.
    await waitFor("the agent, its feedback and its score", 25_000, async () => {
        const a = await api(base, `/agents/${agentId}`);
        const c = a.body?.counts ?? {};
        return a.status === 200 && c.feedback >= given.length + clusterKeys.length && c.responses >= 1 && c.validations >= 1 && a.body.score && a.body.profile ? a.body : null;
    });
    await waitFor("the run's evidence", 15_000, async () => {
        const r = await api(base, `/runs/${runId}`);
        return r.status === 200 && r.body?.evidence ? r.body : null;
    });
    await waitFor("the tool's verification", 15_000, async () => {
        const t = await api(base, `/tools/${toolId}`);
        return t.status === 200 && t.body?.verification ? t.body : null;
    });
    // The node traces the reviewers' fundings after a verification pass, then scores again.
    await waitFor("the funding cluster in the score's explanation", 30_000, async () => {
        const a = await api(base, `/agents/${agentId}`);
        return a.status === 200 && (a.body?.score?.explanation?.clusters ?? []).length === 1 ? a.body : null;
    });
    await waitFor("the earlier revisions' records", 15_000, async () => {
        const score = await api(base, `/agents/${legacy.scoreId}?revision=score`);
        const server = await api(base, `/agents/${legacy.serverId}?revision=draft`);
        const validations = await api(base, `/agents/${legacy.serverId}/validations?revision=draft`);
        const answered = (validations.body?.items ?? []).some((v) => v.response !== null && v.response !== undefined);
        return score.body?.counts?.feedback >= legacy.scores.length && (score.body?.history ?? []).length >= 1 && server.body?.counts?.feedback_authorizations >= 1 && answered;
    });
    log("indexed");

    // 4. The browser.
    browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(8000);
    currentPage = page;
    const problems = [];
    const origin = new URL(base).origin;
    await context.route("**/*", (r) => {
        const u = r.request().url();
        if (u.startsWith(origin) || u.startsWith("data:")) return r.continue();
        problems.push(`request outside the node's origin: ${u}`);
        return r.abort();
    });
    // The unknown-agent checks below: the browser itself logs the 404 of their API request.
    const expected404 = [`${origin}/api/v1/agents/999999999`, `${origin}/api/v1/agents/999999999?revision=draft`, `${origin}/api/v1/agents?limit=25&chain=5`, `${origin}/api/v1/chains/5/home`];
    page.on("console", (m) => {
        if (m.type() !== "error") return;
        if (m.text().includes("404") && expected404.includes(m.location().url)) return;
        problems.push(`console error: ${m.text()} (${m.location().url})`);
    });
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
    page.on("response", (r) => {
        if (r.status() >= 500) problems.push(`HTTP ${r.status()} for ${r.url()}`);
    });

    await check("home shows counts, chain status and recent activity", async () => {
        await page.goto(`${base}/`);
        await page.locator("h1", { hasText: "Credence explorer" }).waitFor();
        const agents = Number((await page.locator('[data-count="Agents"]').textContent()).replace(/,/g, ""));
        expect(agents >= 2, `agents count ${agents}, want >= 2`);
        const runs = Number((await page.locator('[data-count="Workflow runs"]').textContent()).replace(/,/g, ""));
        expect(runs >= 1, `runs count ${runs}, want >= 1`);
        const chain = await page.locator("dl.facts").first().textContent();
        expect(/Chain id\s*31337/.test(chain), `chain status: ${chain}`);
        const events = await page.locator("section[aria-label='Recent activity'] tbody tr").count();
        expect(events >= 5, `recent activity rows ${events}, want >= 5`);
        expect((await page.title()).includes("Credence"), "document title");
        // docs/api.md §Chains: /?chain=<id> is that chain's home, its counts linked to its lists;
        // a chain the node does not follow is said, not a broken page.
        await page.goto(`${base}/?chain=31337`);
        await page.locator('[data-count="Agents"]').waitFor();
        expect(Number((await page.locator('[data-count="Agents"]').textContent()).replace(/,/g, "")) === agents, "the chain's agents count");
        expect((await page.getByRole("link", { name: "Agents", exact: true }).last().getAttribute("href")) === "/agents?chain=31337", "the count links to the chain's agents");
        await page.goto(`${base}/?chain=5`);
        await page.locator('[data-unknown-chain="5"]').waitFor();
    });

    await check("agents list searches by text and filters by service", async () => {
        await page.getByRole("link", { name: "Agents", exact: true }).first().click();
        await page.locator("h1", { hasText: "Agents" }).waitFor();
        await page.getByLabel("Text").fill(alphaName);
        await page.getByRole("button", { name: "Search" }).click();
        await page.waitForURL(/\/agents\?q=/);
        await page.locator(`[data-result-count="1"]`).waitFor();
        expect((await page.locator("tbody tr").count()) === 1, "one row for the exact name");
        expect(await page.getByRole("link", { name: alphaName }).isVisible(), "the agent's link");
        // A filter that excludes it: the page says so.
        await page.goto(`${base}/agents?q=${encodeURIComponent(alphaName)}&service=email`);
        await page.getByText("No agent matches.").waitFor();
        // Service filter alone: only the agent with an MCP service.
        await page.goto(`${base}/agents?service=mcp`);
        await page.locator("[data-result-count]").waitFor();
        const names = await page.locator("tbody tr td:nth-child(2)").allTextContents();
        expect(names.includes(alphaName) && !names.includes("Translator"), `service=mcp rows: ${names.join(", ")}`);
        // Minimum score, through the form: the scored agent passes 0.05 and fails 0.999.
        for (const [min, present] of [["0.05", true], ["0.999", false]]) {
            await page.goto(`${base}/agents?q=${encodeURIComponent(alphaName)}`);
            await page.getByLabel("Minimum score").fill(min);
            await page.getByRole("button", { name: "Search" }).click();
            await page.waitForURL(new RegExp(`min_score=${min.replace(".", "\\.")}`));
            // The previous search's results stay on the page until the new answer arrives (the URL
            // changes first): wait for the expected count, then read whatever is shown.
            const want = present ? 1 : 0;
            await page.locator(`[data-result-count="${want}"]`).waitFor({ timeout: 10000 }).catch(() => {});
            const n = Number(await page.locator("[data-result-count]").getAttribute("data-result-count"));
            expect(n === want, `min_score=${min}: ${n} rows`);
        }
        // Verification status and active flag go to the API as its own parameters.
        const status = (await api(base, `/agents/${agentId}`)).body.verification.status;
        await page.goto(`${base}/agents?verification=${status}&active=true&sort=newest`);
        await page.locator("[data-result-count]").waitFor();
        const filtered = await page.locator("tbody tr td:nth-child(2)").allTextContents();
        expect(filtered.includes(alphaName), `verification=${status}&active=true rows: ${filtered.join(", ")}`);
        // docs/api.md §Chains: every row says its chain; the chain filter is kept in the URL, and
        // a chain the node does not follow is said, not a broken page.
        const chains = await page.locator("tbody tr [data-chain-id]").evaluateAll((els) => els.map((e) => e.getAttribute("data-chain-id")));
        expect(chains.length > 0 && chains.every((c) => c === "31337"), `row chains: ${chains.join(", ")}`);
        expect((await page.locator("tbody tr [data-chain-id]").first().textContent()).includes("Anvil · 31337"), "the chain label");
        await page.getByLabel("Chain").selectOption("31337");
        await page.waitForURL(/[?&]chain=31337/);
        await page.locator("[data-result-count]").waitFor();
        expect(await page.getByRole("link", { name: alphaName }).isVisible(), "the agent on its chain");
        await page.goto(`${base}/agents?chain=5`);
        await page.locator("[data-unknown-chain=\"5\"]").waitFor();
    });

    let shownScore = NaN;
    await check("agent page shows the score, badges, services and feedback", async () => {
        await page.goto(`${base}/agents?q=${encodeURIComponent(alphaName)}`);
        await page.getByRole("link", { name: alphaName }).click();
        await page.waitForURL(new RegExp(`/agents/${agentId}$`));
        await page.locator(`article[data-agent-id="${agentId}"]`).waitFor();
        expect((await page.locator("h1").textContent()).includes(alphaName), "the name in the heading");
        expect((await page.locator("article").getAttribute("data-chain-id")) === "31337", "the agent's chain");
        // The canonical route of the agent on its chain draws the same record.
        await page.goto(`${base}/chains/31337/agents/${agentId}`);
        await page.locator(`article[data-agent-id="${agentId}"][data-chain-id="31337"]`).waitFor();
        await page.goto(`${base}/agents/${agentId}`);
        await page.locator(`article[data-agent-id="${agentId}"]`).waitFor();
        shownScore = Number(await page.locator(".score").getAttribute("data-score"));
        expect(shownScore > 0 && shownScore <= 1, `score ${shownScore}`);
        const text = await page.locator(".score").textContent();
        expect(/^\d+(\.\d)?%$/.test(text.trim()), `score text "${text}"`);
        expect((await page.locator("[data-badge]").count()) >= 4, "four badges");
        expect(await page.getByText("mcp.example.com").first().isVisible(), "the MCP service endpoint");
        const values = await page.locator("[data-value]").allTextContents();
        for (const [v] of given) expect(values.includes(v), `feedback value ${v} in ${values.join(", ")}`);
        expect(await page.locator(".response a", { hasText: responseUri }).isVisible(), "the owner's response");
        const validation = await page.locator("section[aria-label='Validations'] tbody tr").first().textContent();
        expect(validation.includes("90 / 100") && validation.includes("accuracy"), `validation row "${validation}"`);
        // The explanation names every reviewer: accounts 1 and 2, and the two addresses account 2
        // funded.
        const reviewers = await page.locator("section[aria-label='Trust score'] table").last().locator("tbody tr td:first-child span").evaluateAll((els) => els.map((e) => e.getAttribute("title").toLowerCase()));
        const want = ["0x70997970c51812dc3a010c7d01b50e0d17dc79c8", "0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc"];
        expect(want.every((a) => reviewers.includes(a)) && new Set(reviewers).size === 4, `explanation reviewers ${reviewers.join(", ")}`);
        // The funding cluster: in words and as a graph from the funder to the agent.
        const cluster = page.locator("[data-clusters='1'] .cluster[data-reason='clustered'][data-members='2']");
        await cluster.waitFor();
        expect((await cluster.textContent()).toLowerCase().includes("share the funder 0x3c44"), `cluster text "${await cluster.textContent()}"`);
        expect((await cluster.locator("svg.graph g.node").count()) >= 3, "the funding path drawn: funder, reviewers, agent");
    });

    await check("the score on the page is the node's score", async () => {
        // The trust engine may rescore between two reads (a verification result arriving), so
        // the page must show the score of a read just before or just after it loaded.
        const before = (await api(base, `/agents/${agentId}`)).body.score.score;
        await page.reload();
        const shown = Number(await page.locator(".score").getAttribute("data-score"));
        const after = (await api(base, `/agents/${agentId}`)).body.score.score;
        expect(shown === before || shown === after, `page ${shown} vs API ${before} / ${after} (first load ${shownScore})`);
    });

    await check("the reputation chart renders an SVG path with points", async () => {
        const line = page.locator("svg.chart path.line");
        await line.waitFor();
        const d = await line.getAttribute("d");
        const points = (d.match(/[ML]\s*-?[\d.]+\s+-?[\d.]+/g) || []).length;
        expect(points >= 1 && points === Number(await line.getAttribute("data-points")), `path "${d}"`);
        expect((await page.locator("svg.chart circle.dot").count()) === points, "one dot per point");
        const box = await page.locator("svg.chart").boundingBox();
        expect(box && box.width > 100 && box.height > 40, `chart size ${JSON.stringify(box)}`);
    });

    await check("a deep link loads (SPA fallback) and an unknown agent is a clear 404", async () => {
        await page.goto(`${base}/agents/${agentId}`);
        await page.locator(`article[data-agent-id="${agentId}"]`).waitFor();
        await page.goto(`${base}/agents/999999999`);
        await page.locator(".error", { hasText: "Not found" }).waitFor();
    });

    await check("tools list and tool page: verification report in words", async () => {
        await page.goto(`${base}/tools`);
        await page.getByRole("link", { name: "nft-price-oracle" }).click();
        await page.locator(`article[data-tool-id="${toolId}"]`).waitFor();
        const verdict = page.locator("[data-verdict]");
        const state = await verdict.getAttribute("data-verdict");
        // A data: metadataURI is not https: ERC-8257 §6 makes that a failed check 2.
        expect(state === "unverified", `verdict ${state}`);
        const reason = await verdict.getAttribute("data-reason");
        const words = await verdict.locator(".reason-text").textContent();
        expect(reason && words.length > 20 && !words.includes("_") && words !== reason, `reason ${reason} in words "${words}"`);
        expect(await page.getByText("Returns estimated floor price.").first().isVisible(), "the manifest's description");
        expect(await page.locator('[data-badge="open access"]').isVisible(), "the access section");
        const pricing = await page.locator("section[aria-label='Pricing'] tbody tr").first().textContent();
        expect(pricing.includes("x402") && pricing.includes("20000") && pricing.includes("eip155:8453/erc20:"), `pricing row "${pricing}"`);
        expect(await page.getByRole("cell", { name: "Hold a test pass" }).isVisible(), "the access requirement's label");
    });

    await check("runs list and run page: the evidence graph and its verdict", async () => {
        // The chain filter (docs/api.md §Chains) keeps the chain in the URL.
        await page.goto(`${base}/runs`);
        await page.getByLabel("Chain").selectOption("31337");
        await page.waitForURL(/\/runs\?chain=31337$/);
        await page.locator(`a[href="/runs/${runId}"]`).waitFor();
        await page.goto(`${base}/runs`);
        await page.locator(`a[href="/runs/${runId}"]`).click();
        await page.locator(`article[data-run-id="${runId}"]`).waitFor();
        const verdict = page.locator("p.verdict");
        expect((await verdict.getAttribute("data-verdict")) === "valid", `verdict ${await verdict.textContent()}`);
        expect((await verdict.textContent()).includes("VALID, fully proven"), "verdict text");
        const nodes = await page.locator("svg.graph g.node").count();
        const tasks = await page.locator("svg.graph g.node.task").count();
        const replies = await page.locator("svg.graph g.node.reply").count();
        const edges = await page.locator("svg.graph path.edge").count();
        expect(tasks >= 1 && replies >= 1 && edges >= nodes - 1, `graph: ${tasks} tasks, ${replies} replies, ${edges} edges`);
        expect((await page.locator("svg.graph g.node.failed").count()) === 0, "no failed node");
    });

    await check("navigation is keyboard reachable and pages are labelled", async () => {
        await page.goto(`${base}/`);
        await page.keyboard.press("Tab");
        expect((await page.evaluate(() => document.activeElement?.textContent)) === "Skip to content", "skip link first");
        for (const [href, heading] of [["/agents", "Agents"], ["/tools", "Tools"], ["/runs", "Workflow runs"]]) {
            await page.locator(`nav a[href="${href}"]`).click();
            await page.locator("h1", { hasText: heading }).waitFor();
            expect((await page.locator(`nav a[href="${href}"]`).getAttribute("aria-current")) === "page", `aria-current on ${href}`);
            // Every form control has a label, every table a caption and column headers.
            const unlabelled = await page.evaluate(() => [...document.querySelectorAll("input, select")].filter((e) => !e.closest("label") && !e.getAttribute("aria-label")).length);
            expect(unlabelled === 0, `${unlabelled} unlabelled controls on ${href}`);
            const bare = await page.evaluate(() => [...document.querySelectorAll("table")].filter((t) => !t.caption || !t.querySelector("th[scope=col]")).length);
            expect(bare === 0, `${bare} tables without caption or headers on ${href}`);
        }
    });

    await earlierRevisionChecks(page, base, legacy);
    await unfollowedRevisionCheck(browser, { scratch, rpc, home });

    await check("no page error, no console error, nothing fetched outside the node", async () => {
        expect(problems.length === 0, problems.join("; "));
    });
}

/**
 * Seeds one agent in each earlier ERC-8004 revision with cast, to the registries of the node's
 * deployment file:
 *  - intermediate (score): account 0 registers the agentURI of the current agent `betaId` (same
 *    owner, same agentURI: the node's history links the two), accounts 1 and 2 give it scores;
 *  - first draft: accounts 1 (server) and 2 (client) register AgentDomains, and the server
 *    authorizes the client's feedback (ERC-8004 first draft §Reputation Registry: AcceptFeedback
 *    is sent by the server agent's AgentAddress).
 */
async function seedEarlierRevisions({ home, rpc, base, betaId }) {
    const contracts = JSON.parse(fs.readFileSync(path.join(home, "devnet.json"), "utf8")).contracts;
    const send = async (key, contract, signature, ...args) => {
        const to = contracts[contract]?.address;
        if (!to) throw new Error(`no ${contract} in devnet.json`);
        const r = await runProgram(castBin, ["send", "--rpc-url", rpc, "--private-key", key, to, signature, ...args]);
        if (r.code !== 0) throw new Error(`cast send ${contract} ${signature}: ${r.err.trim()}`);
    };
    const agentUri = await waitFor("the current agent's agentURI", 10_000, async () => (await api(base, `/agents/${betaId}`)).body?.agent_uri);
    await send(kKeys[0], "ScoreIdentityRegistry", "register(string)", agentUri);
    const scoreId = await waitFor("the intermediate agent", 10_000, async () => {
        const items = (await api(base, "/agents?revision=score&limit=100")).body?.items ?? [];
        return items.find((a) => a.agent_uri === agentUri && a.owner === addresses[0])?.agent_id;
    });
    // ERC-8004 intermediate §Giving Feedback: a score from 0 to 100, no authorization.
    const scores = [["80", kKeys[1]], ["90", kKeys[2]]];
    for (const [score, key] of scores) {
        await send(key, "ScoreReputationRegistry", "giveFeedback(uint256,uint8,string,string,string,string,bytes32)", scoreId, score, "quality", "", "", "", `0x${"00".repeat(32)}`);
    }
    const serverDomain = `server-${process.pid}.example.org`;
    const clientDomain = `client-${process.pid}.example.org`;
    // ERC-8004 first draft §Identity Registry: the sender must be the AgentAddress.
    await send(kKeys[1], "DraftIdentityRegistry", "newAgent(string,address)", serverDomain, addresses[1]);
    await send(kKeys[2], "DraftIdentityRegistry", "newAgent(string,address)", clientDomain, addresses[2]);
    const draftId = async (domain) => {
        const r = await runProgram(castBin, ["call", "--rpc-url", rpc, contracts.DraftIdentityRegistry.address, "resolveByDomain(string)((uint256,string,address))", domain]);
        const m = /^\((\d+),/.exec(r.out.trim());
        if (r.code !== 0 || !m) throw new Error(`resolveByDomain ${domain}: ${r.err.trim() || r.out.trim()}`);
        return m[1];
    };
    const serverId = await draftId(serverDomain);
    const clientId = await draftId(clientDomain);
    await send(kKeys[1], "DraftReputationRegistry", "acceptFeedback(uint256,uint256)", clientId, serverId);
    // ERC-8004 first draft §Validation Registry: the server names a validator agent and a
    // DataHash; the validator agent's AgentAddress answers.
    const dataHash = `0x${"d7".repeat(32)}`;
    await send(kKeys[1], "DraftValidationRegistry", "validationRequest(uint256,uint256,bytes32)", clientId, serverId, dataHash);
    await send(kKeys[2], "DraftValidationRegistry", "validationResponse(bytes32,uint8)", dataHash, "70");
    return { scoreId: String(scoreId), scores: scores.map(([s]) => s), serverId, clientId, serverDomain, clientDomain, betaId, agentUri, dataHash };
}

/** The explorer's view of the earlier revisions: the list's selector and labels, the first
 * draft's AgentDomain and authorizations, the intermediate revision's scores, and the history
 * that links one agent's records across revisions. */
async function earlierRevisionChecks(page, base, legacy) {
    const rows = (label) => page.locator("tbody tr", { has: page.locator(`[data-badge="${label}"]`) });

    await check("the agents list switches revision, every row labelled with its revision", async () => {
        await page.goto(`${base}/agents`);
        await page.locator("[data-result-count]").waitFor();
        const all = await page.locator("tbody tr").count();
        expect(all >= 2 && (await rows("ERC-8004 current").count()) === all, "every current row labelled current");
        await page.getByLabel("ERC-8004 revision").selectOption("score");
        await page.waitForURL(/\/agents\?revision=score$/);
        await page.locator("[data-revision='score']").first().waitFor();
        const score = page.locator("tbody tr", { has: page.locator(`a[href="/agents/${legacy.scoreId}?revision=score"]`) });
        expect((await score.count()) === 1, "the intermediate agent's row links its page in its revision");
        expect((await score.locator('[data-badge="ERC-8004 intermediate"]').count()) === 1, "the intermediate label");
        expect((await rows("ERC-8004 intermediate").count()) === (await page.locator("tbody tr").count()), "every row labelled intermediate");
        await page.getByLabel("ERC-8004 revision").selectOption("draft");
        await page.waitForURL(/\/agents\?revision=draft$/);
        await page.locator(`[data-agent-domain="${legacy.serverDomain}"]`).waitFor();
        const server = page.locator("tbody tr", { has: page.locator(`[data-agent-domain="${legacy.serverDomain}"]`) });
        expect((await server.locator('[data-badge="ERC-8004 first draft"]').count()) === 1, "the first-draft label");
        expect((await server.textContent()).includes(`AgentDomain ${legacy.serverDomain}`), `the AgentDomain instead of a name: "${await server.textContent()}"`);
        // The URL reproduces the view.
        await page.reload();
        await page.locator(`[data-agent-domain="${legacy.clientDomain}"]`).waitFor();
        expect((await page.getByLabel("ERC-8004 revision").inputValue()) === "draft", "the selector restored from the URL");
        await page.getByLabel("ERC-8004 revision").selectOption("current");
        await page.waitForURL(/\/agents$/);
        await page.locator("[data-revision='current']").first().waitFor();
    });

    await check("a first-draft agent shows its AgentDomain, AgentAddress, AcceptFeedback authorization and validator agent", async () => {
        await page.goto(`${base}/agents?revision=draft`);
        await page.locator(`[data-agent-domain="${legacy.serverDomain}"]`).click();
        await page.waitForURL(new RegExp(`/agents/${legacy.serverId}\\?revision=draft$`));
        await page.locator(`article[data-agent-id="${legacy.serverId}"][data-revision="draft"]`).waitFor();
        expect((await page.locator("h1").textContent()).includes(legacy.serverDomain), "the AgentDomain as the heading");
        expect(await page.locator('article [data-badge="ERC-8004 first draft"]').first().isVisible(), "the revision label");
        expect((await page.locator("dd [data-agent-domain]").textContent()) === legacy.serverDomain, "AgentDomain");
        const address = await page.locator("[data-agent-address] span").getAttribute("title");
        expect(address === addresses[1], `AgentAddress ${address}`);
        const auths = (await api(base, `/agents/${legacy.serverId}/feedback?revision=draft`)).body.items;
        const shown = await page.locator("[data-feedback-auth-id]").evaluateAll((els) => els.map((e) => e.getAttribute("data-feedback-auth-id")));
        expect(auths.length === 1 && shown.length === 1 && shown[0] === auths[0].feedback_auth_id, `FeedbackAuthIDs ${shown.join(", ")}`);
        const row = await page.locator("section[aria-label='Feedback authorizations'] tbody tr").first().textContent();
        expect(row.includes(`#${legacy.clientId}`) && row.includes(`#${legacy.serverId}`), `authorization row "${row}"`);
        expect((await page.locator("[data-offchain]").textContent()).includes("off-chain"), "the feedback is off-chain");
        // Validations name the validator by its AgentID, the request by its DataHash.
        const validation = page.locator("section[aria-label='Validations'] tbody tr").first();
        expect((await validation.locator("[data-validator-agent-id]").textContent()) === `#${legacy.clientId}`, "the validator's agent id");
        expect((await validation.locator("td:first-child span").getAttribute("title")) === legacy.dataHash, "the DataHash");
        expect((await validation.textContent()).includes("70 / 100"), `validation row "${await validation.textContent()}"`);
    });

    await check("an intermediate agent shows its scores and the registry's average score", async () => {
        await page.goto(`${base}/agents?revision=score`);
        await page.locator(`a[href="/agents/${legacy.scoreId}?revision=score"]`).first().click();
        await page.waitForURL(new RegExp(`/agents/${legacy.scoreId}\\?revision=score$`));
        await page.locator(`article[data-agent-id="${legacy.scoreId}"][data-revision="score"]`).waitFor();
        const average = legacy.scores.reduce((a, b) => a + Number(b), 0) / legacy.scores.length;
        const shown = await page.locator("[data-average-score]").getAttribute("data-average-score");
        expect(Number(shown) === average, `average score ${shown}, want ${average}`);
        expect((await page.locator("[data-average-score]").textContent()).includes(`${average} / 100`), "the average in words");
        const values = await page.locator("[data-value]").allTextContents();
        for (const v of legacy.scores) expect(values.includes(v), `score ${v} in ${values.join(", ")}`);
        expect(await page.getByRole("columnheader", { name: "Score (0–100)" }).isVisible(), "scores from 0 to 100");
    });

    await check("history across revisions links the current and the intermediate record both ways", async () => {
        // On the intermediate record's page (from the previous check): its current twin.
        const entry = page.locator("section[aria-label='History across revisions'] tbody tr", { has: page.locator("[data-history-link='current']") });
        expect((await entry.count()) === 1, "one current record in the history");
        expect((await entry.locator("[data-matched-by]").textContent()) === "same owner and agentURI", "matched in words");
        await entry.locator("a[data-history-link]").click();
        await page.waitForURL(new RegExp(`/agents/${legacy.betaId}$`));
        await page.locator(`article[data-agent-id="${legacy.betaId}"][data-revision="current"]`).waitFor();
        const back = page.locator("section[aria-label='History across revisions'] a[data-history-link='score']");
        expect((await back.getAttribute("href")) === `/agents/${legacy.scoreId}?revision=score`, "the link back to the intermediate record");
        await back.click();
        await page.locator(`article[data-agent-id="${legacy.scoreId}"][data-revision="score"]`).waitFor();
    });

    await check("an agent missing from a revision is a clear message, draft reputation is not asked", async () => {
        const asked = [];
        const onRequest = (r) => asked.push(r.url());
        page.on("request", onRequest);
        await page.goto(`${base}/agents/999999999?revision=draft`);
        const box = page.locator("[data-not-found='draft']");
        await box.waitFor();
        expect((await box.textContent()).includes("ERC-8004 first draft"), `message "${await box.textContent()}"`);
        await page.goto(`${base}/agents/${legacy.serverId}?revision=draft`);
        await page.locator(`article[data-agent-id="${legacy.serverId}"]`).waitFor();
        page.off("request", onRequest);
        expect(!asked.some((u) => u.includes("/reputation")), `asked ${asked.filter((u) => u.includes("/reputation")).join(", ")}`);
    });
}

/** A node that follows only the current revision (its deployment file names no earlier registry)
 * answers 404 for `?revision=draft|score` (docs/api.md §Earlier ERC-8004 revisions); the explorer
 * says so in words, keeps its revision selector, and logs nothing but the browser's own line for
 * the 404 it was answered. A second node on the same devnet, in its own browser context. */
async function unfollowedRevisionCheck(browser, { scratch, rpc, home }) {
    await check("a revision the node does not follow is a clear message on the list and the agent page", async () => {
        const deployment = JSON.parse(fs.readFileSync(path.join(home, "devnet.json"), "utf8"));
        deployment.contracts = Object.fromEntries(Object.entries(deployment.contracts).filter(([, c]) => !c.revision));
        const file = path.join(scratch, "current-only.json");
        fs.writeFileSync(file, JSON.stringify(deployment));
        const dir = path.join(scratch, "current-only");
        const other = await startNode(["node", "--rpc", rpc, "--deployment", file, "--no-verify", "--port", "0", "--data-dir", dir, "--static-dir", dist], { CREDENCE_HOME: dir });
        const context = await browser.newContext();
        const page = await context.newPage();
        page.setDefaultTimeout(8000);
        const problems = [];
        const expected = [`${other.url}/api/v1/agents?limit=25&revision=draft`, `${other.url}/api/v1/agents/1?revision=score`];
        page.on("console", (m) => {
            if (m.type() === "error" && !(m.text().includes("404") && expected.includes(m.location().url))) problems.push(`console error: ${m.text()} (${m.location().url})`);
        });
        page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
        try {
            await page.goto(`${other.url}/agents?revision=draft`);
            const box = page.locator("[data-not-followed='draft']");
            await box.waitFor();
            expect((await box.textContent()).includes("does not follow the ERC-8004 first draft registries"), `message "${await box.textContent()}"`);
            expect((await page.getByLabel("ERC-8004 revision").inputValue()) === "draft", "the selector still there, on draft");
            // The current revision is one choice away.
            await page.getByLabel("ERC-8004 revision").selectOption("current");
            await page.locator("[data-result-count]").waitFor();
            await page.goto(`${other.url}/agents/1?revision=score`);
            const missing = page.locator("[data-not-found='score']");
            await missing.waitFor();
            expect((await missing.textContent()).includes("follows no registries of the score revision"), `message "${await missing.textContent()}"`);
            expect(problems.length === 0, problems.join("; "));
        } finally {
            await context.close().catch(() => {});
        }
    });
}

// The node's arguments (cmd/node.cpp; node/config.hpp for the TOML keys): a free port, its data
// in the scratch directory, the built explorer, and a re-verifier that runs every second so the
// seeded agents and tools are checked within the test's budget (the default is 30 s).
function nodeArgs(dir) {
    const config = path.join(dir, "node.toml");
    fs.writeFileSync(config, "[verify]\ninterval_seconds = 1\n\n[trust]\nincremental_interval_ms = 200\n");
    return ["node", "--config", config, "--port", "0", "--data-dir", path.join(dir, "data"), "--static-dir", dist];
}

/** The embedded devnet's RPC URL: from the node's output, else $CREDENCE_HOME/devnet.json. */
async function rpcUrl(node, base, home) {
    return waitFor("the devnet's RPC URL", 10_000, async () => {
        const m = /embedded devnet at (http:\/\/127\.0\.0\.1:\d+)/.exec(node.output() + node.errors());
        if (m && m[1] !== base) return m[1];
        const f = path.join(home, "devnet.json");
        if (fs.existsSync(f)) return JSON.parse(fs.readFileSync(f, "utf8")).rpcUrl;
        return null;
    });
}

let exitCode = 1;
try {
    await main();
    exitCode = failed === 0 && passed > 0 ? 0 : 1;
} catch (e) {
    console.error(`FAIL: ${e instanceof Error ? e.stack : String(e)}`);
    ++failed;
}
console.log(`${passed} passed, ${failed} failed`);
log("done");
clearTimeout(watchdog);
await cleanup();
process.exit(exitCode);
