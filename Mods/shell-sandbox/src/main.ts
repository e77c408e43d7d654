#!/usr/bin/env -S npx tsx
// The shell-sandbox mod's command line:
//   tsx src/main.ts --workspace DIR [--port N] [--sandbox bwrap|none] [--network pasta|none] [--env NAME]...
// Started through the kit's launchMod: one listening line, a start failure as one stderr line and
// exit status 1 (a taken port included), SIGINT/SIGTERM close the server (every command is ended).
import { launchMod } from "@yui/mod-kit";
import { DEFAULT_PORT, NO_SANDBOX_WARNING, parseConfig, USAGE } from "./config.ts";
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

await launchMod({
  name: "shell-sandbox",
  defaultPort: DEFAULT_PORT,
  argv,
  start: (port) => startSandboxServer({ ...cfg, port }),
  detail: (s) =>
    [
      ...(cfg.container ? [`published as port ${s.port} of the container`] : []),
      `workspace ${s.workspace.realRoot}`,
      `sandbox ${cfg.sandbox}`,
      ...(cfg.sandbox === "bwrap" ? [`network ${cfg.network ?? "pasta"}`] : []),
    ].join("; "),
});
