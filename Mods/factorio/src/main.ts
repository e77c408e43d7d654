// Entry point: `tsx src/main.ts [--port N]` serves the factorio Mod on 127.0.0.1 (default 9003).
import { portFromArgs } from "@yui/mod-kit";
import { startMod } from "./app.ts";
import { configTomlPath, loadConfig } from "./config.ts";
import { DEFAULT_PORT } from "./server.ts";

const port = portFromArgs(process.argv.slice(2), DEFAULT_PORT);
let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig(configTomlPath());
} catch (err) {
  process.stderr.write(`error: ${(err as Error).message}\n`);
  process.exit(2);
}
const mod = await startMod(config, port);
process.stdout.write(`[factorio] listening on ${mod.url}\n`);
const stop = () => {
  // A client holding a stream open must not keep the Mod alive past a stop request.
  setTimeout(() => process.exit(0), 3000).unref();
  void mod.close().then(() => process.exit(0));
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
