import type { IncomingMessage, ServerResponse } from "node:http";
import { sendJson } from "./http-body.ts";

// The only names the spec accepts as loopback. Deliberately not "any 127.0.0.0/8 address": the spec
// lists names, and a DNS-rebinding attack always arrives with the attacker's name in Host.
const LOOPBACK_HOSTNAMES = new Set(["127.0.0.1", "localhost", "::1"]);

/** Strips an optional :port (and IPv6 brackets) from a Host value; undefined when it is malformed. */
function hostnameOf(host: string): string | undefined {
  const h = host.trim().toLowerCase();
  if (h.startsWith("[")) {
    const end = h.indexOf("]");
    if (end < 0) return undefined;
    const rest = h.slice(end + 1);
    if (rest !== "" && !/^:\d{1,5}$/.test(rest)) return undefined;
    return h.slice(1, end);
  }
  // A bare IPv6 literal has several colons and cannot carry a port without brackets.
  if (h === "::1") return h;
  const colon = h.indexOf(":");
  if (colon < 0) return h;
  if (!/^:\d{1,5}$/.test(h.slice(colon))) return undefined;
  return h.slice(0, colon);
}

/** true for 127.0.0.1, localhost, ::1 / [::1], with or without :port (case-insensitive). */
export function isLoopbackHost(host: string | undefined): boolean {
  if (!host) return false;
  const name = hostnameOf(host);
  return name !== undefined && LOOPBACK_HOSTNAMES.has(name);
}

/** true when no Origin header, or Origin's hostname is loopback. */
export function isLoopbackOrigin(origin: string | undefined): boolean {
  // A local process (curl, an SDK client, the agent over the tunnel) sends no Origin: it is served.
  if (origin === undefined) return true;
  // "null" (sandboxed iframe, file://) and anything unparsable come from a browser we cannot place.
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  const name = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  return LOOPBACK_HOSTNAMES.has(name.toLowerCase());
}

/** The guard's answers, written once: status and JSON-RPC error message per refusal. */
export const GUARD_REFUSALS = {
  host: { status: 421, message: "Misdirected Request: Host is not a loopback name" },
  origin: { status: 403, message: "Forbidden: Origin is not loopback" },
} as const;

/** Answers a refusal as a JSON-RPC error body (what an MCP client expects to parse). */
function refuse(res: ServerResponse, refusal: { status: number; message: string }): void {
  const body = { jsonrpc: "2.0", error: { code: -32000, message: refusal.message }, id: null };
  sendJson(res, refusal.status, body, { connection: "close" });
}

/** node:http guard: answers 421 (bad Host) / 403 (bad Origin) and returns false; true when the request may go on. */
export function loopbackGuard(req: IncomingMessage, res: ServerResponse): boolean {
  if (!isLoopbackHost(req.headers.host)) {
    refuse(res, GUARD_REFUSALS.host);
    return false;
  }
  if (!isLoopbackOrigin(req.headers.origin)) {
    refuse(res, GUARD_REFUSALS.origin);
    return false;
  }
  return true;
}
