// The window model read through libX11's own tools, xprop, xwininfo and xrandr (child processes, argument
// arrays, no shell): how the host read it before it kept an X connection (windows.ts). The app no longer runs
// this; the tests do, as an independent reading of the same desktop to hold the connection's readings to.
// Run under LC_ALL=C.UTF-8 so that xprop prints UTF-8 titles raw.
import { execFile } from "node:child_process";
import {
  parseAtoms,
  parseCardinals,
  parseString,
  parseWindowIds,
  parseWmClass,
  parseXprop,
} from "@yui/mod-kit/x11";
import type { World } from "../../src/body/world.ts";
import {
  assembleWorld,
  type ClientGeometry,
  type ClientProps,
  type ClientReading,
  type MonitorReading,
  type RootReading,
} from "./parse.ts";
import { type CommReader, procComm } from "./windows.ts";

export { parseXprop };

/** Runs an X utility and answers its stdout, or null when it failed (e.g. the window went away meanwhile). */
export type XRun = (file: string, args: readonly string[]) => Promise<string | null>;

/** The runner for a display; LC_ALL=C.UTF-8 so that xprop prints UTF-8 titles raw. */
export function xRunner(display: string, env: NodeJS.ProcessEnv = process.env): XRun {
  const childEnv = { ...env, DISPLAY: display, LC_ALL: "C.UTF-8" };
  return (file, args) =>
    new Promise((resolve) => {
      execFile(file, [...args], { env: childEnv, timeout: 5000, maxBuffer: 4 << 20 }, (err, stdout) =>
        resolve(err ? null : stdout),
      );
    });
}

/** The client's absolute position, size and map state, from `xwininfo -id`. */
export function parseXwininfo(stdout: string): ClientGeometry | null {
  const num = (label: string) => {
    const m = new RegExp(`^\\s*${label}:\\s+(-?\\d+)`, "m").exec(stdout);
    return m ? Number(m[1]) : null;
  };
  const x = num("Absolute upper-left X");
  const y = num("Absolute upper-left Y");
  const width = num("Width");
  const height = num("Height");
  const state = /^\s*Map State:\s+(\S+)/m.exec(stdout)?.[1];
  if (x === null || y === null || width === null || height === null || !state) return null;
  return { x, y, width, height, viewable: state === "IsViewable" };
}

/** The monitors of `xrandr --listactivemonitors` (" 0: +*L 1920/508x1200/318+0+0  screen"), in its order. */
export function parseMonitors(stdout: string): MonitorReading[] {
  const out: MonitorReading[] = [];
  for (const line of stdout.split("\n")) {
    const m = /^\s*\d+:\s+[+*]*(\S+)\s+(\d+)\/\d+x(\d+)\/\d+([+-]\d+)([+-]\d+)/.exec(line);
    if (m) out.push({ name: m[1]!, rect: { x: +m[4]!, y: +m[5]!, width: +m[2]!, height: +m[3]! } });
  }
  return out;
}

/** The root window's properties the model needs (one `xprop -root -notype` call). */
export const ROOT_PROPS = ["_NET_CLIENT_LIST_STACKING", "_NET_CURRENT_DESKTOP", "_NET_WORKAREA"] as const;
/** Each client's properties (one `xprop -notype -id <id>` call). */
export const CLIENT_PROPS = [
  "WM_CLASS",
  "_NET_WM_NAME",
  "WM_NAME",
  "_NET_WM_STATE",
  "_NET_WM_DESKTOP",
  "_NET_FRAME_EXTENTS",
  "_NET_WM_PID",
  "_NET_WM_WINDOW_TYPE",
] as const;

/** The root's properties from `xprop -root -notype` output. */
export function rootFromXprop(props: Map<string, string | null>): RootReading {
  return {
    stacking: parseWindowIds(props.get("_NET_CLIENT_LIST_STACKING")),
    currentDesktop: parseCardinals(props.get("_NET_CURRENT_DESKTOP"))[0] ?? null,
    workArea: parseCardinals(props.get("_NET_WORKAREA")),
  };
}

/** A client's properties from `xprop -notype -id` output. */
export function clientFromXprop(props: Map<string, string | null>): ClientProps {
  return {
    wmClass: parseWmClass(props.get("WM_CLASS")),
    netWmName: parseString(props.get("_NET_WM_NAME")),
    wmName: parseString(props.get("WM_NAME")),
    state: parseAtoms(props.get("_NET_WM_STATE")),
    desktop: parseCardinals(props.get("_NET_WM_DESKTOP"))[0] ?? null,
    frameExtents: parseCardinals(props.get("_NET_FRAME_EXTENTS")),
    pid: parseCardinals(props.get("_NET_WM_PID"))[0] ?? null,
    windowTypes: parseAtoms(props.get("_NET_WM_WINDOW_TYPE")),
  };
}

/** One reading of the desktop: 2 processes for the root and the monitors, 2 more for each client. */
export async function readWorldByTools(run: XRun, comm: CommReader = procComm): Promise<World> {
  const [rootOut, monOut] = await Promise.all([
    run("xprop", ["-root", "-notype", ...ROOT_PROPS]),
    run("xrandr", ["--listactivemonitors"]),
  ]);
  if (rootOut === null) throw new Error("xprop could not read the root window (is DISPLAY an X server?)");
  const root = rootFromXprop(parseXprop(rootOut));
  const clients = await Promise.all(
    root.stacking.map(async (id): Promise<ClientReading | null> => {
      const [p, g] = await Promise.all([
        run("xprop", ["-notype", "-id", id, ...CLIENT_PROPS]),
        run("xwininfo", ["-id", id]),
      ]);
      const geometry = g === null ? null : parseXwininfo(g);
      if (p === null || geometry === null) return null; // gone between the list and the read
      const props = clientFromXprop(parseXprop(p));
      const reading: ClientReading = { id, props, geometry };
      if (!props.wmClass && props.pid !== null) reading.comm = await comm(props.pid);
      return reading;
    }),
  );
  return assembleWorld(
    root,
    clients.filter((c): c is ClientReading => c !== null),
    parseMonitors(monOut ?? ""),
  );
}
