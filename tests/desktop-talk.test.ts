/**
 * The desktop app's global hold-to-talk key (docs/voice.md#listening) in the real app: host, gjs shell and main's
 * page on Xvfb with openbox, the key held and let go by xdotool. WebKitGTK's microphone here is its mock capture
 * device (YUI_SHELL_MOCK_MIC: a generated tone, not speech, since Xvfb has no microphone and WebKit has no way to
 * play a file as one), so the words come from the scripted OpenAI-compatible transcription server; the audio
 * the page recorded while the key was held reaches it, and the text it answers is sent to the scripted backend.
 * And the tray's hands-free entry (the tray icon embedded in a real system tray, trayer), chosen with the keyboard.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DesktopApp, startDesktopApp } from "../host/desktop/desktop-cli.ts";
import { openStore } from "../host/store/store.ts";
import { wavSamples } from "../host/voice/pcm16k.ts";
import { startTranscriptionServer, type TranscriptionServer } from "../host/voice/transcribe-testing.ts";
import { startXSession, waitFor, type XSession } from "../host/x11/testing.ts";
import { menuOf } from "../shell/core.js";
import { grabRoot, sameColour, windowsOfClass } from "../shell/gtk/testing/x-desktop.ts";
import { savePreset } from "../src/app/presets/presets.ts";
import { LISTEN_KEYS } from "../src/protocol/listen.ts";
import { characterPreset } from "../src/protocol/preset.ts";
import { chatStream, type ScriptedBackend, startScriptedBackend } from "../tools/scripted-backend/server.ts";

const SAID = "Hello from the hold key.";
let x: XSession;
let app: DesktopApp;
let dataDir = "";
let backend: ScriptedBackend;
let stt: TranscriptionServer;
const shellLog: string[] = [];

/** Where YUI's tray icon is (embedded in trayer): its centre. */
async function trayIcon(): Promise<[number, number] | undefined> {
  const tree = await x.x("xwininfo", ["-root", "-tree"]);
  const m = /\("yui" "yui"\)\s+(\d+)x(\d+)\+-?\d+\+-?\d+\s+\+(-?\d+)\+(-?\d+)/.exec(tree);
  if (!m) return undefined;
  const [w, h, left, top] = m.slice(1).map(Number) as [number, number, number, number];
  return [left + Math.floor(w / 2), top + Math.floor(h / 2)];
}

/** Opens the tray's menu and chooses `action`'s entry (Down presses read from the core's table). */
async function fromTray(action: string): Promise<void> {
  const [ix, iy] = await waitFor("the tray icon", () => trayIcon());
  const downs =
    menuOf("tray", true, true)
      .filter((e) => e !== null)
      .findIndex((e) => e.action === action) + 1;
  await x.x("xdotool", ["mousemove", String(ix), String(iy), "click", "3"]);
  await waitFor("the tray's menu", async () => (await windowsOfClass(x, "gjs")).length > 0, 10_000);
  await x.x("xdotool", ["key", ...Array<string>(downs).fill("Down"), "Return"]);
  await waitFor("the menu closed", async () => (await windowsOfClass(x, "gjs")).length === 0, 10_000);
}

/** The listening mark's red (styles.css --bad) over her: how many of her window's pixels have it. */
async function markPixels(): Promise<number> {
  const her = (await windowsOfClass(x, "yui")).find((w) => w.w > 64);
  if (!her) throw new Error("her window is not on the desktop");
  const shot = await grabRoot(x.env);
  let n = 0;
  for (let py = her.y; py < her.y + her.h; py += 2)
    for (let px = her.x; px < her.x + her.w; px += 2)
      if (sameColour(shot.at(px, py), [0xc0, 0x39, 0x2b], 8)) n++;
  return n;
}

const handsFree = () => (app.host.store.get(LISTEN_KEYS.settings) as { hands_free: boolean }).hands_free;

beforeAll(async () => {
  x = await startXSession();
  // A system tray (XEmbed) at the top left, for YUI's tray icon.
  x.start([
    "trayer",
    "--edge",
    "top",
    "--align",
    "left",
    "--widthtype",
    "pixel",
    "--width",
    "120",
    "--height",
    "24",
  ]);
  dataDir = mkdtempSync(join(tmpdir(), "yui-talk-"));
  backend = await startScriptedBackend();
  stt = await startTranscriptionServer(SAID);
  const seed = openStore(dataDir);
  savePreset(seed, characterPreset("yui", "YUI", { transport: "chat", base_url: backend.url }), "test");
  // The scripted transcription server stands in for the words (the mock microphone plays a tone).
  seed.set(LISTEN_KEYS.settings, { hands_free: false, engine: "openai", base_url: stt.url }, "test");
  seed.set("yui.voice", { muted: true }, "test");
  seed.close();
  app = await startDesktopApp({
    port: 0,
    env: { ...x.env, LIBGL_ALWAYS_SOFTWARE: "1", YUI_DATA_DIR: dataDir, YUI_SHELL_MOCK_MIC: "1" },
    dataDir,
    onQuit: () => {},
    log: (l) => shellLog.push(l),
  });
  // Main's page loaded (its body attached over the bridge).
  await waitFor("main's page", async () => app.host.body.current() !== null, 90_000);
}, 180_000);

afterAll(async () => {
  await app?.stop();
  await stt?.close();
  await backend?.close();
  await x?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe("the global hold-to-talk key", () => {
  it("records while Ctrl+Alt+Space is held and sends what was said when it is let go", async () => {
    expect(app.talkKey?.accelerator).toBe("<Ctrl><Alt>space");
    backend.enqueue({ body: chatStream({ text: ["I heard you."], finish: "stop" }) });
    const asked = backend.requests.length;
    await x.x("xdotool", ["keydown", "ctrl+alt+space"]);
    // While held: the microphone granted to her page, and the words so far transcribed (every 1.5 s of audio).
    await waitFor("a partial transcript while held", async () => stt.requests.length >= 1, 60_000);
    expect(shellLog.some((l) => l.includes("microphone granted"))).toBe(true);
    // Nothing is sent while the key is down.
    expect(backend.requests.length).toBe(asked);
    const partials = stt.requests.length;
    await x.x("xdotool", ["keyup", "space"]);
    await x.x("xdotool", ["keyup", "ctrl+alt"]);
    await waitFor("her next message at the backend", async () => backend.requests.length > asked, 60_000);
    const body = backend.requests[asked]!.body as { messages: { role: string; content: string }[] };
    expect(body.messages.at(-1)).toEqual({ role: "user", content: SAID });
    expect(backend.requests.length).toBe(asked + 1);
    // The whole recording went to the engine after the release: 16 kHz audio longer than the first partial's.
    const last = stt.requests.at(-1)!;
    expect(stt.requests.length).toBeGreaterThan(partials);
    const whole = wavSamples(last.file!.bytes)!;
    const first = wavSamples(stt.requests[0]!.file!.bytes)!;
    expect(whole.rate).toBe(16_000);
    expect(whole.samples.length).toBeGreaterThan(first.samples.length);
  }, 120_000);
});

describe("hands-free from the tray", () => {
  it("turns hands-free on and off, following the switch wherever it changed", async () => {
    expect(app.ready.tray).toBe(true);
    expect(handsFree()).toBe(false);
    // Before: no mark on her (the positive control below: the same count finds it once the microphone is open).
    expect(await markPixels()).toBeLessThan(20);
    await fromTray("hands-free");
    await waitFor("hands-free on", async () => handsFree(), 10_000);
    // Main's page follows the store: it opens the microphone, and the listening mark shows on her.
    await waitFor("the listening mark on her", async () => (await markPixels()) > 200, 60_000);
    // Turned off elsewhere (Quick controls write the same key): the menus' entry follows, and the tray turns it on again.
    app.host.store.set(
      LISTEN_KEYS.settings,
      { ...app.host.store.get(LISTEN_KEYS.settings)!, hands_free: false },
      "test",
    );
    await fromTray("hands-free");
    await waitFor("hands-free on again", async () => handsFree(), 10_000);
    await fromTray("hands-free");
    await waitFor("hands-free off", async () => !handsFree(), 10_000);
    await waitFor("the listening mark gone", async () => (await markPixels()) < 20, 30_000);
  }, 120_000);
});
