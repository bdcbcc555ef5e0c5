// Agent page (issue 7 §5): the registration file and its services, badges for verified domain /
// agent card / wallet, the reputation chart over time, the trust score with its interval and
// explanation, the feedback table with responses, and validations.
import { arr, get, items, num, obj, pick, tryGet, type J } from "../api";
import { chart, type Point } from "../chart";
import { extLink, h } from "../dom";
import { count, decimalValue, percent, str, utc } from "../format";
import { agentReasons, discountReasons, explain } from "../reasons";
import type { Params } from "../router";
import { badge, facts, hex, jsonBlock, section, table } from "../ui";
import { scoreOf, verificationBadge } from "./agents";

export async function agentPage(p: Params, signal: AbortSignal): Promise<Node> {
    const id = p.path[0] ?? "";
    const base = `/agents/${encodeURIComponent(id)}`;
    const [agent, reputation, feedback, validations, history] = await Promise.all([
        get(base, {}, signal),
        tryGet(`${base}/reputation`, {}, signal),
        tryGet(`${base}/feedback`, { limit: 200 }, signal),
        tryGet(`${base}/validations`, {}, signal),
        tryGet(`${base}/reputation/history`, {}, signal),
    ]);
    const reg = obj(pick(agent, "registration", "registrationFile", "file"));
    const name = str(pick(agent, "name") ?? pick(reg, "name")) || `Agent ${id}`;
    const feedbackRows = arr(feedback ? items(feedback, "feedback") : []).map(obj);
    return h(
        "article",
        { "data-agent-id": id },
        h("h1", null, name, " ", h("span", { class: "muted" }, `#${id}`)),
        badges(agent),
        h("p", null, str(pick(agent, "description") ?? pick(reg, "description"))),
        facts([
            ["Owner", hex(pick(agent, "owner"), 20)],
            ["Agent wallet", hex(pick(agent, "agentWallet", "wallet"), 20)],
            ["agentURI", extLink(pick(agent, "agentURI", "agentUri", "uri"))],
            ["Registered at block", count(num(pick(agent, "registeredBlockNum", "registeredBlock")))],
            ["Active", pick(agent, "active") === undefined ? "" : pick(agent, "active") ? "yes" : "no"],
            ["Registry", hex(pick(agent, "agentRegistry", "registry"), 20)],
        ]),
        scoreSection(reputation ?? obj(pick(agent, "trust", "reputation"))),
        chartSection(history, feedbackRows),
        servicesSection(agent, reg),
        feedbackSection(feedbackRows),
        validationsSection(validations),
        section("Registration file", jsonBlock(Object.keys(reg).length ? reg : agent, "The registration file as indexed (JSON)")),
    );
}

function badges(agent: J): HTMLElement {
    const b = obj(pick(agent, "badges", "verification"));
    const flag = (...names: string[]) => pick(b, ...names) ?? pick(agent, ...names);
    const domains = arr(flag("verifiedDomains"));
    const domainOk = flag("domainVerified", "verifiedDomain", "domain") === true || domains.length > 0;
    const cardOk = flag("agentCard", "agentCardVerified", "cardVerified") === true;
    const walletOk = flag("wallet", "walletVerified", "walletSet") === true || typeof pick(agent, "agentWallet") === "string";
    return h(
        "p",
        { class: "badges", "aria-label": "Verification badges" },
        verificationBadge(agent),
        badge(domainOk ? "ok" : "none", domainOk ? `verified domain${domains.length ? `: ${domains.map(str).join(", ")}` : ""}` : "no verified domain"),
        badge(cardOk ? "ok" : "none", cardOk ? "agent card" : "no agent card"),
        badge(walletOk ? "ok" : "none", walletOk ? "wallet" : "no wallet"),
    );
}

function scoreSection(rep: J): HTMLElement {
    const trust = obj(pick(rep, "trust", "score")) ;
    const t = Object.keys(trust).length ? trust : rep;
    const score = num(pick(t, "score", "value", "mean")) ?? scoreOf(rep);
    const interval = obj(pick(t, "interval", "ci"));
    const low = num(pick(interval, "low", "lower") ?? pick(t, "low", "lower"));
    const high = num(pick(interval, "high", "upper") ?? pick(t, "high", "upper"));
    const explanation = obj(pick(rep, "explanation") ?? pick(t, "explanation"));
    const contributors = arr(pick(explanation, "contributors", "reviewers") ?? pick(rep, "contributors", "reviewers")).map(obj);
    const tags = arr(pick(t, "tags", "perTag") ?? pick(rep, "tags", "perTag")).map(obj);
    return section(
        "Trust score",
        score === undefined
            ? h("p", { class: "muted" }, "No score yet: nobody has given feedback.")
            : h(
                  "div",
                  null,
                  h("p", null, h("span", { class: "score", "data-score": score }, percent(score)), low !== undefined && high !== undefined ? h("span", { class: "muted" }, ` 95 % interval ${percent(low)} – ${percent(high)}`) : null),
                  facts([
                      ["Feedback counted", count(num(pick(t, "feedbackCount", "count", "reviews")))],
                      ["Effective weight", str(pick(t, "effectiveWeight", "weight"))],
                  ]),
              ),
        tags.length
            ? table(
                  "Per-tag scores",
                  [
                      { head: "Tag", cell: (r) => str(pick(r, "tag")) },
                      { head: "Kind", cell: (r) => str(pick(r, "kind")) },
                      { head: "Score / mean", cell: (r) => (str(pick(r, "kind")) === "mean" ? str(pick(r, "mean", "value")) : percent(pick(r, "score", "value"))), num: true },
                      { head: "Count", cell: (r) => count(num(pick(r, "count"))), num: true },
                  ],
                  tags,
              )
            : null,
        contributors.length
            ? table(
                  "Explanation: who contributed what, and why some were discounted",
                  [
                      { head: "Reviewer", cell: (r) => hex(pick(r, "client", "reviewer", "address")) },
                      { head: "Share", cell: (r) => percent(pick(r, "share")), num: true },
                      { head: "Weight", cell: (r) => str(num(pick(r, "weight"))?.toFixed(3)), num: true },
                      { head: "Feedback", cell: (r) => str(pick(r, "feedbackCount", "count", "reviews")), num: true },
                      { head: "Discounts", cell: (r) => arr(pick(r, "discounts", "reasons")).map((d) => h("div", null, badge("warn", str(d)), " ", explain(discountReasons, d))) },
                  ],
                  contributors,
              )
            : null,
    );
}

/** Reputation over time: the API's score history when it has one, else the running mean of the
 * feedback values in block order (each point one more feedback). */
function chartSection(history: J | null, rows: J[]): HTMLElement {
    const hist = arr(history ? items(history, "history") : []).map(obj);
    if (hist.length > 0) {
        const points: Point[] = hist
            .map((r) => ({ x: num(pick(r, "timestamp", "time", "blockNum", "block")) ?? NaN, y: num(pick(r, "score", "value", "mean")) ?? NaN }))
            .filter((pt) => Number.isFinite(pt.x) && Number.isFinite(pt.y));
        const band = hist
            .map((r): [number, number, number] => [num(pick(r, "timestamp", "time", "blockNum", "block")) ?? NaN, num(pick(r, "low", "lower")) ?? NaN, num(pick(r, "high", "upper")) ?? NaN])
            .filter((b) => b.every(Number.isFinite));
        const byTime = hist.some((r) => pick(r, "timestamp", "time") !== undefined);
        return section(
            "Reputation over time",
            chart(points, {
                title: "Trust score over time",
                xLabel: (x) => (byTime ? utc(x).slice(0, 16) : `block ${Math.round(x)}`),
                yLabel: (y) => percent(y),
                yMin: 0,
                yMax: 1,
                band,
            }),
        );
    }
    const live = rows
        .filter((r) => pick(r, "revoked") !== true)
        .map((r) => ({ block: num(pick(r, "blockNum", "block")) ?? 0, t: num(pick(r, "timestamp")), v: num(pick(r, "normalized")) ?? Number(decimalValue(pick(r, "value"), pick(r, "valueDecimals", "decimals"))) }))
        .filter((r) => Number.isFinite(r.v))
        .sort((a, b) => a.block - b.block);
    let sum = 0;
    const points: Point[] = live.map((r, i) => {
        sum += r.v;
        return { x: r.block, y: sum / (i + 1), label: `feedback ${r.v}` };
    });
    return section(
        "Reputation over time",
        points.length === 0
            ? h("p", { class: "muted" }, "No feedback yet, so nothing to chart.")
            : chart(points, { title: "Average feedback value over time", xLabel: (x) => `block ${Math.round(x)}`, yLabel: (y) => (Math.round(y * 100) / 100).toString() }),
    );
}

function servicesSection(agent: J, reg: J): HTMLElement {
    const services = arr(pick(agent, "services") ?? pick(reg, "services", "endpoints")).map(obj);
    const domains = arr(pick(obj(pick(agent, "verification")), "domains") ?? pick(agent, "domains")).map(obj);
    const trust = arr(pick(agent, "supportedTrust") ?? pick(reg, "supportedTrust")).map(str);
    return section(
        "Services",
        table(
            "Services declared in the registration file",
            [
                { head: "Type", cell: (s) => badge("none", str(pick(s, "name", "type"))) },
                { head: "Endpoint", cell: (s) => extLink(pick(s, "endpoint")) },
                { head: "Version", cell: (s) => str(pick(s, "version")) },
                { head: "Skills", cell: (s) => arr(pick(s, "skills", "a2aSkills", "mcpTools")).map(str).join(", ") },
            ],
            services,
            "The registration file declares no service.",
        ),
        trust.length ? h("p", null, "Supported trust models: ", trust.map((t) => badge("none", t))) : null,
        domains.length
            ? table(
                  "Endpoint domains",
                  [
                      { head: "Domain", cell: (d) => str(pick(d, "domain")) },
                      { head: "Verified", cell: (d) => (pick(d, "verified") === true ? badge("ok", "verified") : badge("bad", "unverified")) },
                      { head: "Why", cell: (d) => explain(agentReasons, pick(d, "reason")) },
                  ],
                  domains,
              )
            : null,
    );
}

function feedbackSection(rows: J[]): HTMLElement {
    return section(
        "Feedback",
        table(
            "Feedback given to this agent, with responses",
            [
                { head: "Client", cell: (f) => hex(pick(f, "client", "clientAddress")) },
                { head: "#", cell: (f) => str(pick(f, "feedbackIndex", "index")), num: true },
                { head: "Value", cell: (f) => h("span", { "data-value": true }, decimalValue(pick(f, "value"), pick(f, "valueDecimals", "decimals"))), num: true },
                { head: "Tags", cell: (f) => [str(pick(f, "tag1")), str(pick(f, "tag2"))].filter(Boolean).map((t) => badge("none", t)) },
                { head: "Block", cell: (f) => count(num(pick(f, "blockNum", "block"))), num: true },
                { head: "Status", cell: (f) => feedbackStatus(f) },
                {
                    head: "Responses",
                    cell: (f) =>
                        arr(pick(f, "responses")).map(obj).map((r) => h("div", null, hex(pick(r, "responder")), " ", extLink(pick(r, "responseURI", "responseUri", "uri")))),
                },
            ],
            rows,
            "No feedback yet.",
        ),
    );
}

function feedbackStatus(f: J): Node[] {
    const out: Node[] = [];
    if (pick(f, "revoked") === true) out.push(badge("bad", "revoked"));
    const v = obj(pick(f, "verification"));
    if (pick(f, "paymentVerified") === true || pick(v, "paymentVerified") === true) out.push(badge("ok", "payment verified"));
    const status = str(pick(v, "status"));
    if (status) out.push(badge(status === "verified" ? "ok" : status === "failed" ? "bad" : "none", status));
    return out;
}

function validationsSection(page: J | null): HTMLElement {
    const rows = arr(page ? items(page, "validations") : []).map(obj);
    return section(
        "Validations",
        table(
            "Validation requests for this agent (ERC-8004 Validation Registry)",
            [
                { head: "Request", cell: (v) => hex(pick(v, "requestHash")) },
                { head: "Validator", cell: (v) => hex(pick(v, "validator", "validatorAddress")) },
                { head: "Response", cell: (v) => (num(pick(v, "response")) === undefined ? badge("none", "pending") : `${str(pick(v, "response"))} / 100`), num: true },
                { head: "Tag", cell: (v) => str(pick(v, "tag", "responseTag")) },
                { head: "Responses", cell: (v) => count(num(pick(v, "responseCount"))), num: true },
                { head: "Request file", cell: (v) => extLink(pick(v, "requestURI", "requestUri")) },
            ],
            rows,
            "No validation requests.",
        ),
    );
}
