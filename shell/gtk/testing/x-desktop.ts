/**
 * A real X desktop for the shell's tests: Xvfb (a free display picked by Xvfb itself), openbox as the EWMH
 * window manager and, unless told otherwise, xcompmgr as the compositor; helpers to run X clients and
 * utilities and to grab the root window. Everything started is killed by close().
 */
import { type ChildProcess, execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { waitFor as kitWaitFor, startXServer } from "@yui/mod-kit/testing";
import sharp from "sharp";

export const SCREEN = { width: 1280, height: 800 } as const;

/** A running test desktop. */
export interface XDesktop {
  display: string;
  env: NodeJS.ProcessEnv;
  /** Starts an X client; it is killed by close() if still running. */
  start(argv: string[]): ChildProcess;
  /** Runs an X utility against this display and returns stdout. */
  x(file: string, args: string[]): Promise<string>;
  /** The root window's pixels (RGB), as the user sees them. */
  screenshot(): Promise<Screenshot>;
  close(): Promise<void>;
}

/** A grab of the root window. */
export interface Screenshot {
  png: Buffer;
  width: number;
  /** [r, g, b] at (x, y). */
  at(x: number, y: number): [number, number, number];
}

/** A top-level window as xwininfo sees it. */
export interface XWindow {
  id: string;
  title: string;
  x: number;
  y: number;
  w: number;
  h: number;
}

/** The visible windows of WM_CLASS `cls` with their title and geometry. */
export async function windowsOfClass(desk: Pick<XDesktop, "x">, cls: string): Promise<XWindow[]> {
  const ids = (await searchClass(desk, cls)).split("\n").filter(Boolean);
  const out: XWindow[] = [];
  for (const id of ids) {
    // A window that went away since the search is not listed.
    const info = await desk.x("xwininfo", ["-id", id]).catch(() => null);
    if (info === null) continue;
    const num = (k: string) => Number(new RegExp(`${k}:\\s+(-?\\d+)`).exec(info)![1]);
    out.push({
      id,
      title: /xwininfo: Window id: \S+ "(.*)"/.exec(info)?.[1] ?? "",
      x: num("Absolute upper-left X"),
      y: num("Absolute upper-left Y"),
      w: num("Width"),
      h: num("Height"),
    });
  }
  return out;
}

/**
 * The ids of class `cls`'s visible windows. xdotool ends in error, having listed nothing, when a window it walks
 * goes away under it (a menu, a bubble, a window closing); that walk is read again, since it says nothing about
 * the windows that stay. Finding none also ends in error, without an X error: that is an empty list.
 */
async function searchClass(desk: Pick<XDesktop, "x">, cls: string): Promise<string> {
  for (let walk = 0; ; walk++) {
    try {
      return await desk.x("xdotool", ["search", "--onlyvisible", "--class", `^${cls}$`]);
    } catch (e) {
      if (walk >= 20 || !/BadWindow|X Error|BadDrawable|BadMatch/i.test((e as Error).message)) return "";
    }
  }
}

/**
 * Where a character is drawn in `box`: the middle of the widest horizontal run of pixels `on` says are hers, on
 * every 4th row from `rows[0]` to `rows[1]` of the box's height (her body, whatever her look); `len` 0 for none.
 */
export function widestRun(
  box: { x: number; y: number; w: number; h: number },
  on: (x: number, y: number) => boolean,
  rows: [number, number] = [0.3, 0.8],
): { x: number; y: number; len: number } {
  let best = { len: 0, x: 0, y: 0 };
  for (let py = box.y + Math.round(box.h * rows[0]); py < box.y + box.h * rows[1]; py += 4) {
    let start = -1;
    for (let px = box.x; px <= box.x + box.w; px++) {
      const hers = px < box.x + box.w && on(px, py);
      if (hers && start < 0) start = px;
      if (!hers && start >= 0) {
        if (px - start > best.len) best = { len: px - start, x: Math.round((start + px) / 2), y: py };
        start = -1;
      }
    }
  }
  return best;
}

/** Whether two colours are within `tol` on every channel. */
export const sameColour = (a: number[], b: number[], tol = 6) =>
  a.every((v, i) => Math.abs(v - b[i]!) <= tol);

/** The kit's waitFor with this desktop's patience: 30 s, polled every 150 ms (WebKit under Xvfb is slow). */
export const waitFor = <T>(what: string, check: () => Promise<T | undefined | false>, ms = 30_000) =>
  kitWaitFor(what, check, ms, 150);

function run(file: string, args: string[], env: NodeJS.ProcessEnv, encoding: "utf8" | "buffer" = "utf8") {
  return new Promise<string | Buffer>((resolve, reject) => {
    execFile(file, args, { env, encoding, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${file} ${args.join(" ")}: ${err.message} ${stderr}`));
      else resolve(stdout);
    });
  });
}

/** The root window's pixels as the user sees them, on the X display of `env` (ImageMagick's import). */
export async function grabRoot(env: NodeJS.ProcessEnv): Promise<Screenshot> {
  const png = (await run("import", ["-window", "root", "png:-"], env, "buffer")) as Buffer;
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return {
    png,
    width: info.width,
    at: (px, py) => {
      const i = (py * info.width + px) * 3;
      return [data[i]!, data[i + 1]!, data[i + 2]!];
    },
  };
}

/** Starts Xvfb, openbox and (with `compositor`, the default) xcompmgr. */
export async function startXDesktop(opts: { compositor?: boolean } = {}): Promise<XDesktop> {
  const server = await startXServer(`${SCREEN.width}x${SCREEN.height}x24`, ["+extension", "Composite"]);
  const { display, env, start } = server;
  try {
    const x = (file: string, args: string[]) => run(file, args, env) as Promise<string>;
    await server.startOpenbox();
    if (opts.compositor !== false) {
      start(["xcompmgr"]);
      await waitFor("xcompmgr", () => composited(x));
    }
    return {
      display,
      env,
      x,
      start,
      screenshot: () => grabRoot(env),
      close: server.close,
    };
  } catch (e) {
    await server.close();
    throw e;
  }
}

// Whether a compositor runs, as GDK (and so the shell) sees it: the owner of the _NET_WM_CM_S0 selection.
async function composited(x: (f: string, a: string[]) => Promise<string>): Promise<boolean> {
  const out = await x("gjs", [
    "-c",
    "imports.gi.versions.Gtk = '3.0'; const { Gtk, Gdk } = imports.gi; Gtk.init(null); print(Gdk.Screen.get_default().is_composited());",
  ]);
  return out.trim() === "true";
}

/** How many button-1 presses the click-log xterm logged in `log` (xterm's mouse report: ESC [ M space). */
export function loggedPresses(log: string): number {
  return readFileSync(log, "utf8")
    .split("\n")
    .filter((l) => l.startsWith("1b5b4d20")).length;
}

/**
 * Starts a solid blue xterm (#204080) covering the screen's lower right, where her window opens, that
 * appends every click it receives to `log`; resolves once it runs. The window below her in the tests.
 */
export async function startClickLogXterm(desk: XDesktop, log: string): Promise<void> {
  const logger = fileURLToPath(new URL("./click-log.mjs", import.meta.url));
  desk.start([
    ...["xterm", "-bg", "#204080", "-fg", "#204080", "-geometry", "200x70+500+60"],
    ...["-e", process.execPath, logger, log],
  ]);
  await waitFor("the xterm", async () => existsSync(log));
}
