import { mkdtempSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import os from "node:os";
import path from "node:path";
import { connectClient, GUARD_REFUSALS } from "@yui/mod-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SignalsEndpoint } from "../test/signals-endpoint.ts";
import { StandInGame } from "../test/stand-in-game.ts";
import { type RunningMod, startMod } from "./app.ts";
import { DEFAULT_WAKE_KINDS, loadConfig } from "./config.ts";
import { WAKE_SIGNAL } from "./doorbell.ts";
import { CONFIG_MESSAGES, TOOL_MESSAGES } from "./messages.ts";
import { TOOL_DESCRIPTIONS } from "./server.ts";

type Client = Awaited<ReturnType<typeof connectClient>>["client"];
type Result = { isError?: boolean; content: { type: string; text?: string }[] };

// time_scale 0.01: the 1 s poll is 10 ms, the 5 s backoff 50 ms, the 300 s reminder 3 s.
const SCALE = 0.01;

function writeConfig(dir: string, ini: string, signalsUrl: string): string {
  writeFileSync(path.join(dir, "config.ini"), ini);
  const toml = `config_ini = "config.ini"\nsignals_url = "${signalsUrl}"\noutcome_log = "out.jsonl"\ntime_scale = ${SCALE}\n[wake]\nkinds = ${JSON.stringify([...DEFAULT_WAKE_KINDS])}\ncoalesce_ms = 20\n`;
  const p = path.join(dir, "config.toml");
  writeFileSync(p, toml);
  return p;
}

const text = (r: Result) => r.content.map((c) => c.text ?? "").join("");
const json = (r: Result) => JSON.parse(text(r)) as Record<string, unknown>;

async function waitFor(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("the factorio Mod over MCP (real SDK client, stand-in game, signals endpoint)", () => {
  let game: StandInGame;
  let signals: SignalsEndpoint;
  let mod: RunningMod;
  let client: Client;
  let closeClient: () => Promise<void>;

  beforeAll(async () => {
    game = await StandInGame.start({ password: "pw 1" });
    signals = await SignalsEndpoint.start();
    const dir = mkdtempSync(path.join(os.tmpdir(), "factorio-mod-"));
    const ini = `[other]\nlocal-rcon-socket=127.0.0.1:${game.port}\nlocal-rcon-password=pw 1\n`;
    mod = await startMod(loadConfig(writeConfig(dir, ini, signals.url)), 0, { log: () => {} });
    ({ client, close: closeClient } = await connectClient(mod.url));
    await waitFor(() => mod.bridge.mapId === game.mapId, "the first poll");
  });
  afterAll(async () => {
    await closeClient();
    await mod.close();
    await signals.close();
    await game.close();
  });
  const call = (name: string, args: Record<string, unknown> = {}) =>
    client.callTool({ name, arguments: args }) as Promise<Result>;

  it("lists exactly the spec's tools with the spec's descriptions", async () => {
    const { tools } = await client.listTools();
    expect(Object.fromEntries(tools.map((t) => [t.name, t.description]))).toEqual(TOOL_DESCRIPTIONS);
  });

  it("factorio_status answers version, map id, seq, tick and host state", async () => {
    const s = json(await call("factorio_status"));
    expect(s).toMatchObject({
      version: "0.1.0",
      map_id: game.mapId,
      seq: game.head,
      host: { state: "online" },
    });
    expect(typeof s.tick).toBe("number");
  });

  it("wakes the client with one group for a chat line, and factorio_events pages from the unread cursor", async () => {
    const before = signals.posts.length;
    const chat = game.emit("chat", { player: "alice", text: "yui, bring 10 iron plates" });
    game.emit("job_done", { job_id: 1 });
    await signals.waitForPosts(before + 1);
    expect(signals.posts[before]!.body).toEqual({
      ...WAKE_SIGNAL,
      pending_from_seq: chat.seq,
      pending_to_seq: chat.seq + 1,
      reset: false,
      note: "yui, bring 10 iron plates",
    });
    await waitFor(() => mod.bridge.pollSeq === chat.seq + 1, "the job_done event");
    const page = json(await call("factorio_events", { limit: 1 }));
    expect(page).toEqual({ events: [chat], next_seq: chat.seq, more: true });
    const rest = json(await call("factorio_events", { since_seq: null }));
    expect(rest).toMatchObject({ next_seq: chat.seq + 1, more: false });
    expect(json(await call("factorio_events", { since_seq: 0 }))).toMatchObject({ more: false });
    expect(signals.posts.length).toBe(before + 1);
  });

  it("retries a failing signals endpoint on the same range until it recovers", async () => {
    await call("factorio_events", {});
    signals.answers = [500, 502];
    const before = signals.posts.length;
    const e = game.emit("player_died", { player: "bob", position: { x: 1, y: 2 }, cause: "small-biter" });
    await signals.waitForPosts(before + 3);
    const three = signals.posts.slice(before, before + 3);
    expect(three.map((p) => p.status)).toEqual([500, 502, 200]);
    for (const p of three) expect(p.body).toMatchObject({ pending_from_seq: e.seq, note: "player_died" });
    await call("factorio_events", {});
  });

  it("marks the first group after a rollback with reset: true, and only that one", async () => {
    await call("factorio_events", {});
    const head = game.head;
    game.flood(3, "job_done");
    await waitFor(() => mod.bridge.pollSeq === head + 3, "the job_done events");
    game.rollbackTo(head + 1);
    await waitFor(() => mod.bridge.pollSeq === head + 1, "the rollback");
    const before = signals.posts.length;
    game.emit("chat", { player: "alice", text: "after the rollback" });
    await signals.waitForPosts(before + 1);
    expect(signals.posts[before]!.body).toMatchObject({
      pending_from_seq: head + 1,
      pending_to_seq: head + 2,
      reset: true,
      note: "after the rollback",
    });
    await call("factorio_events", {});
    game.emit("body_died", { position: { x: 0, y: 0 }, cause: null });
    await signals.waitForPosts(before + 2);
    expect(signals.posts[before + 1]!.body).toMatchObject({ reset: false, note: "body_died" });
    await call("factorio_events", {});
  });

  it("runs every read tool through the game mod", async () => {
    expect(Object.keys(json(await call("factorio_snapshot")).sections as object)).toHaveLength(8);
    expect(json(await call("factorio_snapshot", { sections: ["power"] }))).toEqual({
      sections: { power: { section: "power" } },
    });
    expect(json(await call("factorio_find", { name: "stone-furnace", limit: 1 }))).toMatchObject({
      entities: [{ unit_number: 11 }],
      truncated: true,
    });
    expect(json(await call("factorio_find", { around: 10 }))).toMatchObject({ truncated: false });
    expect(json(await call("factorio_inspect", { unit_number: 12 }))).toMatchObject({
      entity: { name: "burner-mining-drill" },
    });
    expect(json(await call("factorio_recipe", { name: "iron-gear-wheel" }))).toMatchObject({
      recipe: { ingredients: [{ name: "iron-plate", amount: 2 }] },
    });
  });

  it("runs every write tool, each with its own id", async () => {
    expect(json(await call("factorio_say", { text: "hello" }))).toEqual({});
    expect(game.chat.at(-1)).toBe("[Yui] hello");
    expect(json(await call("factorio_ping", { pos: { x: 3, y: -4 }, text: "iron here" }))).toEqual({});
    expect(game.pings.at(-1)).toEqual({ pos: { x: 3, y: -4 }, text: "iron here" });
    expect(json(await call("factorio_stop"))).toEqual({ stopped: true });
    expect(game.stopped).toBe(true);
    const { ids } = json(
      await call("factorio_jobs_enqueue", {
        jobs: [
          { kind: "walk_to", args: { pos: { x: 5, y: 5 } } },
          { kind: "craft", args: { recipe: "iron-gear-wheel", count: 4 }, timeout_ticks: 600 },
        ],
      }),
    ) as { ids: number[] };
    expect(ids).toHaveLength(2);
    expect(game.stopped).toBe(false);
    const jobs = json(await call("factorio_jobs")).jobs as { id: number; kind: string }[];
    expect(jobs.map((j) => j.kind)).toEqual(["walk_to", "craft"]);
    expect(json(await call("factorio_jobs_cancel", { id: ids[0] }))).toEqual({ cancelled: [ids[0]] });
    expect(json(await call("factorio_jobs_cancel", { id: "all" }))).toEqual({ cancelled: [ids[1]] });
    await call("factorio_stop");
    expect(json(await call("factorio_idle", { mode: "stay", pos: { x: 7, y: 8 } }))).toEqual({
      mode: "stay",
      pos: { x: 7, y: 8 },
    });
    expect(game.stopped).toBe(false);
    expect(json(await call("factorio_idle", { mode: "follow" }))).toEqual({ mode: "follow", pos: null });
    const writeIds = game.requests.filter((r) => r.id !== undefined).map((r) => r.id);
    expect(new Set(writeIds).size).toBe(writeIds.length);
  });

  it("answers the game mod's errors and bad input as tool errors", async () => {
    const notFound = await call("factorio_jobs_cancel", { id: 999 });
    expect(notFound.isError).toBe(true);
    expect(text(notFound)).toBe(TOOL_MESSAGES.gameError("not_found", "no queued or running job 999"));
    const bad = await call("factorio_jobs_enqueue", { jobs: [{ kind: "mine", args: { count: 2 } }] });
    expect(text(bad)).toBe(
      TOOL_MESSAGES.gameError("bad_request", "args.jobs[0].args.pos must be {x, y}", "args.jobs[0].args.pos"),
    );
    const nine = await call("factorio_jobs_enqueue", { jobs: Array(9).fill({ kind: "craft", args: {} }) });
    expect(nine.isError).toBe(true);
    const wrongType = await call("factorio_inspect", { unit_number: "twelve" });
    expect(wrongType.isError).toBe(true);
    const huge = { left_top: { x: 0, y: 0 }, right_bottom: { x: 5000, y: 10 } };
    expect(text(await call("factorio_find", { area: huge }))).toBe(
      TOOL_MESSAGES.gameError("bad_request", "args.area is more than 1024 tiles across", "args.area"),
    );
    expect(text(await call("factorio_find", { name: "unobtainium" }))).toBe(
      TOOL_MESSAGES.gameError("bad_request", "args.name is not a known entity: unobtainium", "args.name"),
    );
    expect(text(await call("factorio_recipe", { name: "unobtainium" }))).toBe(
      TOOL_MESSAGES.gameError("not_found", "no recipe named unobtainium"),
    );
  });

  it("quotes at most 200 characters of a 1 MB argument the game mod echoes back", async () => {
    const big = "q".repeat(1 << 20);
    const section = await call("factorio_snapshot", { sections: [big] });
    expect(section.isError).toBe(true);
    // The stand-in game, like the game mod, names the bad value in its message: the Mod cuts it.
    expect(text(section)).toBe(
      TOOL_MESSAGES.gameError("bad_request", `unknown section "${big}"`, "args.sections[0]"),
    );
    // 'unknown section "' and 183 q's are the first 200 of the message's 1048594 characters.
    expect(text(section)).toBe(
      `bad_request: unknown section "${"q".repeat(183)}…(${big.length + 18} characters) (field args.sections[0])`,
    );
    const kind = await call("factorio_jobs_enqueue", { jobs: [{ kind: big }] });
    expect(kind.isError).toBe(true);
    expect(text(kind).length).toBeLessThan(400);
    expect(text(kind)).toContain(`unknown job kind "${"q".repeat(150)}`);
    expect(text(kind)).toContain(`…(${big.length + 19} characters) (field args.jobs[0].kind)`);
  });

  it("refuses a non-loopback Host with 421 and a non-loopback Origin with 403", async () => {
    const post = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const req = request(mod.url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            ...headers,
          },
        });
        req.on("response", (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on("error", reject);
        req.end("{}");
      });
    expect(await post({ host: "evil.example" })).toBe(GUARD_REFUSALS.host.status);
    expect(await post({ origin: "https://evil.example" })).toBe(GUARD_REFUSALS.origin.status);
  });
});

describe("the factorio Mod without a usable config.ini", () => {
  it("answers tool calls with which key is missing and that RCON needs a hosted game", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "factorio-noini-"));
    const cfg = loadConfig(writeConfig(dir, "[other]\n; local-rcon-socket=\n", ""));
    const mod = await startMod(cfg, 0, { log: () => {} });
    const { client, close } = await connectClient(mod.url);
    try {
      const r = (await client.callTool({ name: "factorio_status", arguments: {} })) as Result;
      expect(r.isError).toBe(true);
      expect(text(r)).toBe(CONFIG_MESSAGES.configIniMissingKey("local-rcon-socket", cfg.configIni));
    } finally {
      await close();
      await mod.close();
    }
  });
});
