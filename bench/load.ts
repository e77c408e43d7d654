import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { startHost } from "../host/server/server.ts";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../tools/testing/chromium.ts";

// bench:load — how long a character window waits before she is drawn, against its peer: the same window whose
// stage runs with no character (`?stage=empty`, the stage and loop without her: what loading her adds is the
// difference). Headless Chromium (SwiftShader WebGL) against the real host, her desktop window at her default
// size (198x308), a fresh browser context each time (nothing cached). The page marks each step
// (src/ui/stage-area.ts, `yui:stage:*`): mount (the stage area is mounted and her silhouette waits), module
// (three.js and the stage code loaded), created (WebGL context), loaded (her model fetched and parsed), drawn
// (her first frame, with the shader programs compiled). Interleaved rounds, so load from other work falls on
// both alike. Run: npx tsx bench/load.ts [--rounds N]

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const ROUNDS = Number(arg("--rounds") ?? 5);
const STEPS = ["mount", "module", "created", "loaded", "drawn"] as const;

/** The median of a sample. */
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main() {
  if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error("--rounds needs an integer of at least 1");
  const dir = mkdtempSync(join(tmpdir(), "yui-bench-load-"));
  const host = await startHost({ port: 0, dataDir: dir, env: {}, browserCommands: false });
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  const runs = { her: [] as Record<string, number>[], empty: [] as Record<string, number>[] };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const kind of ["her", "empty"] as const) {
        const context = await browser.newContext({ viewport: { width: 198, height: 308 } });
        const page = await context.newPage();
        const q = kind === "empty" ? "&stage=empty" : "";
        await page.goto(host.launchUrl(`${host.url}?view=desktop&role=pet&preset=yui${q}`));
        await page.waitForFunction(() => performance.getEntriesByName("yui:stage:drawn").length > 0, null, {
          timeout: 120_000,
        });
        const marks = await page.evaluate(() =>
          Object.fromEntries(
            performance
              .getEntriesByType("mark")
              .filter((m) => m.name.startsWith("yui:stage:"))
              .map((m) => [m.name.slice("yui:stage:".length), m.startTime]),
          ),
        );
        runs[kind].push(marks);
        await context.close();
      }
    }
  } finally {
    await browser.close();
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const ms = (v: number) => `${Math.round(v)} ms`;
  for (const kind of ["her", "empty"] as const) {
    const label = kind === "her" ? "her window (default character)" : "peer: the same window, stage empty";
    const step = (a: string, b: string) => median(runs[kind].map((m) => m[b]! - m[a]!));
    const parts = STEPS.slice(1).map((s, i) => `${STEPS[i]}->${s} ${ms(step(STEPS[i]!, s))}`);
    console.log(
      `${label}: mount->drawn ${ms(step("mount", "drawn"))} (median of ${ROUNDS}); ${parts.join(", ")}`,
    );
    console.log(`  page start->drawn ${ms(median(runs[kind].map((m) => m.drawn!)))}`);
  }
  const wait = (kind: "her" | "empty") => median(runs[kind].map((m) => m.drawn! - m.mount!));
  console.log(`loading her adds ${ms(wait("her") - wait("empty"))} to the wait (median her - median peer)`);
}

main().catch((err: unknown) => {
  console.error(`bench:load failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
