import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { nodeConnect } from "../host/push-socket.ts";
import { Addressing } from "../src/app/addressing/addressing.ts";
import type { KeyValue } from "../src/app/presets/presets.ts";
import { openPresets } from "../src/app/presets/presets.ts";
import { relationLineFor } from "../src/app/relations/access.ts";
import { createCharacterSession } from "../src/app/session/character-session.ts";
import { switchStates } from "../src/app/switches.ts";
import { relationsFromStore } from "../src/app/tools/relation.ts";
import { createWindowTools } from "../src/app/tools/window-tools.ts";
import type { SignalEvent } from "../src/app/turn/signal-turn.ts";
import { type BackendCaller, buildTurnRegistry, createTurnSender } from "../src/app/turn/wire-dispatcher.ts";
import { DEFAULT_VOCABULARY } from "../src/app/vocabulary/vocabulary.ts";
import { createPushClient, type PushClient } from "../src/io/chat/push/client.ts";
import { createChatEngine } from "../src/io/chat/stream/engine.ts";
import { characterPreset } from "../src/protocol/preset.ts";
import { type PushBackend, startPushBackend } from "../tools/push-backend/server.ts";
import {
  responsesStream,
  type ScriptedBackend,
  startScriptedBackend,
} from "../tools/scripted-backend/server.ts";
import { scriptedInvoke } from "../tools/testing/invoke.ts";

function memoryKv(init: Record<string, unknown> = {}): KeyValue {
  const data = new Map<string, unknown>(Object.entries(init));
  return { get: (k) => data.get(k), set: (k, v) => void data.set(k, v) };
}

const preset = (id: string, name: string) => characterPreset(id, name, { transport: "responses" });

let backend: ScriptedBackend;
beforeEach(async () => {
  backend = await startScriptedBackend();
});
afterEach(async () => {
  await backend.close();
});

/** main's window of YUI, with Aoi open beside her and relations on; the browser switch as given (unset: absent). */
function mainWindow(browser?: boolean) {
  const kv = memoryKv({
    "yui.presets": [preset("yui", "YUI"), preset("aoi", "Aoi")],
    "yui.presets.active": "yui",
    "yui.relations": { enabled: true },
    ...(browser === undefined ? {} : { "yui.browser": { enabled: browser } }),
  });
  const addressing = new Addressing({ self: { id: "yui", name: "YUI" } });
  const win = {
    tools: createWindowTools({
      kv,
      kind: "main",
      presetId: "yui",
      addressing,
      invoke: scriptedInvoke().invoke,
      relations: relationsFromStore(kv),
    }),
  };
  return { win: { ...win, kv }, addressing };
}

type NodeWindow = ReturnType<typeof mainWindow>["win"];

/** The turn sender of `win` over `caller`, with the default vocabulary. */
function senderOf(
  win: NodeWindow,
  caller: BackendCaller,
  more: Partial<Parameters<typeof createTurnSender>[0]> = {},
) {
  return createTurnSender({
    caller,
    presetId: "yui",
    vocabulary: () => DEFAULT_VOCABULARY,
    windowTools: () => win.tools(),
    switches: async () => switchStates(win.kv),
    // The relation: line, when the window declares rate_relation and Relations is on (as the session adds it).
    contextLines: async (tools) =>
      tools.some((t) => t.switchId === "relations")
        ? [relationLineFor(win.kv, "yui", openPresets(win.kv))]
        : [],
    ...more,
  });
}

/** A started push client for main's window on `url`, declaring `windowTools` at hello; resolves once connected. */
async function mainPushClient(push: PushBackend, windowTools: () => ReturnType<NodeWindow["tools"]>) {
  const c = createPushClient({
    url: push.url,
    connect: nodeConnect,
    hello: async () => ({
      preset: { id: "yui", name: "YUI" },
      window: "main",
      tools: await buildTurnRegistry({ vocabulary: () => DEFAULT_VOCABULARY, windowTools }),
    }),
  });
  c.start();
  await push.connected(1);
  return c;
}

/** One turn of main's window through the turn sender and the real engine, on the loopback backend. */
async function mainTurn(broker: boolean) {
  const { win } = mainWindow(true);
  const engine = createChatEngine({
    transport: "responses",
    baseUrl: broker ? "http://127.0.0.1:9/v1" : backend.url,
    ...(broker ? { brokerBaseUrl: backend.url } : {}),
  });
  const sender = senderOf(win, engine);
  backend.enqueue({ body: responsesStream({ id: "r1", text: ["やあ"] }) });
  const end = await sender.runTurn({ text: "hi" });
  expect(end.outcome).toBe("spoken");
  const body = backend.requests.at(-1)!.body as {
    tools?: unknown[];
    input: { role: string; content: string }[];
  };
  return { body, context: body.input.find((i) => i.role === "system")!.content };
}

describe("the client context describes the tools the request declares", () => {
  it("with broker_base_url (deprecated) the client declares none, so no tool switches: or relation: line; without it, both", async () => {
    const brokered = await mainTurn(true);
    expect(brokered.body).not.toHaveProperty("tools");
    expect(brokered.context).toMatch(/^\[client context\]\ntime: [^\n]*$/);
    // The control: the same window without the broker declares its tools and describes them.
    const direct = await mainTurn(false);
    expect(direct.body.tools?.length).toBeGreaterThan(0);
    expect(direct.context).toMatch(
      /^\[client context\]\ntime: .*\ntool switches: relations=on, browser=on, screen=off\nrelation: user neutral$/,
    );
  });
});

describe("on push the tools are declared at hello, not per turn", () => {
  let push: PushBackend | undefined;
  let client: PushClient | undefined;
  afterEach(async () => {
    client?.close();
    await push?.close();
  });

  /** main's window on a push client, as `yui chat` and the page wire it; counts the window's tool builds. */
  async function pushTurn(withDeclared: boolean) {
    push = await startPushBackend({
      onTurn: (t) => {
        t.segment("hello");
        t.end();
      },
    });
    const { win } = mainWindow(false);
    let builds = 0;
    const windowTools = () => {
      builds++;
      return win.tools();
    };
    const c = await mainPushClient(push, windowTools);
    client = c;
    const caller: BackendCaller = {
      runTurn: (i) => c.runTurn({ ...i, context: i.context ?? "" }),
      ...(withDeclared ? { declaredTools: () => c.declaredTools() } : {}),
    };
    const sender = senderOf(win, caller, {
      windowTools,
      now: () => new Date("2026-12-01T12:00:00Z"),
      timeZone: "UTC",
    });
    const before = builds;
    const end = await sender.runTurn({ text: "hi" });
    expect(end.outcome).toBe("spoken");
    const turn = push.frames.find((f) => f.frame.type === "turn")!.frame;
    const result = { context: turn.context, buildsInTurn: builds - before, hello: push.hellos[0]!.tools };
    c.close();
    await push.close();
    client = undefined;
    push = undefined;
    return result;
  }

  it("a turn builds no registry of its own, and its context, describing hello's tools, is the one sent before", async () => {
    const declared = await pushTurn(true);
    expect(declared.buildsInTurn).toBe(0);
    expect(declared.context).toBe(
      "[client context]\ntime: 2026-12-01 12:00 Tue (UTC)\ntool switches: relations=on, browser=off, screen=off\nrelation: user neutral",
    );
    // The control: a caller that declares per turn builds the window's tools for the turn, and the backend
    // receives the same hello and the same turn context either way.
    const perTurn = await pushTurn(false);
    expect(perTurn.buildsInTurn).toBe(1);
    expect(perTurn.context).toBe(declared.context);
    expect(perTurn.hello).toEqual(declared.hello);
  });
});

describe("on push a turn's frame says why it runs", () => {
  let push: PushBackend | undefined;
  let client: PushClient | undefined;
  afterEach(async () => {
    client?.close();
    await push?.close();
  });

  it("a user turn goes out with origin user, an addressed turn with addressed, a signal turn with signal", async () => {
    push = await startPushBackend({
      onTurn: (t) => {
        t.segment("ok");
        t.end();
      },
    });
    const { win } = mainWindow();
    const session = createCharacterSession({
      presetId: "yui",
      kind: "main",
      kv: win.kv,
      backend: (_p, hello) => {
        const c = createPushClient({ url: push!.url, connect: nodeConnect, hello });
        client = c;
        c.start();
        return {
          runTurn: (i) => c.runTurn({ ...i, context: i.context ?? "" }),
          declaredTools: () => c.declaredTools(),
        };
      },
      vocabulary: () => DEFAULT_VOCABULARY,
      windowTools: () => win.tools,
      emitAddressed: () => {},
    });
    const turns = {
      userTurn: (text: string) => session.userTurn(text),
      addressedTurn: (payload: unknown) => session.addressedTurn(payload, { text: "", from: "" }),
      signalTurn: (sig: SignalEvent) => session.signalTurn(sig, { text: "", from: "signal" }),
    };
    await turns.userTurn("hi");
    await turns.addressedTurn({
      exchange: "x1",
      chain: 1,
      from: { id: "aoi", name: "Aoi" },
      to: { id: "yui", name: "YUI" },
      text: "are you there?",
      turnId: "a1",
    });
    await turns.signalTurn({
      id: "sig-1",
      source: "factorio",
      event_type: "game.wake",
      delivery: "urgent",
      note: "come here",
      count: 1,
      received_at: "2026-12-01T12:00:00.000Z",
      body: {},
    });
    const sent = push.frames.flatMap((f) => (f.frame.type === "turn" ? [f.frame] : []));
    expect(sent.map((f) => f.origin)).toEqual(["user", "addressed", "signal"]);
    expect(sent[1]!.text).toBe("Aoi: are you there?");
  });
});
