// Decoding of data: URIs (RFC 2397) that hold JSON: registration files (ERC-8004) and tool
// manifests (ERC-8257) stored on chain. The bytes come from the chain through the node, so the
// explorer can show the document without fetching anything from outside its origin.

/** The decoded text of a data: URI, or null when `uri` is not a data: URI or does not decode. */
export function dataUriText(uri: unknown): string | null {
    if (typeof uri !== "string" || !/^data:/i.test(uri)) return null;
    const comma = uri.indexOf(",");
    if (comma < 0) return null;
    const meta = uri.slice(5, comma);
    const payload = uri.slice(comma + 1);
    try {
        let bytes: Uint8Array;
        if (/;base64$/i.test(meta)) {
            const bin = atob(decodeURIComponent(payload).replace(/\s+/g, ""));
            bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
        } else {
            bytes = new TextEncoder().encode(decodeURIComponent(payload));
        }
        return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
        return null;
    }
}

/** The JSON object a data: URI holds, or null. */
export function dataUriJson(uri: unknown): Record<string, unknown> | null {
    const text = dataUriText(uri);
    if (text === null) return null;
    try {
        const v: unknown = JSON.parse(text);
        return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
    } catch {
        return null;
    }
}
