// The assembly of the body's window model (docs/body.md "The window model") from one reading of the desktop:
// the root's and each client's EWMH properties, decoded, each client's geometry and the monitors. The X
// connection (windows.ts) keeps such a reading current from events; xtools.ts reads one through xprop,
// xwininfo and xrandr, for the tests.

import type { DesktopWindow, Monitor, OwnWindow, Rect, World } from "../../src/body/world.ts";
import { intersect } from "../../src/body/world.ts";

/** The client's absolute position (its border's outer corner) and size, and whether it is viewable. */
export interface ClientGeometry {
  x: number;
  y: number;
  width: number;
  height: number;
  viewable: boolean;
}

/** The root window's properties the model needs. */
export interface RootReading {
  /** _NET_CLIENT_LIST_STACKING, bottom to top as EWMH lists it ("0x40000c"). */
  stacking: string[];
  /** _NET_CURRENT_DESKTOP; null when unset. */
  currentDesktop: number | null;
  /** _NET_WORKAREA: x, y, width, height for each desktop. */
  workArea: number[];
}

/** A client's properties the model needs. */
export interface ClientProps {
  /** WM_CLASS's instance and class; null when absent. */
  wmClass: { instance: string; cls: string } | null;
  /** _NET_WM_NAME and WM_NAME, decoded; null when absent. */
  netWmName: string | null;
  wmName: string | null;
  /** _NET_WM_STATE's atom names (those the model reads, at least). */
  state: string[];
  /** _NET_WM_DESKTOP; null when unset. */
  desktop: number | null;
  /** _NET_FRAME_EXTENTS: left, right, top, bottom. */
  frameExtents: number[];
  /** _NET_WM_PID; null when unset. */
  pid: number | null;
  /** _NET_WM_WINDOW_TYPE's atom names (those the model reads, at least). */
  windowTypes: string[];
}

/** One client as read: its id, its properties, its geometry and the process name when read. */
export interface ClientReading {
  id: string;
  props: ClientProps;
  geometry: ClientGeometry;
  /** /proc/<_NET_WM_PID>/comm, when WM_CLASS is missing. */
  comm?: string | null;
}

/** A monitor by its name and place in root pixels. */
export interface MonitorReading {
  name: string;
  rect: Rect;
}

/** _NET_WM_DESKTOP's "on every workspace". */
export const ALL_DESKTOPS = 0xffffffff;
/** WM_CLASS names of her own windows (instance or class, any case). */
const OWN_CLASS = "yui";
const SKIPPED_TYPES = new Set(["_NET_WM_WINDOW_TYPE_DESKTOP", "_NET_WM_WINDOW_TYPE_DOCK"]);

/** Why a client is left out of the model, or null when it is listed. */
export function leftOutBecause(c: ClientReading, currentDesktop: number | null): string | null {
  const { wmClass, desktop } = c.props;
  if (wmClass && (wmClass.cls.toLowerCase() === OWN_CLASS || wmClass.instance.toLowerCase() === OWN_CLASS))
    return "hers";
  if (c.props.state.includes("_NET_WM_STATE_HIDDEN")) return "minimized";
  if (!c.geometry.viewable) return "hidden";
  if (desktop !== null && desktop !== ALL_DESKTOPS && currentDesktop !== null && desktop !== currentDesktop)
    return "other workspace";
  if (c.props.windowTypes.some((t) => SKIPPED_TYPES.has(t))) return "desktop or dock";
  return null;
}

/** A listed client as a DesktopWindow: the frame from the client's geometry plus _NET_FRAME_EXTENTS. */
export function toDesktopWindow(c: ClientReading): DesktopWindow {
  const [left = 0, right = 0, top = 0, bottom = 0] = c.props.frameExtents;
  const { wmClass } = c.props;
  const comm = c.comm?.trim() || null;
  const app = wmClass?.cls || wmClass?.instance || comm;
  const aliases = [...new Set([wmClass?.instance, comm].filter((n): n is string => !!n && n !== app))];
  const title = c.props.netWmName ?? c.props.wmName;
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
  root: RootReading,
  clients: readonly ClientReading[],
  monitors: readonly MonitorReading[],
): World {
  const current = root.currentDesktop;
  const byId = new Map(clients.map((c) => [c.id, c]));
  const stacked = root.stacking.map((id) => byId.get(id)).filter((c): c is ClientReading => !!c);
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
  const wa = root.workArea;
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
