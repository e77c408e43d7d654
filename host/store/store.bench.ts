/**
 * Store benchmark: `npx tsx host/store/store.bench.ts`. Measures set/get/update latency (synchronous=FULL,
 * so each set is an fsync) and how long another process's write takes to reach an onChange listener.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { emptyRelations, setByUser } from "../../src/app/relations/relations.ts";
import { openStore } from "./store.ts";

function stats(samples: number[]): string {
  const s = [...samples].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))]!.toFixed(3);
  return `n=${s.length} p50=${q(0.5)}ms p95=${q(0.95)}ms max=${s.at(-1)!.toFixed(3)}ms`;
}

function time(n: number, fn: (i: number) => void): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    fn(i);
    out.push(performance.now() - t);
  }
  return out;
}

const dir = mkdtempSync(join(tmpdir(), "yui-store-bench-"));
const store = openStore(dir, { pollMs: 10 });
try {
  console.log(
    `set switch     ${stats(time(500, (i) => store.set("yui.browser", { enabled: i % 2 === 0 })))}`,
  );
  console.log(`get switch     ${stats(time(5000, () => store.get("yui.browser")))}`);
  // A relations value with a full 500-entry log: the largest value the app writes often.
  let rel = emptyRelations();
  for (let i = 0; i < 500; i++) rel = setByUser(rel, "user", i % 2 ? 5 : -5, i);
  console.log(`set relations  ${stats(time(200, () => store.set("yui.bench.relations", rel)))}`);
  console.log(`get relations  ${stats(time(1000, () => store.get("yui.bench.relations")))}`);

  // Cross-process: a child writes; time until this process's listener sees it (poll every 10 ms).
  const samples: number[] = [];
  for (let i = 0; i < 20; i++) {
    const seen = new Promise<number>((resolve) => {
      const off = store.onChange((c) => {
        if (c.who === `child-${i}`) {
          off();
          resolve(performance.now());
        }
      });
    });
    let written = 0;
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "-e",
        `import("${new URL("./store.ts", import.meta.url).href}").then(({ openStore }) => {
          const s = openStore(${JSON.stringify(dir)}); s.set("yui.screen_capture", { enabled: ${i % 2 === 0} }, "child-${i}");
          process.stdout.write("w"); s.close(); })`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    child.stdout.once("data", () => {
      written = performance.now();
    });
    const at = await seen;
    await new Promise((r) => child.on("exit", r));
    samples.push(Math.max(0, at - written));
  }
  console.log(`cross-process  ${stats(samples)} (write committed → listener, pollMs 10)`);
} finally {
  store.close();
  rmSync(dir, { recursive: true, force: true });
}
