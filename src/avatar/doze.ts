/**
 * Her doze (docs/avatar.md "Dozing"): after a while with nothing that concerns her, she settles into a resting
 * pose with her eyes shut and the stage stops drawing; anything that concerns her wakes her at once with a short
 * waking motion. This module holds the two pure parts: the timer that decides when she dozes (activity resets
 * it, a hold keeps her awake while it lasts) and the level that moves her between awake (0) and dozing (1).
 */

/** The doze delay when the setting is unset: three minutes. */
export const DEFAULT_DOZE_DELAY_S = 180;
/** Seconds her settling into the resting pose takes. */
export const DOZE_SETTLE_S = 1.5;
/** Seconds her waking motion takes (head up, eyes open). */
export const WAKE_S = 0.6;

/** What the timer needs from its page: timers (the page's own by default). */
export interface DozeTimerDeps {
  /** She dozes (true) or wakes (false): called on each change. */
  onChange(dozing: boolean): void;
  setTimeout?: (f: () => void, ms: number) => unknown;
  clearTimeout?: (t: unknown) => void;
}

/**
 * The doze timer: `delay(ms)` sets the wait (null: never dozes), `activity()` is something that concerns her
 * (it wakes her and starts the wait again), `hold(why, on)` keeps her awake while any hold is on (a turn, a drag,
 * the user speaking) and starts the wait when the last one ends.
 */
export function createDozeTimer(deps: DozeTimerDeps) {
  const set = deps.setTimeout ?? ((f: () => void, ms: number) => globalThis.setTimeout(f, ms));
  const clear = deps.clearTimeout ?? ((t: unknown) => globalThis.clearTimeout(t as number));
  let delayMs: number | null = null;
  let dozing = false;
  let timer: unknown = null;
  const holds = new Set<string>();
  const change = (on: boolean) => {
    if (dozing === on) return;
    dozing = on;
    deps.onChange(on);
  };
  const arm = () => {
    if (timer !== null) clear(timer);
    timer = null;
    if (delayMs === null || holds.size > 0 || dozing) return;
    timer = set(() => {
      timer = null;
      change(true);
    }, delayMs);
  };
  return {
    dozing: () => dozing,
    /** The wait before she dozes, in milliseconds; null: she never dozes (and wakes now if she does). */
    delay(ms: number | null) {
      if (ms === delayMs) return;
      delayMs = ms;
      if (ms === null) change(false);
      arm();
    },
    /** Something that concerns her: she wakes (if she dozes) and the wait starts again. */
    activity() {
      change(false);
      arm();
    },
    /** Keeps her awake while `why` is on (waking her); the wait starts again when the last hold ends. */
    hold(why: string, on: boolean) {
      if (on === holds.has(why)) return;
      if (on) {
        holds.add(why);
        change(false);
      } else holds.delete(why);
      arm();
    },
    dispose() {
      if (timer !== null) clear(timer);
      timer = null;
    },
  };
}
export type DozeTimer = ReturnType<typeof createDozeTimer>;

/**
 * Her doze level after `dt` seconds on the way to `target` (1 dozing, 0 awake): settling takes DOZE_SETTLE_S,
 * waking WAKE_S; under reduced motion she is there at once (no motion).
 */
export function dozeStep(level: number, target: 0 | 1, dt: number, reduced: boolean): number {
  if (reduced || level === target) return target;
  if (target > level) return Math.min(1, level + dt / DOZE_SETTLE_S);
  return Math.max(0, level - dt / WAKE_S);
}

/** Smooth start and end of the move between awake and dozing. */
export const dozeEase = (k: number): number => k * k * (3 - 2 * k);
