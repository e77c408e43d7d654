import { resolve } from "node:path";
import { REPO, startHarness } from "../src/avatar/harness/serve.ts";
import { writeTestModels } from "../tools/vrm-gen/test-models.ts";

// bench:stage — a PROFILE, not a comparison: frame times of the idle stage in headless Chromium (SwiftShader
// WebGL) with the default character and the generated MToon test model. It has no peer doing the same work
// and claims nothing; the empty three.js scene it also times is the floor of the loop (context, clear and
// readback), printed for scale only.
// Run: npx tsx bench/stage.ts [--frames N]

const argFrames = process.argv.indexOf("--frames");
const FRAMES = argFrames > 0 ? Number(process.argv[argFrames + 1]) : 300;
const WARMUP = 30;
const WIDTH = 480;
const HEIGHT = 640;

/** Median and 95th percentile of a sample, in milliseconds. */
export function summarize(times: number[]): { median: number; p95: number } {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { median: at(0.5), p95: at(0.95) };
}

async function main() {
  if (!Number.isInteger(FRAMES) || FRAMES < 10) throw new Error("--frames needs an integer of at least 10");
  const models = await writeTestModels(REPO);
  const h = await startHarness([resolve(models.default, "..")]);
  try {
    await h.page.evaluate(() => window.harness.create({ manual: true, idle: true, framing: "full" }));
    await h.page.evaluate(([w, hgt]) => window.harness.setSize(w, hgt), [WIDTH, HEIGHT] as const);
    const rows: Array<[string, { median: number; p95: number }]> = [];
    const empty = await h.page.evaluate(([f, w]) => window.harness.benchEmpty(f, w), [
      FRAMES,
      WARMUP,
    ] as const);
    rows.push(["floor: empty scene", summarize(empty)]);
    for (const [label, path] of [
      ["default character (Yui)", models.default],
      ["small MToon UV model", models.mtoon],
    ] as const) {
      const loaded = await h.page.evaluate((u) => window.harness.load(u), h.fileUrl(path));
      if (!loaded.ok) throw new Error(`${label}: ${loaded.error}`);
      const times = await h.page.evaluate(([f, w]) => window.harness.benchStage(f, w), [
        FRAMES,
        WARMUP,
      ] as const);
      rows.push([label, summarize(times)]);
    }
    const base = rows[0]![1];
    console.log(
      `bench:stage  PROFILE (no peer, no claim)  ${WIDTH}x${HEIGHT}, ${FRAMES} frames after ${WARMUP} warm-up, idle life on`,
    );
    console.log(
      `${"scene".padEnd(26)}${"median ms".padStart(11)}${"p95 ms".padStart(9)}${"x floor (median)".padStart(18)}${"x floor (p95)".padStart(15)}`,
    );
    for (const [label, s] of rows) {
      console.log(
        `${label.padEnd(26)}${s.median.toFixed(2).padStart(11)}${s.p95.toFixed(2).padStart(9)}${(s.median / base.median).toFixed(1).padStart(18)}${(s.p95 / base.p95).toFixed(1).padStart(15)}`,
      );
    }
  } finally {
    await h.close();
  }
}

main().catch((err: unknown) => {
  console.error(`bench:stage failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
