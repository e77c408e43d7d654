/**
 * Room for YUI's own windows (docs/desktop.md): while Chat, Settings or Quick controls (the framed `page:*`
 * windows) has the keyboard focus, each character window over it steps aside to the nearer side where the work
 * area has room, or else drops below it (no longer kept above); when the focus leaves YUI's windows they come back.
 * The shell reports the focus and the places; the host decides. Main's body steps aside itself (a walk of her own).
 */
import type { Monitor, Rect, ShellToHost } from "../../shell/contract.ts";
import type { ShellProcess } from "./shell-process.ts";

/** Pixels between a window of YUI's and a character that stepped aside for it. */
const GAP = 8;
/** The focus moving from one window of YUI's to another is not a leaving: this long to settle. */
const SETTLE_MS = 400;

/** Whether two rectangles overlap. */
export function overlaps(a: Rect, b: Rect): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/**
 * Where a character window at `her` goes so that it does not cover `page`: the nearer side of `page` with room for
 * her within `workArea` (its new x), or null when neither side has room.
 */
export function asideOf(her: Rect, page: Rect, workArea: Rect): number | null {
  const left = page.x - GAP - her.width;
  const right = page.x + page.width + GAP;
  const sides = [left, right].filter((x) => x >= workArea.x && x + her.width <= workArea.x + workArea.width);
  let best: number | null = null;
  for (const x of sides) if (best === null || Math.abs(x - her.x) < Math.abs(best - her.x)) best = x;
  return best;
}

/**
 * How a character made room: her body walked aside (`body`), her window was moved (`window`: from where, to
 * where), or else it dropped below (`below`).
 */
interface Made {
  body?: boolean;
  window?: { from: Rect; to: { x: number; y: number } };
  below?: boolean;
}

export interface RoomOptions {
  shell: Pick<ShellProcess, "send" | "on">;
  /** Whether a window id is a character window (not one of YUI's ordinary windows). */
  isCharacter(id: string): boolean;
  monitors(): Monitor[];
  /**
   * Main's body steps aside to the window place `x` (a walk of her own), or back (`null`): true when she does,
   * false when she cannot now (she drops below instead), null when `id` has no body here (its window is moved).
   */
  stepAside?(id: string, x: number | null): boolean | null;
}

/** Follows the shell's reports and makes room for YUI's focused window. */
export function createRoom(o: RoomOptions): { dispose(): void } {
  const places = new Map<string, Rect>();
  const made = new Map<string, Made>();
  let focused: string | null = null;
  let leaving: NodeJS.Timeout | undefined;
  const workAreaOf = (r: Rect): Rect | null => {
    const cx = r.x + r.width / 2;
    const cy = r.y + r.height / 2;
    const ms = o.monitors();
    const m = ms.find(
      (x) =>
        cx >= x.geometry.x &&
        cx < x.geometry.x + x.geometry.width &&
        cy >= x.geometry.y &&
        cy < x.geometry.y + x.geometry.height,
    );
    return (m ?? ms.find((x) => x.primary) ?? ms[0])?.workarea ?? null;
  };
  /**
   * Each character over the focused window steps aside, or drops below it; again when that window moves or grows
   * (`pageMoved`: a side that had room may have none now).
   */
  const makeRoom = (pageMoved: boolean) => {
    const page = focused ? places.get(focused) : undefined;
    if (!page) return;
    for (const [id, r] of places) {
      const m = made.get(id) ?? {};
      if (!o.isCharacter(id) || m.below || !overlaps(r, page) || (made.has(id) && !pageMoved)) continue;
      made.set(id, m);
      const area = workAreaOf(r);
      const x = area ? asideOf(r, page, area) : null;
      const walked = x === null ? false : (o.stepAside?.(id, x) ?? null);
      if (walked === true) m.body = true;
      else if (walked === null && x !== null) {
        m.window = { from: m.window?.from ?? { ...r }, to: { x, y: r.y } };
        o.shell.send({ type: "move", id, x, y: r.y });
      } else {
        m.below = true;
        o.shell.send({ type: "above", id, above: false });
      }
    }
  };
  const comeBack = () => {
    for (const [id, m] of made) {
      if (m.body) o.stepAside?.(id, null);
      if (m.below) o.shell.send({ type: "above", id, above: true });
      // Moved meanwhile by someone else (the user, the host): it stays where it is now.
      const now = places.get(id);
      if (m.window && now && now.x === m.window.to.x && now.y === m.window.to.y)
        o.shell.send({ type: "move", id, x: m.window.from.x, y: m.window.from.y });
    }
    made.clear();
  };
  const off = o.shell.on((m: ShellToHost) => {
    if (m.type === "mapped" || m.type === "geometry" || m.type === "drag-end") {
      places.set(m.id, { x: m.x, y: m.y, width: m.width, height: m.height });
      if (m.id === focused) makeRoom(true);
    } else if (m.type === "closed") {
      places.delete(m.id);
      made.delete(m.id);
      if (m.id === focused) {
        focused = null;
        comeBack();
      }
    } else if (m.type === "focus") {
      clearTimeout(leaving);
      if (m.focused) {
        focused = m.id;
        makeRoom(false);
      } else if (m.id === focused) {
        leaving = setTimeout(() => {
          focused = null;
          comeBack();
        }, SETTLE_MS);
      }
    }
  });
  return {
    dispose() {
      clearTimeout(leaving);
      off();
    },
  };
}
