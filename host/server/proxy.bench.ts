/**
 * bench: time to first byte of a streamed Chat Completions answer straight from the scripted backend and
 * through the host's proxy, same run, alternating rounds; prints medians, p95s and the added latency.
 * Run: npx tsx host/server/proxy.bench.ts [requests per round]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { savePreset } from "../../src/app/presets/presets.ts";
import { chatStream, startScriptedBackend } from "../../tools/scripted-backend/server.ts";
import { startHost } from "./server.ts";
import { secretHeaders } from "./testing.ts";

const N = Number(process.argv[2] ?? 300);
const dir = mkdtempSync(join(tmpdir(), "yui-proxy-bench-"));
const backend = await startScriptedBackend();
const host = await startHost({ port: 0, dataDir: dir, env: {}, browserCommands: false });
savePreset(host.store, {
  id: "yui",
  name: "YUI",
  avatar: "",
  voice: "",
  persona: "",
  backend: { transport: "chat", base_url: backend.url },
});
const body = chatStream({ text: ["a", "b", "c"] });

async function round(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ median: number; p95: number }> {
  const ttfb: number[] = [];
  for (let i = 0; i < N; i++) {
    backend.enqueue({ body });
    const t = performance.now();
    const res = await fetch(url, { method: "POST", body: "{}", headers });
    const reader = res.body!.getReader();
    await reader.read();
    ttfb.push(performance.now() - t);
    while (!(await reader.read()).done);
  }
  ttfb.sort((a, b) => a - b);
  return { median: ttfb[N >> 1]!, p95: ttfb[Math.floor(N * 0.95)]! };
}

const f = (n: number) => n.toFixed(2);
for (let r = 1; r <= 3; r++) {
  const direct = await round(`${backend.url}/chat/completions`);
  // Through the host's door as one of YUI's own commands: the launch secret in its header.
  const proxied = await round(`${host.url}api/backend/yui/v1/chat/completions`, secretHeaders(host));
  console.log(
    `round ${r} (${N} requests): direct median ${f(direct.median)} ms p95 ${f(direct.p95)} ms | ` +
      `via host median ${f(proxied.median)} ms p95 ${f(proxied.p95)} ms | added ${f(proxied.median - direct.median)} ms`,
  );
}
await host.close();
await backend.close();
rmSync(dir, { recursive: true, force: true });
