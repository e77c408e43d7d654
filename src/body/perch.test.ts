import { describe, expect, it } from "vitest";
import {
  chooseSitTarget,
  coveredTopEdge,
  freeTopEdge,
  peekEdges,
  perchAfter,
  perchTargets,
  perchXOn,
  spotPoint,
} from "./perch.ts";
import type { DesktopWindow, Monitor, World } from "./world.ts";
import { mergeSpans, monitorAt, subtractSpans } from "./world.ts";

const win = (
  id: string,
  app: string | null,
  x: number,
  y: number,
  width: number,
  height: number,
): DesktopWindow => ({
  id,
  app,
  title: null,
  rect: { x, y, width, height },
});
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
const world = (...windows: DesktopWindow[]): World => ({ windows, monitors: MONS });
const SIZE = { strip: 4, width: 100 };

describe("spans", () => {
  it.each([
    [[], []],
    [
      [
        { start: 5, end: 10 },
        { start: 0, end: 5 },
      ],
      [{ start: 0, end: 10 }],
    ],
    [
      [
        { start: 0, end: 3 },
        { start: 4, end: 6 },
        { start: 2, end: 3 },
      ],
      [
        { start: 0, end: 3 },
        { start: 4, end: 6 },
      ],
    ],
  ])("merge %j", (input, out) => expect(mergeSpans(input)).toEqual(out));
  it.each([
    [[], [{ start: 0, end: 100 }]],
    [
      [{ start: 10, end: 20 }],
      [
        { start: 0, end: 10 },
        { start: 20, end: 100 },
      ],
    ],
    [[{ start: -5, end: 200 }], []],
    [
      [
        { start: 90, end: 120 },
        { start: 0, end: 1 },
      ],
      [{ start: 1, end: 90 }],
    ],
  ])("subtract %j", (holes, out) => expect(subtractSpans({ start: 0, end: 100 }, holes)).toEqual(out));
});

describe("top-edge coverage (front to back)", () => {
  const back = win("b", "XTerm", 100, 100, 600, 400);
  it.each([
    ["nothing in front", [back], 0, []],
    [
      "a window in front over the middle",
      [win("f", "XClock", 300, 50, 100, 100), back],
      1,
      [{ start: 300, end: 400 }],
    ],
    [
      "a window in front below the strip does not cover",
      [win("f", "XClock", 300, 104, 100, 100), back],
      1,
      [],
    ],
    [
      "a window in front ending right at the edge does not cover",
      [win("f", "XClock", 300, 0, 100, 100), back],
      1,
      [],
    ],
    [
      "a window in front covering one px of the strip covers",
      [win("f", "XClock", 300, 0, 100, 101), back],
      1,
      [{ start: 300, end: 400 }],
    ],
    [
      "overhanging windows clip to the edge and merge",
      [win("f", "A", 0, 90, 250, 20), win("g", "B", 200, 90, 50, 20), back],
      2,
      [{ start: 100, end: 250 }],
    ],
    ["a window behind covers nothing", [back, win("f", "XClock", 300, 50, 100, 100)], 0, []],
  ] as const)("%s", (_n, ws, i, out) =>
    expect(coveredTopEdge(ws as readonly DesktopWindow[], i, 4)).toEqual(out),
  );

  it("free edge is clipped to the work areas (an edge off the screen is not reachable)", () => {
    const w = world(win("a", "A", 1800, 100, 300, 200));
    // spans both monitors: one continuous edge
    expect(freeTopEdge(w, 0, 4)).toEqual([{ start: 1800, end: 2100 }]);
    const below = world(win("a", "A", 100, 1170, 300, 200)); // top under the left work area's bottom (1160)
    expect(freeTopEdge(below, 0, 4)).toEqual([]);
    const left = world(win("a", "A", -200, 100, 300, 200));
    expect(freeTopEdge(left, 0, 4)).toEqual([{ start: 0, end: 100 }]);
  });

  it.each([
    ["center when free", [{ start: 0, end: 600 }], 300],
    [
      "nearest to center in a partly covered edge",
      [
        { start: 0, end: 150 },
        { start: 380, end: 600 },
      ],
      430,
    ],
    [
      "none when no free span fits her",
      [
        { start: 0, end: 99 },
        { start: 200, end: 290 },
      ],
      null,
    ],
  ] as const)("perch x: %s", (_n, free, x) =>
    expect(
      perchXOn(
        { x: 0, y: 0, width: 600, height: 10 },
        free as readonly { start: number; end: number }[],
        100,
      ),
    ).toBe(x),
  );
});

describe("sit_on_window's candidate", () => {
  const real = win("real", "Firefox", 100, 100, 800, 600);
  it("not_found when the app has no window", () => {
    expect(chooseSitTarget(world(real), "xterm", SIZE)).toBe("not_found");
    expect(chooseSitTarget(world(), "Firefox", SIZE)).toBe("not_found");
  });
  it("app names match case-insensitively, and aliases count", () => {
    const w = { ...win("x", "XTerm", 0, 100, 400, 300), aliases: ["xterm", "bash"] };
    expect(chooseSitTarget(world(w), "xterm", SIZE)).toMatchObject({ window: { id: "x" }, x: 200 });
    expect(chooseSitTarget(world(w), "BASH", SIZE)).toMatchObject({ window: { id: "x" } });
    expect(chooseSitTarget(world(win("u", null, 0, 0, 10, 10)), "null", SIZE)).toBe("not_found");
  });
  it("a thumbnail of the same app in front whose own edge is covered does not shadow the real window", () => {
    const cover = win("c", "XClock", 0, 0, 1000, 60);
    const thumb = win("thumb", "Firefox", 10, 20, 100, 80); // its top edge is under cover
    expect(chooseSitTarget(world(cover, thumb, real), "firefox", SIZE)).toMatchObject({
      window: { id: "real" },
      x: 500,
    });
  });
  it("the frontmost free candidate wins", () => {
    const second = win("second", "Firefox", 1000, 300, 400, 300);
    expect(chooseSitTarget(world(real, second), "Firefox", SIZE)).toMatchObject({ window: { id: "real" } });
  });
  it("partly covered: she sits where the edge is free", () => {
    const f = win("f", "XClock", 300, 50, 500, 200); // covers 300..800 of real's 100..900 edge
    expect(chooseSitTarget(world(f, real), "Firefox", SIZE)).toEqual({ window: real, x: 250 });
  });
  it("blocked when every candidate is covered", () => {
    const f = win("f", "XClock", 0, 0, 2000, 150);
    expect(chooseSitTarget(world(f, real), "Firefox", SIZE)).toBe("blocked");
    const narrow = win("n", "XClock", 150, 50, 720, 100); // free 100..150 and 870..900: both narrower than her
    expect(chooseSitTarget(world(narrow, real), "Firefox", SIZE)).toBe("blocked");
  });
});

describe("a perch after the window list changed", () => {
  const w = win("w", "XTerm", 100, 300, 600, 400);
  const perch = { windowId: "w", x: 400, rect: w.rect };
  it.each([
    ["unchanged: stays", [w], { kind: "stay", x: 400, y: 300 }],
    [
      "moved: follows, keeping her offset",
      [win("w", "XTerm", 500, 200, 600, 400)],
      { kind: "stay", x: 800, y: 200 },
    ],
    [
      "shrunk under her: clamped onto the edge",
      [win("w", "XTerm", 100, 300, 200, 400)],
      { kind: "stay", x: 250, y: 300 },
    ],
    ["closed / minimized / other workspace (left the list)", [], { kind: "gone" }],
    ["covered where she sits", [win("f", "A", 350, 250, 100, 100), w], { kind: "covered" }],
    [
      "covered elsewhere on the edge: stays",
      [win("f", "A", 100, 250, 100, 100), w],
      { kind: "stay", x: 400, y: 300 },
    ],
  ] as const)("%s", (_n, ws, fate) =>
    expect(perchAfter(world(...(ws as readonly DesktopWindow[])), perch, SIZE)).toMatchObject(fate),
  );
});

describe("peek edges and spots", () => {
  it("the frontmost window's two edges, dropping one off the work areas", () => {
    expect(peekEdges(world(win("a", "A", 100, 100, 400, 300), win("b", "B", 0, 0, 50, 50)))).toEqual([
      { side: "left", windowId: "a", x: 100, top: 100, bottom: 400 },
      { side: "right", windowId: "a", x: 500, top: 100, bottom: 400 },
    ]);
    expect(peekEdges(world(win("a", "A", -10, 100, 400, 300))).map((e) => e.side)).toEqual(["right"]);
    expect(peekEdges(world())).toEqual([]);
  });
  it.each([
    ["center", { x: 2560, y: 692 }],
    ["top_left", { x: 2020, y: 360 }],
    ["top_right", { x: 3100, y: 360 }],
    ["bottom_left", { x: 2020, y: 1024 }],
    ["bottom_right", { x: 3100, y: 1024 }],
  ] as const)("%s of the right monitor's work area", (spot, p) =>
    expect(spotPoint(MONS[1]!, spot, { width: 200, height: 360 })).toEqual(p),
  );
  it("monitorAt: inside, else nearest", () => {
    expect(monitorAt(MONS, 10, 10)).toBe(0);
    expect(monitorAt(MONS, 2000, 10)).toBe(1);
    expect(monitorAt(MONS, 3000, 1100)).toBe(1);
    expect(monitorAt([], 0, 0)).toBe(-1);
  });
});

describe("perch targets (look at: perch_targets)", () => {
  it("windows front to back with app, title (null when unnamed), rect and whether she can sit; peek edges; monitors", () => {
    const front = { ...win("f", "XClock", 100, 50, 1000, 100), title: "clock" };
    const back = win("b", null, 200, 100, 400, 300);
    expect(JSON.parse(JSON.stringify(perchTargets(world(front, back), SIZE)))).toEqual({
      windows: [
        { app: "XClock", title: "clock", rect: { x: 100, y: 50, width: 1000, height: 100 }, sittable: true },
        { app: null, title: null, rect: { x: 200, y: 100, width: 400, height: 300 }, sittable: false },
      ],
      peek_edges: [
        { side: "left", x: 100, top: 50, bottom: 150 },
        { side: "right", x: 1100, top: 50, bottom: 150 },
      ],
      monitors: [
        { monitor: 0, name: "L", rect: MONS[0]!.rect, work_area: MONS[0]!.workArea },
        { monitor: 1, name: "R", rect: MONS[1]!.rect, work_area: MONS[1]!.workArea },
      ],
    });
  });
});
