import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GUARD_REFUSALS } from "@yui/mod-kit";
import { expectLoopbackOnly, freePort } from "@yui/mod-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { PRESET_KEYS } from "../../src/app/presets/preset.ts";
import { savePreset } from "../../src/app/presets/presets.ts";
import type { Vocabulary } from "../../src/app/vocabulary/vocabulary.ts";
import { createPushClient } from "../../src/io/chat/push/client.ts";
import { STORE_CHANGED_EVENT } from "../../src/protocol/events.ts";
import { RELAY_PING, RELAY_PONG } from "../../src/protocol/limits.ts";
import { startPushBackend } from "../../tools/push-backend/server.ts";
import {
  chatStream,
  type ScriptedBackend,
  startScriptedBackend,
} from "../../tools/scripted-backend/server.ts";
import { nodeConnect } from "../push-socket.ts";
import { VOCABULARY_FILE } from "../vocabulary-source.ts";
import { TEST_VERDICTS } from "./app-commands.ts";
import { OLLAMA_BASE_URL } from "./defaults.ts";
import { PROXY_ERRORS } from "./proxy.ts";
import { parseServeArgs } from "./serve-cli.ts";
import { type Host, PortInUseError, startHost } from "./server.ts";
import { bridgeClient, hostFetch, rawRequest, secretHeaders, upgradeStatus } from "./testing.ts";

const SECRET = "sk-test-do-not-leak-4f9a2c";

let dir: string;
let host: Host;
let backend: ScriptedBackend;
let port: number;
// One of YUI's own commands toward a host: loopback Host and the launch secret.
const ok = (h: Host = host) => ({ Host: `127.0.0.1:${h.port}`, ...secretHeaders(h) });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "yui-host-"));
  backend = await startScriptedBackend();
  host = await startHost({ port: 0, dataDir: dir, env: {}, browserCommands: false });
  port = host.port;
  savePreset(host.store, {
    id: "yui",
    name: "YUI",
    avatar: "",
    voice: "",
    persona: "",
    backend: { transport: "chat", base_url: backend.url },
  });
  host.store.set(PRESET_KEYS.apiKey("yui"), SECRET, "test");
});
afterAll(async () => {
  await host?.close();
  await backend?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("loopback only", () => {
  it("listens on 127.0.0.1 only (the bound address, so a 0.0.0.0 bind fails on any machine)", async () => {
    await expectLoopbackOnly(port);
  });

  // Every kind of route the host has: the page, a static asset, an avatar, the proxy, an unknown path.
  const ROUTES = [
    "/",
    "/assets/index.js",
    "/avatar/yui.vrm",
    "/api/backend/yui/v1/models",
    "/api/backend/yui/v1/chat/completions",
    "/nope",
  ];
  const UPGRADES = ["/bridge", "/api/push/yui"];

  it.each(ROUTES)("refuses a non-loopback Host on %s with 421", async (path) => {
    const r = await rawRequest(port, path, { Host: "evil.example:80" });
    expect(r.status).toBe(GUARD_REFUSALS.host.status);
    expect(r.body).toContain(GUARD_REFUSALS.host.message);
  });
  it.each(ROUTES)("refuses a non-loopback Origin on %s with 403", async (path) => {
    const r = await rawRequest(port, path, { ...ok(), Origin: "http://evil.example" });
    expect(r.status).toBe(GUARD_REFUSALS.origin.status);
  });
  it.each(UPGRADES)("refuses the %s upgrade from a non-loopback Host (421) or Origin (403)", async (path) => {
    expect(await upgradeStatus(port, path, { Host: "evil.example" })).toBe(421);
    expect(await upgradeStatus(port, path, { ...ok(), Origin: "http://evil.example" })).toBe(403);
    // The bridge answers the host's own origin only: not another loopback name, not another port.
    expect(await upgradeStatus(port, "/bridge", { ...ok(), Origin: `http://localhost:${port}` })).toBe(403);
    expect(await upgradeStatus(port, "/bridge", { ...ok(), Origin: `http://127.0.0.1:${port + 1}` })).toBe(
      403,
    );
    expect(await upgradeStatus(port, "/bridge", { ...ok(), Origin: `http://127.0.0.1:${port}` })).toBe(101);
  });
  it("serves a loopback Origin and Host", async () => {
    const r = await rawRequest(port, "/api/backend/yui/v1/models", {
      ...ok(),
      Origin: `http://127.0.0.1:${port}`,
    });
    expect(r.status).toBe(200);
  });
});

describe("the backend proxy", () => {
  it("forwards only chat/completions, responses and models", async () => {
    for (const path of ["embeddings", "files", "../../../etc/passwd", "models/../admin"]) {
      const r = await rawRequest(port, `/api/backend/yui/v1/${path}`, ok());
      expect(r.status, path).toBe(404);
    }
    const r = await rawRequest(port, "/api/backend/yui/v1/embeddings", ok(), "POST", "{}");
    expect(JSON.parse(r.body).error.message).toBe(PROXY_ERRORS.notFound);
  });

  it("adds the stored key toward the backend and never answers it to the page", async () => {
    backend.enqueue({ body: chatStream({ text: ["hi"] }) });
    const r = await rawRequest(
      port,
      "/api/backend/yui/v1/chat/completions",
      { ...ok(), "content-type": "application/json", authorization: "Bearer page-made-up" },
      "POST",
      JSON.stringify({ messages: [{ role: "user", content: "x" }], stream: true }),
    );
    expect(r.status).toBe(200);
    expect(r.body).toContain('"content":"hi"');
    expect(backend.requests.at(-1)!.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(JSON.stringify(r.headers) + r.body).not.toContain(SECRET);
  });

  it("streams without buffering: the first byte reaches the page before the backend finishes", async () => {
    // The backend sends its first chunk and then waits for the page to have received it: a proxy that
    // buffered would never let the test get past this point.
    let firstSeen!: () => void;
    const seen = new Promise<void>((r) => {
      firstSeen = r;
    });
    let finished = false;
    const gated: Server = createServer(async (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write('data: {"n":1}\n\n');
      await seen;
      res.end('data: {"n":2}\n\ndata: [DONE]\n\n', () => {
        finished = true;
      });
    });
    await new Promise<void>((r) => gated.listen(0, "127.0.0.1", r));
    const gatedUrl = `http://127.0.0.1:${(gated.address() as AddressInfo).port}/v1`;
    savePreset(host.store, {
      id: "gated",
      name: "Gated",
      avatar: "",
      voice: "",
      persona: "",
      backend: { transport: "chat", base_url: gatedUrl },
    });
    const res = await hostFetch(host, "/api/backend/gated/v1/chat/completions", {
      method: "POST",
      body: "{}",
    });
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain('{"n":1}');
    expect(finished).toBe(false);
    firstSeen();
    let rest = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      rest += new TextDecoder().decode(value);
    }
    expect(rest).toContain("[DONE]");
    await new Promise<void>((r) => gated.close(() => r()));
  });

  it("answers a backend that is down with a 502 that says so in plain words", async () => {
    const deadUrl = `http://127.0.0.1:${await freePort()}/v1`;
    savePreset(host.store, {
      id: "down",
      name: "Down",
      avatar: "",
      voice: "",
      persona: "",
      backend: { transport: "chat", base_url: deadUrl },
    });
    const r = await rawRequest(port, "/api/backend/down/v1/chat/completions", ok(), "POST", "{}");
    expect(r.status).toBe(502);
    expect(JSON.parse(r.body).error.message).toBe(PROXY_ERRORS.unreachable(deadUrl, "connection refused"));
  });
});

describe("the push relay", () => {
  it("relays a push client's connection to the preset's push_url with the host's token", async () => {
    const token = "push-token-9c1e";
    const push = await startPushBackend({
      token,
      onTurn: (t) => {
        t.segment("Hello through the host.");
        t.end();
      },
    });
    savePreset(host.store, {
      id: "pushy",
      name: "Pushy",
      avatar: "",
      voice: "",
      persona: "",
      backend: { transport: "push", push_url: push.url },
    });
    host.store.set(PRESET_KEYS.apiKey("pushy"), token, "test");
    const client = createPushClient({
      url: `ws://127.0.0.1:${port}/api/push/pushy`,
      connect: (url, headers, h) => nodeConnect(url, { ...headers, ...secretHeaders(host) }, h),
      hello: () => ({ preset: { id: "pushy", name: "Pushy" }, window: "browser", tools: [] }),
    });
    client.start();
    const end = await client.runTurn({ text: "hi", context: "" });
    expect(end.outcome).toBe("spoken");
    expect(end.text).toBe("Hello through the host.");
    expect(push.upgrades[0]!.authorization).toBe(`Bearer ${token}`);
    expect(push.hellos[0]!.window).toBe("browser");
    client.close();
    await push.close();
  });

  it("answers a page's heartbeat itself and never forwards it", async () => {
    const push = await startPushBackend();
    savePreset(host.store, {
      id: "beat",
      name: "Beat",
      avatar: "",
      voice: "",
      persona: "",
      backend: { transport: "push", push_url: push.url },
    });
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api/push/beat`, { headers: secretHeaders(host) });
    const got: string[] = [];
    ws.on("message", (d) => got.push(d.toString()));
    await new Promise((r) => ws.once("open", r));
    ws.send(JSON.stringify({ type: "hello", v: 1 }));
    await expect.poll(() => push.frames.length).toBeGreaterThan(0);
    ws.send(RELAY_PING);
    await expect.poll(() => got.includes(RELAY_PONG)).toBe(true);
    expect(push.frames.some((f) => f.frame.type === "yui.relay.ping")).toBe(false);
    ws.close();
    await push.close();
  });

  it("refuses a preset without a push URL", async () => {
    expect(await upgradeStatus(port, "/api/push/yui", ok())).toBe(404);
  });
});

describe("the bridge", () => {
  it("never sends a key to a page: not in the snapshot, not in change events, not in command answers", async () => {
    const a = await bridgeClient(host);
    const b = await bridgeClient(host);
    expect(JSON.stringify(a.snapshot)).not.toContain(SECRET);
    expect(a.snapshot[PRESET_KEYS.apiKey("yui")]).toBeUndefined();
    expect((await a.invoke("api_key_set", { presetId: "yui", key: `${SECRET}-2` })).ok).toBe(true);
    const status = await a.invoke("api_key_status", { presetId: "yui" });
    expect(status.value).toEqual({ stored: true, inForce: true });
    const refused = await a.invoke("store_set", { key: PRESET_KEYS.apiKey("yui"), value: "x" });
    expect(refused.ok).toBe(false);
    await b.invoke("store_set", { key: "yui.relations", value: { enabled: false } });
    await a.invoke("store_set", { key: "yui.relations", value: { enabled: true } });
    // b saw a's write as an event, and the key change as a value-less event.
    const events = () =>
      b.frames.map((f) => JSON.parse(f)).filter((f) => f.type === "event" && f.name === STORE_CHANGED_EVENT);
    await expect
      .poll(() => events().some((e) => e.payload.key === "yui.relations" && e.payload.value.enabled === true))
      .toBe(true);
    expect(
      events().some((e) => e.payload.key === PRESET_KEYS.apiKey("yui") && e.payload.secret === true),
    ).toBe(true);
    const all = [...a.frames, ...b.frames].join("\n");
    expect(all).not.toContain(SECRET);
    a.close();
    b.close();
  });

  it("relays a window event to every window, but never lets a window pose as the host", async () => {
    const a = await bridgeClient(host);
    const b = await bridgeClient(host);
    a.emit(STORE_CHANGED_EVENT, { key: "yui.browser", value: { enabled: true } });
    // A payload that is not the event's shape is dropped; the one after it, which is, reaches b.
    a.emit("yui://character-addressed", { hello: 1 });
    const addressed = {
      exchange: "x1",
      chain: 1,
      from: { id: "yui", name: "YUI" },
      to: { id: "mika", name: "Mika" },
      text: "Mika, look!",
      turnId: "t1",
    };
    a.emit("yui://character-addressed", addressed);
    const relayed = () =>
      b.frames.map((f) => JSON.parse(f)).filter((f) => f.name === "yui://character-addressed");
    await expect.poll(() => relayed().length, { timeout: 5000 }).toBe(1);
    expect(relayed()[0].payload).toEqual(addressed);
    // A window cannot pose as the host: a store change is the host's event alone.
    expect(b.frames.some((f) => f.includes(STORE_CHANGED_EVENT))).toBe(false);
    a.close();
    b.close();
  });

  it("lets one window only claim an addressed turn", async () => {
    const a = await bridgeClient(host);
    const b = await bridgeClient(host);
    const args = { presetId: "yui", turnId: "t-1" };
    const [x, y] = await Promise.all([a.invoke("addressed_claim", args), b.invoke("addressed_claim", args)]);
    expect([x.value, y.value].sort()).toEqual([false, true]);
    expect((await a.invoke("addressed_claim", { presetId: "mika", turnId: "t-1" })).value).toBe(true);
    a.close();
    b.close();
  });

  it("answers an unknown command and a refused value with an error, never a crash", async () => {
    const a = await bridgeClient(host);
    expect((await a.invoke("no_such_command")).error).toBe("unknown command: no_such_command");
    const bad = await a.invoke("store_set", { key: "yui.browser", value: { enabled: "yes" } });
    expect(bad.ok).toBe(false);
    a.close();
  });

  it("saves a valid vocabulary whole and refuses an invalid one naming the file and the field", async () => {
    const a = await bridgeClient(host);
    const got = (await a.invoke("vocabulary_get")).value as { vocabulary: Vocabulary; shipped: boolean };
    expect(got.shipped).toBe(true);
    const next = { ...got.vocabulary, motion_selection: ["wave"] };
    expect((await a.invoke("vocabulary_set", { vocabulary: next })).ok).toBe(true);
    const file = join(dir, VOCABULARY_FILE);
    expect(JSON.parse(readFileSync(file, "utf8")).motion_selection).toEqual(["wave"]);
    const bad = await a.invoke("vocabulary_set", { vocabulary: { ...next, emotions: [] } });
    expect(bad.error).toMatch(
      new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: field emotions: `),
    );
    expect(JSON.parse(readFileSync(file, "utf8")).motion_selection).toEqual(["wave"]);
    a.close();
  });

  it("tests a connection with a verdict in words", async () => {
    const a = await bridgeClient(host);
    expect((await a.invoke("backend_test", { presetId: "yui" })).value).toEqual({
      ok: true,
      verdict: TEST_VERDICTS.ok(1),
      models: ["scripted-model"],
    });
    const down = (await a.invoke("backend_test", { presetId: "down" })).value as {
      ok: boolean;
      verdict: string;
    };
    expect(down.ok).toBe(false);
    expect(down.verdict).toMatch(/^Cannot reach http:\/\/127\.0\.0\.1:\d+\/v1 \(connection refused\)/);
    a.close();
  });
});

describe("starting", () => {
  it("says which port is taken and how to choose another", async () => {
    const err = await startHost({ port, dataDir: dir, env: {}, browserCommands: false }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(PortInUseError);
    expect((err as Error).message).toBe(new PortInUseError(port).message);
    expect((err as Error).message).toContain(`port ${port}`);
    expect((err as Error).message).toContain("--port");
  });

  it("seeds a fresh store's preset from OPENAI_BASE_URL and OPENAI_MODEL, else Ollama", async () => {
    const fresh = mkdtempSync(join(tmpdir(), "yui-fresh-"));
    const h1 = await startHost({ port: 0, dataDir: fresh, env: {}, browserCommands: false });
    expect((h1.store.get("yui.presets") as { backend: { base_url: string } }[])[0]!.backend.base_url).toBe(
      OLLAMA_BASE_URL,
    );
    await h1.close();
    const fresh2 = mkdtempSync(join(tmpdir(), "yui-fresh-"));
    const env = { OPENAI_BASE_URL: backend.url, OPENAI_MODEL: "m1", OPENAI_API_KEY: SECRET };
    const h2 = await startHost({ port: 0, dataDir: fresh2, env, browserCommands: false });
    const p = (h2.store.get("yui.presets") as { backend: { base_url: string; model: string } }[])[0]!;
    expect(p.backend).toEqual({ transport: "chat", base_url: backend.url, model: "m1" });
    // The environment's key is used toward the environment's backend, and never stored.
    expect(h2.store.list()).not.toContain(PRESET_KEYS.apiKey("yui"));
    backend.enqueue({ body: chatStream({ text: ["ok"] }) });
    await rawRequest(h2.port, "/api/backend/yui/v1/chat/completions", ok(h2), "POST", "{}");
    expect(backend.requests.at(-1)!.headers.authorization).toBe(`Bearer ${SECRET}`);
    await h2.close();
    rmSync(fresh, { recursive: true, force: true });
    rmSync(fresh2, { recursive: true, force: true });
  });

  it("parses serve's options and refuses bad ones", () => {
    expect(parseServeArgs(["--port", "0", "--no-open"])).toEqual({ port: 0, open: false });
    expect(parseServeArgs(["--port=9000"])).toEqual({ port: 9000, open: true });
    expect(() => parseServeArgs(["--port", "x"])).toThrow("--port needs a number from 0 to 65535 (got x)");
    expect(() => parseServeArgs(["--what"])).toThrow("unknown option --what");
  });
});
