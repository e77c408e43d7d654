// npm run bench -w Mods/shell-sandbox: what a tool call costs over the work it does, each figure
// printed as a ratio against a peer measured in the same run on the same machine:
//   run("true") over MCP            vs  spawning bash -c true directly (the MCP + HTTP + group overhead)
//   run("true") in bwrap over MCP   vs  run("true") plain over MCP      (what the sandbox adds, pasta included)
//   the same with --network none    vs  run("true") plain over MCP      (the sandbox without pasta)
//   run(64 MiB of output) over MCP  vs  the same command to /dev/null   (draining past the cap)
//   read_file(2000 lines of 4 MiB)  vs  fs.readFile + split             (the tool over a raw read)
//   read_file in bwrap              vs  read_file plain                 (the file worker's pipe)
import { execFile } from "node:child_process";
import { mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { connectClient } from "@yui/mod-kit";
import { startSandboxServer } from "../src/server.ts";

const exec = promisify(execFile);
const ROUNDS = 25;

async function median(rounds: number, f: () => Promise<unknown>): Promise<number> {
  await f(); // warm-up
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t = performance.now();
    await f();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? Number.NaN;
}

const ms = (x: number) => `${x.toFixed(1)} ms`;
function line(name: string, ours: number, peerName: string, peer: number): void {
  console.log(
    `${name.padEnd(34)} ${ms(ours).padStart(10)}  vs ${peerName.padEnd(30)} ${ms(peer).padStart(10)}  ratio ${(ours / peer).toFixed(2)}`,
  );
}

const ws = await realpath(await mkdtemp(path.join(tmpdir(), "shell-sandbox-bench-")));
const plain = await startSandboxServer({ workspace: ws, port: 0, sandbox: "none", container: false });
const boxed = await startSandboxServer({ workspace: ws, port: 0, sandbox: "bwrap", container: false });
const offline = await startSandboxServer({
  workspace: ws,
  port: 0,
  sandbox: "bwrap",
  network: "none",
  container: false,
});
const a = await connectClient(plain.url);
const b = await connectClient(boxed.url);
const o = await connectClient(offline.url);
try {
  const call = (c: typeof a, name: string, args: Record<string, unknown>) =>
    c.client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

  const direct = await median(ROUNDS, () => exec("/bin/bash", ["-c", "true"], { cwd: ws }));
  const viaMcp = await median(ROUNDS, () => call(a, "run", { command: "true" }));
  line('run("true") over MCP', viaMcp, "bash -c true, spawned directly", direct);

  const inBwrap = await median(ROUNDS, () => call(b, "run", { command: "true" }));
  line('run("true") in bwrap over MCP', inBwrap, 'run("true") plain over MCP', viaMcp);
  const noNet = await median(ROUNDS, () => call(o, "run", { command: "true" }));
  line('run("true") in bwrap, no network', noNet, 'run("true") plain over MCP', viaMcp);

  const big = "head -c 67108864 /dev/zero";
  const drain = await median(5, () => call(a, "run", { command: big }));
  const devnull = await median(5, () => exec("/bin/bash", ["-c", `${big} > /dev/null`], { cwd: ws }));
  line("run(64 MiB output, capped)", drain, "same to /dev/null, directly", devnull);

  const text = Array.from(
    { length: 40_000 },
    (_, i) => `${String(i).padStart(6, "0")} ${"x".repeat(92)}\n`,
  ).join("");
  await writeFile(path.join(ws, "big.txt"), text);
  const window = await median(ROUNDS, () =>
    call(a, "read_file", { path: "big.txt", offset: 20_001, limit: 2000 }),
  );
  const raw = await median(ROUNDS, async () =>
    (await readFile(path.join(ws, "big.txt"), "utf8")).split("\n").slice(20_000, 22_000).join("\n"),
  );
  line("read_file(2000 of 40000 lines)", window, "fs.readFile + split, in process", raw);
  const boxedWindow = await median(ROUNDS, () =>
    call(b, "read_file", { path: "big.txt", offset: 20_001, limit: 2000 }),
  );
  line("read_file in bwrap (file worker)", boxedWindow, "read_file plain", window);
} finally {
  await a.close();
  await b.close();
  await o.close();
  await plain.close();
  await boxed.close();
  await offline.close();
  await rm(ws, { recursive: true, force: true });
}
