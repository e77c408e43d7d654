/**
 * Her body on a real X desktop (docs/body.md): the desktop app (host, gjs shell, main's page) on Xvfb with two
 * monitors (one screen split by xrandr --setmonitor), openbox and xcompmgr, with real xterm and xclock windows
 * moved, stacked and closed by xdotool. Main's page holds the avatar executor; the avatar mod's seven tools
 * move her through the real MCP SDK client against the app's ingress, and `yui chat --host` runs body_action
 * and look against the scripted backend. Screenshots: test-output/body/.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { freePort } from "@yui/mod-kit/testing";
import { chromium } from "playwright-core";
import sharp from "sharp";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SIT_DROP } from "../host/desktop/body.ts";
import { type DesktopApp, startDesktopApp } from "../host/desktop/desktop-cli.ts";
import { bridgeClient } from "../host/server/testing.ts";
import { openStore } from "../host/store/store.ts";
import { countSpawns, startXSession, waitFor, type XSession } from "../host/x11/testing.ts";
import { menuOf } from "../shell/core.js";
import { grabRoot, sameColour, widestRun, windowsOfClass } from "../shell/gtk/testing/x-desktop.ts";
import { closePet, openPet, savePreset } from "../src/app/presets/presets.ts";
import {
  BODY_EVENT,
  type BodyEvent,
  bodySettingsKey,
  desktopSettingsKey,
  OCCLUSION_EVENT,
  type OcclusionEvent,
} from "../src/protocol/body.ts";
import { characterPreset, PRESET_KEYS } from "../src/protocol/preset.ts";
import { SWITCH_KEYS } from "../src/protocol/store-keys.ts";
import { chatStream, type ScriptedBackend, startScriptedBackend } from "../tools/scripted-backend/server.ts";
import { type AvatarMod, startAvatarMod } from "../tools/testing/avatar-mod.ts";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../tools/testing/chromium.ts";
import { runYui } from "../tools/testing/yui-process.ts";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const SHOTS = join(REPO, "test-output", "body");
/** Her window (desktop.ts WINDOW_SIZE). */
const W = { width: 360, height: 560 };
const RIGHT = { x: 1920, y: 0, width: 1280, height: 1024 };

let x: XSession;
let app: DesktopApp;
let dataDir = "";
let backend: ScriptedBackend;
let avatar: AvatarMod;
/** What main's body did by herself, or why not (DesktopApp's bodyLog). */
const bodyLog: string[] = [];

const call = (name: string, args: Record<string, unknown> = {}) => avatar.call(name, args);
const text = (r: CallToolResult) => r.content.map((c) => (c.type === "text" ? c.text : "")).join("");
/** A gesture's outcome as the agent sees it: ok, or the reason word of the tool error. */
async function gesture(name: string, args: Record<string, unknown> = {}): Promise<string> {
  const r = await call(name, args);
  return r.isError ? text(r) : "ok";
}
interface BodyState {
  window: { x: number; y: number; width: number; height: number };
  monitor: number;
  posture: string;
  perch: { app: string | null; title: string | null; rect: { x: number; y: number; width: number } } | null;
  peek: string | null;
  bed: string | null;
  moving: boolean;
  vrm: string;
}
const body = async () => (await call("get_body_state")).structuredContent as unknown as BodyState;

/** Her window as X sees it (the main character is titled YUI). */
async function herWindow() {
  const her = (await windowsOfClass(x, "yui")).find((w) => w.w === W.width);
  if (!her) throw new Error("her window is not on the desktop");
  return { id: her.id, x: her.x, y: her.y };
}
/** The frame (with decorations) of the first visible window of WM_CLASS `cls`. */
async function frameOf(cls: string) {
  const targets = JSON.parse(text(await call("list_perch_targets"))) as {
    windows: { app: string; title: string; rect: { x: number; y: number; width: number; height: number } }[];
  };
  const w = targets.windows.find((t) => t.app?.toLowerCase() === cls);
  if (!w) throw new Error(`no ${cls} window listed`);
  return w.rect;
}
async function idOf(cls: string): Promise<string> {
  const id = (await x.x("xdotool", ["search", "--onlyvisible", "--class", `^${cls}$`])).split("\n")[0];
  if (!id) throw new Error(`no ${cls} window`);
  return id;
}
/** Starts an xterm titled `title` at +x+y, and waits until the body lists it. */
async function xterm(title: string, at: [number, number], cols = 80): Promise<void> {
  x.start(["xterm", "-geometry", `${cols}x20+${at[0]}+${at[1]}`, "-T", title, "-bg", "#204080"]);
  await waitFor(`${title} listed`, async () => listed(title), 20_000);
}
/** An xterm titled `title`, kept above, raised over the character window at `at` and larger than it on every side. */
async function coverWindow(title: string, at: { x: number; y: number }): Promise<void> {
  x.start(["xterm", "-T", title, "-geometry", "80x20+0+0"]);
  await waitFor(`${title} listed`, async () => listed(title));
  const id = await idOf("xterm");
  await x.x("wmctrl", ["-i", "-r", id, "-b", "add,above"]);
  await x.x("xdotool", ["windowsize", id, String(W.width + 100), String(W.height + 100)]);
  await x.x("xdotool", ["windowmove", id, String(at.x - 50), String(at.y - 80)]);
  await x.x("xdotool", ["windowraise", id]);
}
async function listed(title: string): Promise<boolean> {
  return text(await call("list_perch_targets")).includes(`"title":"${title}"`);
}
async function closeAll(cls: string): Promise<void> {
  // Searched and killed again on every poll: `xdotool search` ends in error (and finds nothing) when a window
  // it walks goes away under it, as a chat window closed just before does.
  await waitFor(
    `no ${cls}`,
    async () => {
      const ids = (await x.x("xdotool", ["search", "--class", `^${cls}$`]).catch(() => ""))
        .split("\n")
        .filter(Boolean);
      for (const id of ids) await x.x("xdotool", ["windowkill", id]).catch(() => {});
      return !text(await call("list_perch_targets"))
        .toLowerCase()
        .includes(cls);
    },
    20_000,
  );
}
/** Her window's pixels now, and a test of "hers" (differs from the desktop colour at its corner). */
async function herPixels() {
  const her = await herWindow();
  const screen = await grabRoot(x.env);
  const bg = screen.at(her.x + 2, her.y + 2);
  return { her, hers: (px: number, py: number) => !sameColour(screen.at(px, py), bg, 12) };
}

/** How many of her window's rows (every 4th) show any of her: a loaded model spans most of them. */
async function drawnRows(): Promise<number> {
  const { her, hers } = await herPixels();
  let rows = 0;
  for (let py = her.y; py < her.y + W.height; py += 4) {
    for (let px = her.x; px < her.x + W.width; px += 2) {
      if (hers(px, py)) {
        rows++;
        break;
      }
    }
  }
  return rows;
}

/**
 * A point on her as she is drawn now: the middle of the widest run of her pixels on the rows from 30 % to 80 %
 * of her window's height (below that her open input may be drawn, which is not her).
 */
async function onHer(): Promise<[number, number]> {
  const { her, hers } = await herPixels();
  const best = widestRun({ x: her.x, y: her.y, w: W.width, h: W.height }, hers, [0.3, 0.8]);
  if (best.len < 8) throw new Error("she is not drawn in her window");
  return [best.x, best.y];
}

/** The whole screen as the user sees it, scaled down, into test-output/body/<name>.png. */
async function shot(name: string): Promise<void> {
  // Her page crossfades into a posture's clip (0.3 s) after the body's event: let it settle first.
  await new Promise((r) => setTimeout(r, 1500));
  const { png } = await grabRoot(x.env);
  await sharp(png)
    .resize({ width: 1600 })
    .png()
    .toFile(join(SHOTS, `${name}.png`));
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  x = await startXSession();
  x.start(["xcompmgr"]);
  dataDir = mkdtempSync(join(tmpdir(), "yui-body-"));
  // Her window at scale 1 (360×560, the size these tests measure her in) and still unless a test moves her or
  // lets her move on her own.
  const seed = openStore(dataDir);
  seed.set(desktopSettingsKey("yui"), { scale: 1, wander: false }, "test");
  // Her backend answers (the scripted one): no first-run words in a bubble over the windows measured here.
  backend = await startScriptedBackend();
  seed.set(
    PRESET_KEYS.list,
    [characterPreset("yui", "YUI", { transport: "chat", base_url: backend.url })],
    "test",
  );
  seed.close();
  const ingressPort = await freePort();
  const env: NodeJS.ProcessEnv = { ...x.env, LIBGL_ALWAYS_SOFTWARE: "1", YUI_DATA_DIR: dataDir };
  app = await startDesktopApp({
    port: 0,
    env,
    dataDir,
    // Her walk and climb fast enough for a test, slow enough to grab her on the way; a short bed.
    timings: {
      walkPxPerS: 700,
      climbPxPerS: 700,
      bedSetupMs: 6_000,
      lieDownMs: 800,
      wakeMs: 2_500,
      bedFadeMs: 300,
    },
    onQuit: () => {},
    log: (l) => env.YUI_SHELL_DEBUG && process.stderr.write(`${l}\n`),
    bodyLog: (l) => bodyLog.push(l),
  });
  app.host.store.set(SWITCH_KEYS.screen, { enabled: true }, "test");
  avatar = await startAvatarMod(app.host.store, ingressPort);
  // Main's page loaded and attached the executor; the first reading of the desktop is in.
  await waitFor("main's body attached", async () => app.host.body.current() !== null, 60_000);
  await waitFor("her body read", async () => !(await call("get_body_state")).isError, 30_000);
  // Her model loaded and drawn: her pixels span more than half of her window (the loading note is one line).
  await waitFor("her, drawn", async () => (await drawnRows()) > W.height / 4 / 2, 90_000);
}, 180_000);

afterAll(async () => {
  await avatar?.close();
  await app?.stop();
  await backend?.close();
  await x?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe("her body on real windows", () => {
  it("reports her window, monitor, posture and model, and the real windows with their peek edges", async () => {
    await xterm("term-one", [300, 400]);
    const b = await body();
    const her = await herWindow();
    expect(b.window).toEqual({ x: her.x, y: her.y, ...W });
    expect(b).toMatchObject({ monitor: 0, posture: "standing", perch: null, moving: false, vrm: "default" });
    const targets = JSON.parse(text(await call("list_perch_targets")));
    const frame = await frameOf("xterm");
    expect(targets.windows[0]).toMatchObject({ app: "XTerm", title: "term-one", sittable: true });
    expect(targets.peek_edges).toEqual([
      { side: "left", x: frame.x, top: frame.y, bottom: frame.y + frame.height },
      { side: "right", x: frame.x + frame.width, top: frame.y, bottom: frame.y + frame.height },
    ]);
    expect(targets.monitors.map((m: { monitor: number; name: string }) => [m.monitor, m.name])).toEqual([
      [0, "BODY-LEFT"],
      [1, "BODY-RIGHT"],
    ]);
  });

  it("walks to a real xterm and sits on its frame's top edge, follows it when it moves, gets down when it closes", async () => {
    const frame = await frameOf("xterm");
    expect(await gesture("sit_on_window", { app: "xterm" })).toBe("ok");
    const b = await body();
    expect(b.posture).toBe("sitting");
    expect(b.perch).toMatchObject({ app: "XTerm", title: "term-one", rect: { x: frame.x, y: frame.y } });
    const her = await herWindow();
    // Her seat on the frame's top edge: her window's bottom hangs SIT_DROP of its height below it.
    expect(her.y + W.height - Math.round(W.height * SIT_DROP)).toBe(frame.y);
    const seat = her.x + W.width / 2;
    expect(seat).toBeGreaterThanOrEqual(frame.x);
    expect(seat).toBeLessThanOrEqual(frame.x + frame.width);
    await shot("sitting-on-xterm");

    // The xterm moves 200 px right and 100 px down: she keeps her place on its edge.
    await x.x("xdotool", ["windowmove", await idOf("xterm"), String(frame.x + 200), String(frame.y + 100)]);
    await waitFor("her, following the xterm", async () => (await herWindow()).x === her.x + 200, 20_000);
    expect((await herWindow()).y).toBe(her.y + 100);
    expect((await body()).posture).toBe("sitting");

    // The xterm closes: she climbs down to the floor of her monitor's work area.
    await closeAll("xterm");
    await waitFor("her, down on the floor", async () => (await body()).posture === "standing", 20_000);
    const down = await body();
    expect(down.perch).toBeNull();
    expect(down.window.y + W.height).toBe(1200);
  });

  it("is blocked by a fully covered top edge, and sits beside a window covering part of it", async () => {
    await xterm("term-two", [300, 500]);
    const frame = await frameOf("xterm");
    // An xclock over the whole top edge (and more).
    x.start(["xclock", "-geometry", `${frame.width + 100}x80+${frame.x - 50}+${frame.y - 30}`]);
    await waitFor(
      "the xclock listed",
      async () => text(await call("list_perch_targets")).includes("XClock"),
      20_000,
    );
    await waitFor("the top edge covered", async () => {
      const t = JSON.parse(text(await call("list_perch_targets")));
      return t.windows.find((w: { app: string }) => w.app === "XTerm")?.sittable === false;
    });
    const before = await herWindow();
    expect(await gesture("sit_on_window", { app: "xterm" })).toBe("blocked");
    expect(await herWindow()).toEqual(before);
    expect((await body()).posture).toBe("standing");

    // Now it covers only the left 200 px: she sits on the free part.
    await x.x("xdotool", ["windowsize", await idOf("xclock"), "200", "80"]);
    await x.x("xdotool", ["windowmove", await idOf("xclock"), String(frame.x), String(frame.y - 30)]);
    await waitFor("the top edge partly free", async () => {
      const t = JSON.parse(text(await call("list_perch_targets")));
      return t.windows.find((w: { app: string }) => w.app === "XTerm")?.sittable === true;
    });
    // The body has seen the xclock's new place (its move is an X event the host reads at once).
    await waitFor("the xclock moved", async () => (await frameOf("xclock")).x === frame.x);
    const clock = await frameOf("xclock");
    expect(await gesture("sit_on_window", { app: "xterm" })).toBe("ok");
    const seat = (await herWindow()).x + W.width / 2;
    expect(seat).toBeGreaterThanOrEqual(clock.x + clock.width);
    expect((await body()).perch?.title).toBe("term-two");

    // The xclock moves over where she sits: she gets down.
    await x.x("xdotool", [
      "windowmove",
      await idOf("xclock"),
      String(Math.round(seat - 100)),
      String(frame.y - 30),
    ]);
    await waitFor("her, down from a covered seat", async () => (await body()).posture === "standing", 20_000);
    await closeAll("xclock");
    await closeAll("xterm");
  });

  it("peeks around the frontmost window's edges and moves to a corner of the other monitor", async () => {
    await xterm("term-three", [700, 300]);
    const frame = await frameOf("xterm");
    expect(await gesture("peek", { side: "left" })).toBe("ok");
    let b = await body();
    expect(b).toMatchObject({ posture: "peeking", peek: "left" });
    expect(b.window.x + W.width / 2).toBe(frame.x - W.width / 2);
    await shot("peeking-left");
    expect(await gesture("peek", { side: "right" })).toBe("ok");
    b = await body();
    expect(b).toMatchObject({ posture: "peeking", peek: "right" });
    expect(b.window.x).toBe(frame.x + frame.width);

    expect(await gesture("move_to", { spot: "top_right", monitor: 1 })).toBe("ok");
    b = await body();
    expect(b).toMatchObject({ monitor: 1, posture: "standing", peek: null });
    const her = await herWindow();
    expect([her.x, her.y]).toEqual([RIGHT.x + RIGHT.width - W.width, RIGHT.y]);
    expect(await gesture("move_to", { spot: "top_left", monitor: 7 })).toBe("not_found");
    expect(await gesture("move_to", { spot: "bottom_left", monitor: 0 })).toBe("ok");
    expect(await herWindow()).toEqual({ id: her.id, x: 0, y: 1200 - W.height });
    await closeAll("xterm");
  });

  it("the user's hand wins: a drag interrupts a running gesture and refuses new ones until it ends", async () => {
    // A climb straight up her monitor's left edge: her window moves up, she stays on its centre line.
    expect(await gesture("move_to", { spot: "bottom_left", monitor: 0 })).toBe("ok");
    const going = gesture("move_to", { spot: "top_left", monitor: 0 });
    await waitFor("her, on her way", async () => (await body()).moving, 10_000);
    // Her window's centre line at her chest (a screenshot would be late: her window climbs meanwhile), read from
    // the body and grabbed in one xdotool run, so that the press lands on her while she climbs.
    const her = (await body()).window;
    const [hx, hy] = [her.x + W.width / 2, her.y + Math.round(W.height * 0.45)];
    const steps = [1, 2, 3, 4, 5, 6].flatMap((i) => ["mousemove", String(hx + i * 15), String(hy - i * 5)]);
    try {
      await x.x("xdotool", ["mousemove", String(hx), String(hy), "mousedown", "1", ...steps]);
      expect(await going).toBe("interrupted");
      await waitFor("her, held", async () => (await body()).posture === "dragging");
      expect(await gesture("stand")).toBe("interrupted");
    } finally {
      // Let go whatever happened: a button left down would hold her for every test after this one.
      await x.x("xdotool", ["mouseup", "1"]);
    }
    // Let go in mid-air, she falls to the floor and lands.
    await waitFor("her, let go and landed", async () => {
      const b = await body();
      return b.posture === "standing" && !b.moving;
    });
    const dropped = await herWindow();
    expect((await body()).window).toEqual({ x: dropped.x, y: dropped.y, ...W });
    expect(dropped.y + W.height).toBe(1200);
    expect(await gesture("move_to", { spot: "bottom_left", monitor: 0 })).toBe("ok");
  });

  it("goes to bed: lying from the lie-down clip, busy until she is up, interrupted while the bed is set up", {
    timeout: 120_000,
  }, async () => {
    // A click on her while the bed is being set up. Where she is drawn is read before (a screenshot is slow on a
    // loaded machine): she stands still while the bed is set up, so the click comes well inside the setup.
    const [cx, cy] = await onHer();
    let going = gesture("go_to_bed");
    await waitFor("the bed being set up", async () => (await body()).bed === "setup");
    await x.x("xdotool", ["mousemove", String(cx), String(cy), "click", "1"]);
    expect(await going).toBe("interrupted");
    expect((await body()).bed).toBeNull();

    // A drag while the bed is being set up.
    const [hx, hy] = await onHer();
    going = gesture("go_to_bed");
    await waitFor("the bed being set up", async () => (await body()).bed === "setup");
    // Pressed and moved in one xdotool (one process to start, not five: each takes a while on a loaded machine),
    // held until the drag has interrupted the bed, then let go.
    const steps = [1, 2, 3, 4].flatMap((i) => [
      "sleep",
      "0.05",
      "mousemove",
      String(hx + i * 15),
      String(hy),
    ]);
    await x.x("xdotool", ["mousemove", String(hx), String(hy), "mousedown", "1", ...steps]);
    expect(await going).toBe("interrupted");
    await x.x("xdotool", ["mouseup", "1"]);
    await waitFor("her, let go", async () => (await body()).posture === "standing");

    going = gesture("go_to_bed");
    expect(await going).toBe("ok");
    let b = await body();
    expect(b.posture).toBe("lying");
    expect(["lying_down", "asleep"]).toContain(b.bed);
    expect(await gesture("go_to_bed")).toBe("ok");
    expect(await gesture("sit_on_window", { app: "xterm" })).toBe("busy");
    await waitFor("her, asleep", async () => (await body()).bed === "asleep");
    await shot("in-bed");
    expect(await gesture("stand")).toBe("ok");
    b = await body();
    expect(b).toMatchObject({ posture: "lying", bed: "waking" });
    expect(await gesture("peek", { side: "left" })).toBe("busy");
    expect(await gesture("move_to", { spot: "center" })).toBe("busy");
    await waitFor("her, up", async () => (await body()).posture === "standing", 20_000);
    expect((await body()).bed).toBeNull();

    // Reduced motion, turned on in Settings (a real page in Chromium against the app's host): no bed scene.
    const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
    try {
      const page = await browser.newPage();
      await page.goto(app.host.launchUrl(`${app.host.url}?view=settings`));
      await page.getByTestId("wake-timeout").fill("30");
      await page.getByTestId("wake-timeout").dispatchEvent("change");
      await page.getByTestId("reduced-motion").check();
      await waitFor("the setting stored", async () => {
        const v = app.host.store.get(bodySettingsKey("yui")) as { reduced_motion?: boolean } | undefined;
        return v?.reduced_motion === true;
      });
      expect(app.host.store.get(bodySettingsKey("yui"))).toEqual({
        wake_timeout_s: 1800,
        reduced_motion: true,
      });
      expect(await gesture("go_to_bed")).toBe("unsupported");
      await page.getByTestId("reduced-motion").uncheck();
      await waitFor("the setting stored", async () => {
        const v = app.host.store.get(bodySettingsKey("yui")) as { reduced_motion?: boolean } | undefined;
        return v?.reduced_motion === false;
      });
    } finally {
      await browser.close();
    }
  });

  it("runs body_action and look through `yui chat --host` against the scripted backend", async () => {
    const calls = [
      {
        id: "c1",
        name: "body_action",
        arguments: JSON.stringify({ action: "move_to", spot: "center", monitor: 1 }),
      },
      { id: "c2", name: "look", arguments: JSON.stringify({ at: "body" }) },
      { id: "c3", name: "look", arguments: JSON.stringify({ at: "screen" }) },
      { id: "c4", name: "look", arguments: JSON.stringify({ at: "screen", monitor: 0 }) },
      { id: "c5", name: "look", arguments: JSON.stringify({ at: "screen", monitor: 9 }) },
      { id: "c6", name: "look", arguments: JSON.stringify({ at: "perch_targets" }) },
    ];
    backend.enqueue({ body: chatStream({ calls }) }, { body: chatStream({ text: ["Here I am."] }) });
    const run = await runYui(
      [
        "chat",
        "--base-url",
        backend.url,
        "--transport",
        "chat",
        "--host",
        app.host.url,
        "--message",
        "come here",
      ],
      dataDir,
      { ...x.env },
    );
    expect(run.stderr).toBe("");
    const results = Object.fromEntries(
      run.lines.filter((l) => l.type === "tool_call").map((l) => [l.call_id as string, l.result]),
    );
    expect(results.c1).toBe("ok");
    const state = JSON.parse(results.c2 as string) as BodyState;
    expect(state).toMatchObject({ monitor: 1, posture: "standing" });
    expect(state.window.x).toBe(RIGHT.x + (RIGHT.width - W.width) / 2);
    expect(results.c3).toMatchObject({ text: "screenshot of display 1" });
    expect(results.c4).toMatchObject({ text: "screenshot of display 0" });
    const [right, left] = [results.c3, results.c4].map((r) => (r as { images: string[] }).images);
    expect(right).toHaveLength(1);
    const meta = async (dataUrl: string) =>
      sharp(Buffer.from(dataUrl.slice(dataUrl.indexOf(",") + 1), "base64")).metadata();
    // Each display at its own size, long edge at most 1280 px: 1280x1024, and 1920x1200 scaled to 1280x800.
    expect(await meta(right![0]!)).toMatchObject({ format: "jpeg", width: 1280, height: 1024 });
    expect(await meta(left![0]!)).toMatchObject({ format: "jpeg", width: 1280, height: 800 });
    expect(results.c5).toBe("error: invalid field monitor");
    expect(JSON.parse(results.c6 as string)).toHaveProperty("peek_edges");
    expect(run.lines.at(-1)).toMatchObject({ type: "turn_end", outcome: "spoken", text: "Here I am." });
    writeFileSync(join(SHOTS, "look-screen-1.jpg"), Buffer.from(right![0]!.split(",")[1]!, "base64"));

    // The screen capture switch off: look at: screen refuses, the rest still runs.
    app.host.store.set(SWITCH_KEYS.screen, { enabled: false }, "test");
    backend.enqueue(
      { body: chatStream({ calls: [{ id: "d1", name: "look", arguments: '{"at":"screen"}' }] }) },
      { body: chatStream({ text: ["ok"] }) },
    );
    const off = await runYui(
      ["chat", "--base-url", backend.url, "--transport", "chat", "--host", app.host.url, "--message", "look"],
      dataDir,
      { ...x.env },
    );
    expect(off.lines.find((l) => l.type === "tool_call")?.result).toBe("error: screen capture is off");
    app.host.store.set(SWITCH_KEYS.screen, { enabled: true }, "test");
  });

  it("tells her page when other windows cover all of her window, and when they no longer do", async () => {
    const bridge = await bridgeClient(app.host);
    const occluded = () =>
      bridge.frames
        .map((f) => JSON.parse(f) as { type: string; name?: string; payload?: { occluded?: boolean } })
        .filter((f) => f.type === "event" && f.name === BODY_EVENT)
        .at(-1)?.payload?.occluded;
    try {
      await coverWindow("cover", await herWindow());
      await waitFor("her, fully covered", async () => occluded() === true);
      await closeAll("xterm");
      await waitFor("her, uncovered", async () => occluded() === false);
    } finally {
      bridge.close();
    }
  });

  it("tells a pet window's page when other windows cover all of it, and when they no longer do", async () => {
    savePreset(app.host.store, {
      id: "mika",
      name: "Mika",
      avatar: "",
      voice: "",
      persona: "",
      backend: { transport: "chat", base_url: backend.url, model: "scripted" },
    });
    const bridge = await bridgeClient(app.host);
    const told = () =>
      bridge.frames
        .map((f) => JSON.parse(f) as { type: string; name?: string; payload?: OcclusionEvent })
        .filter((f) => f.type === "event" && f.name === OCCLUSION_EVENT)
        .map((f) => f.payload!);
    try {
      app.host.store.set(desktopSettingsKey("mika"), { scale: 1, wander: false }, "test");
      openPet(app.host.store, "mika", "test");
      const pet = await waitFor("Mika's pet window", async () =>
        (await windowsOfClass(x, "yui")).find((w) => w.title === "Mika" && w.w === W.width),
      );
      await coverWindow("pet-cover", pet);
      await waitFor("Mika, fully covered", async () => told().at(-1)?.occluded === true);
      // Hers alone: main's window is not the one covered, and main's cover goes with her body event.
      expect(told().every((e) => e.presetId === "mika")).toBe(true);
      await closeAll("xterm");
      await waitFor("Mika, uncovered", async () => told().at(-1)?.occluded === false);
    } finally {
      bridge.close();
      closePet(app.host.store, "mika", "test");
    }
  });
});

/** Drags her by the pointer so that the point under her goes to `to` (a press on her, steps, a release). */
async function dragHerTo(to: { x: number; y: number }): Promise<void> {
  const her = await herWindow();
  const [hx, hy] = await onHer();
  const dx = to.x - (her.x + W.width / 2);
  const dy = to.y - (her.y + W.height);
  await x.x("xdotool", ["mousemove", String(hx), String(hy), "mousedown", "1"]);
  const steps = Math.max(6, Math.ceil(Math.hypot(dx, dy) / 60));
  for (let i = 1; i <= steps; i++)
    await x.x("xdotool", [
      "mousemove",
      String(Math.round(hx + (dx * i) / steps)),
      String(Math.round(hy + (dy * i) / steps)),
    ]);
  await waitFor("her, held", async () => (await body()).posture === "dragging");
  await x.x("xdotool", ["mouseup", "1"]);
}
/** Her body's events as her page hears them (a bridge connection of the test's). */
async function bodyEvents() {
  const bridge = await bridgeClient(app.host);
  const all = () =>
    bridge.frames
      .map((f) => JSON.parse(f) as { type: string; name?: string; payload?: BodyEvent })
      .filter((f) => f.type === "event" && f.name === BODY_EVENT)
      .map((f) => f.payload!);
  return { all, close: () => bridge.close() };
}
const atRest = async () => {
  const b = await body();
  return !b.moving && b.posture !== "dragging" ? b : undefined;
};
/** Her drawn pixels' box on the screen now, inside her window `w` (over the plain desktop). */
async function drawnBox(w: { x: number; y: number; w: number; h: number }) {
  const screen = await grabRoot(x.env);
  const bg = screen.at(w.x + 2, w.y + 2);
  let [top, bottom] = [Number.POSITIVE_INFINITY, -1];
  for (let py = w.y; py < w.y + w.h; py += 2)
    for (let px = w.x; px < w.x + w.w; px += 2)
      if (!sameColour(screen.at(px, py), bg, 12)) {
        top = Math.min(top, py);
        bottom = Math.max(bottom, py);
      }
  return { top, bottom, height: bottom - top };
}
/** How many pixels (every 2nd) of `r` on the screen differ between two screenshots. */
function changed(
  a: Awaited<ReturnType<typeof grabRoot>>,
  b: typeof a,
  r: { x: number; y: number; w: number; h: number },
) {
  let n = 0;
  for (let py = Math.max(0, r.y); py < r.y + r.h; py += 2)
    for (let px = Math.max(0, r.x); px < r.x + r.w; px += 2)
      if (!sameColour(a.at(px, py), b.at(px, py), 12)) n++;
  return n;
}

describe("desktop manners: gravity, on screen, her size, room for YUI's windows", { timeout: 60_000 }, () => {
  // Each from her at rest, standing or sitting, out of bed, nobody holding her.
  beforeEach(async () => {
    if ((await body()).bed) await gesture("stand");
    await waitFor(
      "her, free",
      async () => {
        const b = await atRest();
        return b && !b.bed ? b : undefined;
      },
      40_000,
    );
  });

  it("let go in mid-air she falls to the floor, and onto a window's top edge below her, where she sits", async () => {
    expect(await gesture("move_to", { spot: "bottom_left", monitor: 0 })).toBe("ok");
    await dragHerTo({ x: 700, y: 600 });
    // The drop: a quick fall (she dangles), then her landing, then standing on the floor; the screen at once.
    writeFileSync(join(SHOTS, "falling.png"), (await grabRoot(x.env)).png);
    const landed = await waitFor("her, landed on the floor", atRest, 10_000);
    expect(landed).toMatchObject({ posture: "standing", perch: null });
    expect(landed.window.y + W.height).toBe(1200);
    expect(landed.window.x + W.width / 2).toBe(700);
    await shot("landed-on-floor");

    await xterm("term-below", [500, 750]);
    const frame = await frameOf("xterm");
    await dragHerTo({ x: frame.x + Math.round(frame.width / 2), y: frame.y - 250 });
    const sat = await waitFor("her, landed on the xterm", atRest, 10_000);
    expect(sat).toMatchObject({ posture: "sitting", perch: { app: "XTerm", title: "term-below" } });
    expect(sat.window.y + W.height - Math.round(W.height * SIT_DROP)).toBe(frame.y);
    await shot("landed-on-window");
    expect(await gesture("stand")).toBe("ok");
    await waitFor("her, down", async () => (await atRest())?.posture === "standing");
    await closeAll("xterm");
  });

  it("sits on a window near the top of the screen with her head inside the work area, clipped at the edge", async () => {
    // A clock whose title bar is at y = 80 (issue 33: her window went to y = -312).
    x.start(["xclock", "-geometry", "400x200+800+80"]);
    await waitFor("the xclock listed", async () => text(await call("list_perch_targets")).includes("XClock"));
    const clock = await frameOf("xclock");
    expect(clock.y).toBeLessThan(W.height * 0.34);
    const events = await bodyEvents();
    const before = await grabRoot(x.env);
    try {
      expect(await gesture("sit_on_window", { app: "xclock" })).toBe("ok");
      const b = await body();
      expect(b).toMatchObject({ posture: "sitting", perch: { app: "XClock" } });
      // Her head's top (64 % of her window above its bottom while she sits) is on the work area (which starts at 0).
      const head = b.window.y + W.height - Math.round(W.height * 0.64);
      expect(head).toBeGreaterThanOrEqual(0);
      expect(head).toBeLessThan(20);
      expect((await herWindow()).y).toBe(b.window.y);
      // What hangs below the edge is not drawn: her page is told the share of her window to clip.
      const clip = (b.window.y + W.height - clock.y) / W.height;
      await waitFor("the clip told", async () => Math.abs((events.all().at(-1)?.clip ?? 0) - clip) < 0.01);
      await shot("sitting-near-top");
      // Drawn above the clock's top edge, nothing of her below it: the clock shows there as it did before she sat.
      const after = await grabRoot(x.env);
      const her = { x: b.window.x, w: W.width };
      expect(changed(before, after, { ...her, y: 0, h: clock.y })).toBeGreaterThan(500);
      // (Her window's bottom 80 px left out: her input, open since a click on her, is drawn there, unclipped.)
      expect(
        changed(before, after, { ...her, y: clock.y + 2, h: b.window.y + W.height - 80 - clock.y - 2 }),
      ).toBeLessThan(40);
    } finally {
      events.close();
    }
    expect(await gesture("stand")).toBe("ok");
    await waitFor("her, down", async () => (await atRest())?.posture === "standing", 20_000);
    await closeAll("xclock");
  });

  it("her size, from Settings and from her menu, changes her window and her silhouette", async () => {
    expect(await gesture("move_to", { spot: "bottom_left", monitor: 0 })).toBe("ok");
    const title = (await windowsOfClass(x, "yui")).find((w) => w.w === W.width)!.title;
    const mine = async () => (await windowsOfClass(x, "yui")).find((w) => w.title === title)!;
    const big = await drawnBox(await mine());
    // Settings → the character: her size (a real page in Chromium against the app's host).
    const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
    try {
      const page = await browser.newPage();
      await page.goto(app.host.launchUrl(`${app.host.url}?view=settings`));
      await page.getByTestId("her-size").selectOption("medium");
    } finally {
      await browser.close();
    }
    expect(app.host.store.get(desktopSettingsKey("yui"))).toEqual({ scale: 0.55, wander: false });
    const small = await waitFor("her window at 198×308", async () => {
      const w = await mine();
      return w.w === 198 && w.h === 308 ? w : undefined;
    });
    // Still standing on the floor at the same place.
    expect(small.y + small.h).toBe(1200);
    expect((await body()).window).toEqual({ x: small.x, y: small.y, width: 198, height: 308 });
    // Her silhouette drawn at the new size (the stage frames her to her window).
    const drawn = await waitFor("her, drawn smaller", async () => {
      const b = await drawnBox(await mine());
      return b.height > 0 && Math.abs(b.height / big.height - 0.55) < 0.08 ? b : undefined;
    });
    expect(drawn.height).toBeLessThan(big.height);
    await shot("size-medium");
    // Her menu: Size: full, her size before the setting (360×560).
    const [hx, hy] = await (async () => {
      const w = await mine();
      return [w.x + Math.round(w.w / 2), w.y + Math.round(w.h * 0.5)] as const;
    })();
    await x.x("xdotool", ["mousemove", String(hx), String(hy), "click", "3"]);
    await waitFor("her menu", async () => (await windowsOfClass(x, "gjs")).length > 0, 10_000);
    const downs =
      menuOf("her", true, true)
        .filter((e) => e !== null)
        .findIndex((e) => e.action === "size-full") + 1;
    await x.x("xdotool", ["key", ...Array<string>(downs).fill("Down"), "Return"]);
    await waitFor("her window at 360×560 again", async () => (await mine()).w === W.width);
    expect(app.host.store.get(desktopSettingsKey("yui"))).toEqual({ scale: 1, wander: false });
  });

  it("steps aside for a focused Chat window, and comes back when the focus leaves it; drops below a wide one", async () => {
    await xterm("term-focus", [1300, 100], 40);
    expect(await gesture("move_to", { spot: "bottom_left", monitor: 0 })).toBe("ok");
    const home = await herWindow();
    // Her menu's first entry: Chat, an ordinary window of YUI's, focused as it opens.
    const [hx, hy] = await onHer();
    await x.x("xdotool", ["mousemove", String(hx), String(hy), "click", "3"]);
    await waitFor("her menu", async () => (await windowsOfClass(x, "gjs")).length > 0, 10_000);
    await x.x("xdotool", ["key", "Down", "Return"]);
    const opened = await waitFor("the chat window", async () =>
      (await windowsOfClass(x, "yui")).find((w) => w.title === "YUI · Chat"),
    );
    try {
      // The focus away from it first (wherever the window manager put it), then the chat over her, focused.
      const above = async () =>
        (await x.x("xprop", ["-id", home.id, "_NET_WM_STATE"])).includes("_NET_WM_STATE_ABOVE");
      await x.x("xdotool", ["windowactivate", "--sync", await idOf("xterm")]);
      await waitFor("her, home", async () => (await atRest())?.window.x === home.x && (await above()));
      await x.x("xdotool", ["windowmove", opened.id, "200", "100"]);
      await x.x("xdotool", ["windowactivate", "--sync", opened.id]);
      const chat = (await windowsOfClass(x, "yui")).find((w) => w.title === "YUI · Chat")!;
      // Over her: she walks to its nearer side with room (the right), on the same floor.
      const aside = await waitFor("her, aside", async () => {
        const b = await atRest();
        return b && b.window.x >= chat.x + chat.w ? b : undefined;
      });
      expect(aside).toMatchObject({ posture: "standing", window: { y: home.y } });
      expect(aside.window.x).toBeLessThan(chat.x + chat.w + 40);
      expect(await above()).toBe(true);
      await shot("stepped-aside");
      // The focus goes to the xterm: she walks back.
      await x.x("xdotool", ["windowactivate", "--sync", await idOf("xterm")]);
      await waitFor("her, back", async () => (await atRest())?.window.x === home.x);
      // A chat window as wide as the screen leaves no side: she drops below it while it has the focus.
      await x.x("xdotool", ["windowsize", chat.id, "1900", "700"]);
      await x.x("xdotool", ["windowmove", chat.id, "0", "100"]);
      await x.x("xdotool", ["windowactivate", "--sync", chat.id]);
      await waitFor("her, below the chat", async () => !(await above()));
      await shot("below-chat");
      await x.x("xdotool", ["windowactivate", "--sync", await idOf("xterm")]);
      await waitFor("her, above again", above);
    } finally {
      // Whatever happened: no chat window or xterm left for the tests after this one.
      await x.x("wmctrl", ["-c", "YUI · Chat"]).catch(() => {});
      await closeAll("xterm");
    }
  });
});

// Its own block (it runs last): the host is in this process, so every child process it starts is this one's.
describe("her body without child processes", () => {
  it("follows a window moved under her, and rests, without the host starting a process", async () => {
    await xterm("term-moving", [300, 400]);
    expect(await gesture("sit_on_window", { app: "xterm" })).toBe("ok");
    const id = await idOf("xterm");
    const frame = await frameOf("xterm");
    const sat = (await body()).window;
    // Every child process of this process (the host's and the test's) is recorded; the test's own commands,
    // each followed by what it must change, are the positive control. The waits ask the host, not X's tools.
    const spawns = countSpawns();
    const mine: string[][] = [];
    const run = async (...argv: string[]) => {
      mine.push(argv);
      await x.x(argv[0]!, argv.slice(1));
    };
    try {
      // At rest, a new title the host must tell (proof that it keeps listening without reading again).
      await run("xdotool", "set_window", "--name", "term-resting", id);
      await waitFor("the new title listed", async () => listed("term-resting"));
      for (const dx of [150, 300, 450]) {
        await run("xdotool", "windowmove", id, String(frame.x + dx), String(frame.y + 50));
        await waitFor(`her, following it ${dx} px`, async () => (await body()).window.x === sat.x + dx);
      }
    } finally {
      spawns.stop();
    }
    expect(mine).toHaveLength(4);
    expect(spawns.argv).toEqual(mine);
    expect(await herWindow()).toMatchObject({ x: sat.x + 450, y: sat.y + 50 });
    expect((await body()).posture).toBe("sitting");
    await closeAll("xterm");
    await waitFor("her, down on the floor", async () => (await body()).posture === "standing", 20_000);
  });
});

// After every other block: the app is restarted on the same data, with her walk slowed and her own moves coming
// every few seconds (the timings YUI_BODY_TIMINGS would set), to see where she comes back and what she does alone.
describe("after a restart: where she was, and a little life of her own", { timeout: 120_000 }, () => {
  const SLOW = { walkPxPerS: 120, climbPxPerS: 120, wanderMinMs: 1_500, wanderMaxMs: 2_500 };
  /** Keeps the user at the computer: a pointer move now and then (the X server's idle time). */
  const nudge = () => x.x("xdotool", ["mousemove_relative", "--", "1", "0"]);

  it("comes back where she was on this monitor layout, on screen", async () => {
    expect(await gesture("move_to", { spot: "bottom_right", monitor: 1 })).toBe("ok");
    const was = await herWindow();
    // Remembered once she has been at rest a second.
    await waitFor("her place remembered", async () => {
      const v = app.host.store.get("yui.yui.place") as { layouts: Record<string, { x: number; y: number }> };
      return Object.values(v.layouts).some((p) => p.x === was.x + W.width / 2 && p.y === was.y + W.height);
    });
    await app.stop();
    const env: NodeJS.ProcessEnv = { ...x.env, LIBGL_ALWAYS_SOFTWARE: "1", YUI_DATA_DIR: dataDir };
    app = await startDesktopApp({
      port: 0,
      env,
      dataDir,
      timings: SLOW,
      onQuit: () => {},
      log: (l) => env.YUI_SHELL_DEBUG && process.stderr.write(`${l}\n`),
      bodyLog: (l) => bodyLog.push(l),
    });
    await waitFor("main's body attached again", async () => app.host.body.current() !== null, 60_000);
    await waitFor("her body read", async () => !(await call("get_body_state")).isError, 30_000);
    expect(await body()).toMatchObject({ monitor: 1, posture: "standing", window: { x: was.x, y: was.y } });
    expect(await herWindow()).toMatchObject({ x: was.x, y: was.y });
    await waitFor("her, drawn", async () => (await drawnRows()) > W.height / 4 / 2, 90_000);
    await shot("after-restart");
  });

  it("moves on her own now and then; a body call stops it at once and answers as if she had stood still", async () => {
    const from = bodyLog.length;
    app.host.store.set(desktopSettingsKey("yui"), { scale: 1, wander: true }, "test");
    // Caught on her own way (a walk along the floor, or on her way up a window's side): never busy.
    const moving = await waitFor(
      "her, moving on her own",
      async () => {
        await nudge();
        const b = await body();
        return b.moving ? b : undefined;
      },
      60_000,
    );
    expect(bodyLog.slice(from).some((l) => /^wander: (walks|sits)/.test(l))).toBe(true);
    expect(["walking", "climbing"]).toContain(moving.posture);
    expect(await gesture("stand")).toBe("ok");
    const still = await waitFor("her, still on a surface", atRest, 10_000);
    expect(still.posture).toMatch(/standing|sitting/);
    // The same while she moves on her own again: a move answers ok, and she gets there.
    await waitFor(
      "her, moving on her own again",
      async () => {
        await nudge();
        return (await body()).moving;
      },
      60_000,
    );
    expect(await gesture("move_to", { spot: "bottom_right", monitor: 1 })).toBe("ok");
    expect(await herWindow()).toMatchObject({
      x: RIGHT.x + RIGHT.width - W.width,
      y: RIGHT.height - W.height,
    });
    await shot("wandering");
  });

  it("with 'moves on her own' off she stays: each wait ends with 'off' (the same waits with it on: she moves)", async () => {
    app.host.store.set(desktopSettingsKey("yui"), { scale: 1, wander: false }, "test");
    await waitFor("her, at rest", atRest, 20_000);
    const at = await body();
    const from = bodyLog.length;
    // Three of her waits pass; each one the setting says no, and she never moves meanwhile.
    await waitFor(
      "three waits ended with 'off'",
      async () => {
        await nudge();
        expect((await body()).moving).toBe(false);
        return bodyLog.slice(from).filter((l) => l === "wander: not now (off)").length >= 3;
      },
      30_000,
    );
    expect(bodyLog.slice(from).every((l) => l === "wander: not now (off)")).toBe(true);
    expect((await body()).window).toEqual(at.window);
    // The control: the setting on again, in the same conditions, and she moves by herself.
    app.host.store.set(desktopSettingsKey("yui"), { scale: 1, wander: true }, "test");
    await waitFor(
      "her, moving on her own",
      async () => {
        await nudge();
        return bodyLog.slice(from).some((l) => /^wander: (walks|sits|watches)/.test(l));
      },
      30_000,
    );
    app.host.store.set(desktopSettingsKey("yui"), { scale: 1, wander: false }, "test");
  });
});
