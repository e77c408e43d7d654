import { describe, expect, it } from "vitest";
import { ManualClock } from "./clock.ts";
import { BodyMachine } from "./machine.ts";
import { createWanderer, planWander } from "./wander.ts";
import type { DesktopWindow, Monitor, World } from "./world.ts";

const MONS: Monitor[] = [
  {
    name: "L",
    rect: { x: 0, y: 0, width: 1920, height: 1200 },
    workArea: { x: 0, y: 0, width: 1920, height: 1160 },
  },
];
const win = (id: string, x: number, y: number, width: number, height: number): DesktopWindow => ({
  id,
  app: "App",
  title: null,
  rect: { x, y, width, height },
});
const SIZE = { width: 200, height: 360 };
const PERCH = { strip: 4, width: 100 };
const TIMINGS = { wanderMinMs: 1000, wanderMaxMs: 3000, watchMs: 500, userIdleMs: 60_000 };
/** A chance that answers `values` in turn (then the last one). */
const chances = (...values: number[]) => {
  let i = 0;
  return () => values[Math.min(i++, values.length - 1)]!;
};
const flush = () => new Promise((r) => setImmediate(r));

describe("what she does by herself", () => {
  const world: World = {
    windows: [win("near", 900, 500, 400, 300), win("far", 100, 300, 300, 300)],
    monitors: MONS,
  };
  const standing = { position: { x: 1000, y: 1160 }, perch: null, posture: "standing" as const };

  it("a few steps either way, the pointer, or the nearest window within reach", () => {
    // steps: 0.3 + 0.7 * 0.5 of her width, to the left (0.2 < 0.5) or the right (0.9), then the pick.
    expect(planWander(world, standing, SIZE, PERCH, chances(0.5, 0.2, 0))).toEqual({ kind: "walk", x: 870 });
    expect(planWander(world, standing, SIZE, PERCH, chances(0.5, 0.9, 0))).toEqual({ kind: "walk", x: 1130 });
    expect(planWander(world, standing, SIZE, PERCH, chances(0.5, 0.2, 0.5))).toEqual({ kind: "watch" });
    expect(planWander(world, standing, SIZE, PERCH, chances(0.5, 0.2, 0.9))).toEqual({
      kind: "sit",
      windowId: "near",
      x: 1100,
    });
  });

  it("sitting on an edge: steps along it or the pointer, no other window", () => {
    const sitting = {
      position: { x: 1100, y: 500 },
      perch: { windowId: "near" } as never,
      posture: "sitting" as const,
    };
    for (const pick of [0, 0.6, 0.99])
      expect(planWander(world, sitting, SIZE, PERCH, chances(0.5, 0.2, pick)).kind).not.toBe("sit");
  });
});

function setup(o: { enabled?: () => boolean; idle?: number | null } = {}) {
  const clock = new ManualClock();
  const world: World = { windows: [win("near", 900, 500, 400, 300)], monitors: MONS };
  const body = new BodyMachine({
    clock,
    settings: { wakeTimeoutMs: () => 1000, reducedMotion: () => false },
    world,
    start: { x: 1000, y: 1160 },
    timings: { walkPxPerS: 1000, climbPxPerS: 1000 },
    perch: PERCH,
    body: SIZE,
  });
  const log: string[] = [];
  const watching: string[] = [];
  const wanderer = createWanderer({
    clock,
    // Always a walk to the right, at the shortest wait.
    random: chances(0),
    timings: TIMINGS,
    body,
    world: () => world,
    size: () => SIZE,
    perch: () => PERCH,
    userIdleMs: async () => (o.idle === undefined ? 1000 : o.idle),
    enabled: o.enabled ?? (() => true),
    watch: () => {
      watching.push("start");
      return () => watching.push("stop");
    },
    moved: () => {},
    log: (l) => log.push(l),
  });
  const step = async (ms: number) => {
    clock.advance(ms);
    await flush();
  };
  return { clock, body, wanderer, log, step, watching };
}

describe("the wanderer", () => {
  it("after its wait she walks by herself; a gesture then runs as if she stood still (not busy)", async () => {
    const { body, log, step } = setup();
    await step(999);
    expect(log).toEqual([]);
    await step(1);
    expect(log).toEqual(["wander: walks to x 940"]);
    expect(body.snapshot()).toMatchObject({ posture: "walking", moving: true });
    const r = body.act({ action: "move_to", spot: "bottom_left" });
    await step(2000);
    expect(await r).toBe("ok");
  });

  it("the setting off: each wait ends with 'off' and she stays (the same waits with it on: she walks)", async () => {
    let on = false;
    const { body, log, step } = setup({ enabled: () => on });
    for (let i = 0; i < 3; i++) await step(1000);
    expect(log).toEqual(["wander: not now (off)", "wander: not now (off)", "wander: not now (off)"]);
    expect(body.snapshot()).toMatchObject({ moving: false, position: { x: 1000, y: 1160 } });
    on = true;
    await step(1000);
    expect(log.at(-1)).toBe("wander: walks to x 940");
  });

  it("the user away (no input for longer than userIdleMs): she stays", async () => {
    const { log, step } = setup({ idle: 120_000 });
    await step(1000);
    expect(log).toEqual(["wander: not now (the user is away)"]);
  });

  it("setAllowed(false) stops her at once and waits no more until allowed again", async () => {
    const { body, wanderer, log, step } = setup();
    await step(1000);
    await step(20);
    expect(body.snapshot().moving).toBe(true);
    wanderer.setAllowed(false);
    expect(body.snapshot()).toMatchObject({ moving: false, position: { x: 980, y: 1160 } });
    await step(10_000);
    expect(log).toHaveLength(1);
    wanderer.setAllowed(true);
    await step(1000);
    expect(log).toHaveLength(2);
  });

  it("activity (a gesture, the user's hand, a message) starts her wait again and ends a watch", async () => {
    const { wanderer, log, step, watching } = setup();
    await step(900);
    wanderer.activity();
    await step(900);
    expect(log).toEqual([]);
    await step(100);
    expect(log).toHaveLength(1);
    wanderer.activity();
    expect(watching).toEqual([]);
    wanderer.dispose();
    await step(10_000);
    expect(log).toHaveLength(1);
  });
});
