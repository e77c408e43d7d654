import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { savePreset } from "../../src/app/presets/presets.ts";
import { DEFAULT_VOCABULARY } from "../../src/app/vocabulary/vocabulary.ts";
import { COMMANDS } from "../../src/protocol/commands.ts";
import { browserHostConfig, registerBrowserCommands } from "../browser/commands.ts";
import { createCommandTable } from "../commands.ts";
import { registerVoiceCommands } from "../voice/commands.ts";
import { registerListenCommands } from "../voice/listen-commands.ts";
import { registerAppCommands } from "./app-commands.ts";
import { createBodySlot, registerBodyCommands } from "./body-slot.ts";
import { type Host, startHost } from "./server.ts";
import { bridgeClient } from "./testing.ts";

let dir: string;
let host: Host;
const clients: Awaited<ReturnType<typeof bridgeClient>>[] = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "yui-app-commands-"));
  host = await startHost({ port: 0, dataDir: dir, env: {}, browserCommands: false });
  savePreset(host.store, {
    id: "mika",
    name: "Mika",
    avatar: "",
    voice: "",
    persona: "",
    backend: { transport: "chat" },
  });
});
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await host.close();
  rmSync(dir, { recursive: true, force: true });
});

async function client() {
  const c = await bridgeClient(host);
  clients.push(c);
  return c;
}

describe("history_append", () => {
  it("keeps every line when two windows of one character append at once", async () => {
    const [a, b] = [await client(), await client()];
    const turn = (w: string, i: number) => [
      { role: "user", content: `${w} asks ${i}`, at: i },
      { role: "assistant", content: `${w} answer ${i}`, at: i },
    ];
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => [
        a.invoke("history_append", { presetId: "mika", entries: turn("a", i) }),
        b.invoke("history_append", { presetId: "mika", entries: turn("b", i) }),
      ]).flat(),
    );
    expect(answers.every((r) => r.ok)).toBe(true);
    const list = host.store.get("yui.mika.history") as { content: string }[];
    expect(list).toHaveLength(80);
    // Each window's lines in its own order, each turn's two lines together.
    for (const w of ["a", "b"]) {
      expect(list.filter((e) => e.content.startsWith(w)).map((e) => e.content)).toEqual(
        Array.from({ length: 20 }, (_, i) => [`${w} asks ${i}`, `${w} answer ${i}`]).flat(),
      );
    }
    for (let i = 0; i < list.length; i += 2) {
      expect(list[i + 1]!.content.replace("answer", "asks")).toBe(list[i]!.content);
    }
  });

  it("keeps the newest 200 lines, and refuses a malformed line without writing", async () => {
    const c = await client();
    const line = (i: number) => ({ role: "user", content: `line ${i}`, at: i });
    for (let i = 0; i < 210; i += 30) {
      const entries = Array.from({ length: Math.min(30, 210 - i) }, (_, k) => line(i + k));
      expect((await c.invoke("history_append", { presetId: "mika", entries })).ok).toBe(true);
    }
    const list = host.store.get("yui.mika.history") as { content: string }[];
    expect(list.map((e) => e.content)).toEqual(Array.from({ length: 200 }, (_, k) => `line ${k + 10}`));
    const bad = await c.invoke("history_append", {
      presetId: "mika",
      entries: [{ role: "system", content: "x", at: 1 }],
    });
    expect(bad.ok).toBe(false);
    expect((await c.invoke("history_append", { presetId: "mika", entries: [] })).ok).toBe(false);
    expect(host.store.get("yui.mika.history")).toHaveLength(200);
  });
});

describe("the preset list's commands", () => {
  const preset = (id: string) => ({
    id,
    name: id.toUpperCase(),
    avatar: "",
    voice: "",
    persona: "",
    backend: { transport: "chat" },
  });

  it("keeps every edit when two settings windows change characters at once", async () => {
    const [a, b] = [await client(), await client()];
    const ids = (w: string) => Array.from({ length: 10 }, (_, i) => `${w}${i}`);
    const saved = await Promise.all([
      ...ids("a").map((id) => a.invoke("preset_save", { preset: preset(id) })),
      ...ids("b").map((id) => b.invoke("preset_save", { preset: preset(id) })),
    ]);
    expect(saved.every((r) => r.ok)).toBe(true);
    const opened = await Promise.all([
      ...ids("a").map((id) => a.invoke("pet_open", { presetId: id })),
      ...ids("b").map((id) => b.invoke("pet_open", { presetId: id })),
    ]);
    expect(opened.every((r) => r.ok)).toBe(true);
    const list = (host.store.get("yui.presets") as { id: string }[]).map((p) => p.id);
    // The host seeds the first-run preset yui; mika is the test's.
    expect(list.sort()).toEqual(["mika", "yui", ...ids("a"), ...ids("b")].sort());
    expect((host.store.get("yui.presets.open") as string[]).sort()).toEqual(
      [...ids("a"), ...ids("b")].sort(),
    );

    // Remove, close and make main at once: each one's own part of the list changes, nothing else.
    const changed = await Promise.all([
      a.invoke("preset_remove", { presetId: "a0" }),
      b.invoke("pet_close", { presetId: "b0" }),
      a.invoke("preset_activate", { presetId: "b1" }),
      b.invoke("preset_remove", { presetId: "b2" }),
    ]);
    expect(changed.every((r) => r.ok)).toBe(true);
    expect(host.store.get("yui.presets.active")).toBe("b1");
    expect((host.store.get("yui.presets") as { id: string }[]).map((p) => p.id)).not.toContain("a0");
    expect((host.store.get("yui.presets.open") as string[]).sort()).toEqual(
      [...ids("a").slice(1), ...ids("b").slice(3)].sort(),
    );
  });

  it("refuses an invalid preset, an unknown one, and removing the last, writing nothing", async () => {
    const c = await client();
    expect((await c.invoke("preset_save", { preset: { ...preset("x"), extra: 1 } })).ok).toBe(false);
    expect((await c.invoke("preset_activate", { presetId: "nobody" })).ok).toBe(false);
    expect((await c.invoke("pet_open", { presetId: "nobody" })).ok).toBe(false);
    expect((await c.invoke("preset_remove", { presetId: "mika" })).ok).toBe(true);
    expect((await c.invoke("preset_remove", { presetId: "yui" })).error).toContain(
      "the last preset cannot be removed",
    );
    expect((host.store.get("yui.presets") as { id: string }[]).map((p) => p.id)).toEqual(["yui"]);
  });
});

describe("the command table", () => {
  it("holds exactly the contract's commands (src/protocol/commands.ts)", async () => {
    const table = createCommandTable();
    const tmp = mkdtempSync(join(tmpdir(), "yui-commands-"));
    try {
      await registerAppCommands(table, {
        store: host.store,
        apiKey: () => undefined,
        vocabularyFile: "",
        browser: false,
      });
      registerVoiceCommands(table, host.store, () => DEFAULT_VOCABULARY);
      registerListenCommands(table, host.store);
      registerBodyCommands(table, createBodySlot(), () => false);
      await registerBrowserCommands(table.register, () => false, browserHostConfig({ tmpDir: tmp }));
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
    expect(table.names()).toEqual(Object.keys(COMMANDS).sort());
  });
});
