// Reads other applications' windows and the monitors from EWMH on X11 through xprop, xwininfo and xrandr
// child processes (argument arrays, no shell), and polls for changes (docs/body.md "X11").
import { execFile } from "node:child_process";
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

/**
 * Polls readWorld every intervalMs and calls onChange with each reading that differs from the last (and the
 * first). Answers a stop function. X events (`xprop -spy -root _NET_CLIENT_LIST_STACKING` for the list, and
 * ConfigureNotify on the frames for moves) are the next step; polling is what this step does.
 */
export function watchWorld(
  run: XRun,
  onChange: (world: World) => void,
  opts: { intervalMs?: number; onError?: (e: unknown) => void; comm?: CommReader } = {},
): () => void {
  let stopped = false;
  let last = "";
  let timer: NodeJS.Timeout | undefined;
  const tick = async () => {
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
    if (!stopped) timer = setTimeout(tick, opts.intervalMs ?? 500);
  };
  void tick();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
