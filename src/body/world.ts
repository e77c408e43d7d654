// The window model the body moves on: other applications' windows front to back and the monitors with
// their work areas, in root (virtual screen) pixels, y pointing down. Pure data; a platform reader
// (host/x11/ on X11) fills it. See docs/body.md "The window model".

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** One window of another application, as look at: perch_targets lists it. */
export interface DesktopWindow {
  /** The platform's window id (X11: the client window id, "0x1400007"). */
  id: string;
  /** The app name (X11: WM_CLASS's class, else the process name); null for an unnamed window. */
  app: string | null;
  /** Other names the app answers to in sit_on_window (X11: WM_CLASS's instance, the process name). */
  aliases?: string[];
  /** The title; null for an untitled window. */
  title: string | null;
  /** The frame: the window with its decorations. */
  rect: Rect;
}

/** A monitor, numbered as body_action's and look's `monitor` (its index in World.monitors). */
export interface Monitor {
  name: string;
  rect: Rect;
  /** The part of rect not taken by panels and docks. */
  workArea: Rect;
}

/** One of her own windows as the platform stacks it: its frame and the frames of listed windows above it. */
export interface OwnWindow {
  title: string | null;
  rect: Rect;
  /** Frames of other applications' windows stacked above this one. */
  above: Rect[];
}

/** Everything the body needs to know about the desktop at one moment. */
export interface World {
  /** Visible windows on the current workspace, frontmost first; hers, minimized and hidden ones are not listed. */
  windows: DesktopWindow[];
  monitors: Monitor[];
  /** Her own visible windows, where the platform tells their stacking (X11); for "fully covered". */
  hers?: OwnWindow[];
}

/** Whether `covers` together cover every pixel of `r` (a sweep over the x-boundaries of the covers). */
export function fullyCovered(r: Rect, covers: readonly Rect[]): boolean {
  const inside = covers.map((c) => intersect(r, c)).filter((c): c is Rect => c !== null);
  if (!inside.length) return false;
  const xs = [...new Set([r.x, r.x + r.width, ...inside.flatMap((c) => [c.x, c.x + c.width])])].sort(
    (a, b) => a - b,
  );
  for (let i = 0; i + 1 < xs.length; i++) {
    const [x0, x1] = [xs[i]!, xs[i + 1]!];
    if (x0 < r.x || x1 > r.x + r.width) continue;
    const spans = inside
      .filter((c) => c.x <= x0 && c.x + c.width >= x1)
      .map((c) => ({ start: c.y, end: c.y + c.height }));
    const open = subtractSpans({ start: r.y, end: r.y + r.height }, spans);
    if (open.length) return false;
  }
  return true;
}

export function intersect(a: Rect, b: Rect): Rect | null {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  const r = Math.min(a.x + a.width, b.x + b.width);
  const bot = Math.min(a.y + a.height, b.y + b.height);
  return r > x && bot > y ? { x, y, width: r - x, height: bot - y } : null;
}

export function containsPoint(r: Rect, x: number, y: number): boolean {
  return x >= r.x && x < r.x + r.width && y >= r.y && y < r.y + r.height;
}

/** The index of the monitor containing the point, else the nearest one by its center; -1 without monitors. */
export function monitorAt(monitors: readonly Monitor[], x: number, y: number): number {
  const inside = monitors.findIndex((m) => containsPoint(m.rect, x, y));
  if (inside >= 0 || monitors.length === 0) return inside;
  let best = 0;
  let bestD = Number.POSITIVE_INFINITY;
  for (const [i, m] of monitors.entries()) {
    const dx = m.rect.x + m.rect.width / 2 - x;
    const dy = m.rect.y + m.rect.height / 2 - y;
    const d = dx * dx + dy * dy;
    if (d < bestD) {
      bestD = d;
      best = i;
    }
  }
  return best;
}

/** A horizontal span [start, end). */
export interface Span {
  start: number;
  end: number;
}

/** Sorts and merges overlapping or touching spans. */
export function mergeSpans(spans: readonly Span[]): Span[] {
  const sorted = spans.filter((s) => s.end > s.start).sort((a, b) => a.start - b.start);
  const out: Span[] = [];
  for (const s of sorted) {
    const last = out[out.length - 1];
    if (last && s.start <= last.end) last.end = Math.max(last.end, s.end);
    else out.push({ ...s });
  }
  return out;
}

/** `whole` minus the (merged) `holes`. */
export function subtractSpans(whole: Span, holes: readonly Span[]): Span[] {
  const out: Span[] = [];
  let at = whole.start;
  for (const h of mergeSpans(holes)) {
    if (h.end <= at || h.start >= whole.end) continue;
    if (h.start > at) out.push({ start: at, end: h.start });
    at = Math.max(at, h.end);
  }
  if (at < whole.end) out.push({ start: at, end: whole.end });
  return out;
}
