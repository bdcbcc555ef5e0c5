// Hand-written DOM helpers. Every string from the index (registration files, manifests, tags) is
// creator-controlled, so text only ever enters the page through text nodes and attribute values
// set by the DOM API, never through innerHTML (ERC-8257 §Rendering Manifest Content: contextual
// encoding). Links to outside URLs go through safeHref().

export type Child = Node | string | number | boolean | null | undefined | Child[];
type AttrValue = string | number | boolean | null | undefined | ((event: Event) => void);
export type Attrs = Record<string, AttrValue>;

function append(parent: Node, child: Child): void {
    if (child === null || child === undefined || child === false || child === true) return;
    if (Array.isArray(child)) {
        for (const c of child) append(parent, c);
    } else if (child instanceof Node) {
        parent.appendChild(child);
    } else {
        parent.appendChild(document.createTextNode(String(child)));
    }
}

function setAttrs(el: Element, attrs: Attrs | null | undefined): void {
    if (!attrs) return;
    for (const [name, value] of Object.entries(attrs)) {
        if (value === null || value === undefined || value === false) continue;
        if (typeof value === "function") {
            el.addEventListener(name.replace(/^on/, ""), value);
        } else if (value === true) {
            el.setAttribute(name, "");
        } else {
            el.setAttribute(name, String(value));
        }
    }
}

/** An HTML element: h("a", {href: "/agents", class: "x"}, "text", child, [more]). */
export function h<K extends keyof HTMLElementTagNameMap>(
    tag: K,
    attrs?: Attrs | null,
    ...children: Child[]
): HTMLElementTagNameMap[K] {
    const el = document.createElement(tag);
    setAttrs(el, attrs);
    append(el, children);
    return el;
}

const kSvgNs = "http://www.w3.org/2000/svg";

/** An SVG element (charts and graphs). */
export function s(tag: string, attrs?: Attrs | null, ...children: Child[]): SVGElement {
    const el = document.createElementNS(kSvgNs, tag);
    setAttrs(el, attrs);
    append(el, children);
    return el as SVGElement;
}

/** Replaces the children of `el`. */
export function mount(el: Element, ...children: Child[]): void {
    el.replaceChildren();
    append(el, children);
}

/**
 * An href for an untrusted URL, or null when it must not be a link: only https (ERC-8257
 * §Rendering Manifest Content: no javascript:, file:, blob:; http only with consent, so never).
 */
export function safeHref(url: unknown): string | null {
    if (typeof url !== "string") return null;
    try {
        const u = new URL(url);
        return u.protocol === "https:" ? u.href : null;
    } catch {
        return null;
    }
}

/** An outside link (new tab, no referrer, no opener), or the URL as text when it is not https. */
export function extLink(url: unknown, label?: string): Node {
    const href = safeHref(url);
    const text = label ?? (typeof url === "string" ? url : "");
    if (!href) return h("span", { class: "mono" }, text);
    return h("a", { href, rel: "noopener noreferrer", target: "_blank", class: "ext" }, text);
}

/** An in-app link (handled by the router without a page load). */
export function link(href: string, ...children: Child[]): HTMLAnchorElement {
    return h("a", { href, "data-link": true }, ...children);
}
