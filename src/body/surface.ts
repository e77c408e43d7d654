// What she stands on: the floor of a work area, or a window's top edge (docs/body.md "Gravity"). Pure functions.
import { freeTopEdge, type PerchSize } from "./perch.ts";
import { type DesktopWindow, monitorAt, type World } from "./world.ts";

/** A surface under her: a window's top edge she can sit on (`window`), or the work area's floor. */
export interface Surface {
  /** Where she lands: the point under her on it (x moved onto the free part of an edge when needed). */
  x: number;
  y: number;
  window: DesktopWindow | null;
}

/** The floor under a point: the bottom of the work area of the monitor it is on (or the nearest one). */
export function floorUnder(world: Pick<World, "monitors">, p: { x: number; y: number }): number {
  const m = world.monitors[monitorAt(world.monitors, p.x, p.y - 1)];
  return m ? m.workArea.y + m.workArea.height : p.y;
}

/**
 * The surface she falls onto from `p`: the highest window top edge at or below her feet (within `tolerance`
 * pixels above them) whose free part (not covered, on a work area) has room for her around her x, above the floor;
 * else the floor. Between edges at the same height the frontmost wins.
 */
export function surfaceBelow(
  world: World,
  p: { x: number; y: number },
  size: PerchSize,
  tolerance = 1,
): Surface {
  const floor = floorUnder(world, p);
  let best: Surface | null = null;
  const half = size.width / 2;
  for (const [i, w] of world.windows.entries()) {
    const top = w.rect.y;
    if (top < p.y - tolerance || top >= floor) continue;
    if (best && top >= best.y) continue;
    for (const s of freeTopEdge(world, i, size.strip)) {
      if (s.end - s.start < size.width || p.x < s.start || p.x >= s.end) continue;
      best = { x: Math.min(Math.max(p.x, s.start + half), s.end - half), y: top, window: w };
      break;
    }
  }
  return best ?? { x: p.x, y: floor, window: null };
}

/** Whether she stands on a surface at `p`: on the floor under her, or on a free top edge there. */
export function onSurface(world: World, p: { x: number; y: number }, size: PerchSize): boolean {
  const s = surfaceBelow(world, p, size);
  return Math.abs(s.y - p.y) < 1;
}
