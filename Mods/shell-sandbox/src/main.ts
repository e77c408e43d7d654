#!/usr/bin/env -S npx tsx
// The shell-sandbox mod's command line: `tsx src/main.ts --workspace DIR [--port N] [--sandbox bwrap|none]`.
import { NO_SANDBOX_WARNING, parseConfig, USAGE } from "./config.ts";
import { startSandboxServer } from "./server.ts";

const argv = process.argv.slice(2);
if (argv.includes("--help")) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}

let cfg: ReturnType<typeof parseConfig>;
try {
  cfg = parseConfig(argv, process.env);
} catch (e) {
  process.stderr.write(`error: ${(e as Error).message}\n${USAGE}\n`);
  process.exit(2);
}

if (cfg.sandbox === "none" && !cfg.container) process.stderr.write(`[shell-sandbox] ${NO_SANDBOX_WARNING}\n`);

try {
  const server = await startSandboxServer(cfg);
  const published = cfg.container ? ` (published as port ${server.port} of the container)` : "";
  process.stdout.write(
    `[shell-sandbox] serving ${server.url}${published}; workspace ${server.workspace.realRoot}; sandbox ${cfg.sandbox}\n`,
  );
  let closing = false;
  const stop = () => {
    if (closing) return;
    closing = true;
    // Kills every running command's process group before the port closes.
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
} catch (e) {
  const err = e as NodeJS.ErrnoException;
  const why = err.code === "EADDRINUSE" ? `port ${cfg.port} is already in use` : err.message;
  process.stderr.write(`error: ${why}\n`);
  process.exit(1);
}
