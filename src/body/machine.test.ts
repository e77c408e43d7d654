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
  it("walks along the floor to the window's nearer side, climbs it, walks along the top and sits: ok, perched", async () => {
    const { clock, body } = setup();
    const r = track(body.act({ action: "sit_on_window", app: "xterm" }));
    // Her way from x 1000: walk to the right side (800 + 10 % of her 200 px: 820, 180 ms), climb 1160 → 400
    // (760 ms), walk along the top 820 → 500 (320 ms).
    await step(clock, 100);
    expect(body.snapshot()).toMatchObject({
      posture: "walking",
      moving: true,
      position: { x: 900, y: 1160 },
    });
    await step(clock, 400);
    expect(body.snapshot()).toMatchObject({ posture: "climbing", position: { x: 820, y: 840 } });
    await step(clock, 600);
    expect(body.snapshot()).toMatchObject({ posture: "walking", position: { x: 660, y: 400 } });
    expect(r.value).toBeUndefined();
    await step(clock, 160);
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
  it("stand gets her down along the top to the nearer side and down it", async () => {
    const { clock, body } = await perched();
    expect(await body.act({ action: "stand" })).toBe("ok");
    // 500 → 180 along the top (320 ms), 400 → 1160 down the left side (760 ms).
    await step(clock, 300);
    expect(body.snapshot()).toMatchObject({ posture: "walking", perch: null, position: { x: 200, y: 400 } });
    await step(clock, 400);
    expect(body.snapshot()).toMatchObject({ posture: "climbing", position: { x: 180, y: 780 } });
    await step(clock, 380);
    expect(body.snapshot()).toMatchObject({
      posture: "standing",
      perch: null,
      moving: false,
      position: { x: 180, y: 1160 },
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
    expect(body.snapshot()).toMatchObject({ posture: "walking", perch: null, bed: null });
    // Along the top to the left side (320 ms), then down it.
    await step(clock, 400);
    expect(body.snapshot()).toMatchObject({ posture: "climbing", position: { x: 180, y: 480 } });
    body.poke();
    await flush();
    expect(r.value).toBe("interrupted");
    // Stopped on the side of the window, she drops to the floor.
    expect(body.snapshot()).toMatchObject({ posture: "standing", fall: "falling" });
    await step(clock, 1000);
    expect(body.snapshot()).toMatchObject({
      posture: "standing",
      moving: false,
      position: { x: 180, y: 1160 },
    });
    const ok = track(body.act({ action: "go_to_bed" }));
    await step(clock, 100);
    expect(ok.value).toBe("ok");
    expect(body.snapshot()).toMatchObject({ posture: "lying", position: { x: 180, y: 1160 } });
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

describe("gravity: she ends on a surface", () => {
  // 5000 px/s²: a drop of d px takes sqrt(2d/5000) s; her landing 300 ms.
  const fallMs = (d: number) => Math.sqrt((2 * d) / DEFAULT_TIMINGS.fallPxPerS2) * 1000;

  it("let go in mid-air with nothing below, she falls to the floor, quicker and quicker, and lands", async () => {
    const { clock, body } = setup();
    body.dragStart();
    body.dragEnd({ x: 1000, y: 360 });
    expect(body.snapshot()).toMatchObject({ posture: "standing", moving: true, fall: "falling" });
    const t = fallMs(800);
    // Half the time, a quarter of the way.
    await step(clock, t / 2);
    expect(body.snapshot().position.y).toBeCloseTo(360 + 800 / 4, 0);
    await step(clock, t / 2 + 1);
    expect(body.snapshot()).toMatchObject({ fall: "landing", position: { x: 1000, y: 1160 } });
    await step(clock, DEFAULT_TIMINGS.landMs);
    expect(body.snapshot()).toMatchObject({ posture: "standing", moving: false, fall: null, perch: null });
  });

  it("let go above a window, she lands on its top edge and sits there", async () => {
    const { clock, body } = setup();
    body.dragStart();
    body.dragEnd({ x: 500, y: 250 });
    await step(clock, fallMs(150) + DEFAULT_TIMINGS.landMs + 1);
    expect(body.snapshot()).toMatchObject({
      posture: "sitting",
      moving: false,
      position: { x: 500, y: 400 },
      perch: { windowId: "0x1", x: 500 },
    });
  });

  it("the highest free edge below her wins; a covered one is passed by", async () => {
    const low = win("0x2", "Low", 300, 900, 500, 100);
    const cover = win("0x3", "Cover", 450, 380, 200, 60);
    const { clock, body } = setup({ windows: [cover, XTERM, low] });
    body.dragStart();
    // Over the covered part of the xterm's edge: she falls past it onto the lower window.
    body.dragEnd({ x: 550, y: 200 });
    await step(clock, 2000);
    expect(body.snapshot()).toMatchObject({ posture: "sitting", perch: { windowId: "0x3" } });
    body.dragStart();
    body.dragEnd({ x: 350, y: 200 });
    await step(clock, 2000);
    expect(body.snapshot()).toMatchObject({ posture: "sitting", perch: { windowId: "0x1", x: 350 } });
    body.dragStart();
    body.dragEnd({ x: 720, y: 500 });
    await step(clock, 2000);
    expect(body.snapshot()).toMatchObject({ posture: "sitting", perch: { windowId: "0x2", x: 720 } });
  });

  it("let go below the floor or off the screen, she is put back on it at once", async () => {
    const { body } = setup();
    body.dragStart();
    body.dragEnd({ x: 5000, y: 1190 });
    // The nearest monitor is the right one: her head inside its work area, her feet on its floor.
    expect(body.snapshot()).toMatchObject({ posture: "standing", moving: false, fall: null });
    expect(body.snapshot().position).toEqual({ x: 3200 - 30, y: 1024 });
  });

  it("after a peek, stand drops her from the window's bottom to the floor", async () => {
    const { clock, body } = setup();
    const r = track(body.act({ action: "peek", side: "left" }));
    await step(clock, 5000);
    expect(r.value).toBe("ok");
    expect(body.snapshot().position).toEqual({ x: 100, y: 800 });
    expect(await body.act({ action: "stand" })).toBe("ok");
    await step(clock, fallMs(360) + DEFAULT_TIMINGS.landMs + 1);
    expect(body.snapshot()).toMatchObject({ posture: "standing", peek: null, position: { x: 100, y: 1160 } });
  });

  it("a fall toward a window that leaves meanwhile goes on to the floor", async () => {
    const { clock, body } = setup();
    body.dragStart();
    body.dragEnd({ x: 500, y: 250 });
    body.setWorld(world());
    await step(clock, 3000);
    expect(body.snapshot()).toMatchObject({
      posture: "standing",
      moving: false,
      position: { x: 500, y: 1160 },
    });
  });

  it("settle() puts her on the surface under her at once: a remembered place on a window's edge", () => {
    const clock = new ManualClock();
    const body = new BodyMachine({
      clock,
      settings: { wakeTimeoutMs: () => 1000, reducedMotion: () => false },
      world: world(XTERM),
      start: { x: 400, y: 400 },
      timings: TIMINGS,
      perch: { strip: 4, width: 100 },
      body: { width: 200, height: 360 },
    });
    body.settle();
    expect(body.snapshot()).toMatchObject({
      posture: "sitting",
      moving: false,
      perch: { windowId: "0x1", x: 400 },
    });
  });
});

describe("on screen, always", () => {
  it("peeking at a window at the screen's left edge keeps her head on the work area", async () => {
    const { clock, body } = setup({ windows: [win("0x1", "XTerm", 20, 100, 600, 300)] });
    const r = track(body.act({ action: "peek", side: "left" }));
    await step(clock, 5000);
    expect(r.value).toBe("ok");
    // Her head (30 % of her 200 px window) inside: x at least 30; her head below the top: feet at least 4 + 349.
    expect(body.snapshot().position).toEqual({ x: 30, y: 400 });
  });

  it("a monitor gone from under her: she drops onto the floor of the one left", async () => {
    const { clock, body } = setup();
    body.dragStart();
    body.dragEnd({ x: 2500, y: 1024 });
    body.setWorld({ windows: [XTERM], monitors: [MONS[0]!] });
    expect(body.snapshot()).toMatchObject({ fall: "falling", position: { x: 1920 - 30, y: 1024 } });
    await step(clock, 1000);
    expect(body.snapshot()).toMatchObject({ moving: false, position: { x: 1920 - 30, y: 1160 } });
  });
});

describe("her own moves give way", () => {
  it("a walk of her own along the floor: any gesture stops it at once and runs as if she stood still", async () => {
    const { clock, body } = setup();
    expect(body.ownMove({ kind: "walk", x: 1400 })).toBe(true);
    await step(clock, 100);
    expect(body.snapshot()).toMatchObject({
      posture: "walking",
      moving: true,
      position: { x: 1100, y: 1160 },
    });
    // Not busy: her walk stops where she is, and the gesture's own way starts from there.
    const r = track(body.act({ action: "move_to", spot: "bottom_left" }));
    await step(clock, 1);
    expect(body.snapshot().position.x).toBeLessThan(1100);
    await step(clock, 2000);
    expect(r.value).toBe("ok");
    expect(body.snapshot().position).toEqual({ x: 100, y: 1160 });
  });

  it("stand during a walk of her own answers ok and she stays where she stopped", async () => {
    const { clock, body } = setup();
    body.ownMove({ kind: "walk", x: 1400 });
    await step(clock, 200);
    expect(await body.act({ action: "stand" })).toBe("ok");
    expect(body.snapshot()).toMatchObject({
      posture: "standing",
      moving: false,
      position: { x: 1200, y: 1160 },
    });
  });

  it("sitting on a window of her own: up its side onto the top edge; stopped on the side, she drops down", async () => {
    const { clock, body } = setup();
    expect(body.ownMove({ kind: "sit", windowId: "0x1", x: 700 })).toBe(true);
    await step(clock, 180 + 760 + 120 + 1);
    expect(body.snapshot()).toMatchObject({ posture: "sitting", perch: { windowId: "0x1", x: 700 } });
    // A walk of her own along the edge she sits on: she sits again further along.
    expect(body.ownMove({ kind: "walk", x: 400 })).toBe(true);
    await step(clock, 150);
    expect(body.snapshot()).toMatchObject({ posture: "walking", position: { x: 550, y: 400 } });
    await step(clock, 151);
    expect(body.snapshot()).toMatchObject({ posture: "sitting", perch: { x: 400 } });
    // Down again, then up once more, stopped half way up the side: she falls to the floor.
    expect(await body.act({ action: "stand" })).toBe("ok");
    await step(clock, 5000);
    body.ownMove({ kind: "sit", windowId: "0x1", x: 400 });
    await step(clock, 400);
    expect(body.snapshot().posture).toBe("climbing");
    body.stopOwn();
    expect(body.snapshot().fall).toBe("falling");
    await step(clock, 2000);
    expect(body.snapshot()).toMatchObject({ posture: "standing", moving: false, position: { y: 1160 } });
  });

  it("a gesture stops a sit of her own half way up: sit_on_window is not busy", async () => {
    const { clock, body } = setup();
    body.ownMove({ kind: "sit", windowId: "0x1", x: 700 });
    await step(clock, 500);
    expect(body.snapshot().posture).toBe("climbing");
    const r = track(body.act({ action: "sit_on_window", app: "XTerm" }));
    await step(clock, 5000);
    expect(r.value).toBe("ok");
    expect(body.snapshot()).toMatchObject({ posture: "sitting", perch: { x: 500 } });
  });

  it("she is not free during a gesture, a drag or the bed; a click stops a move of her own", async () => {
    const { clock, body } = setup();
    void body.act({ action: "move_to", spot: "bottom_left" });
    expect(body.free()).toBe(false);
    expect(body.ownMove({ kind: "walk", x: 1200 })).toBe(false);
    await step(clock, 2000);
    expect(body.free()).toBe(true);
    body.ownMove({ kind: "walk", x: 300 });
    await step(clock, 100);
    body.poke();
    expect(body.snapshot()).toMatchObject({ moving: false, position: { x: 200, y: 1160 } });
  });

  it("a new size: the spots and her share of an edge follow it", async () => {
    const { clock, body } = setup();
    body.resize({ width: 100, height: 180 }, { strip: 4, width: 50 });
    const r = track(body.act({ action: "move_to", spot: "top_left" }));
    await step(clock, 5000);
    expect(r.value).toBe("ok");
    expect(body.snapshot().position).toEqual({ x: 50, y: 180 });
  });
});
