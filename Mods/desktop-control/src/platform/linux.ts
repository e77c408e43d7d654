// The Linux (X11) desktop through the standard X11 utilities Debian ships (xprop, wmctrl, xrandr,
// scrot, xprintidle): they speak EWMH and RandR correctly and are maintained, where hand-written
// protocol code would be neither. Every call is an argv array; nothing goes through a shell.
import { spawn } from "node:child_process";
import { access, constants, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { sameApp } from "../allowlist.ts";
import { type Runner, runProgram } from "../exec.ts";
import { msg, setup, ToolError } from "../messages.ts";
import { applicationDirs, type DesktopEntry, findDesktopEntry } from "./desktop-entry.ts";
import type { DisplayCapture, FrontWindow, Platform } from "./types.ts";
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

/** A top-level client window as EWMH describes it. */
export interface XWindow {
  id: string;
  instance: string | null;
  cls: string | null;
  title: string | null;
  pid: number | null;
  /** Shown in a task list: a normal or dialog window not marked skip-taskbar. */
  visible: boolean;
}

/** Tunables of the Linux backend (tests shorten the waits). */
export interface LinuxOptions {
  run?: Runner;
  env?: NodeJS.ProcessEnv;
  /** How long open_app waits for the app's first window. */
  openWaitMs?: number;
  /** How long close_app waits for the app's windows to go. */
  closeWaitMs?: number;
}

/** The helper programs and the tools that need each (for the preflight). */
export const LINUX_HELPERS: Record<string, string> = {
  xprop: "list_running_apps, get_frontmost_window, open_app, close_app, the witness",
  wmctrl: "open_app, close_app",
  xrandr: "screenshot",
  scrot: "screenshot",
  xprintidle: "the witness's idle detection",
};

const PROPS = ["WM_CLASS", "_NET_WM_NAME", "WM_NAME", "_NET_WM_PID", "_NET_WM_WINDOW_TYPE", "_NET_WM_STATE"];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The X11 backend. */
export class LinuxPlatform implements Platform {
  private readonly run: Runner;
  private readonly env: NodeJS.ProcessEnv;
  /** The environment launched apps get: the user's own, locale included. */
  private readonly appEnv: NodeJS.ProcessEnv;
  private readonly openWaitMs: number;
  private readonly closeWaitMs: number;

  constructor(opts: LinuxOptions = {}) {
    this.run = opts.run ?? runProgram;
    this.appEnv = opts.env ?? process.env;
    // xprop prints UTF-8 titles raw only in a UTF-8 locale (else as octal escapes it would be lossy to
    // undo); only the helpers get this locale, never a launched app.
    this.env = { ...this.appEnv, LC_ALL: "C.UTF-8" };
    this.openWaitMs = opts.openWaitMs ?? 10_000;
    this.closeWaitMs = opts.closeWaitMs ?? 5_000;
  }

  private x(file: string, args: string[]): Promise<string> {
    if (!this.env.DISPLAY) return Promise.reject(new ToolError(msg.noDisplay()));
    return this.run(file, args, { env: this.env }).then((r) => r.stdout);
  }

  /** Every client window (_NET_CLIENT_LIST), in mapping order; windows that vanish meanwhile are skipped. */
  async windows(): Promise<XWindow[]> {
    const ids = parseWindowIds(
      parseXprop(await this.x("xprop", ["-root", "-notype", "_NET_CLIENT_LIST"])).get("_NET_CLIENT_LIST"),
    );
    const all = await Promise.all(ids.map((id) => this.window(id).catch(() => null)));
    return all.filter((w): w is XWindow => w !== null);
  }

  /** One window's EWMH/ICCCM description. */
  async window(id: string): Promise<XWindow> {
    const p = parseXprop(await this.x("xprop", ["-notype", "-id", id, ...PROPS]));
    const wmClass = parseWmClass(p.get("WM_CLASS"));
    const types = parseAtoms(p.get("_NET_WM_WINDOW_TYPE"));
    const states = parseAtoms(p.get("_NET_WM_STATE"));
    const title = parseString(p.get("_NET_WM_NAME")) ?? parseString(p.get("WM_NAME"));
    return {
      id,
      instance: wmClass?.instance ?? null,
      cls: wmClass?.cls ?? null,
      // An empty name is no name: the window has no title to report.
      title: title === "" ? null : title,
      pid: parseCardinals(p.get("_NET_WM_PID"))[0] ?? null,
      visible:
        (types.length === 0 ||
          types.some((t) => t === "_NET_WM_WINDOW_TYPE_NORMAL" || t === "_NET_WM_WINDOW_TYPE_DIALOG")) &&
        !states.includes("_NET_WM_STATE_SKIP_TASKBAR"),
    };
  }

  async captureDisplays(): Promise<DisplayCapture[]> {
    const monitors = parseMonitors(await this.x("xrandr", ["--listmonitors"]));
    // One capture of the whole X screen, cut per monitor: the monitors then show one instant, and
    // scrot's own per-monitor mode follows Xinerama, which does not see client-defined RandR monitors.
    const dir = await mkdtemp(path.join(tmpdir(), "desktop-control-"));
    try {
      const file = path.join(dir, "screen.png");
      await this.x("scrot", ["--overwrite", "--silent", file]);
      const png = await readFile(file);
      if (monitors.length === 0) return [{ png }];
      return monitors.map(({ x, y, width, height }) => ({ png, region: { x, y, width, height } }));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async runningApps(): Promise<string[]> {
    const names: string[] = [];
    for (const w of await this.windows()) {
      const name = w.cls ?? w.instance;
      if (w.visible && name && !names.some((n) => n === name)) names.push(name);
    }
    return names;
  }

  async frontWindow(): Promise<FrontWindow> {
    const root = parseXprop(await this.x("xprop", ["-root", "-notype", "_NET_ACTIVE_WINDOW"]));
    const id = parseWindowIds(root.get("_NET_ACTIVE_WINDOW"))[0];
    if (!id) return { app: null, title: null };
    const w = await this.window(id).catch(() => null);
    if (!w) return { app: null, title: null };
    return { app: w.cls ?? w.instance, title: w.title };
  }

  async idleMs(): Promise<number> {
    return parseIdleMs(await this.x("xprintidle", []));
  }

  /** The windows that belong to app `name`: by WM_CLASS, or by the desktop entry's class or command. */
  private async windowsOf(name: string, entry: DesktopEntry | null, pid?: number): Promise<XWindow[]> {
    const keys = [name];
    if (entry) {
      if (entry.wmClass) keys.push(entry.wmClass);
      keys.push(path.basename(entry.argv[0]!));
    }
    return (await this.windows()).filter(
      (w) =>
        (pid !== undefined && w.pid === pid) ||
        keys.some(
          (k) => (w.cls !== null && sameApp(w.cls, k)) || (w.instance !== null && sameApp(w.instance, k)),
        ),
    );
  }

  async openApp(name: string): Promise<string> {
    const entry = await findDesktopEntry(name, applicationDirs(this.appEnv));
    const running = await this.windowsOf(name, entry);
    if (running.length > 0) {
      await this.x("wmctrl", ["-i", "-a", running[0]!.id]);
      return msg.opened(name);
    }
    // Without an entry the name is a command looked up on PATH, never a path: "../x" or "/tmp/x"
    // would run whatever sits there.
    if (!entry && name.includes("/")) throw new ToolError(msg.notInstalled(name));
    const argv = entry?.argv ?? [name];
    const pid = await this.launch(argv, name);
    const deadline = Date.now() + this.openWaitMs;
    while (Date.now() < deadline) {
      const ws = await this.windowsOf(name, entry, pid);
      if (ws.length > 0) {
        await this.x("wmctrl", ["-i", "-a", ws[0]!.id]);
        return msg.opened(name);
      }
      await sleep(150);
    }
    return msg.openedNoWindow(name);
  }

  /** Starts argv detached (its own session, no stdio), so it outlives this server; resolves with its pid. */
  private launch(argv: string[], name: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const child = spawn(argv[0]!, argv.slice(1), { env: this.appEnv, detached: true, stdio: "ignore" });
      child.once("error", (err: NodeJS.ErrnoException) =>
        reject(
          new ToolError(err.code === "ENOENT" ? msg.notInstalled(name) : msg.failed("open_app", err.message)),
        ),
      );
      child.once("spawn", () => {
        child.unref();
        resolve(child.pid!);
      });
    });
  }

  async closeApp(name: string): Promise<string> {
    const entry = await findDesktopEntry(name, applicationDirs(this.appEnv));
    const windows = await this.windowsOf(name, entry);
    if (windows.length === 0) return msg.notRunning(name);
    // _NET_CLOSE_WINDOW asks the window manager to close each window as its close button would:
    // it sends WM_DELETE_WINDOW, and the app may save or ask first. Nothing is ever killed.
    for (const w of windows) await this.x("wmctrl", ["-i", "-c", w.id]).catch(() => {});
    const ids = new Set(windows.map((w) => w.id));
    const deadline = Date.now() + this.closeWaitMs;
    while (Date.now() < deadline) {
      await sleep(150);
      const left = (await this.windows()).filter((w) => ids.has(w.id));
      if (left.length === 0) return msg.closed(name);
    }
    return msg.stillRunning(name);
  }

  async preflight(): Promise<string[]> {
    const lines: string[] = [];
    const display = this.env.DISPLAY;
    if (!display) {
      lines.push(setup.notAvailable("X display (DISPLAY is unset)", "every tool but get_activity_timeline"));
    } else if (await onPath("xprop", this.env)) {
      // _NET_SUPPORTING_WM_CHECK on the root is how an EWMH window manager announces itself.
      const wm = await this.run("xprop", ["-root", "-notype", "_NET_SUPPORTING_WM_CHECK"], {
        env: this.env,
      }).then(
        (r) => parseWindowIds(parseXprop(r.stdout).get("_NET_SUPPORTING_WM_CHECK")).length > 0,
        () => null,
      );
      if (wm === null)
        lines.push(setup.notAvailable(`X display ${display}`, "every tool but get_activity_timeline"));
      else if (!wm)
        lines.push(setup.notAvailable("an EWMH window manager", "get_frontmost_window, open_app, close_app"));
      else lines.push(setup.ok(`X display ${display}`));
    }
    for (const [helper, tools] of Object.entries(LINUX_HELPERS)) {
      if (!(await onPath(helper, this.env)))
        lines.push(setup.notAvailable(`helper program ${helper}`, tools));
    }
    return lines;
  }
}

/** true when an executable `name` is on PATH. */
async function onPath(name: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  for (const dir of (env.PATH ?? "").split(":").filter(Boolean)) {
    try {
      await access(path.join(dir, name), constants.X_OK);
      return true;
    } catch {}
  }
  return false;
}
