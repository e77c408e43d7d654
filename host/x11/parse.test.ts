// The model's assembly (parse.ts) over readings decoded from recorded xprop/xwininfo/xrandr output (xtools.ts).
import { parseString, parseWindowIds, parseWmClass } from "@yui/mod-kit/x11";
import { describe, expect, it } from "vitest";
import { assembleWorld, type ClientReading, leftOutBecause, toDesktopWindow } from "./parse.ts";
import { clientFromXprop, parseMonitors, parseXprop, parseXwininfo, rootFromXprop } from "./xtools.ts";

// Recorded under Xvfb + openbox (xterm -geometry 80x24+100+100).
const XPROP_XTERM = `WM_CLASS = "xterm", "XTerm"
_NET_WM_NAME:  not found.
WM_NAME = "xterm"
_NET_WM_STATE = 
_NET_WM_DESKTOP = 0
_NET_FRAME_EXTENTS = 1, 1, 20, 5
_NET_WM_PID = 22126
_NET_WM_WINDOW_TYPE:  not found.
`;
const XWININFO_XTERM = `
xwininfo: Window id: 0x40000c "xterm"

  Absolute upper-left X:  101
  Absolute upper-left Y:  120
  Relative upper-left X:  1
  Relative upper-left Y:  20
  Width: 484
  Height: 316
  Depth: 24
  Border width: 0
  Map State: IsViewable
  Override Redirect State: no
  Corners:  +101+120  -2615+120  -2615-764  +101-764
  -geometry 80x24+100+100
`;
const ROOT = `_NET_CLIENT_LIST_STACKING: window id # 0x60000a, 0x40000c
_NET_CURRENT_DESKTOP = 1
_NET_WORKAREA = 0, 0, 3200, 1200, 0, 30, 3200, 1170, 0, 0, 3200, 1200, 0, 0, 3200, 1200
`;
const MONITORS = `Monitors: 2
 0: +*L 1920/508x1200/318+0+0  screen
 1: R 1280/338x1024/270+1920+0 
`;

const client = (
  id: string,
  props: Record<string, string | null>,
  g: Partial<ClientReading["geometry"]> = {},
) =>
  ({
    id,
    props: clientFromXprop(new Map(Object.entries(props))),
    geometry: { x: 10, y: 40, width: 100, height: 50, viewable: true, ...g },
  }) satisfies ClientReading;

describe("parsers", () => {
  it("xprop: values, and null for a property not found", () => {
    const p = parseXprop(XPROP_XTERM);
    expect(p.get("WM_CLASS")).toBe('"xterm", "XTerm"');
    expect(p.get("_NET_WM_NAME")).toBeNull();
    expect(p.get("_NET_WM_STATE")).toBe("");
    expect(p.has("_NET_WM_ICON")).toBe(false);
  });
  it.each([
    ["window id # 0x60000a, 0x40000c", ["0x60000a", "0x40000c"]],
    ["window id # 0x0", []],
    [null, []],
  ])("window ids of %j", (v, ids) => expect(parseWindowIds(v)).toEqual(ids));
  it.each([
    ['"xterm", "XTerm"', { instance: "xterm", cls: "XTerm" }],
    ['"single"', { instance: "single", cls: "single" }],
    [null, null],
  ])("WM_CLASS %j", (v, out) => expect(parseWmClass(v)).toEqual(out));
  it.each([
    ['"caf\\303\\251 \\"q\\""', 'café \\"q\\"'],
    ['"Ünïcode — title"', "Ünïcode — title"],
    ['""', ""],
    [null, null],
  ])("string %j", (v, out) => expect(parseString(v)).toBe(out));
  it("xwininfo: the client's absolute position, size and map state", () => {
    expect(parseXwininfo(XWININFO_XTERM)).toEqual({
      x: 101,
      y: 120,
      width: 484,
      height: 316,
      viewable: true,
    });
    expect(parseXwininfo(XWININFO_XTERM.replace("IsViewable", "IsUnMapped"))?.viewable).toBe(false);
    expect(parseXwininfo("xwininfo: error: No such window")).toBeNull();
  });
  it("xrandr --listactivemonitors, in its order", () => {
    expect(parseMonitors(MONITORS)).toEqual([
      { name: "L", rect: { x: 0, y: 0, width: 1920, height: 1200 } },
      { name: "R", rect: { x: 1920, y: 0, width: 1280, height: 1024 } },
    ]);
  });
});

describe("which clients are listed", () => {
  it.each([
    ["an ordinary window", {}, {}, null],
    ["hers (WM_CLASS yui)", { WM_CLASS: '"yui", "yui"' }, {}, "hers"],
    ["hers (WM_CLASS YUI, any case)", { WM_CLASS: '"main", "YUI"' }, {}, "hers"],
    ["minimized", { _NET_WM_STATE: "_NET_WM_STATE_HIDDEN" }, {}, "minimized"],
    ["unmapped", {}, { viewable: false }, "hidden"],
    ["on another workspace", { _NET_WM_DESKTOP: "0" }, {}, "other workspace"],
    ["sticky (0xFFFFFFFF) counts as current", { _NET_WM_DESKTOP: "4294967295" }, {}, null],
    ["a desktop window", { _NET_WM_WINDOW_TYPE: "_NET_WM_WINDOW_TYPE_DESKTOP" }, {}, "desktop or dock"],
    ["a dock", { _NET_WM_WINDOW_TYPE: "_NET_WM_WINDOW_TYPE_DOCK" }, {}, "desktop or dock"],
    ["a dialog", { _NET_WM_WINDOW_TYPE: "_NET_WM_WINDOW_TYPE_DIALOG" }, {}, null],
  ] as const)("%s", (_n, props, g, why) =>
    expect(
      leftOutBecause(client("0x1", { WM_CLASS: '"xterm", "XTerm"', _NET_WM_DESKTOP: "1", ...props }, g), 1),
    ).toBe(why),
  );
});

describe("a client as a window", () => {
  it("frame = client geometry plus _NET_FRAME_EXTENTS (left, right, top, bottom); app from WM_CLASS", () => {
    const c = {
      id: "0x40000c",
      props: clientFromXprop(parseXprop(XPROP_XTERM)),
      geometry: parseXwininfo(XWININFO_XTERM)!,
    };
    expect(toDesktopWindow(c)).toEqual({
      id: "0x40000c",
      app: "XTerm",
      aliases: ["xterm"],
      title: "xterm",
      rect: { x: 100, y: 100, width: 486, height: 341 },
    });
  });
  it.each([
    ["_NET_WM_NAME wins over WM_NAME", { _NET_WM_NAME: '"ünï"', WM_NAME: '"x"' }, undefined, "ünï", "A"],
    ["unnamed: title null", {}, undefined, null, "A"],
    ["empty title: null", { WM_NAME: '""' }, undefined, null, "A"],
    ["no WM_CLASS: the process name", { WM_CLASS: null }, "gedit", null, "gedit"],
    ["no WM_CLASS and no process: app null", { WM_CLASS: null }, null, null, null],
  ] as const)("%s", (_n, props, comm, title, app) => {
    const c: ClientReading = client("0x2", { WM_CLASS: '"a", "A"', ...props });
    if (comm !== undefined) c.comm = comm;
    expect(toDesktopWindow(c)).toMatchObject({ title, app });
  });
});

describe("assembleWorld", () => {
  it("front to back from the bottom-to-top stacking list; work areas of the current desktop per monitor", () => {
    const root = rootFromXprop(parseXprop(ROOT));
    // EWMH lists bottom to top: 0x40000c (last) is the frontmost.
    const top = client("0x40000c", { WM_CLASS: '"xterm", "XTerm"', _NET_WM_DESKTOP: "1" });
    const bottom = client("0x60000a", { WM_CLASS: '"xclock", "XClock"', _NET_WM_DESKTOP: "1" });
    const elsewhere = client("0x70000a", { WM_CLASS: '"x", "X"', _NET_WM_DESKTOP: "0" });
    const w = assembleWorld(root, [bottom, top, elsewhere], parseMonitors(MONITORS));
    expect(w.windows.map((x) => x.id)).toEqual(["0x40000c", "0x60000a"]);
    expect(w.monitors).toEqual([
      {
        name: "L",
        rect: { x: 0, y: 0, width: 1920, height: 1200 },
        workArea: { x: 0, y: 30, width: 1920, height: 1170 },
      },
      {
        name: "R",
        rect: { x: 1920, y: 0, width: 1280, height: 1024 },
        workArea: { x: 1920, y: 30, width: 1280, height: 994 },
      },
    ]);
  });
  it("her own windows are not listed, but carry the frames of the listed windows stacked above them", () => {
    const root = rootFromXprop(new Map([["_NET_CLIENT_LIST_STACKING", "window id # 0x1, 0x2, 0x3, 0x4"]]));
    const below = client("0x1", { WM_CLASS: '"a", "A"' }, { x: 0, y: 0 });
    const hers = client("0x2", { WM_CLASS: '"yui", "YUI"', _NET_WM_NAME: '"Yui"' }, { x: 5, y: 5 });
    const above = client("0x3", { WM_CLASS: '"b", "B"' }, { x: 50, y: 60 });
    const hidden = client("0x4", { WM_CLASS: '"yui", "YUI"' }, { viewable: false });
    const w = assembleWorld(root, [below, hers, above, hidden], []);
    expect(w.windows.map((x) => x.id)).toEqual(["0x3", "0x1"]);
    expect(w.hers).toEqual([
      {
        title: "Yui",
        rect: { x: 5, y: 5, width: 100, height: 50 },
        above: [{ x: 50, y: 60, width: 100, height: 50 }],
      },
    ]);
  });
  it("without _NET_WORKAREA each work area is its monitor", () => {
    const w = assembleWorld(rootFromXprop(new Map()), [], parseMonitors(MONITORS));
    expect(w.monitors[1]!.workArea).toEqual({ x: 1920, y: 0, width: 1280, height: 1024 });
    expect(w.windows).toEqual([]);
  });
});
