import { describe, expect, it } from "vitest";
import { createFaceHold, type HoldTimers } from "./face-hold.ts";

/** A hand-driven clock: `advance` runs every timer that falls due, in order. */
function handClock() {
  let now = 0;
  let next = 1;
  const timers = new Map<number, { at: number; f: () => void }>();
  const t: HoldTimers & { advance(ms: number): void; pending(): number } = {
    now: () => now,
    setTimeout(f, ms) {
      timers.set(next, { at: now + ms, f });
      return next++;
    },
    clearTimeout: (h) => void timers.delete(h as number),
    advance(ms) {
      const end = now + ms;
      for (;;) {
        const due = [...timers.entries()].filter(([, x]) => x.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
        if (!due) break;
        timers.delete(due[0]);
        now = due[1].at;
        due[1].f();
      }
      now = end;
    },
    pending: () => timers.size,
  };
  return t;
}

describe("a face's hold", () => {
  it("relaxes `hold` seconds after the face is shown when nothing goes on", () => {
    const clock = handClock();
    let relaxed = 0;
    const face = createFaceHold(() => relaxed++, clock);
    face.show(4);
    clock.advance(3999);
    expect(relaxed).toBe(0);
    expect(face.holding()).toBe(true);
    clock.advance(1);
    expect(relaxed).toBe(1);
    expect(face.holding()).toBe(false);
    clock.advance(60_000);
    expect(relaxed).toBe(1);
  });

  it("holds while her speech goes on, then relaxes `hold` seconds after the last of it, with one timer at a time", () => {
    const clock = handClock();
    let relaxed = 0;
    const face = createFaceHold(() => relaxed++, clock);
    face.show(2);
    for (let i = 0; i < 100; i++) {
      clock.advance(100);
      face.active();
      expect(clock.pending()).toBe(1);
    }
    // Ten seconds of speech: still held.
    expect(relaxed).toBe(0);
    clock.advance(1999);
    expect(relaxed).toBe(0);
    clock.advance(1);
    expect(relaxed).toBe(1);
    // Speech after she relaxed holds nothing.
    face.active();
    clock.advance(10_000);
    expect(relaxed).toBe(1);
  });

  it("a new face starts its own hold; a cancelled one never relaxes; null holds until the next face", () => {
    const clock = handClock();
    let relaxed = 0;
    const face = createFaceHold(() => relaxed++, clock);
    face.show(4);
    clock.advance(3000);
    face.show(1);
    clock.advance(1000);
    expect(relaxed).toBe(1);
    face.show(4);
    face.cancel();
    clock.advance(10_000);
    expect(relaxed).toBe(1);
    face.show(null);
    clock.advance(600_000);
    expect(relaxed).toBe(1);
    expect(face.holding()).toBe(true);
    face.show(0);
    clock.advance(0);
    expect(relaxed).toBe(2);
  });
});
