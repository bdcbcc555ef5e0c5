// Workflow runs: the list, and a run's evidence chain (ERC-8301) drawn as a graph
// with the verdict of the evidence check (verify/verifiers/evidence.hpp, the same document as
// `credence verify run --json`).
import { arr, followedChains, get, num, obj, pick, type J } from "../api";
import { linkChain, onChain } from "../chains";
import { h, link } from "../dom";
import { count, shortHex, str, utc } from "../format";
import { graph, type GraphEdge, type GraphNode } from "../graph";
import { evidenceReasons, explain } from "../reasons";
import { navigate, type Params } from "../router";
import { badge, facts, hex, runLink, section, table } from "../ui";
import { chainBadge, chainSelect } from "./agents";

function statusBadge(status: string): HTMLElement {
    if (status === "Success") return badge("ok", "Success");
    if (status === "Failed") return badge("bad", "Failed");
    return badge("warn", status || "Pending");
}

export async function runsPage(p: Params, signal: AbortSignal): Promise<Node> {
    const [page, followed] = await Promise.all([
        get("/runs", { chain: p.query.get("chain") ?? "", cursor: p.query.get("cursor") ?? "", limit: 50 }, signal),
        followedChains(),
    ]);
    const rows = arr(page.items).map(obj);
    const next = typeof page.next_cursor === "string" ? page.next_cursor : "";
    // The chain filter (docs/api.md §Chains): choosing a chain shows its runs at once.
    const form = h("form", { class: "filters", role: "search", "aria-label": "Filter runs" }, chainSelect(p.query.get("chain") ?? "", followed));
    form.addEventListener("change", () => {
        const chain = new FormData(form).get("chain");
        navigate(typeof chain === "string" && chain !== "" ? `/runs?chain=${encodeURIComponent(chain)}` : "/runs");
    });
    return h(
        "div",
        null,
        h("h1", null, "Workflow runs"),
        form,
        table(
            "ERC-8301 workflow runs, newest first",
            [
                { head: "Run", cell: (r) => runLink(r.run_id, linkChain(r.chain_id, followed)) },
                { head: "Chain", cell: (r) => chainBadge(r.chain_id) },
                { head: "Workflow", cell: (r) => hex(r.workflow) },
                { head: "Status", cell: (r) => statusBadge(str(r.status)) },
                { head: "Tasks / replies", cell: (r) => `${count(num(r.tasks))} / ${count(num(r.replies))}`, num: true },
                { head: "Started at block", cell: (r) => count(num(r.started_block_num)), num: true },
                { head: "Completed", cell: (r) => utc(r.completed_at) },
                { head: "Evidence", cell: (r) => evidenceBadge(r.verification) },
            ],
            rows,
            "No workflow runs yet.",
        ),
        next ? h("nav", { class: "pager", "aria-label": "Pages" }, link(`/runs?${new URLSearchParams({ ...(p.query.get("chain") ? { chain: p.query.get("chain") ?? "" } : {}), cursor: next })}`, "Next page →")) : null,
    );
}

function evidenceBadge(v: unknown): HTMLElement {
    if (v === "verified") return badge("ok", "valid");
    if (v === "unverified") return badge("bad", "invalid");
    if (v === "unreachable") return badge("warn", "unreachable");
    return badge("none", "not checked");
}

export async function runPage(p: Params, signal: AbortSignal): Promise<Node> {
    // /runs/{id} (the default chain) or /chains/{chainId}/runs/{id}.
    const runId = p.path[p.path.length - 1] ?? "";
    const chain = p.path.length > 1 ? (p.path[0] ?? "") : "";
    const workflow = p.query.get("workflow") ?? "";
    const run = await get(onChain("runs", runId, chain), { workflow }, signal);
    const report = obj(run.evidence);
    if (Object.keys(report).length === 0) {
        return h(
            "article",
            { "data-run-id": runId },
            h("h1", null, "Run ", h("span", { class: "mono" }, shortHex(runId, 8))),
            h("p", { class: "verdict warn", "data-verdict": "none", role: "status" }, "No evidence report: ", str(run.evidence_error) || "the index lacks the run's tasks and replies."),
            facts([
                ["Status", statusBadge(str(run.status))],
                ["Workflow", hex(run.workflow, 20)],
            ]),
        );
    }
    const tasks = arr(pick(report, "tasks")).map(obj);
    const replies = arr(pick(report, "replies")).map(obj);
    const failures = arr(pick(report, "failures")).map(obj);
    const failed = new Set(failures.map((f) => str(pick(f, "hash"))));
    const valid = str(pick(report, "verdict")) === "valid";
    const fullyProven = pick(report, "fullyProven") === true;

    const nodes: GraphNode[] = [];
    const edges: GraphEdge[] = [];
    for (const t of tasks) {
        const hash = str(pick(t, "taskHash"));
        const final = str(pick(t, "type")) === "finalTask";
        nodes.push({
            id: hash,
            kind: "task",
            // The final task's stage is the terminal marker, not a stage: its title says "final".
            title: `${final ? "final task" : "task"}${pick(t, "taskSeq") !== undefined ? ` #${str(pick(t, "taskSeq"))}` : ""}${!final && pick(t, "stage") !== undefined ? ` · stage ${str(pick(t, "stage"))}` : ""}`,
            subtitle: shortHex(hash, 8),
            status: failed.has(hash) ? "failed" : pick(t, "missing") === true ? "pending" : "ok",
        });
        for (const r of arr(pick(t, "prevReplyHashes"))) edges.push({ from: str(r), to: hash });
    }
    for (const r of replies) {
        const hash = str(pick(r, "replyHash"));
        nodes.push({
            id: hash,
            kind: "reply",
            title: `reply${pick(r, "proven") === true ? " · proven" : ""}`,
            subtitle: shortHex(hash, 8),
            status: failed.has(hash) ? "failed" : pick(r, "missing") === true ? "pending" : pick(r, "proven") === true ? "ok" : "unproven",
        });
        for (const t of arr(pick(r, "prevTaskHashes"))) edges.push({ from: str(t), to: hash });
    }

    const verdictText = valid
        ? fullyProven
            ? "Evidence VALID, fully proven"
            : "Evidence VALID, not fully proven"
        : "Evidence INVALID";
    const first = obj(pick(report, "firstFailure"));
    return h(
        "article",
        { "data-run-id": runId },
        h("h1", null, "Run ", h("span", { class: "mono" }, shortHex(runId, 8))),
        h(
            "p",
            { class: `verdict ${valid ? (fullyProven ? "ok" : "warn") : "bad"}`, "data-verdict": valid ? (fullyProven ? "valid" : "valid-unproven") : "invalid", role: "status" },
            verdictText,
            !valid && pick(first, "reason") ? [": ", explain(evidenceReasons, pick(first, "reason")), " ", h("code", null, str(pick(first, "reason")))] : null,
        ),
        facts([
            ["Run id", h("span", { class: "mono" }, runId)],
            ["Workflow", hex(run.workflow ?? report.workflow, 20)],
            ["Status", statusBadge(str(pick(report, "status")))],
            ["Completed at", utc(pick(report, "completedAt"))],
            ["Final task", hex(pick(report, "finalTaskHash"), 32)],
            ["Tasks / replies", `${count(num(pick(report, "taskCount")) ?? tasks.length)} / ${count(num(pick(report, "replyCount")) ?? replies.length)}`],
        ]),
        section(
            "Evidence chain",
            h(
                "p",
                { class: "legend" },
                h("span", null, "Squares are tasks, rounded boxes are replies; arrows run from cause to effect."),
                badge("ok", "checked"),
                badge("warn", "reply not proven"),
                badge("bad", "failed a check"),
            ),
            nodes.length ? graph(nodes, edges, `Evidence chain of run ${runId}: ${verdictText}`) : h("p", { class: "muted" }, "No task of this run is indexed yet."),
        ),
        section(
            "Failures",
            table(
                "Every check that failed",
                [
                    { head: "Reason", cell: (f) => h("code", null, str(pick(f, "reason"))) },
                    { head: "In words", cell: (f) => explain(evidenceReasons, pick(f, "reason")) },
                    { head: "Node", cell: (f) => [str(pick(f, "kind")), " ", hex(pick(f, "hash"))] },
                    { head: "Detail", cell: (f) => str(pick(f, "detail")) },
                ],
                failures,
                "None: every check passed.",
            ),
        ),
        section("Tasks", nodeTable(tasks, "task")),
        section("Replies", nodeTable(replies, "reply")),
    );
}

function nodeTable(rows: J[], kind: "task" | "reply"): HTMLElement {
    return table(
        kind === "task" ? "Tasks, in traversal order from the final task" : "Replies, in traversal order",
        kind === "task"
            ? [
                  { head: "Task", cell: (t) => hex(pick(t, "taskHash")) },
                  { head: "Seq", cell: (t) => str(pick(t, "taskSeq")), num: true },
                  { head: "Stage", cell: (t) => str(pick(t, "stage")), num: true },
                  { head: "Time", cell: (t) => utc(pick(t, "timestamp")) },
                  { head: "Input hash", cell: (t) => hex(pick(t, "inputHash")) },
                  { head: "Proven", cell: (t) => (pick(t, "proven") === true ? "yes" : "no") },
              ]
            : [
                  { head: "Reply", cell: (r) => hex(pick(r, "replyHash")) },
                  { head: "Replier", cell: (r) => hex(pick(r, "replier")) },
                  { head: "Time", cell: (r) => utc(pick(r, "timestamp")) },
                  { head: "Output hash", cell: (r) => hex(pick(r, "outputHash")) },
                  { head: "Proof", cell: (r) => (pick(r, "proof") ? ["verifier ", hex(pick(obj(pick(r, "proof")), "verifier"))] : badge("warn", "none")) },
              ],
        rows,
    );
}
