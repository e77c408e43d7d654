// Types of shell/geometry.js (plain JavaScript, so that gjs can load it).
import type { PageRect, Rect } from "./contract.ts";

export type { PageRect };

export function intersects(a: Rect, b: Rect): boolean;
export function placeOnVisible(
  rect: Rect,
  monitors: readonly { primary: boolean; workarea: Rect }[],
): { x: number; y: number };
export function inRects(rects: readonly PageRect[], x: number, y: number): boolean;
export function cleanRects(rects: unknown): PageRect[];
