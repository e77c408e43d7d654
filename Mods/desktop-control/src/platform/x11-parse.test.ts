import { describe, expect, it } from "vitest";
import {
  parseAtoms,
  parseCardinals,
  parseIdleMs,
  parseMonitors,
  parseString,
  parseWindowIds,
  parseWmClass,
  parseXprop,
} from "./x11-parse.ts";

// Recorded from xprop 1.2 / xrandr 1.5 under Xvfb 21.1 and openbox 3.6.
const ROOT =
  "_NET_CLIENT_LIST: window id # 0x40000a, 0x60000c, 0x80000c\n_NET_ACTIVE_WINDOW: window id # 0x80000c\n";
const XTERM = [
  'WM_CLASS = "xterm", "XTerm"',
  "_NET_WM_NAME:  not found.",
  'WM_NAME = "Café "quoted" \\ back"',
  "_NET_WM_PID = 17062",
  "_NET_WM_WINDOW_TYPE:  not found.",
  "_NET_WM_STATE = ",
  "_NET_FRAME_EXTENTS = 1, 1, 20, 5",
  "",
].join("\n");

describe("xprop parsing", () => {
  it("reads the root's client list and active window", () => {
    const p = parseXprop(ROOT);
    expect(parseWindowIds(p.get("_NET_CLIENT_LIST"))).toEqual(["0x40000a", "0x60000c", "0x80000c"]);
    expect(parseWindowIds(p.get("_NET_ACTIVE_WINDOW"))).toEqual(["0x80000c"]);
  });

  it("reads no active window from 0x0 or a missing property", () => {
    expect(
      parseWindowIds(parseXprop("_NET_ACTIVE_WINDOW: window id # 0x0\n").get("_NET_ACTIVE_WINDOW")),
    ).toEqual([]);
    expect(parseWindowIds(parseXprop("_NET_ACTIVE_WINDOW:  not found.\n").get("_NET_ACTIVE_WINDOW"))).toEqual(
      [],
    );
  });

  it("reads a window's class, title with inner quotes, pid and frame extents", () => {
    const p = parseXprop(XTERM);
    expect(parseWmClass(p.get("WM_CLASS"))).toEqual({ instance: "xterm", cls: "XTerm" });
    expect(p.get("_NET_WM_NAME")).toBeNull();
    expect(parseString(p.get("WM_NAME"))).toBe('Café "quoted" \\ back');
    expect(parseCardinals(p.get("_NET_WM_PID"))).toEqual([17062]);
    expect(parseAtoms(p.get("_NET_WM_STATE"))).toEqual([]);
    expect(parseCardinals(p.get("_NET_FRAME_EXTENTS"))).toEqual([1, 1, 20, 5]);
  });

  it("decodes xprop's octal escapes as UTF-8 bytes", () => {
    expect(parseString('"line1\\012line2\\011tab"')).toBe("line1\nline2\ttab");
    expect(parseString('"Caf\\303\\251"')).toBe("Café");
    expect(parseString('""')).toBe("");
    expect(parseString(null)).toBeNull();
  });

  it("reads atom lists", () => {
    expect(parseAtoms("_NET_WM_STATE_ABOVE, _NET_WM_STATE_SKIP_TASKBAR")).toEqual([
      "_NET_WM_STATE_ABOVE",
      "_NET_WM_STATE_SKIP_TASKBAR",
    ]);
  });
});

describe("xrandr and xprintidle parsing", () => {
  it("reads client-defined and automatic monitors with their geometry", () => {
    const out = "Monitors: 2\n 0: *LEFT 1920/508x1200/318+0+0  screen\n 1: RIGHT 1280/338x1024/270+1920+0 \n";
    expect(parseMonitors(out)).toEqual([
      { name: "LEFT", x: 0, y: 0, width: 1920, height: 1200 },
      { name: "RIGHT", x: 1920, y: 0, width: 1280, height: 1024 },
    ]);
    expect(parseMonitors("Monitors: 1\n 0: +*eDP-1 1536/309x864/174+0+0  eDP-1\n")).toEqual([
      { name: "eDP-1", x: 0, y: 0, width: 1536, height: 864 },
    ]);
  });

  it("reads idle milliseconds and refuses anything else", () => {
    expect(parseIdleMs("1234\n")).toBe(1234);
    expect(() => parseIdleMs("couldn't open display")).toThrow();
  });
});
