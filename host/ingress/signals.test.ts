import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createCoalescer, type IngressSignal, parseSignal } from "./signals.ts";

const at = new Date("2026-11-30T12:00:00.000Z");
const sig = (extra: Record<string, unknown> = {}) => {
  const s = parseSignal({ source: "factorio", event_type: "game.wake", ...extra }, at);
  if (typeof s === "string") throw new Error(s);
  return s;
};

describe("the coalescer", () => {
  let clock = 0;
  beforeEach(() => {
    vi.useFakeTimers();
    clock = 0;
  });
  afterEach(() => vi.useRealTimers());
  const make = (got: IngressSignal[]) =>
    createCoalescer(
      (s) => got.push(s),
      { urgentGapMs: 2_000, normalGapMs: 15_000, maxHeld: 2, maxPerMinute: 100 },
      () => clock,
    );
  const advance = (ms: number) => {
    clock += ms;
    vi.advanceTimersByTime(ms);
  };

  it("hands the first signal of a pair on at once and the burst after it as one, once the gap has passed", () => {
    const got: IngressSignal[] = [];
    const c = make(got);
    expect(c.offer(sig({ delivery: "urgent", n: 1 }))).toBe("delivered");
    expect(c.offer(sig({ delivery: "urgent", n: 2, reset: true }))).toBe("held");
    advance(500);
    expect(c.offer(sig({ delivery: "urgent", n: 3, reset: false }))).toBe("held");
    advance(1_499);
    expect(got).toHaveLength(1);
    advance(1);
    expect(got).toHaveLength(2);
    expect(got[1]).toMatchObject({ count: 2, body: { n: 3, reset: true, delivery: "urgent" } });
  });

  it("waits the normal gap for normal signals, and an urgent one merged in shortens it", () => {
    const got: IngressSignal[] = [];
    const c = make(got);
    c.offer(sig());
    expect(c.offer(sig({ n: 2 }))).toBe("held");
    advance(2_000);
    expect(got).toHaveLength(1);
    c.offer(sig({ n: 3, delivery: "urgent" }));
    advance(0);
    expect(got).toHaveLength(2);
    expect(got[1]).toMatchObject({ delivery: "urgent", count: 2, body: { n: 3, delivery: "urgent" } });
  });

  it("lets a pair through again at once after a quiet gap, keeps pairs apart, and caps the held pairs", () => {
    const got: IngressSignal[] = [];
    const c = make(got);
    c.offer(sig({ delivery: "urgent" }));
    advance(2_000);
    expect(c.offer(sig({ delivery: "urgent" }))).toBe("delivered");
    expect(c.offer(sig({ event_type: "a" }))).toBe("delivered");
    expect(c.offer(sig({ event_type: "b" }))).toBe("delivered");
    expect(c.offer(sig({ event_type: "a" }))).toBe("held");
    expect(c.offer(sig({ event_type: "b" }))).toBe("held");
    expect(c.offer(sig({ delivery: "urgent" }))).toBe("full");
    c.close();
    advance(60_000);
    expect(got.map((s) => s.event_type)).toEqual(["game.wake", "game.wake", "a", "b"]);
  });

  it("holds new pairs once the minute's budget is spent and hands them on as slots free", () => {
    const got: IngressSignal[] = [];
    const c = createCoalescer(
      (s) => got.push(s),
      { urgentGapMs: 2_000, normalGapMs: 15_000, maxHeld: 8, maxPerMinute: 3 },
      () => clock,
    );
    expect(["a", "b", "c", "d", "e"].map((t) => c.offer(sig({ event_type: t })))).toEqual([
      "delivered",
      "delivered",
      "delivered",
      "held",
      "held",
    ]);
    advance(10_000);
    expect(c.offer(sig({ event_type: "f" }))).toBe("held");
    advance(49_999);
    expect(got.map((s) => s.event_type)).toEqual(["a", "b", "c"]);
    advance(1);
    // The first minute's three slots free together: the three held pairs take them.
    expect(got.map((s) => s.event_type).sort()).toEqual(["a", "b", "c", "d", "e", "f"]);
    c.close();
  });

  it("reports a throwing handler and keeps going", () => {
    const err = vi.spyOn(console, "error").mockImplementation(() => {});
    let calls = 0;
    const c = createCoalescer(() => {
      calls++;
      throw new Error("app down");
    });
    expect(c.offer(sig())).toBe("delivered");
    expect(c.offer(sig({ event_type: "other" }))).toBe("delivered");
    expect(calls).toBe(2);
    expect(err).toHaveBeenCalledWith("[ingress] onSignal threw for factorio/game.wake: app down");
    err.mockRestore();
    c.close();
  });
});
