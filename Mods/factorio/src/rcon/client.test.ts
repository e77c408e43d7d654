import { freePort } from "@yui/mod-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StandInGame } from "../../test/stand-in-game.ts";
import { RconClient, RconError } from "./client.ts";

const timeouts = { connectMs: 5_000, replyMs: 5_000 };

describe("RCON client against the stand-in game", () => {
  let game: StandInGame;
  beforeAll(async () => {
    game = await StandInGame.start({ password: "pw" });
  });
  afterAll(async () => {
    await game.close();
  });
  const endpoint = () => ({ host: "127.0.0.1", port: game.port, password: "pw" });

  it("authenticates and runs commands, matching each reply to its request", async () => {
    const c = await RconClient.connect(endpoint(), timeouts);
    const [a, b] = await Promise.all([
      c.exec('/coop-rpc {"op":"status"}'),
      c.exec('/coop-rpc {"op":"recipe","args":{"name":"iron-gear-wheel"}}'),
    ]);
    expect(JSON.parse(a).result.map_id).toBe(game.mapId);
    expect(JSON.parse(b).result.recipe.name).toBe("iron-gear-wheel");
    c.close();
  });

  it("says the password was refused", async () => {
    const err = await RconClient.connect({ ...endpoint(), password: "wrong" }, timeouts).catch((e) => e);
    expect(err).toBeInstanceOf(RconError);
    expect(err.kind).toBe("auth");
    expect(err.message).toContain("local-rcon-password");
  });

  it("reads a multi-megabyte reply sent as one packet", async () => {
    const big = JSON.stringify({ ok: true, map_id: "m", tick: 1, result: { blob: "y".repeat(2_000_000) } });
    game.rawNextReply("status", big);
    const c = await RconClient.connect(endpoint(), timeouts);
    expect(await c.exec('/coop-rpc {"op":"status"}')).toBe(big);
    c.close();
  });

  it("never sends an empty command", async () => {
    const c = await RconClient.connect(endpoint(), timeouts);
    const before = game.requests.length;
    const err = await c.exec("   ").catch((e) => e);
    expect(err.kind).toBe("protocol");
    expect(err.sent).toBe(false);
    expect(game.requests.length).toBe(before);
    c.close();
  });

  it("reports a reply lost to a dropped connection as lost and possibly run", async () => {
    game.loseNextReply("say");
    const c = await RconClient.connect(endpoint(), timeouts);
    const err = await c.exec('/coop-rpc {"op":"say","id":"lost-1","args":{"text":"hi"}}').catch((e) => e);
    expect(err).toBeInstanceOf(RconError);
    expect(err.kind).toBe("lost");
    expect(err.sent).toBe(true);
    expect(c.closed).toBe(true);
  });

  it("reports an unanswered command as lost after the reply timeout", async () => {
    game.swallowNextReply("status");
    const c = await RconClient.connect(endpoint(), { connectMs: 5_000, replyMs: 200 });
    const err = await c.exec('/coop-rpc {"op":"status"}').catch((e) => e);
    expect(err.kind).toBe("lost");
  });

  it("says RCON only listens while the game is hosted when nothing listens", async () => {
    const port = await freePort();
    const err = await RconClient.connect({ host: "127.0.0.1", port, password: "pw" }, timeouts).catch(
      (e) => e,
    );
    expect(err.kind).toBe("unreachable");
    expect(err.message).toContain("RCON only listens while the game is hosted");
  });
});
