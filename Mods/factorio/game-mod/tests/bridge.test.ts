// The real game mod (Lua 5.2, in the fake world of tests/fake) behind a real Source RCON server on
// loopback, driven by the factorio Mod's own RCON link and Bridge: the two sides of
// docs/coop-rpc.md tested against each other instead of against stand-ins.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import net from "node:net";
import { dirname } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { Bridge, ToolFailure } from "../../src/bridge.ts";
import { DEFAULT_WAKE_KINDS } from "../../src/config.ts";
import type { OutcomeLine } from "../../src/outcome-log.ts";
import { encodePacket, PacketReader, PacketType } from "../../src/rcon/codec.ts";
import { RconLink } from "../../src/rcon/link.ts";

const modRoot = dirname(dirname(fileURLToPath(import.meta.url)));
const PASSWORD = "coop-test";

type LuaReply = { ok: boolean; error?: string; reply?: string; map_id?: string };

/** The Lua mod in its fake world, one JSON command per line (tests/serve.lua). */
class LuaGame {
  private readonly waiting: { resolve(r: LuaReply): void; reject(e: Error): void }[] = [];
  private stderr = "";
  private exited: Error | undefined;
  private constructor(private readonly child: ChildProcessWithoutNullStreams) {
    createInterface({ input: child.stdout }).on("line", (line) => {
      this.waiting.shift()?.resolve(JSON.parse(line) as LuaReply);
    });
    child.stderr.on("data", (d: Buffer) => {
      this.stderr += d.toString();
    });
    // A crashed Lua process fails the waiting command at once, with what it printed.
    child.on("exit", (code, signal) => {
      this.exited = new Error(`lua5.2 exited (${code ?? signal}): ${this.stderr}`);
      for (const w of this.waiting.splice(0)) w.reject(this.exited);
    });
  }

  static start(): LuaGame {
    return new LuaGame(spawn("lua5.2", ["tests/serve.lua"], { cwd: modRoot }));
  }

  /** Sends one command; resolves with its answer, rejects when the Lua side failed. */
  async send(cmd: Record<string, unknown>): Promise<LuaReply> {
    if (this.exited) throw this.exited;
    const reply = await new Promise<LuaReply>((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.child.stdin.write(`${JSON.stringify(cmd)}\n`, (err) => err && reject(err));
    });
    if (!reply.ok) throw new Error(`lua: ${reply.error}\n${this.stderr}`);
    return reply;
  }

  stop(): void {
    this.child.kill();
  }
}

/** A Source RCON server as Factorio runs one: auth, then each command answered in one packet. */
async function rconServer(game: LuaGame): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    const reader = new PacketReader();
    let authed = false;
    // One command at a time, in order, like the game's console.
    let chain = Promise.resolve();
    socket.on("data", (chunk: Buffer) => {
      for (const p of reader.push(chunk)) {
        chain = chain.then(async () => {
          if (p.type === PacketType.AUTH) {
            authed = p.body === PASSWORD;
            socket.write(encodePacket({ id: p.id, type: PacketType.RESPONSE_VALUE, body: "" }));
            socket.write(encodePacket({ id: authed ? p.id : -1, type: PacketType.AUTH_RESPONSE, body: "" }));
            return;
          }
          if (!authed || p.type !== PacketType.EXECCOMMAND) return;
          const m = /^\/coop-rpc(?: (.*))?$/s.exec(p.body);
          const body = m
            ? ((await game.send({ do: "rpc", text: m[1] ?? "" })).reply ?? "")
            : `Unknown command "${p.body.split(" ")[0]?.slice(1)}".`;
          socket.write(encodePacket({ id: p.id, type: PacketType.RESPONSE_VALUE, body }));
        });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe("the factorio Mod's bridge against the real game mod over RCON", () => {
  let game: LuaGame;
  let server: Awaited<ReturnType<typeof rconServer>>;
  let link: RconLink;
  let bridge: Bridge;
  let lines: OutcomeLine[];

  beforeEach(async () => {
    game = LuaGame.start();
    server = await rconServer(game);
    link = new RconLink({
      endpoint: () => ({ host: "127.0.0.1", port: server.port, password: PASSWORD }),
      connectMs: 5_000,
      replyMs: 20_000,
      backoffMinMs: 10,
      backoffMaxMs: 100,
    });
    lines = [];
    bridge = new Bridge({
      rcon: link,
      wakeKinds: new Set(DEFAULT_WAKE_KINDS),
      log: { write: (l: OutcomeLine[]) => void lines.push(...l) },
      idPrefix: "e2e",
    });
  });

  afterEach(async () => {
    link.close();
    await server.close();
    game.stop();
  });

  test("status reads the game mod's version, map, head and the body", async () => {
    const status = await bridge.status();
    expect(status.version).toBe("0.1.0");
    expect(typeof status.map_id).toBe("string");
    expect(status.seq).toBe(0);
    expect(status.body).toMatchObject({ name: "Yui", state: "alive" });
    expect(status.queue).toEqual({ length: 0 });
    expect(bridge.mapId).toBe(status.map_id);
  });

  test("a player's chat line reaches the cache verbatim and rings as the wake note", async () => {
    await bridge.status();
    await game.send({ do: "chat", player: "alice", text: 'yui, come here — "now" [gps=1,2]' });
    expect(await bridge.pollOnce()).toBe(1);
    const page = bridge.events(null);
    expect(page.events).toHaveLength(1);
    expect(page.events[0]).toMatchObject({
      seq: 1,
      kind: "chat",
      player: "alice",
      text: 'yui, come here — "now" [gps=1,2]',
    });
    await game.send({ do: "chat", player: "alice", text: "and bring coal" });
    await bridge.pollOnce();
    expect(bridge.current()?.group.note).toBe("and bring coal");
  });

  test("a backlog drains in full pages of 200 until a short one", async () => {
    await bridge.status();
    await game.send({ do: "chats", player: "alice", n: 450 });
    expect(await bridge.pollOnce()).toBe(450);
    expect(bridge.pollSeq).toBe(450);
    expect(bridge.events(0, 200).events).toHaveLength(200);
  });

  test("events the ring dropped come back as history_gap and the poll goes on from the oldest", async () => {
    await bridge.status();
    await game.send({ do: "chats", player: "alice", n: 2100 });
    await bridge.pollOnce();
    expect(bridge.pollSeq).toBe(2100);
    expect(lines.find((l) => l.type === "history_gap")).toMatchObject({ from_seq: 0, oldest_seq: 53 });
  });

  test("a job enqueued through the bridge runs in the game and reports job_done and queue_idle", async () => {
    const { ids } = await bridge.call("jobs_enqueue", {
      jobs: [{ kind: "walk_to", args: { pos: { x: 12, y: 3 } } }],
    });
    expect(ids).toEqual([1]);
    await game.send({ do: "tick", n: 600 });
    await bridge.pollOnce();
    const kinds = bridge.events(null).events.map((e) => e.kind);
    expect(kinds).toEqual(["job_done", "queue_idle"]);
    const { jobs } = await bridge.call("jobs", {});
    expect(jobs).toMatchObject([{ id: 1, kind: "walk_to", state: "done" }]);
  });

  test("the game mod's bad_request reaches the tool error with the field at fault", async () => {
    const call = bridge.call("jobs_enqueue", { jobs: [{ kind: "walk_to", args: {} }, { kind: "dance" }] });
    await expect(call).rejects.toBeInstanceOf(ToolFailure);
    await expect(call).rejects.toThrow(/bad_request: .*\(field args\.jobs\[0\]\.args\.pos\)/);
  });

  test("writes answer through the bridge: say, ping, idle, stop, cancel", async () => {
    expect(await bridge.call("say", { text: "on my way" })).toEqual({});
    expect(await bridge.call("ping", { pos: { x: 3, y: 4 }, text: "iron" })).toEqual({});
    expect(await bridge.call("idle", { mode: "stay", pos: { x: 2, y: 2 } })).toEqual({
      mode: "stay",
      pos: { x: 2, y: 2 },
    });
    expect(await bridge.call("stop", {})).toEqual({ stopped: true });
    expect(await bridge.call("jobs_cancel", { job: "all" })).toEqual({ cancelled: [] });
    await bridge.pollOnce();
    expect(bridge.events(null).events.map((e) => e.kind)).toEqual(["idle_changed", "stopped"]);
  });

  test("reads answer through the bridge: snapshot, find, inspect, recipe", async () => {
    const snap = await bridge.call("snapshot", { sections: ["body", "jobs"] });
    expect(Object.keys(snap.sections as object).sort()).toEqual(["body", "jobs"]);
    const found = await bridge.call("find", { name: "wooden-chest" });
    const chest = (found.entities as { unit_number: number }[])[0]!;
    const inspected = await bridge.call("inspect", { unit_number: chest.unit_number });
    expect(inspected.entity).toMatchObject({ name: "wooden-chest", inventories: { chest: { coal: 20 } } });
    const recipe = await bridge.call("recipe", { name: "iron-gear-wheel" });
    expect(recipe.recipe).toMatchObject({ name: "iron-gear-wheel", enabled: true });
    await expect(bridge.call("recipe", { name: "warp-drive" })).rejects.toThrow(/not_found/);
  });

  test("loading an older save is a rollback: the bridge rewinds to the saved head", async () => {
    await bridge.status();
    await game.send({ do: "chats", player: "alice", n: 3 });
    await game.send({ do: "save" });
    await game.send({ do: "chats", player: "alice", n: 4 });
    await bridge.pollOnce();
    expect(bridge.pollSeq).toBe(7);
    await game.send({ do: "load" });
    await bridge.pollOnce();
    expect(bridge.pollSeq).toBe(3);
    expect(lines.find((l) => l.type === "session_reset")).toMatchObject({ reason: "rollback", seq: 3 });
  });

  test("a new map is adopted: new map id, cursors at its head, the next doorbell says reset", async () => {
    const first = (await bridge.status()).map_id;
    const { map_id } = await game.send({ do: "new_map", seed: 42 });
    expect(map_id).not.toBe(first);
    await bridge.pollOnce();
    expect(bridge.mapId).toBe(map_id);
    expect(bridge.resetPending).toBe(true);
    await expect(bridge.call("say", { text: "hello again" })).resolves.toEqual({});
  });
});
