import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GUARD_REFUSALS } from "@yui/mod-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LISTEN_KEYS, LISTEN_MAX_BYTES, TranscriptSchema } from "../../src/protocol/listen.ts";
import { LISTEN_KEY_ERRORS } from "../voice/listen-commands.ts";
import { librivox } from "../voice/listen-corpus.ts";
import { LISTEN_ERRORS } from "../voice/transcribe.ts";
import { startTranscriptionServer, type TranscriptionServer } from "../voice/transcribe-testing.ts";
import { type Host, startHost } from "./server.ts";
import { bridgeClient, hostFetch, rawRequest } from "./testing.ts";

const KEY = "sk-listen-do-not-leak-41b9";
let dir: string;
let host: Host;
let stt: TranscriptionServer;
/** "he was not an ill disposed young man", read by a LibriVox volunteer: 16 kHz mono 16-bit. */
const clip = () => new Uint8Array(readFileSync(librivox()[1]!.file));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "yui-listen-route-"));
  stt = await startTranscriptionServer("Good morning, how are you?");
  host = await startHost({ port: 0, dataDir: dir, env: {}, browserCommands: false });
});
afterAll(async () => {
  await host?.close();
  await stt?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** POSTs an utterance as the page does. */
async function listen(body: Uint8Array<ArrayBuffer>) {
  const res = await hostFetch(host, "/api/listen", {
    method: "POST",
    headers: { "content-type": "audio/wav", origin: host.url.slice(0, -1) },
    body,
  });
  return { res, json: (await res.json()) as Record<string, unknown> };
}

describe("the listening route", () => {
  it("transcribes an utterance with the local engine (pocketsphinx) when nothing is configured", async () => {
    const { res, json } = await listen(clip());
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const t = TranscriptSchema.parse(json);
    expect(t.engine).toBe("local");
    expect(t.audio_ms).toBe(2990);
    // pocketsphinx hears "he was not an illness those young man": most of the words.
    expect(t.text).toMatch(/^he was not an /);
    expect(t.text).toMatch(/young man$/);
  });

  it("refuses a non-loopback Host (421) and Origin (403), other methods, a body that is not a WAV or too long", async () => {
    const bad = await rawRequest(host.port, "/api/listen", { Host: "evil.example" }, "POST", "x");
    expect(bad.status).toBe(421);
    expect(bad.body).toContain(GUARD_REFUSALS.host.message);
    const origin = await rawRequest(
      host.port,
      "/api/listen",
      { Host: `127.0.0.1:${host.port}`, Origin: "https://evil.example" },
      "POST",
      "x",
    );
    expect(origin.status).toBe(403);
    expect((await hostFetch(host, "/api/listen")).status).toBe(405);
    const junk = await listen(new TextEncoder().encode("not a wav"));
    expect(junk.res.status).toBe(400);
    expect(junk.json).toEqual({ error: { message: LISTEN_ERRORS.notWav, type: "yui_proxy" } });
    const long = await listen(new Uint8Array(LISTEN_MAX_BYTES + 1));
    expect(long.res.status).toBe(413);
  });

  it("the local engine says it knows English only when another language is set", async () => {
    host.store.set(LISTEN_KEYS.settings, { hands_free: false, language: "ja" }, "test");
    const { res, json } = await listen(clip());
    expect(res.status).toBe(400);
    expect((json.error as { message: string }).message).toBe(LISTEN_ERRORS.englishOnly("ja"));
    host.store.delete(LISTEN_KEYS.settings);
  });
});

describe("the OpenAI-compatible transcription engine through the host", () => {
  it("posts the utterance as multipart (file, model, language) with the key upstream only", async () => {
    const bridge = await bridgeClient(host);
    host.store.set(
      LISTEN_KEYS.settings,
      { hands_free: true, engine: "openai", base_url: stt.url, model: "whisper-large-v3", language: "en" },
      "test",
    );
    expect((await bridge.invoke("listen_key_set", { key: KEY })).ok).toBe(true);
    expect((await bridge.invoke("listen_key_status")).value).toEqual({ stored: true });
    const wav = clip();
    const { res, json } = await listen(wav);
    expect(res.status).toBe(200);
    expect(json).toMatchObject({ engine: "openai", text: "Good morning, how are you?", audio_ms: 2990 });
    const sent = stt.requests.at(-1)!;
    expect(sent.path).toBe("/v1/audio/transcriptions");
    expect(String(sent.headers["content-type"])).toMatch(/^multipart\/form-data; boundary=/);
    expect(sent.fields).toEqual({ model: "whisper-large-v3", language: "en", response_format: "json" });
    expect(sent.file?.name).toBe("speech.wav");
    expect(sent.file?.type).toBe("audio/wav");
    expect(sent.file?.bytes.equals(Buffer.from(wav))).toBe(true);
    expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
    // No page sees the key: not the answer, not a bridge frame, not the store snapshot.
    expect(JSON.stringify(json)).not.toContain(KEY);
    expect(JSON.stringify([...res.headers])).not.toContain(KEY);
    expect(bridge.frames.join("\n")).not.toContain(KEY);
    expect(JSON.stringify(bridge.snapshot)).not.toContain(KEY);
    expect((await bridge.invoke("listen_key_set", { key: "" })).ok).toBe(true);
    expect((await bridge.invoke("listen_key_status")).value).toEqual({ stored: false });
    bridge.close();
  });

  it("answers 502 in words when the server refuses or is not there", async () => {
    stt.failWith = { status: 401, message: "Incorrect API key provided" };
    const refused = await listen(clip());
    expect(refused.res.status).toBe(502);
    expect((refused.json.error as { message: string }).message).toBe(
      LISTEN_ERRORS.refused(stt.url, 401, "Incorrect API key provided"),
    );
    stt.failWith = null;
    const gone = await startTranscriptionServer();
    await gone.close();
    host.store.set(LISTEN_KEYS.settings, { hands_free: false, engine: "openai", base_url: gone.url }, "test");
    const down = await listen(clip());
    expect(down.res.status).toBe(502);
    expect((down.json.error as { message: string }).message).toBe(
      LISTEN_ERRORS.unreachable(gone.url, "connection refused"),
    );
    host.store.delete(LISTEN_KEYS.settings);
  });

  it("sends the key only to the base it was saved for, and drops it when the base changes", async () => {
    const other = await startTranscriptionServer("not for you");
    const bridge = await bridgeClient(host);
    try {
      host.store.set(
        LISTEN_KEYS.settings,
        { hands_free: false, engine: "openai", base_url: stt.url },
        "test",
      );
      expect((await bridge.invoke("listen_key_set", { key: KEY })).ok).toBe(true);
      // Positive control: the key goes to the base it was saved for.
      expect((await listen(clip())).res.status).toBe(200);
      expect(stt.requests.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);
      // Another base: the key is dropped by the host, and the other server never hears it.
      host.store.set(
        LISTEN_KEYS.settings,
        { hands_free: false, engine: "openai", base_url: other.url },
        "test",
      );
      await new Promise((r) => setTimeout(r, 0));
      expect((await bridge.invoke("listen_key_status")).value).toEqual({ stored: false });
      expect((await listen(clip())).res.status).toBe(200);
      expect(other.requests.at(-1)!.headers.authorization).toBeUndefined();
      // The local engine takes no key.
      host.store.set(LISTEN_KEYS.settings, { hands_free: false }, "test");
      const refused = await bridge.invoke("listen_key_set", { key: KEY });
      expect(refused).toMatchObject({ ok: false, error: LISTEN_KEY_ERRORS.noBase });
    } finally {
      bridge.close();
      await other.close();
      host.store.delete(LISTEN_KEYS.settings);
    }
  });
});
