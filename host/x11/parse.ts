// Pure parsers for the X11 utilities' output (xprop -notype, xwininfo, xrandr --listactivemonitors) and the
// assembly of the body's window model from them (docs/body.md "The window model"). Run under LC_ALL=C.UTF-8
// so that xprop prints UTF-8 titles raw.

import { parseAtoms, parseCardinals, parseString, parseWindowIds, parseWmClass } from "@yui/mod-kit/x11";
import type { DesktopWindow, Monitor, OwnWindow, Rect, World } from "../../src/body/world.ts";
import { intersect } from "../../src/body/world.ts";

export {
  parseAtoms,
  parseCardinals,
  parseString,
  parseWindowIds,
  parseWmClass,
  parseXprop,
} from "@yui/mod-kit/x11";

/** The client's absolute position and size and its map state, from `xwininfo -id`. */
export interface ClientGeometry {
  x: number;
  y: number;
  width: number;
  height: number;
  viewable: boolean;
}

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
export function parseMonitors(stdout: string): { name: string; rect: Rect }[] {
  const out: { name: string; rect: Rect }[] = [];
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

/** One client as read: its id, xprop's properties, xwininfo's geometry and the process name when read. */
export interface ClientReading {
  id: string;
  props: Map<string, string | null>;
  geometry: ClientGeometry;
  /** /proc/<_NET_WM_PID>/comm, when WM_CLASS is missing. */
  comm?: string | null;
}

/** _NET_WM_DESKTOP's "on every workspace". */
export const ALL_DESKTOPS = 0xffffffff;
/** WM_CLASS names of her own windows (instance or class, any case). */
const OWN_CLASS = "yui";
const SKIPPED_TYPES = new Set(["_NET_WM_WINDOW_TYPE_DESKTOP", "_NET_WM_WINDOW_TYPE_DOCK"]);

/** Why a client is left out of the model, or null when it is listed. */
export function leftOutBecause(c: ClientReading, currentDesktop: number | null): string | null {
  const wmClass = parseWmClass(c.props.get("WM_CLASS"));
  if (wmClass && (wmClass.cls.toLowerCase() === OWN_CLASS || wmClass.instance.toLowerCase() === OWN_CLASS))
    return "hers";
  if (parseAtoms(c.props.get("_NET_WM_STATE")).includes("_NET_WM_STATE_HIDDEN")) return "minimized";
  if (!c.geometry.viewable) return "hidden";
  const desktop = parseCardinals(c.props.get("_NET_WM_DESKTOP"))[0];
  if (
    desktop !== undefined &&
    desktop !== ALL_DESKTOPS &&
    currentDesktop !== null &&
    desktop !== currentDesktop
  )
    return "other workspace";
  if (parseAtoms(c.props.get("_NET_WM_WINDOW_TYPE")).some((t) => SKIPPED_TYPES.has(t)))
    return "desktop or dock";
  return null;
}

/** A listed client as a DesktopWindow: the frame from the client's geometry plus _NET_FRAME_EXTENTS. */
export function toDesktopWindow(c: ClientReading): DesktopWindow {
  const [left = 0, right = 0, top = 0, bottom = 0] = parseCardinals(c.props.get("_NET_FRAME_EXTENTS"));
  const wmClass = parseWmClass(c.props.get("WM_CLASS"));
  const comm = c.comm?.trim() || null;
  const app = wmClass?.cls || wmClass?.instance || comm;
  const aliases = [...new Set([wmClass?.instance, comm].filter((n): n is string => !!n && n !== app))];
  const title = parseString(c.props.get("_NET_WM_NAME")) ?? parseString(c.props.get("WM_NAME"));
  return {
    id: c.id,
    app: app || null,
    ...(aliases.length ? { aliases } : {}),
    title: title ? title : null,
    rect: {
      x: c.geometry.x - left,
      y: c.geometry.y - top,
      width: c.geometry.width + left + right,
      height: c.geometry.height + top + bottom,
    },
  };
}

/**
 * The model from one reading: clients in _NET_CLIENT_LIST_STACKING order (bottom to top, as EWMH lists it)
 * become windows front to back; each monitor's work area is _NET_WORKAREA (of the current desktop)
 * intersected with it, or the whole monitor when that leaves nothing.
 */
export function assembleWorld(
  root: Map<string, string | null>,
  clients: readonly ClientReading[],
  monitors: readonly { name: string; rect: Rect }[],
): World {
  const current = parseCardinals(root.get("_NET_CURRENT_DESKTOP"))[0] ?? null;
  const byId = new Map(clients.map((c) => [c.id, c]));
  const stacked = parseWindowIds(root.get("_NET_CLIENT_LIST_STACKING"))
    .map((id) => byId.get(id))
    .filter((c): c is ClientReading => !!c);
  // Bottom to top: each of her visible windows collects the listed windows stacked above it.
  const hers: OwnWindow[] = [];
  const listed: DesktopWindow[] = [];
  for (const c of stacked) {
    const why = leftOutBecause(c, current);
    if (why === null) {
      const w = toDesktopWindow(c);
      listed.push(w);
      for (const own of hers) own.above.push({ ...w.rect });
    } else if (why === "hers" && c.geometry.viewable) {
      const w = toDesktopWindow(c);
      hers.push({ title: w.title, rect: w.rect, above: [] });
    }
  }
  const windows = listed.reverse();
  const wa = parseCardinals(root.get("_NET_WORKAREA"));
  const i = (current ?? 0) * 4;
  const area: Rect | null =
    wa.length >= i + 4 ? { x: wa[i]!, y: wa[i + 1]!, width: wa[i + 2]!, height: wa[i + 3]! } : null;
  const mons: Monitor[] = monitors.map((m) => ({
    name: m.name,
    rect: { ...m.rect },
    workArea: (area && intersect(area, m.rect)) ?? { ...m.rect },
  }));
  return { windows, monitors: mons, hers };
}
