// The router under bench:router (and conformance.sh), run as its own process with one route, /bench/mcp,
// to the mod on the port given: router-child.ts <mod port> [router port, default: any free one].
import { startRouter } from "../src/router.ts";

const upstreamPort = Number(process.argv[2]);
const routerPort = Number(process.argv[3] ?? "0");
const router = await startRouter({
  port: routerPort,
  upstreams: { bench: { mod: "bench-mod", port: upstreamPort } },
});
process.stdout.write(`${router.port}\n`);
