// Where she can go: top-edge coverage and the sit_on_window candidate, the peek edges, the move_to spots,
// and whether a perch survives a change of the window list. Pure functions (docs/body.md).
import {
  type DesktopWindow,
  type Monitor,
  mergeSpans,
  type Rect,
  type Span,
  subtractSpans,
  type World,
} from "./world.ts";

/** How the top edge is probed: the strip's height and the width she needs to sit. */
export interface PerchSize {
  /** Height in px of the strip along the top edge that must be free (from the frame's top down). */
  strip: number;
  /** Width in px she takes on the edge. */
  width: number;
}
export const DEFAULT_PERCH: PerchSize = { strip: 4, width: 120 };

/** The spans of windows[index]'s top edge covered by the windows in front of it (merged, left to right). */
export function coveredTopEdge(windows: readonly DesktopWindow[], index: number, strip: number): Span[] {
  const w = windows[index];
  if (!w) return [];
  const top = w.rect.y;
  const bottom = w.rect.y + Math.min(strip, w.rect.height);
  const spans: Span[] = [];
  for (const f of windows.slice(0, index)) {
    const r = f.rect;
    if (r.y >= bottom || r.y + r.height <= top) continue;
    const start = Math.max(r.x, w.rect.x);
    const end = Math.min(r.x + r.width, w.rect.x + w.rect.width);
    if (end > start) spans.push({ start, end });
  }
  return mergeSpans(spans);
}

/** The spans of the top edge she can reach: on some monitor's work area and not covered. */
export function freeTopEdge(world: World, index: number, strip: number): Span[] {
  const w = world.windows[index];
  if (!w) return [];
  const onScreen: Span[] = [];
  for (const m of world.monitors) {
    const a = m.workArea;
    if (w.rect.y < a.y || w.rect.y >= a.y + a.height) continue;
    const start = Math.max(a.x, w.rect.x);
    const end = Math.min(a.x + a.width, w.rect.x + w.rect.width);
    if (end > start) onScreen.push({ start, end });
  }
  const covered = coveredTopEdge(world.windows, index, strip);
  return mergeSpans(onScreen).flatMap((s) => subtractSpans(s, covered));
}

/** Where on a free edge she sits: the center of the free span nearest the edge's middle that fits her. */
export function perchXOn(rect: Rect, free: readonly Span[], width: number): number | null {
  const mid = rect.x + rect.width / 2;
  let best: number | null = null;
  for (const s of free) {
    if (s.end - s.start < width) continue;
    const x = Math.min(Math.max(mid, s.start + width / 2), s.end - width / 2);
    if (best === null || Math.abs(x - mid) < Math.abs(best - mid)) best = x;
  }
  return best;
}

/** Whether a window belongs to the app the agent named (case-insensitive, app name or an alias). */
export function isApp(w: DesktopWindow, app: string): boolean {
  const want = app.trim().toLowerCase();
  return [w.app, ...(w.aliases ?? [])].some((n) => n != null && n.toLowerCase() === want);
}

export type SitChoice = { window: DesktopWindow; x: number } | "not_found" | "blocked";

/**
 * sit_on_window's candidate: the app's windows front to back, the first whose top edge is free where she
 * would sit (a thumbnail or another window in front of the real one does not shadow it). not_found when
 * the app has no window, blocked when every candidate is covered.
 */
export function chooseSitTarget(world: World, app: string, size: PerchSize = DEFAULT_PERCH): SitChoice {
  let any = false;
  for (const [i, w] of world.windows.entries()) {
    if (!isApp(w, app)) continue;
    any = true;
    const x = perchXOn(w.rect, freeTopEdge(world, i, size.strip), size.width);
    if (x !== null) return { window: w, x };
  }
  return any ? "blocked" : "not_found";
}

/** What happens to a perch when the window list changes. */
export type PerchFate =
  | { kind: "stay"; x: number; y: number; rect: Rect }
  | { kind: "gone" } // closed, minimized, on another workspace (all leave the list)
  | { kind: "covered" };

/**
 * A perch after the world changed: she follows a moved or resized window keeping her offset from its
 * left edge (clamped onto the edge), and gets down when the window left the list or is covered where she sits.
 */
export function perchAfter(
  world: World,
  perch: { windowId: string; x: number; rect: Rect },
  size: PerchSize = DEFAULT_PERCH,
): PerchFate {
  const i = world.windows.findIndex((w) => w.id === perch.windowId);
  const w = world.windows[i];
  if (!w) return { kind: "gone" };
  const half = size.width / 2;
  const offset = perch.x - perch.rect.x;
  const lo = w.rect.x + Math.min(half, w.rect.width / 2);
  const hi = w.rect.x + w.rect.width - Math.min(half, w.rect.width / 2);
  const x = Math.min(Math.max(w.rect.x + offset, lo), hi);
  const free = freeTopEdge(world, i, size.strip);
  const fits = free.some((s) => s.start <= x - half + 0.5 && s.end >= x + half - 0.5);
  return fits ? { kind: "stay", x, y: w.rect.y, rect: w.rect } : { kind: "covered" };
}

/** The peek edges: the left and right edges of the frontmost window, where each is on a monitor. */
export interface PeekEdge {
  side: "left" | "right";
  windowId: string;
  x: number;
  top: number;
  bottom: number;
}

export function peekEdges(world: World): PeekEdge[] {
  const w = world.windows[0];
  if (!w) return [];
  const edges: PeekEdge[] = [
    { side: "left", windowId: w.id, x: w.rect.x, top: w.rect.y, bottom: w.rect.y + w.rect.height },
    {
      side: "right",
      windowId: w.id,
      x: w.rect.x + w.rect.width,
      top: w.rect.y,
      bottom: w.rect.y + w.rect.height,
    },
  ];
  // An edge off every work area (the window hangs off the screen there) cannot be peeked around.
  return edges.filter((e) =>
    world.monitors.some(
      (m) =>
        e.x > m.workArea.x &&
        e.x < m.workArea.x + m.workArea.width &&
        e.bottom > m.workArea.y &&
        e.top < m.workArea.y + m.workArea.height,
    ),
  );
}

export const SPOT_NAMES = ["center", "top_left", "top_right", "bottom_left", "bottom_right"] as const;
export type Spot = (typeof SPOT_NAMES)[number];

/**
 * A spot of a monitor's work area as the point under her feet (bottom-center of her window of size body):
 * the corners keep her whole window inside the work area, center centers it.
 */
export function spotPoint(
  m: Monitor,
  spot: Spot,
  body: { width: number; height: number },
): { x: number; y: number } {
  const a = m.workArea;
  const left = a.x + body.width / 2;
  const right = a.x + a.width - body.width / 2;
  const top = a.y + body.height;
  const bottom = a.y + a.height;
  switch (spot) {
    case "top_left":
      return { x: left, y: top };
    case "top_right":
      return { x: right, y: top };
    case "bottom_left":
      return { x: left, y: bottom };
    case "bottom_right":
      return { x: right, y: bottom };
    default:
      return { x: a.x + a.width / 2, y: a.y + a.height / 2 + body.height / 2 };
  }
}

/**
 * look at: perch_targets (and the avatar mod's list_perch_targets): the tracked windows front to back, each with
 * app, title and rect (app and title null for an unnamed window) and whether she can sit on it now, plus the
 * peek edges and the monitors with their numbers.
 */
export function perchTargets(world: World, size: PerchSize = DEFAULT_PERCH) {
  return {
    windows: world.windows.map((w, i) => ({
      app: w.app,
      title: w.title,
      rect: { ...w.rect },
      sittable: perchXOn(w.rect, freeTopEdge(world, i, size.strip), size.width) !== null,
    })),
    peek_edges: peekEdges(world).map(({ side, x, top, bottom }) => ({ side, x, top, bottom })),
    monitors: world.monitors.map((m, i) => ({
      monitor: i,
      name: m.name,
      rect: { ...m.rect },
      work_area: { ...m.workArea },
    })),
  };
}
