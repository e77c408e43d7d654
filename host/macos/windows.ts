// Reads other applications' windows and the monitors on macOS (docs/body.md "macOS"), for the body's World:
// one `osascript -l JavaScript` (JXA) child process per reading, with an argument array and a fixed script
// (nothing interpolated), which calls CoreGraphics' CGWindowListCopyWindowInfo and reads NSScreen's frames.
// Window titles need the Screen Recording permission (for osascript's host: Terminal, or the app that
// started YUI); without it CoreGraphics leaves kCGWindowName out and every title is null.
import { execFile } from "node:child_process";
import type { World } from "../../src/body/world.ts";
import { type PollOptions, pollWorld, type WorldWatcher } from "../x11/poll.ts";
import { type OwnWindows, parseMacWorld } from "./parse.ts";

/**
 * The JXA script: prints `{"windows":[…],"screens":[…]}`. kCGWindowListOptionOnScreenOnly (1 << 0) |
 * kCGWindowListExcludeDesktopElements (1 << 4) = 17, relative to kCGNullWindowID (0): the windows on screen
 * now, front to back, without the desktop's own. Each dictionary is read key by key (`objectForKey`, then
 * coerced to the JSON type the parser expects) rather than with one `ObjC.deepUnwrap` of the whole CFArray,
 * which others report giving `undefined` on macOS 14. NSScreen frames are Cocoa's (y up); parse.ts flips them.
 */
export const JXA_WORLD = `ObjC.import("CoreGraphics");
ObjC.import("AppKit");
(() => {
  const get = (d, k) => {
    const v = d.objectForKey(k);
    return v === undefined || v === null || v.isNil() ? undefined : ObjC.unwrap(v);
  };
  const KEYS = {
    kCGWindowLayer: Number,
    kCGWindowNumber: Number,
    kCGWindowOwnerPID: Number,
    kCGWindowAlpha: Number,
    kCGWindowOwnerName: String,
    kCGWindowName: String,
    kCGWindowIsOnscreen: Boolean,
  };
  const list = ObjC.castRefToObject($.CGWindowListCopyWindowInfo(17, 0));
  const windows = [];
  for (let i = 0; i < Number(list.count); i++) {
    const d = list.objectAtIndex(i);
    const w = {};
    for (const k of Object.keys(KEYS)) {
      const v = get(d, k);
      if (v !== undefined) w[k] = KEYS[k](v);
    }
    const b = d.objectForKey("kCGWindowBounds");
    if (b && !b.isNil())
      w.kCGWindowBounds = { X: Number(get(b, "X")), Y: Number(get(b, "Y")), Width: Number(get(b, "Width")), Height: Number(get(b, "Height")) };
    windows.push(w);
  }
  const rect = (r) => ({ x: r.origin.x, y: r.origin.y, width: r.size.width, height: r.size.height });
  const all = $.NSScreen.screens;
  const screens = [];
  for (let i = 0; i < Number(all.count); i++) {
    const s = all.objectAtIndex(i);
    let name = null;
    try {
      name = ObjC.unwrap(s.localizedName) || null;
    } catch (e) {
      name = null;
    }
    screens.push({ name, frame: rect(s.frame), visibleFrame: rect(s.visibleFrame) });
  }
  return JSON.stringify({ windows, screens });
})();`;

/** The argument array that runs the script. */
export const OSASCRIPT_ARGV = ["osascript", "-l", "JavaScript", "-e", JXA_WORLD] as const;

/** Runs a program with arguments and answers its stdout, or null when it failed. */
export type MacRun = (file: string, args: readonly string[]) => Promise<string | null>;

export const macRun: MacRun = (file, args) =>
  new Promise((resolve) => {
    execFile(file, [...args], { timeout: 5000, maxBuffer: 8 << 20 }, (err, stdout) =>
      resolve(err ? null : stdout),
    );
  });

/** One reading of the desktop; `own` leaves her windows out (the Electron shell's pid). */
export async function readMacWorld(run: MacRun = macRun, own: OwnWindows = {}): Promise<World> {
  const [file, ...args] = OSASCRIPT_ARGV;
  const out = await run(file, args);
  if (out === null) throw new Error("osascript could not read the window list (is this a macOS session?)");
  return parseMacWorld(out, own);
}

/**
 * Reads the world every intervalMs while `pollWhile` says it matters (macOS announces window moves to no process
 * without the Accessibility permission, so this polls), and calls onChange with each reading that differs
 * from the last (and the first); refresh() reads at once.
 */
export function watchMacWorld(
  onChange: (world: World) => void,
  opts: PollOptions & { run?: MacRun; own?: OwnWindows } = {},
): WorldWatcher {
  const watch = pollWorld(() => readMacWorld(opts.run, opts.own), onChange, { intervalMs: 1000, ...opts });
  return { refresh: watch.refresh, resume: watch.resume, stop: watch.stop };
}
