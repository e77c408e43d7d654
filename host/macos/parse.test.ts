// The macOS reader's parser, fed the JXA script's output. The samples (testdata/) were written by hand from
// Apple's documented CGWindowListCopyWindowInfo keys (kCGWindowLayer, kCGWindowBounds {X, Y, Width, Height},
// kCGWindowOwnerName, kCGWindowOwnerPID, kCGWindowName, kCGWindowIsOnscreen, kCGWindowNumber, kCGWindowAlpha)
// and NSScreen's frame/visibleFrame, for a 1512×982 built-in display with a 1920×1080 one to its right, 200
// points higher; they were not recorded on a Mac (none runs here; docs/electron.md).
import { readFileSync } from "node:fs";
import { runInNewContext, Script } from "node:vm";
import { describe, expect, it } from "vitest";
import { perchTargets } from "../../src/body/perch.ts";
import type { Rect } from "../../src/body/world.ts";
import { leftOutBecause, parseMacWorld, toMonitors } from "./parse.ts";
import { JXA_WORLD, OSASCRIPT_ARGV, readMacWorld } from "./windows.ts";

const sample = (name: string) => readFileSync(new URL(`testdata/${name}`, import.meta.url), "utf8");
const WITH_PERMISSION = sample("world-screen-recording.json");
const WITHOUT_PERMISSION = sample("world-no-permission.json");

const MONITORS = [
  {
    name: "Built-in Retina Display",
    rect: { x: 0, y: 0, width: 1512, height: 982 },
    workArea: { x: 0, y: 37, width: 1512, height: 875 },
  },
  {
    name: "DELL U2720Q",
    rect: { x: 1512, y: -200, width: 1920, height: 1080 },
    workArea: { x: 1512, y: -175, width: 1920, height: 1055 },
  },
];

describe("parseMacWorld", () => {
  it("lists other apps' normal windows front to back, with titles when Screen Recording is granted", () => {
    const world = parseMacWorld(WITH_PERMISSION);
    expect(world.windows).toEqual([
      { id: "812", app: "Safari", title: "Apple", rect: { x: 120, y: 60, width: 1100, height: 760 } },
      {
        id: "977",
        app: "Terminal",
        title: "yui — -zsh — 80×24",
        rect: { x: 640, y: 300, width: 740, height: 480 },
      },
      { id: "1021", app: "Finder", title: "Downloads", rect: { x: 1700, y: -120, width: 920, height: 540 } },
      { id: "1022", app: "Finder", title: null, rect: { x: 1750, y: -80, width: 920, height: 540 } },
    ]);
    expect(world.monitors).toEqual(MONITORS);
  });

  it("without Screen Recording every title is null; apps, bounds and order stay", () => {
    const world = parseMacWorld(WITHOUT_PERMISSION);
    expect(world.windows.map((w) => [w.id, w.app, w.title])).toEqual([
      ["812", "Safari", null],
      ["977", "Terminal", null],
      ["1021", "Finder", null],
      ["1022", "Finder", null],
    ]);
    expect(world.windows.map((w) => w.rect)).toEqual(
      parseMacWorld(WITH_PERMISSION).windows.map((w) => w.rect),
    );
  });

  it("leaves out the menu bar, the Dock, status items, invisible windows and hers (by name or by pid)", () => {
    const all = JSON.parse(WITH_PERMISSION).windows as Record<string, unknown>[];
    const why = Object.fromEntries(all.map((w) => [String(w.kCGWindowNumber), leftOutBecause(w)]));
    expect(why).toEqual({
      "45": "not a normal window (layer)",
      "31": "not a normal window (layer)",
      "9120": "not a normal window (layer)", // her window floats (NSFloatingWindowLevel, layer 3)
      "58": "not a normal window (layer)",
      "9133": "hers", // her Settings window: an ordinary window of the Electron shell
      "812": null,
      "815": "invisible",
      "977": null,
      "1021": null,
      "1022": null,
    });
    // A packaged YUI named otherwise: her pid still leaves her ordinary windows out.
    const renamed = WITH_PERMISSION.replaceAll('"Electron"', '"YUI Companion"');
    expect(parseMacWorld(renamed).windows.map((w) => w.app)).toContain("YUI Companion");
    expect(parseMacWorld(renamed, { pids: [4711] }).windows.map((w) => w.app)).not.toContain("YUI Companion");
    expect(
      leftOutBecause({
        kCGWindowLayer: 0,
        kCGWindowOwnerName: "yui",
        kCGWindowBounds: { X: 0, Y: 0, Width: 9, Height: 9 },
      }),
    ).toBe("hers");
  });

  it("malformed entries are left out, not fatal", () => {
    const out = JSON.stringify({
      windows: [
        null,
        { kCGWindowLayer: 0, kCGWindowNumber: 1, kCGWindowOwnerName: "A" },
        {
          kCGWindowLayer: 0,
          kCGWindowNumber: 2,
          kCGWindowOwnerName: "B",
          kCGWindowBounds: { X: 0, Y: 0, Width: 0, Height: 5 },
        },
        {
          kCGWindowLayer: 0,
          kCGWindowNumber: 3,
          kCGWindowOwnerName: "C",
          kCGWindowIsOnscreen: 0,
          kCGWindowBounds: { X: 0, Y: 0, Width: 5, Height: 5 },
        },
        { kCGWindowLayer: 0, kCGWindowNumber: 4, kCGWindowBounds: { X: 1, Y: 2, Width: 3, Height: 4 } },
      ],
    });
    expect(parseMacWorld(out)).toEqual({
      windows: [{ id: "4", app: null, title: null, rect: { x: 1, y: 2, width: 3, height: 4 } }],
      monitors: [],
    });
  });

  it("flips NSScreen's frames (y up from the primary's bottom) into the window list's space (y down from its top)", () => {
    expect(
      toMonitors([
        {
          name: null,
          frame: { x: 0, y: 0, width: 1440, height: 900 },
          visibleFrame: { x: 0, y: 0, width: 1440, height: 875 },
        },
        {
          name: "Below",
          frame: { x: 0, y: -1080, width: 1920, height: 1080 },
          visibleFrame: { x: 0, y: -1080, width: 1920, height: 1080 },
        },
      ]),
    ).toEqual([
      {
        name: "monitor 0",
        rect: { x: 0, y: 0, width: 1440, height: 900 },
        workArea: { x: 0, y: 25, width: 1440, height: 875 },
      },
      {
        name: "Below",
        rect: { x: 0, y: 900, width: 1920, height: 1080 },
        workArea: { x: 0, y: 900, width: 1920, height: 1080 },
      },
    ]);
  });

  it("feeds the body's geometry: look at perch_targets lists the windows with null titles as the spec shapes them", () => {
    const targets = perchTargets(parseMacWorld(WITHOUT_PERMISSION));
    expect(targets.windows.map((w) => [w.app, w.title])).toEqual([
      ["Safari", null],
      ["Terminal", null],
      ["Finder", null],
      ["Finder", null],
    ]);
    expect(targets.monitors).toHaveLength(2);
  });
});

describe("readMacWorld", () => {
  it("runs osascript's JXA with an argument array and the fixed script, and parses what it prints", async () => {
    const calls: [string, readonly string[]][] = [];
    const world = await readMacWorld(
      async (file, args) => {
        calls.push([file, args]);
        return WITH_PERMISSION;
      },
      { pids: [4711] },
    );
    expect(calls).toEqual([["osascript", ["-l", "JavaScript", "-e", JXA_WORLD]]]);
    expect(OSASCRIPT_ARGV[0]).toBe("osascript");
    expect(world.windows).toHaveLength(4);
    await expect(readMacWorld(async () => null)).rejects.toThrow(/osascript could not read the window list/);
  });

  it("the JXA script is valid JavaScript (osascript itself cannot run here)", () => {
    expect(() => new Script(JXA_WORLD)).not.toThrow();
  });

  it("the JXA script, run against a stand-in for the JXA bridge, prints what the parser reads", () => {
    // A stand-in, not JXA: wrapped values with objectForKey/isNil/count/objectAtIndex as the bridge offers
    // them, CoreGraphics' list from the sample, NSScreen's structs in Cocoa's space. It checks the script's own
    // logic (keys, coercions, frames); whether the real bridge behaves so is checked only on a Mac.
    const sampled = JSON.parse(WITH_PERMISSION) as {
      windows: Record<string, unknown>[];
      screens: { name: string; frame: Rect; visibleFrame: Rect }[];
    };
    class Wrapped {
      constructor(readonly v: unknown) {}
      isNil() {
        return this.v === undefined || this.v === null;
      }
      objectForKey(k: string) {
        return new Wrapped((this.v as Record<string, unknown>)[k]);
      }
      get count() {
        return (this.v as unknown[]).length;
      }
      objectAtIndex(i: number) {
        return new Wrapped((this.v as unknown[])[i]);
      }
    }
    const struct = (r: Rect) => ({ origin: { x: r.x, y: r.y }, size: { width: r.width, height: r.height } });
    const calls: unknown[][] = [];
    const out = runInNewContext(JXA_WORLD, {
      ObjC: { import: () => {}, unwrap: (w: Wrapped) => w.v, castRefToObject: (r: unknown) => r },
      $: {
        CGWindowListCopyWindowInfo: (...a: unknown[]) => {
          calls.push(a);
          return new Wrapped(sampled.windows);
        },
        NSScreen: {
          screens: {
            count: sampled.screens.length,
            objectAtIndex: (i: number) => {
              const sc = sampled.screens[i]!;
              return {
                localizedName: new Wrapped(sc.name),
                frame: struct(sc.frame),
                visibleFrame: struct(sc.visibleFrame),
              };
            },
          },
        },
      },
    }) as string;
    expect(calls).toEqual([[17, 0]]);
    expect(parseMacWorld(out)).toEqual(parseMacWorld(WITH_PERMISSION));
    expect(parseMacWorld(out, { pids: [4711] }).windows.map((w) => w.id)).toEqual([
      "812",
      "977",
      "1021",
      "1022",
    ]);
  });
});
