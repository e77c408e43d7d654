/**
 * The Linux shell on a real X desktop (Xvfb + openbox + xcompmgr), started by the real host through the
 * shell contract, with a real xterm below her: window properties, transparency from the root window's
 * pixels, click-through with xdotool, dragging, two characters, and a message to the scripted backend
 * whose reply shows in her bubble. Screenshots: test-output/desktop/.
 *
 * Every test stands alone (the shell project runs them shuffled, vitest.config.ts): the desktop is started
 * once with both characters, each test begins from her home (beforeEach: both windows at their first
 * places, her input closed) and puts back what it changed (click-through, the screen's size, hidden windows).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startDesktop } from "../../host/desktop/desktop.ts";
import { type ShellProcess, spawnShell } from "../../host/desktop/shell-process.ts";
import { type Host, startHost } from "../../host/server/server.ts";
import { closePet, openPet, savePreset } from "../../src/app/presets/presets.ts";
import { desktopSettingsKey } from "../../src/protocol/body.ts";
import { characterPreset } from "../../src/protocol/preset.ts";
import {
  chatStream,
  type ScriptedBackend,
  startScriptedBackend,
} from "../../tools/scripted-backend/server.ts";
import type { ShellToHost } from "../contract.ts";
import { type MenuEntry, menuOf } from "../core.js";
import {
  loggedPresses,
  type Screenshot,
  sameColour,
  startClickLogXterm,
  startXDesktop,
  waitFor,
  widestRun,
  windowsOfClass,
  type XDesktop,
} from "./testing/x-desktop.ts";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const SHOTS = join(REPO, "test-output", "desktop");
// The xterm below her: a colour no part of her has, so "shows through" is an exact pixel test.
const BELOW: [number, number, number] = [0x20, 0x40, 0x80];

let desk: XDesktop;
let host: Host;
let backend: ScriptedBackend;
let shell: ShellProcess;
let dataDir = "";
let clicks = "";
const messages: ShellToHost[] = [];

const preset = (id: string, name: string) =>
  characterPreset(id, name, { transport: "chat", base_url: backend.url, model: "scripted-model" });

// The tray icon (the XEmbed fallback, embedded in trayer) carries class yui too: a 24-pixel icon, not a window.
// Her bubble's window (class yui too) is not a character window.
const windows = async () =>
  (await windowsOfClass(desk, "yui")).filter((w) => w.w > 64 && w.title !== "YUI bubble");
const windowOf = async (title: string) => {
  const w = (await windows()).find((x) => x.title === title);
  if (!w) throw new Error(`no window titled ${title}`);
  return w;
};

const same = sameColour;
const presses = () => loggedPresses(clicks);

/** Her pixels inside window `w`: those that are not the xterm's colour. */
function herPixels(shot: Screenshot, w: { x: number; y: number; w: number; h: number }) {
  const px: [number, number][] = [];
  for (let y = w.y; y < w.y + w.h; y += 2)
    for (let x = w.x; x < w.x + w.w; x += 2) if (!same(shot.at(x, y), BELOW, 12)) px.push([x, y]);
  return px;
}
/**
 * A point well inside her: the middle of her longest horizontal run of pixels between 30% and 80% of her window's
 * height (her body, whatever her look: a short skirt leaves only her legs at mid-height).
 */
function onHer(shot: Screenshot, w: { x: number; y: number; w: number; h: number }): [number, number] {
  const best = widestRun(w, (x, y) => !same(shot.at(x, y), BELOW, 12));
  if (best.len < 24) throw new Error("she is not drawn between 30% and 80% of her height");
  return [best.x, best.y];
}

// Her window's first place on this 1280×800 screen: bottom right of the work area, standing on its floor
// (desktop.ts initialPlace), and Mio's (the second window) to her left. Both at scale 1 (360×560: beforeAll).
const START = { x: 1280 - 360 - 16, y: 800 - 560 };
const MIO_START = { x: 1280 - 2 * 360 - 2 * 16, y: START.y };
/** A point of the xterm beside both windows (above them). */
const ON_XTERM: [number, number] = [700, 120];

/** Down presses from the top of a menu to `action`'s entry (separators are skipped): the shells' one table. */
const downsTo = (entries: MenuEntry[], action: string) =>
  entries.filter((e) => e !== null).findIndex((e) => e.action === action) + 1;
/** Her menu's entries and the tray's, with a compositor and click-through on. */
const MENU = (action: string) => downsTo(menuOf("her", true, true), action);
const TRAY = (action: string) => downsTo(menuOf("tray", true, true), action);

/** Where YUI's tray icon is (embedded in trayer): its centre. */
async function trayIcon(): Promise<[number, number]> {
  const tree = await desk.x("xwininfo", ["-root", "-tree"]);
  const m = /\("yui" "yui"\)\s+(\d+)x(\d+)\+-?\d+\+-?\d+\s+\+(-?\d+)\+(-?\d+)/.exec(tree);
  if (!m) throw new Error("no tray icon");
  const [w, h, x, y] = m.slice(1).map(Number) as [number, number, number, number];
  return [x + Math.floor(w / 2), y + Math.floor(h / 2)];
}

/** Right-clicks at (x, y), waits for her menu (a gjs popup), and chooses the `downs`-th entry. */
async function fromHerMenu(x: number, y: number, downs: number): Promise<void> {
  await desk.x("xdotool", ["mousemove", String(x), String(y), "click", "3"]);
  await waitFor("her menu", async () => (await windowsOfClass(desk, "gjs")).length > 0, 10_000);
  await desk.x("xdotool", ["key", ...Array<string>(downs).fill("Down"), "Return"]);
  await waitFor("her menu closed", async () => (await windowsOfClass(desk, "gjs")).length === 0, 10_000);
}

async function click(x: number, y: number): Promise<void> {
  await desk.x("xdotool", ["mousemove", String(x), String(y), "click", "1"]);
}

type ChatBody = {
  messages: { role: string; content: string; tool_call_id?: string }[];
  tools?: { function: { name: string } }[];
};
/** The tools a request declared, by name, in order. */
const declared = (body: ChatBody) => (body.tools ?? []).map((t) => t.function.name);

/**
 * Opens the input of the character in window `w` (a click on her, unless it is open), types `text` and sends it;
 * answers with the request it reached the backend as.
 */
async function say(w: { x: number; y: number; w: number; h: number }, text: string): Promise<ChatBody> {
  const asked = backend.requests.length;
  const shot = await desk.screenshot();
  if (same(shot.at(w.x + 40, w.y + w.h - 30), BELOW, 12)) await click(...onHer(shot, w));
  await waitFor(
    "her input",
    async () => !same((await desk.screenshot()).at(w.x + 40, w.y + w.h - 30), BELOW, 12),
  );
  await desk.x("xdotool", ["type", "--delay", "30", text]);
  await desk.x("xdotool", ["key", "Return"]);
  await waitFor("the message at the backend", async () => backend.requests.length > asked);
  return backend.requests[asked]!.body as ChatBody;
}

/** The tool messages of the request after `first` (the turn going on after its calls ran in the page). */
async function toolResults(first: number): Promise<Record<string, string>> {
  await waitFor("the turn going on with the tool results", async () => backend.requests.length > first + 1);
  const body = backend.requests[first + 1]!.body as ChatBody;
  return Object.fromEntries(
    body.messages.filter((m) => m.role === "tool").map((m) => [m.tool_call_id!, m.content]),
  );
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  if (!existsSync(join(REPO, "dist", "index.html"))) {
    const { build } = await import("vite");
    await build({ configFile: join(REPO, "vite.config.ts"), logLevel: "warn" });
  }
  desk = await startXDesktop();
  dataDir = mkdtempSync(join(tmpdir(), "yui-desktop-"));
  clicks = join(dataDir, "clicks.log");
  // The xterm covers the bottom-right corner of the screen, where her window opens.
  await startClickLogXterm(desk, clicks);
  // A system tray (XEmbed) at the top right, for YUI's tray icon.
  desk.start([
    "trayer",
    "--edge",
    "top",
    "--align",
    "right",
    "--widthtype",
    "pixel",
    "--width",
    "120",
    "--height",
    "24",
  ]);
  backend = await startScriptedBackend();
  const env: NodeJS.ProcessEnv = { ...desk.env, LIBGL_ALWAYS_SOFTWARE: "1" };
  delete env.OPENAI_BASE_URL;
  delete env.OPENAI_API_KEY;
  host = await startHost({ port: 0, dataDir, env, browserCommands: false });
  savePreset(host.store, preset("yui", "Yui"));
  // Both characters at scale 1 (360×560), the size these tests measure her in, and still unless moved.
  for (const id of ["yui", "mio"])
    host.store.set(desktopSettingsKey(id), { scale: 1, wander: false }, "test");
  // YUI_SHELL_DEBUG=1 shows the shell's log and the pages' consoles.
  shell = spawnShell({ env, log: (l) => env.YUI_SHELL_DEBUG && process.stderr.write(`${l}\n`) });
  shell.on((m) => messages.push(m));
  const ready = await shell.ready;
  startDesktop({
    shell,
    store: host.store,
    hostUrl: host.url,
    signIn: (url) => host.launchUrl(url),
    monitors: ready.monitors,
    onQuit: () => {},
  });
  // She is drawn (the model loaded and rendered) and her silhouette reached the shell.
  await waitFor(
    "her, drawn on the desktop",
    async () => {
      const w = await windowOf("Yui");
      return herPixels(await desk.screenshot(), w).length > 2000;
    },
    90_000,
  );
  await waitFor("her silhouette as the input shape", async () =>
    messages.some((m) => m.type === "shape" && m.id === "yui" && m.rects > 3),
  );
  // A second character, opened as a pet: her own window beside Yui's.
  savePreset(host.store, preset("mio", "Mio"));
  openPet(host.store, "mio");
  await waitFor("Mio's silhouette", async () => silhouetteOf("mio"), 90_000);
}, 240_000);

/** Whether the window `id` reported her silhouette (more than a few rectangles) since it was last mapped. */
function silhouetteOf(id: string): boolean {
  const since = messages.findLastIndex((m) => m.type === "mapped" && m.id === id);
  return since >= 0 && messages.slice(since).some((m) => m.type === "shape" && m.id === id && m.rects > 3);
}

/** Moves window `title` (`id` in the contract) to `at`, through the host's side of the contract. */
async function place(id: string, title: string, at: { x: number; y: number }): Promise<void> {
  const w = await windowOf(title);
  if (w.x === at.x && w.y === at.y) return;
  shell.send({ type: "move", id, ...at });
  await waitFor(`${title} at (${at.x}, ${at.y})`, async () => {
    const n = await windowOf(title);
    return n.x === at.x && n.y === at.y;
  });
}

/** Her input is open: its box is drawn where the xterm shows otherwise. */
const inputOpen = (shot: Screenshot, w: { x: number; y: number; h: number }) =>
  !same(shot.at(w.x + 40, w.y + w.h - 30), BELOW, 12);

// Each test starts from her home: both windows at their first places, her input closed.
beforeEach(async () => {
  await place("yui", "Yui", START);
  await place("mio", "Mio", MIO_START);
  const w = await windowOf("Yui");
  const shot = await desk.screenshot();
  if (inputOpen(shot, w)) {
    await click(...onHer(shot, w));
    await waitFor("her input closed", async () => !inputOpen(await desk.screenshot(), w));
  }
});

afterAll(async () => {
  await shell?.stop();
  await host?.close();
  await backend?.close();
  await desk?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

// Real windows, a software renderer and a 2-core machine shared with the rest of the suite: generous per-test time.
describe("the Linux shell on an X desktop with a compositor", { timeout: 90_000 }, () => {
  it("reports the compositor and every monitor with its work area", () => {
    const ready = messages.find((m) => m.type === "ready");
    expect(ready).toMatchObject({
      type: "ready",
      shell: "gtk",
      compositor: true,
      wayland: false,
      monitors: [
        {
          primary: true,
          geometry: { x: 0, y: 0, width: 1280, height: 800 },
          workarea: { x: 0, y: 0, width: 1280, height: 800 },
        },
      ],
    });
  });

  it("opens her window transparent (32-bit visual), undecorated, above, off the taskbar, class yui/YUI, her name as title", async () => {
    const w = await windowOf("Yui");
    const props = await desk.x("xprop", ["-id", w.id]);
    expect(props).toContain('WM_CLASS(STRING) = "yui", "YUI"');
    expect(props).toContain('_NET_WM_NAME(UTF8_STRING) = "Yui"');
    const state = /_NET_WM_STATE\(ATOM\) = (.*)/.exec(props)?.[1] ?? "";
    expect(state).toContain("_NET_WM_STATE_ABOVE");
    expect(state).toContain("_NET_WM_STATE_SKIP_TASKBAR");
    expect(state).toContain("_NET_WM_STATE_SKIP_PAGER");
    // Motif hints: flags 0x2 (decorations) with decorations 0; the window manager adds no frame.
    expect(props).toMatch(/_MOTIF_WM_HINTS\(_MOTIF_WM_HINTS\) = 0x2, 0x0, 0x0/);
    expect(props).toContain("_NET_FRAME_EXTENTS(CARDINAL) = 0, 0, 0, 0");
    expect(await desk.x("xwininfo", ["-id", w.id])).toMatch(/Depth: 32/);
    expect({ w: w.w, h: w.h }).toEqual({ w: 360, h: 560 });
  });

  it("shows the xterm through where she is not, and draws her where she is", async () => {
    const w = await windowOf("Yui");
    // Her alone: a bubble left by an earlier reply fades BUBBLE_HOLD_MS after it.
    const shot = await waitFor("no bubble above her", async () => {
      const s = await desk.screenshot();
      return same(s.at(w.x + w.w - 30, w.y + 14), BELOW, 12) ? s : undefined;
    });
    writeFileSync(join(SHOTS, "on-desktop.png"), shot.png);
    // Her window's corners and edges: exactly the xterm's colour.
    for (const [x, y] of [
      [w.x + 2, w.y + 2],
      [w.x + w.w - 3, w.y + 2],
      [w.x + 2, w.y + w.h - 3],
      [w.x + 4, w.y + w.h / 2],
    ] as const)
      expect(shot.at(x, y)).toEqual(BELOW);
    const [hx, hy] = onHer(shot, w);
    expect(same(shot.at(hx, hy), BELOW, 12)).toBe(false);
    // She covers a real part of the window, but far from all of it.
    const share = herPixels(shot, w).length / ((w.w * w.h) / 4);
    expect(share).toBeGreaterThan(0.05);
    expect(share).toBeLessThan(0.6);
  });

  it("lets a click on a transparent pixel through to the xterm, and keeps a click on her", async () => {
    const w = await windowOf("Yui");
    const before = presses();
    await click(w.x + 20, w.y + Math.round(w.h / 2));
    await waitFor("the click in the xterm", async () => presses() === before + 1, 10_000);
    await click(w.x + w.w - 10, w.y + 10);
    await waitFor("the second click in the xterm", async () => presses() === before + 2, 10_000);
    const [hx, hy] = onHer(await desk.screenshot(), w);
    await click(hx, hy);
    // A click on her opens her input: once it is drawn, the click has been handled (by her, not the xterm).
    await waitFor("her input", async () => {
      const shot = await desk.screenshot();
      return !same(shot.at(w.x + 40, w.y + w.h - 30), BELOW, 12);
    });
    expect(presses()).toBe(before + 2);
  });

  it("sends what is typed in her input to the backend and shows the reply in her bubble", async () => {
    const w = await windowOf("Yui");
    backend.enqueue({ body: chatStream({ text: ["Hello from ", "the desktop!"] }), chunkDelayMs: 50 });
    const body = await say(w, "hi from the desktop");
    expect(body.messages.at(-1)).toEqual({ role: "user", content: "hi from the desktop" });
    // The reply is kept in her history and drawn in the bubble above her (white where the xterm was).
    await waitFor("the reply in her history", async () => {
      const h = host.store.get("yui.yui.history") as { role: string; content: string }[] | undefined;
      return h?.some((e) => e.role === "assistant" && e.content === "Hello from the desktop!");
    });
    // Her bubble is a window of its own above her head (docs/desktop.md "Her bubble"), where the shell says it
    // put it: its pale background over the xterm, and the reply's words across more than 100 of its columns
    // (a bare "…" placeholder covers about 10).
    const shot = await waitFor("the reply in her bubble", async () => {
      const r = messages.findLast((m) => m.type === "bubble" && m.id === "yui");
      if (r?.type !== "bubble" || r.tail !== "Hello from the desktop!") return undefined;
      const b = (await windowsOfClass(desk, "yui")).find((x) => x.title === "YUI bubble");
      if (!b || b.x !== r.x || b.y !== r.y) return undefined;
      expect(b.y + b.h).toBeLessThanOrEqual(r.face!.y);
      const s = await desk.screenshot();
      if (!same(s.at(b.x + b.w - 8, b.y + Math.round(b.h / 2)), [246, 247, 250], 12)) return undefined;
      let columns = 0;
      for (let x = b.x + 4; x < b.x + b.w - 4; x++) {
        let dark = false;
        for (let y = b.y + 4; y < b.y + b.h - 4; y++) if (s.at(x, y).every((c) => c < 140)) dark = true;
        if (dark) columns++;
      }
      return columns > 100 ? s : undefined;
    });
    writeFileSync(join(SHOTS, "bubble.png"), shot.png);
  });

  it("declares main's window tools, and answers browser (switched off) and the avatar tools (no executor yet) in her window", async () => {
    backend.enqueue(
      {
        body: chatStream({
          calls: [
            { id: "c-browser", name: "browser", arguments: '{"code":"return 1"}' },
            { id: "c-look", name: "look", arguments: '{"at":"body"}' },
            { id: "c-body", name: "body_action", arguments: '{"action":"stand"}' },
          ],
        }),
      },
      { body: chatStream({ text: ["Done."] }) },
    );
    const first = backend.requests.length;
    const body = await say(await windowOf("Yui"), "use your tools");
    expect(body.messages.at(-1)).toEqual({ role: "user", content: "use your tools" });
    expect(declared(body)).toEqual([
      "generate_express",
      "rate_relation",
      "address_character",
      "browser",
      "body_action",
      "look",
    ]);
    const results = await toolResults(first);
    expect(results["c-browser"]).toBe("error: browser is off");
    expect(results["c-look"]).toBe("error: unsupported");
    // body_action's answer while main has no avatar executor: the spec's bare word.
    expect(results["c-body"]).toBe("unsupported");
  });

  it("moves her window when she is dragged", async () => {
    const w = await windowOf("Yui");
    const [hx, hy] = onHer(await desk.screenshot(), w);
    await desk.x("xdotool", ["mousemove", String(hx), String(hy), "mousedown", "1"]);
    for (let i = 1; i <= 10; i++)
      await desk.x("xdotool", ["mousemove", String(hx - i * 20), String(hy - i * 10)]);
    await desk.x("xdotool", ["mouseup", "1"]);
    await waitFor("the drag", async () => messages.some((m) => m.type === "drag" && m.id === "yui"), 15_000);
    const moved = await waitFor("her window moved", async () => {
      const n = await windowOf("Yui");
      return n.x !== w.x ? n : undefined;
    });
    expect(moved.x).toBeGreaterThanOrEqual(w.x - 220);
    expect(moved.x).toBeLessThanOrEqual(w.x - 180);
    expect(moved.y).toBeGreaterThanOrEqual(w.y - 110);
    expect(moved.y).toBeLessThanOrEqual(w.y - 90);
  });

  it("puts her back where she started from her menu's Reset position", async () => {
    // The host moves her away first (the contract's move).
    await place("yui", "Yui", { x: START.x - 200, y: START.y - 100 });
    const w = await windowOf("Yui");
    await fromHerMenu(...onHer(await desk.screenshot(), w), MENU("reset-position"));
    await waitFor("her window back at its start", async () => {
      const n = await windowOf("Yui");
      return n.x === START.x && n.y === START.y;
    });
  });

  it("turns click-through off and back on from her menu: the way back when the silhouette is wrong", async () => {
    const w = await windowOf("Yui");
    const shapes = () =>
      messages.filter(
        (m): m is Extract<ShellToHost, { type: "shape" }> => m.type === "shape" && m.id === "yui",
      );
    await fromHerMenu(...onHer(await desk.screenshot(), w), MENU("click-through"));
    await waitFor("the whole window taking input", async () => shapes().at(-1)?.rects === 1);
    const before = presses();
    await click(w.x + 20, w.y + Math.round(w.h / 2));
    // The control: a click on the xterm beside her, sent after it, reaches the xterm; had the first reached it
    // too, it would be logged before this one.
    await click(...ON_XTERM);
    await waitFor("the control click in the xterm", async () => presses() > before, 10_000);
    expect(presses()).toBe(before + 1);
    // Now a right-click anywhere on her window reaches her menu, which offers click-through again.
    await fromHerMenu(w.x + 20, w.y + Math.round(w.h / 2), MENU("click-through"));
    await waitFor("her silhouette again", async () => (shapes().at(-1)?.rects ?? 0) > 3);
    await click(w.x + 20, w.y + Math.round(w.h / 2));
    await waitFor("the click in the xterm", async () => presses() === before + 2, 10_000);
  });

  it("opens Settings from her menu as an ordinary window, and closing it leaves her", async () => {
    await fromHerMenu(...onHer(await desk.screenshot(), await windowOf("Yui")), MENU("settings"));
    const s = await waitFor("the settings window", async () =>
      (await windows()).find((w) => w.title === "YUI · Settings"),
    );
    const props = await desk.x("xprop", ["-id", s.id]);
    expect(Number(/_NET_FRAME_EXTENTS\(CARDINAL\) = \d+, \d+, (\d+)/.exec(props)?.[1])).toBeGreaterThan(0);
    expect(props).not.toContain("_NET_WM_STATE_ABOVE");
    expect(props).not.toContain("_NET_WM_STATE_SKIP_TASKBAR");
    // The settings page is drawn: its navigation's words (dark text) in the window's top 60 pixels.
    await waitFor("the settings page", async () => {
      const shot = await desk.screenshot();
      let dark = 0;
      for (let y = s.y; y < s.y + 60; y++)
        for (let x = s.x; x < s.x + 400; x++) if (shot.at(x, y).every((c) => c < 120)) dark++;
      return dark > 50;
    });
    writeFileSync(join(SHOTS, "settings-window.png"), (await desk.screenshot()).png);
    await desk.x("wmctrl", ["-c", "Settings"]);
    await waitFor("the settings window closed", async () =>
      (await windows()).every((w) => w.title !== "YUI · Settings"),
    );
    expect(shell.child.exitCode).toBeNull();
    // Listing windows while one is being destroyed can fail once; the characters' windows are there when it settles.
    await waitFor(
      "the characters' windows alone",
      async () =>
        (await windows())
          .map((w) => w.title)
          .sort()
          .join() === "Mio,Yui",
    );
  });

  it("opens a second character opened as a pet in a window of her own, and closes it with her", async () => {
    // Mio is open as a pet from the start: closed, her window goes; opened again, it comes back.
    closePet(host.store, "mio");
    await waitFor("Mio's window closed", async () => (await windows()).every((w) => w.title !== "Mio"));
    openPet(host.store, "mio");
    const opened = await waitFor("Mio's window", async () =>
      (await windows()).find((w) => w.title === "Mio"),
    );
    const props = await desk.x("xprop", ["-id", opened.id]);
    expect(props).toContain('WM_CLASS(STRING) = "yui", "YUI"');
    expect((await windows()).map((w) => w.title).sort()).toEqual(["Mio", "Yui"]);
    // The host places each window it opens beside the last; over the xterm again for the pixels below.
    await place("mio", "Mio", MIO_START);
    const mio = await windowOf("Mio");
    await waitFor("Mio's silhouette", async () => silhouetteOf("mio"), 90_000);
    const shot = await desk.screenshot();
    const [mx, my] = onHer(shot, mio);
    expect(same(shot.at(mx, my), BELOW, 12)).toBe(false);
    expect(shot.at(mio.x + 2, mio.y + 2)).toEqual(BELOW);
    const share = herPixels(shot, mio).length / ((mio.w * mio.h) / 4);
    expect(share).toBeGreaterThan(0.05);
    expect(share).toBeLessThan(0.6);
    writeFileSync(join(SHOTS, "two-characters.png"), shot.png);
  });

  it("declares a pet window's tools (browser among them) and runs browser there", async () => {
    backend.enqueue(
      {
        body: chatStream({ calls: [{ id: "m-browser", name: "browser", arguments: '{"code":"return 1"}' }] }),
      },
      { body: chatStream({ text: ["Mio here."] }) },
    );
    const first = backend.requests.length;
    const body = await say(await windowOf("Mio"), "hello Mio");
    expect(body.messages.at(-1)).toEqual({ role: "user", content: "hello Mio" });
    expect(declared(body)).toEqual(["generate_express", "rate_relation", "address_character", "browser"]);
    expect(await toolResults(first)).toEqual({ "m-browser": "error: browser is off" });
    await waitFor("the reply in Mio's history", async () => {
      const h = host.store.get("yui.mio.history") as { role: string; content: string }[] | undefined;
      return h?.some((e) => e.role === "assistant" && e.content === "Mio here.");
    });
  });

  it("has a tray icon whose menu resets her position, hides and shows the characters", async () => {
    expect(messages.find((m) => m.type === "ready")).toMatchObject({ tray: true });
    const icon = await waitFor("the tray icon", () => trayIcon());
    // The host moves her (the contract's move), then the tray's Reset positions puts her back.
    shell.send({ type: "move", id: "yui", x: 100, y: 100 });
    await waitFor("her window moved", async () => (await windowOf("Yui")).x === 100);
    await fromHerMenu(...icon, TRAY("reset-position"));
    await waitFor("her window back at its start", async () => {
      const n = await windowOf("Yui");
      return n.x === START.x && n.y === START.y;
    });
    await fromHerMenu(...icon, TRAY("hide"));
    await waitFor("both hidden", async () => (await windows()).length === 0);
    await fromHerMenu(...icon, TRAY("show"));
    await waitFor(
      "both shown",
      async () =>
        (await windows())
          .map((w) => w.title)
          .sort()
          .join() === "Mio,Yui",
    );
    // Shown again, she takes clicks only on her silhouette: a transparent pixel still passes to the xterm.
    const w = await windowOf("Yui");
    const before = presses();
    await click(w.x + 20, w.y + Math.round(w.h / 2));
    await waitFor("the click in the xterm", async () => presses() === before + 1, 10_000);
  });

  it("opens her input from anywhere with the global shortcut (Ctrl+Alt+Y)", async () => {
    expect(messages.find((m) => m.type === "ready")).toMatchObject({ shortcut: "<Ctrl><Alt>y" });
    const w = await windowOf("Yui");
    // The keyboard is elsewhere first: a click in the xterm.
    await click(...ON_XTERM);
    backend.enqueue({ body: chatStream({ text: ["Right here."] }) });
    const asked = backend.requests.length;
    await desk.x("xdotool", ["key", "ctrl+alt+y"]);
    await waitFor("her input", async () => {
      const shot = await desk.screenshot();
      return !same(shot.at(w.x + 40, w.y + w.h - 30), BELOW, 12);
    });
    await desk.x("xdotool", ["type", "--delay", "30", "via the shortcut"]);
    await desk.x("xdotool", ["key", "Return"]);
    await waitFor("the message at the backend", async () => backend.requests.length > asked);
    const body = backend.requests[asked]!.body as { messages: { role: string; content: string }[] };
    expect(body.messages.at(-1)).toEqual({ role: "user", content: "via the shortcut" });
  });

  it("keeps her on a visible monitor when the monitors change", async () => {
    const yui = await windowOf("Yui");
    const mio = await windowOf("Mio");
    expect(messages.filter((m) => m.type === "mapped" && m.id === "yui").at(-1)).toMatchObject({
      monitor: 0,
    });
    // The screen shrinks to 800×600 (RandR): her window's centre is off every work area, Mio's is not.
    await desk.x("xrandr", ["--fb", "800x600"]).catch(() => "");
    try {
      await shrunk(yui, mio);
    } finally {
      // Back to the whole screen for the other tests (her window goes home in their beforeEach).
      await desk.x("xrandr", ["--fb", "1280x800"]).catch(() => "");
      await waitFor(
        "the whole screen again",
        async () => messages.findLast((m) => m.type === "monitors")?.monitors[0]?.geometry.width === 1280,
      );
    }
  });
});

/** What the shell did when the screen shrank to 800×600: the new monitor reported, her window moved in. */
async function shrunk(yui: { x: number }, mio: { x: number; y: number }): Promise<void> {
  await waitFor("the new monitor", async () =>
    messages.some(
      (m) =>
        m.type === "monitors" &&
        m.monitors.length === 1 &&
        m.monitors[0]!.geometry.width === 800 &&
        m.monitors[0]!.workarea.height === 600,
    ),
  );
  const moved = await waitFor("her window moved into the work area", async () => {
    const w = await windowOf("Yui");
    return w.x !== yui.x ? w : undefined;
  });
  // Moved whole into the work area: 800 - 360 across, 600 - 560 down.
  expect(moved).toMatchObject({ x: 440, y: 40 });
  expect(await windowOf("Mio")).toMatchObject({ x: mio.x, y: mio.y });
  writeFileSync(join(SHOTS, "monitor-changed.png"), (await desk.screenshot()).png);
}
