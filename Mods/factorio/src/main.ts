// Entry point: `tsx src/main.ts [--port N]` serves the factorio Mod on 127.0.0.1 (default 9003).
import { launchMod } from "@yui/mod-kit";
import { startMod } from "./app.ts";
import { configTomlPath, loadConfig } from "./config.ts";
import { DEFAULT_PORT, MOD_NAME } from "./server.ts";

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig(configTomlPath());
} catch (err) {
  process.stderr.write(`error: ${(err as Error).message}\n`);
  process.exit(2);
}
// launchMod: --port, the listening line, stop on SIGINT/SIGTERM, and a taken port as one line + exit 1.
await launchMod({ name: MOD_NAME, defaultPort: DEFAULT_PORT, start: (port) => startMod(config, port) });
