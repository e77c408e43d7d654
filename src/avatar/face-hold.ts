/**
 * Faces relax (docs/avatar.md "Faces relax"): a cue's emotion holds while her speech plays (or the reply's text
 * is revealed) and eases back to her resting face `hold` seconds after the last of it. Pure: the clock and the
 * timer are handed in.
 */

/** The clock and timer the hold runs on (the page's by default). */
export interface HoldTimers {
  now(): number;
  setTimeout(f: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const pageTimers: HoldTimers = {
  now: () => performance.now(),
  setTimeout: (f, ms) => setTimeout(f, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

export interface FaceHold {
  /** An emotion is shown now; it relaxes `hold` seconds after her speech stops (null: it never does). */
  show(hold: number | null): void;
  /** Her speech or the reply's text goes on: the face holds. */
  active(): void;
  /** Forget the face shown (another window shows hers now, or the stage is going): no relax. */
  cancel(): void;
  /** Whether a face is held now. */
  holding(): boolean;
}

/** A hold that calls `relax` once the face's time is up. */
export function createFaceHold(relax: () => void, timers: HoldTimers = pageTimers): FaceHold {
  let hold: number | null = null;
  let holding = false;
  let last = 0;
  let timer: unknown = null;
  const disarm = () => {
    if (timer !== null) timers.clearTimeout(timer);
    timer = null;
  };
  // One timer at a time, re-armed when it fires early (activity moved the end since it was set).
  const arm = () => {
    if (!holding || hold === null || timer !== null) return;
    const wait = Math.max(0, last + hold * 1000 - timers.now());
    timer = timers.setTimeout(() => {
      timer = null;
      if (!holding || hold === null) return;
      if (timers.now() < last + hold * 1000) return arm();
      holding = false;
      relax();
    }, wait);
  };
  return {
    show(h) {
      hold = h;
      holding = true;
      last = timers.now();
      disarm();
      arm();
    },
    active() {
      if (!holding) return;
      last = timers.now();
      arm();
    },
    cancel() {
      holding = false;
      disarm();
    },
    holding: () => holding,
  };
}
