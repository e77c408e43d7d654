import { describe, expect, it } from "vitest";
import { Addressing } from "../src/app/addressing/addressing.ts";
import type { KeyValue } from "../src/app/presets/presets.ts";
import { relationsOverBridge } from "../src/app/tools/relation.ts";
import { createWindowTools, type WindowKind } from "../src/app/tools/window-tools.ts";
import { buildTurnRegistry } from "../src/app/turn/wire-dispatcher.ts";
import { DEFAULT_VOCABULARY } from "../src/app/vocabulary/vocabulary.ts";
import type { ClientTool } from "../src/io/chat/tools/client-tools.ts";
import { scriptedInvoke } from "../tools/testing/invoke.ts";

function memoryKv(init: Record<string, unknown> = {}): KeyValue {
  const data = new Map<string, unknown>(Object.entries(init));
  return { get: (k) => data.get(k), set: (k, v) => void data.set(k, v) };
}

const PRESETS = { "yui.presets": [{ id: "yui", name: "Yui", avatar: "", voice: "", persona: "" }] };

/** The registry a page's panel of this kind declares, over an invoke that records the commands it is given. */
async function panelRegistry(kind: WindowKind, init: Record<string, unknown> = {}) {
  const { invoke, calls } = scriptedInvoke(() => "ran");
  const kv = memoryKv({ ...PRESETS, ...init });
  const tools = createWindowTools({
    kind,
    kv,
    presetId: "yui",
    addressing: new Addressing({ self: { id: "yui", name: "Yui" } }),
    invoke,
    relations: relationsOverBridge(invoke, kv),
  });
  const registry = await buildTurnRegistry({ vocabulary: () => DEFAULT_VOCABULARY, windowTools: tools });
  return { registry, calls };
}

const tool = (r: ClientTool[], name: string) => r.find((t) => t.name === name)!;
const ctx = { signal: new AbortController().signal, turnId: "t", presetId: "yui" };

describe("a page's panel declares its window kind's tools", () => {
  it.each([
    // The desktop app's windows (desktop-view.ts): role=main and role=pet.
    ["main", ["generate_express", "rate_relation", "address_character", "browser", "body_action", "look"]],
    ["pet", ["generate_express", "rate_relation", "address_character", "browser"]],
    // The browser build's main view and the phone keep their sets.
    ["browser", ["generate_express", "rate_relation", "address_character"]],
    ["phone", ["generate_express"]],
  ] as const)("the %s window declares %j", async (kind, expected) => {
    expect((await panelRegistry(kind)).registry.map((t) => t.name)).toEqual(expected);
  });

  it("runs browser through the host's browser_run when the switch is on, and refuses it when off", async () => {
    const off = await panelRegistry("pet");
    expect(await tool(off.registry, "browser").run({ code: "1+1" }, ctx)).toBe("error: browser is off");
    expect(off.calls).toEqual([]);
    const on = await panelRegistry("main", { "yui.browser": { enabled: true } });
    expect(await tool(on.registry, "browser").run({ code: "1+1" }, ctx)).toBe("ran");
    expect(on.calls).toEqual([["browser_run", { presetId: "yui", code: "1+1" }]]);
  });

  it("answers main's declared look and body_action as not ready while no avatar executor exists", async () => {
    const { registry } = await panelRegistry("main");
    expect(await tool(registry, "look").run({ at: "body" }, ctx)).toBe("error: unsupported");
    // body_action's result is one of the spec's bare words, never `error: `-prefixed.
    expect(await tool(registry, "body_action").run({ action: "stand" }, ctx)).toBe("unsupported");
  });
});
