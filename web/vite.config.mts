// The explorer's build: plain TypeScript bundled by Vite into web/dist, which
// `credence node` serves as static files with an index.html fallback for the app's routes.
// Everything ships in the bundle: no CDN, no web font, no request leaves the node's origin.
import { defineConfig } from "vite";

export default defineConfig({
    base: "/",
    publicDir: false,
    build: {
        outDir: "dist",
        emptyOutDir: true,
        target: "es2022",
        sourcemap: false,
        assetsInlineLimit: 0,
        reportCompressedSize: false,
    },
    server: {
        host: "127.0.0.1",
        // `npx vite` in web/ proxies the API to a node on its default port, for development.
        proxy: { "/api": "http://127.0.0.1:8004" },
    },
});
