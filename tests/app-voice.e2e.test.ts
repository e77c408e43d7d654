import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Host, startHost } from "../host/server/server.ts";
import { VOCABULARY_FILE } from "../host/vocabulary-source.ts";
import { type SpeechServer, startSpeechServer } from "../host/voice/testing.ts";
import { getPreset, savePreset } from "../src/app/presets/presets.ts";
import { VOICE_KEYS } from "../src/protocol/voice.ts";
import { ELEVENLABS_V3_TAGS } from "../src/voice/engines.ts";
import {
  chatStream,
  type ScriptedBackend,
  sse,
  startScriptedBackend,
} from "../tools/scripted-backend/server.ts";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../tools/testing/chromium.ts";
import { probeStage } from "../tools/testing/stage-probe.ts";

// The voice in the built app: the real host (espeak-ng, no engine configured: the first run's default), the
// scripted backend, Chromium without any autoplay flag (the user's Enter is the gesture that lets audio start).

const REPO = resolve(import.meta.dirname, "..");
let out: string;
let dataDir: string;
let host: Host;
let backend: ScriptedBackend;
let browser: Browser;
let speech: SpeechServer;

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), "yui-voice-dist-"));
  const { build } = await import("vite");
  await build({
    configFile: join(REPO, "vite.config.ts"),
    logLevel: "warn",
    build: { outDir: out, emptyOutDir: true },
  });
  dataDir = mkdtempSync(join(tmpdir(), "yui-voice-app-"));
  backend = await startScriptedBackend();
  speech = await startSpeechServer();
  host = await startHost({ port: 0, dataDir, distDir: out, env: {}, browserCommands: false });
  savePreset(host.store, {
    id: "yui",
    name: "YUI",
    avatar: "",
    voice: "",
    persona: "",
    backend: { transport: "chat", base_url: backend.url },
  });
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await host?.close();
  await backend?.close();
  await speech?.close();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(out, { recursive: true, force: true });
});

async function open(view: string, stage = false): Promise<Page> {
  const page = await browser.newPage();
  await probeStage(page);
  // Through a one-time launch URL, as `npm start` opens the browser build: the window is signed in.
  await page.goto(host.launchUrl(`${host.url}?view=${view}${stage ? "" : "&stage=off"}`));
  await page.waitForFunction(() => document.body.dataset.ready === "true");
  return page;
}

/** Records, in the page, every sentence it marks as spoken from now on; the answer reads them, in order. */
async function marksSeen(page: Page): Promise<() => Promise<string[]>> {
  await page.evaluate(() => {
    const seen: string[] = [];
    (window as unknown as { marksSeen: string[] }).marksSeen = seen;
    new MutationObserver(() => {
      const m = document.querySelector("mark[data-testid=speaking]");
      if (m?.textContent) seen.push(m.textContent);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  return () => page.evaluate(() => (window as unknown as { marksSeen: string[] }).marksSeen);
}

/**
 * Sends a message and records the texts the page asks the host to speak from then on, in order: this reply's,
 * and every later one's on the same page.
 */
async function say(page: Page, text: string, reply: string[], shown = reply.join("")): Promise<string[]> {
  const spoken: string[] = [];
  page.on("request", (r) => {
    if (r.url().includes("/api/voice/")) spoken.push(JSON.parse(r.postData() ?? "{}").text);
  });
  backend.enqueue({ body: chatStream({ text: reply, finish: "stop" }) });
  const panel = page.getByTestId("panel-yui");
  await panel.getByTestId("input").fill(text);
  await panel.getByTestId("input").press("Enter");
  await expect
    .poll(() => panel.locator(".msg.assistant").last().textContent(), { timeout: 20_000 })
    .toBe(shown);
  return spoken;
}

describe("voice in the app", () => {
  it("the first run speaks the reply with the local engine, marking each sentence as it is spoken", async () => {
    const page = await open("main");
    const panel = page.getByTestId("panel-yui");
    const marks = await marksSeen(page);
    const spoken = await say(page, "Hello", ["Hi! ", "I'm YUI. ", "Nice to meet you."]);
    await expect.poll(() => spoken, { timeout: 20_000 }).toEqual(["Hi!", "I'm YUI.", "Nice to meet you."]);
    // Each sentence was marked while it sounded, in order; then the mark is gone and the words are unchanged.
    await expect
      .poll(async () => [...new Set(await marks())], { timeout: 30_000 })
      .toEqual(["Hi!", "I'm YUI.", "Nice to meet you."]);
    await expect.poll(() => panel.locator("mark").count(), { timeout: 20_000 }).toBe(0);
    expect(await panel.locator(".msg.assistant").last().textContent()).toBe("Hi! I'm YUI. Nice to meet you.");
    expect(await panel.getByTestId("voice-note").count()).toBe(0);
    await page.close();
  }, 90_000);

  it("on the stage: the cue lands on its sentence, the mouth moves with the sound and rests after", async () => {
    const page = await open("main", true);
    const panel = page.getByTestId("panel-yui");
    type Probe = { emotion: string | null; mouth: number; mark: string | null };
    const probe = () =>
      page.evaluate((): Probe => {
        const stage = (
          window as unknown as {
            __yuiStage?: { inspect(): { emotion: string | null; expressions: Record<string, number> } };
          }
        ).__yuiStage;
        const i = stage?.inspect();
        const e = i?.expressions ?? {};
        return {
          emotion: i?.emotion ?? null,
          mouth: Math.max(...["aa", "ih", "ou", "ee", "oh"].map((k) => e[k] ?? 0)),
          mark: document.querySelector("mark[data-testid=speaking]")?.textContent ?? null,
        };
      });
    await page.waitForFunction(
      () =>
        (window as unknown as { __yuiStage?: { inspect(): { loaded: string | null } } }).__yuiStage?.inspect()
          .loaded,
      null,
      { timeout: 60_000 },
    );
    // Responses places the cue where the call arrives: after the first sentence, so it belongs to the second.
    savePreset(host.store, {
      ...getPreset(host.store, "yui")!,
      backend: { transport: "responses", base_url: backend.url },
    });
    const call = { type: "function_call", id: "fc_e1", call_id: "e1", name: "generate_express" };
    const args = JSON.stringify({ emotion_id: "happy" });
    backend.enqueue({
      body: sse(
        {
          event: "response.created",
          data: { type: "response.created", response: { id: "r1", status: "in_progress" } },
        },
        ...[
          {
            type: "response.output_text.delta",
            output_index: 0,
            content_index: 0,
            delta: "Hello there, my friend. ",
          },
          { type: "response.output_item.added", output_index: 1, item: { ...call, arguments: "" } },
          {
            type: "response.function_call_arguments.done",
            item_id: "fc_e1",
            output_index: 1,
            arguments: args,
          },
          { type: "response.output_item.done", output_index: 1, item: { ...call, arguments: args } },
          {
            type: "response.output_text.delta",
            output_index: 2,
            content_index: 0,
            delta: "It is so good to see you again today.",
          },
          { type: "response.completed", response: { id: "r1", status: "completed", output: [] } },
        ].map((e) => ({ event: e.type, data: e })),
      ),
    });
    await panel.getByTestId("input").fill("Hi");
    await panel.getByTestId("input").press("Enter");
    const seen: Probe[] = [];
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const p = await probe();
      seen.push(p);
      if (seen.some((x) => x.emotion === "happy") && p.mark === null && p.mouth === 0) break;
      await page.waitForTimeout(30);
    }
    const firstHappy = seen.find((x) => x.emotion === "happy")!;
    expect(firstHappy).toBeDefined();
    // Happy came with the second sentence's audio, not while the first was spoken.
    expect(seen.some((x) => x.mark === "Hello there, my friend." && x.emotion !== "happy")).toBe(true);
    expect(seen.filter((x) => x.mark === "Hello there, my friend.").every((x) => x.emotion !== "happy")).toBe(
      true,
    );
    expect(firstHappy.mark).toBe("It is so good to see you again today.");
    // The mouth moved while she spoke and rests shut after.
    expect(Math.max(...seen.filter((x) => x.mark).map((x) => x.mouth))).toBeGreaterThan(0.1);
    expect(seen.at(-1)!.mouth).toBe(0);
    savePreset(host.store, {
      ...getPreset(host.store, "yui")!,
      backend: { transport: "chat", base_url: backend.url },
    });
    await page.close();
  }, 120_000);

  it("Stop silences her mid-speech; quick controls mute every voice and turn one character's off", async () => {
    const page = await open("main");
    const panel = page.getByTestId("panel-yui");
    const long = [
      "This is a long first sentence that keeps her talking for a while. ",
      "Then a second one. ",
      "And a third.",
    ];
    const marks = await marksSeen(page);
    const spoken = await say(page, "Tell me", long);
    await expect.poll(() => panel.locator("mark").count(), { timeout: 20_000 }).toBe(1);
    await panel.getByTestId("stop").click();
    expect(await panel.locator("mark").count()).toBe(0);
    await expect.poll(() => panel.getByTestId("stop").isHidden()).toBe(true);
    expect(spoken.length).toBeGreaterThan(0);
    // From here on, what is spoken and marked is checked once a later reply has been heard (below): had the
    // stopped reply, the muted one or the one with her voice off sounded, it would show before that one.
    const afterStop = { spoken: spoken.length, marks: (await marks()).length };

    const quick = await open("quick");
    await quick.getByTestId("voice-mute").check();
    await expect.poll(() => host.store.get(VOICE_KEYS.global)).toEqual({ muted: true });
    await say(page, "Still there?", ["Yes. ", "Quietly."]);
    expect(await panel.locator("mark").count()).toBe(0);

    await quick.getByTestId("voice-mute").uncheck();
    await quick.getByTestId("voice-yui").uncheck();
    await expect.poll(() => host.store.get(VOICE_KEYS.preset("yui"))).toEqual({ enabled: false });
    await say(page, "And now?", ["Still quiet."]);

    // The positive control: with her voice back on, a reply is spoken and marked (the setting reaches the
    // page through the host's push, so the first message after the switch may still find her voice off).
    await quick.getByTestId("voice-yui").check();
    await expect
      .poll(
        async () => {
          if (!spoken.slice(afterStop.spoken).includes("Here I am."))
            await say(page, "Speak again", ["Here I am."]);
          return (await marks()).slice(afterStop.marks).includes("Here I am.");
        },
        { timeout: 20_000 },
      )
      .toBe(true);
    expect(new Set(spoken.slice(afterStop.spoken))).toEqual(new Set(["Here I am."]));
    expect(new Set((await marks()).slice(afterStop.marks))).toEqual(new Set(["Here I am."]));
    await quick.close();
    await page.close();
  }, 90_000);

  it("does not read out a [SILENT] reply", async () => {
    const page = await open("main");
    const spoken = await say(page, "Shh", ["[SILENT]"], "(no reply)");
    // The positive control: the next reply is read out; the silent one, had it been, would come before it.
    await say(page, "And this?", ["Out loud."]);
    await expect.poll(() => spoken, { timeout: 20_000 }).toContain("Out loud.");
    expect(spoken).toEqual(["Out loud."]);
    await page.close();
  });

  it("Settings: a character's OpenAI-compatible voice with its key, Test voice, and the ElevenLabs v3 tags", async () => {
    const page = await open("settings");
    const KEY = "sk-voice-settings-e2e";
    await page.getByTestId("voice-engine").selectOption("openai");
    await page.getByTestId("voice-base-url").fill(speech.url);
    await page.getByTestId("voice-voice").fill("shimmer");
    await page.getByTestId("voice-key").fill(KEY);
    expect(await page.getByTestId("voice-use-tags").isHidden()).toBe(true);
    await page.getByTestId("test-voice").click();
    await expect
      .poll(() => page.getByTestId("voice-verdict").textContent(), { timeout: 20_000 })
      .toBe("Spoken with openai.");
    expect(host.store.get(VOICE_KEYS.preset("yui"))).toEqual({
      enabled: true,
      engine: "openai",
      base_url: speech.url,
      voice: "shimmer",
    });
    const sent = speech.requests.at(-1)!;
    expect(sent.body).toMatchObject({ voice: "shimmer", input: "Hello, I am YUI." });
    expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(await page.content()).not.toContain(KEY);

    await page.getByTestId("voice-engine").selectOption("elevenlabs");
    await page.getByTestId("voice-use-tags").click();
    await expect
      .poll(() => page.getByTestId("voice-verdict").textContent())
      .toBe(`The vocabulary's voice is now ElevenLabs v3 with its ${ELEVENLABS_V3_TAGS.length} audio tags.`);
    const vocab = JSON.parse(readFileSync(join(dataDir, VOCABULARY_FILE), "utf8"));
    expect(vocab.voice).toEqual({ engine: "elevenlabs", mode: "enum", tags: ELEVENLABS_V3_TAGS });
    await page.close();
  }, 90_000);
});
