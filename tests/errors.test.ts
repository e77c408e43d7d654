import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@yui/mod-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeConnect } from "../host/push-socket.ts";
import { PROXY_ERRORS } from "../host/server/proxy.ts";
import { type Host, startHost } from "../host/server/server.ts";
import { signedFetch } from "../host/server/testing.ts";
import type { Preset } from "../src/app/presets/preset.ts";
import { savePreset } from "../src/app/presets/presets.ts";
import { createPushClient } from "../src/io/chat/push/client.ts";
import { createChatEngine } from "../src/io/chat/stream/engine.ts";
import type { EngineOptions, TurnError } from "../src/io/chat/stream/types.ts";
import { proxyBaseUrl } from "../src/ui/backend.ts";
import { CHAT_ERRORS, CUT_OFF, cutOffNote, plainError } from "../src/ui/errors.ts";
import { startPushBackend } from "../tools/push-backend/server.ts";
import {
  chatStream,
  type ScriptedBackend,
  sse,
  startScriptedBackend,
} from "../tools/scripted-backend/server.ts";

// What the chat shows for errors the engine really produces: each case runs a real turn through the real
// engine and the real host's proxy (as a page does, proxyBaseUrl) to a real server on loopback that is down,
// refuses the key, lacks the endpoint, fails, or stalls; the engine's own error string is then put in words.

let dir: string;
let host: Host;
let scripted: ScriptedBackend;
/** A backend that wants the key "right" and serves Chat Completions only (as an old server without /responses). */
let keyed: Server;
let keyedUrl: string;

const preset = (id: string, base_url: string, transport: "chat" | "responses" = "chat"): void => {
  const p: Preset = { id, name: id, avatar: "", voice: "", persona: "", backend: { transport, base_url } };
  savePreset(host.store, p);
};

/** One turn of preset `id` through the host's proxy; returns the engine's error and what the chat shows. */
async function turn(
  id: string,
  opts: Partial<EngineOptions> = {},
): Promise<{ error: string; failure: TurnError; shown: string }> {
  const engine = createChatEngine({
    transport: "chat",
    baseUrl: proxyBaseUrl(id, host.url.replace(/\/$/, "")),
    model: "m",
    // As a signed-in window: the host's door wants the launch secret (a page carries it in its cookie).
    fetch: signedFetch(host),
    ...opts,
  });
  const end = await engine.runTurn({ text: "hi", tools: [], presetId: id });
  expect(end.outcome, end.error ?? "").toBe("error");
  // The typed error carries the same message the turn's error string does; the chat words the typed one.
  expect(end.failure?.message).toBe(end.error);
  return { error: end.error!, failure: end.failure!, shown: plainError(end.failure!) };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "yui-errors-"));
  host = await startHost({ port: 0, dataDir: dir, env: {}, browserCommands: false });
  scripted = await startScriptedBackend();
  keyed = createServer((req, res) => {
    req.resume();
    if (!req.url?.endsWith("/chat/completions")) {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("404 page not found");
    } else if (req.headers.authorization !== "Bearer right") {
      res.writeHead(401, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "Incorrect API key provided", code: "invalid_api_key" } }));
    } else {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(chatStream({ text: ["ok"] }));
    }
  });
  await new Promise<void>((r) => keyed.listen(0, "127.0.0.1", r));
  keyedUrl = `http://127.0.0.1:${(keyed.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  await host?.close();
  await scripted?.close();
  await new Promise<void>((r) => (keyed ? keyed.close(() => r()) : r()));
  rmSync(dir, { recursive: true, force: true });
});

describe("errors in plain words, from real failures", () => {
  it("a backend that is down: the host's 502 sentence, naming the URL and the reason", async () => {
    const dead = `http://127.0.0.1:${await freePort()}/v1`;
    preset("down", dead);
    const { error, failure, shown } = await turn("down");
    expect(error).toMatch(/^backend answered HTTP 502/);
    expect(failure).toMatchObject({
      kind: "http",
      status: 502,
      url: `${proxyBaseUrl("down", host.url.replace(/\/$/, ""))}/chat/completions`,
    });
    expect(shown).toBe(PROXY_ERRORS.unreachable(dead, "connection refused"));
  });

  it("a refused key (401): check the API key", async () => {
    preset("keyed", keyedUrl);
    host.store.set("yui.keyed.api_key", "wrong", "test");
    const { error, failure, shown } = await turn("keyed");
    expect(error).toMatch(/^backend answered HTTP 401/);
    expect(failure).toMatchObject({ kind: "http", status: 401, detail: "Incorrect API key provided" });
    expect(shown).toBe(CHAT_ERRORS.auth(401));
    // Control: the right key gets an answer, so the 401 above was the key's doing.
    host.store.set("yui.keyed.api_key", "right", "test");
    const engine = createChatEngine({
      transport: "chat",
      baseUrl: proxyBaseUrl("keyed", host.url.replace(/\/$/, "")),
      fetch: signedFetch(host),
    });
    expect(await engine.runTurn({ text: "hi", tools: [], presetId: "keyed" })).toMatchObject({
      outcome: "spoken",
      text: "ok",
    });
  });

  it("an endpoint the backend lacks (404): check the base URL and the transport", async () => {
    preset("old", keyedUrl, "responses");
    host.store.set("yui.old.api_key", "right", "test");
    const { error, failure, shown } = await turn("old", { transport: "responses" });
    expect(error).toMatch(/^backend answered HTTP 404/);
    expect(failure).toMatchObject({ kind: "http", status: 404, detail: "404 page not found" });
    expect(shown).toBe(CHAT_ERRORS.notFound);
  });

  it("a backend failing with a message (500): the status and the backend's own message", async () => {
    preset("scripted", scripted.url);
    scripted.enqueue({ status: 500, body: JSON.stringify({ error: { message: "model crashed" } }) });
    const { failure, shown } = await turn("scripted");
    expect(failure).toMatchObject({ kind: "http", status: 500, detail: "model crashed" });
    expect(shown).toBe(CHAT_ERRORS.http(500, "model crashed"));
  });

  it("an error inside the stream: the backend's message", async () => {
    preset("scripted", scripted.url);
    scripted.enqueue({ body: `data: ${JSON.stringify({ error: { message: "upstream overloaded" } })}\n\n` });
    const { error, failure, shown } = await turn("scripted");
    expect(error).toMatch(/^backend error: /);
    expect(failure).toMatchObject({ kind: "backend", detail: "upstream overloaded" });
    expect(shown).toBe(CHAT_ERRORS.other("upstream overloaded"));
  });

  it("a stream that stalls past the idle timeout: stopped sending, try again", async () => {
    preset("scripted", scripted.url);
    scripted.enqueue({
      body: [
        chatStream({ text: ["I was saying"], finish: null, done: false }),
        chatStream({ text: ["..."] }),
      ],
      chunkDelayMs: 3000,
    });
    const { error, failure, shown } = await turn("scripted", { idleTimeoutMs: 300 });
    expect(error).toMatch(/stalled/);
    expect(failure.kind).toBe("stalled");
    expect(shown).toBe(CHAT_ERRORS.stalled);
  });

  it("YUI's own host gone: start it again", async () => {
    const gone = await startHost({
      port: 0,
      dataDir: mkdtempSync(join(dir, "gone-")),
      env: {},
      browserCommands: false,
    });
    const origin = gone.url.replace(/\/$/, "");
    await gone.close();
    const engine = createChatEngine({ transport: "chat", baseUrl: proxyBaseUrl("yui", origin) });
    const end = await engine.runTurn({ text: "hi", tools: [], presetId: "yui" });
    expect(end.error).toMatch(/^backend unreachable at /);
    expect(end.failure).toMatchObject({
      kind: "unreachable",
      url: `${proxyBaseUrl("yui", origin)}/chat/completions`,
    });
    expect(plainError(end.failure!)).toBe(CHAT_ERRORS.hostDown);
  });
});

describe("push turns' errors in plain words, from a real push backend", () => {
  /** One push turn against the reference push backend; returns the turn's end. */
  async function pushTurn(onTurn: Parameters<typeof startPushBackend>[0], idleMs?: number) {
    const backend = await startPushBackend(onTurn);
    const client = createPushClient({
      url: backend.url,
      connect: nodeConnect,
      hello: () => ({ preset: { id: "yui", name: "YUI" }, window: "main", tools: [] }),
      idleMs,
    });
    client.start();
    try {
      return await client.runTurn({ text: "hi", context: "" });
    } finally {
      client.close();
      await backend.close();
    }
  }

  it("a turn the backend ends with an error: the backend's own message", async () => {
    const end = await pushTurn({ onTurn: (t) => t.end("error", "model exploded") });
    expect(end).toMatchObject({ outcome: "error", error: "model exploded" });
    expect(end.failure).toEqual({ kind: "backend", message: "model exploded", detail: "model exploded" });
    expect(plainError(end.failure!)).toBe(CHAT_ERRORS.other("model exploded"));
  });

  it("a backend that goes quiet mid-turn: the push words, as the engine said them", async () => {
    const end = await pushTurn({ onTurn: (t) => t.segment("I was saying") }, 300);
    expect(end).toMatchObject({ outcome: "error", error: "push backend went quiet" });
    expect(end.failure).toMatchObject({ kind: "push", message: "push backend went quiet" });
    expect(plainError(end.failure!)).toBe(CHAT_ERRORS.other("push backend went quiet"));
  });
});

describe("a reply the backend cut off", () => {
  it("is a spoken turn whose note names the reason the backend gave, in words", async () => {
    preset("cut", scripted.url, "responses");
    const cutOff = (reason: string) =>
      sse(
        { type: "response.output_text.delta", delta: "So far" },
        {
          type: "response.incomplete",
          response: { id: "r1", status: "incomplete", incomplete_details: { reason } },
        },
      );
    const shown: string[] = [];
    for (const reason of ["max_output_tokens", "content_filter", "max_tool_calls"]) {
      scripted.enqueue({ body: cutOff(reason) });
      const engine = createChatEngine({
        transport: "responses",
        baseUrl: proxyBaseUrl("cut", host.url.replace(/\/$/, "")),
        fetch: signedFetch(host),
      });
      const end = await engine.runTurn({ text: "hi", tools: [], presetId: "cut" });
      expect(end).toMatchObject({ outcome: "spoken", text: "So far", incomplete: { reason } });
      shown.push(cutOffNote(end.incomplete!.reason));
    }
    expect(shown).toEqual([
      CUT_OFF.max_output_tokens,
      CUT_OFF.content_filter,
      CUT_OFF.other("max_tool_calls"),
    ]);
    expect(CUT_OFF.other("max_tool_calls")).toBe("Cut off by the backend (max_tool_calls).");
  });
});
