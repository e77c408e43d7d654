/**
 * The host's HTTP server (docs/app.md): one listener on 127.0.0.1 for the built UI, the avatars, the bridge,
 * the backend proxy and the push relay. Every route, static files and WebSocket upgrades included, refuses
 * a non-loopback Host (421) and a non-loopback Origin (403).
 */

import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, isAbsolute, join, resolve } from "node:path";
import type { Duplex } from "node:stream";
import { fileURLToPath } from "node:url";
import {
  GUARD_REFUSALS,
  isLoopbackHost,
  isLoopbackOrigin,
  listenLoopback,
  loopbackGuard,
} from "@yui/mod-kit";
import type { Preset } from "../../src/app/presets/preset.ts";
import { getPreset } from "../../src/app/presets/presets.ts";
import { createCommandTable } from "../commands.ts";
import { followAgentNotify, SIGNAL_EVENT } from "../ingress/ingress.ts";
import { trackSockets } from "../net.ts";
import { dataDir } from "../paths.ts";
import { openStore, type Store } from "../store/store.ts";
import { fileVocabulary, VOCABULARY_FILE } from "../vocabulary-source.ts";
import { registerVoiceCommands } from "../voice/commands.ts";
import { registerListenCommands } from "../voice/listen-commands.ts";
import { handleListen } from "../voice/listen-route.ts";
import { handleVoice } from "../voice/route.ts";
import { registerAppCommands } from "./app-commands.ts";
import { handleAvatarUpload } from "./avatar-upload.ts";
import { type BodySlot, createBodySlot, registerBodyCommands } from "./body-slot.ts";
import { BRIDGE_PATH, type Bridge, createBridge } from "./bridge.ts";
import { apiKeyFor, seedDefaults } from "./defaults.ts";
import { handleProxy } from "./proxy.ts";
import { createPushRelay } from "./push-relay.ts";
import { NOT_BUILT, sendFile, serveStatic } from "./static.ts";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** The port `yui` listens on unless told otherwise. */
export const DEFAULT_PORT = 8777;

/** The listen failure for a port already taken: names the port and how to choose another. */
export class PortInUseError extends Error {
  constructor(readonly port: number) {
    super(
      `port ${port} on 127.0.0.1 is already in use (another YUI, or another program). ` +
        `Choose another port with --port <number>, e.g. yui --port ${port + 1}, or --port 0 for any free port.`,
    );
    this.name = "PortInUseError";
  }
}

export interface HostOptions {
  port?: number;
  /** The data directory (store, vocabulary); default dataDir(). */
  dataDir?: string;
  /** The built UI; default <repo>/dist. */
  distDir?: string;
  /** The default avatar; default <repo>/.cache/avatar/default.vrm. */
  defaultAvatar?: string;
  env?: NodeJS.ProcessEnv;
  /** Skip the browser tool's commands (tests that do not need them). */
  browserCommands?: boolean;
}

export interface Host {
  url: string;
  /** The data directory in use (store, vocabulary). */
  dataDir: string;
  port: number;
  store: Store;
  bridge: Bridge;
  /** Main's avatar executor: a desktop provides bodies, main's desktop window attaches one (docs/body.md). */
  body: BodySlot;
  close(): Promise<void>;
}

function refuseUpgrade(socket: Duplex, status: number, message: string): void {
  const body = JSON.stringify({ error: { message } });
  socket.end(
    `HTTP/1.1 ${status} ${status === 421 ? "Misdirected Request" : status === 403 ? "Forbidden" : "Not Found"}\r\n` +
      `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/** Starts the host on 127.0.0.1; rejects with PortInUseError when the port is taken. */
export async function startHost(opts: HostOptions = {}): Promise<Host> {
  const env = opts.env ?? process.env;
  const dir = opts.dataDir ?? dataDir(env);
  const dist = opts.distDir ?? join(REPO, "dist");
  const defaultAvatar = opts.defaultAvatar ?? join(REPO, ".cache", "avatar", "default.vrm");
  const store = openStore(dir);
  seedDefaults(store, env);
  const apiKey = (preset: Preset) => apiKeyFor(store, preset, env);
  const commands = createCommandTable();
  await registerAppCommands(commands, {
    store,
    apiKey,
    vocabularyFile: join(dir, VOCABULARY_FILE),
    browser: opts.browserCommands,
  });
  registerVoiceCommands(commands, store);
  registerListenCommands(commands, store);
  const body = createBodySlot();
  registerBodyCommands(commands, body);
  const vocabulary = fileVocabulary(join(dir, VOCABULARY_FILE));
  const bridge = createBridge(commands, store);
  const push = createPushRelay({ kv: store, apiKey });

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    if (!loopbackGuard(req, res)) return;
    res.setHeader("x-frame-options", "DENY");
    if (handleProxy(req, res, { kv: store, apiKey })) return;
    if (handleAvatarUpload(req, res, { kv: store, dataDir: dir })) return;
    if (handleVoice(req, res, { kv: store, vocabulary, env })) return;
    if (handleListen(req, res, { kv: store, env })) return;
    const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { "content-type": "text/plain" }).end("method not allowed");
      return;
    }
    // /avatar/<presetId>.vrm: the preset's own model when it names a .vrm file, else the default character.
    const avatar = /^\/avatar\/([a-z0-9_-]+)\.vrm$/.exec(path);
    if (avatar) {
      const p = getPreset(store, avatar[1]!);
      const own = p?.avatar && isAbsolute(p.avatar) && p.avatar.endsWith(".vrm") ? p.avatar : undefined;
      if ((own && sendFile(req, res, own, "no-cache")) || sendFile(req, res, defaultAvatar, "no-cache"))
        return;
      res.writeHead(404, { "content-type": "text/plain" }).end("no avatar model");
      return;
    }
    if (serveStatic(req, res, dist, path)) return;
    if (!existsSync(join(dist, "index.html"))) {
      res.writeHead(503, { "content-type": "text/plain; charset=utf-8" }).end(NOT_BUILT);
      return;
    }
    res.writeHead(404, { "content-type": "text/plain" }).end("not found");
  };

  const server = createServer(onRequest);
  server.on("upgrade", (req, socket, head) => {
    if (!isLoopbackHost(req.headers.host)) return refuseUpgrade(socket, 421, GUARD_REFUSALS.host.message);
    if (!isLoopbackOrigin(req.headers.origin))
      return refuseUpgrade(socket, 403, GUARD_REFUSALS.origin.message);
    const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
    if (path === BRIDGE_PATH) return bridge.handleUpgrade(req, socket, head);
    if (push.handleUpgrade(req, socket, head)) return;
    refuseUpgrade(socket, 404, "not found");
  });
  const sockets = trackSockets(server);

  const want = opts.port ?? DEFAULT_PORT;
  try {
    await listenLoopback(server, want);
  } catch (e) {
    bridge.close();
    push.close();
    store.close();
    if ((e as { code?: string }).code === "EADDRINUSE") throw new PortInUseError(want);
    throw e;
  }
  const { port } = server.address() as AddressInfo;
  // The loopback ingress for mods (docs/signals-ingress.md), bound only while agent-notify is on. Signals reach
  // the windows as a bridge event; the avatar routes reach main's body while one is attached, else `unsupported`.
  const ingress = followAgentNotify(store, {
    // The id lets exactly one window claim the signal's turn (`signal_claim`), however many are open.
    onSignal: (signal) => bridge.broadcast(SIGNAL_EVENT, { id: randomUUID(), ...signal }),
    executor: () => body.current(),
  });
  return {
    url: `http://127.0.0.1:${port}/`,
    dataDir: dir,
    port,
    store,
    bridge,
    body,
    async close() {
      await ingress.close();
      body.provide(null);
      bridge.close();
      push.close();
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
      store.close();
    },
  };
}
