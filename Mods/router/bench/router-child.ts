// The router under bench:router, run as its own process with one route to the bench mod.
import { startRouter } from "../src/router.ts";

const upstreamPort = Number(process.argv[2]);
const router = await startRouter({ port: 0, upstreams: { bench: { mod: "bench-mod", port: upstreamPort } } });
process.stdout.write(`${router.port}\n`);
