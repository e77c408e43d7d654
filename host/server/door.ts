/**
 * The host's door (docs/app.md "Security model"). The windows talk to the host over a loopback port, which every
 * local process and every page in the user's browser can reach; the door lets in only YUI's own windows and
 * commands. The host makes a random secret at each start. A window gets it by opening a one-time launch URL
 * (`?yui_launch=<token>`), which the host trades for an HttpOnly, SameSite=Strict cookie and a redirect to the
 * same page without the token; a local command sends it in a header (host/launch-secret.ts). The bridge, every
 * `/api/*` route and the avatars refuse a request without it, or from any origin but the host's own; every route
 * refuses a cross-site (or same-site, another port's) request before doing anything.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { HOST_SECRET_HEADER } from "../launch-secret.ts";

/** The query parameter of a launch URL. */
export const LAUNCH_PARAM = "yui_launch";

/** How many unspent launch tokens are kept (the oldest goes first): each window opened spends one. */
const MAX_LAUNCH_TOKENS = 256;

/** A refusal: the status and the words, written once. */
export interface Refusal {
  status: number;
  message: string;
}

/** The door's answers. */
export const DOOR_REFUSALS = {
  crossSite: {
    status: 403,
    message: "Forbidden: a request from another site (or another port's page) is refused",
  },
  origin: { status: 403, message: "Forbidden: only this YUI host's own pages may use this route" },
  signedOut: {
    status: 401,
    message:
      "Unauthorized: this window is not signed in to the YUI host (open YUI from the address `yui` printed when it started)",
  },
  badPath: { status: 400, message: "Bad Request: the path is not a valid URL path" },
} as const satisfies Record<string, Refusal>;

/** The door of one host start. */
export interface Door {
  /** This start's secret (the cookie's value, the secret file's content). */
  readonly secret: string;
  /** A one-time launch URL for `pageUrl` (a page of this host): opening it signs that browser in. */
  launchUrl(pageUrl: string): string;
  /** Refuses a cross-site or same-site (another port's) request by its Sec-Fetch-Site; null lets it on. */
  crossSite(req: IncomingMessage): Refusal | null;
  /** For the bridge, `/api/*` and the avatars: only the host's own origin (or none), with the secret. */
  member(req: IncomingMessage): Refusal | null;
  /** Trades a launch URL for the cookie and redirects to the page without it; false when `url` carries none. */
  exchange(req: IncomingMessage, res: ServerResponse, url: URL): boolean;
}

/** The host's own origin, as its pages send it: the loopback address and the port the request came in on. */
export function ownOrigin(req: IncomingMessage): string {
  return `http://127.0.0.1:${req.socket.localPort}`;
}

// Cookies ignore ports: a host per port keeps its own cookie name, so two hosts never overwrite each other's.
const cookieName = (req: IncomingMessage) => `yui_session_${req.socket.localPort}`;

function cookieOf(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function same(a: string | undefined, b: string): boolean {
  if (a === undefined) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Makes this start's door: a fresh secret (or the one given, for a test that restarts a host). */
export function createDoor(secret: string = randomBytes(32).toString("base64url")): Door {
  const tokens = new Set<string>();
  return {
    secret,
    launchUrl(pageUrl) {
      const token = randomBytes(24).toString("base64url");
      tokens.add(token);
      if (tokens.size > MAX_LAUNCH_TOKENS) tokens.delete(tokens.values().next().value!);
      const u = new URL(pageUrl);
      u.searchParams.set(LAUNCH_PARAM, token);
      return u.href;
    },
    crossSite(req) {
      const site = req.headers["sec-fetch-site"];
      // Same-origin requests say same-origin; same-site means another port of this machine's loopback.
      return site === "cross-site" || site === "same-site" ? DOOR_REFUSALS.crossSite : null;
    },
    member(req) {
      const origin = req.headers.origin;
      if (origin !== undefined && origin !== ownOrigin(req)) return DOOR_REFUSALS.origin;
      const header = req.headers[HOST_SECRET_HEADER];
      const ok =
        same(typeof header === "string" ? header : undefined, secret) ||
        same(cookieOf(req, cookieName(req)), secret);
      return ok ? null : DOOR_REFUSALS.signedOut;
    },
    exchange(req, res, url) {
      if (!url.searchParams.has(LAUNCH_PARAM) || (req.method !== "GET" && req.method !== "HEAD"))
        return false;
      const token = url.searchParams.get(LAUNCH_PARAM) ?? "";
      url.searchParams.delete(LAUNCH_PARAM);
      const headers: Record<string, string> = {
        location: `${url.pathname}${url.search}`,
        "cache-control": "no-store",
        "referrer-policy": "no-referrer",
      };
      // A token works once: a spent one (history, a second tab) just leads to the page, signed in or not.
      if (tokens.delete(token)) {
        headers["set-cookie"] = `${cookieName(req)}=${secret}; HttpOnly; SameSite=Strict; Path=/`;
      }
      res.writeHead(303, headers).end();
      return true;
    },
  };
}
