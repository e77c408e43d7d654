import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createNodeWindow } from "../../../host/chat/node-window.ts";
import {
  responsesStream,
  type ScriptedBackend,
  startScriptedBackend,
} from "../../../tools/scripted-backend/server.ts";
import { createChatEngine } from "../../io/chat/stream/engine.ts";
import type { KeyValue } from "../presets/presets.ts";
import { DEFAULT_VOCABULARY } from "../vocabulary/vocabulary.ts";
import { Addressing } from "./addressing.ts";
import { createWireDispatcher } from "./wire-dispatcher.ts";

function memoryKv(init: Record<string, unknown> = {}): KeyValue {
  const data = new Map<string, unknown>(Object.entries(init));
  return { get: (k) => data.get(k), set: (k, v) => void data.set(k, v) };
}

const preset = (id: string, name: string) => ({
  id,
  name,
  avatar: "",
  voice: "",
  persona: "",
  backend: { transport: "responses", base_url: "" },
});

let backend: ScriptedBackend;
beforeEach(async () => {
  backend = await startScriptedBackend();
});
afterEach(async () => {
  await backend.close();
});

/** One turn of main's window through the dispatcher and the real engine, on the loopback backend. */
async function mainTurn(broker: boolean) {
  const kv = memoryKv({
    "yui.presets": [preset("yui", "YUI"), preset("aoi", "Aoi")],
    "yui.presets.active": "yui",
    "yui.relations": { enabled: true },
    "yui.browser": { enabled: true },
  });
  const win = createNodeWindow({
    kv,
    kind: "main",
    presetId: "yui",
    addressing: new Addressing({ self: { id: "yui", name: "YUI" } }),
    invoke: async () => "unused",
  });
  const engine = createChatEngine({
    transport: "responses",
    baseUrl: broker ? "http://127.0.0.1:9/v1" : backend.url,
    ...(broker ? { brokerBaseUrl: backend.url } : {}),
  });
  const dispatcher = createWireDispatcher({
    caller: engine,
    presetId: "yui",
    vocabulary: () => DEFAULT_VOCABULARY,
    windowTools: () => win.tools(),
    switches: () => win.switches(),
    contextLines: (tools) => win.contextLines(tools),
  });
  backend.enqueue({ body: responsesStream({ id: "r1", text: ["やあ"] }) });
  const end = await dispatcher.runTurn({ text: "hi" });
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
