#!/usr/bin/env -S npx tsx
// The router's entry: `npm start -w Mods/router [-- --port N]`.
import { portFromArgs } from "@yui/mod-kit";
import { startRouter } from "../src/router.ts";
import { ROUTER_PORT, UPSTREAMS } from "../src/upstreams.ts";

const port = portFromArgs(process.argv.slice(2), ROUTER_PORT);
try {
  const router = await startRouter({
    port,
    upstreams: UPSTREAMS,
    log: (line) => process.stderr.write(`[router] ${line}\n`),
  });
  process.stdout.write(
    `[router] on ${router.url}: ${Object.keys(UPSTREAMS)
      .map((p) => `/${p}/mcp`)
      .join(" ")}\n`,
  );
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => void router.close().finally(() => process.exit(0)));
  }
} catch (err) {
  process.stderr.write(`[router] cannot start: ${(err as Error).message}\n`);
  process.exit(1);
}
