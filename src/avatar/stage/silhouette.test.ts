import { describe, expect, it } from "vitest";
import { alphaRects, toPixels } from "./silhouette.ts";

const grid = (rows: string[]) => ({
  alpha: rows.flatMap((r) => [...r].map((c) => (c === "#" ? 255 : c === "." ? 0 : 10))),
  cols: rows[0]!.length,
  rows: rows.length,
});

describe("alphaRects", () => {
  it("covers exactly the opaque cells, merging equal runs of consecutive rows", () => {
    const g = grid(["..##..", "..##..", ".####.", "......", "#....#"]);
    const rects = alphaRects(g.alpha, g.cols, g.rows);
    expect(rects.sort()).toEqual(
      [
        [2, 0, 2, 2],
        [1, 2, 4, 1],
        [0, 4, 1, 1],
        [5, 4, 1, 1],
      ].sort(),
    );
    // Every opaque cell is in exactly one rectangle, and no transparent cell is in any.
    for (let y = 0; y < g.rows; y++)
      for (let x = 0; x < g.cols; x++) {
        const n = rects.filter(([rx, ry, w, h]) => x >= rx && x < rx + w && y >= ry && y < ry + h).length;
        expect(n).toBe(g.alpha[y * g.cols + x]! > 24 ? 1 : 0);
      }
  });

  it("treats faint alpha (antialiasing haze) as transparent, and an empty frame as no rectangle", () => {
    const g = grid(["~~~", "~#~"]);
    expect(alphaRects(g.alpha, g.cols, g.rows)).toEqual([[1, 1, 1, 1]]);
    expect(alphaRects(new Uint8Array(12), 4, 3)).toEqual([]);
  });

  it("scales cells to pixels at the canvas's offset", () => {
    expect(toPixels([[1, 2, 3, 1]], 8, 100, 50)).toEqual([[108, 66, 24, 8]]);
  });
});
