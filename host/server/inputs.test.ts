/**
 * Inputs validated at the door (issue 28), through the real host: preset and voice URLs refuse fragments (and a
 * base URL a query), the preset list, a conversation and relations change only through their own commands,
 * a model upload streams to a temporary file and is checked there, one at a time, and a window that stops
 * reading is dropped once its unsent data passes the cap. Each refusal has a positive control.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { type ClientRequest, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { characterPreset } from "../../src/app/presets/preset.ts";
import { getPreset, listPresets, savePreset } from "../../src/app/presets/presets.ts";
import { MODEL_FILE_ERRORS } from "../../src/avatar/model-file.ts";
import { BRIDGE_MAX_BUFFERED } from "../../src/protocol/limits.ts";
import { PresetSchema } from "../../src/protocol/preset.ts";
import { VOICE_KEYS, VoiceSettingsSchema } from "../../src/protocol/voice.ts";
import { buildCharacter } from "../../tools/vrm-gen/character.ts";
import { writeVrm } from "../../tools/vrm-gen/write-vrm.ts";
import { STORE_ERRORS } from "./app-commands.ts";
import { UPLOAD_ERRORS } from "./avatar-upload.ts";
import { upstreamUrl } from "./proxy.ts";
import { pushTarget } from "./push-relay.ts";
import { type Host, startHost } from "./server.ts";
import { bridgeClient, secretHeaders } from "./testing.ts";

let dir: string;
let host: Host;
let model: Buffer;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "yui-inputs-"));
  host = await startHost({ port: 0, dataDir: dir, env: {} });
  savePreset(
    host.store,
    characterPreset("mika", "Mika", { transport: "chat", base_url: "http://127.0.0.1:1/v1" }),
  );
  model = Buffer.from(await writeVrm(buildCharacter(), { name: "Big" }));
});
afterAll(async () => {
  await host?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("URLs in presets and voice settings", () => {
  const preset = (backend: Record<string, string | undefined>) =>
    characterPreset("mika", "Mika", { transport: "chat", ...backend } as never);

  it("refuse a #fragment anywhere and a ?query in a base URL, through preset_save and the store", async () => {
    const b = await bridgeClient(host);
    try {
      const refused = [
        { base_url: "http://127.0.0.1:11434/v1?" },
        { base_url: "http://127.0.0.1:11434/v1?x=1" },
        { base_url: "http://127.0.0.1:11434/v1#frag" },
        { push_url: "ws://127.0.0.1:9/push#frag" },
        { broker_base_url: "http://127.0.0.1:9/b?q" },
      ];
      for (const backend of refused) {
        const r = await b.invoke("preset_save", { preset: preset(backend) });
        expect(r.ok, JSON.stringify(backend)).toBe(false);
        expect(r.error).toMatch(/takes no (#fragment|\?query)/);
      }
      expect(() => savePreset(host.store, preset({ push_url: "ws://127.0.0.1:9/#x" }))).toThrow(/#fragment/);
      // Control: the same URLs without them are saved; a push URL may carry a query.
      const ok = preset({ base_url: "http://127.0.0.1:11434/v1", push_url: "ws://127.0.0.1:9/push?room=1" });
      expect((await b.invoke("preset_save", { preset: ok })).ok).toBe(true);
      expect(getPreset(host.store, "mika")!.backend).toEqual(ok.backend);
      // The voice's base is a base URL too.
      const voice = { enabled: true, engine: "openai", base_url: "http://127.0.0.1:9/v1?" };
      const v = await b.invoke("store_set", { key: VOICE_KEYS.preset("mika"), value: voice });
      expect(v).toMatchObject({ ok: false });
      expect(VoiceSettingsSchema.safeParse({ ...voice, base_url: "http://127.0.0.1:9/v1" }).success).toBe(
        true,
      );
      expect(PresetSchema.safeParse(preset({ base_url: "https://api.openai.com/v1" })).success).toBe(true);
    } finally {
      b.close();
    }
  });

  it("the proxy and the relay never build a request from such a URL (a second guard, for a value that got in)", () => {
    expect(upstreamUrl("http://h/v1?", "models")).toBeNull();
    expect(upstreamUrl("http://h/v1#x", "models")).toBeNull();
    expect(upstreamUrl("ftp://h/v1", "models")).toBeNull();
    expect(upstreamUrl("http://h/v1/", "chat/completions")?.href).toBe("http://h/v1/chat/completions");
    expect(pushTarget("ws://h/push#x")).toBeNull();
    expect(pushTarget("not a url")).toBeNull();
    expect(pushTarget("wss://h/push?x=1")?.href).toBe("wss://h/push?x=1");
  });
});

describe("keys with commands of their own", () => {
  it("refuse the generic store_set and store_delete: the preset list, a conversation, relations", async () => {
    const b = await bridgeClient(host);
    try {
      const before = listPresets(host.store).map((p) => p.id);
      const cases: [string, unknown, string][] = [
        ["yui.presets", [], "preset_save, preset_remove, preset_activate, pet_open, pet_close"],
        ["yui.presets.active", "mika", "preset_save, preset_remove, preset_activate, pet_open, pet_close"],
        ["yui.presets.open", ["mika"], "preset_save, preset_remove, preset_activate, pet_open, pet_close"],
        ["yui.mika.history", [], "history_append"],
        ["yui.mika.relations", { values: {}, log: [], spent: {} }, "relation_rate, relation_set_by_user"],
      ];
      for (const [key, value, commands] of cases) {
        expect(await b.invoke("store_set", { key, value })).toMatchObject({
          ok: false,
          error: STORE_ERRORS.owned(key, commands),
        });
        expect((await b.invoke("store_delete", { key })).ok).toBe(false);
      }
      expect(STORE_ERRORS.owned("yui.presets", "x")).toBe(
        "yui.presets changes only through its own commands (x)",
      );
      expect(listPresets(host.store).map((p) => p.id)).toEqual(before);
      // Control: the same connection changes them through their commands, and other keys through store_set.
      expect((await b.invoke("preset_activate", { presetId: "mika" })).ok).toBe(true);
      expect(host.store.get("yui.presets.active")).toBe("mika");
      await b.invoke("preset_activate", { presetId: "yui" });
      expect((await b.invoke("store_set", { key: "yui.browser", value: { enabled: false } })).ok).toBe(true);
    } finally {
      b.close();
    }
  });
});

/** A PUT of a model whose body the test writes itself; resolves the answer's status and body. */
function put(path: string): { req: ClientRequest; answer: Promise<{ status: number; body: string }> } {
  const req = request(`http://127.0.0.1:${host.port}${path}`, {
    method: "PUT",
    headers: secretHeaders(host),
  });
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    req.on("response", (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => {
        body += c;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
  });
  return { req, answer };
}

const temps = () =>
  existsSync(join(dir, "avatars")) ? readdirSync(join(dir, "avatars")).filter((f) => f.endsWith(".tmp")) : [];

describe("model uploads", () => {
  it("stream to a temporary file in the data directory, one at a time: another meanwhile is answered 429", async () => {
    const first = put("/avatar/mika.vrm");
    const padding = Buffer.alloc(8 * 1024 * 1024);
    // A real model followed by padding (a GLB's JSON chunk is all the check reads): sent in part, then held.
    first.req.write(model);
    first.req.write(padding);
    // The bytes are on disk already, in a temporary file the user alone can read, while the upload goes on.
    await expect.poll(() => temps().length).toBe(1);
    const tmp = join(dir, "avatars", temps()[0]!);
    await expect.poll(() => statSync(tmp).size).toBe(model.length + padding.length);
    expect(statSync(tmp).mode & 0o777).toBe(0o600);
    const second = put("/avatar/yui.vrm");
    second.req.end(model);
    expect(await second.answer).toEqual({ status: 429, body: JSON.stringify({ error: UPLOAD_ERRORS.busy }) });
    first.req.end(padding);
    const done = await first.answer;
    expect(done.status).toBe(200);
    expect(JSON.parse(done.body)).toMatchObject({ name: "Big", specVersion: "1" });
    expect(statSync(join(dir, "avatars", "mika.vrm")).size).toBe(model.length + 2 * padding.length);
    expect(temps()).toEqual([]);
    // Control: once the first is done, the second goes through.
    const again = put("/avatar/yui.vrm");
    again.req.end(model);
    expect((await again.answer).status).toBe(200);
  });

  it("a refused file leaves no temporary file and the previous model in place", async () => {
    const before = getPreset(host.store, "mika")!.avatar;
    const bad = put("/avatar/mika.vrm");
    bad.req.end(Buffer.from("not a model at all"));
    expect(await bad.answer).toEqual({
      status: 400,
      body: JSON.stringify({ error: MODEL_FILE_ERRORS.notGlb }),
    });
    expect(temps()).toEqual([]);
    expect(getPreset(host.store, "mika")!.avatar).toBe(before);
  });
});

describe("back-pressure on the bridge", () => {
  it("drops a window that stops reading once its unsent data passes the cap; a reading window stays", async () => {
    const reader = await bridgeClient(host);
    const sleeper = await bridgeClient(host);
    expect(host.bridge.size()).toBe(2);
    // The sleeper's socket stops reading: what the host sends it piles up on the host's side.
    (sleeper.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    const text = "x".repeat(1024 * 1024);
    const payload = (n: number) => ({
      exchange: `e${n}`,
      chain: 1,
      from: { id: "yui", name: "YUI" },
      to: { id: "mika", name: "Mika" },
      text,
      turnId: `t${n}`,
    });
    let sent = 0;
    const base = reader.frames.length;
    // Events relayed to every window, 1 MB each, until the host lets the sleeper go (bounded by twice the cap).
    while (host.bridge.size() === 2 && sent < (2 * BRIDGE_MAX_BUFFERED) / text.length) {
      reader.emit("yui://character-addressed", payload(sent++));
      // The reader has it: the host relayed this one to every window before the next goes out.
      await expect.poll(() => reader.frames.length).toBe(base + sent);
    }
    // The host let the sleeper go (its socket, paused, cannot even read the close), having held at most the cap.
    await expect.poll(() => host.bridge.size()).toBe(1);
    expect(sent).toBeGreaterThan(BRIDGE_MAX_BUFFERED / text.length / 2);
    expect(sent).toBeLessThan((2 * BRIDGE_MAX_BUFFERED) / text.length);
    // The reading window kept every event and stays connected.
    expect((await reader.invoke("api_key_status", { presetId: "yui" })).ok).toBe(true);
    reader.close();
    sleeper.ws.terminate();
  });
});
