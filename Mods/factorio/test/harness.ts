import { mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Bridge, type BridgeOptions } from "../src/bridge.ts";
import { DEFAULT_WAKE_KINDS } from "../src/config.ts";
import { JsonlOutcomeLog } from "../src/outcome-log.ts";
import { RconLink } from "../src/rcon/link.ts";
import { StandInGame, type StandInOptions } from "./stand-in-game.ts";

/** A bridge wired to a fresh stand-in game over real RCON, logging to a real JSONL file. */
export async function gameAndBridge(
  opts: StandInOptions & { bridge?: Partial<BridgeOptions>; replyMs?: number } = {},
) {
  const game = await StandInGame.start(opts);
  const link = new RconLink({
    endpoint: () => ({ host: "127.0.0.1", port: game.port, password: game.password }),
    connectMs: 5_000,
    replyMs: opts.replyMs ?? 10_000,
    backoffMinMs: 10,
    backoffMaxMs: 100,
  });
  const logFile = path.join(mkdtempSync(path.join(os.tmpdir(), "factorio-log-")), "outcomes.jsonl");
  const log = new JsonlOutcomeLog(logFile);
  const bridge = new Bridge({ rcon: link, wakeKinds: new Set(DEFAULT_WAKE_KINDS), log, ...opts.bridge });
  return {
    game,
    link,
    bridge,
    logFile,
    /** Every outcome line written so far. */
    lines(): Record<string, unknown>[] {
      try {
        return readFileSync(logFile, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, unknown>);
      } catch {
        return [];
      }
    },
    async close() {
      link.close();
      await game.close();
    },
  };
}
