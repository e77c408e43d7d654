import { afterEach, describe, expect, it } from "vitest";
import { nodeConnect } from "../host/push-socket.ts";
import { Addressing } from "../src/app/addressing/addressing.ts";
import type { KeyValue } from "../src/app/presets/presets.ts";
import { createGenerateExpressTool } from "../src/app/tools/express.ts";
import { relationsFromStore } from "../src/app/tools/relation.ts";
import type { WindowKind } from "../src/app/tools/window-tools.ts";
import { createWindowTools } from "../src/app/tools/window-tools.ts";
import { DEFAULT_VOCABULARY } from "../src/app/vocabulary/vocabulary.ts";
import {
  createPushClient,
  helloTools,
  type PushClient,
  type PushConnectionEvent,
} from "../src/io/chat/push/client.ts";
import { placeCues } from "../src/io/chat/push/segments.ts";
import type { EngineEvent } from "../src/io/chat/stream/types.ts";
import type { ClientTool } from "../src/io/chat/tools/client-tools.ts";
import type { AvatarExecutor } from "../src/protocol/body.ts";
import { type PushBackend, startPushBackend } from "../tools/push-backend/server.ts";
import { scriptedInvoke } from "../tools/testing/invoke.ts";

function memoryKv(init: Record<string, unknown> = {}): KeyValue {
  const data = new Map<string, unknown>(Object.entries(init));
  return { get: (k) => data.get(k), set: (k, v) => void data.set(k, v) };
}

const presets = [
  {
    id: "yui",
    name: "YUI",
    avatar: "",
    voice: "",
    persona: "",
    backend: { transport: "push", base_url: "", push_url: "ws://x" },
  },
  {
    id: "aoi",
    name: "Aoi",
    avatar: "",
    voice: "",
    persona: "",
    backend: { transport: "push", base_url: "", push_url: "ws://x" },
  },
];

const executor: AvatarExecutor = {
  bodyAction: async () => "ok",
  bodyState: async () => ({ posture: "standing" }),
  perchTargets: async () => ({}),
  screenshot: async () => ({ display: 1, dataUrl: "data:image/jpeg;base64,AA" }),
};

let backend: PushBackend | undefined;
let client: PushClient | undefined;
afterEach(async () => {
  client?.close();
  await backend?.close();
  client = undefined;
  backend = undefined;
});

function setup(
  opts: { kind?: WindowKind; kv?: KeyValue; extraTools?: ClientTool[]; token?: string; idleMs?: number } = {},
) {
  const kv =
    opts.kv ??
    memoryKv({ "yui.presets": presets, "yui.presets.active": "yui", "yui.relations": { enabled: true } });
  const win = {
    tools: createWindowTools({
      kv,
      kind: opts.kind ?? "main",
      presetId: "yui",
      addressing: new Addressing({ self: { id: "yui", name: "YUI" } }),
      invoke: scriptedInvoke().invoke,
      avatarExecutor: () => executor,
      relations: relationsFromStore(kv),
    }),
  };
  const global: { e: EngineEvent | PushConnectionEvent; turnId?: string }[] = [];
  const c = createPushClient({
    url: backend!.url,
    token: opts.token,
    connect: nodeConnect,
    hello: () => ({
      preset: { id: "yui", name: "YUI" },
      window: opts.kind ?? "main",
      tools: [...win.tools(), ...(opts.extraTools ?? [])],
    }),
    onEvent: (e, turnId) => global.push({ e, turnId }),
    backoff: { baseMs: 20, capMs: 100, stableMs: 30_000 },
    idleMs: opts.idleMs,
  });
  client = c;
  c.start();
  return { c, win, kv, global };
}

async function turn(c: PushClient, text: string, signal?: AbortSignal) {
  const events: EngineEvent[] = [];
  const end = await c.runTurn({ text, context: "[client context]", signal, onEvent: (e) => events.push(e) });
  return { end, events };
}

describe("push: hello", () => {
  it.each(["main", "pet", "bound", "browser", "phone"] as const)(
    "the %s window's hello declares its registry without generate_express, as yui tools prints it",
    async (kind) => {
      backend = await startPushBackend();
      const { win } = setup({ kind });
      await backend.connected(1);
      const hello = backend.hellos[0]!;
      expect(hello).toMatchObject({ type: "hello", v: 1, preset: { id: "yui", name: "YUI" }, window: kind });
      expect(hello.tools).toEqual(JSON.parse(JSON.stringify(helloTools(win.tools()))));
      const names = (hello.tools as { name: string }[]).map((t) => t.name);
      expect(names).not.toContain("generate_express");
    },
  );

  it("sends the token as a bearer Authorization header", async () => {
    backend = await startPushBackend({ token: "s3cret" });
    setup({ token: "s3cret" });
    await backend.connected(1);
    expect(backend.upgrades[0]!.authorization).toBe("Bearer s3cret");
  });
});

describe("push: segments and cues", () => {
  it("places cues at their code-point positions in the speech", () => {
    expect(
      placeCues("🌸 hi there", [
        { at: 2, emotion_id: "happy" },
        { at: 0, motion_id: "wave" },
        { at: 99, emotion_id: "shy" },
      ]),
    ).toEqual([
      { kind: "cue", cue: { motion_id: "wave" } },
      { kind: "text", text: "🌸 " },
      { kind: "cue", cue: { emotion_id: "happy" } },
      { kind: "text", text: "hi there" },
      { kind: "cue", cue: { emotion_id: "shy" } },
    ]);
  });

  it("a turn's segments reach the events with each cue at its offset, and the turn ends as the backend says", async () => {
    backend = await startPushBackend({
      onTurn: (t) => {
        t.segment("Oh, hello! ", [
          { at: 0, emotion_id: "surprised" },
          { at: 4, emotion_id: "happy", motion_id: "wave" },
        ]);
        t.segment("See this:", [], "speech");
        t.segment("https://example.org", undefined, "render");
        t.end("spoken");
      },
    });
    const { c } = setup();
    const { end, events } = await turn(c, "hi");
    expect(end).toMatchObject({
      outcome: "spoken",
      text: "Oh, hello! See this:https://example.org",
      error: null,
    });
    const flow = events
      .filter((e) => e.type !== "request")
      .map((e) =>
        e.type === "cue"
          ? `cue@${e.offset}:${JSON.stringify(e.arguments)}`
          : e.type === "text"
            ? `text:${e.delta}${e.render ? "(render)" : ""}`
            : e.type,
      );
    expect(flow).toEqual([
      'cue@0:{"emotion_id":"surprised"}',
      "text:Oh, ",
      'cue@4:{"emotion_id":"happy","motion_id":"wave"}',
      "text:hello! ",
      "text:See this:",
      "text:https://example.org(render)",
      "turn_end",
    ]);
    expect(backend.frames.find((f) => f.frame.type === "turn")!.frame).toEqual({
      type: "turn",
      turn_id: expect.any(String),
      origin: "user",
      text: "hi",
      context: "[client context]",
    });
  });

  it("a turn the backend starts on its own reaches the client's global events", async () => {
    backend = await startPushBackend();
    const { global } = setup();
    await backend.connected(1);
    await backend.startTurn("b-1", (t) => {
      t.segment("Psst!", [{ at: 0, emotion_id: "happy" }]);
      t.end();
    });
    await until(() => global.some((g) => g.e.type === "turn_end"));
    expect(global.filter((g) => g.turnId === "b-1").map((g) => g.e.type)).toEqual([
      "cue",
      "text",
      "turn_end",
    ]);
  });
});

describe("push: tool calls", () => {
  it("answers declared tools with their exact strings, and undeclared ones with error: unknown tool", async () => {
    const results: Record<string, unknown> = {};
    backend = await startPushBackend({
      onTurn: async (t) => {
        results.rate = (
          await t.call("rate_relation", { toward: "user", delta: 1, why: "kind words" })
        ).result;
        results.again = (await t.call("rate_relation", '{"toward":"user","delta":1,"why":"more"}')).result;
        results.browser = (await t.call("browser", { code: "console.log(1)" })).result;
        results.express = (await t.call("generate_express", { emotion_id: "happy" })).result;
        results.nope = (await t.call("teleport", {})).result;
        results.bad = (await t.call("look", "{not json")).result;
        t.end();
      },
    });
    const { c } = setup();
    const { events } = await turn(c, "hi");
    expect(results).toEqual({
      rate: "neutral",
      again: "ignored: already rated user this turn",
      browser: "error: browser is off",
      express: "error: unknown tool",
      nope: "error: unknown tool",
      bad: expect.stringMatching(/^error: arguments JSON parse failed: /),
    });
    expect(events.filter((e) => e.type === "tool_call").map((e) => e.name)).toEqual([
      "rate_relation",
      "rate_relation",
      "browser",
      "generate_express",
      "teleport",
      "look",
    ]);
  });

  it("outside main, look is undeclared and answers error: unknown tool", async () => {
    let answer: unknown;
    backend = await startPushBackend({
      onTurn: async (t) => {
        answer = (await t.call("look", { at: "body" })).result;
        t.end();
      },
    });
    const { c } = setup({ kind: "bound" });
    await turn(c, "hi");
    expect(answer).toBe("error: unknown tool");
  });

  it("an image result carries its text in result and its data URLs in images", async () => {
    let frame: Record<string, unknown> | undefined;
    backend = await startPushBackend({
      onTurn: async (t) => {
        frame = await t.call("look", { at: "screen" });
        t.end();
      },
    });
    const { c } = setup({
      kv: memoryKv({
        "yui.presets": presets,
        "yui.presets.active": "yui",
        "yui.screen_capture": { enabled: true },
      }),
    });
    await turn(c, "look");
    expect(frame).toEqual({
      type: "tool_result",
      turn_id: expect.any(String),
      call_id: "call_1",
      result: "screenshot of display 1",
      images: ["data:image/jpeg;base64,AA"],
    });
  });

  it("a call in flight when the connection drops is answered after the reconnect's welcome", async () => {
    let release!: () => void;
    const slow: ClientTool = {
      name: "slow",
      description: "waits",
      parameters: { type: "object", properties: {} },
      run: () => new Promise((r) => (release = () => r("finally"))),
    };
    let result: Record<string, unknown> | undefined;
    backend = await startPushBackend({
      onTurn: async (t) => {
        const p = t.call("slow", {});
        await until(() => release !== undefined);
        t.drop();
        await backend!.connected(2);
        release();
        result = await p;
        t.end();
      },
    });
    const { c } = setup({ extraTools: [slow] });
    const { end } = await turn(c, "go");
    expect(end.outcome).toBe("spoken");
    expect(result).toMatchObject({ type: "tool_result", call_id: "call_1", result: "finally" });
    const conn2 = backend.frames.filter((f) => f.conn === 2).map((f) => f.frame.type);
    expect(conn2).toEqual(["hello", "tool_result"]);
  });
});

describe("push: a call past its wait", () => {
  it("answers error: timed out after <n> s and aborts the call's work, so a call answered is over", async () => {
    let seen: AbortSignal | undefined;
    const hang: ClientTool = {
      name: "hang",
      description: "runs until it is aborted",
      parameters: { type: "object", properties: {} },
      waitMs: 1_000,
      run: (_args, ctx) =>
        new Promise((r) => {
          seen = ctx.signal;
          ctx.signal.addEventListener("abort", () => r("aborted"), { once: true });
        }),
    };
    let result: unknown;
    backend = await startPushBackend({
      onTurn: async (t) => {
        result = (await t.call("hang", {})).result;
        t.end();
      },
    });
    const { c } = setup({ extraTools: [hang] });
    await turn(c, "go");
    expect(result).toBe("error: timed out after 1 s");
    expect(seen?.aborted).toBe(true);
  });
});

describe("push: one call per call id", () => {
  it("a second tool_call frame with the same turn_id and call_id is not run and gets no second tool_result", async () => {
    const runs: unknown[] = [];
    const count: ClientTool = {
      name: "count",
      description: "counts",
      parameters: { type: "object", properties: {}, additionalProperties: true },
      run: async (args) => {
        runs.push(args);
        return `run ${runs.length}`;
      },
    };
    let last: Record<string, unknown> | undefined;
    let empty: Record<string, unknown> | undefined;
    backend = await startPushBackend({
      onTurn: async (t) => {
        const frame = (n: number) =>
          JSON.stringify({
            type: "tool_call",
            turn_id: t.turnId,
            call_id: "dup",
            name: "count",
            arguments: { n },
          });
        backend!.sendRaw(frame(1));
        backend!.sendRaw(frame(2));
        // Calls of a turn run in arrival order: this one's result comes after the frames above were handled.
        last = await t.call("count", { n: 3 });
        empty = await t.call("count", "");
        t.end();
      },
    });
    const { c } = setup({ extraTools: [count] });
    const { events } = await turn(c, "go");
    expect(runs).toEqual([{ n: 1 }, { n: 3 }]);
    const results = backend.frames.filter((f) => f.frame.type === "tool_result").map((f) => f.frame);
    expect(results.filter((f) => f.call_id === "dup")).toEqual([
      { type: "tool_result", turn_id: expect.any(String), call_id: "dup", result: "run 1" },
    ]);
    expect(last).toMatchObject({ result: "run 2" });
    expect(events.filter((e) => e.type === "tool_call").map((e) => e.call_id)).toEqual([
      "dup",
      last!.call_id,
      empty!.call_id,
    ]);
    // "" is not JSON: the unparseable-arguments rule.
    let message = "";
    try {
      JSON.parse("");
    } catch (e) {
      message = (e as Error).message;
    }
    expect(empty).toMatchObject({ result: `error: arguments JSON parse failed: ${message}` });
  });
});

describe("push: connection", () => {
  it("reconnects with a fresh hello that lists a preset opened meanwhile", async () => {
    backend = await startPushBackend();
    const kv = memoryKv({ "yui.presets": presets, "yui.presets.active": "yui" });
    setup({ kv });
    await backend.connected(1);
    const toward = (i: number) =>
      (
        backend!.hellos[i]!.tools as {
          name: string;
          parameters: { properties: { toward: { enum: string[] } } };
        }[]
      ).find((t) => t.name === "rate_relation")!.parameters.properties.toward.enum;
    expect(toward(0)).toEqual(["user"]);
    kv.set("yui.presets.open", ["aoi"]);
    backend.dropConnection();
    await backend.connected(2);
    expect(toward(1)).toEqual(["user", "Aoi"]);
  });

  it("answers a malformed frame with a bad_frame error and keeps the connection", async () => {
    backend = await startPushBackend({
      onTurn: (t) => {
        backend!.sendRaw("{oops");
        backend!.sendRaw(JSON.stringify({ type: "segment", turn_id: t.turnId }));
        backend!.sendRaw(JSON.stringify({ type: "future_thing", x: 1 }));
        t.segment("still here");
        t.end();
      },
    });
    const { c } = setup();
    const { end } = await turn(c, "hi");
    expect(end).toMatchObject({ outcome: "spoken", text: "still here" });
    await until(() => backend!.frames.filter((f) => f.frame.type === "error").length >= 2);
    const errors = backend.frames.filter((f) => f.frame.type === "error").map((f) => f.frame);
    expect(errors).toEqual([
      { type: "error", code: "bad_frame", message: expect.stringMatching(/^not JSON/) },
      {
        type: "error",
        code: "bad_frame",
        message: "segment: field text: Invalid input: expected string, received undefined",
      },
    ]);
    expect(new Set(backend.frames.map((f) => f.conn))).toEqual(new Set([1]));
  });

  it("a stopped turn sends stop and ends as stopped at once", async () => {
    backend = await startPushBackend({ onTurn: (t) => t.segment("thinking...") });
    const { c } = setup();
    const ac = new AbortController();
    const p = c.runTurn({
      text: "hi",
      context: "",
      signal: ac.signal,
      onEvent: (e) => e.type === "text" && ac.abort(),
    });
    const end = await p;
    expect(end).toMatchObject({ outcome: "stopped", text: "thinking..." });
    await until(() => backend!.frames.some((f) => f.frame.type === "stop"));
  });

  it("a turn that hears nothing for the idle timeout ends as error", async () => {
    backend = await startPushBackend({ onTurn: () => {} });
    const { c } = setup({ idleMs: 200 });
    const { end } = await turn(c, "hi");
    expect(end).toMatchObject({ outcome: "error", error: "push backend went quiet" });
  });

  it("an unsupported version is reported and the client keeps retrying", async () => {
    backend = await startPushBackend({
      onHello: (_h, ws) => {
        ws.send(JSON.stringify({ type: "error", code: "unsupported_version", message: "speaks v2 only" }));
        ws.close();
        return true;
      },
    });
    const { global } = setup();
    await until(() => backend!.hellos.length >= 2);
    expect(global.find((g) => g.e.type === "protocol_error")?.e).toEqual({
      type: "protocol_error",
      code: "unsupported_version",
      message: "speaks v2 only",
    });
  });
});

describe("push: the connection's states, end to end", () => {
  const info = (tools: ClientTool[] = []) => ({ preset: { id: "yui", name: "YUI" }, window: "main", tools });

  it("sends nothing but hello before welcome; no welcome in time closes and dials again with a fresh hello", async () => {
    backend = await startPushBackend({ onHello: () => true });
    const global: (EngineEvent | PushConnectionEvent)[] = [];
    const c = createPushClient({
      url: backend.url,
      connect: nodeConnect,
      hello: () => info(),
      onEvent: (e) => global.push(e),
      welcomeTimeoutMs: 100,
      backoff: { baseMs: 20, capMs: 100, stableMs: 30_000 },
    });
    client = c;
    c.start();
    void c.runTurn({ text: "hi", context: "" });
    await until(() => backend!.hellos.length >= 2);
    expect(global).toContainEqual({
      type: "connection",
      state: "closed",
      attempt: 0,
      error: "no welcome within the timeout",
    });
    expect(backend.frames.map((f) => f.frame.type)).toEqual(backend.hellos.map(() => "hello"));
    expect(c.isOpen()).toBe(false);
  });

  it("close() while the hello is being built dials nothing", async () => {
    backend = await startPushBackend();
    let release!: () => void;
    const built = new Promise<void>((r) => {
      release = r;
    });
    let dials = 0;
    const c = createPushClient({
      url: backend.url,
      connect: (url, headers, h) => {
        dials++;
        return nodeConnect(url, headers, h);
      },
      hello: async () => {
        await built;
        return info();
      },
    });
    client = c;
    c.start();
    c.close();
    release();
    // The hello resolves after close(): the client must not dial with it.
    await built;
    await new Promise((r) => setImmediate(r));
    expect(dials).toBe(0);
  });

  it("declaredTools() waits for the hello being built and gives its tools without generate_express", async () => {
    backend = await startPushBackend();
    const { win, c } = setup({ extraTools: [createGenerateExpressTool(DEFAULT_VOCABULARY)] });
    const names = (await c.declaredTools()).map((t) => t.name);
    expect(names).toEqual(win.tools().map((t) => t.name));
    expect(names).not.toContain("generate_express");
    await backend.connected(1);
    expect(names).toEqual((backend.hellos[0]!.tools as { name: string }[]).map((t) => t.name));
  });
});

async function until(cond: () => boolean, ms = 10_000): Promise<void> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > ms) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}
