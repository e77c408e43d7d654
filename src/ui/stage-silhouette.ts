/**
 * Her silhouette while she loads (docs/avatar.md "Loading"): instead of a text pill, the wait shows her shape in
 * a soft flat colour where she will stand. Her shape is kept from the last time she was drawn in a stage of this
 * size (`keepSilhouette`, in the page's local storage, per character and stage size); before she was ever drawn
 * there, a plain figure stands in. It says "Loading the character…" to assistive technology and in its tooltip.
 */
import { h } from "./dom.ts";

/** The words of the wait (its label), and of the note shown when she cannot be drawn. */
export const LOADING_LABEL = "Loading the character…";

/** Her kept shape: where it sits in the stage (fractions of its box) and the image of it. */
interface Kept {
  x: number;
  y: number;
  w: number;
  h: number;
  url: string;
}

const keyOf = (presetId: string, w: number, hgt: number) => `yui:silhouette:${presetId}:${w}x${hgt}`;
const sizeOf = (el: HTMLElement) => [Math.round(el.clientWidth), Math.round(el.clientHeight)] as const;

function recall(key: string): Kept | null {
  try {
    const v = JSON.parse(localStorage.getItem(key) ?? "null") as Kept | null;
    return v && typeof v.url === "string" && v.url.startsWith("data:image/png") ? v : null;
  } catch {
    return null;
  }
}

/** A plain standing figure (head, hair, dress, legs), for a stage she was never drawn in. */
const FIGURE =
  "data:image/svg+xml," +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 300"><g fill="#8b7fb8" fill-opacity="0.45">' +
      '<ellipse cx="50" cy="38" rx="27" ry="30"/><path d="M22 44 Q14 95 26 120 L34 70 Z M78 44 Q86 95 74 120 L66 70 Z"/>' +
      '<path d="M38 70 H62 L66 110 L84 170 H16 L34 110 Z"/><path d="M30 110 L16 150 L22 152 L36 115 Z M70 110 L84 150 L78 152 L64 115 Z"/>' +
      '<rect x="36" y="168" width="11" height="120" rx="5"/><rect x="53" y="168" width="11" height="120" rx="5"/></g></svg>',
  );

/**
 * The element that waits in `stage` (a stage's box) for `presetId`: her kept shape for the stage's size (looked up
 * again when the stage is resized), or the plain figure. `dispose` stops following the size.
 */
export function waitingSilhouette(
  presetId: string,
  stage: HTMLElement,
): { el: HTMLElement; dispose(): void } {
  const el = h("div", {
    class: "stage-note stage-silhouette",
    role: "status",
    "aria-label": LOADING_LABEL,
    title: LOADING_LABEL,
    "data-testid": "stage-silhouette",
  });
  const show = () => {
    const [w, hgt] = sizeOf(stage);
    const kept = w && hgt ? recall(keyOf(presetId, w, hgt)) : null;
    el.classList.toggle("figure", !kept);
    el.dataset.kept = kept ? "true" : "false";
    el.style.backgroundImage = `url("${kept ? kept.url : FIGURE}")`;
    const at = kept ? [kept.x, kept.y, kept.w, kept.h].map((v) => `${v * 100}%`) : ["", "", "", ""];
    [el.style.left, el.style.top, el.style.width, el.style.height] = at as [string, string, string, string];
  };
  show();
  // The stage is laid out (and may be resized) after it is mounted.
  const observer = typeof ResizeObserver === "function" ? new ResizeObserver(show) : null;
  observer?.observe(stage);
  return { el, dispose: () => observer?.disconnect() };
}

/**
 * Keeps her shape from the frame just drawn on `canvas` (call it in the stage's onFrame listener, while the
 * drawing buffer holds the frame); nothing is kept when nothing of her is drawn.
 */
export function keepSilhouette(presetId: string, canvas: HTMLCanvasElement): void {
  const [w, hgt] = sizeOf(canvas);
  if (!w || !hgt) return;
  const c = document.createElement("canvas");
  c.width = w;
  c.height = hgt;
  const g = c.getContext("2d", { willReadFrequently: true });
  if (!g) return;
  g.drawImage(canvas, 0, 0, w, hgt);
  const img = g.getImageData(0, 0, w, hgt);
  const px = img.data;
  let [x0, y0, x1, y1] = [w, hgt, -1, -1];
  for (let y = 0; y < hgt; y++) {
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 4;
      const on = px[i + 3]! > 24;
      // Her shape in one flat colour (the figure's), the rest clear.
      px[i] = 0x8b;
      px[i + 1] = 0x7f;
      px[i + 2] = 0xb8;
      px[i + 3] = on ? 115 : 0;
      if (!on) continue;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
    }
  }
  if (x1 < 0) return;
  const cw = x1 - x0 + 1;
  const ch = y1 - y0 + 1;
  const crop = document.createElement("canvas");
  crop.width = cw;
  crop.height = ch;
  crop.getContext("2d")?.putImageData(img, -x0, -y0, x0, y0, cw, ch);
  const kept: Kept = { x: x0 / w, y: y0 / hgt, w: cw / w, h: ch / hgt, url: crop.toDataURL("image/png") };
  try {
    localStorage.setItem(keyOf(presetId, w, hgt), JSON.stringify(kept));
  } catch {
    // Storage full or refused: the next wait shows the plain figure.
  }
}
