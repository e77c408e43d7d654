import { describe, expect, it } from "vitest";
import { createSpeechScheduler } from "./scheduler.ts";
import type { Segment } from "./segmenter.ts";

const seg = (index: number): Segment => ({
  index,
  text: `s${index}`,
  start: index * 10,
  end: index * 10 + 10,
});
const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

/** A scheduler whose syntheses and playbacks the test resolves by hand. */
function harness(ahead?: number) {
  const log: string[] = [];
  const synth = new Map<number, { resolve(a: string): void; reject(e: Error): void; signal: AbortSignal }>();
  const plays = new Map<number, () => void>();
  let idle = 0;
  const s = createSpeechScheduler<string>({
    ahead,
    synthesize: (g, signal) =>
      new Promise((resolve, reject) => {
        log.push(`synth ${g.index}`);
        synth.set(g.index, { resolve, reject, signal });
      }),
    play: (audio, g, signal) =>
      new Promise<void>((resolve) => {
        log.push(`play ${g.index} ${audio}`);
        plays.set(g.index, resolve);
        signal.addEventListener("abort", () => resolve());
      }),
    onStart: (g) => log.push(`start ${g.index}`),
    onEnd: (g) => log.push(`end ${g.index}`),
    onSkip: (g, e) => log.push(`skip ${g.index} ${(e as Error).message}`),
    onIdle: () => idle++,
  });
  return { s, log, synth, plays, idle: () => idle };
}

describe("speech scheduler", () => {
  it("synthesizes ahead in parallel and plays in order although syntheses finish out of order", async () => {
    const h = harness(3);
    for (const i of [0, 1, 2, 3]) h.s.add(seg(i));
    await tick();
    // Three at once; the fourth waits for a place.
    expect(h.log).toEqual(["synth 0", "synth 1", "synth 2"]);
    h.synth.get(2)!.resolve("c");
    h.synth.get(1)!.resolve("b");
    await tick();
    expect(h.log.filter((l) => l.startsWith("play"))).toEqual([]);
    h.synth.get(0)!.resolve("a");
    await tick();
    expect(h.log.slice(3)).toEqual(["start 0", "synth 3", "play 0 a"]);
    h.plays.get(0)!();
    await tick();
    h.plays.get(1)!();
    await tick();
    h.synth.get(3)!.resolve("d");
    await tick();
    h.plays.get(2)!();
    await tick();
    h.plays.get(3)!();
    await tick();
    expect(h.log.filter((l) => l.startsWith("play"))).toEqual([
      "play 0 a",
      "play 1 b",
      "play 2 c",
      "play 3 d",
    ]);
    expect(h.idle()).toBe(0);
    h.s.finish();
    expect(h.idle()).toBe(1);
  });

  it("skips a segment whose synthesis fails and goes on", async () => {
    const h = harness();
    h.s.add(seg(0));
    h.s.add(seg(1));
    h.s.finish();
    h.synth.get(1)!.resolve("b");
    h.synth.get(0)!.reject(new Error("HTTP 500"));
    await tick();
    expect(h.log).toContain("skip 0 HTTP 500");
    expect(h.log).toContain("play 1 b");
    h.plays.get(1)!();
    await tick();
    expect(h.idle()).toBe(1);
  });

  it("clear() aborts syntheses in flight, stops what plays and forgets the queue", async () => {
    const h = harness();
    h.s.add(seg(0));
    h.s.add(seg(1));
    h.synth.get(0)!.resolve("a");
    await tick();
    expect(h.log).toContain("play 0 a");
    const inFlight = h.synth.get(1)!.signal;
    h.s.clear();
    expect(inFlight.aborted).toBe(true);
    h.synth.get(1)!.resolve("b");
    await tick();
    expect(h.log).not.toContain("play 1 b");
    expect(h.log).not.toContain("end 0");
    expect(h.s.busy()).toBe(false);
    // A new turn starts from scratch.
    h.s.add(seg(0));
    h.synth.get(0)!.resolve("new");
    await tick();
    expect(h.log.at(-1)).toBe("play 0 new");
  });
});
