// Agent page: the registration file and its services, badges for verified domain /
// agent card / wallet, the trust score with its interval and explanation, the reputation chart
// over time, the feedback table with responses, and validations (docs/api.md shapes). A record of
// an earlier ERC-8004 revision (`?revision=score|draft`, docs/api.md §Earlier ERC-8004 revisions)
// is labelled as such, shows what that revision has in place of feedback, and links the same
// agent's records in the other revisions. The page of a record on another chain than the node's
// default one is /chains/{chainId}/agents/{agentId} (docs/api.md §Chains); it links the same
// agent's records on the other chains.
import { ApiError, arr, followedChains, get, num, obj, tryGet, type J } from "../api";
import { chainLabel, linkChain } from "../chains";
import { chart, type Point } from "../chart";
import { dataUriJson } from "../datauri";
import { extLink, h, link } from "../dom";
import { count, decimalValue, firstText, percent, shortHex, str, utc } from "../format";
import { graph, type GraphEdge, type GraphNode } from "../graph";
import { agentReasons, discountReasons, explain } from "../reasons";
import { agentHref, matchedByWords, parseRevision, revisionLabel, revisionQuery, type Revision } from "../revisions";
import type { Params } from "../router";
import { badge, facts, hex, jsonBlock, section, table } from "../ui";
import { chainBadge, revisionBadge, verificationBadge } from "./agents";

const kFeedbackPages = 5; // at most 500 rows on the page; the count says how many exist

/** The feedback rows; for the first draft, its AcceptFeedback authorizations (the route's answer
 * for that revision, which takes no include_revoked). */
async function allFeedback(base: string, revision: Revision, signal: AbortSignal): Promise<J[]> {
    const rows: J[] = [];
    let cursor = "";
    const query = revision === "draft" ? { revision } : { include_revoked: true, ...revisionQuery(revision) };
    for (let i = 0; i < kFeedbackPages; ++i) {
        const page = await get(`${base}/feedback`, { ...query, limit: 100, cursor }, signal);
        rows.push(...arr(page.items).map(obj));
        if (typeof page.next_cursor !== "string") break;
        cursor = page.next_cursor;
    }
    return rows;
}

export async function agentPage(p: Params, signal: AbortSignal): Promise<Node> {
    // /agents/{id} (the default chain) or /chains/{chainId}/agents/{id}.
    const chain = p.path.length > 1 ? (p.path[0] ?? "") : "";
    const id = p.path[p.path.length - 1] ?? "";
    const base = chain ? `/chains/${encodeURIComponent(chain)}/agents/${encodeURIComponent(id)}` : `/agents/${encodeURIComponent(id)}`;
    const revision = parseRevision(p.query.get("revision"));
    if (revision === null) {
        return h("div", null, h("h1", null, `Agent ${id}`), h("p", { class: "error", role: "alert" }, `Unknown ERC-8004 revision "${p.query.get("revision") ?? ""}": choose current, score or draft.`));
    }
    const rq = revisionQuery(revision);
    let agent: J;
    try {
        agent = await get(base, rq, signal);
    } catch (e) {
        if (e instanceof ApiError && e.status === 404 && revision !== "current") return notFound(id, revision, e);
        throw e;
    }
    const draft = revision === "draft";
    // ERC-8004 first draft §Reputation Registry: no feedback on chain, so no reputation routes
    // (they answer 404) and nothing to chart; they are not asked.
    const [feedback, validations, history, reputation, followed] = await Promise.all([
        allFeedback(base, revision, signal),
        tryGet(`${base}/validations`, rq, signal),
        draft ? Promise.resolve(null) : tryGet(`${base}/reputation/history`, rq, signal),
        revision === "score" ? tryGet(`${base}/reputation`, rq, signal) : Promise.resolve(null),
        followedChains(),
    ]);
    const here = linkChain(agent.chain_id, followed);
    const profile = obj(agent.profile);
    const file = dataUriJson(agent.agent_uri);
    const domain = str(agent.agent_domain);
    const name = firstText(profile.name, file?.name, domain) || `Agent ${id}`;
    const verification = obj(agent.verification);
    const counts = obj(agent.counts);
    return h(
        "article",
        { "data-agent-id": id, "data-revision": revision, "data-chain-id": str(agent.chain_id) },
        h("h1", null, name, " ", h("span", { class: "muted" }, `#${id}`)),
        h("p", { class: "badges", "aria-label": "Chain and ERC-8004 revision" }, chainBadge(agent.chain_id), " ", revisionBadge(agent.revision ?? revision), " ", h("span", { class: "muted" }, revisionNote(revision))),
        draft ? null : badges(agent),
        h("p", null, firstText(profile.description, file?.description)),
        facts([
            // ERC-8004 first draft §Identity Registry: the AgentAddress is the record's owner.
            ["AgentDomain", domain ? h("span", { class: "mono", "data-agent-domain": domain }, domain) : ""],
            ["AgentAddress", agent.agent_address ? h("span", { "data-agent-address": str(agent.agent_address) }, hex(agent.agent_address, 20)) : ""],
            ["Owner", draft ? "" : hex(agent.owner, 20)],
            ["Agent wallet", draft ? "" : agent.wallet ? hex(agent.wallet, 20) : "none"],
            ["agentURI", agent.agent_uri && !file ? extLink(agent.agent_uri) : file ? "a data: URI (the file is stored on chain)" : ""],
            ["Chain", chainLabel(agent.chain_id)],
            ["Registry", h("span", { class: "mono" }, str(agent.agent_registry))],
            ["Registered at block", count(num(agent.registered_block_num))],
            ["Active", profile.active === true ? "yes" : profile.active === false ? "no" : ""],
            ["x402 payments", profile.x402_support === true ? "supported" : ""],
            ["Registration check", draft ? "" : verification.status ? [verificationBadge(verification.status), " ", explain(agentReasons, verification.reason), verification.checked_at ? ` (checked ${utc(verification.checked_at)})` : ""] : "not checked yet"],
        ]),
        revision === "current" || num(obj(agent.score).score) !== undefined
            ? scoreSection(obj(agent.score))
            : section("Trust score", h("p", { class: "muted", "data-score": "none" }, "The trust engine scores the current revision's records only.")),
        draft ? null : chartSection(history),
        draft ? null : servicesSection(profile, file),
        revision === "draft"
            ? authorizationsSection(feedback, num(counts.feedback_authorizations))
            : revision === "score"
              ? scoreFeedbackSection(feedback, num(counts.feedback), reputation)
              : feedbackSection(feedback, num(counts.feedback)),
        validationsSection(validations, revision, here),
        historySection(arr(agent.history).map(obj), here),
        followed.length > 1 ? sameAgentSection(arr(agent.same_agent).map(obj), followed) : null,
        draft ? null : section("Registration file", jsonBlock(file ?? (Object.keys(profile).length ? profile : null), file ? "The registration file from its data: URI (JSON)" : "The registration file as last read (JSON)")),
    );
}

/** What the record's revision is, in one line (docs/compatibility.md §Earlier ERC-8004 revisions). */
function revisionNote(revision: Revision): string {
    if (revision === "draft") return "A record of the first draft's Identity Registry: an AgentDomain and an AgentAddress, no registration file.";
    if (revision === "score") return "A record of the intermediate revision: feedback is a score from 0 to 100.";
    return "";
}

/** A 404 for a revision other than the current one: the agent is not in that revision's registry,
 * or the node follows none of that revision's registries. Either way, a message, not a broken page. */
function notFound(id: string, revision: Revision, e: ApiError): HTMLElement {
    return h(
        "div",
        null,
        h("h1", null, `Agent ${id}`, " ", h("span", { class: "muted" }, revisionLabel(revision))),
        h(
            "p",
            { class: "error", role: "alert", "data-not-found": revision },
            h("strong", null, "Not found. "),
            `The ${revisionLabel(revision)} Identity Registry has no agent ${id}, or this node does not follow that revision's registries (its deployment file or [[registries]] names none). `,
            h("span", { "data-node-message": true }, `The node says: "${e.message}".`),
        ),
        h("p", null, link(`/agents?revision=${revision}`, `All agents of the ${revisionLabel(revision)}`), " · ", link(`/agents/${encodeURIComponent(id)}`, `Agent ${id} in the current revision`)),
    );
}

function badges(agent: J): HTMLElement {
    const b = obj(agent.badges);
    const profile = obj(agent.profile);
    const domains = arr(profile.domains).map(str);
    return h(
        "p",
        { class: "badges", "aria-label": "Verification badges" },
        verificationBadge(obj(agent.verification).status),
        b.domain_verified === true ? badge("ok", "verified domain", domains.join(", ")) : badge("none", "no verified domain"),
        b.agent_card === true ? badge("ok", "agent card") : badge("none", "no agent card"),
        b.wallet === true ? badge("ok", "wallet") : badge("none", "no wallet"),
    );
}

function scoreSection(score: J): HTMLElement {
    const value = num(score.score);
    if (value === undefined) return section("Trust score", h("p", { class: "muted", "data-score": "none" }, "No score yet: the trust engine has not scored this agent (no feedback, or not computed yet)."));
    const explanation = obj(score.explanation);
    const contributions = arr(explanation.contributions).map(obj);
    // tags: the trust engine's array of {tag, isRating, score, low, high, evidence, reviews}.
    const tagsRaw = score.tags;
    const tags = Array.isArray(tagsRaw) ? tagsRaw.map(obj) : Object.entries(obj(tagsRaw)).map(([tag, t]) => ({ tag, ...obj(t) }));
    const omitted = num(explanation.omitted) ?? 0;
    return section(
        "Trust score",
        h(
            "p",
            null,
            h("span", { class: "score", "data-score": value }, percent(value)),
            h("span", { class: "muted" }, ` 95 % interval ${percent(score.low)} – ${percent(score.high)}`),
        ),
        facts([
            ["Reviews counted", count(num(score.reviews))],
            ["Effective reviewers", num(score.effective_reviewers)?.toFixed(2) ?? ""],
            ["Evidence", num(score.evidence)?.toFixed(2) ?? ""],
            ["Computed", utc(score.computed_at)],
            ["Covers block", count(num(score.covers_block_num))],
        ]),
        h(
            "p",
            { class: "muted" },
            "A Beta reputation over every feedback, each weighted by its reviewer's standing in the review graph and by priors (verified payments, age, spread), decayed over time.",
        ),
        tags.length
            ? table(
                  "Per-tag scores",
                  [
                      { head: "Tag", cell: (t) => str(t.tag) },
                      { head: "Kind", cell: (t) => (t.isRating === false ? "measurement (weighted mean)" : "rating") },
                      { head: "Score", cell: (t) => (t.isRating === false ? String(num(t.score) ?? "–") : percent(t.score)), num: true },
                      { head: "Interval", cell: (t) => (t.isRating === false ? "" : `${percent(t.low)} – ${percent(t.high)}`) },
                      { head: "Reviews", cell: (t) => count(num(t.reviews)), num: true },
                  ],
                  tags,
              )
            : null,
        h("h3", null, "Explanation"),
        table(
            "Who contributed what, and why some were discounted (heaviest first)",
            [
                { head: "Reviewer", cell: (c) => hex(c.client) },
                { head: "Rating", cell: (c) => percent(c.rating), num: true },
                { head: "Weight", cell: (c) => num(c.weight)?.toFixed(3) ?? "", num: true },
                { head: "Share", cell: (c) => percent(c.share), num: true },
                { head: "Standing", cell: (c) => num(c.standing)?.toFixed(3) ?? "", num: true },
                { head: "Discounts", cell: (c) => arr(c.discounts).map((d) => h("div", null, badge("warn", str(d)), " ", explain(discountReasons, d))) },
            ],
            contributions,
            "No contributions recorded.",
        ),
        omitted > 0 ? h("p", { class: "muted" }, `${count(omitted)} smaller contributions are not listed.`) : null,
        clustersSection(arr(explanation.clusters).map(obj)),
    );
}

/** The funding clusters the trust engine found among this agent's reviewers (docs/trust.md
 * §Funding): in words, and as a small graph from the funding root to the agent. */
function clustersSection(clusters: J[]): HTMLElement {
    if (clusters.length === 0) {
        return h("div", { "data-clusters": 0 }, h("h3", null, "Funding clusters"), h("p", { class: "muted" }, "No reviewers of this agent share a funder that is not a hub (an exchange, a faucet)."));
    }
    return h(
        "div",
        { "data-clusters": clusters.length },
        h("h3", null, "Funding clusters"),
        ...clusters.map((c, i) => {
            const members = arr(c.members).map(str);
            const path = arr(c.fundingPath).map(str); // nearest funder first
            const owner = c.reason === "funded_by_owner";
            const words = owner
                ? `${count(members.length)} reviewers were funded by this agent's owner, through ${path.map((a) => shortHex(a)).join(" ← ")}: they speak for the owner and are not counted.`
                : `${count(members.length)} reviewers share the funder ${shortHex(str(c.key))} (funding path ${path.map((a) => shortHex(a)).join(" ← ")}): they count as one voice, weight ${num(c.weight)?.toFixed(3) ?? "0"} together.`;
            const nodes: GraphNode[] = [...path]
                .reverse()
                .map((a, k) => ({ id: `f${k}`, kind: "task", title: k === path.length - 1 ? "funder" : "funded the funder", subtitle: shortHex(a), status: "pending", href: undefined }));
            nodes.push({ id: "reviewers", kind: "reply", title: `${count(members.length)} reviewers`, subtitle: owner ? "not counted" : "one voice", status: "failed" });
            nodes.push({ id: "agent", kind: "task", title: "this agent", subtitle: "rated by them", status: "ok" });
            const edges: GraphEdge[] = nodes.slice(1).map((n, k) => ({ from: nodes[k]!.id, to: n.id }));
            return h(
                "div",
                { class: "cluster", "data-cluster": i, "data-reason": str(c.reason), "data-members": members.length },
                h("p", null, badge("warn", str(c.reason)), " ", words),
                graph(nodes, edges, `Funding path of cluster ${i + 1}`),
            );
        }),
    );
}

/** Reputation over time: the running average of feedback values (not revoked) at the end of
 * each block range (GET .../reputation/history), one point per range with feedback. */
function chartSection(history: J | null): HTMLElement {
    const rows = arr(history?.points).map(obj);
    const points: Point[] = rows
        .map((r) => ({
            x: num(r.block_num) ?? NaN,
            y: num(r.cumulative_average) ?? NaN,
            label: `${count(num(r.cumulative_count))} feedback so far; ${count(num(r.count))} in this range averaging ${round(num(r.average))}`,
        }))
        .filter((pt) => Number.isFinite(pt.x) && Number.isFinite(pt.y));
    return section(
        "Reputation over time",
        points.length === 0
            ? h("p", { class: "muted", "data-chart": "empty" }, "No feedback yet, so nothing to chart.")
            : chart(points, {
                  title: "Average feedback value over time (cumulative, by block)",
                  xLabel: (x) => `block ${Math.round(x)}`,
                  xInteger: true,
                  yLabel: (y) => round(y),
              }),
    );
}

function round(x: number | undefined): string {
    if (x === undefined) return "–";
    return String(Math.round(x * 100) / 100);
}

function servicesSection(profile: J, file: J | null): HTMLElement {
    const services = (arr(profile.services).length ? arr(profile.services) : arr(file?.services)).map(obj);
    const trust = (arr(profile.trust_models).length ? arr(profile.trust_models) : arr(file?.supportedTrust)).map(str);
    const skills = arr(profile.skills).map(str);
    const domains = arr(profile.domains).map(str);
    return section(
        "Services",
        table(
            "Services declared in the registration file",
            [
                { head: "Type", cell: (s) => badge("none", str(s.name)) },
                { head: "Endpoint", cell: (s) => extLink(s.endpoint) },
                { head: "Version", cell: (s) => str(s.version) },
                { head: "Skills", cell: (s) => arr(s.skills ?? s.a2aSkills).map(str).join(", ") },
            ],
            services,
            "The registration file declares no service.",
        ),
        facts([
            ["Supported trust models", trust.map((t) => badge("none", t))],
            ["Skills", skills.join(", ")],
            ["Verified domains", domains.join(", ")],
        ]),
    );
}

function feedbackSection(rows: J[], total: number | undefined): HTMLElement {
    return section(
        "Feedback",
        total !== undefined && total > rows.length ? h("p", { class: "muted" }, `The first ${rows.length} of ${count(total)}.`) : null,
        table(
            "Feedback given to this agent (ERC-8004 Reputation Registry), with responses",
            [
                { head: "Client", cell: (f) => hex(f.client) },
                { head: "#", cell: (f) => str(f.feedback_index), num: true },
                { head: "Value", cell: (f) => h("span", { "data-value": true }, decimalValue(f.value, f.value_decimals)), num: true },
                { head: "Tags", cell: (f) => [str(f.tag1), str(f.tag2)].filter(Boolean).map((t) => badge("none", t)) },
                { head: "Block", cell: (f) => count(num(f.block_num)), num: true },
                { head: "Status", cell: (f) => (f.revoked === true ? badge("bad", "revoked") : badge("ok", "live")) },
                { head: "File", cell: (f) => (str(f.feedback_uri) ? extLink(f.feedback_uri, /^data:/.test(str(f.feedback_uri)) ? "on chain" : undefined) : "") },
                {
                    head: "Responses",
                    cell: (f) =>
                        arr(f.responses)
                            .map(obj)
                            .map((r) => h("div", { class: "response" }, hex(r.responder), " → ", extLink(r.response_uri))),
                },
            ],
            rows,
            "No feedback yet.",
        ),
    );
}

function validationsSection(page: J | null, revision: Revision, here: string | undefined): HTMLElement {
    const rows = arr(page?.items).map(obj);
    const summary = obj(page?.summary);
    const draft = revision === "draft";
    return section(
        "Validations",
        num(summary.count) ? h("p", null, `${count(num(summary.count))} responses, average ${str(summary.average_response)} / 100.`) : null,
        // ERC-8004 first draft §Validation Registry: a validator is an agent (by AgentID), a request
        // is named by its DataHash, and there is no summary on chain.
        draft ? h("p", { class: "muted" }, "First draft: validators are agents, named by their AgentID; a request is named by its DataHash.") : null,
        table(
            `Validation requests for this agent (${revisionLabel(revision)} Validation Registry), oldest first`,
            [
                { head: draft ? "DataHash" : "Request", cell: (v) => hex(v.request_hash) },
                ...(draft ? [{ head: "Validator agent", cell: (v: J) => (str(v.validator_agent_id) ? link(agentHref(str(v.validator_agent_id), "draft", here), h("span", { "data-validator-agent-id": str(v.validator_agent_id) }, `#${str(v.validator_agent_id)}`)) : "") }] : []),
                { head: "Validator", cell: (v) => hex(v.validator) },
                { head: "Response", cell: (v) => (num(v.response) === undefined ? badge("none", "pending") : `${str(v.response)} / 100`), num: true },
                { head: "Tag", cell: (v) => str(v.response_tag) },
                { head: "Responses", cell: (v) => count(num(v.response_count)), num: true },
                { head: "Block", cell: (v) => count(num(v.block_num)), num: true },
            ],
            rows,
            "No validation requests.",
        ),
    );
}

/** The intermediate revision's feedback: a score from 0 to 100 per feedback (ERC-8004
 * intermediate §Giving Feedback), and the contract's own getSummary average. */
function scoreFeedbackSection(rows: J[], total: number | undefined, reputation: J | null): HTMLElement {
    const summary = obj(reputation?.summary);
    const average = num(summary.average_score);
    return section(
        "Feedback",
        h(
            "p",
            { "data-average-score": average ?? "none" },
            average === undefined
                ? "No average score: no feedback counts yet."
                : [h("span", { class: "score" }, `${round(average)} / 100`), h("span", { class: "muted" }, ` average score over ${count(num(summary.count))} feedback (ScoreReputationRegistry.getSummary, every client)`)],
        ),
        total !== undefined && total > rows.length ? h("p", { class: "muted" }, `The first ${rows.length} of ${count(total)}.`) : null,
        table(
            "Feedback given to this agent (ERC-8004 intermediate Reputation Registry), scores from 0 to 100, with responses",
            [
                { head: "Client", cell: (f) => hex(f.client) },
                { head: "#", cell: (f) => str(f.feedback_index), num: true },
                { head: "Score (0–100)", cell: (f) => h("span", { "data-value": true }, decimalValue(f.value, f.value_decimals)), num: true },
                { head: "Tags", cell: (f) => [str(f.tag1), str(f.tag2)].filter(Boolean).map((t) => badge("none", t)) },
                { head: "Block", cell: (f) => count(num(f.block_num)), num: true },
                { head: "Status", cell: (f) => (f.revoked === true ? badge("bad", "revoked") : badge("ok", "live")) },
                { head: "Responses", cell: (f) => arr(f.responses).map(obj).map((r) => h("div", { class: "response" }, hex(r.responder), " → ", extLink(r.response_uri))) },
            ],
            rows,
            "No feedback yet.",
        ),
    );
}

/** The first draft's AcceptFeedback authorizations: ERC-8004 first draft §Reputation Registry has
 * the server agent authorize a client agent on chain (a FeedbackAuthID); the feedback itself is
 * off-chain. */
function authorizationsSection(rows: J[], total: number | undefined): HTMLElement {
    const agent = (x: unknown) => (str(x) ? link(agentHref(str(x), "draft"), `#${str(x)}`) : "");
    return section(
        "Feedback authorizations",
        h("p", { class: "muted", "data-offchain": true }, "First draft: the feedback itself is off-chain. The chain holds only the server agent's AcceptFeedback authorizations, each with its FeedbackAuthID, so there is nothing here to score."),
        total !== undefined && total > rows.length ? h("p", { class: "muted" }, `The first ${rows.length} of ${count(total)}.`) : null,
        table(
            "AcceptFeedback authorizations of this agent (ERC-8004 first draft Reputation Registry), oldest first",
            [
                { head: "Client agent", cell: (a) => agent(a.agent_client_id) },
                { head: "Server agent", cell: (a) => agent(a.agent_server_id) },
                { head: "FeedbackAuthID", cell: (a) => h("span", { "data-feedback-auth-id": str(a.feedback_auth_id) }, hex(a.feedback_auth_id)) },
                { head: "Block", cell: (a) => count(num(a.block_num)), num: true },
                { head: "Transaction", cell: (a) => hex(a.txn_hash) },
            ],
            rows,
            "No feedback authorization yet.",
        ),
    );
}

/** The same agent's records in the other revisions' identity registries, oldest first (docs/api.md
 * §One agent across revisions), each a link to that record's page in its revision. */
function historySection(entries: J[], here: string | undefined): HTMLElement {
    return section(
        "History across revisions",
        table(
            "This agent's records in the other ERC-8004 revisions, oldest first",
            [
                { head: "Revision", cell: (e) => revisionBadge(e.revision) },
                { head: "Agent", cell: (e) => h("a", { href: agentHref(str(e.agent_id), e.revision, here), "data-link": true, "data-history-link": str(e.revision) }, `Agent #${str(e.agent_id)}`) },
                { head: "Matched by", cell: (e) => h("span", { "data-matched-by": str(e.matched_by) }, matchedByWords(e.matched_by)) },
                { head: "Registered at block", cell: (e) => count(num(e.registered_block_num)), num: true },
                { head: "agentURI / AgentDomain", cell: (e) => (str(e.agent_domain) ? h("span", { class: "mono" }, str(e.agent_domain)) : /^data:/.test(str(e.agent_uri)) ? "a data: URI" : extLink(e.agent_uri)) },
                { head: "Registry", cell: (e) => h("span", { class: "mono" }, str(e.agent_registry)) },
            ],
            entries,
            "No record of this agent in the other revisions (the same owner with the same agentURI, or with a verified domain).",
        ),
    );
}

/** The same agent's records on the other chains the node follows (docs/api.md §The same agent on
 * several chains: the same owner, and registration files naming each other), each a link to that
 * record's page on its chain. */
function sameAgentSection(entries: J[], followed: readonly string[]): HTMLElement {
    return section(
        "The same agent on other chains",
        table(
            "This agent's records on the other chains this node follows",
            [
                { head: "Chain", cell: (e) => chainBadge(e.chain_id) },
                { head: "Agent", cell: (e) => h("a", { href: agentHref(str(e.agent_id), "current", linkChain(e.chain_id, followed)), "data-link": true, "data-same-agent": str(e.chain_id) }, `Agent #${str(e.agent_id)}`) },
                { head: "Registry", cell: (e) => h("span", { class: "mono" }, str(e.agent_registry)) },
            ],
            entries,
            "No record of this agent on the other chains (the same owner, with registration files that list each other).",
        ),
    );
}
