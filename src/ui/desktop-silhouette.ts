/**
 * What takes clicks in her desktop window (docs/desktop.md "Click-through"): her silhouette, read off the
 * stage right after a frame (at most every SAMPLE_MS, at a CELL-pixel grain), plus what the view adds (the
 * bubble, the open input). The shell gets it as the window's input shape whenever it changes; everything
 * else lets clicks through to the windows below. Without a drawn character (no WebGL, no model) the stage's
 * note is what the user can grab.
 */
import type { PageRect, PageToShell } from "../protocol/shell.ts";
import type { ShellLink } from "./desktop-shell.ts";
import type { StageArea } from "./stage-area.ts";

/** The silhouette's grain in CSS pixels, and how often it is sampled at most while she is drawn. */
const CELL = 8;
const SAMPLE_MS = 150;

/** An element's box in the page, or null when it is hidden or empty. */
export function boxOf(el: Element): PageRect | null {
  if ((el as HTMLElement).hidden) return null;
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0 ? [r.left, r.top, r.width, r.height] : null;
}

/** Her window's input shape, kept up to date with the shell. */
export interface ClickShape {
  /** Sends the shape again if it changed (the bubble or the input came or went). */
  report(): void;
  /** Whether (x, y) in the page is on her (not on the space around her). */
  onHer(x: number, y: number): boolean;
}

/** Follows the stage's frames and note; `extra` is what the view adds now (the bubble, the open input). */
export function followSilhouette(o: {
  shell: ShellLink;
  stage: StageArea | null;
  extra: () => (PageRect | null)[];
  /** The part of the window's height, from its bottom, where she is not drawn (her body's clip, docs/body.md). */
  clip?: () => number;
}): ClickShape {
  let silhouette: PageRect[] = [];
  let note: HTMLElement | null = null;
  let lastSent = "";
  let lastSample = 0;
  const herRects = (): PageRect[] => {
    const r = note ? boxOf(note) : null;
    const rects = silhouette.length ? silhouette : r ? [r] : [];
    // What is not drawn takes no click and drags nothing: her rectangles end at the clip's line.
    const line = innerHeight * (1 - (o.clip?.() ?? 0));
    return rects.flatMap(([x, y, w, h]): PageRect[] => (y >= line ? [] : [[x, y, w, Math.min(h, line - y)]]));
  };
  const report = () => {
    const her = herRects();
    const extra = o.extra().filter((r): r is PageRect => r !== null);
    const msg: PageToShell = { type: "shape", rects: [...her, ...extra], drag: her };
    const s = JSON.stringify(msg);
    if (s === lastSent) return;
    lastSent = s;
    o.shell.send(msg);
  };
  o.stage?.onNote((n) => {
    note = n;
    report();
  });
  o.stage?.onReady((stage) =>
    stage.onFrame(() => {
      const now = performance.now();
      if (now - lastSample < SAMPLE_MS) return;
      lastSample = now;
      silhouette = stage.silhouette(CELL);
      report();
    }),
  );
  addEventListener("resize", () => report());
  return {
    report,
    onHer: (x, y) => herRects().some(([rx, ry, w, h]) => x >= rx && x < rx + w && y >= ry && y < ry + h),
  };
}
