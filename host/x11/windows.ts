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

/**
 * Reads the world now and again, and calls onChange with each reading that differs from the last (and the first).
 * With spy (a display), `xprop -spy -root` reports the stacking list, the workspace, the work area and the active
 * window as X events, and each event triggers a read at once; polling every intervalMs remains for what no root
 * property announces (a window moved or resized: ConfigureNotify on the frames would need an X protocol client,
 * the next step). Answers a stop function, which also ends the spy process.
 */
export function watchWorld(
  run: XRun,
  onChange: (world: World) => void,
  opts: {
    intervalMs?: number;
    onError?: (e: unknown) => void;
    comm?: CommReader;
    spy?: { display: string; env?: NodeJS.ProcessEnv };
  } = {},
): () => void {
  let stopped = false;
  let last = "";
  let timer: NodeJS.Timeout | undefined;
  let reading = false;
  let again = false;
  const tick = async () => {
    clearTimeout(timer);
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    try {
      const world = await readWorld(run, opts.comm);
      const key = JSON.stringify(world);
      if (!stopped && key !== last) {
        last = key;
        onChange(world);
      }
    } catch (e) {
      opts.onError?.(e);
    }
    reading = false;
    if (stopped) return;
    if (again) {
      again = false;
      void tick();
    } else timer = setTimeout(tick, opts.intervalMs ?? 500);
  };
  let spy: ChildProcess | undefined;
  if (opts.spy) {
    spy = spawn("xprop", ["-spy", "-root", "-notype", ...SPIED_ROOT_PROPS], {
      env: { ...(opts.spy.env ?? process.env), DISPLAY: opts.spy.display, LC_ALL: "C.UTF-8" },
      stdio: ["ignore", "pipe", "ignore"],
    });
    spy.stdout!.on("data", () => {
      if (!stopped) void tick();
    });
    spy.on("error", (e) => opts.onError?.(e));
  }
  void tick();
  return () => {
    stopped = true;
    clearTimeout(timer);
    spy?.kill();
  };
}
