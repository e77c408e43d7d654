/**
 * Her watching the pointer a while (docs/body.md "A little life of her own"): the pointer's place is read from the
 * X connection a few times a second for that while only, and handed to her page as a point in her window's
 * normalized device coordinates (the stage's gaze turns her head and eyes toward it).
 */
import type { UserInput } from "../x11/windows.ts";

/** How often the pointer is read while she watches it. */
export const GAZE_MS = 200;

/** The pointer at `p` (root pixels) in the normalized device coordinates of her window at `w` (-1..1, y up). */
export function gazeAt(
  p: { x: number; y: number },
  w: { x: number; y: number; width: number; height: number },
): [number, number] {
  const round = (v: number) => Math.round(v * 1000) / 1000;
  return [round(((p.x - w.x) / w.width) * 2 - 1), round(1 - ((p.y - w.y) / w.height) * 2)];
}

/**
 * Watches the pointer for `ms`: `onGaze` hears each new point, then null when the time is up or the answer is
 * stopped; answers what stops it.
 */
export function watchPointer(
  input: Pick<UserInput, "pointer">,
  window: () => { x: number; y: number; width: number; height: number },
  ms: number,
  onGaze: (g: [number, number] | null) => void,
): () => void {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const end = setTimeout(() => stop(), ms);
  const read = async () => {
    const p = await input.pointer().catch(() => null);
    if (stopped) return;
    if (p) onGaze(gazeAt(p, window()));
    timer = setTimeout(() => void read(), GAZE_MS);
  };
  const stop = () => {
    if (stopped) return;
    stopped = true;
    clearTimeout(end);
    clearTimeout(timer);
    onGaze(null);
  };
  void read();
  return stop;
}
