/**
 * Her silhouette as coarse rectangles, from the rendered alpha: the desktop shell takes clicks only inside
 * them (click-through everywhere else). Pure: works on an alpha grid, so it is tested without a GPU.
 */

/** `[x, y, width, height]`. */
export type Rect = [number, number, number, number];

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
