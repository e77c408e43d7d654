import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

// The browser build: src/ui is the page's root, the output goes to dist/ at the repository root, where the
// host serves it (host/server/static.ts). Everything stays on 127.0.0.1.
export default defineConfig({
  root: fileURLToPath(new URL("./src/ui", import.meta.url)),
  base: "/",
  publicDir: false,
  build: {
    outDir: fileURLToPath(new URL("./dist", import.meta.url)),
    emptyOutDir: true,
    target: "es2022",
    chunkSizeWarningLimit: 2000,
    reportCompressedSize: false,
  },
  server: { host: "127.0.0.1", strictPort: false },
  preview: { host: "127.0.0.1" },
});
