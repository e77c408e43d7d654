/**
 * Static files: the built UI (`dist/`) and the avatars. Paths are resolved inside their root only, HTML is
 * never cached (a rebuild shows at the next reload), hashed assets are.
 */
import { createReadStream, statSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { extname, join, normalize, resolve, sep } from "node:path";
import { decodePart } from "../net.ts";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  // onnxruntime-web loads its wasm glue as a module (dist/vad/, docs/voice.md#listening).
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".vrm": "model/gltf-binary",
  ".vrma": "model/gltf-binary",
  ".glb": "model/gltf-binary",
  ".wasm": "application/wasm",
};

/** The page shown when the UI was never built. */
export const NOT_BUILT =
  "YUI's UI is not built yet. Run `npm start` (it builds first), or `bash scripts/build.sh` and start again.";

/** Streams one file with its type; false when it is not a regular file. */
export function sendFile(req: IncomingMessage, res: ServerResponse, file: string, cache: string): boolean {
  let size: number;
  try {
    const st = statSync(file);
    if (!st.isFile()) return false;
    size = st.size;
  } catch {
    return false;
  }
  res.writeHead(200, {
    "content-type": TYPES[extname(file).toLowerCase()] ?? "application/octet-stream",
    "content-length": size,
    "cache-control": cache,
    "x-content-type-options": "nosniff",
  });
  if (req.method === "HEAD") res.end();
  // A file that goes away between the stat and the read ends this answer, never the host.
  else
    createReadStream(file)
      .on("error", () => res.destroy())
      .pipe(res);
  return true;
}

/** Serves `pathname` from `root` (index.html for `/`); false when no such file (a malformed escape included). */
export function serveStatic(
  req: IncomingMessage,
  res: ServerResponse,
  root: string,
  pathname: string,
): boolean {
  const decoded = pathname === "/" ? "index.html" : decodePart(pathname);
  if (decoded === null || decoded.includes("\0")) return false;
  const rel = decoded.replace(/^\/+/, "");
  const base = resolve(root);
  const file = resolve(base, normalize(rel));
  // Anything that resolves outside the root (../, encoded or not) is simply not found.
  if (file !== base && !file.startsWith(base + sep)) return false;
  const cache = file.endsWith(".html")
    ? "no-cache"
    : rel.startsWith("assets/")
      ? "public, max-age=31536000, immutable"
      : "no-cache";
  return sendFile(req, res, join(file), cache);
}
