import { describe, expect, it } from "vitest";
import { ManualClock } from "../test/manual-clock.ts";
import { startPoller } from "./poller.ts";

describe("poller", () => {
  it("polls every interval after the previous poll ended, never overlapping", async () => {
    const clock = new ManualClock();
    const starts: number[] = [];
    let running = 0;
    let overlap = false;
    const p = startPoller(
      async () => {
        starts.push(clock.now());
        if (running++ > 0) overlap = true;
        await new Promise((r) => setImmediate(r));
        running--;
      },
      1000,
      clock,
      () => {},
    );
    await clock.advance(3500);
    p.stop();
    await clock.advance(5000);
    expect(starts).toEqual([0, 1000, 2000, 3000]);
    expect(overlap).toBe(false);
  });

  it("reports a failure once until it changes or polling recovers", async () => {
    const clock = new ManualClock();
    const errors: string[] = [];
    const script = ["down", "down", "down", null, "down", "other"];
    const p = startPoller(
      async () => {
        const e = script.shift();
        if (e) throw new Error(e);
      },
      1000,
      clock,
      (m) => errors.push(m),
    );
    await clock.advance(6000);
    p.stop();
    expect(errors).toEqual(["down", "down", "other"]);
  });
});
