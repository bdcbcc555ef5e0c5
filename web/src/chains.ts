// The chains a node follows (docs/api.md §Chains): one index may hold several, lists span them
// all unless `?chain=` narrows them, and an entity lives on one chain
// (/chains/{chainId}/agents/{agentId}, ...). Pages carry the chain filter in their URL as
// `?chain=`, the same parameter the API takes. Pure: no DOM, no fetch.

/** The chain ids of a `?chain=` value (comma-separated): [] when absent or empty (every chain),
 * null when one is not a chain id, so a page can say so instead of asking the node. */
export function parseChains(text: string | null | undefined): string[] | null {
    if (text === null || text === undefined || text === "") return [];
    const out: string[] = [];
    for (const part of text.split(",")) {
        if (!/^[1-9][0-9]{0,18}$/.test(part)) return null;
        if (!out.includes(part)) out.push(part);
    }
    return out;
}

// EIP-155 chain ids of the networks an ERC-8004 deployment is likely on.
const kNames: Record<string, string> = {
    "1": "Ethereum",
    "10": "OP Mainnet",
    "56": "BNB Chain",
    "137": "Polygon",
    "8453": "Base",
    "42161": "Arbitrum One",
    "11155111": "Sepolia",
    "84532": "Base Sepolia",
    "31337": "Anvil",
};

/** A chain as shown on a row: its common name and id ("Base · 8453"), or "chain <id>". */
export function chainLabel(chainId: unknown): string {
    const id = typeof chainId === "number" ? String(chainId) : typeof chainId === "string" ? chainId : "";
    if (!id) return "";
    const name = kNames[id];
    return name ? `${name} · ${id}` : `chain ${id}`;
}

/** The page of an entity on its chain; without a chain, the default chain's page. */
export function onChain(kind: "agents" | "tools" | "runs", id: string, chainId?: unknown): string {
    const c = typeof chainId === "number" ? String(chainId) : typeof chainId === "string" ? chainId : "";
    const tail = `/${kind}/${encodeURIComponent(id)}`;
    return c ? `/chains/${encodeURIComponent(c)}${tail}` : tail;
}

/** The chain to put in a link to a record on `chainId`, given the node's chains (default first):
 * none for the default chain, whose pages keep their short URLs (/agents/7). */
export function linkChain(chainId: unknown, followed: readonly string[]): string | undefined {
    const id = typeof chainId === "number" ? String(chainId) : typeof chainId === "string" ? chainId : "";
    return id && followed.length > 0 && id !== followed[0] ? id : undefined;
}
