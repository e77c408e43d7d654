import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Host, startHost } from "../host/server/server.ts";
import { floatsToWav, SPEECH_RATE, toSpeechWav, wavSamples } from "../host/voice/pcm16k.ts";
import { startTranscriptionServer } from "../host/voice/transcribe-testing.ts";
import { savePreset } from "../src/app/presets/presets.ts";
import { historyKey } from "../src/protocol/history.ts";
import { LISTEN_KEYS } from "../src/protocol/listen.ts";
import { chatStream, type ScriptedBackend, startScriptedBackend } from "../tools/scripted-backend/server.ts";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../tools/testing/chromium.ts";
import { listenOf, probeListen } from "../tools/testing/listen-probe.ts";

// Listening in the built app: real Chromium whose microphone is a WAV file (Chromium's fake capture device),
// the real host (pocketsphinx transcribes, espeak-ng speaks), the scripted backend.

const REPO = resolve(import.meta.dirname, "..");
const PHRASE = "what time is it";
let out: string;
let dir: string;
let host: Host;
let backend: ScriptedBackend;
let browser: Browser | null = null;

/** Mono samples of the phrase spoken by flite's 16 kHz voice. */
function spoken(text: string): Float32Array {
  const f = join(dir, "phrase.wav");
  execFileSync("flite", ["-voice", "slt", "-t", text, "-o", f]);
  return wavSamples(toSpeechWav(readFileSync(f))!.wav)!.samples;
}
const silence = (ms: number) => new Float32Array(Math.round((ms / 1000) * SPEECH_RATE));
/** White noise at an RMS of about 0.05 (a fan, a street), from a fixed seed. */
function noise(ms: number): Float32Array {
  let seed = 7;
  return Float32Array.from({ length: Math.round((ms / 1000) * SPEECH_RATE) }, () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return ((seed / 2 ** 31) * 2 - 1) * 0.087;
  });
}
/** Writes the microphone's recording: the parts one after another. */
function recording(name: string, ...parts: Float32Array[]): string {
  const all = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    all.set(p, o);
    o += p.length;
  }
  const f = join(dir, `${name}.wav`);
  writeFileSync(f, floatsToWav(all, SPEECH_RATE));
  return f;
}

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), "yui-listen-dist-"));
  const { build } = await import("vite");
  await build({
    configFile: join(REPO, "vite.config.ts"),
    logLevel: "warn",
    build: { outDir: out, emptyOutDir: true },
  });
  dir = mkdtempSync(join(tmpdir(), "yui-listen-app-"));
  backend = await startScriptedBackend();
  host = await startHost({ port: 0, dataDir: dir, distDir: out, env: {}, browserCommands: false });
  savePreset(host.store, {
    id: "yui",
    name: "YUI",
    avatar: "",
    voice: "",
    persona: "",
    backend: { transport: "chat", base_url: backend.url },
  });
}, 240_000);

afterEach(async () => {
  await browser?.close();
  browser = null;
  host.store.delete(LISTEN_KEYS.settings);
  host.store.delete(historyKey("yui"));
});

afterAll(async () => {
  await host?.close();
  await backend?.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(out, { recursive: true, force: true });
});

/** Chromium whose microphone plays `wav` once from the moment it is opened (then silence). */
async function open(wav: string, view = "main&stage=off"): Promise<Page> {
  browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      ...CHROMIUM_ARGS,
      "--use-fake-ui-for-media-stream",
      "--use-fake-device-for-media-stream",
      `--use-file-for-fake-audio-capture=${wav}%noloop`,
    ],
  });
  const page = await browser.newPage();
  await probeListen(page);
  await page.goto(host.launchUrl(`${host.url}?view=${view}`));
  await page.waitForFunction(() => document.body.dataset.ready === "true");
  return page;
}

/** The listening timeline of the page's panel (the probe's). */
const timeline = async (page: Page) =>
  (await listenOf(page, "yui")).timeline.map((e) => ({ type: e.type, text: e.text }));

/** What the user's messages to the backend said, in order. */
const userMessages = () =>
  backend.requests.map((r) => {
    const m = (r.body as { messages: { role: string; content: string }[] }).messages;
    return m.filter((x) => x.role === "user").at(-1)?.content;
  });

describe("listening in the app", () => {
  it("hands-free: silence and noise make no turn, the utterance after them makes exactly one", async () => {
    const before = backend.requests.length;
    const wav = recording(
      "hands-free",
      silence(1000),
      noise(2500),
      silence(1500),
      spoken(PHRASE),
      silence(2500),
    );
    host.store.set(LISTEN_KEYS.settings, { hands_free: true }, "test");
    backend.enqueue({ body: chatStream({ text: ["It is noon."], finish: "stop" }) });
    const page = await open(wav);
    const panel = page.getByTestId("panel-yui");
    // The indicator is on while the microphone is open.
    await expect
      .poll(() => panel.getByTestId("listening").textContent(), { timeout: 60_000 })
      .toBe("Listening");
    await expect
      .poll(() => panel.locator(".msg.user").allTextContents(), { timeout: 60_000 })
      .toEqual([PHRASE]);
    await expect
      .poll(() => panel.locator(".msg.assistant").last().textContent(), { timeout: 30_000 })
      .toBe("It is noon.");
    // The positive control heard: one utterance, transcribed once; the noise and the silence before it made none.
    const t = await timeline(page);
    expect(t.filter((e) => e.type === "transcript")).toEqual([{ type: "transcript", text: PHRASE }]);
    expect(backend.requests.length - before).toBe(1);
    expect(userMessages().at(-1)).toBe(PHRASE);
    // One click on the indicator turns hands-free off and closes the microphone.
    await panel.getByTestId("listening").click();
    await expect.poll(() => panel.getByTestId("listening").isHidden()).toBe(true);
    // The page's write reaches the host over the bridge; the microphone closes.
    await expect.poll(() => host.store.get(LISTEN_KEYS.settings)).toEqual({ hands_free: false });
    await expect.poll(async () => (await timeline(page)).at(-1)?.type).toBe("close");
  }, 180_000);

  it("push-to-talk: held, the words appear in the input; let go, they are sent (button, space bar, empty input)", async () => {
    const before = backend.requests.length;
    // Long enough after the phrase for a partial transcript (every 1.5 s of audio) to cover all of it.
    const wav = recording("push-to-talk", silence(300), spoken(PHRASE), silence(4000));
    backend.enqueue(
      { body: chatStream({ text: ["It is noon."], finish: "stop" }) },
      { body: chatStream({ text: ["Still noon."], finish: "stop" }) },
      { body: chatStream({ text: ["Noon again."], finish: "stop" }) },
    );
    const page = await open(wav);
    const panel = page.getByTestId("panel-yui");
    // Hands-free is off: the microphone is not open.
    expect(await panel.getByTestId("listening").isHidden()).toBe(true);
    expect(await timeline(page)).toEqual([]);
    await panel.getByTestId("talk").hover();
    await page.mouse.down();
    await expect
      .poll(() => panel.getByTestId("listening").textContent(), { timeout: 30_000 })
      .toBe("Talking — let go to send");
    // The transcript shows in the input while the button is held.
    await expect.poll(() => panel.getByTestId("input").inputValue(), { timeout: 60_000 }).toBe(PHRASE);
    expect(backend.requests.length).toBe(before);
    await page.mouse.up();
    await expect
      .poll(() => panel.locator(".msg.user").allTextContents(), { timeout: 60_000 })
      .toEqual([PHRASE]);
    await expect
      .poll(() => panel.locator(".msg.assistant").last().textContent(), { timeout: 30_000 })
      .toBe("It is noon.");
    expect(await panel.getByTestId("input").inputValue()).toBe("");
    await expect.poll(() => panel.getByTestId("listening").isHidden()).toBe(true);

    // The space bar, with nothing editable focused, does the same.
    await panel.locator(".log").click();
    await page.keyboard.down("Space");
    await expect.poll(() => panel.getByTestId("input").inputValue(), { timeout: 60_000 }).toBe(PHRASE);
    await page.keyboard.up("Space");
    await expect
      .poll(() => panel.locator(".msg.user").allTextContents(), { timeout: 60_000 })
      .toEqual([PHRASE, PHRASE]);
    // And in the empty input (Ctrl+Alt+Y opens it on the desktop): holding the space bar talks, types nothing.
    await panel.getByTestId("input").focus();
    await page.keyboard.down("Space");
    await expect.poll(() => panel.getByTestId("input").inputValue(), { timeout: 60_000 }).toBe(PHRASE);
    await page.keyboard.up("Space");
    await expect
      .poll(() => panel.locator(".msg.user").allTextContents(), { timeout: 60_000 })
      .toEqual([PHRASE, PHRASE, PHRASE]);
    expect(backend.requests.length - before).toBe(3);
    expect(userMessages().slice(-3)).toEqual([PHRASE, PHRASE, PHRASE]);
  }, 180_000);

  it("the user speaking over her reply stops her voice and her turn; what was said is the next turn", async () => {
    const before = backend.requests.length;
    const wav = recording("interrupt", silence(1500), spoken(PHRASE), silence(2500));
    const story = Array.from({ length: 20 }, (_, i) => `This is sentence number ${i + 1} of a long story. `);
    const events = chatStream({ text: story, finish: "stop" }).split(/(?<=\n\n)/);
    backend.enqueue(
      { body: events, chunkDelayMs: 700 },
      { body: chatStream({ text: ["It is noon."], finish: "stop" }) },
    );
    const page = await open(wav);
    const panel = page.getByTestId("panel-yui");
    await panel.getByTestId("input").fill("Tell me a story");
    await panel.getByTestId("input").press("Enter");
    // She speaks (espeak-ng through the host) while the reply streams; then hands-free opens the microphone,
    // whose recording starts with 1.5 s of silence: the user speaks over her.
    await expect
      .poll(() => panel.evaluate((el) => el.classList.contains("speaking")), { timeout: 30_000 })
      .toBe(true);
    host.store.set(LISTEN_KEYS.settings, { hands_free: true }, "test");
    await expect.poll(() => panel.getByTestId("listening").isVisible(), { timeout: 60_000 }).toBe(true);
    await expect
      .poll(async () => (await timeline(page)).some((e) => e.type === "interrupt"), { timeout: 60_000 })
      .toBe(true);
    // Her voice stopped and her turn with it: the reply is cut short, and what the user said went next.
    await expect
      .poll(() => panel.evaluate((el) => el.classList.contains("speaking")), { timeout: 5_000 })
      .toBe(false);
    await expect
      .poll(() => panel.locator(".msg.user").allTextContents(), { timeout: 60_000 })
      .toEqual(["Tell me a story", PHRASE]);
    await expect
      .poll(() => panel.locator(".msg.assistant").last().textContent(), { timeout: 30_000 })
      .toBe("It is noon.");
    const cut = (await panel.locator(".msg.assistant").first().textContent()) ?? "";
    expect(cut.length).toBeGreaterThan(0);
    expect(cut.length).toBeLessThan(story.join("").length);
    expect(backend.requests.length - before).toBe(2);
    expect(userMessages().slice(-2)).toEqual(["Tell me a story", PHRASE]);
  }, 180_000);

  it("Settings → Listening saves an OpenAI-compatible engine with its key; Quick controls turn hands-free on; a turn goes through it", async () => {
    const KEY = "sk-listen-settings-e2e";
    const stt = await startTranscriptionServer("Good morning.");
    try {
      const wav = recording("settings", silence(800), spoken(PHRASE), silence(2500));
      const settings = await open(wav, "settings");
      await settings.getByTestId("listen-engine").selectOption("openai");
      await settings.getByTestId("listen-base-url").fill(stt.url);
      await settings.getByTestId("listen-language").fill("en");
      await settings.getByTestId("listen-sensitivity").fill("0.7");
      await settings.getByTestId("listen-key").fill(KEY);
      await settings.getByTestId("save-listen").click();
      await expect.poll(() => settings.getByTestId("listen-verdict").textContent()).toBe("Saved.");
      await expect
        .poll(() => host.store.get(LISTEN_KEYS.settings))
        .toEqual({
          hands_free: false,
          engine: "openai",
          base_url: stt.url,
          language: "en",
          sensitivity: 0.7,
        });
      // Kept with the origin of the base it was saved for (docs/app.md "Security model").
      expect(host.store.get(LISTEN_KEYS.apiKey)).toEqual({ key: KEY, origins: [new URL(stt.url).origin] });
      expect(await settings.content()).not.toContain(KEY);
      // The settings window never opens the microphone.
      expect(
        await settings.evaluate(() => Object.keys((window as { __yuiListen?: object }).__yuiListen ?? {})),
      ).toEqual([]);

      const quick = await browser!.newPage();
      await quick.goto(host.launchUrl(`${host.url}?view=quick`));
      await quick.waitForFunction(() => document.body.dataset.ready === "true");
      await quick.getByTestId("hands-free").check();
      await expect
        .poll(() => (host.store.get(LISTEN_KEYS.settings) as { hands_free: boolean }).hands_free)
        .toBe(true);

      backend.enqueue({ body: chatStream({ text: ["Morning!"], finish: "stop" }) });
      const main = await browser!.newPage();
      await main.goto(host.launchUrl(`${host.url}?view=main&stage=off`));
      const panel = main.getByTestId("panel-yui");
      await expect
        .poll(() => panel.locator(".msg.user").allTextContents(), { timeout: 60_000 })
        .toEqual(["Good morning."]);
      const sent = stt.requests.at(-1)!;
      expect(sent.fields).toEqual({ model: "whisper-1", language: "en", response_format: "json" });
      expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(sent.file?.type).toBe("audio/wav");
      expect(await main.content()).not.toContain(KEY);
    } finally {
      host.store.delete(LISTEN_KEYS.apiKey);
      await stt.close();
    }
  }, 180_000);
});
