// pollWorld's schedule with fake timers: polling only while pollWhile says moves matter, readings on demand.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { World } from "../../src/body/world.ts";
import { pollWorld } from "./poll.ts";

const world = (n: number): World => ({
  windows: [],
  monitors: [
    {
      name: `m${n}`,
      rect: { x: 0, y: 0, width: n, height: 1 },
      workArea: { x: 0, y: 0, width: n, height: 1 },
    },
  ],
});

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("pollWorld", () => {
  it("polls every intervalMs while pollWhile is true, and tells only readings that changed", async () => {
    let reads = 0;
    const told: World[] = [];
    const w = pollWorld(
      async () => world(reads++ < 2 ? 1 : 2),
      (x) => told.push(x),
      { intervalMs: 500 },
    );
    await vi.advanceTimersByTimeAsync(2_000);
    expect(reads).toBe(5);
    expect(told.map((x) => x.monitors[0]!.name)).toEqual(["m1", "m2"]);
    w.stop();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(reads).toBe(5);
  });

  it("stops polling while pollWhile is false; refresh() reads at once; resume() polls again", async () => {
    let reads = 0;
    let matter = false;
    const w = pollWorld(
      async () => world(++reads),
      () => {},
      { intervalMs: 500, pollWhile: () => matter },
    );
    await vi.advanceTimersByTimeAsync(60_000);
    expect(reads).toBe(1);
    await w.refresh();
    expect(reads).toBe(2);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(reads).toBe(2);
    matter = true;
    w.resume();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(reads).toBe(4);
    matter = false;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(reads).toBe(5);
    w.stop();
  });

  it("a refresh during a reading waits for a reading that starts after it", async () => {
    let reads = 0;
    let release: (() => void) | undefined;
    const w = pollWorld(
      () =>
        new Promise<World>((resolve) => {
          reads++;
          release = () => resolve(world(reads));
        }),
      () => {},
      { pollWhile: () => false },
    );
    expect(reads).toBe(1);
    let done = false;
    const refreshed = w.refresh().then(() => {
      done = true;
    });
    release!();
    await vi.advanceTimersByTimeAsync(0);
    // The reading that was running when refresh() came does not count: a second one started.
    expect(reads).toBe(2);
    expect(done).toBe(false);
    release!();
    await refreshed;
    expect(done).toBe(true);
    w.stop();
  });
});
