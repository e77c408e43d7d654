import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GUARD_REFUSALS } from "@yui/mod-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { savePreset } from "../../src/app/presets/presets.ts";
import { DEFAULT_VOCABULARY } from "../../src/app/vocabulary/vocabulary.ts";
import { characterPreset } from "../../src/protocol/preset.ts";
import { VOICE_KEYS } from "../../src/protocol/voice.ts";
import { ELEVENLABS_V3_TAGS } from "../../src/voice/engines.ts";
import { VOCABULARY_FILE } from "../vocabulary-source.ts";
import { parseWav, wavRms } from "../voice/audio.ts";
import { resolveVoice, synthesize, VOICE_ERRORS, VoiceError } from "../voice/synthesize.ts";
import { type SpeechServer, startSpeechServer } from "../voice/testing.ts";
import { type Host, startHost } from "./server.ts";
import { bridgeClient, rawRequest, secretHeaders } from "./testing.ts";

const KEY = "sk-voice-do-not-leak-7c1e";
let dir: string;
let host: Host;
let speech: SpeechServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "yui-voice-"));
  speech = await startSpeechServer();
  host = await startHost({ port: 0, dataDir: dir, env: {}, browserCommands: false });
  const preset = (id: string, name: string) => savePreset(host.store, characterPreset(id, name));
  preset("yui", "YUI");
  preset("mika", "Mika");
  preset("eve", "Eve");
});
afterAll(async () => {
  await host?.close();
  await speech?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** POSTs a segment to the host's voice route as a page would. */
async function speak(presetId: string, body: Record<string, unknown>) {
  const res = await fetch(`${host.url}api/voice/${presetId}`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: host.url.slice(0, -1), ...secretHeaders(host) },
    body: JSON.stringify(body),
  });
  return { res, bytes: new Uint8Array(await res.arrayBuffer()) };
}

describe("the local engine (espeak-ng) through the host", () => {
  it("speaks a sentence as real audio: a WAV of the right length, loud enough", async () => {
    const { res, bytes } = await speak("yui", { text: "Hello! It is good to see you again today." });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("audio/wav");
    expect(res.headers.get("x-yui-voice-engine")).toBe("local");
    const wav = parseWav(bytes)!;
    expect(wav).not.toBeNull();
    expect(wav.bitsPerSample).toBe(16);
    // About eight words at 175 wpm: well over a second, well under ten.
    expect(wav.durationMs).toBeGreaterThan(1200);
    expect(wav.durationMs).toBeLessThan(10_000);
    // Speech, not silence: espeak-ng's voice sits far above this floor.
    expect(wavRms(bytes)).toBeGreaterThan(0.03);
  });

  it("maps the cue's emotion to rate: the same words last longer sad than surprised", async () => {
    const text = "I did not expect to find you here at this hour of the night.";
    const sad = parseWav((await speak("yui", { text, emotion_id: "sad" })).bytes)!;
    const surprised = parseWav((await speak("yui", { text, emotion_id: "surprised" })).bytes)!;
    expect(sad.durationMs).toBeGreaterThan(surprised.durationMs * 1.15);
  });

  it("reads text that looks like an option as words (stdin, no shell, no argument)", async () => {
    const { res, bytes } = await speak("yui", { text: "--help; $(touch /tmp/yui-pwned) `id`" });
    expect(res.status).toBe(200);
    expect(parseWav(bytes)!.durationMs).toBeGreaterThan(500);
  });

  it("says in words when espeak-ng is not installed", async () => {
    const v = resolveVoice(host.store, { id: "yui" } as never, DEFAULT_VOCABULARY, {});
    v.localCommand = "espeak-ng-not-installed-here";
    const err = await synthesize(v, { text: "hello" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VoiceError);
    expect((err as VoiceError).status).toBe(503);
    expect((err as Error).message).toBe(VOICE_ERRORS.notInstalled("espeak-ng-not-installed-here"));
  });

  it("refuses a non-loopback Host (421) and Origin (403), an unknown preset, an empty text", async () => {
    const body = JSON.stringify({ text: "hi" });
    const h = { "content-type": "application/json" };
    const bad = await rawRequest(host.port, "/api/voice/yui", { ...h, Host: "evil.example" }, "POST", body);
    expect(bad.status).toBe(421);
    expect(bad.body).toContain(GUARD_REFUSALS.host.message);
    const origin = await rawRequest(
      host.port,
      "/api/voice/yui",
      { ...h, Host: `127.0.0.1:${host.port}`, Origin: "https://evil.example" },
      "POST",
      body,
    );
    expect(origin.status).toBe(403);
    expect((await speak("nobody", { text: "hi" })).res.status).toBe(404);
    expect((await speak("yui", { text: "  " })).res.status).toBe(400);
  });
});

describe("the OpenAI-compatible engine through the host", () => {
  beforeAll(async () => {
    host.store.set(
      VOICE_KEYS.preset("mika"),
      { enabled: true, engine: "openai", base_url: speech.url, model: "gpt-4o-mini-tts", voice: "nova" },
      "test",
    );
    const bridge = await bridgeClient(host);
    expect((await bridge.invoke("voice_key_set", { presetId: "mika", key: KEY })).ok).toBe(true);
    expect((await bridge.invoke("voice_key_status", { presetId: "mika" })).value).toEqual({ stored: true });
    expect(bridge.frames.join("\n")).not.toContain(KEY);
    bridge.close();
  });

  it("posts model, voice, input, response_format and the caption with the free emotion_text as instructions", async () => {
    speech.requests.length = 0;
    const { res, bytes } = await speak("mika", {
      text: "Come closer, I have a secret.",
      emotion_id: "shy",
      emotion_text: "hushed and warm",
      caption: "whisper it, smiling",
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-yui-voice-engine")).toBe("openai");
    expect(speech.requests).toHaveLength(1);
    const sent = speech.requests[0]!;
    expect(sent.path).toBe("/v1/audio/speech");
    expect(sent.body).toEqual({
      model: "gpt-4o-mini-tts",
      voice: "nova",
      input: "Come closer, I have a secret.",
      response_format: "wav",
      instructions: "whisper it, smiling. Tone: hushed and warm",
    });
    // The key went to the speech server, from the host, and nowhere back.
    expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(JSON.stringify([...res.headers])).not.toContain(KEY);
    expect(Buffer.from(bytes).toString("latin1")).not.toContain(KEY);
    const wav = parseWav(bytes)!;
    expect(wav.durationMs).toBeGreaterThan(1000);
    expect(wavRms(bytes)).toBeGreaterThan(0.2);
  });

  it("sends no instructions when the cue has no caption or tone", async () => {
    speech.requests.length = 0;
    await speak("mika", { text: "Plain words." });
    expect(speech.requests[0]!.body).not.toHaveProperty("instructions");
  });

  it("wraps raw pcm as WAV the page can decode", async () => {
    host.store.set(
      VOICE_KEYS.preset("mika"),
      { enabled: true, engine: "openai", base_url: speech.url, format: "pcm" },
      "test",
    );
    const { res, bytes } = await speak("mika", { text: "Raw samples." });
    expect(res.headers.get("content-type")).toBe("audio/wav");
    expect(parseWav(bytes)!.sampleRate).toBe(24000);
    host.store.set(
      VOICE_KEYS.preset("mika"),
      { enabled: true, engine: "openai", base_url: speech.url },
      "test",
    );
  });

  it("says in words when the speech server is down or refuses", async () => {
    speech.failWith = { status: 401, message: "Incorrect API key provided" };
    const refused = await speak("mika", { text: "hello" });
    speech.failWith = null;
    expect(refused.res.status).toBe(502);
    expect(JSON.parse(Buffer.from(refused.bytes).toString()).error.message).toBe(
      `The speech server at ${speech.url} answered HTTP 401: Incorrect API key provided.`,
    );
    host.store.set(
      VOICE_KEYS.preset("eve"),
      { enabled: true, engine: "openai", base_url: "http://127.0.0.1:9/v1" },
      "test",
    );
    const down = await speak("eve", { text: "hello" });
    expect(down.res.status).toBe(502);
    expect(JSON.parse(Buffer.from(down.bytes).toString()).error.message).toBe(
      "The speech server at http://127.0.0.1:9/v1 is not reachable (connection refused). Check that it is running, or change the voice settings.",
    );
    host.store.delete(VOICE_KEYS.preset("eve"));
  });
});

describe("enum mode: the vocabulary's tags", () => {
  const vocabFile = () => join(dir, VOCABULARY_FILE);
  afterAll(() => rmSync(vocabFile(), { force: true }));

  it("ElevenLabs v3 (the vocabulary's engine) gets the tag inline, the key as xi-api-key, PCM back as WAV", async () => {
    writeFileSync(
      vocabFile(),
      JSON.stringify({
        ...DEFAULT_VOCABULARY,
        voice: { engine: "elevenlabs", mode: "enum", tags: ELEVENLABS_V3_TAGS },
      }),
    );
    // No engine in the character's settings: the vocabulary's voice names it.
    host.store.set(
      VOICE_KEYS.preset("eve"),
      { enabled: true, base_url: speech.origin, voice: "voice-eve" },
      "test",
    );
    host.store.set(VOICE_KEYS.apiKey("eve"), KEY, "test");
    speech.requests.length = 0;
    const { res, bytes } = await speak("eve", {
      text: "Don't tell anyone.",
      emotion_text: "whispers",
      caption: "a secret",
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-yui-voice-engine")).toBe("elevenlabs");
    const sent = speech.requests[0]!;
    expect(sent.path).toBe("/v1/text-to-speech/voice-eve?output_format=pcm_24000");
    expect(sent.body).toEqual({ text: "[whispers] Don't tell anyone.", model_id: "eleven_v3" });
    expect(sent.headers["xi-api-key"]).toBe(KEY);
    expect(sent.headers.authorization).toBeUndefined();
    const wav = parseWav(bytes)!;
    expect(wav.sampleRate).toBe(24000);
    expect(wav.durationMs).toBeGreaterThan(500);
    // A tag outside the table is not sent.
    speech.requests.length = 0;
    await speak("eve", { text: "Hi.", emotion_text: "yodels" });
    expect(speech.requests[0]!.body.text).toBe("Hi.");
  });

  it("the OpenAI-compatible engine in enum mode gets the tag and its meaning as instructions", async () => {
    writeFileSync(
      vocabFile(),
      JSON.stringify({
        ...DEFAULT_VOCABULARY,
        voice: { engine: "openai", mode: "enum", tags: [{ tag: "cheerful", meaning: "bright and upbeat" }] },
      }),
    );
    speech.requests.length = 0;
    await speak("mika", { text: "Good morning!", emotion_text: "cheerful", caption: "just woke up" });
    expect(speech.requests[0]!.body.instructions).toBe("just woke up. Tone: cheerful (bright and upbeat)");
  });
});
