// Where her window goes for a state of her body, so that her head is always on screen (docs/body.md "On screen,
// always"), and where her head is in her window. Pure functions over her window's size.
import type { Posture } from "../protocol/body.ts";
import { monitorAt, type Rect, type World } from "./world.ts";

/**
 * How far her window hangs below the edge she sits on, as a part of its height: the point under her is her seat,
 * not her feet, so her legs hang over the edge (the stage puts her seat there: SIT_SEAT in src/avatar/motions.ts).
 */
export const SIT_DROP = 0.3;

/**
 * The top of her head above her window's bottom, as a part of its height: standing (the stage frames her whole,
 * her height and 8 %: FLOOR_MARGIN in src/avatar/stage/framing.ts, with her hair), and sitting (her seat SIT_DROP
 * up, her head about a third of her window above it).
 */
export const HEAD_TOP = { standing: 0.97, sitting: 0.64 } as const;
/** Her head's width as a part of her window's width (a little more than her hair), centred. */
export const HEAD_WIDTH = 0.3;
/** How many pixels of the work area stay between her head and its top edge. */
export const HEAD_MARGIN = 4;

export interface Size {
  width: number;
  height: number;
}

/** Her window's place for a state of her body, and how much of its bottom is not drawn (`clip`, 0 to 1). */
export interface Placement {
  x: number;
  y: number;
  /**
   * The part of her window's height, from its bottom, that her page does not draw: set when her window had to go
   * lower than the surface under her so that her head stays inside the work area; then nothing of her below that
   * surface shows (she sits or stands just behind its edge).
   */
  clip: number;
}

/** The top of her head above her window's bottom, in pixels, in a posture. */
export function headAbove(posture: Posture, size: Size): number {
  return Math.round(size.height * (posture === "sitting" ? HEAD_TOP.sitting : HEAD_TOP.standing));
}

/**
 * Her window's place: its bottom-centre at the point under her (lower by SIT_DROP of its height while she sits).
 * When that would put her head above the work area of her monitor, the window goes down just enough, and what is
 * below the point under her (the edge she sits or stands on) is clipped.
 */
export function placeWindow(
  s: { posture: Posture; position: { x: number; y: number } },
  size: Size,
  world: Pick<World, "monitors">,
): Placement {
  const drop = s.posture === "sitting" ? Math.round(size.height * SIT_DROP) : 0;
  const x = Math.round(s.position.x - size.width / 2);
  let y = Math.round(s.position.y - size.height + drop);
  const m = world.monitors[monitorAt(world.monitors, s.position.x, s.position.y - 1)];
  if (!m) return { x, y, clip: 0 };
  const head = y + size.height - headAbove(s.posture, size);
  const lower = m.workArea.y + HEAD_MARGIN - head;
  if (lower <= 0) return { x, y, clip: 0 };
  y += lower;
  const below = y + size.height - s.position.y;
  return { x, y, clip: Math.min(1, Math.max(0, below / size.height)) };
}

/** Her head's box in her window's place (for what must stay on screen, and for a bubble beside her). */
export function headBox(place: { x: number; y: number }, posture: Posture, size: Size): Rect {
  const top = place.y + size.height - headAbove(posture, size);
  const width = Math.round(size.width * HEAD_WIDTH);
  return { x: Math.round(place.x + (size.width - width) / 2), y: top, width, height: width };
}

/**
 * The point under her kept where her head is inside a work area while she stands: across, her head within the
 * work area of the monitor nearest to her; up and down, her head below its top and her feet not below its floor.
 */
export function keepOnScreen(p: { x: number; y: number }, size: Size, world: Pick<World, "monitors">) {
  const m = world.monitors[monitorAt(world.monitors, p.x, p.y - 1)];
  if (!m) return { ...p };
  const a = m.workArea;
  const half = (size.width * HEAD_WIDTH) / 2;
  const x = Math.min(Math.max(p.x, a.x + half), a.x + a.width - half);
  const top = a.y + HEAD_MARGIN + headAbove("standing", size);
  const floor = a.y + a.height;
  const y = Math.min(Math.max(p.y, Math.min(top, floor)), floor);
  return { x, y };
}
