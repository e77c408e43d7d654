// The witness recorder's clock: wall-clock stamps that never go back. The recorder runs for days, and
// the wall clock can step backwards under it (an NTP correction, the user fixing the time); a stamp
// taken after another must never read earlier, or the timeline's sort puts an idle_start before the
// idle_end it follows and shows an app in use while the user was away.

/** A source of stamps in epoch milliseconds. */
export interface StampClock {
  /** The next stamp: never before the previous one. */
  now(): number;
  /** Raises the clock to at least `t` (e.g. the last stamp already in today's file). */
  floor(t: number): void;
}

/**
 * Stamps from the wall clock, advanced by the monotonic clock in between. While the wall clock is at or
 * ahead of the stamps it is followed (also after a sleep, when a monotonic clock stands still). When it
 * stepped back, stamps go on from where they were at half the monotonic rate until the wall clock
 * catches up (after twice the step): never backwards, never more than the step ahead.
 */
export function stampClock(
  wall: () => number = Date.now,
  mono: () => number = () => performance.now(),
): StampClock {
  let stamp = wall();
  let at = mono();
  return {
    now() {
      const m = mono();
      const w = wall();
      const elapsed = Math.max(0, m - at);
      at = m;
      // Ahead of the wall clock at full speed: half speed instead, but not below the wall clock.
      stamp = stamp + elapsed <= w ? w : Math.max(stamp + elapsed / 2, w);
      return Math.floor(stamp);
    },
    floor(t) {
      if (t > stamp) stamp = t;
    },
  };
}
