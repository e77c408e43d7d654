/**
 * The host's routes behind its door (docs/app.md "Routes", "Security model"). Every request and upgrade goes
 * through the same checks first: a loopback Host (421) and Origin (403), then no cross-site or other port's
 * request (403); the bridge, `/api/*` and the avatars then want the host's own origin and the secret (401/403).
 * Whatever still goes wrong in a handler answers 500 and is logged: nothing a request carries ends the host.
 */
import { existsSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import type { Duplex } from "node:stream";
import { GUARD_REFUSALS, isLoopbackHost, isLoopbackOrigin, loopbackGuard } from "@yui/mod-kit";
import type { Preset } from "../../src/app/presets/preset.ts";
import type { Vocabulary } from "../../src/app/vocabulary/vocabulary.ts";
import { SESSION_PATH } from "../../src/protocol/limits.ts";
import { refuseUpgrade, requestUrl, sendError } from "../net.ts";
import type { Store } from "../store/store.ts";
import { handleListen } from "../voice/listen-route.ts";
import { handleVoice } from "../voice/route.ts";
import { handleAvatarUpload } from "./avatar-upload.ts";
import { BRIDGE_PATH, type Bridge } from "./bridge.ts";
import { DOOR_REFUSALS, type Door, type Refusal } from "./door.ts";
import { modelFile } from "./looks.ts";
import { handleProxy } from "./proxy.ts";
import { NOT_BUILT, sendFile, serveStatic } from "./static.ts";

/** `GET /api/session`: 204 for a signed-in window, the door's 401 otherwise (src/protocol/limits.ts). */
export { SESSION_PATH };

/** What the routes reach. */
export interface RouteDeps {
  door: Door;
  store: Store;
  dataDir: string;
  dist: string;
  defaultAvatar: string;
  env: NodeJS.ProcessEnv;
  vocabulary(): Vocabulary;
  apiKey(preset: Preset, destination: string): string | undefined;
  bridge: Bridge;
  push: {
    handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, url: URL): boolean;
  };
  log(line: string): void;
}

// Routes that act for the user or read their data: the bridge, the API, the avatars.
const members = (path: string) => path.startsWith("/api/") || path.startsWith("/avatar/");

const refuse = (res: ServerResponse, r: Refusal) =>
  sendError(res, r.status, r.message, { connection: "close" });

/** The HTTP request handler. */
export function createRequestHandler(deps: RouteDeps) {
  const { door, store } = deps;
  const upload = { busy: false };
  const route = (req: IncomingMessage, res: ServerResponse) => {
    if (!loopbackGuard(req, res)) return;
    res.setHeader("x-frame-options", "DENY");
    const cross = door.crossSite(req);
    if (cross) return refuse(res, cross);
    const url = requestUrl(req);
    if (!url) return refuse(res, DOOR_REFUSALS.badPath);
    const path = url.pathname;
    if (members(path)) {
      const refused = door.member(req);
      if (refused) return refuse(res, refused);
    } else if (door.exchange(req, res, url)) return;
    if (path === SESSION_PATH) {
      res.writeHead(204, { "cache-control": "no-store" }).end();
      return;
    }
    if (handleProxy(req, res, url, { kv: store, apiKey: deps.apiKey })) return;
    if (handleAvatarUpload(req, res, url, { kv: store, dataDir: deps.dataDir }, upload)) return;
    if (handleVoice(req, res, url, { kv: store, vocabulary: deps.vocabulary, env: deps.env })) return;
    if (handleListen(req, res, url, { kv: store, env: deps.env })) return;
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { "content-type": "text/plain" }).end("method not allowed");
      return;
    }
    // /avatar/<presetId>.vrm: the preset's own model when it names a .vrm file, else the generated character she
    // wears (looks.ts), else the default character.
    const avatar = /^\/avatar\/([a-z0-9_-]+)\.vrm$/.exec(path);
    if (avatar) {
      const file = modelFile(store, avatar[1]!, deps.defaultAvatar);
      if (sendFile(req, res, file, "no-cache") || sendFile(req, res, deps.defaultAvatar, "no-cache")) return;
      res.writeHead(404, { "content-type": "text/plain" }).end("no avatar model");
      return;
    }
    if (serveStatic(req, res, deps.dist, path)) return;
    if (!existsSync(join(deps.dist, "index.html"))) {
      res.writeHead(503, { "content-type": "text/plain; charset=utf-8" }).end(NOT_BUILT);
      return;
    }
    res.writeHead(404, { "content-type": "text/plain" }).end("not found");
  };
  return (req: IncomingMessage, res: ServerResponse): void => {
    try {
      route(req, res);
    } catch (e) {
      // The last line: an error no handler expected is this request's 500, logged, and the host goes on.
      deps.log(`host: ${req.method} ${String(req.url).slice(0, 200)} failed: ${(e as Error)?.stack ?? e}`);
      if (!res.headersSent) sendError(res, 500, "internal error", { connection: "close" });
      else res.destroy();
    }
  };
}

/** The upgrade handler: the bridge and the push relay, behind the same door as the requests. */
export function createUpgradeHandler(deps: RouteDeps) {
  const { door } = deps;
  const route = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (!isLoopbackHost(req.headers.host)) return refuseUpgrade(socket, 421, GUARD_REFUSALS.host.message);
    if (!isLoopbackOrigin(req.headers.origin))
      return refuseUpgrade(socket, 403, GUARD_REFUSALS.origin.message);
    const refused = door.crossSite(req) ?? door.member(req);
    if (refused) return refuseUpgrade(socket, refused.status, refused.message);
    const url = requestUrl(req);
    if (!url) return refuseUpgrade(socket, DOOR_REFUSALS.badPath.status, DOOR_REFUSALS.badPath.message);
    if (url.pathname === BRIDGE_PATH) return deps.bridge.handleUpgrade(req, socket, head);
    if (deps.push.handleUpgrade(req, socket, head, url)) return;
    refuseUpgrade(socket, 404, "not found");
  };
  return (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    // A socket error after the handshake began (the peer reset it) is this connection's end, not the host's.
    socket.on("error", () => socket.destroy());
    try {
      route(req, socket, head);
    } catch (e) {
      deps.log(`host: upgrade ${String(req.url).slice(0, 200)} failed: ${(e as Error)?.stack ?? e}`);
      refuseUpgrade(socket, 500, "internal error");
    }
  };
}
