/**
 * `yui desktop` as the user runs it (the real command, a child process) on an X desktop without a
 * compositor: it says so, shows her in a framed window with an opaque page rather than a black box, and
 * that window takes every click. Quitting either side ends the other: closing main's window ends the host,
 * and stopping the host ends the shell.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  loggedPresses,
  sameColour,
  startClickLogXterm,
  startXDesktop,
  waitFor,
  windowsOfClass,
  type XDesktop,
} from "./testing/x-desktop.ts";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const BELOW: [number, number, number] = [0x20, 0x40, 0x80];

let desk: XDesktop;
let dir = "";
let clicks = "";
const running: ChildProcess[] = [];

/** Starts `yui desktop --port 0`; resolves once it says where it runs, with everything it printed so far. */
async function yuiDesktop(): Promise<{ child: ChildProcess; out: () => string; port: number }> {
  let out = "";
  const child = spawn(
    process.execPath,
    ["--import", "tsx", join(REPO, "host/bin/yui.ts"), "desktop", "--port", "0"],
    {
      env: { ...desk.env, YUI_DATA_DIR: join(dir, "data"), LIBGL_ALWAYS_SOFTWARE: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  running.push(child);
  child.stdout!.on("data", (c) => {
    out += c;
  });
  child.stderr!.on("data", (c) => {
    out += c;
  });
  const port = await waitFor(
    "yui desktop to start",
    async () => {
      const m = /host at http:\/\/127\.0\.0\.1:(\d+)\//.exec(out);
      return m ? Number(m[1]) : undefined;
    },
    60_000,
  );
  return { child, out: () => out, port };
}

const portOpen = (port: number) =>
  fetch(`http://127.0.0.1:${port}/`).then(
    () => true,
    () => false,
  );

beforeAll(async () => {
  desk = await startXDesktop({ compositor: false });
  dir = mkdtempSync(join(tmpdir(), "yui-nocomp-"));
  clicks = join(dir, "clicks.log");
  await startClickLogXterm(desk, clicks);
}, 60_000);

afterAll(async () => {
  for (const c of running) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  await desk?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("yui desktop without a compositor", { timeout: 90_000 }, () => {
  it("says so, frames her window with an opaque page that takes every click, and closing it ends the host", async () => {
    const { child, out, port } = await yuiDesktop();
    expect(out()).toContain("no compositor: she is shown in a framed, opaque window");
    expect(out()).toContain(`data: ${join(dir, "data")}`);
    expect(out()).toContain("(press Ctrl+C to quit, or close main's window)");
    const [w] = await waitFor("her window", async () => {
      // Her window (not her bubble's, which may say that no backend answers here).
      const list = (await windowsOfClass(desk, "yui")).filter((w) => w.title !== "YUI bubble");
      return list.length ? list : undefined;
    });
    const props = await desk.x("xprop", ["-id", w!.id]);
    // The window manager's frame is there: a title bar, unlike the transparent window's zero extents.
    const extents = /_NET_FRAME_EXTENTS\(CARDINAL\) = (\d+), (\d+), (\d+), (\d+)/.exec(props);
    expect(Number(extents?.[3])).toBeGreaterThan(0);
    expect(await desk.x("xwininfo", ["-id", w!.id])).toMatch(/Depth: 24/);
    // The page is painted (not a black box, not the xterm through it) and she is drawn on it.
    const shot = await waitFor(
      "her, on an opaque page",
      async () => {
        const s = await desk.screenshot();
        const bg = s.at(w!.x + 4, w!.y + 4);
        if (sameColour(bg, BELOW, 12) || sameColour(bg, [0, 0, 0], 12)) return undefined;
        let hers = 0;
        for (let y = w!.y; y < w!.y + w!.h; y += 2)
          for (let x = w!.x; x < w!.x + w!.w; x += 2) if (!sameColour(s.at(x, y), bg, 40)) hers++;
        return hers > 2000 ? s : undefined;
      },
      90_000,
    );
    mkdirSync(join(REPO, "test-output", "desktop"), { recursive: true });
    writeFileSync(join(REPO, "test-output", "desktop", "no-compositor.png"), shot.png);
    // A click anywhere on her window stays there: no click-through without transparency.
    const presses = () => loggedPresses(clicks);
    const before = presses();
    await desk.x("xdotool", ["mousemove", String(w!.x + 20), String(w!.y + w!.h / 2), "click", "1"]);
    // The control: a click on the xterm above her window, sent after it, reaches the xterm; had the first
    // reached it too, it would be logged before this one.
    await desk.x("xdotool", ["mousemove", "600", "100", "click", "1"]);
    await waitFor("the control click in the xterm", async () => presses() > before, 10_000);
    expect(presses()).toBe(before + 1);
    // Closing main's window as a user would (the window manager's close) quits YUI: the host goes too.
    await desk.x("wmctrl", ["-c", "Yui"]);
    const [code] = (await Promise.race([
      once(child, "exit"),
      new Promise((_, rej) => setTimeout(() => rej(new Error("yui desktop did not end")), 20_000)),
    ])) as [number];
    expect(code).toBe(0);
    expect(await portOpen(port)).toBe(false);
  });

  it("ends the shell when the host is stopped (Ctrl+C)", async () => {
    const { child, port } = await yuiDesktop();
    await waitFor("her window", async () => (await windowsOfClass(desk, "yui")).length === 1);
    child.kill("SIGINT");
    const [code] = (await once(child, "exit")) as [number];
    expect(code).toBe(0);
    expect(await portOpen(port)).toBe(false);
    await waitFor("her window gone", async () => (await windowsOfClass(desk, "yui")).length === 0, 10_000);
  });
});
