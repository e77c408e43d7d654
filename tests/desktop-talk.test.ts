/**
 * The desktop app's global hold-to-talk key (docs/voice.md#listening) in the real app: host, gjs shell and main's
 * page on Xvfb with openbox, the key held and let go by xdotool. WebKitGTK's microphone here is its mock capture
 * device (YUI_SHELL_MOCK_MIC: a generated tone, not speech, since Xvfb has no microphone and WebKit has no way to
 * play a file as one), so the words come from the scripted OpenAI-compatible transcription server; the audio
 * the page recorded while the key was held reaches it, and the text it answers is sent to the scripted backend.
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
import type { ShellToHost } from "../shell/contract.ts";
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
const fromShell: ShellToHost[] = [];

beforeAll(async () => {
  x = await startXSession();
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
  app.shell.on((m) => fromShell.push(m));
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
