// Formatting of index values for people. Values stay strings end to end where they are exact
// (int128 feedback values, uint256 ids, wei amounts): a JS number would round them.

/** 0x1234…abcd for a long hex string; the full value stays in the title attribute. */
export function shortHex(hex: unknown, keep = 6): string {
    if (typeof hex !== "string") return "";
    if (hex.length <= 2 + keep * 2) return hex;
    return `${hex.slice(0, 2 + keep)}…${hex.slice(-keep)}`;
}

/** A unix time (seconds) as an ISO-like UTC string, or "" when absent. */
export function utc(seconds: unknown): string {
    const n = typeof seconds === "string" ? Number(seconds) : seconds;
    if (typeof n !== "number" || !Number.isFinite(n) || n <= 0) return "";
    return new Date(n * 1000).toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC");
}

/**
 * ERC-8004 §Giving Feedback: value (int128) with valueDecimals (0..18) as an exact decimal
 * string, e.g. ("9977", 2) -> "99.77", ("-32", 1) -> "-3.2".
 */
export function decimalValue(value: unknown, decimals: unknown): string {
    const raw = typeof value === "number" ? String(value) : typeof value === "string" ? value : "";
    const d = typeof decimals === "number" ? decimals : Number(decimals ?? 0);
    if (!/^-?\d+$/.test(raw) || !Number.isInteger(d) || d < 0 || d > 77) return raw;
    const negative = raw.startsWith("-");
    let digits = negative ? raw.slice(1) : raw;
    if (d === 0) return raw;
    digits = digits.padStart(d + 1, "0");
    let int = digits.slice(0, digits.length - d);
    const frac = digits.slice(digits.length - d).replace(/0+$/, "");
    int = int.replace(/^0+(?=\d)/, "");
    const body = frac ? `${int}.${frac}` : int;
    return negative && body !== "0" ? `-${body}` : body;
}

/** A score in [0, 1] as a percentage with one decimal. */
export function percent(x: unknown): string {
    const n = typeof x === "string" ? Number(x) : x;
    if (typeof n !== "number" || !Number.isFinite(n)) return "–";
    return `${(n * 100).toFixed(1)}%`;
}

/** A number with thousands separators (counts). */
export function count(x: unknown): string {
    const n = typeof x === "string" ? Number(x) : x;
    if (typeof n !== "number" || !Number.isFinite(n)) return "–";
    return n.toLocaleString("en-US");
}

/** A field of an unknown JSON object, as a string ("" when absent or not scalar). */
export function str(x: unknown): string {
    if (typeof x === "string") return x;
    if (typeof x === "number" || typeof x === "bigint" || typeof x === "boolean") return String(x);
    return "";
}

/** The first argument that is a non-empty string (index fields are "" or null when unknown). */
export function firstText(...values: unknown[]): string {
    for (const v of values) {
        const t = str(v);
        if (t !== "") return t;
    }
    return "";
}
