import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  chatStream,
  type ScriptedBackend,
  startScriptedBackend,
} from "../../../tools/scripted-backend/server.ts";
import { createChatEngine } from "../../io/chat/stream/engine.ts";
import type { EngineEvent } from "../../io/chat/stream/types.ts";
import type { HistoryEntry } from "../../protocol/history.ts";
import { CHARACTER_ADDRESSED_EVENT, type CharacterAddressed } from "../addressing/addressing.ts";
import type { Preset } from "../presets/preset.ts";
import { type KeyValue, openPet, savePreset } from "../presets/presets.ts";
import { createAddressCharacterTool } from "../tools/address-character.ts";
import { DEFAULT_VOCABULARY, type Vocabulary } from "../vocabulary/vocabulary.ts";
import { type CharacterSession, createCharacterSession } from "./character-session.ts";

// A character session against real backends on loopback (the scripted backend): the turns it runs, the lines it
// keeps, the backend it rebuilds when the settings change, the typed error of a failed turn.

let a: ScriptedBackend;
let b: ScriptedBackend;
beforeAll(async () => {
  a = await startScriptedBackend();
  b = await startScriptedBackend();
});
afterAll(async () => {
  await a.close();
  await b.close();
});

/** The store as a plain map; the history list is kept as the host's history_append would. */
function memoryStore() {
  const m = new Map<string, unknown>();
  const kv: KeyValue = { get: (k) => m.get(k), set: (k, v) => void m.set(k, v) };
  const lines: HistoryEntry[] = [];
  return { kv, lines };
}

const preset = (id: string, name: string, base_url: string): Preset => ({
  id,
  name,
  avatar: "",
  voice: "",
  persona: "",
  backend: { transport: "chat", base_url },
});

let sessions: CharacterSession[] = [];
afterEach(() => {
  for (const s of sessions) s.close();
  sessions = [];
  a.requests.length = 0;
  b.requests.length = 0;
});

function open(
  kv: KeyValue,
  lines: HistoryEntry[],
  opts: {
    id?: string;
    vocabulary?: () => Vocabulary;
    emitted?: CharacterAddressed[];
    playback?: () => Promise<boolean>;
  } = {},
) {
  const built: string[] = [];
  const s = createCharacterSession({
    presetId: opts.id ?? "yui",
    kind: "browser",
    kv,
    backend: (p) => {
      built.push(p.backend.base_url ?? "");
      const engine = createChatEngine({ transport: "chat", baseUrl: p.backend.base_url ?? "" });
      return {
        runTurn: (i) => engine.runTurn(i),
        setTranscript: (entries) => {
          engine.session.transcript = entries;
        },
      };
    },
    vocabulary: opts.vocabulary ?? (() => DEFAULT_VOCABULARY),
    windowTools: (addressing) => () => [
      createAddressCharacterTool({
        openPresets: () => [
          { id: "yui", name: "YUI" },
          { id: "rin", name: "Rin" },
        ],
        presetId: opts.id ?? "yui",
        addressing,
      }),
    ],
    emitAddressed: (p) => opts.emitted?.push(p),
    playback: opts.playback,
    history: {
      read: () => [...lines],
      append: async (entries) => {
        lines.push(...entries);
      },
    },
  });
  sessions.push(s);
  return { s, built };
}

describe("a character session", () => {
  it("runs a user turn, hands its events to the turn's handler, and keeps the user's and the reply's lines", async () => {
    const { kv, lines } = memoryStore();
    savePreset(kv, preset("yui", "YUI", a.url));
    a.enqueue({ body: chatStream({ text: ["Hello", " there"] }) });
    const { s } = open(kv, lines);
    const events: EngineEvent["type"][] = [];
    const r = await s.userTurn("hi", { onEvent: (e) => events.push(e.type) });
    expect(r.end).toMatchObject({ outcome: "spoken", text: "Hello there" });
    expect(r.error).toBeNull();
    expect(events).toEqual(["request", "text", "text", "turn_end"]);
    await r.stored;
    expect(lines.map(({ role, content }) => [role, content])).toEqual([
      ["user", "hi"],
      ["assistant", "Hello there"],
    ]);
    expect(r.saved).toEqual(lines);
    // The declared tools: generate_express, then the window's.
    const body = a.requests[0]!.body as { tools: { function: { name: string } }[] };
    expect(body.tools.map((t) => t.function.name)).toEqual(["generate_express", "address_character"]);
  });

  it("a failed turn: the typed error for the window, the user's line kept, no reply line", async () => {
    const { kv, lines } = memoryStore();
    savePreset(kv, preset("yui", "YUI", a.url));
    a.enqueue({ status: 500, body: JSON.stringify({ error: { message: "model crashed" } }) });
    const { s } = open(kv, lines);
    const r = await s.userTurn("hi");
    expect(r.end?.outcome).toBe("error");
    expect(r.error).toMatchObject({
      kind: "http",
      status: 500,
      url: `${a.url}/chat/completions`,
      detail: "model crashed",
    });
    await r.stored;
    expect(lines.map((l) => l.role)).toEqual(["user"]);
  });

  it("restores the transcript from the history, and rebuilds the backend when the settings change", async () => {
    const { kv, lines } = memoryStore();
    savePreset(kv, preset("yui", "YUI", a.url));
    lines.push({ role: "user", content: "earlier", at: 1 }, { role: "assistant", content: "before", at: 2 });
    const { s, built } = open(kv, lines);
    a.enqueue({ body: chatStream({ text: ["one"] }) });
    await s.userTurn("first");
    const sent = (a.requests[0]!.body as { messages: { role: string; content: string }[] }).messages;
    expect(sent.filter((m) => m.role !== "system").map((m) => m.content)).toEqual([
      "earlier",
      "before",
      "first",
    ]);
    // Same settings: the same backend. New base URL: a new one, its transcript read from the history again.
    a.enqueue({ body: chatStream({ text: ["two"] }) });
    await s.userTurn("second");
    savePreset(kv, preset("yui", "YUI", b.url));
    b.enqueue({ body: chatStream({ text: ["three"] }) });
    await s.userTurn("third");
    expect(built).toEqual([a.url, b.url]);
    const moved = (b.requests[0]!.body as { messages: { role: string; content: string }[] }).messages;
    expect(moved.filter((m) => m.role !== "system").map((m) => m.content)).toEqual([
      "earlier",
      "before",
      "first",
      "one",
      "second",
      "two",
      "third",
    ]);
  });

  it("reads the vocabulary at each turn, and keeps the last one when a read fails", async () => {
    const { kv, lines } = memoryStore();
    savePreset(kv, preset("yui", "YUI", a.url));
    const calm: Vocabulary = { ...DEFAULT_VOCABULARY, emotions: DEFAULT_VOCABULARY.emotions.slice(0, 1) };
    let reads = 0;
    const { s } = open(kv, lines, {
      vocabulary: () => {
        reads++;
        if (reads === 2) throw new Error("the host is away");
        return calm;
      },
    });
    const emotionsSent = (n: number) => {
      const body = a.requests[n]!.body as { tools: { function: { parameters: unknown } }[] };
      return JSON.stringify(body.tools[0]!.function.parameters).match(/"enum":\[[^\]]*\]/)![0];
    };
    a.enqueue({ body: chatStream({ text: ["a"] }) }, { body: chatStream({ text: ["b"] }) });
    await s.userTurn("one");
    await s.userTurn("two");
    expect(reads).toBe(2);
    expect(s.vocabulary()).toBe(calm);
    expect(emotionsSent(1)).toBe(emotionsSent(0));
    expect(emotionsSent(0)).toBe(`"enum":[${JSON.stringify(calm.emotions[0]!.id)}]`);
  });

  it("an addressed turn from another character: runs, keeps the incoming line with who sent it", async () => {
    const { kv, lines } = memoryStore();
    savePreset(kv, preset("yui", "YUI", a.url));
    savePreset(kv, preset("rin", "Rin", a.url));
    openPet(kv, "rin");
    // Rin's reply addresses YUI: after the turn the session emits the event the other character hears.
    const emitted: CharacterAddressed[] = [];
    const rin = open(kv, [], { id: "rin", emitted }).s;
    a.enqueue({
      body: chatStream({
        calls: [{ id: "c1", name: "address_character", arguments: JSON.stringify({ to: "YUI" }) }],
      }),
    });
    a.enqueue({ body: chatStream({ text: ["Ask YUI."] }) });
    await rin.userTurn("who knows?");
    expect(emitted).toHaveLength(1);
    expect(emitted[0]).toMatchObject({
      to: { id: "yui" },
      from: { id: "rin", name: "Rin" },
      text: "Ask YUI.",
    });
    expect(CHARACTER_ADDRESSED_EVENT).toBe("yui://character-addressed");

    const { s } = open(kv, lines);
    a.enqueue({ body: chatStream({ text: ["I do."] }) });
    const r = await s.addressedTurn(emitted[0], { text: "Ask YUI.", from: "Rin" });
    expect(r.end).toMatchObject({ outcome: "spoken", text: "I do." });
    await r.stored;
    expect(lines.map(({ role, content, from }) => [role, content, from])).toEqual([
      ["user", "Ask YUI.", "Rin"],
      ["assistant", "I do.", undefined],
    ]);
    // An event for someone else runs no turn here: nothing kept, nothing asked of the backend.
    const asked = a.requests.length;
    const other = await s.addressedTurn(
      { ...emitted[0], to: { id: "rin", name: "Rin" } },
      { text: "x", from: "Rin" },
    );
    expect(other).toMatchObject({ end: null, error: null, saved: [] });
    expect(a.requests.length).toBe(asked);
  });

  it("the addressed event waits for the reply's playback, and a reply stopped while it plays addresses nobody", async () => {
    const { kv } = memoryStore();
    savePreset(kv, preset("yui", "YUI", a.url));
    savePreset(kv, preset("rin", "Rin", a.url));
    openPet(kv, "rin");
    const emitted: CharacterAddressed[] = [];
    const plays: ((completed: boolean) => void)[] = [];
    const playback = () => new Promise<boolean>((r) => plays.push(r));
    const rin = open(kv, [], { id: "rin", emitted, playback }).s;
    const addressYui = () => {
      a.enqueue({
        body: chatStream({
          calls: [{ id: "c1", name: "address_character", arguments: JSON.stringify({ to: "YUI" }) }],
        }),
      });
      a.enqueue({ body: chatStream({ text: ["Ask YUI."] }) });
    };
    addressYui();
    await rin.userTurn("who knows?");
    // The turn has ended, her voice still plays: nothing goes out yet.
    expect(plays).toHaveLength(1);
    expect(emitted).toHaveLength(0);
    plays[0]!(true);
    await vi.waitFor(() => expect(emitted).toHaveLength(1));
    expect(emitted[0]).toMatchObject({ to: { id: "yui" }, text: "Ask YUI." });
    // The next reply is stopped while it plays: no event, while the one played out above did go (control).
    addressYui();
    await rin.userTurn("and now?");
    expect(plays).toHaveLength(2);
    plays[1]!(false);
    addressYui();
    await rin.userTurn("once more?");
    plays[2]!(true);
    await vi.waitFor(() => expect(emitted).toHaveLength(2));
    expect(emitted.map((e) => e.text)).toEqual(["Ask YUI.", "Ask YUI."]);
  });
});
