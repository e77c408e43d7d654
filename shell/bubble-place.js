// @ts-check
// Where her bubble's window goes (docs/desktop.md "Her bubble"): beside her head, never over her face, always
// inside the work area of the monitor her face is on. Pure geometry, shared by both shells through the core
// (core.js) and tested by core.test.ts.

/** @typedef {import("./contract.ts").Monitor} Monitor */
/** @typedef {import("./contract.ts").Rect} Rect */
/** @typedef {import("./contract.ts").PageRect} PageRect */
/** @typedef {"above" | "right" | "left" | "below"} Side */

/** The space between her face's box and the bubble, in pixels. */
export const BUBBLE_GAP = 6;
/** The tallest a bubble gets: a longer reply scrolls, its newest line in view (the whole of it is in Chat). */
export const BUBBLE_MAX_HEIGHT = 240;
/** The smallest height a bubble is given where room is short (its text scrolls). */
export const BUBBLE_MIN_HEIGHT = 48;

/**
 * Her face's box on the screen: `face` (in her window) moved by her window's place; without one, the upper
 * middle of her window (where a standing character's head is).
 * @param {Rect} her
 * @param {PageRect | null} face
 * @returns {Rect}
 */
export function faceOnScreen(her, face) {
  if (face) return { x: her.x + face[0], y: her.y + face[1], width: face[2], height: face[3] };
  return {
    x: her.x + Math.round(her.width * 0.3),
    y: her.y + Math.round(her.height * 0.05),
    width: Math.round(her.width * 0.4),
    height: Math.round(her.height * 0.2),
  };
}

/**
 * The work area of the monitor under (x, y), else the primary's (else the first's).
 * @param {Monitor[]} monitors
 * @param {number} x
 * @param {number} y
 * @returns {Rect | null}
 */
function workAreaAt(monitors, x, y) {
  const on = monitors.find(
    (m) =>
      x >= m.geometry.x &&
      x < m.geometry.x + m.geometry.width &&
      y >= m.geometry.y &&
      y < m.geometry.y + m.geometry.height,
  );
  return (on ?? monitors.find((m) => m.primary) ?? monitors[0])?.workarea ?? null;
}

const clamp = (/** @type {number} */ v, /** @type {number} */ lo, /** @type {number} */ hi) =>
  Math.max(lo, Math.min(hi, v));

/**
 * Where a bubble that wants `size` goes beside the face box `face` (screen pixels): above her head, else on the
 * side of her face with room, else below it; each inside the work area of the monitor her face is on, and
 * never over the face; at most BUBBLE_MAX_HEIGHT tall. When none has room for the whole bubble, the side with
 * the most is taken and the bubble is made shorter there (its text scrolls).
 * @param {Rect} face
 * @param {{ width: number, height: number }} size
 * @param {Monitor[]} monitors
 * @returns {Rect & { side: Side }}
 */
export function placeBubble(face, size, monitors) {
  const cx = face.x + face.width / 2;
  const cy = face.y + face.height / 2;
  const wa = workAreaAt(monitors, cx, cy) ?? { x: 0, y: 0, width: 1 << 14, height: 1 << 14 };
  const right = wa.x + wa.width;
  const bottom = wa.y + wa.height;
  const width = Math.round(Math.min(size.width, wa.width));
  const want = Math.round(Math.min(size.height, BUBBLE_MAX_HEIGHT));
  // The room (height) on each side, and where the bubble goes there for a height h.
  const xCentred = Math.round(clamp(cx - width / 2, wa.x, right - width));
  const yBeside = (/** @type {number} */ h) => Math.round(clamp(cy - h / 2, wa.y, bottom - h));
  /** @type {{ side: Side, room: number, at: (h: number) => { x: number, y: number } }[]} */
  const sides = [
    {
      side: "above",
      room: face.y - BUBBLE_GAP - wa.y,
      at: (h) => ({ x: xCentred, y: face.y - BUBBLE_GAP - h }),
    },
    {
      side: "right",
      room: face.x + face.width + BUBBLE_GAP + width <= right ? wa.height : 0,
      at: (h) => ({ x: face.x + face.width + BUBBLE_GAP, y: yBeside(h) }),
    },
    {
      side: "left",
      room: face.x - BUBBLE_GAP - width >= wa.x ? wa.height : 0,
      at: (h) => ({ x: face.x - BUBBLE_GAP - width, y: yBeside(h) }),
    },
    {
      side: "below",
      room: bottom - (face.y + face.height + BUBBLE_GAP),
      at: () => ({ x: xCentred, y: face.y + face.height + BUBBLE_GAP }),
    },
  ];
  const fits = sides.find((s) => s.room >= want);
  const best = fits ?? sides.reduce((a, b) => (b.room > a.room ? b : a));
  const height = Math.max(1, Math.min(want, fits ? want : Math.max(BUBBLE_MIN_HEIGHT, best.room)));
  const p = best.at(height);
  // Kept inside the work area whatever happens (a work area smaller than the bubble's smallest height).
  return {
    x: Math.round(clamp(p.x, wa.x, right - width)),
    y: Math.round(clamp(p.y, wa.y, bottom - height)),
    width,
    height,
    side: best.side,
  };
}
