import { describe, expect, it } from "vitest";
import { type BodyActionResult, GESTURE_LIMIT_MS } from "../protocol/body.ts";
import { ManualClock } from "./clock.ts";
import { BodyMachine, type BodyTimings, DEFAULT_TIMINGS } from "./machine.ts";
import type { DesktopWindow, Monitor, World } from "./world.ts";

const MONS: Monitor[] = [
  {
    name: "L",
    rect: { x: 0, y: 0, width: 1920, height: 1200 },
    workArea: { x: 0, y: 0, width: 1920, height: 1160 },
  },
  {
    name: "R",
    rect: { x: 1920, y: 0, width: 1280, height: 1024 },
    workArea: { x: 1920, y: 0, width: 1280, height: 1024 },
  },
];
const win = (
  id: string,
  app: string,
  x: number,
  y: number,
  width: number,
  height: number,
): DesktopWindow => ({
  id,
  app,
  title: `${app} title`,
  rect: { x, y, width, height },
});
const XTERM = win("0x1", "XTerm", 200, 400, 600, 400);
const world = (...windows: DesktopWindow[]): World => ({ windows, monitors: MONS });
// 1000 px/s both ways: a leg of d px takes d ms.
const TIMINGS = {
  walkPxPerS: 1000,
  climbPxPerS: 1000,
  bedSetupMs: 100,
  lieDownMs: 200,
  wakeMs: 22_000,
  bedFadeMs: 800,
};

function setup(
  opts: {
    windows?: DesktopWindow[];
    reducedMotion?: boolean;
    wakeTimeoutMs?: number;
    timings?: Partial<BodyTimings>;
  } = {},
) {
  const clock = new ManualClock();
  const body = new BodyMachine({
    clock,
    settings: {
      wakeTimeoutMs: () => opts.wakeTimeoutMs ?? 60_000,
      reducedMotion: () => opts.reducedMotion ?? false,
    },
    world: world(...(opts.windows ?? [XTERM])),
    start: { x: 1000, y: 1160 },
    timings: { ...TIMINGS, ...opts.timings },
    perch: { strip: 4, width: 100 },
    body: { width: 200, height: 360 },
  });
  return { clock, body };
}

/** A gesture's answer, readable once it settled. */
function track(p: Promise<BodyActionResult>) {
  const t: { value?: BodyActionResult } = {};
  void p.then((v) => {
    t.value = v;
  });
  return t;
}
const flush = () => new Promise((r) => setImmediate(r));

async function step(clock: ManualClock, ms: number) {
  clock.advance(ms);
  await flush();
}

describe("sit_on_window", () => {
  it("walks along the floor, climbs to the edge and sits: ok, perched on that window", async () => {
    const { clock, body } = setup();
    const r = track(body.act({ action: "sit_on_window", app: "xterm" }));
    // walk 1000 → 500 (500 ms), then climb 1160 → 400 (760 ms)
    await step(clock, 250);
    expect(body.snapshot()).toMatchObject({
      posture: "walking",
      moving: true,
      position: { x: 750, y: 1160 },
    });
    await step(clock, 500);
    expect(body.snapshot()).toMatchObject({ posture: "climbing", position: { x: 500, y: 910 } });
    expect(r.value).toBeUndefined();
    await step(clock, 510);
    expect(r.value).toBe("ok");
    expect(body.snapshot()).toMatchObject({
      posture: "sitting",
      moving: false,
      position: { x: 500, y: 400 },
      monitor: 0,
      perch: { windowId: "0x1", app: "XTerm", title: "XTerm title", x: 500 },
    });
  });

  it.each([
    ["not_found when the app has no window", "XClock", [XTERM], "not_found"],
    [
      "blocked when every candidate is covered",
      "XTerm",
      [win("0x2", "XClock", 0, 300, 1000, 200), XTERM],
      "blocked",
    ],
  ] as const)("%s, and nothing moved", async (_n, app, windows, word) => {
    const { body } = setup({ windows: [...windows] });
    expect(await body.act({ action: "sit_on_window", app })).toBe(word);
    expect(body.snapshot()).toMatchObject({
      posture: "standing",
      moving: false,
      position: { x: 1000, y: 1160 },
    });
  });

  it("a second gesture while one runs answers busy", async () => {
    const { clock, body } = setup();
    const first = track(body.act({ action: "move_to", spot: "bottom_left" }));
    expect(await body.act({ action: "peek", side: "left" })).toBe("busy");
    expect(await body.act({ action: "stand" })).toBe("busy");
    expect(await body.act({ action: "go_to_bed" })).toBe("busy");
    await step(clock, 1000);
    expect(first.value).toBe("ok");
  });
});

describe("the perch follows its window or ends", () => {
  async function perched(windows = [XTERM]) {
    const s = setup({ windows });
    const r = track(s.body.act({ action: "sit_on_window", app: "XTerm" }));
    await step(s.clock, 5000);
    expect(r.value).toBe("ok");
    return s;
  }
  it("moved or resized: she follows", async () => {
    const { body } = await perched();
    body.setWorld(world(win("0x1", "XTerm", 2100, 300, 600, 400)));
    expect(body.snapshot()).toMatchObject({ posture: "sitting", position: { x: 2400, y: 300 }, monitor: 1 });
    body.setWorld(world(win("0x1", "XTerm", 2100, 300, 150, 400)));
    expect(body.snapshot()).toMatchObject({ posture: "sitting", position: { x: 2200, y: 300 } });
  });
  it.each([
    ["closed, minimized or on another workspace (gone from the list)", []],
    ["covered where she sits", [win("0x9", "XClock", 450, 350, 100, 100), XTERM]],
  ])("%s: she climbs down to the floor", async (_n, windows) => {
    const { clock, body } = await perched();
    body.setWorld(world(...windows));
    expect(body.snapshot()).toMatchObject({ posture: "climbing", perch: null });
    await step(clock, 760);
    expect(body.snapshot()).toMatchObject({
      posture: "standing",
      position: { x: 500, y: 1160 },
      moving: false,
    });
  });
  it("covered elsewhere on the edge: she stays", async () => {
    const { body } = await perched();
    body.setWorld(world(win("0x9", "XClock", 650, 350, 100, 100), XTERM));
    expect(body.snapshot()).toMatchObject({ posture: "sitting", perch: { windowId: "0x1" } });
  });
  it("stand gets her down", async () => {
    const { clock, body } = await perched();
    expect(await body.act({ action: "stand" })).toBe("ok");
    await step(clock, 760);
    expect(body.snapshot()).toMatchObject({
      posture: "standing",
      perch: null,
      position: { x: 500, y: 1160 },
    });
  });
});

describe("peek and move_to", () => {
  it("peek walks beside the frontmost window's edge and peeks", async () => {
    const { clock, body } = setup();
    const r = track(body.act({ action: "peek", side: "right" }));
    await step(clock, 5000);
    expect(r.value).toBe("ok");
    expect(body.snapshot()).toMatchObject({
      posture: "peeking",
      peek: "right",
      position: { x: 900, y: 800 },
    });
    expect(await body.act({ action: "stand" })).toBe("ok");
    expect(body.snapshot()).toMatchObject({ posture: "standing", peek: null });
  });
  it("peek with no window: not_found", async () => {
    const { body } = setup({ windows: [] });
    expect(await body.act({ action: "peek", side: "left" })).toBe("not_found");
  });
  it("move_to a corner of another monitor, and not_found for a monitor that does not exist", async () => {
    const { clock, body } = setup();
    const r = track(body.act({ action: "move_to", spot: "bottom_right", monitor: 1 }));
    await step(clock, 10_000);
    expect(r.value).toBe("ok");
    expect(body.snapshot()).toMatchObject({
      posture: "standing",
      position: { x: 3100, y: 1024 },
      monitor: 1,
    });
    expect(await body.act({ action: "move_to", spot: "center", monitor: 2 })).toBe("not_found");
  });
  it("the caller's abort (its deadline) stops the move where she is: timeout", async () => {
    const { clock, body } = setup();
    const ac = new AbortController();
    const r = track(body.act({ action: "move_to", spot: "bottom_left" }, ac.signal));
    await step(clock, 300);
    ac.abort();
    await flush();
    expect(r.value).toBe("timeout");
    expect(body.snapshot()).toMatchObject({
      posture: "standing",
      moving: false,
      position: { x: 700, y: 1160 },
    });
  });
});

describe("the gesture limit (every caller's)", () => {
  it("is 60 s unless the timings say otherwise", () => {
    expect(DEFAULT_TIMINGS.gestureMs).toBe(GESTURE_LIMIT_MS);
    expect(GESTURE_LIMIT_MS).toBe(60_000);
  });

  it("a move still on its way at the limit stops where she is and answers timeout, with no caller deadline", async () => {
    // 20 px/s: the walk from x 1000 to the left corner (x 100) takes 45 s; the limit is 2 s.
    const { clock, body } = setup({ timings: { walkPxPerS: 20, gestureMs: 2_000 } });
    const r = track(body.act({ action: "move_to", spot: "bottom_left" }));
    await step(clock, 1_999);
    expect(r.value).toBeUndefined();
    expect(body.snapshot().moving).toBe(true);
    await step(clock, 1);
    expect(r.value).toBe("timeout");
    expect(body.snapshot()).toMatchObject({
      posture: "standing",
      moving: false,
      position: { x: 960, y: 1160 },
    });
    // The gesture is over: she stays where she stopped, and the next gesture is not busy.
    await step(clock, 60_000);
    expect(body.snapshot().position).toEqual({ x: 960, y: 1160 });
    expect(await body.act({ action: "stand" })).toBe("ok");
  });

  it("go_to_bed still setting up the bed at the limit: timeout, no bed", async () => {
    const { clock, body } = setup({ timings: { bedSetupMs: 5_000, gestureMs: 1_000 } });
    const r = track(body.act({ action: "go_to_bed" }));
    await step(clock, 999);
    expect(body.snapshot().bed).toBe("setup");
    await step(clock, 1);
    expect(r.value).toBe("timeout");
    expect(body.snapshot()).toMatchObject({ posture: "standing", bed: null, moving: false });
  });

  it("a gesture that answered is not touched by its limit later", async () => {
    const { clock, body } = setup({ timings: { gestureMs: 2_000 } });
    const r = track(body.act({ action: "move_to", spot: "bottom_left" }));
    await step(clock, 1_000);
    expect(r.value).toBe("ok");
    // 3136 ms to the other monitor's corner: the first gesture's limit falls due inside it, and it runs on.
    const next = track(body.act({ action: "move_to", spot: "bottom_right", monitor: 1 }));
    await step(clock, 1_500);
    expect(next.value).toBeUndefined();
    expect(body.snapshot().moving).toBe(true);
    // Its own limit, 2 s after it started.
    await step(clock, 500);
    expect(next.value).toBe("timeout");
  });
});

describe("the user's drag outranks the agent", () => {
  it("aborts a running gesture with interrupted and blocks new ones until it ends", async () => {
    const { clock, body } = setup();
    const r = track(body.act({ action: "sit_on_window", app: "XTerm" }));
    await step(clock, 100);
    body.dragStart();
    await flush();
    expect(r.value).toBe("interrupted");
    expect(body.snapshot()).toMatchObject({ posture: "dragging", moving: false });
    for (const a of [
      { action: "sit_on_window", app: "XTerm" },
      { action: "peek", side: "left" },
      { action: "move_to", spot: "center" },
      { action: "stand" },
      { action: "go_to_bed" },
    ] as const)
      expect(await body.act(a)).toBe("interrupted");
    body.dragMove({ x: 1500, y: 700 });
    expect(body.snapshot().position).toEqual({ x: 1500, y: 700 });
    body.dragEnd({ x: 1500, y: 1160 });
    expect(body.snapshot()).toMatchObject({ posture: "standing", position: { x: 1500, y: 1160 } });
    const again = track(body.act({ action: "sit_on_window", app: "XTerm" }));
    await step(clock, 5000);
    expect(again.value).toBe("ok");
  });
});

describe("the bed cycle", () => {
  async function asleep(opts: Parameters<typeof setup>[0] = {}) {
    const s = setup(opts);
    const r = track(s.body.act({ action: "go_to_bed" }));
    await step(s.clock, 100);
    expect(r.value).toBe("ok");
    await step(s.clock, 200);
    expect(s.body.snapshot()).toMatchObject({ posture: "lying", bed: "asleep" });
    return s;
  }
  it("ok and lying from the moment the lie-down clip starts; busy for the others while the bed is set up", async () => {
    const { clock, body } = setup();
    const r = track(body.act({ action: "go_to_bed" }));
    expect(body.snapshot()).toMatchObject({ bed: "setup", posture: "standing" });
    expect(await body.act({ action: "sit_on_window", app: "XTerm" })).toBe("busy");
    expect(await body.act({ action: "go_to_bed" })).toBe("busy");
    await step(clock, 99);
    expect(r.value).toBeUndefined();
    await step(clock, 1);
    expect(r.value).toBe("ok");
    expect(body.snapshot()).toMatchObject({ posture: "lying", bed: "lying_down" });
    expect(await body.act({ action: "go_to_bed" })).toBe("ok");
  });
  it("stand in bed starts the wake clip: ok at once, lying and busy until she is up", async () => {
    const { clock, body } = await asleep();
    expect(await body.act({ action: "stand" })).toBe("ok");
    expect(body.snapshot()).toMatchObject({ posture: "lying", bed: "waking" });
    for (const a of [
      { action: "sit_on_window", app: "XTerm" },
      { action: "peek", side: "left" },
      { action: "move_to", spot: "center" },
    ] as const)
      expect(await body.act(a)).toBe("busy");
    await step(clock, 21_999);
    expect(body.snapshot()).toMatchObject({ posture: "lying", bed: "waking" });
    await step(clock, 1);
    expect(body.snapshot()).toMatchObject({ posture: "standing", bed: null });
    const peek = track(body.act({ action: "peek", side: "left" }));
    await step(clock, 5000);
    expect(peek.value).toBe("ok");
  });
  it("stand during the lie-down clip: no wake clip, the bed fades and she stands within a second", async () => {
    const { clock, body } = setup();
    void body.act({ action: "go_to_bed" });
    await step(clock, 150);
    expect(body.snapshot().bed).toBe("lying_down");
    expect(await body.act({ action: "stand" })).toBe("ok");
    expect(body.snapshot()).toMatchObject({ bed: "fading" });
    expect(await body.act({ action: "move_to", spot: "center" })).toBe("busy");
    await step(clock, 800);
    expect(body.snapshot()).toMatchObject({ posture: "standing", bed: null });
  });
  it("the wake timeout from the settings wakes her", async () => {
    const { clock, body } = await asleep({ wakeTimeoutMs: 5000 });
    await step(clock, 4999);
    expect(body.snapshot().bed).toBe("asleep");
    await step(clock, 1);
    expect(body.snapshot()).toMatchObject({ bed: "waking", posture: "lying" });
    await step(clock, 22_000);
    expect(body.snapshot()).toMatchObject({ bed: null, posture: "standing" });
  });
  it("a click or a message wakes her from sleep", async () => {
    const { body } = await asleep();
    body.poke();
    expect(body.snapshot()).toMatchObject({ bed: "waking", posture: "lying" });
  });
  it.each([
    ["a click or a message", (b: BodyMachine) => b.poke(), "standing"],
    ["a drag", (b: BodyMachine) => b.dragStart(), "dragging"],
  ] as const)("%s while the bed is being set up: go_to_bed answers interrupted", async (_n, act, posture) => {
    const { clock, body } = setup();
    const r = track(body.act({ action: "go_to_bed" }));
    await step(clock, 50);
    act(body);
    await flush();
    expect(r.value).toBe("interrupted");
    expect(body.snapshot()).toMatchObject({ bed: null, posture });
    await step(clock, 1000);
    expect(body.snapshot()).toMatchObject({ bed: null, posture });
  });
  it("from a perch she climbs down first; a click on the way down answers interrupted", async () => {
    const { clock, body } = setup();
    void body.act({ action: "sit_on_window", app: "XTerm" });
    await step(clock, 5000);
    const r = track(body.act({ action: "go_to_bed" }));
    expect(body.snapshot()).toMatchObject({ posture: "climbing", perch: null, bed: null });
    await step(clock, 300);
    body.poke();
    await flush();
    expect(r.value).toBe("interrupted");
    const ok = track(body.act({ action: "go_to_bed" }));
    await step(clock, 1000);
    expect(ok.value).toBe("ok");
    expect(body.snapshot()).toMatchObject({ posture: "lying", position: { x: 500, y: 1160 } });
  });
  it("unsupported where the bed scene cannot start (reduced motion)", async () => {
    const { body } = setup({ reducedMotion: true });
    expect(await body.act({ action: "go_to_bed" })).toBe("unsupported");
    expect(body.snapshot()).toMatchObject({ bed: null, posture: "standing" });
  });
  it("a drag in bed ends the bed at once", async () => {
    const { body } = await asleep();
    body.dragStart();
    expect(body.snapshot()).toMatchObject({ bed: null, posture: "dragging" });
  });
});
