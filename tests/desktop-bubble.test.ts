/**
 * Her bubble and the first run on a real X desktop (docs/desktop.md "Her bubble", "The first run"): the desktop
 * app (host, gjs shell, main's page) on Xvfb with two monitors (one screen split by xrandr --setmonitor),
 * openbox and xcompmgr, no session bus and no system tray, and at first no backend where her preset points.
 * The bubble is the shell's own window: the tests read its place from X (xwininfo), her face's box and what
 * the bubble shows from the shell's `bubble` reports, and its pixels from the screen.
 * Screenshots: test-output/bubble/.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "@yui/mod-kit/testing";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DesktopApp, NO_BACKEND, startDesktopApp } from "../host/desktop/desktop-cli.ts";
import { openStore } from "../host/store/store.ts";
import { startXSession, waitFor, type XSession } from "../host/x11/testing.ts";
import { BUBBLE_MAX_HEIGHT } from "../shell/bubble-place.js";
import type { Rect, ShellToHost } from "../shell/contract.ts";
import { BUBBLE_TAIL } from "../shell/core.js";
import { grabRoot, sameColour, widestRun, windowsOfClass } from "../shell/gtk/testing/x-desktop.ts";
import { backendStatusKey } from "../src/protocol/backend-status.ts";
import { desktopSettingsKey } from "../src/protocol/body.ts";
import { characterPreset, PRESET_KEYS } from "../src/protocol/preset.ts";
import { BUBBLE_HOLD_MS, FADE_MS } from "../src/ui/desktop-bubble.ts";
import { FIRST_RUN } from "../src/ui/first-run.ts";
import { chatStream, type ScriptedBackend, startScriptedBackend } from "../tools/scripted-backend/server.ts";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const SHOTS = join(REPO, "test-output", "bubble");
/** Her window at scale 1 (desktop.ts WINDOW_SIZE). */
const W = { width: 360, height: 560 };
/** The sign on her (desktop.css `.backend-sign`): its colour, beside its "!" from her window's top-right. */
const SIGN = { colour: [0xe0, 0x66, 0x1b], dx: -6 - 6, dy: 6 + 12 };
/** The app's note's border colour (shell/bubble/bubble.css), and her speech's background. */
const NOTE_BORDER = [0xd9, 0x8a, 0x1f];
const SPEECH_BG = [0xf6, 0xf7, 0xfa];

type BubbleReport = Extract<ShellToHost, { type: "bubble" }>;

let x: XSession;
let app: DesktopApp;
let dataDir = "";
let port = 0;
let base = "";
let backend: ScriptedBackend | null = null;
const reports: BubbleReport[] = [];
const shellLog: string[] = [];

const lastReport = () => reports.at(-1);
/** Her window as X sees it (read again while xdotool, slow on a loaded machine, finds nothing). */
const herWindow = () =>
  waitFor("her window", async () =>
    (await windowsOfClass(x, "yui")).find((w) => w.w === W.width && w.h === W.height),
  );
/** Her bubble's window as X sees it, or undefined while it is not shown. */
const bubbleWindow = async () => (await windowsOfClass(x, "yui")).find((w) => w.title === "YUI bubble");

/** The work area of the monitor under (px, py). */
function workAreaAt(px: number, py: number): Rect {
  const m = app.ready.monitors.find(
    (m) =>
      px >= m.geometry.x &&
      px < m.geometry.x + m.geometry.width &&
      py >= m.geometry.y &&
      py < m.geometry.y + m.geometry.height,
  );
  if (!m) throw new Error(`no monitor at ${px},${py}`);
  return m.workarea;
}
const overlaps = (a: Rect, b: Rect) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
const inside = (a: Rect, b: Rect) =>
  a.x >= b.x && a.y >= b.y && a.x + a.width <= b.x + b.width && a.y + a.height <= b.y + b.height;

/**
 * The bubble's manners in one report: shown, never over her face, inside the work area of the monitor her face
 * is on, and her face's box inside her window.
 */
function checkPlace(r: BubbleReport, her: { x: number; y: number }): void {
  expect(r.width).toBeGreaterThan(0);
  const face = r.face!;
  expect(face).not.toBeNull();
  const bubble = { x: r.x, y: r.y, width: r.width, height: r.height };
  expect(overlaps(bubble, face), JSON.stringify(r)).toBe(false);
  expect(
    inside(bubble, workAreaAt(face.x + face.width / 2, face.y + face.height / 2)),
    JSON.stringify(r),
  ).toBe(true);
  expect(inside(face, { x: her.x, y: her.y, ...W }), JSON.stringify([r, her])).toBe(true);
}

/** The bubble shown by X where the last report says, with the report. */
async function shownBubble(what: string, pred: (r: BubbleReport) => boolean): Promise<BubbleReport> {
  let seen = "";
  return waitFor(
    what,
    async () => {
      const r = lastReport();
      const b = await bubbleWindow();
      seen = JSON.stringify({ report: r, window: b });
      if (!r || r.width === 0 || !pred(r)) return undefined;
      return b && b.x === r.x && b.y === r.y && b.w === r.width && b.h === r.height ? r : undefined;
    },
    40_000,
  ).catch((e: Error) => {
    throw new Error(`${e.message}; last seen ${seen}`);
  });
}

/** The whole screen as the user sees it, scaled down, into test-output/bubble/<name>.png. */
async function shot(name: string): Promise<void> {
  const { png } = await grabRoot(x.env);
  await sharp(png)
    .resize({ width: 1600 })
    .png()
    .toFile(join(SHOTS, `${name}.png`));
}

/** Whether her window shows a pixel other than the desktop's at (px, py). */
async function herPixels() {
  const her = await herWindow();
  const screen = await grabRoot(x.env);
  const bg = screen.at(her.x + 2, her.y + W.height - 2);
  return { her, screen, hers: (px: number, py: number) => !sameColour(screen.at(px, py), bg, 12) };
}
/** A point on her: the middle of the widest run of her pixels on the rows from 30 % to 70 % of her window. */
async function onHer(): Promise<[number, number]> {
  const { her, hers } = await herPixels();
  const best = widestRun({ x: her.x, y: her.y, w: W.width, h: W.height }, hers, [0.3, 0.7]);
  if (best.len < 8) throw new Error("she is not drawn in her window");
  return [best.x, best.y];
}
/** Her input is open: its box drawn near her window's bottom. */
async function inputOpen(): Promise<boolean> {
  const { her, hers } = await herPixels();
  return hers(her.x + 40, her.y + W.height - 30);
}

/** Types `text` into her input (a click on her opens it) and sends it; waits until the backend has it. */
async function say(text: string): Promise<void> {
  const asked = backend!.requests.length;
  if (!(await inputOpen())) {
    const [hx, hy] = await onHer();
    await x.x("xdotool", ["mousemove", String(hx), String(hy), "click", "1"]);
    await waitFor("her input", inputOpen);
  }
  await x.x("xdotool", ["type", "--delay", "20", text]);
  await x.x("xdotool", ["key", "Return"]);
  await waitFor("the message at the backend", async () => backend!.requests.length > asked);
}

/** Main's body does `args` (the avatar executor the host holds for her window). */
async function body(
  args: Parameters<NonNullable<ReturnType<DesktopApp["host"]["body"]["current"]>>["bodyAction"]>[0],
) {
  const b = app.host.body.current();
  if (!b) throw new Error("main's body is not attached");
  return b.bodyAction(args, AbortSignal.timeout(60_000));
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  x = await startXSession();
  x.start(["xcompmgr"]);
  dataDir = mkdtempSync(join(tmpdir(), "yui-bubble-"));
  port = await freePort();
  // Her backend: a local Ollama's address, where nothing listens yet (the scripted backend starts there later).
  base = `http://127.0.0.1:${port}/ollama/v1`;
  const seed = openStore(dataDir);
  seed.set(
    PRESET_KEYS.list,
    [characterPreset("yui", "Yui", { transport: "chat", base_url: base, model: "scripted-model" })],
    "test",
  );
  seed.set(desktopSettingsKey("yui"), { scale: 1, wander: false }, "test");
  seed.close();
  const env: NodeJS.ProcessEnv = { ...x.env, LIBGL_ALWAYS_SOFTWARE: "1", YUI_DATA_DIR: dataDir };
  // No session bus (no StatusNotifier host) and no system tray here.
  delete env.DBUS_SESSION_BUS_ADDRESS;
  delete env.OPENAI_BASE_URL;
  delete env.OPENAI_API_KEY;
  app = await startDesktopApp({
    port: 0,
    env,
    dataDir,
    timings: { walkPxPerS: 1400, climbPxPerS: 1400 },
    onQuit: () => {},
    log: (l) => {
      shellLog.push(l);
      if (env.YUI_SHELL_DEBUG) process.stderr.write(`${l}\n`);
    },
  });
  app.shell.on((m) => {
    if (m.type === "bubble") reports.push(m);
  });
  await waitFor("main's body attached", async () => app.host.body.current() !== null, 90_000);
  await waitFor(
    "her, drawn",
    async () => {
      const { her, hers } = await herPixels();
      let rows = 0;
      for (let py = her.y; py < her.y + W.height; py += 8)
        for (let px = her.x; px < her.x + W.width; px += 4)
          if (hers(px, py)) {
            rows++;
            break;
          }
      return rows > W.height / 8 / 2;
    },
    120_000,
  );
}, 240_000);

afterAll(async () => {
  await app?.stop();
  await backend?.close();
  await x?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe("her bubble and the first run on an X desktop", { timeout: 120_000 }, () => {
  it("without a tray she says how to reach her menu; with no backend she says what to do, and a sign stays on her and the tray", async () => {
    // No tray here: her first words (said while her model loaded), then the first run's.
    const hint = await waitFor("the no-tray hint", async () =>
      reports.find((r) => r.width > 0 && r.tail === FIRST_RUN.noTray),
    );
    expect(hint.face).not.toBeNull();
    expect(overlaps(hint, hint.face!)).toBe(false);
    expect(app.host.store.get(backendStatusKey("yui"))).toMatchObject({ ok: false, base_url: base });
    const words = FIRST_RUN.ollama(base, "connection refused");
    const first = await shownBubble("her first-run words", (r) => r.tail === words.slice(-BUBBLE_TAIL));
    expect(first).toMatchObject({ kind: "speech", commands: ["ollama serve", "ollama pull scripted-model"] });
    const her = await herWindow();
    checkPlace(first, her);
    // The commands are drawn (dark code lines in the bubble), and the sign on her: read from the screen until the
    // bubble's page has painted what its window was placed for (the shell reports the place before the paint).
    await waitFor("the commands and the sign drawn", async () => {
      const { screen } = await herPixels();
      let codeRows = 0;
      for (let py = first.y; py < first.y + first.height; py++)
        if (sameColour(screen.at(first.x + 20, py), [0x1d, 0x22, 0x30], 10)) codeRows++;
      return (
        codeRows > 20 && sameColour(screen.at(her.x + W.width + SIGN.dx, her.y + SIGN.dy), SIGN.colour, 20)
      );
    });
    expect(shellLog).toContain(`[shell] tray sign: ${NO_BACKEND}`);
    await shot("first-run");
  });

  it("a backend that starts answering clears the sign and her first-run words, and the first message works", async () => {
    backend = await startScriptedBackend([], undefined, { port });
    await waitFor(
      "the backend answering",
      async () => (app.host.store.get(backendStatusKey("yui")) as { ok: boolean }).ok,
      30_000,
    );
    await waitFor("the first-run words gone", async () => lastReport()?.width === 0);
    await waitFor("the sign gone", async () => {
      const { her, screen } = await herPixels();
      return !sameColour(screen.at(her.x + W.width + SIGN.dx, her.y + SIGN.dy), SIGN.colour, 20);
    });
    await waitFor("the tray's sign gone", async () => shellLog.includes("[shell] tray sign: none"));
    backend.enqueue({ body: chatStream({ text: ["Hello! ", "I can hear you now."] }), chunkDelayMs: 40 });
    await say("hello?");
    const r = await shownBubble("her short reply", (r) => r.tail === "Hello! I can hear you now.");
    expect(r).toMatchObject({ kind: "speech", side: "above", end: true });
    checkPlace(r, await herWindow());
    await shot("short-reply");
    // It fades BUBBLE_HOLD_MS after the turn (the control for the note that stays, below).
    await waitFor(
      "her reply faded",
      async () => lastReport()?.width === 0,
      BUBBLE_HOLD_MS + FADE_MS + 10_000,
    );
  });

  it("keeps a long streaming reply's newest words in view, never over her face, and scrolls with the wheel", async () => {
    const lines = Array.from({ length: 40 }, (_, i) => `Line ${i + 1} of a long reply.\n`);
    lines.push("And that is the end.");
    backend!.enqueue({ body: chatStream({ text: lines }), chunkDelayMs: 120 });
    const seen = reports.length;
    await say("tell me a long story");
    // While it streams (faster than X is read here: the shell's reports), its newest line is in view.
    const mid = await waitFor("the reply streaming past its room", async () =>
      reports.slice(seen).find((r) => r.width > 0 && /Line 25 of a long reply\.\s*$/.test(r.tail ?? "")),
    );
    expect(mid.end).toBe(true);
    const done = await shownBubble(
      "the whole reply",
      (r) => r.tail?.endsWith("And that is the end.") ?? false,
    );
    // The wheel over it scrolls it back (at once: it fades BUBBLE_HOLD_MS after the turn).
    await x.x("xdotool", [
      "mousemove",
      String(done.x + Math.round(done.width / 2)),
      String(done.y + Math.round(done.height / 2)),
      "click",
      "--repeat",
      "5",
      "4",
    ]);
    await waitFor("scrolled up", async () => lastReport()?.end === false);
    await shot("long-reply-scrolled-back");
    await x.x("xdotool", ["mousemove", "10", "10"]);
    // Every place it had while streaming kept her face clear and stayed in the work area.
    const her = await herWindow();
    for (const r of reports.slice(seen)) if (r.width > 0) checkPlace(r, her);
    // Taller than its room (before the wheel): the window is shorter than the text, scrolled to its newest line.
    expect(done.end).toBe(true);
    expect(done.height).toBeLessThanOrEqual(BUBBLE_MAX_HEIGHT);
  });

  it("follows her when she sits on a window near the top, and near a monitor's edge", async () => {
    x.start(["xclock", "-geometry", "400x200+700+80"]);
    await waitFor("the xclock listed", async () =>
      JSON.stringify(await app.host.body.current()!.perchTargets()).includes("XClock"),
    );
    expect(await body({ action: "sit_on_window", app: "xclock" })).toBe("ok");
    backend!.enqueue({ body: chatStream({ text: ["Nice view ", "from up here!"] }) });
    await say("how is it up there?");
    const high = await shownBubble(
      "her reply while she sits high",
      (r) => r.tail === "Nice view from up here!",
    );
    checkPlace(high, await herWindow());
    expect(high.side).not.toBe("below");
    await shot("sitting-near-top");
    expect(await body({ action: "stand" })).toBe("ok");

    // At the top right of the left monitor, beside the right one: the bubble stays on her monitor.
    expect(await body({ action: "move_to", spot: "top_right", monitor: 0 })).toBe("ok");
    backend!.enqueue({ body: chatStream({ text: ["Right at the edge."] }) });
    await say("and here?");
    const edge = await shownBubble("her reply at the monitor's edge", (r) => r.tail === "Right at the edge.");
    const her = await herWindow();
    checkPlace(edge, her);
    expect(edge.x + edge.width).toBeLessThanOrEqual(1920);
    await shot("monitor-edge");
    // She walks back along the floor: her bubble follows her (it is still shown while she moves).
    expect(await body({ action: "move_to", spot: "bottom_left", monitor: 0 })).toBe("ok");
    const moved = await herWindow();
    const follows = lastReport()!;
    if (follows.width > 0) {
      checkPlace(follows, moved);
      expect(Math.abs(follows.face!.x - moved.x)).toBeLessThan(W.width);
    }
  });

  it("shows an error as the app's note, styled apart from her words, and keeps it", async () => {
    backend!.enqueue({ status: 500, body: JSON.stringify({ error: { message: "the model crashed" } }) });
    await say("are you there?");
    const note = await shownBubble("the error as the app's note", (r) => r.kind === "note");
    checkPlace(note, await herWindow());
    const screen = await grabRoot(x.env);
    // Its amber border on its left, not her speech's pale grey.
    expect(sameColour(screen.at(note.x + 2, note.y + Math.round(note.height / 2)), NOTE_BORDER, 24)).toBe(
      true,
    );
    expect(sameColour(screen.at(note.x + 2, note.y + Math.round(note.height / 2)), SPEECH_BG, 24)).toBe(
      false,
    );
    await shot("error-note");
    // Longer than a reply is kept (a reply faded within this time above): the note is still shown.
    await new Promise((r) => setTimeout(r, BUBBLE_HOLD_MS + FADE_MS + 2_000));
    expect(lastReport()).toMatchObject({ kind: "note" });
    expect((await bubbleWindow())?.w).toBe(note.width);
  });
});
