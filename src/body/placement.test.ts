import { describe, expect, it } from "vitest";
import { HEAD_MARGIN, headAbove, headBox, keepOnScreen, placeWindow, SIT_DROP } from "./placement.ts";
import type { Monitor } from "./world.ts";

const MONS: Monitor[] = [
  {
    name: "L",
    rect: { x: 0, y: 0, width: 1920, height: 1200 },
    // A 30 px panel at the top.
    workArea: { x: 0, y: 30, width: 1920, height: 1170 },
  },
];
const SIZE = { width: 200, height: 400 };
const world = { monitors: MONS };

describe("her window's place", () => {
  it("standing: bottom-centre at her feet, nothing clipped", () => {
    expect(placeWindow({ posture: "standing", position: { x: 500, y: 1200 } }, SIZE, world)).toEqual({
      x: 400,
      y: 800,
      clip: 0,
    });
  });

  it("sitting: SIT_DROP of its height below the edge, nothing clipped while her head has room", () => {
    const p = placeWindow({ posture: "sitting", position: { x: 500, y: 600 } }, SIZE, world);
    expect(p).toEqual({ x: 400, y: 600 - 400 + SIT_DROP * 400, clip: 0 });
  });

  it("sitting on an edge near the top: lower, her head inside the work area, clipped at the edge", () => {
    // A clock's title bar at y = 80 (the case): her head would be at 80 - (0.64 - 0.3) * 400 = -56.
    const p = placeWindow({ posture: "sitting", position: { x: 500, y: 80 } }, SIZE, world);
    const head = p.y + SIZE.height - headAbove("sitting", SIZE);
    expect(head).toBe(30 + HEAD_MARGIN);
    // What is below the edge (y = 80) is not drawn: her window's bottom part from there.
    expect(p.clip).toBeCloseTo((p.y + SIZE.height - 80) / SIZE.height, 6);
    expect(p.clip).toBeGreaterThan(SIT_DROP);
    expect(headBox(p, "sitting", SIZE).y).toBe(30 + HEAD_MARGIN);
  });

  it("walking on a window's top near the top: lower too, clipped at her feet", () => {
    const p = placeWindow({ posture: "walking", position: { x: 500, y: 200 } }, SIZE, world);
    expect(p.y + SIZE.height - headAbove("walking", SIZE)).toBe(30 + HEAD_MARGIN);
    expect(p.clip).toBeCloseTo((p.y + SIZE.height - 200) / SIZE.height, 6);
  });
});

describe("keepOnScreen", () => {
  it.each([
    ["inside: unchanged", { x: 500, y: 1200 }, { x: 500, y: 1200 }],
    ["her head off the left edge", { x: -100, y: 1200 }, { x: 30, y: 1200 }],
    ["her head off the right edge", { x: 1950, y: 1200 }, { x: 1890, y: 1200 }],
    ["her head above the work area", { x: 500, y: 100 }, { x: 500, y: 30 + HEAD_MARGIN + 388 }],
    ["her feet below the floor", { x: 500, y: 1300 }, { x: 500, y: 1200 }],
  ])("%s", (_n, p, want) => {
    expect(keepOnScreen(p, SIZE, world)).toEqual(want);
  });
});
