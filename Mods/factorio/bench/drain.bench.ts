// bench:factorio: drain a 5000-event backlog from a stand-in game in another process, over real RCON,
// through the Mod's poll path (pages of 200, cache, JSONL outcome log). Reports events per second and
// the Mod's CPU time per page (this process only; the game's work is in the child). The peer, measured in
// the same run against the same game, alternating with the Mod: the bare transport (the same pages over
// one RCON connection, JSON.parse only), so the ratio is what the Mod's poll path costs over RCON itself.
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Bridge, type Exec } from "../src/bridge.ts";
import { DEFAULT_WAKE_KINDS } from "../src/config.ts";
import { JsonlOutcomeLog } from "../src/outcome-log.ts";
import { RconClient } from "../src/rcon/client.ts";
import { RconLink } from "../src/rcon/link.ts";

const BACKLOG = 5000;
const GAMES = 2;
const REPS = 4; // per game, alternating which of the two goes first
const pkg = fileURLToPath(new URL("..", import.meta.url));
const tsx = path.join(pkg, "../../node_modules/.bin/tsx");
type Game = { port: number; password: string; map_id: string };

/** The peer: the same pages, read with a bare RCON client and JSON.parse, nothing else. */
async function bareDrain(g: Game): Promise<number> {
  const c = await RconClient.connect(
    { host: "127.0.0.1", port: g.port, password: g.password },
    { connectMs: 5000, replyMs: 30_000 },
  );
  const t0 = performance.now();
  let seq = 0;
  for (;;) {
    const req = { op: "events_since", session: g.map_id, args: { seq, limit: 200 } };
    const reply = JSON.parse(await c.exec(`/coop-rpc ${JSON.stringify(req)}`)) as {
      result: { events: { seq: number }[] };
    };
    const events = reply.result.events;
    if (events.length > 0) seq = events[events.length - 1]!.seq;
    if (events.length < 200) break;
  }
  const ms = performance.now() - t0;
  c.close();
  if (seq !== BACKLOG) throw new Error(`bare drain reached ${seq}`);
  return ms;
}

/** The Mod: a fresh bridge drains the backlog through pollOnce; returns wall time and CPU per page. */
async function modDrain(g: Game): Promise<{ ms: number; cpuPerPageMs: number[] }> {
  const link = new RconLink({
    endpoint: () => ({ host: "127.0.0.1", port: g.port, password: g.password }),
    connectMs: 5000,
    replyMs: 30_000,
    backoffMinMs: 100,
    backoffMaxMs: 1000,
  });
  // Page boundaries are the events_since requests: CPU between a reply and the next request is one page's work.
  const cpuPerPageMs: number[] = [];
  let mark: NodeJS.CpuUsage | undefined;
  const exec: Exec = {
    async exec(command, patient) {
      const paging = command.includes('"events_since"');
      if (paging && mark) {
        const d = process.cpuUsage(mark);
        cpuPerPageMs.push((d.user + d.system) / 1000);
      }
      const reply = await link.exec(command, patient);
      if (paging) mark = process.cpuUsage();
      return reply;
    },
  };
  const dir = mkdtempSync(path.join(os.tmpdir(), "factorio-bench-"));
  const bridge = new Bridge({
    rcon: exec,
    wakeKinds: new Set(DEFAULT_WAKE_KINDS),
    log: new JsonlOutcomeLog(path.join(dir, "outcomes.jsonl")),
  });
  // Adopt the map (cursors at its head), then pretend the Mod had read nothing of it yet.
  await bridge.recover("start");
  bridge.pollSeq = 0;
  bridge.readSeq = 0;
  const t0 = performance.now();
  const n = await bridge.pollOnce();
  const ms = performance.now() - t0;
  if (mark) {
    const d = process.cpuUsage(mark);
    cpuPerPageMs.push((d.user + d.system) / 1000);
  }
  link.close();
  if (n !== BACKLOG || bridge.cache.size !== BACKLOG)
    throw new Error(`drained ${n}, cached ${bridge.cache.size}`);
  return { ms, cpuPerPageMs };
}

const modMs: number[] = [];
const bareMs: number[] = [];
const cpu: number[] = [];
for (let gi = 0; gi < GAMES; gi++) {
  const child = spawn(tsx, ["test/stand-in-cli.ts", "--flood", String(BACKLOG), "--ring", "8000"], {
    cwd: pkg,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const game = await new Promise<Game>((resolve, reject) => {
    let seen = "";
    child.stdout!.on("data", (d) => {
      seen += d;
      const line = seen.split("\n")[0];
      if (seen.includes("\n") && line) resolve(JSON.parse(line));
    });
    child.on("exit", () => reject(new Error("stand-in exited")));
  });
  for (let rep = 0; rep < REPS; rep++) {
    const runMod = async () => {
      const r = await modDrain(game);
      modMs.push(r.ms);
      cpu.push(...r.cpuPerPageMs);
    };
    const runBare = async () => {
      bareMs.push(await bareDrain(game));
    };
    if (rep % 2 === 0) {
      await runBare();
      await runMod();
    } else {
      await runMod();
      await runBare();
    }
  }
  child.stdin!.end();
  await new Promise((r) => child.on("exit", r));
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const rate = (ms: number) => Math.round((BACKLOG / ms) * 1000);
console.log(`mod drains (ms): ${modMs.map((m) => m.toFixed(0)).join(" ")}`);
console.log(`bare drains (ms): ${bareMs.map((m) => m.toFixed(0)).join(" ")}`);
console.log(
  `bench:factorio median: ${rate(median(modMs))} events/s draining a ${BACKLOG}-event backlog in pages of 200 ` +
    `(Mod CPU per page median ${median(cpu).toFixed(2)} ms, max ${Math.max(...cpu).toFixed(2)} ms); ` +
    `bare RCON ${rate(median(bareMs))} events/s; Mod/bare time ${(median(modMs) / median(bareMs)).toFixed(2)}x`,
);
