// Reads other applications' windows and the monitors from EWMH on X11 through xprop, xwininfo and xrandr
// child processes (argument arrays, no shell), and polls for changes (docs/body.md "X11").
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import type { World } from "../../src/body/world.ts";
import {
  assembleWorld,
  CLIENT_PROPS,
  type ClientReading,
  parseCardinals,
  parseMonitors,
  parseWindowIds,
  parseWmClass,
  parseXprop,
  parseXwininfo,
  ROOT_PROPS,
} from "./parse.ts";

/** Runs an X utility and answers its stdout, or null when it failed (e.g. the window went away meanwhile). */
export type XRun = (file: string, args: readonly string[]) => Promise<string | null>;

/** The real runner for a display; LC_ALL=C.UTF-8 so that xprop prints UTF-8 titles raw. */
export function xRunner(display: string, env: NodeJS.ProcessEnv = process.env): XRun {
  const childEnv = { ...env, DISPLAY: display, LC_ALL: "C.UTF-8" };
  return (file, args) =>
    new Promise((resolve) => {
      execFile(file, [...args], { env: childEnv, timeout: 5000, maxBuffer: 4 << 20 }, (err, stdout) =>
        resolve(err ? null : stdout),
      );
    });
}

/** Reads the process name of a pid (/proc/<pid>/comm), null when there is none. */
export type CommReader = (pid: number) => Promise<string | null>;
export const procComm: CommReader = (pid) =>
  readFile(`/proc/${pid}/comm`, "utf8").then(
    (s) => s.trim() || null,
    () => null,
  );

/** One reading of the desktop: the root's properties, each client's properties and geometry, the monitors. */
export async function readWorld(run: XRun, comm: CommReader = procComm): Promise<World> {
  const [rootOut, monOut] = await Promise.all([
    run("xprop", ["-root", "-notype", ...ROOT_PROPS]),
    run("xrandr", ["--listactivemonitors"]),
  ]);
  if (rootOut === null) throw new Error("xprop could not read the root window (is DISPLAY an X server?)");
  const root = parseXprop(rootOut);
  const ids = parseWindowIds(root.get("_NET_CLIENT_LIST_STACKING"));
  const clients = await Promise.all(
    ids.map(async (id): Promise<ClientReading | null> => {
      const [p, g] = await Promise.all([
        run("xprop", ["-notype", "-id", id, ...CLIENT_PROPS]),
        run("xwininfo", ["-id", id]),
      ]);
      const geometry = g === null ? null : parseXwininfo(g);
      if (p === null || geometry === null) return null; // gone between the list and the read
      const props = parseXprop(p);
      const reading: ClientReading = { id, props, geometry };
      if (!parseWmClass(props.get("WM_CLASS"))) {
        const pid = parseCardinals(props.get("_NET_WM_PID"))[0];
        if (pid !== undefined) reading.comm = await comm(pid);
      }
      return reading;
    }),
  );
  return assembleWorld(
    root,
    clients.filter((c): c is ClientReading => c !== null),
    parseMonitors(monOut ?? ""),
  );
}

/** The root properties whose change makes watchWorld read at once (xprop -spy). */
export const SPIED_ROOT_PROPS = [
  "_NET_CLIENT_LIST_STACKING",
  "_NET_CURRENT_DESKTOP",
  "_NET_WORKAREA",
  "_NET_ACTIVE_WINDOW",
] as const;

/** A running watch of the window model. */
export interface WorldWatcher {
  /** Ends the watch (and its spy process). */
  stop(): void;
  /** Reads now; resolves once a reading that started after this call is in (and told, if it changed). */
  refresh(): Promise<void>;
  /** Polls again (from a reading intervalMs from now) if it had stopped because `pollWhile` said so. */
  resume(): void;
}

/** What a watch polls while nothing announces a change. */
export interface PollOptions {
  /** Between readings, in ms (default 500). */
  intervalMs?: number;
  /**
   * Whether to keep polling after a reading (default: always). While it answers false only X events and
   * refresh() read, so nothing runs while she stands still and nothing changes; refresh() starts polling again.
   */
  pollWhile?: () => boolean;
  onError?: (e: unknown) => void;
}

/**
 * Calls `read` now and again and `onChange` with each reading that differs from the last (and the first):
 * readings never overlap, a request during one runs one more after it, and polling follows PollOptions.
 */
export function pollWorld(
  read: () => Promise<World>,
  onChange: (world: World) => void,
  opts: PollOptions = {},
): WorldWatcher & { tick(): void } {
  let stopped = false;
  let last = "";
  let timer: NodeJS.Timeout | undefined;
  let reading = false;
  let again = false;
  // Waiters for the next reading to start, and for the one running now.
  let queued: (() => void)[] = [];
  const tick = async () => {
    clearTimeout(timer);
    timer = undefined;
    if (stopped) return;
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    const waiting = queued;
    queued = [];
    try {
      const world = await read();
      const key = JSON.stringify(world);
      if (!stopped && key !== last) {
        last = key;
        onChange(world);
      }
    } catch (e) {
      opts.onError?.(e);
    }
    reading = false;
    for (const w of waiting) w();
    if (stopped) return;
    if (again || queued.length) {
      again = false;
      void tick();
    } else if (opts.pollWhile?.() ?? true) timer = setTimeout(tick, opts.intervalMs ?? 500);
  };
  void tick();
  return {
    tick: () => void tick(),
    resume() {
      if (!stopped && !reading && timer === undefined) timer = setTimeout(tick, opts.intervalMs ?? 500);
    },
    refresh: () =>
      new Promise<void>((resolve) => {
        if (stopped) return resolve();
        queued.push(resolve);
        void tick();
      }),
    stop() {
      stopped = true;
      clearTimeout(timer);
      for (const w of queued.splice(0)) w();
    },
  };
}

/**
 * Watches the X11 window model (pollWorld over readWorld). With spy (a display), `xprop -spy -root` reports
 * the stacking list, the workspace, the work area and the active window as X events, and each event triggers a
 * read at once (windows opened, closed, restacked or activated, workspace switches). No root property
 * announces a window moved or resized, so polling remains for those while `pollWhile` says they matter
 * (ConfigureNotify on the frames through an X protocol client would be the next step).
 */
export function watchWorld(
  run: XRun,
  onChange: (world: World) => void,
  opts: PollOptions & { comm?: CommReader; spy?: { display: string; env?: NodeJS.ProcessEnv } } = {},
): WorldWatcher {
  const watch = pollWorld(() => readWorld(run, opts.comm), onChange, opts);
  let spy: ChildProcess | undefined;
  if (opts.spy) {
    spy = spawn("xprop", ["-spy", "-root", "-notype", ...SPIED_ROOT_PROPS], {
      env: { ...(opts.spy.env ?? process.env), DISPLAY: opts.spy.display, LC_ALL: "C.UTF-8" },
      stdio: ["ignore", "pipe", "ignore"],
    });
    spy.stdout!.on("data", () => watch.tick());
    spy.on("error", (e) => opts.onError?.(e));
  }
  return {
    refresh: watch.refresh,
    resume: watch.resume,
    stop() {
      watch.stop();
      spy?.kill();
    },
  };
}
