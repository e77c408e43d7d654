import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig, type Plugin } from "vite";

const require = createRequire(import.meta.url);

/**
 * Listening's voice activity detector runs from files the install brought (docs/voice.md#listening): Silero
 * VAD and its AudioWorklet from @ricky0123/vad-web, onnxruntime-web's wasm. They are served under /vad/ (the
 * dev server) and written to dist/vad/ (the build); nothing is fetched from a CDN or a hub at run time.
 */
function vadAssets(): Plugin {
  // The packages' folders, from their main entries (onnxruntime-web exports no package.json).
  const root = (pkg: string) => {
    const entry = require.resolve(pkg);
    return entry.slice(0, entry.lastIndexOf(`/node_modules/${pkg}/`) + `/node_modules/${pkg}`.length);
  };
  const vad = root("@ricky0123/vad-web");
  const ort = root("onnxruntime-web");
  const files = [
    join(vad, "dist/silero_vad_v5.onnx"),
    join(vad, "dist/vad.worklet.bundle.min.js"),
    join(ort, "dist/ort-wasm-simd-threaded.mjs"),
    join(ort, "dist/ort-wasm-simd-threaded.wasm"),
  ];
  const byName = new Map(files.map((f) => [basename(f), f]));
  const types: Record<string, string> = {
    ".onnx": "application/octet-stream",
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".wasm": "application/wasm",
  };
  return {
    name: "yui-vad-assets",
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        const m = /^\/vad\/([^/?]+)/.exec(req.url ?? "");
        const file = m ? byName.get(m[1]!) : undefined;
        if (!file) return next();
        res.setHeader("content-type", types[file.slice(file.lastIndexOf("."))] ?? "application/octet-stream");
        res.end(readFileSync(file));
      });
    },
    generateBundle() {
      for (const f of files)
        this.emitFile({ type: "asset", fileName: `vad/${basename(f)}`, source: readFileSync(f) });
    },
  };
}

// The browser build: src/ui is the page's root, the output goes to dist/ at the repository root, where the
// host serves it (host/server/static.ts). Everything stays on 127.0.0.1.
export default defineConfig({
  root: fileURLToPath(new URL("./src/ui", import.meta.url)),
  base: "/",
  publicDir: false,
  plugins: [vadAssets()],
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
