/**
 * The backend proxy: `/api/backend/<presetId>/v1/<path>` forwards the engine's requests to the preset's own
 * base URL, adding the API key the host holds. Only the OpenAI-compatible paths pass (chat/completions,
 * responses, models); bodies stream unbuffered both ways, and a backend that is down answers a 502 whose
 * message says so in plain words. No key ever travels back to the page.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { Preset } from "../../src/app/presets/preset.ts";
import { getPreset, type KeyValue } from "../../src/app/presets/presets.ts";
import { PROXY_PREFIX } from "../../src/protocol/limits.ts";
import { HOST_SECRET_HEADER } from "../launch-secret.ts";
import { decodePart, reasonOf, sendError } from "../net.ts";

/** The route prefix the page points the engine's baseUrl at: `${PROXY_PREFIX}<presetId>/v1`. */
export { PROXY_PREFIX };

/** The paths under /v1 the proxy forwards, and the methods each takes. */
export const PROXIED_PATHS: Record<string, readonly string[]> = {
  "chat/completions": ["POST"],
  responses: ["POST"],
  models: ["GET"],
};

/** The proxy's own answers, written once. */
export const PROXY_ERRORS = {
  notFound: "not a proxied path: only chat/completions, responses and models are forwarded",
  unknownPreset: (id: string) => `unknown preset ${id}`,
  badPreset: "the preset id in the path is not valid",
  badBaseUrl: (name: string) =>
    `${name}'s backend base URL is not a plain http(s) URL (no query, no #fragment): change it in settings`,
  noBaseUrl: (name: string) => `${name} has no backend base URL: set one in settings`,
  unreachable: (url: string, reason: string) =>
    `The backend at ${url} is not reachable (${reason}). Check that it is running, or change the base URL in settings.`,
  method: "method not allowed",
} as const;

// Hop-by-hop and credential headers never cross the proxy in either direction.
const DROP_REQUEST = new Set([
  "host",
  "origin",
  "referer",
  "cookie",
  "authorization",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "upgrade",
  "content-length",
  "accept-encoding",
  // The host's own secret (a local command's) never leaves the host.
  HOST_SECRET_HEADER,
]);
const KEEP_RESPONSE = ["content-type", "cache-control", "x-request-id", "openai-processing-ms"];

export interface ProxyDeps {
  kv: KeyValue;
  /** The key for a preset's backend when it may go to `destination`, host-side only (host/keys.ts). */
  apiKey(preset: Preset, destination: string): string | undefined;
}

/** Handles one proxied request (`url`: the request's, requestUrl); false when it is not under PROXY_PREFIX. */
export function handleProxy(req: IncomingMessage, res: ServerResponse, url: URL, deps: ProxyDeps): boolean {
  if (!url.pathname.startsWith(PROXY_PREFIX)) return false;
  const m = /^([^/]+)\/v1\/(.+)$/.exec(url.pathname.slice(PROXY_PREFIX.length));
  const path = m?.[2];
  const methods = path ? PROXIED_PATHS[path] : undefined;
  if (!m || !path || !methods) {
    sendError(res, 404, PROXY_ERRORS.notFound);
    return true;
  }
  if (!methods.includes(req.method ?? "")) {
    sendError(res, 405, PROXY_ERRORS.method);
    return true;
  }
  const presetId = decodePart(m[1]!);
  if (presetId === null) {
    sendError(res, 400, PROXY_ERRORS.badPreset);
    return true;
  }
  const preset = getPreset(deps.kv, presetId);
  if (!preset) {
    sendError(res, 404, PROXY_ERRORS.unknownPreset(presetId));
    return true;
  }
  const base = preset.backend.base_url;
  if (!base) {
    sendError(res, 400, PROXY_ERRORS.noBaseUrl(preset.name));
    return true;
  }
  const upstream = upstreamUrl(base, path);
  if (!upstream) {
    sendError(res, 400, PROXY_ERRORS.badBaseUrl(preset.name));
    return true;
  }
  forward(req, res, upstream, base.replace(/\/+$/, ""), deps.apiKey(preset, upstream.href));
  return true;
}

/**
 * `<base>/<path>` as a URL, or null when the base is not a plain http(s) URL: a query or a fragment in it would
 * turn the path into part of them (a base ending in `?` made every call a GET of the base itself).
 */
export function upstreamUrl(base: string, path: string): URL | null {
  let u: URL;
  try {
    u = new URL(base);
  } catch {
    return null;
  }
  if (
    (u.protocol !== "http:" && u.protocol !== "https:") ||
    u.search ||
    u.hash ||
    base.includes("?") ||
    base.includes("#")
  )
    return null;
  u.pathname = `${u.pathname.replace(/\/+$/, "")}/${path}`;
  return u;
}

function forward(
  req: IncomingMessage,
  res: ServerResponse,
  upstreamUrl: URL,
  base: string,
  key: string | undefined,
): void {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && !DROP_REQUEST.has(name)) headers[name] = value;
  }
  if (key) headers.authorization = `Bearer ${key}`;
  const send = upstreamUrl.protocol === "https:" ? httpsRequest : httpRequest;
  const upstream = send(upstreamUrl, { method: req.method, headers }, (up) => {
    const out: Record<string, string | string[]> = {};
    for (const name of KEEP_RESPONSE) {
      const v = up.headers[name];
      if (v !== undefined) out[name] = v;
    }
    try {
      res.writeHead(up.statusCode ?? 502, up.statusMessage, out);
    } catch {
      // A status line Node will not repeat (a reason phrase with control characters): this answer ends here.
      up.destroy();
      res.destroy();
      return;
    }
    // Streamed answers go out chunk by chunk: headers now, then every chunk as it arrives.
    res.flushHeaders();
    res.socket?.setNoDelay(true);
    up.on("data", (chunk: Buffer) => res.write(chunk));
    up.on("end", () => res.end());
    up.on("error", () => res.destroy());
  });
  upstream.on("error", (err) => {
    if (res.headersSent) res.destroy();
    else sendError(res, 502, PROXY_ERRORS.unreachable(base, reasonOf(err)));
  });
  // The page stopped the turn (or went away): stop the backend's work too.
  res.on("close", () => {
    if (!res.writableFinished) upstream.destroy();
  });
  upstream.setNoDelay(true);
  req.pipe(upstream);
}
