import { afterEach, describe, expect, it } from "vitest";
import { gameAndBridge } from "../test/harness.ts";
import { Bridge, ToolFailure } from "./bridge.ts";
import { TOOL_MESSAGES } from "./messages.ts";
import { RconClient } from "./rcon/client.ts";

let current: Awaited<ReturnType<typeof gameAndBridge>> | undefined;
async function setup(opts: Parameters<typeof gameAndBridge>[0] = {}) {
  current = await gameAndBridge(opts);
  return current;
}
afterEach(async () => {
  await current?.close();
  current = undefined;
});

const seqs = (events: { seq: number }[]) => events.map((e) => e.seq);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as ToolFailure,
  );

describe("polling", () => {
  it("adopts the map on first contact with both cursors at status.seq", async () => {
    const { game, bridge, lines } = await setup();
    game.flood(5);
    await bridge.pollOnce();
    expect(bridge.mapId).toBe(game.mapId);
    expect([bridge.pollSeq, bridge.readSeq, bridge.cache.size]).toEqual([5, 5, 0]);
    expect(lines()[0]).toMatchObject({ type: "session_start", map_id: game.mapId, seq: 5, queue_length: 0 });
  });

  it("asks events_since{seq, limit: 200} page after page until a page comes back short", async () => {
    const { game, bridge } = await setup();
    await bridge.pollOnce();
    game.flood(1001);
    expect(await bridge.pollOnce()).toBe(1001);
    const asks = game.requestsFor("events_since").slice(1);
    expect(asks.map((r) => r.args)).toEqual(
      [0, 200, 400, 600, 800, 1000].map((seq) => ({ seq, limit: 200 })),
    );
    expect(asks.every((r) => r.session === game.mapId)).toBe(true);
    expect(bridge.pollSeq).toBe(1001);
  });

  it("puts every event in the cache and in the JSONL outcome log", async () => {
    const { game, bridge, lines } = await setup();
    await bridge.pollOnce();
    const sent = [game.emit("chat", { player: "alice", text: "hi" }), game.emit("job_done", { job_id: 1 })];
    await bridge.pollOnce();
    expect(bridge.cache.after(0)).toEqual(sent);
    const logged = lines().filter((l) => l.type === "event");
    expect(logged.map((l) => l.event)).toEqual(sent);
    expect(logged.every((l) => l.map_id === game.mapId && typeof l.at === "string")).toBe(true);
  });

  it("keeps at most 5000 events, the newest", async () => {
    const { game, bridge } = await setup({ ringCapacity: 8000 });
    await bridge.pollOnce();
    game.flood(6000);
    await bridge.pollOnce();
    expect(bridge.cache.size).toBe(5000);
    expect(bridge.cache.after(0)[0]!.seq).toBe(1001);
  });

  it("rings the doorbell only for wake kinds", async () => {
    let rings = 0;
    const { game, bridge } = await setup({ bridge: { ring: () => rings++ } });
    await bridge.pollOnce();
    game.emit("job_done");
    game.emit("snapshot_summary");
    await bridge.pollOnce();
    expect(rings).toBe(0);
    game.emit("queue_idle");
    await bridge.pollOnce();
    expect(rings).toBe(1);
  });
});

describe("recovery", () => {
  it("history_gap moves the poll cursor to oldest_seq - 1 and goes on from there", async () => {
    const { game, bridge, lines } = await setup({ ringCapacity: 100 });
    await bridge.pollOnce();
    game.flood(250);
    await bridge.pollOnce();
    expect(bridge.pollSeq).toBe(250);
    expect(seqs(bridge.cache.after(0))).toEqual(range(151, 250));
    expect(lines().find((l) => l.type === "history_gap")).toMatchObject({ from_seq: 0, oldest_seq: 151 });
    // The unread cursor stayed; the agent's next page starts at what is left.
    expect(bridge.readSeq).toBe(0);
    expect(bridge.events(null, 3).events.map((e) => e.seq)).toEqual([151, 152, 153]);
  });

  it("a rollback on the same map rewinds both cursors, drops cached events above head and logs queue_length", async () => {
    const { game, bridge, lines } = await setup();
    await bridge.pollOnce();
    game.flood(10);
    await bridge.pollOnce();
    bridge.events(null, 8);
    await bridge.call("jobs_enqueue", { jobs: [{ kind: "craft", args: { recipe: "iron-gear-wheel" } }] });
    game.rollbackTo(5);
    await bridge.pollOnce();
    expect([bridge.pollSeq, bridge.readSeq]).toEqual([5, 5]);
    expect(seqs(bridge.cache.after(0))).toEqual(range(1, 5));
    expect(bridge.resetPending).toBe(true);
    expect(lines().find((l) => l.type === "session_reset")).toMatchObject({
      reason: "rollback",
      map_id: game.mapId,
      seq: 5,
      queue_length: 1,
    });
    // The game goes on from the older save: its new seq 6 is a new event.
    const next = game.emit("chat", { text: "after load" });
    await bridge.pollOnce();
    expect(bridge.cache.after(5)).toEqual([next]);
  });

  it("stale_session from the poll adopts the new map: status, both cursors at status.seq, cache cleared", async () => {
    const { game, bridge, lines } = await setup();
    await bridge.pollOnce();
    game.flood(3);
    await bridge.pollOnce();
    const old = game.mapId;
    game.newMap();
    game.flood(7);
    await bridge.pollOnce();
    expect(bridge.mapId).toBe(game.mapId);
    expect([bridge.pollSeq, bridge.readSeq, bridge.cache.size]).toEqual([7, 7, 0]);
    expect(bridge.resetPending).toBe(true);
    const resets = lines().filter((l) => l.type === "session_reset");
    expect(resets).toHaveLength(1);
    expect(resets[0]).toMatchObject({
      reason: "stale_session",
      previous_map_id: old,
      map_id: game.mapId,
      seq: 7,
    });
  });

  it("a different map id in status adopts the map and logs queue_length from status.queue.length", async () => {
    const { game, bridge, lines } = await setup();
    await bridge.pollOnce();
    game.newMap();
    game.flood(4);
    game.jobs.push(...[1, 2].map((id) => ({ ...jobRecord, id })));
    const status = await bridge.status();
    expect(status.map_id).toBe(game.mapId);
    expect(bridge.mapId).toBe(game.mapId);
    expect([bridge.pollSeq, bridge.readSeq]).toEqual([4, 4]);
    expect(lines().find((l) => l.type === "session_reset")).toMatchObject({
      reason: "map_change",
      queue_length: 2,
    });
  });

  it("writes queue_length: null when the status carries no queue", async () => {
    const { game, bridge, lines } = await setup({ omitQueue: true });
    await bridge.pollOnce();
    game.newMap();
    await bridge.pollOnce();
    expect(lines().find((l) => l.type === "session_reset")).toMatchObject({ queue_length: null });
  });

  it("when the poll and a tool meet the same map change, only the first recovery adopts it", async () => {
    const { game, bridge, lines } = await setup();
    await bridge.pollOnce();
    game.newMap();
    game.flood(3);
    await Promise.all([bridge.pollOnce(), bridge.call("snapshot", { sections: ["body"] })]);
    expect(lines().filter((l) => l.type === "session_reset")).toHaveLength(1);
    // New events after the adoption are cached; a late recovery for the same change leaves them be.
    game.flood(2);
    await bridge.pollOnce();
    bridge.events(null, 1);
    const before = { poll: bridge.pollSeq, read: bridge.readSeq, cached: seqs(bridge.cache.after(0)) };
    await bridge.recover("stale_session");
    expect({ poll: bridge.pollSeq, read: bridge.readSeq, cached: seqs(bridge.cache.after(0)) }).toEqual(
      before,
    );
    expect(before).toEqual({ poll: 5, read: 4, cached: [4, 5] });
    expect(lines().filter((l) => l.type === "session_reset")).toHaveLength(1);
  });

  it("otherwise both cursors only move forward", async () => {
    const { game, bridge } = await setup();
    await bridge.pollOnce();
    game.flood(30);
    await bridge.pollOnce();
    expect(seqs(bridge.events(null, 10).events)).toEqual(range(1, 10));
    // Above the unread cursor is clamped down to it.
    expect(seqs(bridge.events(25, 5).events)).toEqual(range(11, 15));
    // Below it re-reads, and the unread cursor stays where it was.
    const again = bridge.events(2, 3);
    expect(seqs(again.events)).toEqual([3, 4, 5]);
    expect(again).toMatchObject({ next_seq: 5, more: true });
    expect(bridge.readSeq).toBe(15);
    expect(bridge.events(null, 500).events).toHaveLength(15);
    expect(bridge.events(null)).toEqual({ events: [], next_seq: 30, more: false });
    await bridge.pollOnce();
    expect(bridge.pollSeq).toBe(30);
  });
});

describe("a game that breaks the protocol", () => {
  it("stops a poll whose full pages never move the cursor instead of looping", async () => {
    const page = Array.from({ length: 200 }, (_, i) => ({ seq: i + 1, tick: i, kind: "job_done" }));
    const reply = (result: unknown) => JSON.stringify({ ok: true, map_id: "m", tick: 1, result });
    let pages = 0;
    const bridge = new Bridge({
      rcon: {
        exec: async (command) => {
          if (command.includes('"status"')) return reply({ version: "x", map_id: "m", seq: 0, tick: 1 });
          pages++;
          return reply({ events: page, head_seq: 200, oldest_seq: 1, map_id: "m" });
        },
      },
      wakeKinds: new Set(),
      log: { write: () => {} },
    });
    await expect(bridge.pollOnce()).rejects.toThrow("did not move past 200");
    expect(pages).toBe(2);
    expect(bridge.cache.size).toBe(200);
  });
});

describe("writes", () => {
  it("re-sends a write whose reply was lost with the same id once status confirms the map; the game replays it", async () => {
    const { game, bridge } = await setup();
    await bridge.pollOnce();
    game.loseNextReply("say");
    expect(await bridge.call("say", { text: "on my way" })).toEqual({});
    expect(game.chat).toEqual(["[Yui] on my way"]);
    const says = game.requestsFor("say");
    expect(says).toHaveLength(2);
    expect(says[1]!.id).toBe(says[0]!.id);
    const order = game.requests.map((r) => r.op);
    expect(order.slice(order.indexOf("say"))).toEqual(["say", "status", "say"]);
  });

  it("does not re-send a lost write when the map changed meanwhile", async () => {
    const { game, bridge } = await setup();
    await bridge.pollOnce();
    game.loseNextReply("jobs_enqueue", () => game.newMap());
    const err = await failure(
      bridge.call("jobs_enqueue", { jobs: [{ kind: "craft", args: { recipe: "x" } }] }),
    );
    expect(err?.message).toBe(TOOL_MESSAGES.lostAndMapChanged);
    expect(game.requestsFor("jobs_enqueue")).toHaveLength(1);
    expect(bridge.mapId).toBe(game.mapId);
  });

  it("says the write may have run when the game stops answering after a lost reply", async () => {
    const { game, bridge } = await setup();
    await bridge.pollOnce();
    game.loseNextReply("say", () => void game.close());
    const err = await failure(bridge.call("say", { text: "anyone?" }));
    expect(err?.message.startsWith(TOOL_MESSAGES.lostUnconfirmed("").split("(")[0]!)).toBe(true);
    expect(err?.message).toMatch(
      /RCON only listens while the game is hosted\); the write may or may not have run$/,
    );
  });

  it("gives up after a second lost reply", async () => {
    const { game, bridge } = await setup();
    await bridge.pollOnce();
    game.loseNextReply("stop");
    game.loseNextReply("stop");
    expect((await failure(bridge.call("stop", {})))?.message).toBe(TOOL_MESSAGES.lostTwice);
    expect(game.requestsFor("stop")).toHaveLength(2);
  });

  it("ends the call with a tool error on id_conflict and never re-sends it under a new id", async () => {
    const { game, bridge } = await setup({ bridge: { idPrefix: "fixed" } });
    await bridge.pollOnce();
    // Another writer already used the id this bridge will pick first, with other args.
    const other = await RconClient.connect(
      { host: "127.0.0.1", port: game.port, password: game.password },
      { connectMs: 5000, replyMs: 5000 },
    );
    await other.exec(`/coop-rpc ${JSON.stringify({ op: "say", id: "fixed-1", args: { text: "theirs" } })}`);
    other.close();
    const err = await failure(bridge.call("say", { text: "mine" }));
    expect(err).toBeInstanceOf(ToolFailure);
    expect(err?.message).toBe(TOOL_MESSAGES.idConflict("fixed-1"));
    expect(game.requestsFor("say").map((r) => r.id)).toEqual(["fixed-1", "fixed-1"]);
    expect(game.chat).toEqual(["[Yui] theirs"]);
  });

  it("answers a write stale after a map change with a tool error, and retries a read on the new map", async () => {
    const { game, bridge } = await setup();
    await bridge.pollOnce();
    game.newMap();
    expect((await failure(bridge.call("idle", { mode: "follow" })))?.message).toBe(TOOL_MESSAGES.mapChanged);
    expect(game.requestsFor("idle")).toHaveLength(1);
    game.newMap();
    expect(await bridge.call("recipe", { name: "iron-gear-wheel" })).toMatchObject({
      recipe: { name: "iron-gear-wheel" },
    });
  });

  it("passes the game mod's bad_request through with the field at fault", async () => {
    const { bridge } = await setup();
    const err = await failure(bridge.call("jobs_enqueue", { jobs: [{ kind: "dance", args: {} }] }));
    expect(err?.message).toBe(
      TOOL_MESSAGES.gameError("bad_request", 'unknown job kind "dance"', "args.jobs[0].kind"),
    );
  });

  it("says the game mod is missing when the game answers something else", async () => {
    const { game, bridge } = await setup();
    game.rawNextReply("status", 'Unknown command "coop-rpc".');
    expect((await failure(bridge.call("jobs", {})))?.message).toBe(TOOL_MESSAGES.notGameMod);
  });
});

const jobRecord = {
  id: 0,
  kind: "craft",
  args: { recipe: "iron-gear-wheel" },
  timeout_ticks: 18000,
  state: "queued" as const,
  enqueued_tick: 1,
  started_tick: null,
  ended_tick: null,
  result: null,
  reason: null,
};
