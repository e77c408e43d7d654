/**
 * Each key bound to its destination (issue 28, docs/app.md "Security model"), through the real host and real
 * recording servers on loopback standing in for the destinations: a stored key goes only to the origins it was
 * saved for and is dropped when the preset's base URL or push URL (or the voice's engine base) changes; the
 * environment's OPENAI_API_KEY goes only to the environment's own base URL (never to a push URL), and
 * ELEVENLABS_API_KEY only to ElevenLabs' own API. Every "not sent" has its positive control: the same request
 * to the saved-for destination carries the key.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { characterPreset } from "../../src/app/presets/preset.ts";
import { savePreset } from "../../src/app/presets/presets.ts";
import { PRESET_KEYS } from "../../src/protocol/preset.ts";
import { VOICE_KEYS } from "../../src/protocol/voice.ts";
import { type PushBackend, startPushBackend } from "../../tools/push-backend/server.ts";
import { backendKey, ELEVENLABS_API_ORIGIN, voiceKey } from "../keys.ts";
import { openStore } from "../store/store.ts";
import { type SpeechServer, startSpeechServer } from "../voice/testing.ts";
import { KEY_ERRORS } from "./app-commands.ts";
import { type Host, startHost } from "./server.ts";
import { bridgeClient, hostFetch, secretHeaders } from "./testing.ts";

const KEY = "sk-bound-7d2e";
const ENV_KEY = "sk-env-91ac";

/** A backend standing in for a destination: it records every request (models and chat alike) and answers. */
interface Recorder {
  url: string;
  requests: { method: string; path: string; headers: IncomingHttpHeaders }[];
  close(): Promise<void>;
}

async function startRecorder(): Promise<Recorder> {
  const requests: Recorder["requests"] = [];
  const server = createServer((req, res) => {
    req.resume();
    requests.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers });
    if (req.url?.endsWith("/models")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ data: [{ id: "m" }] }));
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end('data: {"choices":[{"delta":{"content":"ok"}}]}\n\ndata: [DONE]\n\n');
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

let dir: string;
let a: Recorder;
let b: Recorder;
const hosts: Host[] = [];
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "yui-keys-"));
  [a, b] = await Promise.all([startRecorder(), startRecorder()]);
});
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close();
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function host(env: NodeJS.ProcessEnv = {}): Promise<Host> {
  const h = await startHost({ port: 0, dataDir: mkdtempSync(join(dir, "h-")), env });
  hosts.push(h);
  return h;
}

/** One proxied chat request through the host for `presetId`; resolves the authorization the backend saw. */
async function proxied(h: Host, presetId: string, backend: Recorder): Promise<string | undefined> {
  const before = backend.requests.length;
  const res = await hostFetch(h, `/api/backend/${presetId}/v1/chat/completions`, {
    method: "POST",
    body: "{}",
  });
  await res.arrayBuffer();
  expect(backend.requests.length).toBe(before + 1);
  return backend.requests.at(-1)!.headers.authorization;
}

describe("a preset's stored key", () => {
  it("goes to the base URL it was saved for, and is dropped when the base URL changes: neither the proxy nor backend_test sends it to the new one", async () => {
    const h = await host();
    const bridge = await bridgeClient(h);
    try {
      const p = characterPreset("yui", "YUI", { transport: "chat", base_url: a.url });
      expect((await bridge.invoke("preset_save", { preset: p })).ok).toBe(true);
      expect((await bridge.invoke("api_key_set", { presetId: "yui", key: KEY })).ok).toBe(true);
      expect(h.store.get(PRESET_KEYS.apiKey("yui"))).toEqual({ key: KEY, origins: [new URL(a.url).origin] });
      // Control: the destination it was saved for gets it, through the proxy and the connection test.
      expect(await proxied(h, "yui", a)).toBe(`Bearer ${KEY}`);
      expect((await bridge.invoke("backend_test", { presetId: "yui" })).value).toMatchObject({ ok: true });
      expect(a.requests.at(-1)!.path).toBe("/v1/models");
      expect(a.requests.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);

      // Repointed: the key is dropped until entered again, and the new base URL never sees it.
      const moved = { ...p, backend: { ...p.backend, base_url: b.url } };
      expect((await bridge.invoke("preset_save", { preset: moved })).ok).toBe(true);
      expect((await bridge.invoke("backend_test", { presetId: "yui" })).value).toMatchObject({ ok: true });
      expect(b.requests.at(-1)!.path).toBe("/v1/models");
      expect(b.requests.at(-1)!.headers.authorization).toBeUndefined();
      expect(await proxied(h, "yui", b)).toBeUndefined();
      expect((await bridge.invoke("api_key_status", { presetId: "yui" })).value).toEqual({
        stored: false,
        inForce: false,
      });
      expect(h.store.has(PRESET_KEYS.apiKey("yui"))).toBe(false);
      // Entered again, it is bound to the new base URL and goes there.
      await bridge.invoke("api_key_set", { presetId: "yui", key: `${KEY}-2` });
      expect(await proxied(h, "yui", b)).toBe(`Bearer ${KEY}-2`);
    } finally {
      bridge.close();
    }
  });

  it("is sent only to its origins even when the store says otherwise (the rule at the moment of sending)", () => {
    const store = openStore(mkdtempSync(join(dir, "s-")));
    try {
      const p = characterPreset("yui", "YUI", { transport: "chat", base_url: b.url });
      savePreset(store, p);
      // Bound to a's origin, while the preset points at b (written behind the host's back).
      store.set(PRESET_KEYS.apiKey("yui"), { key: KEY, origins: [new URL(a.url).origin] });
      expect(backendKey(store, p, `${b.url}/chat/completions`, {})).toBeUndefined();
      expect(backendKey(store, p, `${a.url}/chat/completions`, {})).toBe(KEY);
      // A key bound to one origin never reaches the environment's rule either.
      expect(
        backendKey(store, p, `${b.url}/models`, { OPENAI_API_KEY: ENV_KEY, OPENAI_BASE_URL: b.url }),
      ).toBe(undefined);
    } finally {
      store.close();
    }
  });

  it("a plain key (an older store, or yui store set) is bound at start, and on sight, to where its preset points", async () => {
    const data = mkdtempSync(join(dir, "legacy-"));
    const store = openStore(data);
    savePreset(store, characterPreset("yui", "YUI", { transport: "chat", base_url: a.url }));
    store.set(PRESET_KEYS.apiKey("yui"), KEY, "cli");
    store.close();
    const h = await startHost({ port: 0, dataDir: data, env: {} });
    hosts.push(h);
    expect(h.store.get(PRESET_KEYS.apiKey("yui"))).toEqual({ key: KEY, origins: [new URL(a.url).origin] });
    savePreset(h.store, characterPreset("mika", "Mika", { transport: "chat", base_url: b.url }));
    h.store.set(PRESET_KEYS.apiKey("mika"), KEY, "cli");
    await Promise.resolve();
    expect(h.store.get(PRESET_KEYS.apiKey("mika"))).toEqual({ key: KEY, origins: [new URL(b.url).origin] });
    expect(await proxied(h, "mika", b)).toBe(`Bearer ${KEY}`);
  });

  it("cannot be set for a preset that points nowhere yet", async () => {
    const h = await host();
    savePreset(h.store, characterPreset("nowhere", "Nowhere", { transport: "chat" }));
    const bridge = await bridgeClient(h);
    try {
      expect(await bridge.invoke("api_key_set", { presetId: "nowhere", key: KEY })).toMatchObject({
        ok: false,
        error: KEY_ERRORS.noDestination,
      });
      expect(h.store.has(PRESET_KEYS.apiKey("nowhere"))).toBe(false);
    } finally {
      bridge.close();
    }
  });
});

describe("the push relay's keys", () => {
  let push: PushBackend;
  beforeAll(async () => {
    push = await startPushBackend();
  });
  afterAll(async () => {
    await push?.close();
  });

  /** Opens the relay for `presetId` and resolves the upgrade headers the push backend saw. */
  async function relayed(h: Host, presetId: string) {
    const before = push.upgrades.length;
    const ws = new WebSocket(`ws://127.0.0.1:${h.port}/api/push/${presetId}`, {
      headers: secretHeaders(h),
    });
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", reject);
    });
    await expect.poll(() => push.upgrades.length).toBe(before + 1);
    ws.close();
    return push.upgrades.at(-1)!;
  }

  it("OPENAI_API_KEY never goes to a push URL, even on the environment's own host and port", async () => {
    const envBase = a.url;
    const h = await host({ OPENAI_API_KEY: ENV_KEY, OPENAI_BASE_URL: envBase });
    savePreset(h.store, {
      ...characterPreset("yui", "YUI"),
      backend: { transport: "push", base_url: envBase, push_url: push.url },
    });
    expect((await relayed(h, "yui")).authorization).toBeUndefined();
    // Control: the same environment key goes to the environment's base URL through the proxy.
    expect(await proxied(h, "yui", a)).toBe(`Bearer ${ENV_KEY}`);
  });

  it("a stored key goes to the push URL it was saved for, and is dropped when the push URL changes", async () => {
    const other = await startPushBackend();
    try {
      const h = await host();
      const p = {
        ...characterPreset("yui", "YUI"),
        backend: { transport: "push" as const, push_url: push.url },
      };
      savePreset(h.store, p);
      const bridge = await bridgeClient(h);
      await bridge.invoke("api_key_set", { presetId: "yui", key: KEY });
      expect((await relayed(h, "yui")).authorization).toBe(`Bearer ${KEY}`);
      await bridge.invoke("preset_save", {
        preset: { ...p, backend: { ...p.backend, push_url: other.url } },
      });
      bridge.close();
      expect(h.store.has(PRESET_KEYS.apiKey("yui"))).toBe(false);
      const before = other.upgrades.length;
      const ws = new WebSocket(`ws://127.0.0.1:${h.port}/api/push/yui`, {
        headers: secretHeaders(h),
      });
      await new Promise<void>((resolve, reject) => {
        ws.once("open", () => resolve());
        ws.once("error", reject);
      });
      await expect.poll(() => other.upgrades.length).toBe(before + 1);
      ws.close();
      expect(other.upgrades.at(-1)!.authorization).toBeUndefined();
    } finally {
      await other.close();
    }
  });
});

describe("the OPENAI_API_KEY of the environment", () => {
  it("goes to the environment's base URL only, never to another preset's", async () => {
    const h = await host({ OPENAI_API_KEY: ENV_KEY, OPENAI_BASE_URL: a.url });
    savePreset(h.store, characterPreset("yui", "YUI", { transport: "chat", base_url: a.url }));
    savePreset(h.store, characterPreset("mika", "Mika", { transport: "chat", base_url: b.url }));
    expect(await proxied(h, "yui", a)).toBe(`Bearer ${ENV_KEY}`);
    expect(await proxied(h, "mika", b)).toBeUndefined();
  });
});

describe("the voice engines' keys", () => {
  let s1: SpeechServer;
  let s2: SpeechServer;
  beforeAll(async () => {
    [s1, s2] = await Promise.all([startSpeechServer(), startSpeechServer()]);
  });
  afterAll(async () => {
    await s1?.close();
    await s2?.close();
  });

  const speak = (h: Host, presetId: string) =>
    hostFetch(h, `/api/voice/${presetId}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ text: "Hello." }),
    }).then((r) => r.arrayBuffer().then(() => r.status));

  it("a stored OpenAI-compatible voice key goes to its base only, and is dropped when the base changes", async () => {
    const h = await host();
    savePreset(h.store, characterPreset("yui", "YUI"));
    const bridge = await bridgeClient(h);
    try {
      const voice = { enabled: true, engine: "openai", base_url: s1.url };
      await bridge.invoke("store_set", { key: VOICE_KEYS.preset("yui"), value: voice });
      await bridge.invoke("voice_key_set", { presetId: "yui", key: KEY });
      expect(await speak(h, "yui")).toBe(200);
      expect(s1.requests.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);
      await bridge.invoke("store_set", {
        key: VOICE_KEYS.preset("yui"),
        value: { ...voice, base_url: s2.url },
      });
      expect((await bridge.invoke("voice_key_status", { presetId: "yui" })).value).toEqual({ stored: false });
      expect(await speak(h, "yui")).toBe(200);
      expect(s2.requests.at(-1)!.path).toBe("/v1/audio/speech");
      expect(s2.requests.at(-1)!.headers.authorization).toBeUndefined();
    } finally {
      bridge.close();
    }
  });

  it("a stored ElevenLabs key goes to its base only; the environment's ELEVENLABS_API_KEY never to another base", async () => {
    const h = await host({ ELEVENLABS_API_KEY: ENV_KEY, OPENAI_API_KEY: ENV_KEY });
    savePreset(h.store, characterPreset("yui", "YUI"));
    savePreset(h.store, characterPreset("mika", "Mika"));
    const eleven = (base: string) => ({ enabled: true, engine: "elevenlabs", base_url: base, voice: "v1" });
    const bridge = await bridgeClient(h);
    try {
      await bridge.invoke("store_set", { key: VOICE_KEYS.preset("yui"), value: eleven(s1.origin) });
      await bridge.invoke("voice_key_set", { presetId: "yui", key: KEY });
      expect(await speak(h, "yui")).toBe(200);
      expect(s1.requests.at(-1)!.headers["xi-api-key"]).toBe(KEY);
      // No stored key, a base that is not ElevenLabs' API: the environment's key stays home.
      await bridge.invoke("store_set", { key: VOICE_KEYS.preset("mika"), value: eleven(s2.origin) });
      expect(await speak(h, "mika")).toBe(200);
      expect(s2.requests.at(-1)!.path).toMatch(/^\/v1\/text-to-speech\/v1/);
      expect(s2.requests.at(-1)!.headers["xi-api-key"]).toBeUndefined();
      // OPENAI_API_KEY neither goes to an OpenAI-compatible voice base that is not the environment's.
      await bridge.invoke("store_set", {
        key: VOICE_KEYS.preset("mika"),
        value: { enabled: true, engine: "openai", base_url: s2.url },
      });
      expect(await speak(h, "mika")).toBe(200);
      expect(s2.requests.at(-1)!.headers.authorization).toBeUndefined();
    } finally {
      bridge.close();
    }
  });

  it("the environment's voice keys go to their own services (the rule, without calling them)", () => {
    const store = openStore(mkdtempSync(join(dir, "v-")));
    try {
      const env = { ELEVENLABS_API_KEY: ENV_KEY, OPENAI_API_KEY: "sk-o" };
      expect(voiceKey(store, "yui", "elevenlabs", ELEVENLABS_API_ORIGIN, env)).toBe(ENV_KEY);
      expect(
        voiceKey(store, "yui", "elevenlabs", "https://api.elevenlabs.io.evil.example", env),
      ).toBeUndefined();
      expect(voiceKey(store, "yui", "openai", "https://api.openai.com/v1", env)).toBe("sk-o");
      expect(voiceKey(store, "yui", "openai", "https://api.openai.com/v1x", env)).toBeUndefined();
      expect(voiceKey(store, "yui", "local", undefined, env)).toBeUndefined();
    } finally {
      store.close();
    }
  });
});
