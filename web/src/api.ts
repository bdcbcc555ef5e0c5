// Same-origin reads of the node's REST API (docs/api.md). Answers are JSON; an error is
// {"error": <one line>, "code": <snake_case>} with a 4xx (or 503 while the index is unavailable),
// surfaced as an ApiError carrying both.

export type J = Record<string, unknown>;

export class ApiError extends Error {
    constructor(
        readonly status: number,
        readonly code: string,
        message: string,
    ) {
        super(message);
    }
}

type Query = Record<string, string | number | boolean | string[] | null | undefined>;

export function apiUrl(path: string, query: Query = {}): string {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) {
        if (v === null || v === undefined || v === "") continue;
        if (Array.isArray(v)) for (const x of v) q.append(k, x);
        else q.set(k, String(v));
    }
    const qs = q.toString();
    return `/api/v1${path}${qs ? `?${qs}` : ""}`;
}

export async function get(path: string, query: Query = {}, signal?: AbortSignal): Promise<J> {
    const response = await fetch(apiUrl(path, query), {
        signal: signal ?? null,
        headers: { accept: "application/json" },
    });
    let body: unknown = null;
    try {
        body = await response.json();
    } catch {
        body = null;
    }
    if (!response.ok) {
        const b = obj(body);
        throw new ApiError(
            response.status,
            typeof b.code === "string" ? b.code : `http_${response.status}`,
            typeof b.error === "string" ? b.error : `${response.status} ${response.statusText}`,
        );
    }
    return obj(body);
}

/** Like get(), but a 404 or an error is null: for optional parts of a page. */
export async function tryGet(path: string, query: Query = {}, signal?: AbortSignal): Promise<J | null> {
    try {
        return await get(path, query, signal);
    } catch (e) {
        if (signal?.aborted) throw e;
        return null;
    }
}

// Narrowing of untyped JSON.
export function obj(x: unknown): J {
    return x !== null && typeof x === "object" && !Array.isArray(x) ? (x as J) : {};
}
export function arr(x: unknown): unknown[] {
    return Array.isArray(x) ? x : [];
}
/** The first of `names` present in `o` (API field names are camelCase; a few have aliases). */
export function pick(o: J, ...names: string[]): unknown {
    for (const n of names) if (o[n] !== undefined && o[n] !== null) return o[n];
    return undefined;
}
export function num(x: unknown): number | undefined {
    const n = typeof x === "string" && x.trim() !== "" ? Number(x) : x;
    return typeof n === "number" && Number.isFinite(n) ? n : undefined;
}

let followedOnce: Promise<string[]> | null = null;

/** The chains the node follows, its default chain first (GET /api/v1/status `chains`,
 * docs/api.md §Chains); asked once per page load, [] when the node does not say (then asked
 * again next time). */
export function followedChains(): Promise<string[]> {
    followedOnce ??= tryGet("/status").then((st) => {
        const ids = arr(st?.chains)
            .map((c) => obj(c).chain_id)
            .map((c) => (typeof c === "number" || typeof c === "string" ? String(c) : ""))
            .filter(Boolean);
        if (ids.length === 0) followedOnce = null;
        return ids;
    });
    return followedOnce;
}
