import { describe, expect, it } from "vitest";
import { floorUnder, onSurface, surfaceBelow } from "./surface.ts";
import type { DesktopWindow, Monitor, World } from "./world.ts";

const MONS: Monitor[] = [
  {
    name: "L",
    rect: { x: 0, y: 0, width: 1920, height: 1200 },
    workArea: { x: 0, y: 0, width: 1920, height: 1160 },
  },
  {
    name: "R",
    rect: { x: 1920, y: 0, width: 1280, height: 1024 },
    workArea: { x: 1920, y: 0, width: 1280, height: 1024 },
  },
];
const win = (id: string, x: number, y: number, width: number, height: number): DesktopWindow => ({
  id,
  app: id,
  title: null,
  rect: { x, y, width, height },
});
const world = (...windows: DesktopWindow[]): World => ({ windows, monitors: MONS });
const SIZE = { strip: 4, width: 100 };

describe("the surface under her", () => {
  it("the floor of her monitor's work area when nothing is below", () => {
    expect(surfaceBelow(world(), { x: 500, y: 300 }, SIZE)).toEqual({ x: 500, y: 1160, window: null });
    expect(floorUnder(world(), { x: 2500, y: 300 })).toBe(1024);
  });

  it("the highest free edge at or below her feet, not one above them", () => {
    const high = win("high", 400, 200, 300, 300);
    const low = win("low", 300, 700, 500, 300);
    expect(surfaceBelow(world(high, low), { x: 500, y: 150 }, SIZE).window?.id).toBe("high");
    expect(surfaceBelow(world(high, low), { x: 500, y: 250 }, SIZE).window?.id).toBe("low");
    expect(onSurface(world(high, low), { x: 500, y: 200 }, SIZE)).toBe(true);
    expect(onSurface(world(high, low), { x: 500, y: 210 }, SIZE)).toBe(false);
  });

  it("a covered stretch of an edge is passed by; near an edge's end she lands where she has room", () => {
    const cover = win("cover", 450, 180, 100, 60);
    const edge = win("edge", 400, 200, 300, 300);
    expect(surfaceBelow(world(cover, edge), { x: 500, y: 100 }, SIZE).window?.id).toBe("cover");
    expect(surfaceBelow(world(cover, edge), { x: 600, y: 190 }, SIZE)).toEqual({
      x: 600,
      y: 200,
      window: edge,
    });
    expect(surfaceBelow(world(edge), { x: 410, y: 100 }, SIZE)).toMatchObject({ x: 450, y: 200 });
    // The free stretch left of the cover (400-450) is narrower than she needs: the floor.
    expect(surfaceBelow(world(cover, edge), { x: 420, y: 190 }, SIZE).window).toBeNull();
  });
});
