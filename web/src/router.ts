// History routing for the single-page explorer. The node answers every path without a file
// extension with index.html (api/http_server.hpp), so /agents/7 loads the app, which then draws
// the page for the path. In-app links carry data-link and are handled here without a reload.

export type Params = { path: string[]; query: URLSearchParams };
export type Page = (params: Params, signal: AbortSignal) => Promise<Node>;
type Route = { pattern: RegExp; page: Page; nav: string; title: string };

const routes: Route[] = [];
let current: AbortController | null = null;

export function route(pattern: RegExp, nav: string, title: string, page: Page): void {
    routes.push({ pattern, page, nav, title });
}

export function navigate(href: string, replace = false): void {
    if (replace) history.replaceState(null, "", href);
    else history.pushState(null, "", href);
    void render();
}

export type Renderer = (node: Node, nav: string, title: string) => void;
let renderer: Renderer = () => {};
let failure: (error: unknown) => Node = () => document.createTextNode("error");

/** Draws the page of the current location; an older render still loading is abandoned. */
export async function render(): Promise<void> {
    current?.abort();
    const controller = new AbortController();
    current = controller;
    const path = location.pathname.replace(/\/+$/, "") || "/";
    const query = new URLSearchParams(location.search);
    const main = document.getElementById("main");
    main?.setAttribute("aria-busy", "true");
    for (const r of routes) {
        const m = r.pattern.exec(path);
        if (!m) continue;
        let node: Node;
        try {
            node = await r.page({ path: m.slice(1).map((x) => decodeURIComponent(x ?? "")), query }, controller.signal);
        } catch (e) {
            if (controller.signal.aborted) return;
            node = failure(e);
        }
        if (controller.signal.aborted) return;
        main?.removeAttribute("aria-busy");
        renderer(node, r.nav, r.title);
        return;
    }
    main?.removeAttribute("aria-busy");
    renderer(failure(new Error(`No page at ${path}`)), "", "Not found");
}

export function start(draw: Renderer, onError: (error: unknown) => Node): void {
    renderer = draw;
    failure = onError;
    document.addEventListener("click", (event) => {
        if (event.defaultPrevented || event.button !== 0) return;
        if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        const a = (event.target as Element | null)?.closest?.("a[data-link]");
        if (!(a instanceof HTMLAnchorElement) || a.origin !== location.origin) return;
        event.preventDefault();
        navigate(a.pathname + a.search);
    });
    window.addEventListener("popstate", () => void render());
    void render();
}
