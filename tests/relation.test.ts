import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { nodeBridgeSocket } from "../host/chat/host-bridge.ts";
import { type Host, startHost } from "../host/server/server.ts";
import { bridgeClient, secretHeaders } from "../host/server/testing.ts";
import { openStore, type Store } from "../host/store/store.ts";
import { openPet, openPresets, savePreset, setActivePreset } from "../src/app/presets/presets.ts";
import { type RelationsState, relationsKey, setByUser } from "../src/app/relations/relations.ts";
import {
  createRateRelationTool,
  RATE_RELATION_RESULTS,
  RELATION_RATE_COMMAND,
  relationsFromStore,
  relationsOverBridge,
} from "../src/app/tools/relation.ts";
import { type BridgeClient, createBridgeClient } from "../src/io/bridge/client.ts";
import type { ClientTool } from "../src/io/chat/tools/client-tools.ts";
import { characterPreset } from "../src/protocol/preset.ts";

// rate_relation's result strings as the spec writes them, once.
const SPEC = {
  clamped: (band: string) => `clamped: ${band}`,
  alreadyRated: (toward: string) => `ignored: already rated ${toward} this turn`,
  unknownTarget: "error: unknown target",
  invalidDelta: "error: invalid field delta",
  invalidWhy: "error: invalid field why",
  reservedReason: "error: reserved reason",
  relationsOff: "error: relations are off",
  switchId: "relations",
};

const preset = (id: string, name: string) => characterPreset(id, name);

let dir: string;
let store: Store;
let clock: number;
let zone: string;

function tool(self = "mika"): ClientTool {
  return createRateRelationTool({
    openPresets: () => openPresets(store),
    presetId: self,
    ...relationsFromStore(store, () => ({ now: clock, timeZone: zone })),
  });
}

function call(t: ClientTool, args: Record<string, unknown>, turnId = "t1") {
  return t.run(args, { signal: new AbortController().signal, turnId, presetId: "mika" });
}

const relations = (id = "mika") => store.get(relationsKey(id)) as RelationsState;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "yui-rel-"));
  store = openStore(dir);
  clock = Date.parse("2026-11-30T03:00:00Z");
  zone = "UTC";
  savePreset(store, preset("mika", "Mika"));
  savePreset(store, preset("aoi", "Aoi"));
  setActivePreset(store, "mika");
  openPet(store, "aoi");
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("rate_relation", () => {
  it("answers exactly the spec's strings", () => {
    expect(RATE_RELATION_RESULTS.clamped("warm")).toBe(SPEC.clamped("warm"));
    expect(RATE_RELATION_RESULTS.alreadyRated("Aoi")).toBe(SPEC.alreadyRated("Aoi"));
    for (const k of [
      "unknownTarget",
      "invalidDelta",
      "invalidWhy",
      "reservedReason",
      "relationsOff",
    ] as const) {
      expect(RATE_RELATION_RESULTS[k]).toBe(SPEC[k]);
    }
  });

  it("lists user and the other open presets' names in toward, read when the schema is built", () => {
    const t = tool();
    const props = t.parameters.properties as Record<string, { enum?: unknown[] }>;
    expect(props.toward!.enum).toEqual(["user", "Aoi"]);
    expect(props.delta!.enum).toEqual([-2, -1, 1, 2]);
    expect(t.parameters.required).toEqual(["toward", "delta", "why"]);
    expect(t.switchId).toBe(SPEC.switchId);
    // A preset opened later joins the next schema, not this one.
    savePreset(store, preset("ren", "Ren"));
    openPet(store, "ren");
    expect((t.parameters.properties as Record<string, { enum?: unknown[] }>).toward!.enum).toEqual([
      "user",
      "Aoi",
    ]);
    expect((tool().parameters.properties as Record<string, { enum?: unknown[] }>).toward!.enum).toEqual([
      "user",
      "Aoi",
      "Ren",
    ]);
  });

  it("lists a preset named user as user (character), mapped to that preset, while bare user stays the human", async () => {
    savePreset(store, preset("u2", "user"));
    openPet(store, "u2");
    const t = tool();
    expect((t.parameters.properties as Record<string, { enum?: unknown[] }>).toward!.enum).toEqual([
      "user",
      "Aoi",
      "user (character)",
    ]);
    expect(await call(t, { toward: "user (character)", delta: -2, why: "rude" })).toBe("neutral");
    expect(await call(t, { toward: "user", delta: 2, why: "nice" })).toBe("neutral");
    expect(relations().values).toEqual({ u2: -2, user: 2 });
  });

  it("answers the band after the change and stores the change with its reason and turn", async () => {
    store.set(relationsKey("mika"), { values: { aoi: 3 }, log: [], spent: {} });
    expect(await call(tool(), { toward: "Aoi", delta: 1, why: "shared her snacks" }, "turn-9")).toBe("warm");
    expect(relations().log).toEqual([
      { at: clock, target: "aoi", from: 3, to: 4, why: "shared her snacks", who: "backend", turn: "turn-9" },
    ]);
  });

  it("refuses a target outside the list: a closed preset, itself, or a made-up name", async () => {
    const t = tool();
    for (const toward of ["Ren", "Mika", "user (character)", "USER", "", 3, undefined]) {
      expect(await call(t, { toward, delta: 1, why: "x" }), String(toward)).toBe(SPEC.unknownTarget);
    }
    expect(store.has(relationsKey("mika"))).toBe(false);
  });

  it("refuses a delta outside -2, -1, 1, 2", async () => {
    const t = tool();
    for (const delta of [0, 3, -3, 1.5, "1", null, undefined]) {
      expect(await call(t, { toward: "user", delta, why: "x" }), String(delta)).toBe(SPEC.invalidDelta);
    }
  });

  it("refuses a why that is not a string, and keeps a long one to 80 characters", async () => {
    const t = tool();
    for (const why of [undefined, 5, null, ["a"]]) {
      expect(await call(t, { toward: "user", delta: 1, why }), String(why)).toBe(SPEC.invalidWhy);
    }
    expect(await call(t, { toward: "user", delta: 1, why: "é".repeat(100) })).toBe("neutral");
    expect(relations().log[0]!.why).toBe("é".repeat(80));
    // Characters are code points: 80 emoji (160 UTF-16 units) fit, as the declared maxLength counts them.
    expect(await call(t, { toward: "Aoi", delta: 1, why: "🙂".repeat(90) })).toBe("neutral");
    expect(relations().log[1]!.why).toBe("🙂".repeat(80));
  });

  it("checks in the spec's order: the switch, then toward, delta, why, the reserved reason", async () => {
    const t = tool();
    const bad = { toward: "Ren", delta: 3, why: 5 };
    store.set("yui.relations", { enabled: false }, "user");
    expect(await call(t, bad)).toBe(SPEC.relationsOff);
    store.set("yui.relations", { enabled: true }, "user");
    expect(await call(t, bad)).toBe(SPEC.unknownTarget);
    expect(await call(t, { ...bad, toward: "Aoi" })).toBe(SPEC.invalidDelta);
    expect(await call(t, { ...bad, toward: "Aoi", delta: -1 })).toBe(SPEC.invalidWhy);
    expect(await call(t, { toward: "Aoi", delta: -1, why: "set by the user", extra: 1 })).toBe(
      SPEC.reservedReason,
    );
    expect(store.has(relationsKey("mika"))).toBe(false);
  });

  it("refuses the reason reserved for the user and changes nothing", async () => {
    const t = tool();
    expect(await call(t, { toward: "user", delta: 2, why: "set by the user" })).toBe(SPEC.reservedReason);
    expect(await call(t, { toward: "user", delta: 2, why: " Set by the user" })).toBe(SPEC.reservedReason);
    expect(store.has(relationsKey("mika"))).toBe(false);
    // A refused call is not an accepted one: the target can still be rated this turn.
    expect(await call(t, { toward: "user", delta: 2, why: "fine" })).toBe("neutral");
  });

  it("accepts one call per target per turn and ignores the next", async () => {
    const t = tool();
    expect(await call(t, { toward: "Aoi", delta: 1, why: "a" }, "t1")).toBe("neutral");
    expect(await call(t, { toward: "Aoi", delta: 1, why: "b" }, "t1")).toBe(SPEC.alreadyRated("Aoi"));
    expect(await call(t, { toward: "user", delta: 1, why: "c" }, "t1")).toBe("neutral");
    expect(await call(t, { toward: "Aoi", delta: 1, why: "d" }, "t2")).toBe("neutral");
    expect(relations().values).toEqual({ aoi: 2, user: 1 });
  });

  it("counts a call cut to nothing as the turn's call for that target, without logging it", async () => {
    store.set(relationsKey("mika"), { values: { user: 20 }, log: [], spent: {} });
    const t = tool();
    expect(await call(t, { toward: "user", delta: 2, why: "a" })).toBe(SPEC.clamped("close"));
    expect(await call(t, { toward: "user", delta: -1, why: "b" })).toBe(SPEC.alreadyRated("user"));
    expect(relations().log).toEqual([]);
  });

  it("writes nothing to the store for a call cut to nothing", async () => {
    store.set(relationsKey("mika"), { values: { user: -20 }, log: [], spent: {} });
    const changes: string[] = [];
    store.onChange((c) => changes.push(c.key));
    expect(await call(tool(), { toward: "user", delta: -1, why: "a" })).toBe(SPEC.clamped("hostile"));
    expect(changes).toEqual([]);
  });

  it("refuses at the store when the switch went off after the window read it, and writes nothing", async () => {
    const t = createRateRelationTool({
      openPresets: () => openPresets(store),
      presetId: "mika",
      ...relationsFromStore(store, () => ({ now: clock, timeZone: zone })),
      // The window's read (its mirror) still says on.
      enabled: () => true,
    });
    store.set("yui.relations", { enabled: false }, "user");
    expect(await call(t, { toward: "user", delta: 1, why: "a" })).toBe(SPEC.relationsOff);
    expect(store.has(relationsKey("mika"))).toBe(false);
    // Not an accepted call: once the switch is back on, the target can be rated in this turn.
    store.set("yui.relations", { enabled: true }, "user");
    expect(await call(t, { toward: "user", delta: 1, why: "b" })).toBe("neutral");
  });

  it("answers clamped: <band> when the daily cap holds the step, and opens the cap at local midnight", async () => {
    zone = "Asia/Tokyo";
    clock = Date.parse("2026-11-30T14:00:00Z"); // 23:00 in Tokyo
    const t = tool();
    expect(await call(t, { toward: "user", delta: 2, why: "a" }, "t1")).toBe("neutral");
    expect(await call(t, { toward: "user", delta: 1, why: "b" }, "t2")).toBe("neutral");
    expect(await call(t, { toward: "user", delta: 2, why: "c" }, "t3")).toBe(SPEC.clamped("warm"));
    expect(relations().values.user).toBe(4);
    expect(await call(t, { toward: "user", delta: 1, why: "d" }, "t4")).toBe(SPEC.clamped("warm"));
    expect(relations().log).toHaveLength(3);
    clock = Date.parse("2026-11-30T15:00:00Z"); // 00:00 in Tokyo
    expect(await call(t, { toward: "user", delta: 2, why: "e" }, "t5")).toBe("warm");
    expect(relations().values.user).toBe(6);
  });

  it("clamps at the range and the cap together", async () => {
    store.set(relationsKey("mika"), {
      values: { aoi: -19 },
      log: [],
      spent: { aoi: { day: "2026-11-30", points: 3 } },
    });
    expect(await call(tool(), { toward: "Aoi", delta: -2, why: "x" })).toBe(SPEC.clamped("hostile"));
    expect(relations().values.aoi).toBe(-20);
    expect(relations().spent.aoi).toEqual({ day: "2026-11-30", points: 4 });
  });

  it("refuses calls while the Relations switch is off, stays declared, and keeps the stored values", async () => {
    const onSchema = tool().parameters;
    store.set(relationsKey("mika"), { values: { user: 7 }, log: [], spent: {} });
    store.set("yui.relations", { enabled: false }, "user");
    const t = tool();
    expect(t.parameters).toEqual(onSchema);
    expect(t.switchId).toBe(SPEC.switchId);
    expect(await call(t, { toward: "user", delta: 1, why: "x" })).toBe(SPEC.relationsOff);
    expect(relations().values).toEqual({ user: 7 });
    // The switch is read at call time: turning it back on lets the same tool run.
    store.set("yui.relations", { enabled: true }, "user");
    expect(await call(t, { toward: "user", delta: 1, why: "x" })).toBe("warm");
  });

  it("reads the switch at call time, even when another process (yui store set) turned it off", async () => {
    const t = tool();
    expect(await call(t, { toward: "user", delta: 1, why: "a" }, "t1")).toBe("neutral");
    const yui = new URL("../host/bin/yui.ts", import.meta.url).pathname;
    const off = spawnSync(
      process.execPath,
      ["--import", "tsx", yui, "store", "set", "yui.relations", '{"enabled":false}'],
      { env: { ...process.env, YUI_DATA_DIR: dir }, encoding: "utf8" },
    );
    expect(off.status, off.stderr).toBe(0);
    expect(await call(t, { toward: "user", delta: 1, why: "b" }, "t2")).toBe(SPEC.relationsOff);
    expect(relations().values).toEqual({ user: 1 });
  });

  it("lets the user's slider move a value without spending the day's cap", async () => {
    const t = tool();
    expect(await call(t, { toward: "user", delta: 2, why: "a" }, "t1")).toBe("neutral");
    store.set(relationsKey("mika"), setByUser(relations(), "user", 12, clock), "user");
    expect(await call(t, { toward: "user", delta: 2, why: "b" }, "t2")).toBe("close");
    expect(relations().log.map((e) => [e.who, e.from, e.to])).toEqual([
      ["backend", 0, 2],
      ["user", 2, 12],
      ["backend", 12, 14],
    ]);
  });

  it("loses no write when two calls of one turn run at once", async () => {
    const t = tool();
    const results = await Promise.all([
      call(t, { toward: "user", delta: 2, why: "a" }),
      call(t, { toward: "Aoi", delta: -2, why: "b" }),
    ]);
    expect(results).toEqual(["neutral", "neutral"]);
    expect(relations().values).toEqual({ user: 2, aoi: -2 });
  });

  it("stores under the calling window's preset, never under another's", async () => {
    const aoiTool = tool("aoi");
    expect((aoiTool.parameters.properties as Record<string, { enum?: unknown[] }>).toward!.enum).toEqual([
      "user",
      "Mika",
    ]);
    expect(await call(aoiTool, { toward: "Mika", delta: 1, why: "x" })).toBe("neutral");
    expect(relations("aoi").values).toEqual({ mika: 1 });
    expect(store.has(relationsKey("mika"))).toBe(false);
  });
});

describe("rate_relation from two windows of one character on a real host", () => {
  let hostDir: string;
  let host: Host;
  const clients: Awaited<ReturnType<typeof bridgeClient>>[] = [];
  const windows: BridgeClient[] = [];

  beforeEach(async () => {
    hostDir = mkdtempSync(join(tmpdir(), "yui-rel-host-"));
    host = await startHost({ port: 0, dataDir: hostDir, env: {}, browserCommands: false });
    savePreset(host.store, preset("mika", "Mika"));
    savePreset(host.store, preset("aoi", "Aoi"));
    setActivePreset(host.store, "mika");
    openPet(host.store, "aoi");
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    for (const c of windows.splice(0)) c.close();
    await host.close();
    rmSync(hostDir, { recursive: true, force: true });
  });

  /** A window as the app has it: its own bridge connection, its store snapshot, the tool over relation_rate. */
  async function windowTool(): Promise<ClientTool> {
    // The bridge client a page uses, over Node's WebSocket.
    const client = createBridgeClient({
      url: `ws://127.0.0.1:${host.port}/bridge`,
      socket: nodeBridgeSocket({ headers: secretHeaders(host) }),
    });
    let snapshot: Record<string, unknown> = {};
    client.onHello((s) => {
      snapshot = s;
    });
    await client.ready;
    windows.push(client);
    const kv = { get: (k: string) => snapshot[k], set: () => undefined };
    return createRateRelationTool({
      openPresets: () => openPresets(kv),
      presetId: "mika",
      ...relationsOverBridge(client.invoke, kv),
    });
  }

  const N = 12;
  const CHILD = fileURLToPath(new URL("./fixtures/rate-relation-process.ts", import.meta.url));
  const calls = (w: string) =>
    Array.from({ length: N }, (_, i) => ({
      args: { toward: "user", delta: 1, why: `${w} ${i}` },
      turn: `${w}-${i}`,
    }));
  const shape = (state: RelationsState) => ({
    values: state.values,
    spent: Object.fromEntries(Object.entries(state.spent).map(([k, v]) => [k, v.points])),
    log: state.log.map(({ target, from, to, who }) => ({ target, from, to, who })),
  });

  it("loses no write: the final value, the log and the answers equal the sequential result", async () => {
    const [a, b] = [await windowTool(), await windowTool()];
    const run = (t: ClientTool, c: ReturnType<typeof calls>[number]) =>
      t.run(c.args, { signal: new AbortController().signal, turnId: c.turn, presetId: "mika" });
    // Every call of both windows at once; each window runs its own calls in order, the two interleave.
    const answers = await Promise.all([
      ...calls("a").map((c) => run(a, c)),
      ...calls("b").map((c) => run(b, c)),
    ]);
    const stored = host.store.get(relationsKey("mika")) as RelationsState;

    // The same calls one after another, on a store of their own.
    const seq = tool();
    const seqAnswers: unknown[] = [];
    for (const c of [...calls("a"), ...calls("b")]) seqAnswers.push(await call(seq, c.args, c.turn));
    expect(shape(stored)).toEqual(shape(relations()));
    expect([...answers].sort()).toEqual([...seqAnswers].sort());
    // What the sequential result is: the day's cap of 4 points, reached one step at a time.
    expect(shape(stored)).toEqual({
      values: { user: 4 },
      spent: { user: 4 },
      log: [0, 1, 2, 3].map((from) => ({ target: "user", from, to: from + 1, who: "backend" })),
    });
    expect(answers.filter((x) => !String(x).startsWith("clamped: ")).sort()).toEqual([
      "neutral",
      "neutral",
      "neutral",
      "warm",
    ]);
    // Each logged change is a different call's, with its reason and turn.
    expect(new Set(stored.log.map((e) => `${e.why}/${e.turn}`)).size).toBe(4);
  });

  it("loses no write between a window and another process on the same data directory (yui chat's path)", async () => {
    const win = await windowTool();
    const child = spawn(process.execPath, ["--import", "tsx", CHILD, hostDir, "mika", String(N), "b"], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    const out: string[] = [];
    let line: (l: string) => void = () => undefined;
    child.stdout!.on("data", (c: Buffer) => {
      out.push(c.toString());
      const text = out.join("");
      if (text.endsWith("\n")) line(text.trim().split("\n").at(-1)!);
    });
    const nextLine = () => new Promise<string>((r) => (line = r));
    expect(await nextLine()).toBe("ready");
    const childAnswers = nextLine();
    child.stdin!.write("go\n");
    const windowAnswers = await Promise.all(
      calls("a").map((c) =>
        win.run(c.args, { signal: new AbortController().signal, turnId: c.turn, presetId: "mika" }),
      ),
    );
    const answers = [...windowAnswers, ...(JSON.parse(await childAnswers) as string[])];
    const stored = host.store.get(relationsKey("mika")) as RelationsState;

    const seq = tool();
    const seqAnswers: unknown[] = [];
    for (const c of [...calls("a"), ...calls("b")]) seqAnswers.push(await call(seq, c.args, c.turn));
    expect(shape(stored)).toEqual(shape(relations()));
    expect([...answers].sort()).toEqual([...seqAnswers].sort());
    expect(stored.log).toHaveLength(4);
  });

  it("refuses a change the window should never send: a reserved reason, a delta outside the enum, a bad target", async () => {
    const client = await bridgeClient(host);
    clients.push(client);
    const base = { presetId: "mika", target: "user", delta: 1, why: "fine" };
    for (const bad of [
      { why: "set by the user" },
      { delta: 3 },
      { delta: 0 },
      { why: "x".repeat(81) },
      { target: "" },
      { presetId: "user" },
    ]) {
      const r = await client.invoke(RELATION_RATE_COMMAND, { ...base, ...bad });
      expect(r.ok, JSON.stringify(bad)).toBe(false);
    }
    expect(host.store.has(relationsKey("mika"))).toBe(false);
    expect((await client.invoke(RELATION_RATE_COMMAND, base)).value).toEqual({
      off: false,
      band: "neutral",
      clamped: false,
      applied: 1,
    });
  });
});
