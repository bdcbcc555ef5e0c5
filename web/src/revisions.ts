// The ERC-8004 revisions the node can follow (docs/api.md §Earlier ERC-8004 revisions): the
// current one, the intermediate one (feedback as a score from 0 to 100) and the first draft
// (AgentDomain, AcceptFeedback). Pages carry the revision in their URL as `?revision=`, the same
// parameter the API takes, so a link reproduces what was shown. Pure: no DOM, no fetch.
import { onChain } from "./chains";

export type Revision = "current" | "score" | "draft";

export const kRevisions: readonly Revision[] = ["current", "score", "draft"];

/** The revision a `?revision=` value names: absent or empty is current (the API's default);
 * anything else unknown is null, so a page can say so instead of asking the node. */
export function parseRevision(text: string | null | undefined): Revision | null {
    if (text === null || text === undefined || text === "") return "current";
    return (kRevisions as readonly string[]).includes(text) ? (text as Revision) : null;
}

/** The query parameter to send to the API and to put in page URLs: none for current, so the
 * current revision's URLs stay as they were. */
export function revisionQuery(revision: Revision): { revision?: Revision } {
    return revision === "current" ? {} : { revision };
}

/** The selector's option text. */
export function revisionOption(revision: Revision): string {
    return { current: "Current", score: "Intermediate (score 0–100)", draft: "First draft" }[revision];
}

/** The label shown on every record: which revision's registry it comes from. An unknown value
 * (a newer node) is shown as given rather than hidden. */
export function revisionLabel(revision: unknown): string {
    const names: Record<string, string> = {
        current: "ERC-8004 current",
        score: "ERC-8004 intermediate",
        draft: "ERC-8004 first draft",
    };
    const text = typeof revision === "string" ? revision : "";
    return names[text] ?? (text ? `ERC-8004 ${text}` : "ERC-8004 current");
}

/** The agent page of one record: its id, its chain when known (docs/api.md §Chains; else the
 * node's default chain) and, unless current, its revision. */
export function agentHref(agentId: string, revision: unknown, chainId?: unknown): string {
    const r = typeof revision === "string" ? parseRevision(revision) : "current";
    const id = onChain("agents", agentId, chainId);
    return r === null || r === "current" ? id : `${id}?revision=${r}`;
}

/** How the node matched two records of one agent across revisions (docs/api.md §One agent across
 * revisions), in words; an unknown code is shown as given. */
export function matchedByWords(code: unknown): string {
    const words: Record<string, string> = {
        owner_and_agent_uri: "same owner and agentURI",
        owner_and_verified_domain: "same owner and a verified domain",
    };
    const text = typeof code === "string" ? code : "";
    return words[text] ?? (text || "not said");
}

/** Why a revision's page has nothing: the node answers 404 for a revision it does not follow
 * (its deployment file or [[registries]] names none of that revision's registries). */
export function notFollowedText(revision: Revision): string {
    return `This node does not follow the ${revisionLabel(revision)} registries (its deployment file or [[registries]] names none), so it has no record of that revision.`;
}
