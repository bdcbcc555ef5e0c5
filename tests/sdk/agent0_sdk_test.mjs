#!/usr/bin/env node
// The agent0 SDK (npm agent0-sdk, pinned in tests/sdk/package.json) against `credence node`'s
// /subgraphs/agent0 (docs/graphql.md), run by CTest (tests/CMakeLists.txt):
//   1. starts `credence devnet`, seeds it with `credence demo` (agents on HTTPS registration
//      files, feedback, responses, revocations, validations) and starts `credence node` on it with
//      the demo's fetch flags;
//   2. waits until the node has indexed and verified everything;
//   3. an SDK whose only source is the node's subgraph URL (its RPC URL points nowhere, so no
//      answer can come from the chain) calls every read that goes through the subgraph: getAgent,
//      searchAgents with each filter, searchFeedback, getReputationSummary; and graphql-request
//      (the SDK's own GraphQL client) reads Validation and AgentMetadata;
//   4. each answer is compared, field by field, with what a second SDK (and viem, which it ships)
//      reads from the chain, and with the registration files read from their URIs.
// Every mismatch is a failure. Run by node's test runner (`node --test`): one test, which prints
// one line per check and "N passed, N failed". Every process it starts is killed on exit; the run
// is bounded.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import https from "node:https";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";

import {
    SDK,
    IDENTITY_REGISTRY_ABI,
    REPUTATION_REGISTRY_ABI,
} from "agent0-sdk";
import { GraphQLClient } from "graphql-request";
import { createPublicClient, http } from "viem";

const kTotalMs = 240_000;
const here = path.dirname(fileURLToPath(import.meta.url));
const source = process.env.CREDENCE_SOURCE_DIR || path.resolve(here, "../..");
const bin = process.env.CREDENCE_BIN || path.join(source, "build/release/src/credence/credence");
const started = Date.now();
const log = (...a) => console.log(`[${((Date.now() - started) / 1000).toFixed(1)}s]`, ...a);

// ─── processes, killed on every way out ───
const children = new Set();
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "credence-sdk-"));
function killAll() {
    for (const child of children) {
        try {
            process.kill(-child.pid, "SIGTERM");
        } catch {}
    }
}
process.on("exit", () => {
    killAll();
    fs.rmSync(scratch, { recursive: true, force: true });
});
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => process.exit(1));
// The children's stdout pipes keep the event loop alive, so "exit" would never come: stop them
// as soon as the test ends.
after(() => {
    killAll();
    for (const child of children) {
        child.stdout.destroy();
        child.stderr.destroy();
        child.unref();
    }
});

// Starts `credence args...` in its own process group; resolves with the first stdout line that
// `match` accepts.
function start(args, match, what) {
    const env = { ...process.env, CREDENCE_HOME: scratch };
    const child = spawn(bin, args, { detached: true, env, stdio: ["ignore", "pipe", "pipe"] });
    children.add(child);
    const errors = [];
    child.stderr.on("data", (d) => errors.push(String(d)));
    return new Promise((resolve, reject) => {
        const lines = readline.createInterface({ input: child.stdout });
        lines.on("line", (line) => {
            const found = match(line);
            if (found !== undefined) resolve(found);
        });
        child.on("exit", (code) => reject(new Error(`${what} exited (${code}): ${errors.join("")}`)));
    });
}
const jsonLine = (line) => {
    try {
        const j = JSON.parse(line);
        return typeof j === "object" && j !== null ? j : undefined;
    } catch {
        return undefined;
    }
};

// ─── checks ───
let passed = 0;
let failed = 0;
function check(name, ok, detail = "") {
    if (ok) {
        passed++;
        console.log(`ok   ${name}`);
    } else {
        failed++;
        console.log(`FAIL ${name}${detail ? `: ${detail}` : ""}`);
    }
}
const same = (name, got, want) =>
    check(name, JSON.stringify(got) === JSON.stringify(want),
          `got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
const lower = (a) => (typeof a === "string" ? a.toLowerCase() : a);
const sorted = (xs) => [...xs].sort();

async function main() {
    // 1. devnet, demo, node.
    const devnet = await start(["devnet", "--port", "0", "--json"], jsonLine, "credence devnet");
    const rpc = devnet.rpcUrl;
    const chainId = devnet.chainId;
    const contracts = devnet.contracts;
    log(`devnet ${rpc}`);
    const demoState = path.join(scratch, "demo");
    const demo = await start(["demo", "--json", "--rpc", rpc, "--state-dir", demoState], jsonLine,
                             "credence demo");
    const fetchFlags = demo.https.fetchFlags;
    log(`demo seeded: ${demo.agents?.length ?? "?"} agents`);
    const nodeUrl = await start(
        ["node", "--rpc", rpc, "--port", "0", "--data-dir", path.join(scratch, "node"),
         "--finality-depth", "0", ...fetchFlags],
        (line) => line.match(/serving (http:\/\/\S+)/)?.[1], "credence node");
    const subgraphUrl = `${nodeUrl}/subgraphs/agent0`;
    log(`node ${nodeUrl}`);

    const chain = createPublicClient({ transport: http(rpc) });
    const read = (address, abi, functionName, args) =>
        chain.readContract({ address, abi, functionName, args });
    // The registry's full ABI (the SDK's lacks getResponseCount).
    const reputationAbi = JSON.parse(
        fs.readFileSync(path.join(source, "contracts/abi/ReputationRegistry.json"), "utf8"));
    const validationAbi = JSON.parse(
        fs.readFileSync(path.join(source, "contracts/abi/ValidationRegistry.json"), "utf8"));
    const identity = contracts.IdentityRegistry;
    const reputation = contracts.ReputationRegistry;
    const validation = contracts.ValidationRegistry;

    // 2. Wait: indexed to the head, two verifier passes since, and the subgraph's snapshot
    // showing as many registration files twice in a row.
    const gql = new GraphQLClient(subgraphUrl);
    let stable = 0;
    let lastCount = -1;
    let waits = 0;
    for (;;) {
        const status = (await (await fetch(`${nodeUrl}/api/v1/status`)).json()).node ?? {};
        const head = await chain.getBlockNumber();
        const verifier = status.components?.verifier ?? {};
        if (status.indexed_block_num >= Number(head) && verifier.passes >= 2) {
            const d = await gql.request("{ _meta { block { number } } agentRegistrationFiles(first: 1000) { id } }");
            const count = d.agentRegistrationFiles.length;
            stable = count === lastCount && d._meta.block.number >= Number(head) ? stable + 1 : 0;
            lastCount = count;
            if (stable >= 3) break;
        }
        if (++waits % 10 === 0)
            log(`waiting: indexed ${status.indexed_block_num}/${head}, verifier ${JSON.stringify(verifier)}, files ${lastCount}`);
        await new Promise((r) => setTimeout(r, 1000));
    }
    log(`indexed and verified: ${lastCount} registration files`);

    // 3. The two SDKs.
    const registryOverrides = {
        [chainId]: { IDENTITY: identity, REPUTATION: reputation, VALIDATION: validation },
    };
    const viaGraph = new SDK({
        chainId,
        rpcUrl: "http://127.0.0.1:9", // nothing listens: every answer must come from the subgraph
        subgraphOverrides: { [chainId]: subgraphUrl },
        registryOverrides,
    });
    const viaChain = new SDK({ chainId, rpcUrl: rpc, registryOverrides });
    // agent0-sdk 1.7.1's getFeedback reads the registry address its public getter primes.
    viaChain.reputationRegistryAddress();

    // The chain's agents: ids 0.. until ownerOf reverts.
    const agents = [];
    for (let id = 0; ; id++) {
        try {
            const owner = await read(identity, IDENTITY_REGISTRY_ABI, "ownerOf", [BigInt(id)]);
            const uri = await read(identity, IDENTITY_REGISTRY_ABI, "tokenURI", [BigInt(id)]);
            const wallet = await read(identity, IDENTITY_REGISTRY_ABI, "getAgentWallet", [BigInt(id)]);
            agents.push({ id: `${chainId}:${id}`, token: id, owner, uri, wallet });
        } catch {
            break;
        }
    }
    check("the demo registered agents", agents.length >= 5, `${agents.length}`);

    // Each agent's registration file, read from its URI (the demo's HTTPS origin, its own CA).
    const ca = fs.readFileSync(path.join(demoState, "demo-ca.pem"));
    const connectTo = new Map();
    for (let i = 0; i + 1 < fetchFlags.length; i++) {
        if (fetchFlags[i] !== "--connect-to") continue;
        const [host, , ip, port] = fetchFlags[i + 1].split(":");
        connectTo.set(host, { ip, port: Number(port) });
    }
    const fetchFile = (uri) =>
        new Promise((resolve) => {
            const url = new URL(uri);
            const target = connectTo.get(url.hostname);
            if (url.protocol !== "https:" || !target) return resolve(null);
            const req = https.get({
                host: target.ip, port: target.port, path: url.pathname + url.search,
                servername: url.hostname, headers: { host: url.hostname }, ca, timeout: 5000,
            }, (res) => {
                let body = "";
                res.on("data", (d) => (body += d));
                res.on("end", () => {
                    try {
                        resolve(res.statusCode === 200 ? JSON.parse(body) : null);
                    } catch {
                        resolve(null);
                    }
                });
            });
            req.on("error", () => resolve(null));
        });

    // getAgent: every on-chain field, and the file's fields.
    const withFile = [];
    for (const a of agents) {
        const got = await viaGraph.getAgent(a.id);
        check(`getAgent ${a.id} found`, got !== null);
        if (!got) continue;
        same(`getAgent ${a.id} owners`, got.owners, [lower(a.owner)]);
        same(`getAgent ${a.id} agentURI`, got.agentURI, a.uri);
        const chainWallet = /^0x0{40}$/.test(a.wallet) ? undefined : lower(a.wallet);
        same(`getAgent ${a.id} walletAddress`, lower(got.walletAddress), chainWallet);
        same(`getAgent ${a.id} chainId`, got.chainId, chainId);
        same(`getAgent ${a.id} owner via SDK chain read`, lower(await viaChain.getAgentOwner(a.id)),
             got.owners[0]);
        const file = await fetchFile(a.uri);
        const services = file?.services ?? file?.endpoints ?? [];
        const service = (n) => services.find((s) => String(s.name).toLowerCase() === n);
        if (file && typeof file.name === "string" && got.name !== a.id) {
            withFile.push({ ...a, file, summary: got });
            same(`getAgent ${a.id} name`, got.name, file.name);
            same(`getAgent ${a.id} description`, got.description, file.description ?? "");
            same(`getAgent ${a.id} image`, got.image, file.image);
            same(`getAgent ${a.id} active`, got.active, file.active ?? false);
            same(`getAgent ${a.id} x402support`, got.x402support, file.x402Support ?? false);
            same(`getAgent ${a.id} supportedTrusts`, got.supportedTrusts, file.supportedTrust ?? []);
            same(`getAgent ${a.id} mcp`, got.mcp, service("mcp")?.endpoint);
            same(`getAgent ${a.id} a2a`, got.a2a, service("a2a")?.endpoint);
            same(`getAgent ${a.id} web`, got.web, service("web")?.endpoint);
            same(`getAgent ${a.id} ens`, got.ens, service("ens")?.endpoint);
            same(`getAgent ${a.id} oasfSkills`, got.oasfSkills, service("oasf")?.skills ?? []);
        }
    }
    check("some agents have verified registration files", withFile.length >= 3, `${withFile.length}`);

    // searchAgents: the default search is every agent with a registration file; each filter
    // returns exactly the agents the chain's data and the files say.
    const search = async (filters) =>
        sorted((await viaGraph.searchAgents({ chains: [chainId], ...filters })).map((x) => x.agentId));
    const expect = (pred) => sorted(withFile.filter(pred).map((x) => x.id));
    same("searchAgents (default)", await search({}), expect(() => true));
    const first = withFile[0];
    same("searchAgents name", await search({ name: first.file.name.slice(0, 4) }),
         expect((x) => x.file.name.toLowerCase().includes(first.file.name.slice(0, 4).toLowerCase())));
    const svc = (x, n) =>
        (x.file.services ?? x.file.endpoints ?? []).find((s) => String(s.name).toLowerCase() === n);
    same("searchAgents hasMCP", await search({ hasMCP: true }), expect((x) => !!svc(x, "mcp")?.endpoint));
    same("searchAgents hasA2A=false", await search({ hasA2A: false }),
         expect((x) => !svc(x, "a2a")?.endpoint));
    same("searchAgents active", await search({ active: true }), expect((x) => x.file.active === true));
    same("searchAgents owners", await search({ owners: [first.owner] }),
         expect((x) => lower(x.owner) === lower(first.owner)));
    const trust = first.file.supportedTrust?.[0] ?? "reputation";
    same("searchAgents supportedTrust", await search({ supportedTrust: [trust] }),
         expect((x) => (x.file.supportedTrust ?? []).includes(trust)));

    // Feedback: every record the chain holds, through searchFeedback, field by field.
    const feedbackCounts = new Map();
    const feedbackOf = new Map();  // agent id -> its feedback as the chain holds it
    for (const a of agents) {
        const clients = await read(reputation, REPUTATION_REGISTRY_ABI, "getClients", [BigInt(a.token)]);
        const chainFeedback = [];
        for (const client of clients) {
            const last = await read(reputation, REPUTATION_REGISTRY_ABI, "getLastIndex", [BigInt(a.token), client]);
            for (let i = 1; i <= Number(last); i++) {
                const f = await viaChain.getFeedback(a.id, client, i);
                const responses = await read(reputation, reputationAbi, "getResponseCount",
                                             [BigInt(a.token), client, BigInt(i), []]);
                chainFeedback.push({ f, client: lower(client), index: i, responses: Number(responses) });
            }
        }
        feedbackCounts.set(a.id, chainFeedback.filter((x) => !x.f.isRevoked).length);
        feedbackOf.set(a.id, chainFeedback);
        if (chainFeedback.length === 0) continue;
        const graph = await viaGraph.searchFeedback({ agents: [a.id], includeRevoked: true });
        same(`searchFeedback ${a.id} count`, graph.length, chainFeedback.length);
        for (const c of chainFeedback) {
            const g = graph.find((x) => lower(x.reviewer) === c.client && x.id[2] === c.index);
            const tag = `${a.id} ${c.client.slice(0, 8)}#${c.index}`;
            check(`searchFeedback ${tag} present`, !!g);
            if (!g) continue;
            same(`searchFeedback ${tag} value`, g.value, c.f.value);
            same(`searchFeedback ${tag} tags`, g.tags, c.f.tags);
            same(`searchFeedback ${tag} isRevoked`, g.isRevoked, c.f.isRevoked);
            same(`searchFeedback ${tag} endpoint`, g.endpoint, c.f.endpoint);
            same(`searchFeedback ${tag} fileURI`, g.fileURI, c.f.fileURI);
            same(`searchFeedback ${tag} responses`, g.answers.length, c.responses);
        }
        const active = await viaGraph.searchFeedback({ agents: [a.id] });
        same(`searchFeedback ${a.id} without revoked`, active.length, feedbackCounts.get(a.id));
        // getReputationSummary: the SDK's subgraph path gives the count and the mean of the values
        // rounded to 2 decimals; its chain path gives getSummary's, which ERC-8004 truncates to
        // the values' decimals. Both are checked against the chain's own feedback values.
        const g = await viaGraph.getReputationSummary(a.id);
        const c = await viaChain.getReputationSummary(a.id);
        const kept = chainFeedback.filter((x) => !x.f.isRevoked).map((x) => x.f.value);
        const mean = kept.length ? kept.reduce((s, x) => s + x, 0) / kept.length : 0;
        same(`getReputationSummary ${a.id} count`, g.count, c.count);
        same(`getReputationSummary ${a.id} average`, g.averageValue, Math.round(mean * 100) / 100);
        same(`getReputationSummary ${a.id} chain average`, c.averageValue, Math.trunc(mean));
    }
    const withFeedback = withFile.filter((x) => (feedbackCounts.get(x.id) ?? 0) > 0).map((x) => x.id);
    same("searchAgents feedback.hasFeedback",
         await search({ feedback: { hasFeedback: true } }), sorted(withFeedback));
    // The rest of searchAgents' filters, each against the files and the chain.
    const kept = (x) => (feedbackOf.get(x.id) ?? []).filter((f) => !f.f.isRevoked);
    const word = (first.file.description ?? "agent").split(" ").find((w) => w.length > 3) ?? "agent";
    same("searchAgents description", await search({ description: word }),
         expect((x) => (x.file.description ?? "").toLowerCase().includes(word.toLowerCase())));
    same("searchAgents x402support", await search({ x402support: true }),
         expect((x) => x.file.x402Support === true));
    same("searchAgents hasWeb", await search({ hasWeb: true }), expect((x) => !!svc(x, "web")?.endpoint));
    same("searchAgents hasOASF", await search({ hasOASF: true }),
         expect((x) => (svc(x, "oasf")?.skills ?? []).length + (svc(x, "oasf")?.domains ?? []).length > 0));
    same("searchAgents mcpContains", await search({ mcpContains: "mcp" }),
         expect((x) => (svc(x, "mcp")?.endpoint ?? "").toLowerCase().includes("mcp")));
    same("searchAgents a2aContains", await search({ a2aContains: "agent" }),
         expect((x) => (svc(x, "a2a")?.endpoint ?? "").toLowerCase().includes("agent")));
    same("searchAgents hasEndpoints", await search({ hasEndpoints: true }),
         expect((x) => ["web", "mcp", "a2a"].some((n) => !!svc(x, n)?.endpoint)));
    same("searchAgents walletAddress", await search({ walletAddress: first.wallet }),
         expect((x) => lower(x.wallet) === lower(first.wallet)));
    same("searchAgents agentIds", await search({ agentIds: [withFile[1].id, `${chainId}:999999`] }),
         [withFile[1].id]);
    same("searchAgents hasMetadataKey", await search({ hasMetadataKey: "agentWallet" }),
         expect((x) => !/^0x0{40}$/.test(x.wallet)));
    same("searchAgents feedback.minCount", await search({ feedback: { minCount: 3 } }),
         expect((x) => kept(x).length >= 3));
    const avg = (x) => kept(x).reduce((s, f) => s + f.f.value, 0) / Math.max(kept(x).length, 1);
    same("searchAgents feedback.minValue", await search({ feedback: { minValue: 75 } }),
         expect((x) => kept(x).length > 0 && avg(x) >= 75));
    same("searchAgents feedback.hasResponse", await search({ feedback: { hasResponse: true } }),
         expect((x) => kept(x).some((f) => f.responses > 0)));
    const reviewer = [...feedbackOf.values()].flat()[0]?.client;
    same("searchAgents feedback.fromReviewers",
         await search({ feedback: { fromReviewers: [reviewer] } }),
         expect((x) => kept(x).some((f) => f.client === reviewer)));
    const someTag = [...feedbackOf.values()].flat().find((f) => f.f.tags.length > 0)?.f.tags[0];
    same("searchAgents feedback.tag", await search({ feedback: { tag: someTag } }),
         expect((x) => kept(x).some((f) => f.f.tags.includes(someTag))));
    // createdAt is the block time of the agent's Registered event; a sort by it keeps that order.
    const registered = await chain.getContractEvents({
        address: identity, abi: IDENTITY_REGISTRY_ABI, eventName: "Registered", fromBlock: 0n,
    });
    const createdAt = new Map();
    for (const log of registered) {
        const block = await chain.getBlock({ blockNumber: log.blockNumber });
        createdAt.set(`${chainId}:${log.args.agentId}`, Number(block.timestamp));
    }
    for (const x of withFile) same(`getAgent ${x.id} createdAt`, x.summary.createdAt, createdAt.get(x.id));
    const byCreated = await viaGraph.searchAgents({ chains: [chainId] }, { sort: ["createdAt:asc"] });
    same("searchAgents sorted by createdAt", byCreated.map((x) => x.createdAt),
         withFile.map((x) => createdAt.get(x.id)).sort((a, b) => a - b));
    same("getAgent feedbackCount", await Promise.all(withFile.map(async (x) =>
             (await viaGraph.getAgent(x.id)).feedbackCount ?? 0)),
         withFile.map((x) => feedbackCounts.get(x.id) ?? 0));

    // Validations and metadata through the SDK's GraphQL client, against the chain.
    const v = await gql.request(
        "{ validations(first: 1000) { id agent { agentId } validatorAddress requestHash response tag status } }");
    check("validations were indexed", v.validations.length > 0, `${v.validations.length}`);
    for (const x of v.validations) {
        const [validator, agentId, response, , tag] = await read(
            validation, validationAbi, "getValidationStatus", [x.requestHash]);
        const name = `validation ${x.id.slice(0, 10)}`;
        same(`${name} validator`, x.validatorAddress, lower(validator));
        same(`${name} agent`, x.agent.agentId, String(agentId));
        same(`${name} response`, x.response, Number(response));
        same(`${name} tag`, x.tag, tag);
    }
    const m = await gql.request(
        "query($w: AgentMetadata_filter) { agentMetadatas(where: $w, first: 1000) { key value agent { agentId } } }",
        { w: { key: "agentWallet" } });
    for (const x of m.agentMetadatas) {
        const value = await read(identity, IDENTITY_REGISTRY_ABI, "getMetadata",
                                 [BigInt(x.agent.agentId), x.key]);
        same(`metadata ${x.agent.agentId} ${x.key}`, x.value, lower(value));
    }

    // Hostile queries: GraphQL errors, never a 5xx.
    const hostile = [
        "{" + "agents { registrationFile ".repeat(2000) + "}".repeat(2001),
        "{" + "a { ".repeat(100_000) + "}".repeat(100_001),  // 100k-deep: over the body limit
        "{" + Array.from({ length: 1_000_000 }, (_, i) => `a${i}: agents { id }`).join(" ") + "}",
        "{ agents(first: 1000) { feedback(first: 1000) { responses(first: 1000) { id } } } }",
        "{ agents(first: 100000) { id } }",
        "{ nope }",
        "query($f: Int!) { agents(first: $f) { id } }",
        "query { ...A } fragment A on Query { ...A }",
    ];
    for (const q of hostile) {
        const body = JSON.stringify({ query: q, variables: { f: "x" } });
        let res;
        try {
            res = await fetch(subgraphUrl, {
                method: "POST", headers: { "content-type": "application/json" }, body,
            });
        } catch (e) {
            // An oversized body is refused with a 413 while the client may still be sending
            // (docs/node.md §HTTP server limits): the close can reach the client first. The
            // server must still answer the next request.
            const after = await gql.request("{ _meta { block { number } } }");
            check(`hostile query refused (${q.slice(0, 24)}…): connection closed, server fine`,
                  body.length > 64 * 1024 && after._meta.block.number > 0, String(e));
            continue;
        }
        const text = await res.text();
        let answer = {};
        try {
            answer = JSON.parse(text);
        } catch {}
        // A GraphQL error, or the server's own refusal of an oversized body (413, JSON).
        const refused =
            Array.isArray(answer.errors) || (res.status === 413 && answer.code !== undefined);
        check(`hostile query refused (${q.slice(0, 24)}…)`, res.status < 500 && refused,
              `${res.status} ${text.slice(0, 120)}`);
    }
}

test("the agent0 SDK reads through /subgraphs/agent0 what the chain holds", { timeout: kTotalMs },
     async () => {
         await main();
         console.log(`${passed} passed, ${failed} failed`);
         assert.equal(failed, 0);
     });
