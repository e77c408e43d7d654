// The contract, checked against the real coop-agent game mod (Lua 5.2, on its own fake Factorio API)
// behind real RCON: what the Mod parses and relies on is what the game mod actually answers.
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { connectClient } from "@yui/mod-kit";
import { afterEach, describe, expect, it } from "vitest";
import { type RunningMod, startMod } from "../src/app.ts";
import { Bridge, ToolFailure } from "../src/bridge.ts";
import { loadConfig } from "../src/config.ts";
import { TOOL_MESSAGES } from "../src/messages.ts";
import type { OutcomeLine } from "../src/outcome-log.ts";
import { RconClient } from "../src/rcon/client.ts";
import { RconLink } from "../src/rcon/link.ts";
import { LuaGame } from "./lua-game.ts";

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

async function bridgeOnLua(idPrefix?: string) {
  const lua = await LuaGame.start();
  const link = new RconLink({
    endpoint: () => ({ host: "127.0.0.1", port: lua.port, password: lua.password }),
    connectMs: 5000,
    replyMs: 30_000,
    backoffMinMs: 10,
    backoffMaxMs: 100,
  });
  const lines: OutcomeLine[] = [];
  const bridge = new Bridge({
    rcon: link,
    wakeKinds: new Set(["chat"]),
    log: { write: (l) => lines.push(...l) },
    ...(idPrefix ? { idPrefix } : {}),
  });
  cleanup.push(async () => {
    link.close();
    await lua.close();
  });
  return { lua, bridge, lines };
}

describe("against the real game mod", () => {
  it("adopts its map, polls its chat events and reads its status", async () => {
    const { lua, bridge } = await bridgeOnLua();
    const status = await bridge.status();
    expect(status).toMatchObject({ version: "0.1.0", map_id: bridge.mapId, queue: { length: 0 } });
    await lua.drive({ cmd: "chat", player: "alice", text: "yui, over here" });
    await bridge.pollOnce();
    expect(bridge.current()?.group.note).toBe("yui, over here");
    const page = bridge.events(null);
    expect(page.events).toEqual([
      expect.objectContaining({
        kind: "chat",
        player: "alice",
        text: "yui, over here",
        seq: expect.any(Number),
      }),
    ]);
    expect(bridge.current()).toBeNull();
  });

  it("replays a write whose reply was lost: one job queued, not two", async () => {
    const { lua, bridge } = await bridgeOnLua();
    await bridge.pollOnce();
    lua.loseNext.push("jobs_enqueue");
    const { ids } = (await bridge.call("jobs_enqueue", {
      jobs: [{ kind: "walk_to", args: { pos: { x: 3, y: 3 } } }],
    })) as { ids: number[] };
    const enqueues = lua.commands.filter((c) => c.includes('"jobs_enqueue"'));
    expect(enqueues).toHaveLength(2);
    expect(enqueues[1]).toBe(enqueues[0]);
    const { jobs } = (await bridge.call("jobs", {})) as { jobs: { id: number }[] };
    expect(jobs.map((j) => j.id)).toEqual(ids);
  });

  it("ends the call on its id_conflict and passes its bad_request field through", async () => {
    const { lua, bridge } = await bridgeOnLua("fixed");
    await bridge.pollOnce();
    const other = await RconClient.connect(
      { host: "127.0.0.1", port: lua.port, password: lua.password },
      { connectMs: 5000, replyMs: 30_000 },
    );
    await other.exec(`/coop-rpc ${JSON.stringify({ op: "say", id: "fixed-1", args: { text: "theirs" } })}`);
    other.close();
    const conflict = await bridge.call("say", { text: "mine" }).catch((e: unknown) => e as ToolFailure);
    expect(conflict).toBeInstanceOf(ToolFailure);
    expect((conflict as ToolFailure).message).toBe(TOOL_MESSAGES.idConflict("fixed-1"));
    const bad = await bridge
      .call("jobs_enqueue", { jobs: [{ kind: "dance", args: {} }] })
      .catch((e: unknown) => e as ToolFailure);
    expect((bad as ToolFailure).message).toMatch(/^bad_request: .* \(field args\.jobs\[0\]\.kind\)$/);
  });

  it("recovers from its stale_session after a new map", async () => {
    const { lua, bridge, lines } = await bridgeOnLua();
    await bridge.pollOnce();
    const old = bridge.mapId;
    await lua.drive({ cmd: "new_map", seed: 4242 });
    await bridge.pollOnce();
    expect(bridge.mapId).not.toBe(old);
    expect(bridge.resetPending).toBe(true);
    expect(lines.find((l) => l.type === "session_reset")).toMatchObject({
      reason: "stale_session",
      previous_map_id: old,
      queue_length: 0,
    });
    expect((await bridge.status()).map_id).toBe(bridge.mapId);
  });

  it("follows its rollback: an older save of the same map rewinds the cursors", async () => {
    const { lua, bridge, lines } = await bridgeOnLua();
    await bridge.pollOnce();
    await lua.drive({ cmd: "chat", player: "alice", text: "one" });
    await lua.drive({ cmd: "save" });
    await lua.drive({ cmd: "chat", player: "alice", text: "two" });
    await lua.drive({ cmd: "chat", player: "alice", text: "three" });
    await bridge.pollOnce();
    const head = bridge.pollSeq;
    const map = bridge.mapId;
    expect(bridge.cache.after(0).map((e) => e.text)).toEqual(["one", "two", "three"]);
    await lua.drive({ cmd: "load" });
    await bridge.pollOnce();
    expect(bridge.mapId).toBe(map);
    expect(bridge.pollSeq).toBe(head - 2);
    expect(bridge.cache.after(0).map((e) => e.text)).toEqual(["one"]);
    expect(lines.find((l) => l.type === "session_reset")).toMatchObject({
      reason: "rollback",
      seq: head - 2,
    });
  });

  it("answers every tool through the SDK client", async () => {
    const lua = await LuaGame.start();
    const dir = mkdtempSync(path.join(os.tmpdir(), "factorio-lua-"));
    writeFileSync(
      path.join(dir, "config.ini"),
      `[other]\nlocal-rcon-socket=127.0.0.1:${lua.port}\nlocal-rcon-password=${lua.password}\n`,
    );
    writeFileSync(
      path.join(dir, "config.toml"),
      `config_ini = "config.ini"\nsignals_url = ""\ntime_scale = 0.01\n`,
    );
    const mod: RunningMod = await startMod(loadConfig(path.join(dir, "config.toml")), 0, { log: () => {} });
    const { client, close } = await connectClient(mod.url);
    cleanup.push(async () => {
      await close();
      await mod.close();
      await lua.close();
    });
    const calls: [string, Record<string, unknown>][] = [
      ["factorio_status", {}],
      ["factorio_events", {}],
      ["factorio_snapshot", {}],
      ["factorio_snapshot", { sections: ["body", "jobs"] }],
      ["factorio_find", { name: "iron-ore" }],
      ["factorio_find", { around: 20 }],
      ["factorio_recipe", { name: "iron-gear-wheel" }],
      ["factorio_say", { text: "hello from the Mod" }],
      ["factorio_ping", { pos: { x: 12, y: 0 }, text: "ore" }],
      ["factorio_jobs_enqueue", { jobs: [{ kind: "craft", args: { recipe: "iron-gear-wheel" } }] }],
      ["factorio_jobs", {}],
      ["factorio_jobs_cancel", { id: "all" }],
      ["factorio_idle", { mode: "stay" }],
      ["factorio_stop", {}],
      ["factorio_idle", { mode: "follow" }],
    ];
    for (const [name, args] of calls) {
      const r = (await client.callTool({ name, arguments: args })) as {
        isError?: boolean;
        content: { text: string }[];
      };
      expect(r.isError, `${name}: ${r.content[0]?.text}`).toBeFalsy();
      expect(() => JSON.parse(r.content[0]!.text)).not.toThrow();
    }
    const found = (await client.callTool({
      name: "factorio_find",
      arguments: { name: "stone-furnace" },
    })) as {
      content: { text: string }[];
    };
    const unit = (JSON.parse(found.content[0]!.text) as { entities: { unit_number: number }[] }).entities[0]!
      .unit_number;
    const inspected = (await client.callTool({
      name: "factorio_inspect",
      arguments: { unit_number: unit },
    })) as {
      isError?: boolean;
      content: { text: string }[];
    };
    expect(inspected.isError, inspected.content[0]?.text).toBeFalsy();
    expect(JSON.parse(inspected.content[0]!.text)).toMatchObject({ entity: { name: "stone-furnace" } });
  });
});
