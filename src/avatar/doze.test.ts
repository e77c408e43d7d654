import { describe, expect, it } from "vitest";
import { createDozeTimer, DOZE_SETTLE_S, dozeStep, WAKE_S } from "./doze.ts";

/** A doze timer on hand-driven timers: `run()` fires the pending one. */
function timer() {
  const changes: boolean[] = [];
  let pending: { f: () => void; ms: number } | null = null;
  const t = createDozeTimer({
    onChange: (on) => changes.push(on),
    setTimeout: (f, ms) => {
      pending = { f, ms };
      return pending;
    },
    clearTimeout: (x) => {
      if (x === pending) pending = null;
    },
  });
  return {
    t,
    changes,
    pending: () => pending?.ms ?? null,
    run() {
      const p = pending;
      pending = null;
      p?.f();
    },
  };
}

describe("doze timer", () => {
  it("dozes after the delay, wakes on activity and waits again", () => {
    const d = timer();
    d.t.delay(180_000);
    expect(d.pending()).toBe(180_000);
    d.run();
    expect(d.t.dozing()).toBe(true);
    expect(d.pending()).toBeNull();
    d.t.activity();
    expect(d.changes).toEqual([true, false]);
    expect(d.pending()).toBe(180_000);
  });

  it("never dozes with no delay, and wakes when the delay is turned off", () => {
    const d = timer();
    d.t.activity();
    expect(d.pending()).toBeNull();
    d.t.delay(1000);
    d.run();
    d.t.delay(null);
    expect(d.changes).toEqual([true, false]);
    expect(d.pending()).toBeNull();
  });

  it("stays awake while a hold is on and waits again when the last one ends", () => {
    const d = timer();
    d.t.delay(1000);
    d.t.hold("turn", true);
    d.t.hold("drag", true);
    expect(d.pending()).toBeNull();
    d.t.hold("turn", false);
    expect(d.pending()).toBeNull();
    d.t.hold("drag", false);
    expect(d.pending()).toBe(1000);
    d.run();
    d.t.hold("mouth", true);
    expect(d.changes).toEqual([true, false]);
  });

  it("moves her level at the settling and waking speeds, at once under reduced motion", () => {
    expect(dozeStep(0, 1, DOZE_SETTLE_S / 2, false)).toBeCloseTo(0.5);
    expect(dozeStep(1, 0, WAKE_S / 2, false)).toBeCloseTo(0.5);
    expect(dozeStep(1, 1, 0.1, false)).toBe(1);
    expect(dozeStep(0, 0, 0.1, false)).toBe(0);
    expect(dozeStep(0, 1, 0.01, true)).toBe(1);
  });
});
