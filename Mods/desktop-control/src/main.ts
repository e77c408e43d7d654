#!/usr/bin/env -S npx tsx
// desktop-control: `desktop-control [--port N]` serves the MCP tools on 127.0.0.1 (default 9000);
// `desktop-control witness` runs the witness recorder.
import { launchMod, serveMcp } from "@yui/mod-kit";
import { allowlistFromEnv } from "./allowlist.ts";
import { setup } from "./messages.ts";
import { platformFor } from "./platform/index.ts";
import { buildServer, DEFAULT_PORT, SERVER_INFO } from "./server.ts";
import { DesktopTools } from "./tools.ts";
import { DEFAULT_IDLE_SECONDS, DEFAULT_POLL_SECONDS, secondsFromEnv, startWitness } from "./witness.ts";
import { retentionDays, witnessDir } from "./witness-log.ts";

const say = (line: string) => process.stderr.write(`${line}\n`);

async function serve(argv: string[]): Promise<void> {
  const platform = platformFor();
  const allowlist = allowlistFromEnv();
  const ctx = { platform, allowlist, witnessDir: witnessDir(), retentionDays: retentionDays() };
  // The kit's one start-up path: --port, the listening line (after the setup lines below), stop on
  // SIGINT/SIGTERM, and a taken port as one stderr line and exit 1.
  await launchMod({
    name: SERVER_INFO.name,
    defaultPort: DEFAULT_PORT,
    argv,
    start: async (port) => {
      const served = await serveMcp({
        ...SERVER_INFO,
        port,
        build: () => buildServer(new DesktopTools(ctx)),
      });
      // Only once the port is ours: a start that fails says one line, not the preflight too.
      for (const line of await platform.preflight()) say(line);
      say(setup.allowlist([...allowlist]));
      return served;
    },
    detail: () => `witness log: ${ctx.witnessDir}`,
  });
}

async function witness(): Promise<void> {
  const env = process.env;
  const witness = startWitness({
    platform: platformFor(),
    dir: witnessDir(),
    retentionDays: retentionDays(),
    idleThresholdMs: secondsFromEnv(env, "WITNESS_IDLE_SECONDS", DEFAULT_IDLE_SECONDS),
    pollMs: secondsFromEnv(env, "WITNESS_POLL_SECONDS", DEFAULT_POLL_SECONDS),
  });
  say(`[witness] recording to ${witnessDir()}`);
  const shutdown = () => void witness.stop().then(() => process.exit(0));
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
}

const USAGE = "usage: desktop-control [serve] [--port N]\n       desktop-control witness\n";
const [cmd, ...rest] = process.argv.slice(2);
if (cmd !== undefined && !["serve", "witness"].includes(cmd) && !cmd.startsWith("--port")) {
  process.stderr.write(cmd === "--help" || cmd === "-h" ? USAGE : `unknown command '${cmd}'\n${USAGE}`);
  process.exit(cmd === "--help" || cmd === "-h" ? 0 : 2);
}
const run = cmd === "witness" ? witness() : serve(cmd === "serve" ? rest : process.argv.slice(2));
run.catch((e: unknown) => {
  say(`error: ${(e as Error)?.message ?? e}`);
  process.exit(1);
});
