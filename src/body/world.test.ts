import { describe, expect, it } from "vitest";
import { fullyCovered, type Rect } from "./world.ts";

const r = (x: number, y: number, width: number, height: number): Rect => ({ x, y, width, height });

describe("fullyCovered: every pixel of her window under other windows", () => {
  it.each([
    ["nothing above", [], false],
    ["one window over all of it", [r(-10, -10, 200, 200)], true],
    ["exactly its own rectangle", [r(0, 0, 100, 100)], true],
    ["one pixel short on the right", [r(0, 0, 99, 100)], false],
    ["two halves side by side", [r(0, 0, 50, 100), r(50, 0, 50, 100)], true],
    ["two halves with a one-pixel gap", [r(0, 0, 50, 100), r(51, 0, 49, 100)], false],
    ["top and bottom halves", [r(0, 0, 100, 50), r(0, 50, 100, 50)], true],
    ["an L of two windows leaving a corner", [r(0, 0, 100, 50), r(0, 50, 50, 50)], false],
    ["three overlapping windows", [r(-5, -5, 60, 60), r(40, -5, 70, 70), r(-5, 50, 120, 60)], true],
    ["a window elsewhere", [r(200, 200, 100, 100)], false],
  ] as const)("%s: %s", (_n, covers, expected) => {
    expect(fullyCovered(r(0, 0, 100, 100), covers)).toBe(expected);
  });
});
