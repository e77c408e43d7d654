/**
 * Her silhouette as coarse rectangles, from the rendered alpha: the desktop shell takes clicks only inside
 * them (click-through everywhere else, docs/desktop.md). alphaRects and toPixels are pure (tested without a
 * GPU); createSilhouette reads the canvas.
 */
import type { PageRect } from "../../protocol/shell.ts";

/** `[x, y, width, height]`. */
export type Rect = PageRect;

/**
 * Rectangles covering the cells of a `cols`×`rows` alpha grid (row-major, 0–255) whose alpha exceeds
 * `threshold`: one run per row of opaque cells, runs repeated on the next rows merged into taller
 * rectangles. Coordinates are in cells.
 */
export function alphaRects(alpha: ArrayLike<number>, cols: number, rows: number, threshold = 24): Rect[] {
  const done: Rect[] = [];
  // Open rectangles by "x0:x1": they grow downwards while the next row has the same run.
  let open = new Map<string, Rect>();
  for (let y = 0; y < rows; y++) {
    const next = new Map<string, Rect>();
    let x = 0;
    while (x < cols) {
      if (alpha[y * cols + x]! <= threshold) {
        x++;
        continue;
      }
      const x0 = x;
      while (x < cols && alpha[y * cols + x]! > threshold) x++;
      const key = `${x0}:${x}`;
      const r = open.get(key);
      if (r) {
        r[3]++;
        open.delete(key);
        next.set(key, r);
      } else next.set(key, [x0, y, x - x0, 1]);
    }
    done.push(...open.values());
    open = next;
  }
  done.push(...open.values());
  return done;
}

/** Scales cell rectangles to pixels and moves them by (dx, dy). */
export function toPixels(rects: Rect[], cell: number, dx = 0, dy = 0): Rect[] {
  return rects.map(([x, y, w, h]) => [dx + x * cell, dy + y * cell, w * cell, h * cell]);
}

/**
 * Reads her silhouette off `canvas` at a `cell`-pixel grain, in the page's CSS pixels: the canvas scaled down
 * to one pixel a cell, its alpha into rectangles. Read right after a frame, in the same task, while the
 * drawing buffer still holds it (Stage.onFrame); empty without a 2D context.
 */
export function createSilhouette(canvas: HTMLCanvasElement): (cell: number) => Rect[] {
  const small = document.createElement("canvas");
  const small2d = small.getContext("2d", { willReadFrequently: true });
  return (cell) => {
    if (!small2d) return [];
    const r = canvas.getBoundingClientRect();
    const cols = Math.max(1, Math.ceil(r.width / cell));
    const rows = Math.max(1, Math.ceil(r.height / cell));
    if (small.width !== cols || small.height !== rows) {
      small.width = cols;
      small.height = rows;
    }
    small2d.clearRect(0, 0, cols, rows);
    small2d.drawImage(canvas, 0, 0, cols, rows);
    const data = small2d.getImageData(0, 0, cols, rows).data;
    const alpha = new Uint8Array(cols * rows);
    for (let i = 0; i < alpha.length; i++) alpha[i] = data[i * 4 + 3]!;
    return toPixels(alphaRects(alpha, cols, rows), cell, r.left, r.top);
  };
}
