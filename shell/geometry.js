// Pure geometry of the desktop shells, one copy for both: the Linux shell (gtk/main.js, run by gjs, which
// cannot load TypeScript) and the Electron shell (electron/logic.ts, bundled by esbuild). Types: geometry.d.ts.

/** Whether two rectangles `{x, y, width, height}` overlap by at least one pixel. */
export function intersects(a, b) {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/**
 * Where a window `rect` goes so that it stays on a visible monitor: unchanged when its centre lies in some
 * monitor's work area, else moved (size kept, clamped) into the primary monitor's work area (the first one
 * when none is primary). Returns `{x, y}`.
 */
export function placeOnVisible(rect, monitors) {
  if (!monitors.length) return { x: rect.x, y: rect.y };
  const cx = rect.x + rect.width / 2;
  const cy = rect.y + rect.height / 2;
  const inside = monitors.some(
    (m) =>
      cx >= m.workarea.x &&
      cx < m.workarea.x + m.workarea.width &&
      cy >= m.workarea.y &&
      cy < m.workarea.y + m.workarea.height,
  );
  if (inside) return { x: rect.x, y: rect.y };
  const wa = (monitors.find((m) => m.primary) ?? monitors[0]).workarea;
  const clamp = (v, lo, len, size) => Math.max(lo, Math.min(v, lo + len - size));
  return { x: clamp(rect.x, wa.x, wa.width, rect.width), y: clamp(rect.y, wa.y, wa.height, rect.height) };
}

/** Whether the point (x, y) lies in one of `rects` (`[x, y, width, height]` arrays, window coordinates). */
export function inRects(rects, x, y) {
  return rects.some(([rx, ry, rw, rh]) => x >= rx && x < rx + rw && y >= ry && y < ry + rh);
}

/** Keeps only well-formed rectangles (four finite numbers, positive size), rounded to whole pixels. */
export function cleanRects(rects) {
  if (!Array.isArray(rects)) return [];
  const out = [];
  for (const r of rects) {
    if (!Array.isArray(r) || r.length !== 4 || !r.every((v) => Number.isFinite(v))) continue;
    const [x, y, w, h] = r.map((v) => Math.round(v));
    if (w > 0 && h > 0) out.push([x, y, w, h]);
  }
  return out.slice(0, 4096);
}
