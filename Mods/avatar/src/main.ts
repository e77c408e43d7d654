#!/usr/bin/env -S npx tsx
// The avatar mod's command line: `tsx src/main.ts [--port N]`; AVATAR_INGRESS_URL moves the app's ingress.
import { runMod } from "@yui/mod-kit";
import { createIngressClient, ingressUrlFrom } from "./ingress-client.ts";
import { buildServer, NAME, VERSION } from "./server.ts";

let url: string;
try {
  url = ingressUrlFrom(process.env);
} catch (e) {
  process.stderr.write(`[${NAME}] ${(e as Error).message}\n`);
  process.exit(2);
}
const ingress = createIngressClient(url);
await runMod({ name: NAME, version: VERSION, defaultPort: 9002, build: () => buildServer(ingress) });
process.stdout.write(`[${NAME}] calling the YUI app's ingress at ${url}\n`);
