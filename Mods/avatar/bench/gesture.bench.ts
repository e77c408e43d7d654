// Benchmark: one gesture's round trip (MCP client -> avatar mod -> ingress -> executor and back), and the
// ingress's POST /signals rate for a burst of one pair (merged while held). `npm run bench -w Mods/avatar`.
import { connectClient, serveMcp } from "@yui/mod-kit";
import { startIngress } from "../../../host/ingress/ingress.ts";
import { scriptedExecutor } from "../../../host/ingress/testing.ts";
import { createIngressClient } from "../src/ingress-client.ts";
import { buildServer } from "../src/server.ts";

const N = Number(process.env.BENCH_N ?? 300);
const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]!;

const ex = scriptedExecutor({ posture: "standing" }, { windows: [] });
let signals = 0;
const ingress = await startIngress({ port: 0, onSignal: () => void signals++, executor: () => ex });
const mod = await serveMcp({
  name: "avatar",
  version: "0",
  port: 0,
  build: () => buildServer(createIngressClient(ingress.url)),
});
const { client, close } = await connectClient(mod.url);
try {
  for (let i = 0; i < 20; i++) await client.callTool({ name: "stand", arguments: {} });
  const times: number[] = [];
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < N; i++) {
    const t = performance.now();
    await client.callTool({ name: "move_to", arguments: { spot: "center" } });
    times.push(performance.now() - t);
  }
  const cpu = process.cpuUsage(cpu0);
  times.sort((a, b) => a - b);
  console.log(
    `gesture round trip (n=${N}): median ${pct(times, 50).toFixed(2)} ms, p95 ${pct(times, 95).toFixed(2)} ms, ` +
      `CPU ${((cpu.user + cpu.system) / 1000 / N).toFixed(2)} ms per call (client, mod and ingress in one process)`,
  );

  const body = JSON.stringify({
    delivery: "urgent",
    source: "factorio",
    event_type: "game.wake",
    pending_from_seq: 1,
    pending_to_seq: 2,
    reset: false,
    note: "hi",
  });
  const M = N * 5;
  const t0 = performance.now();
  for (let i = 0; i < M; i++) {
    const r = await fetch(`${ingress.url}/signals`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    await r.arrayBuffer();
  }
  const secs = (performance.now() - t0) / 1000;
  console.log(
    `POST /signals burst of one pair (n=${M}): ${(M / secs).toFixed(0)} posts/s; handed to the app: ${signals}`,
  );
} finally {
  await close();
  await mod.close();
  await ingress.close();
}
