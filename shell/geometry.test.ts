import { describe, expect, it } from "vitest";
import { cleanRects, inRects, placeOnVisible } from "./geometry.js";

const mon = (x: number, y: number, width: number, height: number, primary = false, panel = 0) => ({
  primary,
  geometry: { x, y, width, height },
  workarea: { x, y: y + panel, width, height: height - panel },
});
const LEFT = mon(0, 0, 1920, 1200, true, 30);
const RIGHT = mon(1920, 0, 1280, 1024);

describe("placeOnVisible", () => {
  it("leaves a window whose centre is in a work area where it is", () => {
    expect(placeOnVisible({ x: 2000, y: 100, width: 360, height: 560 }, [LEFT, RIGHT])).toEqual({
      x: 2000,
      y: 100,
    });
  });

  it("brings a window from a monitor that went away into the primary work area, size kept", () => {
    expect(placeOnVisible({ x: 2900, y: 600, width: 360, height: 560 }, [LEFT])).toEqual({
      x: 1920 - 360,
      y: 600,
    });
  });

  it("keeps her out from under a panel: the work area, not the monitor, counts", () => {
    expect(placeOnVisible({ x: 100, y: -400, width: 360, height: 560 }, [LEFT])).toEqual({ x: 100, y: 30 });
  });

  it("uses the first monitor when none is primary, and changes nothing without monitors", () => {
    const a = mon(0, 0, 800, 600);
    expect(placeOnVisible({ x: 5000, y: 5000, width: 100, height: 100 }, [a])).toEqual({ x: 700, y: 500 });
    expect(placeOnVisible({ x: 5000, y: 5000, width: 100, height: 100 }, [])).toEqual({ x: 5000, y: 5000 });
  });
});

describe("rectangles from the page", () => {
  it("keeps well-formed rectangles, rounded, and drops the rest", () => {
    expect(
      cleanRects([[1.4, 2.6, 10, 10], [0, 0, 0, 5], [0, 0, Number.NaN, 1], "x", [1, 2, 3], [5, 5, 2, 2]]),
    ).toEqual([
      [1, 3, 10, 10],
      [5, 5, 2, 2],
    ]);
    expect(cleanRects(null)).toEqual([]);
  });

  it("finds a point inside a rectangle, edges half-open", () => {
    expect(inRects([[10, 10, 5, 5]], 10, 14)).toBe(true);
    expect(inRects([[10, 10, 5, 5]], 15, 12)).toBe(false);
    expect(inRects([], 0, 0)).toBe(false);
  });
});
