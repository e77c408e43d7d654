import { describe, expect, it } from "vitest";
import { fall, legAt, route, sideOf } from "./travel.ts";
import type { Monitor } from "./world.ts";

const MONS: Monitor[] = [
  {
    name: "L",
    rect: { x: 0, y: 0, width: 1920, height: 1200 },
    workArea: { x: 0, y: 0, width: 1920, height: 1160 },
  },
];
const world = { monitors: MONS };
const V = { walkPxPerS: 1000, climbPxPerS: 500, fallPxPerS2: 5000, landMs: 300 };
const SIZE = { width: 200, height: 400 };
const WIN = { x: 600, y: 300, width: 400, height: 300 };

describe("her way", () => {
  it("onto a window: along the floor to its nearer side, up that side, along the top", () => {
    const legs = route(world, V, SIZE, { from: { x: 100, y: 1160 }, to: { x: 900, y: 300 }, toEdge: WIN });
    expect(legs.map((l) => [l.kind, l.to])).toEqual([
      ["walking", { x: 580, y: 1160 }],
      ["climbing", { x: 580, y: 300 }],
      ["walking", { x: 900, y: 300 }],
    ]);
    expect(legs.map((l) => l.ms)).toEqual([480, 1720, 320]);
  });

  it("off a window onto another: along the top to a side, down it, along the floor, up the other's side", () => {
    const other = { x: 1300, y: 500, width: 300, height: 200 };
    const legs = route(world, V, SIZE, {
      from: { x: 700, y: 300 },
      to: { x: 1400, y: 500 },
      fromEdge: WIN,
      toEdge: other,
    });
    expect(legs.map((l) => [l.kind, l.to])).toEqual([
      ["walking", { x: 1020, y: 300 }],
      ["climbing", { x: 1020, y: 1160 }],
      ["walking", { x: 1280, y: 1160 }],
      ["climbing", { x: 1280, y: 500 }],
      ["walking", { x: 1400, y: 500 }],
    ]);
  });

  it("along one window's top: one walk", () => {
    const legs = route(world, V, SIZE, {
      from: { x: 700, y: 300 },
      to: { x: 900, y: 300 },
      fromEdge: WIN,
      toEdge: WIN,
    });
    expect(legs.map((l) => l.kind)).toEqual(["walking"]);
  });

  it("a window flush with the screen's left edge is climbed by its right side; with no side, straight up", () => {
    expect(sideOf(world, { x: 0, y: 300, width: 400, height: 300 }, 100, 100, SIZE)).toBe(420);
    expect(sideOf(world, { x: 0, y: 300, width: 1920, height: 300 }, 100, 100, SIZE)).toBeNull();
    const legs = route(world, V, SIZE, {
      from: { x: 100, y: 1160 },
      to: { x: 900, y: 300 },
      toEdge: { x: 0, y: 300, width: 1920, height: 300 },
    });
    expect(legs.map((l) => [l.kind, l.to])).toEqual([
      ["walking", { x: 900, y: 1160 }],
      ["climbing", { x: 900, y: 300 }],
    ]);
  });

  it("a fall speeds up and ends in a landing", () => {
    const legs = fall({ x: 100, y: 160 }, { x: 100, y: 1160 }, V);
    expect(legs.map((l) => l.kind)).toEqual(["falling", "landing"]);
    expect(legs[0]!.ms).toBeCloseTo(Math.sqrt(2000 / 5000) * 1000, 6);
    const t = legs[0]!.ms;
    expect(legAt(legs, t / 2)!.at.y).toBeCloseTo(160 + 250, 6);
    expect(legAt(legs, t + 10)).toMatchObject({ leg: { kind: "landing" }, at: { x: 100, y: 1160 } });
    expect(legAt(legs, t + 400)!.at).toEqual({ x: 100, y: 1160 });
  });
});
