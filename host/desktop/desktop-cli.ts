/**
 * `yui desktop [--port N]`: the host and the desktop shell together. The characters appear on the desktop;
 * quitting the shell (closing main's window) ends the host, and Ctrl+C ends both.
 */

import type { Monitor } from "../../shell/contract.ts";
import { getPreset } from "../../src/app/presets/presets.ts";
import { type BodyTimings, DEFAULT_TIMINGS } from "../../src/body/machine.ts";
import type { World } from "../../src/body/world.ts";
import { type BackendWatch, watchBackends } from "../backend-check.ts";
import { watchMacWorld } from "../macos/windows.ts";
import { parseHostArgs } from "../server/serve-cli.ts";
import { DEFAULT_PORT, type Host, PortInUseError, startHost } from "../server/server.ts";
import type { WorldWatcher } from "../x11/poll.ts";
import { x11Desktop } from "../x11/windows.ts";
import { createDesktopBodies, type DesktopBodies } from "./body.ts";
import { type Desktop, startDesktop } from "./desktop.ts";
import { followHandsFree } from "./hands-free-menu.ts";
import { type ReadyMessage, type ShellProcess, spawnShell } from "./shell-process.ts";
import { startTalkKey, type TalkKey } from "./talk-key.ts";

/** The usage of `yui desktop`. */
export const DESKTOP_USAGE = `usage: yui desktop [--port <0-65535>]

Starts the host on 127.0.0.1 (default port ${DEFAULT_PORT}; 0 picks a free one) and the desktop shell:
each open character in her own transparent window on top of the others. Linux: gjs + WebKitGTK 4.1 on
X11 (XWayland on Wayland). Quit with Ctrl+C, or by closing main's window.
`;

/** Parses desktop's arguments; throws with a message for the user on a bad one. */
export function parseDesktopArgs(argv: string[]): { port: number } {
  return { port: parseHostArgs(argv).port };
}

/** The tray's sign while a character's backend does not answer. */
export const NO_BACKEND = "No backend answers";

/** Runs the host and the shell until either ends; 2 for bad arguments, 1 when either cannot start. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let args: { port: number };
  let timings: Partial<BodyTimings> | undefined;
  try {
    args = parseDesktopArgs(argv);
    timings = bodyTimings(env.YUI_BODY_TIMINGS);
  } catch (e) {
    process.stderr.write(`error: ${(e as Error).message}\n${DESKTOP_USAGE}`);
    return 2;
  }
  if (process.platform === "linux" && !env.DISPLAY && !env.WAYLAND_DISPLAY) {
    process.stderr.write(
      "error: no graphical session here (DISPLAY is not set). Start the browser build with `yui serve`.\n",
    );
    return 1;
  }
  let app: DesktopApp;
  let quit!: () => void;
  const quitting = new Promise<void>((r) => {
    quit = r;
  });
  try {
    app = await startDesktopApp({ port: args.port, env, timings, onQuit: () => quit() });
  } catch (e) {
    process.stderr.write(`error: ${e instanceof PortInUseError ? e.message : (e as Error).message}\n`);
    return 1;
  }
  const { host, ready } = app;
  process.stdout.write(
    `YUI is on your desktop (host at ${host.url})\ndata: ${host.dataDir}\n` +
      `${ready.compositor ? "" : "no compositor: she is shown in a framed, opaque window (start xcompmgr, picom or your desktop's compositor for transparency)\n"}` +
      `${ready.wayland ? "Wayland: running through XWayland; other apps' native Wayland windows cannot be listed or sat on\n" : ""}` +
      "(press Ctrl+C to quit, or close main's window)\n",
  );
  const onSignal = () => quit();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  await Promise.race([quitting, app.shell.exited]);
  process.off("SIGINT", onSignal);
  process.off("SIGTERM", onSignal);
  await app.stop();
  return 0;
}

/** The desktop app running: the host, the shell, her windows and main's body. */
export interface DesktopApp {
  host: Host;
  shell: ShellProcess;
  ready: ReadyMessage;
  desktop: Desktop;
  bodies: DesktopBodies;
  /** The global hold-to-talk key, when one is bound (docs/voice.md#listening). */
  talkKey: TalkKey | null;
  /** The first run's check of the characters' backends (host/backend-check.ts). */
  backends: BackendWatch;
  /** Ends the windows, the shell and the host. */
  stop(): Promise<void>;
}

/**
 * Starts the host and the shell and opens her windows; rejects (with everything stopped) when either cannot
 * start. `onQuit` runs when the user quits from the shell (her menu, the tray, closing main's window).
 */
export async function startDesktopApp(opts: {
  port: number;
  env: NodeJS.ProcessEnv;
  dataDir?: string;
  timings?: Partial<BodyTimings>;
  onQuit: () => void;
  /** The shell's log (default: stderr). */
  log?: (line: string) => void;
  /** Main's body's log: what she does by herself, or why not (default: none). */
  bodyLog?: (line: string) => void;
}): Promise<DesktopApp> {
  // The desktop app's host mounts the browser tool's commands: the desktop windows declare the tool.
  const host = await startHost({
    port: opts.port,
    env: opts.env,
    dataDir: opts.dataDir,
    browserCommands: true,
  });
  let shell: ShellProcess;
  try {
    // The shell grants the microphone to the host's own pages only (docs/voice.md#listening).
    shell = spawnShell({
      env: { ...opts.env, YUI_HOST_ORIGIN: new URL(host.url).origin },
      log: opts.log ?? ((l) => process.stderr.write(`${l}\n`)),
    });
  } catch (e) {
    // The shell's program cannot be found or prepared (Electron's binary missing): one line, not a trace.
    await host.close();
    throw e;
  }
  let ready: ReadyMessage;
  try {
    ready = await shell.ready;
  } catch (e) {
    await shell.stop();
    await host.close();
    throw e;
  }
  const bodies = desktopBodies(shell, host, opts.env, opts.timings, ready.monitors, opts.bodyLog);
  host.body.provide(bodies);
  const desktop = startDesktop({
    shell,
    store: host.store,
    hostUrl: host.url,
    signIn: (url) => host.launchUrl(url),
    monitors: ready.monitors,
    onQuit: opts.onQuit,
    onPlaced: (id, x, y) => bodies.placed(id, x, y),
    stepAside: (id, x) => bodies.stepAside(id, x),
  });
  const log = opts.log ?? ((l) => process.stderr.write(`${l}\n`));
  const offHandsFree = followHandsFree(shell, host.store);
  const talkKey = await startTalkKey({
    shell,
    store: host.store,
    env: opts.env,
    wayland: ready.wayland,
    log,
  });
  // The tray keeps a sign while a character's backend does not answer (docs/desktop.md "The first run").
  const backends = watchBackends({
    store: host.store,
    onChange: (down) => shell.send({ type: "status", warning: down.size ? NO_BACKEND : null }),
  });
  return {
    host,
    shell,
    ready,
    desktop,
    bodies,
    talkKey,
    backends,
    async stop() {
      talkKey?.close();
      offHandsFree();
      backends.stop();
      desktop.dispose();
      host.body.provide(null);
      bodies.dispose();
      await shell.stop();
      await host.close();
    },
  };
}

/**
 * Main's body on this desktop: the window model from X11 (on Wayland through XWayland, which lists only
 * XWayland's windows: docs/body.md). `YUI_BODY_TIMINGS` (JSON, docs/body.md) scales her timings.
 */
export function desktopBodies(
  shell: ShellProcess,
  host: Host,
  env: NodeJS.ProcessEnv,
  timings: Partial<BodyTimings> | undefined,
  monitors: Monitor[],
  log?: (line: string) => void,
): DesktopBodies {
  const onError = (e: unknown) =>
    process.stderr.write(`body: reading the windows failed: ${(e as Error).message}\n`);
  // One X connection for the host (opened by main's body's watch, shared by the next one after a reload).
  const x11 = x11Desktop(env.DISPLAY ?? "", { onError });
  return createDesktopBodies({
    shell,
    store: host.store,
    broadcast: (name, payload) => host.bridge.broadcast(name, payload),
    // macOS: the window list through CoreGraphics (host/macos/), her own windows known by the shell's pid.
    // Windows has no window reader yet: no windows to sit on, the shell's monitors for move_to. Elsewhere X11
    // (on Wayland through XWayland).
    watchWorld:
      process.platform === "darwin"
        ? (onChange, pollWhile) =>
            watchMacWorld(onChange, { own: { pids: [shell.child.pid ?? -1] }, onError, pollWhile })
        : process.platform === "win32"
          ? (onChange) => watchShellMonitors(shell, monitors, onChange)
          : (onChange) => x11.watch(onChange),
    vrm: (id) => getPreset(host.store, id)?.avatar || "default",
    timings,
    // The user's idle time and the pointer over the host's X connection (no process); elsewhere unknown.
    input: process.platform === "linux" ? x11.input : undefined,
    log,
  });
}

/** `YUI_BODY_TIMINGS`: a JSON object of BodyTimings fields (milliseconds, pixels per second); bad input is an error. */
export function bodyTimings(raw: string | undefined): Partial<BodyTimings> | undefined {
  if (!raw) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new Error("YUI_BODY_TIMINGS must be a JSON object");
  }
  // The fields are the machine's own (DEFAULT_TIMINGS), so a new timing is accepted here without a second list.
  const keys = Object.keys(DEFAULT_TIMINGS);
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed))
    throw new Error("YUI_BODY_TIMINGS must be a JSON object");
  const out: Partial<BodyTimings> = {};
  for (const [k, v] of Object.entries(parsed)) {
    if (!keys.includes(k)) throw new Error(`YUI_BODY_TIMINGS: unknown field ${k}`);
    if (typeof v !== "number" || !(v > 0))
      throw new Error(`YUI_BODY_TIMINGS: ${k} must be a positive number`);
    out[k as keyof BodyTimings] = v;
  }
  return out;
}

/** A world of no windows over the shell's monitors, kept current as they change (no window reader here). */
export function watchShellMonitors(
  shell: ShellProcess,
  first: Monitor[],
  onChange: (world: World) => void,
): WorldWatcher {
  const world = (ms: Monitor[]): World => ({
    windows: [],
    monitors: ms.map((m) => ({ name: m.name, rect: m.geometry, workArea: m.workarea })),
  });
  onChange(world(first));
  const stop = shell.on((m) => {
    if (m.type === "monitors") onChange(world(m.monitors));
  });
  return { stop, refresh: async () => {}, resume: () => {} };
}
