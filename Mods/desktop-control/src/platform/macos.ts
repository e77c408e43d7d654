// The macOS desktop: screencapture, open -a, and Apple Events / AppKit through osascript's
// JavaScript (JXA). App names reach osascript as run() arguments, never spliced into script text.
// Which privacy grant each call needs is the spec's TCC table; the preflight never prompts for a
// per-app Automation grant.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { sameApp } from "../allowlist.ts";
import { RunFailed, type Runner, runProgram } from "../exec.ts";
import { msg, setup, ToolError } from "../messages.ts";
import type { DisplayCapture, FrontWindow, Platform } from "./types.ts";

/** The JXA scripts, each a complete program whose last value (or run()'s result) osascript prints. */
export const JXA = {
  // AppKit's screen list needs no grant; CGPreflightScreenCaptureAccess reads the grant without prompting.
  displays: `ObjC.import("AppKit"); ObjC.import("CoreGraphics");
JSON.stringify({ count: $.NSScreen.screens.count, granted: $.CGPreflightScreenCaptureAccess() });`,
  // Automation → System Events.
  runningApps: `JSON.stringify(Application("System Events").applicationProcesses.whose({ backgroundOnly: false }).name());`,
  // The app half comes from NSWorkspace (no grant); window names in the CGWindowList need Screen Recording.
  front: `ObjC.import("AppKit"); ObjC.import("CoreGraphics");
const app = $.NSWorkspace.sharedWorkspace.frontmostApplication;
if (!app || app.isNil()) { JSON.stringify({ app: null, title: null }); } else {
  const pid = app.processIdentifier;
  const opts = $.kCGWindowListOptionOnScreenOnly | $.kCGWindowListExcludeDesktopElements;
  const list = ObjC.deepUnwrap(ObjC.castRefToObject($.CGWindowListCopyWindowInfo(opts, $.kCGNullWindowID))) || [];
  const w = list.find((w) => w.kCGWindowOwnerPID === pid && w.kCGWindowLayer === 0);
  JSON.stringify({ app: app.localizedName.js, title: w && w.kCGWindowName ? w.kCGWindowName : null });
}`,
  // Regular (Dock) apps from NSWorkspace: close_app's "is it running" check, with no grant needed.
  regularApps: `ObjC.import("AppKit");
JSON.stringify(ObjC.unwrap($.NSWorkspace.sharedWorkspace.runningApplications)
  .filter((a) => a.activationPolicy === $.NSApplicationActivationPolicyRegular)
  .map((a) => a.localizedName.js));`,
  // Automation → the named app: the quit Apple Event goes to the app itself.
  quit: `function run(argv) { Application(argv[0]).quit(); return "ok"; }`,
} as const;

/** The argv of every macOS call, built in one place (and unit-tested). */
export const macCommands = {
  jxa: (script: string, ...args: string[]) => ["osascript", "-l", "JavaScript", "-e", script, ...args],
  capture: (files: string[]) => ["screencapture", "-x", "-t", "png", ...files],
  open: (name: string) => ["open", "-a", name],
  idle: () => ["ioreg", "-c", "IOHIDSystem", "-d", "4", "-r", "-k", "HIDIdleTime"],
} as const;

/** The Apple Event error number in osascript's stderr ("... (-1743)"), if any. */
export function appleEventError(stderr: string): number | null {
  const m = /\((-\d+)\)\s*$/.exec(stderr.trim());
  return m ? Number(m[1]) : null;
}

/** ioreg's HIDIdleTime (nanoseconds) as milliseconds. */
export function parseHidIdle(stdout: string): number {
  const m = /"HIDIdleTime"\s*=\s*(\d+)/.exec(stdout);
  if (!m) throw new Error("ioreg printed no HIDIdleTime");
  return Math.floor(Number(m[1]) / 1e6);
}

/** A JSON value osascript printed, checked by `guard`. */
export function parseJson<T>(stdout: string, guard: (v: unknown) => v is T, what: string): T {
  let v: unknown;
  try {
    v = JSON.parse(stdout.trim());
  } catch {
    throw new Error(`${what}: osascript printed '${stdout.trim().slice(0, 200)}'`);
  }
  if (!guard(v)) throw new Error(`${what}: unexpected answer '${stdout.trim().slice(0, 200)}'`);
  return v;
}

const isStringArray = (v: unknown): v is string[] =>
  Array.isArray(v) && v.every((x) => typeof x === "string");
const isFront = (v: unknown): v is FrontWindow =>
  typeof v === "object" &&
  v !== null &&
  ["app", "title"].every((k) => {
    const x = (v as Record<string, unknown>)[k];
    return x === null || typeof x === "string";
  });
const isDisplays = (v: unknown): v is { count: number; granted: boolean } =>
  typeof v === "object" &&
  v !== null &&
  Number.isInteger((v as { count?: unknown }).count) &&
  typeof (v as { granted?: unknown }).granted === "boolean";

/** Options of the macOS backend. */
export interface MacOptions {
  run?: Runner;
  env?: NodeJS.ProcessEnv;
  closeWaitMs?: number;
  pollMs?: number;
}

/** The macOS backend. */
export class MacPlatform implements Platform {
  private readonly run: Runner;
  private readonly env: NodeJS.ProcessEnv;
  private readonly closeWaitMs: number;
  private readonly pollMs: number;

  constructor(opts: MacOptions = {}) {
    this.run = opts.run ?? runProgram;
    this.env = opts.env ?? process.env;
    this.closeWaitMs = opts.closeWaitMs ?? 5_000;
    this.pollMs = opts.pollMs ?? 200;
  }

  private async cmd(argv: readonly string[], target?: string): Promise<string> {
    try {
      return (await this.run(argv[0]!, argv.slice(1), { env: this.env })).stdout;
    } catch (e) {
      // -1743: the user has not granted (or has denied) Automation for this target.
      if (e instanceof RunFailed && target && appleEventError(e.stderr) === -1743) {
        throw new ToolError(msg.automationDenied(target));
      }
      throw e;
    }
  }

  async captureDisplays(): Promise<DisplayCapture[]> {
    const d = parseJson(await this.cmd(macCommands.jxa(JXA.displays)), isDisplays, "display list");
    // Without the grant screencapture still "works" but returns the wallpaper alone: refuse instead.
    if (!d.granted) throw new ToolError(msg.screenRecordingDenied());
    const dir = await mkdtemp(path.join(tmpdir(), "desktop-control-"));
    try {
      const files = Array.from({ length: d.count }, (_v, i) => path.join(dir, `display-${i + 1}.png`));
      await this.cmd(macCommands.capture(files));
      return await Promise.all(files.map(async (f) => ({ png: await readFile(f) })));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async runningApps(): Promise<string[]> {
    return parseJson(
      await this.cmd(macCommands.jxa(JXA.runningApps), "System Events"),
      isStringArray,
      "app list",
    );
  }

  async frontWindow(): Promise<FrontWindow> {
    return parseJson(await this.cmd(macCommands.jxa(JXA.front)), isFront, "frontmost window");
  }

  async idleMs(): Promise<number> {
    return parseHidIdle(await this.cmd(macCommands.idle()));
  }

  async openApp(name: string): Promise<string> {
    try {
      // open -a launches the app, or brings it forward when it runs, and activates it either way.
      await this.cmd(macCommands.open(name));
    } catch (e) {
      if (e instanceof RunFailed && /Unable to find application/i.test(e.stderr))
        throw new ToolError(msg.notInstalled(name));
      throw e;
    }
    return msg.opened(name);
  }

  private async isRunning(name: string): Promise<boolean> {
    const apps = parseJson(await this.cmd(macCommands.jxa(JXA.regularApps)), isStringArray, "running apps");
    return apps.some((a) => sameApp(a, name));
  }

  async closeApp(name: string): Promise<string> {
    if (!(await this.isRunning(name))) return msg.notRunning(name);
    try {
      await this.cmd(macCommands.jxa(JXA.quit, name), name);
    } catch (e) {
      // -128: the app asked the user (e.g. to save) and the user cancelled the quit.
      if (e instanceof RunFailed && appleEventError(e.stderr) === -128) return msg.stillRunning(name);
      throw e;
    }
    const deadline = Date.now() + this.closeWaitMs;
    while (Date.now() < deadline) {
      if (!(await this.isRunning(name))) return msg.closed(name);
      await new Promise((r) => setTimeout(r, this.pollMs));
    }
    return msg.stillRunning(name);
  }

  async preflight(): Promise<string[]> {
    const lines: string[] = [];
    const screen = await this.cmd(macCommands.jxa(JXA.displays)).then(
      (out) => parseJson(out, isDisplays, "display list").granted,
      () => false,
    );
    lines.push(
      screen
        ? setup.ok("Screen Recording")
        : setup.notGranted("Screen Recording", "screenshot and the title half of get_frontmost_window"),
    );
    // Only System Events is probed: asking about each allowlisted app would prompt the user for each.
    const events = await this.runningApps().then(
      () => "ok" as const,
      (e: unknown) => (e instanceof ToolError ? ("denied" as const) : ("failed" as const)),
    );
    lines.push(
      events === "ok"
        ? setup.ok("Automation → System Events")
        : events === "denied"
          ? setup.notGranted("Automation → System Events", "list_running_apps")
          : setup.notAvailable("Automation → System Events", "list_running_apps"),
    );
    return lines;
  }
}
