// Her ways from one point to another (docs/body.md "Moves are travel"): down to the floor, along it, up to the
// target; onto a window's top edge along its side (not straight up in front of it); a fall with its landing. Each
// way is a list of legs timed by her speeds; where she is on it at a moment is legAt(). Pure functions.
import { HEAD_WIDTH, type Size } from "./placement.ts";
import { floorUnder } from "./surface.ts";
import type { Rect, World } from "./world.ts";

export interface Point {
  x: number;
  y: number;
}

/** What she does on a leg: walking and climbing are postures; a fall and its landing read as standing. */
export type LegKind = "walking" | "climbing" | "falling" | "landing";

export interface Leg {
  kind: LegKind;
  from: Point;
  to: Point;
  ms: number;
}

/** The speeds of her legs (BodyTimings' fields). */
export interface Speeds {
  walkPxPerS: number;
  climbPxPerS: number;
  /** Her fall's acceleration, in pixels per second squared. */
  fallPxPerS2: number;
  /** Her landing after a fall (knees bent, then up). */
  landMs: number;
}

/** How far outside a window's side she climbs it, as a part of her window's width: her hands on its edge. */
export const SIDE_GAP = 0.1;

/** A leg of `kind` from a to b at its speed; null when it goes nowhere. */
function leg(kind: "walking" | "climbing", a: Point, b: Point, v: Speeds): Leg | null {
  const d = Math.hypot(b.x - a.x, b.y - a.y);
  if (d < 1) return null;
  const speed = kind === "walking" ? v.walkPxPerS : v.climbPxPerS;
  return { kind, from: a, to: b, ms: (d / speed) * 1000 };
}

/**
 * Where she climbs a window's side: her centre just outside its left or right edge, the side that makes her way
 * from `fromX` (on the floor) to `toX` (on its top) shortest, among the sides where her head stays on a work area;
 * null when neither side will do (she climbs straight up at `toX` then).
 */
export function sideOf(
  world: Pick<World, "monitors">,
  r: Rect,
  fromX: number,
  toX: number,
  size: Size,
): number | null {
  const gap = size.width * SIDE_GAP;
  const half = (size.width * HEAD_WIDTH) / 2;
  const sides = [r.x - gap, r.x + r.width + gap].filter((x) =>
    world.monitors.some((m) => x - half >= m.workArea.x && x + half <= m.workArea.x + m.workArea.width),
  );
  let best: number | null = null;
  for (const x of sides) {
    if (
      best === null ||
      Math.abs(fromX - x) + Math.abs(x - toX) < Math.abs(fromX - best) + Math.abs(best - toX)
    )
      best = x;
  }
  return best;
}

/**
 * Her way from `from` to `to`: off the top edge she stands on (`fromEdge`: along it to a side and down that side),
 * else straight down to the floor; along the floor; then up a side of `toEdge` and along its top to `to`, else
 * straight up to `to`. Moving along one window's top edge (`fromEdge` and `toEdge` the same edge) is one walk.
 */
export function route(
  world: Pick<World, "monitors">,
  v: Speeds,
  size: Size,
  way: { from: Point; to: Point; fromEdge?: Rect | null; toEdge?: Rect | null },
): Leg[] {
  const { from, to } = way;
  const onFrom = way.fromEdge && Math.abs(from.y - way.fromEdge.y) < 1 ? way.fromEdge : null;
  const onTo = way.toEdge && Math.abs(to.y - way.toEdge.y) < 1 ? way.toEdge : null;
  if (onFrom && onTo && onFrom.x === onTo.x && onFrom.y === onTo.y && onFrom.width === onTo.width)
    return [leg("walking", from, to, v)].filter((l): l is Leg => l !== null);
  const floor = floorUnder(world, from);
  const points: [Leg["kind"], Point][] = [];
  let x = from.x;
  if (onFrom) {
    const side = sideOf(world, onFrom, to.x, from.x, size);
    if (side !== null) {
      points.push(["walking", { x: side, y: from.y }]);
      x = side;
    }
  }
  points.push(["climbing", { x, y: floor }]);
  const side = onTo ? sideOf(world, onTo, x, to.x, size) : null;
  if (onTo && side !== null) {
    points.push(["walking", { x: side, y: floor }], ["climbing", { x: side, y: onTo.y }], ["walking", to]);
  } else {
    points.push(["walking", { x: to.x, y: floor }], ["climbing", to]);
  }
  const legs: Leg[] = [];
  let at = from;
  for (const [kind, p] of points) {
    const l = leg(kind as "walking" | "climbing", at, p, v);
    if (l) legs.push(l);
    at = p;
  }
  return legs;
}

/** A fall from `from` straight down to `to` (quicker and quicker), and her landing there. */
export function fall(from: Point, to: Point, v: Speeds): Leg[] {
  const d = Math.max(0, to.y - from.y);
  const legs: Leg[] = [];
  if (d >= 1 || Math.abs(to.x - from.x) >= 1) {
    legs.push({ kind: "falling", from, to, ms: Math.sqrt((2 * Math.max(d, 1)) / v.fallPxPerS2) * 1000 });
  }
  legs.push({ kind: "landing", from: to, to, ms: v.landMs });
  return legs;
}

/** The leg she is on `elapsed` ms into `legs` and her point on it (the last leg's end once they are over). */
export function legAt(legs: readonly Leg[], elapsed: number): { leg: Leg; at: Point } | null {
  let t = elapsed;
  for (const l of legs) {
    if (t < l.ms) {
      const f = l.ms > 0 ? t / l.ms : 1;
      // A fall speeds up: the distance grows with the square of the time.
      const k = l.kind === "falling" ? f * f : f;
      return { leg: l, at: { x: l.from.x + (l.to.x - l.from.x) * k, y: l.from.y + (l.to.y - l.from.y) * k } };
    }
    t -= l.ms;
  }
  const last = legs[legs.length - 1];
  return last ? { leg: last, at: { ...last.to } } : null;
}
