/**
 * The host's HTTP server (docs/app.md): one listener on 127.0.0.1 for the built UI, the avatars, the bridge,
 * the backend proxy and the push relay, behind the host's door (routes.ts, door.ts): loopback Host and Origin,
 * no cross-site request, and the launch secret for the bridge, `/api/*` and the avatars.
 */

import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { listenLoopback } from "@yui/mod-kit";
import type { Preset } from "../../src/app/presets/preset.ts";
import { switchStates } from "../../src/app/switches.ts";
import { createCommandTable } from "../commands.ts";
import { followAgentNotify, SIGNAL_EVENT } from "../ingress/ingress.ts";
import { backendKey, followKeyBindings } from "../keys.ts";
import { removeHostSecret, writeHostSecret } from "../launch-secret.ts";
import { refuseUpgrade, trackSockets } from "../net.ts";
import { dataDir } from "../paths.ts";
import { openStore, type Store } from "../store/store.ts";
import { fileVocabulary, VOCABULARY_FILE } from "../vocabulary-source.ts";
import { registerVoiceCommands } from "../voice/commands.ts";
import { registerListenCommands } from "../voice/listen-commands.ts";
import { registerAppCommands } from "./app-commands.ts";
import { type BodySlot, createBodySlot, registerBodyCommands } from "./body-slot.ts";
import { type Bridge, createBridge } from "./bridge.ts";
import { seedDefaults } from "./defaults.ts";
import { createDoor } from "./door.ts";
import { createPushRelay } from "./push-relay.ts";
import { createRequestHandler, createUpgradeHandler } from "./routes.ts";

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
  /**
   * Mount the browser tool's commands (`browser_run`, `browser_guide`): the desktop app's host only. The
   * browser build declares no browser tool, so its host has none to run either. Default false.
   */
  browserCommands?: boolean;
  /** The launch secret; default a fresh random one at each start. Only a test restarting "the same" host sets it. */
  secret?: string;
  /** Where the host reports what it refused or survived; default stderr. */
  log?: (line: string) => void;
}

export interface Host {
  /** The host's address (`http://127.0.0.1:<port>/`): its pages, without a way in. */
  url: string;
  /** This start's launch secret: local commands send it as `x-yui-secret` (host/launch-secret.ts). */
  secret: string;
  /** A one-time launch URL of `pageUrl` (default the host's page): opening it signs that browser in. */
  launchUrl(pageUrl?: string): string;
  /** The data directory in use (store, vocabulary). */
  dataDir: string;
  port: number;
  store: Store;
  bridge: Bridge;
  /** Main's avatar executor: a desktop provides bodies, main's desktop window attaches one (docs/body.md). */
  body: BodySlot;
  close(): Promise<void>;
}

/** Starts the host on 127.0.0.1; rejects with PortInUseError when the port is taken. */
export async function startHost(opts: HostOptions = {}): Promise<Host> {
  const env = opts.env ?? process.env;
  const dir = opts.dataDir ?? dataDir(env);
  const dist = opts.distDir ?? join(REPO, "dist");
  const defaultAvatar = opts.defaultAvatar ?? join(REPO, ".cache", "avatar", "default.vrm");
  const store = openStore(dir);
  seedDefaults(store, env);
  // Each key only where it was saved for (host/keys.ts); plain keys bound, moved ones dropped, as the store changes.
  const apiKey = (preset: Preset, destination: string) => backendKey(store, preset, destination, env);
  const vocabulary = fileVocabulary(join(dir, VOCABULARY_FILE));
  const offKeys = followKeyBindings(store, vocabulary);
  const commands = createCommandTable();
  await registerAppCommands(commands, {
    store,
    apiKey,
    vocabularyFile: join(dir, VOCABULARY_FILE),
    browser: opts.browserCommands === true,
  });
  registerVoiceCommands(commands, store, vocabulary);
  registerListenCommands(commands, store);
  const body = createBodySlot();
  registerBodyCommands(commands, body, () => switchStates(store).screen);
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const bridge = createBridge(commands, store, log);
  const push = createPushRelay({ kv: store, apiKey });
  const door = createDoor(opts.secret);
  const routes = {
    door,
    store,
    dataDir: dir,
    dist,
    defaultAvatar,
    env,
    vocabulary,
    apiKey,
    bridge,
    push,
    log,
  };
  const server = createServer(createRequestHandler(routes));
  server.on("upgrade", createUpgradeHandler(routes));
  // CONNECT (a proxy's tunnel) is nothing the host serves: a clear 405, where Node would just hang up.
  server.on("connect", (_req, socket) => refuseUpgrade(socket, 405, "method not allowed"));
  const sockets = trackSockets(server);

  const want = opts.port ?? DEFAULT_PORT;
  try {
    await listenLoopback(server, want);
  } catch (e) {
    offKeys();
    bridge.close();
    push.close();
    store.close();
    if ((e as { code?: string }).code === "EADDRINUSE") throw new PortInUseError(want);
    throw e;
  }
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}/`;
  writeHostSecret(dir, port, door.secret);
  // The loopback ingress for mods (docs/signals-ingress.md), bound only while agent-notify is on. Signals reach
  // the windows as a bridge event; the avatar routes reach main's body while one is attached, else `unsupported`.
  const ingress = followAgentNotify(store, {
    // The id lets exactly one window claim the signal's turn (`signal_claim`), however many are open.
    onSignal: (signal) => bridge.broadcast(SIGNAL_EVENT, { id: randomUUID(), ...signal }),
    executor: () => body.current(),
  });
  return {
    url,
    secret: door.secret,
    launchUrl: (pageUrl = url) => door.launchUrl(pageUrl),
    dataDir: dir,
    port,
    store,
    bridge,
    body,
    async close() {
      await ingress.close();
      offKeys();
      body.provide(null);
      bridge.close();
      push.close();
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
      removeHostSecret(dir, port, door.secret);
      store.close();
    },
  };
}
