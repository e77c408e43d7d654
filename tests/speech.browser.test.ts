import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Host, startHost } from "../host/server/server.ts";
import { type SpeechServer, startSpeechServer } from "../host/voice/testing.ts";
import { savePreset } from "../src/app/presets/presets.ts";
import { VOICE_KEYS } from "../src/protocol/voice.ts";
import { startVoiceHarness, type VoiceHarness } from "../src/voice/harness/serve.ts";
import { MOUTH_SHAPES } from "../src/voice/lipsync.ts";

// The page side of the voice in real Chromium: Web Audio playing what the real host synthesized with the
// OpenAI-compatible engine (a scripted speech server that finishes out of order and fails on cue) and with
// espeak-ng. The audio timeline is read through window.voice (the harness's test hook).

let dir: string;
let host: Host;
let speech: SpeechServer;
let h: VoiceHarness;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "yui-voice-page-"));
  speech = await startSpeechServer({
    // "slow" sentences take long to synthesize, so later ones finish first.
    delayMs: (b) => (String(b.input).includes("slow") ? 900 : 0),
    fail: (b) => String(b.input).includes("broken"),
  });
  host = await startHost({ port: 0, dataDir: dir, env: {}, browserCommands: false });
  for (const id of ["yui", "local"]) {
    savePreset(host.store, {
      id,
      name: id,
      avatar: "",
      voice: "",
      persona: "",
      backend: { transport: "chat" },
    });
  }
  host.store.set(VOICE_KEYS.preset("yui"), { enabled: true, engine: "openai", base_url: speech.url }, "test");
  h = await startVoiceHarness(host);
}, 120_000);

afterAll(async () => {
  await h?.close();
  await host?.close();
  await speech?.close();
  rmSync(dir, { recursive: true, force: true });
});

type State = Awaited<ReturnType<typeof window.voice.state>>;
const state = (): Promise<State> => h.page.evaluate(() => window.voice.state());
const feed = async (chunks: string[]) => {
  for (const c of chunks) await h.page.evaluate((t) => window.voice.text(t), c);
};
const untilIdle = () =>
  h.page.waitForFunction(() => window.voice.state().timeline.some((e) => e.type === "idle"), null, {
    timeout: 20_000,
  });
const of = (s: State, type: string) => s.timeline.filter((e) => e.type === type);

describe("speech in Chromium", () => {
  it("plays segments in order although their synthesis finishes out of order", async () => {
    await h.page.evaluate(() => window.voice.create("yui"));
    await feed(["This first sentence is slow to make. ", "Second one. ", "Third", " one here."]);
    await h.page.evaluate(() => window.voice.end());
    await untilIdle();
    // The reply has played out (what the addressed event waits for).
    expect(await h.page.evaluate(() => window.voice.finished())).toBe(true);
    const s = await state();
    // Synthesis: 1 and 2 were ready before 0.
    const ready = of(s, "synthesized").map((e) => e.index);
    expect(ready.indexOf(1)).toBeLessThan(ready.indexOf(0));
    expect(ready.indexOf(2)).toBeLessThan(ready.indexOf(0));
    // Playback: strictly 0, 1, 2, each starting on the audio clock after the previous one ended.
    const starts = of(s, "start");
    const ends = of(s, "end");
    expect(starts.map((e) => e.index)).toEqual([0, 1, 2]);
    expect(ends.map((e) => e.index)).toEqual([0, 1, 2]);
    for (let i = 1; i < 3; i++) expect(starts[i]!.t).toBeGreaterThanOrEqual(ends[i - 1]!.t);
    // Each segment sounded for about its length (the scripted audio lasts 200 ms + 40 ms a character).
    const len = (i: number) => ends[i]!.t - starts[i]!.t;
    expect(len(1)).toBeGreaterThan(0.4);
    expect(len(0)).toBeGreaterThan(len(1));
    expect(starts.map((e) => e.text)).toEqual([
      "This first sentence is slow to make.",
      "Second one.",
      "Third one here.",
    ]);
  });

  it("Stop mid-speech drops the queue and silences at once", async () => {
    await h.page.evaluate(() => window.voice.create("yui"));
    await feed(["A long first sentence to be cut off in the middle. ", "Never heard. ", "Nor this. "]);
    await h.page.waitForFunction(() => window.voice.playing(), null, { timeout: 10_000 });
    const { stoppedAt, played } = await h.page.evaluate(async () => {
      const reply = window.voice.finished();
      window.voice.stop();
      return { stoppedAt: window.voice.now(), played: await reply };
    });
    // A reply stopped while it plays never counts as played out.
    expect(played).toBe(false);
    expect(await h.page.evaluate(() => window.voice.playing())).toBe(false);
    expect(await h.page.evaluate(() => window.voice.active())).toBe(false);
    // The positive control: the audio clock that would have played the queue runs on for 1.2 s after the stop,
    // the time in which the next sentence would have started had the queue survived.
    await h.page.waitForFunction((at) => window.voice.now() > at + 1.2, stoppedAt, { timeout: 20_000 });
    const s = await state();
    expect(of(s, "start").map((e) => e.index)).toEqual([0]);
    expect(of(s, "end")).toEqual([]);
    expect(of(s, "idle")).toEqual([]);
    // The mouth eased shut after the stop and stays shut.
    const after = s.mouths.filter((m) => m.t > stoppedAt + 0.5);
    for (const m of after) expect(Object.values(m.w).every((v) => v === 0)).toBe(true);
  });

  it("skips a failing segment with a note and goes on", async () => {
    await h.page.evaluate(() => window.voice.create("yui"));
    await feed(["Fine one. ", "This one is broken. ", "Last one."]);
    await h.page.evaluate(() => window.voice.end());
    await untilIdle();
    const s = await state();
    expect(of(s, "start").map((e) => e.index)).toEqual([0, 2]);
    expect(s.notes).toEqual([
      { index: 1, message: `The speech server at ${speech.url} answered HTTP 500: scripted failure.` },
    ]);
  });

  it("fires a cue when its sentence's audio starts, and sends its caption with that sentence", async () => {
    await h.page.evaluate(() => window.voice.create("yui"));
    speech.requests.length = 0;
    await feed(["Hello there. "]);
    await h.page.evaluate(() => window.voice.cue(13, { emotion_id: "happy", caption: "beaming" }));
    await feed(["I am so glad to see you. ", "Really."]);
    await h.page.evaluate(() => window.voice.end());
    await untilIdle();
    const s = await state();
    const starts = of(s, "start");
    expect(s.played).toHaveLength(1);
    const played = s.played[0]!;
    expect(played.cue).toEqual({ emotion_id: "happy", caption: "beaming" });
    // Played at the start of sentence 1 on the audio clock, after sentence 0 had sounded.
    expect(played.speaking).toBe(1);
    expect(played.t).toBe(starts[1]!.t);
    expect(played.t).toBeGreaterThan(starts[0]!.t + 0.3);
    const sent = (input: string) => speech.requests.find((r) => r.body.input === input)!.body;
    expect(sent("Hello there.")).not.toHaveProperty("instructions");
    expect(sent("I am so glad to see you.").instructions).toBe("beaming");
    expect(sent("Really.").instructions).toBe("beaming");
  });

  it("moves the mouth with a test tone and rests it in silence", async () => {
    const { samples, from, to } = await h.page.evaluate(() => window.voice.tone());
    const total = (w: Record<string, number>) => MOUTH_SHAPES.reduce((a, k) => a + w[k]!, 0);
    const silent = samples.filter((s) => s.t < from - 0.1 || s.t > to + 0.1);
    const sounding = samples.filter((s) => s.t > from + 0.1 && s.t < to - 0.1);
    expect(silent.length).toBeGreaterThan(5);
    expect(sounding.length).toBeGreaterThan(5);
    for (const s of silent) expect(total(s.w)).toBe(0);
    const open = sounding.map((s) => total(s.w));
    expect(Math.min(...open)).toBeGreaterThan(0.3);
    // A two-formant "a" (750 + 1250 Hz): the shape is aa.
    const aa = sounding.filter((s) => MOUTH_SHAPES.every((k) => s.w.aa >= s.w[k]!));
    expect(aa.length).toBeGreaterThan(sounding.length * 0.8);
  });

  it("speaks espeak-ng audio from the host and the mouth moves with it", async () => {
    await h.page.evaluate(() => window.voice.create("local"));
    await feed(["Hello, this is my own voice. "]);
    await h.page.evaluate(() => window.voice.end());
    await untilIdle();
    const s = await state();
    const [start] = of(s, "start");
    const [end] = of(s, "end");
    expect(end!.t - start!.t).toBeGreaterThan(1);
    const moving = s.mouths.filter(
      (m) => m.t > start!.t && m.t < end!.t && MOUTH_SHAPES.some((k) => m.w[k] > 0.1),
    );
    expect(moving.length).toBeGreaterThan(3);
  });
});
