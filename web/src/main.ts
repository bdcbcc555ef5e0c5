// The explorer's entry point: routes, the page frame (navigation state, document title, focus
// moved to the new page for screen readers) and the chain status in the header.
import "./style.css";
import { get, num } from "./api";
import { h, mount } from "./dom";
import { count } from "./format";
import { agentPage } from "./pages/agent";
import { agentsPage } from "./pages/agents";
import { homePage } from "./pages/home";
import { runPage, runsPage } from "./pages/runs";
import { toolPage, toolsPage } from "./pages/tools";
import { route, start } from "./router";
import { errorBox } from "./ui";

route(/^\/$/, "home", "Home", homePage);
route(/^\/agents$/, "agents", "Agents", agentsPage);
route(/^\/agents\/([^/]+)$/, "agents", "Agent", agentPage);
route(/^\/chains\/([^/]+)\/agents\/([^/]+)$/, "agents", "Agent", agentPage);
route(/^\/tools$/, "tools", "Tools", toolsPage);
route(/^\/tools\/([^/]+)$/, "tools", "Tool", toolPage);
route(/^\/chains\/([^/]+)\/tools\/([^/]+)$/, "tools", "Tool", toolPage);
route(/^\/runs$/, "runs", "Workflow runs", runsPage);
route(/^\/runs\/([^/]+)$/, "runs", "Workflow run", runPage);
route(/^\/chains\/([^/]+)\/runs\/([^/]+)$/, "runs", "Workflow run", runPage);

let first = true;

function draw(node: Node, nav: string, title: string): void {
    const main = document.getElementById("main");
    if (!main) return;
    mount(main, node);
    for (const a of document.querySelectorAll<HTMLAnchorElement>("a[data-nav]")) {
        if (a.dataset.nav === nav) a.setAttribute("aria-current", "page");
        else a.removeAttribute("aria-current");
    }
    const h1 = main.querySelector("h1");
    document.title = `${h1?.textContent || title} · Credence`;
    // Screen readers hear which page loaded (the page itself is not a live region: too long).
    const announce = document.getElementById("announce");
    if (announce && !first) announce.textContent = `${h1?.textContent || title} loaded`;
    // Focus the new page (not on first load, where the browser's own start is right).
    if (!first) main.focus({ preventScroll: true });
    first = false;
    window.scrollTo(0, 0);
}

async function chainStatus(): Promise<void> {
    const el = document.getElementById("chain");
    if (!el) return;
    try {
        const st = await get("/status");
        const block = num(st.indexed_block_num);
        const chains = Array.isArray(st.chains) ? st.chains.length : 1;
        // Several chains: the default one's progress, and how many more it follows.
        const more = chains > 1 ? ` (+${chains - 1} more chain${chains > 2 ? "s" : ""})` : "";
        mount(el, `chain ${String(st.chain_id ?? "?")}${more} · indexed to block ${block === undefined ? "–" : count(block)}`);
    } catch {
        mount(el, "node unreachable");
    }
}

start(draw, (e) => h("div", null, h("h1", null, "Error"), errorBox(e)));
void chainStatus();
setInterval(() => void chainStatus(), 15000);
