import { describe, expect, it } from "vitest";
import { stampClock } from "./stamp-clock.ts";

/** A scripted wall clock and monotonic clock, both in ms. */
function clocks(wall0: number) {
  const c = { wall: wall0, mono: 0 };
  const advance = (ms: number) => {
    c.wall += ms;
    c.mono += ms;
  };
  return {
    c,
    advance,
    clock: stampClock(
      () => c.wall,
      () => c.mono,
    ),
  };
}

describe("stampClock", () => {
  it("follows the wall clock while it runs normally", () => {
    const { advance, clock } = clocks(1_000_000);
    expect(clock.now()).toBe(1_000_000);
    advance(5_000);
    expect(clock.now()).toBe(1_005_000);
  });

  it("never goes back when the wall clock steps back, and rejoins it after twice the step", () => {
    const { c, advance, clock } = clocks(10_000_000);
    advance(5_000);
    const before = clock.now();
    c.wall -= 3_600_000; // the time is set back an hour
    const seen: { stamp: number; wall: number }[] = [];
    for (let i = 0; i < 2 * 720 + 10; i++) {
      advance(5_000); // a poll every 5 s for a little over two hours
      seen.push({ stamp: clock.now(), wall: c.wall });
    }
    // Half speed while ahead: 5 s of real time is 2.5 s of stamps...
    expect(seen[0]!.stamp - before).toBe(2_500);
    let last = before;
    for (const { stamp, wall } of seen) {
      expect(stamp).toBeGreaterThan(last);
      // ...never more than the step ahead of the wall clock, never behind it...
      expect(stamp - wall).toBeLessThanOrEqual(3_600_000);
      expect(stamp).toBeGreaterThanOrEqual(wall);
      last = stamp;
    }
    // ...and on the wall clock again two hours later.
    expect(seen[2 * 720 - 1]!.stamp).toBe(seen[2 * 720 - 1]!.wall);
    expect(seen.at(-1)!.stamp).toBe(seen.at(-1)!.wall);
  });

  it("jumps forward with the wall clock after a sleep, when the monotonic clock stood still", () => {
    const { c, clock } = clocks(2_000_000);
    clock.now();
    c.wall += 8 * 3_600_000; // a night asleep: the wall clock moved, the monotonic one did not
    expect(clock.now()).toBe(2_000_000 + 8 * 3_600_000);
  });

  it("starts no earlier than a floor", () => {
    const { advance, clock } = clocks(1_000_000);
    clock.floor(1_060_000);
    advance(10_000);
    const t = clock.now();
    expect(t).toBeGreaterThanOrEqual(1_060_000);
    advance(10_000);
    expect(clock.now()).toBeGreaterThan(t);
  });
});
