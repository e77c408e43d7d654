// bench:factorio: drain a 5000-event backlog from a stand-in game in another process, over real RCON,
// through the Mod's poll path (pages of 200, cache, JSONL outcome log). Reports events per second and
// the Mod's CPU time per page (this process only; the game's work is in the child).
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Bridge, type Exec } from "../src/bridge.ts";
import { DEFAULT_WAKE_KINDS } from "../src/config.ts";
import { JsonlOutcomeLog } from "../src/outcome-log.ts";
import { RconLink } from "../src/rcon/link.ts";

const BACKLOG = 5000;
const RUNS = 3;
const pkg = fileURLToPath(new URL("..", import.meta.url));
const tsx = path.join(pkg, "../../node_modules/.bin/tsx");

async function oneRun(): Promise<{ ms: number; pages: number; cpuPerPageMs: number[] }> {
  const child = spawn(tsx, ["test/stand-in-cli.ts", "--flood", String(BACKLOG), "--ring", "8000"], {
    cwd: pkg,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const info = await new Promise<{ port: number; password: string }>((resolve, reject) => {
    let seen = "";
    child.stdout!.on("data", (d) => {
      seen += d;
      const line = seen.split("\n")[0];
      if (seen.includes("\n") && line) resolve(JSON.parse(line));
    });
    child.on("exit", () => reject(new Error("stand-in exited")));
  });
  const link = new RconLink({
    endpoint: () => ({ host: "127.0.0.1", port: info.port, password: info.password }),
    connectMs: 5000,
    replyMs: 30_000,
    backoffMinMs: 100,
    backoffMaxMs: 1000,
  });
  // Page boundaries are the events_since requests: CPU between two of them is one page's work.
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
  if (n !== BACKLOG || bridge.cache.size !== BACKLOG)
    throw new Error(`drained ${n}, cached ${bridge.cache.size}`);
  link.close();
  child.stdin!.end();
  await new Promise((r) => child.on("exit", r));
  return { ms, pages: cpuPerPageMs.length, cpuPerPageMs };
}

const results = [];
for (let i = 0; i < RUNS; i++) results.push(await oneRun());
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const [i, r] of results.entries()) {
  const cpu = r.cpuPerPageMs;
  console.log(
    `run ${i + 1}: ${BACKLOG} events in ${r.ms.toFixed(0)} ms = ${Math.round((BACKLOG / r.ms) * 1000)} events/s; ` +
      `${r.pages} pages, CPU per page median ${median(cpu).toFixed(2)} ms, max ${Math.max(...cpu).toFixed(2)} ms`,
  );
}
const best = median(results.map((r) => r.ms));
console.log(
  `bench:factorio median: ${Math.round((BACKLOG / best) * 1000)} events/s draining a ${BACKLOG}-event backlog`,
);
