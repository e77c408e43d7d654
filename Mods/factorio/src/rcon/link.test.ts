import { freePort } from "@yui/mod-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { StandInGame } from "../../test/stand-in-game.ts";
import { RconLink } from "./link.ts";

let game: StandInGame | undefined;
afterEach(async () => {
  await game?.close();
  game = undefined;
});

describe("RCON link", () => {
  it("reconnects after the game drops the connection", async () => {
    game = await StandInGame.start();
    const g = game;
    const link = new RconLink({
      endpoint: () => ({ host: "127.0.0.1", port: g.port, password: g.password }),
      connectMs: 5000,
      replyMs: 5000,
      backoffMinMs: 10,
      backoffMaxMs: 100,
    });
    g.loseNextReply("status");
    await expect(link.exec('/coop-rpc {"op":"status"}')).rejects.toMatchObject({ kind: "lost" });
    expect(JSON.parse(await link.exec('/coop-rpc {"op":"status"}')).ok).toBe(true);
    link.close();
  });

  it("backs off between failed connects for the patient poller, while tool calls try at once", async () => {
    let now = 0;
    let attempts = 0;
    const port = await freePort();
    const link = new RconLink({
      endpoint: () => {
        attempts++;
        return { host: "127.0.0.1", port, password: "x" };
      },
      connectMs: 5000,
      replyMs: 5000,
      backoffMinMs: 1000,
      backoffMaxMs: 4000,
      now: () => now,
    });
    const cmd = '/coop-rpc {"op":"status"}';
    const first = await link.exec(cmd, true).catch((e: Error) => e);
    expect(first).toMatchObject({ kind: "unreachable" });
    now = 999;
    // While waiting, the poller hears the same failure again (its log says it once).
    await expect(link.exec(cmd, true)).rejects.toThrow((first as Error).message);
    expect(attempts).toBe(1);
    await expect(link.exec(cmd, false)).rejects.toMatchObject({ kind: "unreachable" });
    expect(attempts).toBe(2);
    // Two failures: the next patient attempt waits 2 s, then 4 s (the cap).
    now = 999 + 1999;
    await link.exec(cmd, true).catch(() => undefined);
    expect(attempts).toBe(2);
    now = 999 + 2000;
    await link.exec(cmd, true).catch(() => undefined);
    expect(attempts).toBe(3);
    now += 3999;
    await link.exec(cmd, true).catch(() => undefined);
    expect(attempts).toBe(3);
    now += 1;
    await link.exec(cmd, true).catch(() => undefined);
    now += 4000;
    await link.exec(cmd, true).catch(() => undefined);
    expect(attempts).toBe(5);
  });

  it("turns a config.ini problem into an unreachable error with its message", async () => {
    const link = new RconLink({
      endpoint: () => {
        throw new Error("local-rcon-socket is missing");
      },
      connectMs: 5000,
      replyMs: 5000,
      backoffMinMs: 10,
      backoffMaxMs: 100,
    });
    await expect(link.exec("/coop-rpc {}")).rejects.toMatchObject({
      kind: "unreachable",
      message: "local-rcon-socket is missing",
    });
  });
});
