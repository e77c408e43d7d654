// The macOS window model, parsed (docs/body.md "macOS"): what host/macos/windows.ts's JXA script prints,
// CGWindowListCopyWindowInfo's on-screen windows front to back and NSScreen's frames, as src/body/world.ts's
// World. Pure: the tests feed it recorded output.
import type { DesktopWindow, Monitor, Rect, World } from "../../src/body/world.ts";

/** What the JXA script prints: the window list as CoreGraphics gives it, and each NSScreen's frames. */
export interface MacReading {
  /** CGWindowListCopyWindowInfo(kCGWindowListOptionOnScreenOnly | kCGWindowListExcludeDesktopElements), unwrapped. */
  windows: Record<string, unknown>[];
  /** NSScreen.screens in order (the first is the primary, with the menu bar); Cocoa coordinates, y up. */
  screens: { name: string | null; frame: Rect; visibleFrame: Rect }[];
}

/**
 * Owner names of YUI's own windows: the packaged app's, and the development binary's (node_modules/electron
 * runs as "Electron"). Her windows are best left out by the shell's pid (`ownPids`).
 */
export const OWN_APP_NAMES = ["YUI", "Electron"] as const;

export interface OwnWindows {
  /** Processes whose windows are hers (the Electron shell's main process owns its windows). */
  pids?: readonly number[];
  /** Owner names whose windows are hers, any case (default OWN_APP_NAMES). */
  names?: readonly string[];
}

const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

/** kCGWindowBounds ({X, Y, Width, Height}, top-left origin of the primary display, y down) as a Rect. */
function bounds(v: unknown): Rect | null {
  if (!v || typeof v !== "object") return null;
  const b = v as Record<string, unknown>;
  const [x, y, width, height] = [num(b.X), num(b.Y), num(b.Width), num(b.Height)];
  if (x === null || y === null || width === null || height === null || width <= 0 || height <= 0) return null;
  return { x, y, width, height };
}

/** Why a window entry is not one she could use; null when it is. */
export function leftOutBecause(w: Record<string, unknown>, own: OwnWindows = {}): string | null {
  if (w.kCGWindowLayer !== 0) return "not a normal window (layer)"; // menu bar, Dock, status items, overlays
  if (w.kCGWindowIsOnscreen === false || w.kCGWindowIsOnscreen === 0) return "not on screen";
  const alpha = num(w.kCGWindowAlpha);
  if (alpha !== null && alpha <= 0) return "invisible";
  if (!bounds(w.kCGWindowBounds)) return "no bounds";
  const pid = num(w.kCGWindowOwnerPID);
  if (pid !== null && own.pids?.includes(pid)) return "hers";
  const owner = typeof w.kCGWindowOwnerName === "string" ? w.kCGWindowOwnerName.toLowerCase() : null;
  if (owner && (own.names ?? OWN_APP_NAMES).some((n) => n.toLowerCase() === owner)) return "hers";
  return null;
}

/** One window entry as the body's window: app the owner's name, title null without Screen Recording. */
export function toDesktopWindow(w: Record<string, unknown>): DesktopWindow {
  const name = typeof w.kCGWindowName === "string" && w.kCGWindowName !== "" ? w.kCGWindowName : null;
  const owner =
    typeof w.kCGWindowOwnerName === "string" && w.kCGWindowOwnerName !== "" ? w.kCGWindowOwnerName : null;
  return { id: String(w.kCGWindowNumber ?? ""), app: owner, title: name, rect: bounds(w.kCGWindowBounds)! };
}

/**
 * NSScreen's frames as monitors in CoreGraphics' space: Cocoa's origin is the primary screen's bottom-left
 * with y up; the window list's is its top-left with y down, so y' = primaryHeight − (y + height).
 */
export function toMonitors(screens: MacReading["screens"]): Monitor[] {
  const primaryHeight = screens[0]?.frame.height ?? 0;
  const flip = (r: Rect): Rect => ({
    x: r.x,
    y: primaryHeight - (r.y + r.height),
    width: r.width,
    height: r.height,
  });
  return screens.map((s, i) => ({
    name: s.name || `monitor ${i}`,
    rect: flip(s.frame),
    workArea: flip(s.visibleFrame),
  }));
}

/** The script's output as the World: other apps' normal windows front to back (the list's order), the monitors. */
export function parseMacWorld(stdout: string, own: OwnWindows = {}): World {
  const r = JSON.parse(stdout) as Partial<MacReading>;
  const list = Array.isArray(r.windows) ? r.windows : [];
  const windows = list
    .filter((w): w is Record<string, unknown> => Boolean(w) && typeof w === "object")
    .filter((w) => leftOutBecause(w, own) === null)
    .map(toDesktopWindow);
  return { windows, monitors: toMonitors(Array.isArray(r.screens) ? r.screens : []) };
}
