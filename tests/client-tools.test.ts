import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Addressing } from "../src/app/addressing/addressing.ts";
import type { KeyValue } from "../src/app/presets/presets.ts";
import { AVATAR_ERRORS, createAvatarTools } from "../src/app/tools/avatar.ts";
import { relationsFromStore } from "../src/app/tools/relation.ts";
import { createWindowTools, WINDOW_KINDS, type WindowKind } from "../src/app/tools/window-tools.ts";
import { toolSwitchesLine } from "../src/app/turn/client-context.ts";
import { buildTurnRegistry } from "../src/app/turn/wire-dispatcher.ts";
import { DEFAULT_VOCABULARY } from "../src/app/vocabulary/vocabulary.ts";
import type { ClientTool } from "../src/io/chat/tools/client-tools.ts";
import { declareTools } from "../src/io/chat/tools/declare.ts";
import type { AvatarExecutor } from "../src/protocol/body.ts";
import { scriptedInvoke } from "../tools/testing/invoke.ts";

/** A plain in-memory key-value store with the app's switch keys. */
function memoryKv(init: Record<string, unknown> = {}): KeyValue & { data: Map<string, unknown> } {
  const data = new Map<string, unknown>(Object.entries(init));
  return { data, get: (k) => data.get(k), set: (k, v) => void data.set(k, v) };
}

function windowRegistry(kind: WindowKind, kv: KeyValue = memoryKv()): Promise<ClientTool[]> {
  const win = {
    tools: createWindowTools({
      kv,
      kind,
      presetId: "yui",
      addressing: new Addressing({ self: { id: "yui", name: "YUI" } }),
      invoke: scriptedInvoke().invoke,
      relations: relationsFromStore(kv),
    }),
  };
  return buildTurnRegistry({ vocabulary: () => DEFAULT_VOCABULARY, windowTools: () => win.tools() });
}

const names = (tools: ClientTool[]) => tools.map((t) => t.name);
const ctx = { signal: new AbortController().signal, turnId: "t", presetId: "yui" };

describe("the catalog in docs/client-tools.md", () => {
  it("has a row for every tool any window declares", async () => {
    const doc = readFileSync(join(import.meta.dirname, "../docs/client-tools.md"), "utf8");
    // The catalog is the first table whose first column is Name (however it is padded).
    const start = doc.search(/^\|\s*Name\s*\|/m);
    const table = doc.slice(start, doc.indexOf("\n\n", start));
    const rows = new Set(
      table
        .split("\n")
        .slice(2)
        .map((l) => l.split("|")[1]!.trim()),
    );
    expect(rows.size).toBeGreaterThan(5);
    for (const kind of WINDOW_KINDS) {
      for (const name of names(await windowRegistry(kind)))
        expect(rows, `${name} has no catalog row`).toContain(name);
    }
  });
});

describe("createClientTools per window", () => {
  it.each([
    ["main", ["generate_express", "rate_relation", "address_character", "browser", "body_action", "look"]],
    ["pet", ["generate_express", "rate_relation", "address_character", "browser"]],
    ["bound", ["generate_express", "rate_relation", "address_character", "browser"]],
    ["browser", ["generate_express", "rate_relation", "address_character"]],
    ["phone", ["generate_express"]],
  ] as const)("the %s window declares %j", async (kind, expected) => {
    expect(names(await windowRegistry(kind))).toEqual(expected);
  });

  it("the declared set is byte-identical whatever the switches hold", async () => {
    const off = memoryKv({
      "yui.browser": { enabled: false },
      "yui.relations": { enabled: false },
      "yui.screen_capture": { enabled: false },
    });
    const on = memoryKv({
      "yui.browser": { enabled: true },
      "yui.relations": { enabled: true },
      "yui.screen_capture": { enabled: true },
    });
    for (const transport of ["chat", "responses"] as const) {
      const a = JSON.stringify(declareTools(await windowRegistry("main", off), transport));
      const b = JSON.stringify(declareTools(await windowRegistry("main", on), transport));
      expect(a).toBe(b);
    }
  });

  it("the client context's tool switches line states every switchable tool the window declares", async () => {
    expect(
      toolSwitchesLine(await windowRegistry("main"), { browser: true, relations: false, screen: true }),
    ).toBe("tool switches: relations=off, browser=on, screen=on");
    expect(toolSwitchesLine(await windowRegistry("browser"), { relations: true })).toBe(
      "tool switches: relations=on",
    );
    expect(toolSwitchesLine(await windowRegistry("phone"), {})).toBeNull();
  });
});

describe("avatar tools", () => {
  const screenOn = async () => true;
  const executor: AvatarExecutor = {
    bodyAction: async () => "busy",
    bodyState: async () => ({ posture: "standing" }),
    perchTargets: async () => ({ windows: [] }),
    screenshot: async (m) =>
      m === undefined || m === 1 ? { display: 1, dataUrl: "data:image/jpeg;base64,AA" } : null,
  };

  it("without an executor body_action answers the bare word unsupported (a failed call), look error: unsupported", async () => {
    const [body, look] = createAvatarTools({ executor: () => null, screenCaptureOn: screenOn });
    expect(await body!.run({ action: "stand" }, ctx)).toBe("unsupported");
    expect(body!.failed?.("unsupported")).toBe(true);
    expect(await look!.run({ at: "body" }, ctx)).toBe("error: unsupported");
    expect(AVATAR_ERRORS.unsupported).toBe("error: unsupported");
  });

  it("look at screen refuses while screen capture is off, read when the call runs", async () => {
    let on = true;
    const [, look] = createAvatarTools({ executor: () => executor, screenCaptureOn: async () => on });
    expect(await look!.run({ at: "screen" }, ctx)).toEqual({
      text: "screenshot of display 1",
      images: ["data:image/jpeg;base64,AA"],
    });
    on = false;
    expect(await look!.run({ at: "screen" }, ctx)).toBe("error: screen capture is off");
  });

  it("look at screen answers error: invalid field monitor for a bad or unknown monitor", async () => {
    const [, look] = createAvatarTools({ executor: () => executor, screenCaptureOn: screenOn });
    expect(await look!.run({ at: "screen", monitor: -1 }, ctx)).toBe("error: invalid field monitor");
    expect(await look!.run({ at: "screen", monitor: 1.5 }, ctx)).toBe("error: invalid field monitor");
    expect(await look!.run({ at: "screen", monitor: 7 }, ctx)).toBe("error: invalid field monitor");
  });

  it("body and perch results are JSON strings; body_action passes the executor's word and marks it failed", async () => {
    const [body, look] = createAvatarTools({ executor: () => executor, screenCaptureOn: screenOn });
    expect(await look!.run({ at: "body" }, ctx)).toBe('{"posture":"standing"}');
    expect(await look!.run({ at: "perch_targets" }, ctx)).toBe('{"windows":[]}');
    const r = await body!.run({ action: "peek", side: "left" }, ctx);
    expect(r).toBe("busy");
    expect(body!.failed!(r)).toBe(true);
    expect(body!.failed!("ok")).toBe(false);
  });

  it("body_action names the missing or invalid field", async () => {
    const [body] = createAvatarTools({ executor: () => executor, screenCaptureOn: screenOn });
    expect(await body!.run({}, ctx)).toBe("error: missing field action");
    expect(await body!.run({ action: "fly" }, ctx)).toBe("error: invalid field action");
    expect(await body!.run({ action: "sit_on_window" }, ctx)).toBe("error: missing field app");
    expect(await body!.run({ action: "peek", side: "up" }, ctx)).toBe("error: invalid field side");
    expect(await body!.run({ action: "move_to", spot: "center", monitor: "2" }, ctx)).toBe(
      "error: invalid field monitor",
    );
  });

  it("body_action checks its arguments against its declared schema, in the spec's order", async () => {
    const seen: unknown[] = [];
    const recording: AvatarExecutor = {
      ...executor,
      bodyAction: async (a) => {
        seen.push(a);
        return "ok";
      },
    };
    const [body] = createAvatarTools({ executor: () => recording, screenCaptureOn: screenOn });
    const cases: [Record<string, unknown>, string][] = [
      [{ action: null }, "error: invalid field action"],
      [{ action: "sit_on_window", app: "" }, "error: missing field app"],
      [{ action: "sit_on_window", app: 5 }, "error: invalid field app"],
      [{ action: "peek" }, "error: missing field side"],
      [{ action: "move_to", monitor: 1 }, "error: missing field spot"],
      // The spot is checked before the monitor.
      [{ action: "move_to", spot: "middle", monitor: -1 }, "error: invalid field spot"],
      [{ action: "move_to", spot: "center", monitor: 1.5 }, "error: invalid field monitor"],
      [{ action: "move_to", spot: "center", monitor: null }, "error: invalid field monitor"],
    ];
    for (const [args, answer] of cases) expect(await body!.run(args, ctx), JSON.stringify(args)).toBe(answer);
    expect(seen).toEqual([]);
    // A field the action does not need is not checked, and the executor gets only what the action needs.
    for (const args of [
      { action: "sit_on_window", app: "Finder", side: "up" },
      { action: "peek", side: "right", monitor: "x" },
      { action: "move_to", spot: "top_left" },
      { action: "move_to", spot: "top_left", monitor: 0 },
      { action: "stand", app: 1 },
      { action: "go_to_bed" },
    ])
      expect(await body!.run(args, ctx)).toBe("ok");
    expect(seen).toEqual([
      { action: "sit_on_window", app: "Finder" },
      { action: "peek", side: "right" },
      { action: "move_to", spot: "top_left" },
      { action: "move_to", spot: "top_left", monitor: 0 },
      { action: "stand" },
      { action: "go_to_bed" },
    ]);
  });

  it("look checks at first, then the screen switch, then the monitor", async () => {
    let on = false;
    const shots: unknown[] = [];
    const [, look] = createAvatarTools({
      executor: () => ({
        ...executor,
        screenshot: async (m) => {
          shots.push(m);
          return null;
        },
      }),
      screenCaptureOn: async () => on,
    });
    expect(await look!.run({}, ctx)).toBe("error: missing field at");
    expect(await look!.run({ at: "face", monitor: -1 }, ctx)).toBe("error: invalid field at");
    expect(await look!.run({ at: "screen", monitor: -1 }, ctx)).toBe("error: screen capture is off");
    // Other targets ignore the monitor.
    expect(await look!.run({ at: "body", monitor: "x" }, ctx)).toBe('{"posture":"standing"}');
    on = true;
    expect(await look!.run({ at: "screen", monitor: "1" }, ctx)).toBe("error: invalid field monitor");
    expect(shots).toEqual([]);
    await look!.run({ at: "screen" }, ctx);
    await look!.run({ at: "screen", monitor: 3 }, ctx);
    expect(shots).toEqual([undefined, 3]);
  });
});
