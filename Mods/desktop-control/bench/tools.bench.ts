// Latency of the tools on a real X desktop (Xvfb, two monitors, openbox, 10 xterms), in-process:
// median and p95 of each read tool, and the timeline merge of a busy day (10 000 lines).
// Run: npm run bench -w Mods/desktop-control
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { localIso } from "../src/localtime.ts";
import { LinuxPlatform } from "../src/platform/linux.ts";
import { startXSession, waitFor } from "../src/testing/x-session.ts";
import { DesktopTools } from "../src/tools.ts";
import { appendDay, type WitnessEvent } from "../src/witness-log.ts";

const RUNS = 20;

async function time(label: string, fn: () => Promise<unknown>): Promise<void> {
  await fn(); // warm-up
  const ms: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await fn();
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  const q = (p: number) => ms[Math.min(ms.length - 1, Math.floor(p * ms.length))]!.toFixed(1);
  process.stdout.write(
    `${label.padEnd(40)} median ${q(0.5).padStart(7)} ms   p95 ${q(0.95).padStart(7)} ms\n`,
  );
}

const xs = await startXSession();
const dir = await mkdtemp(path.join(tmpdir(), "dc-bench-"));
try {
  const platform = new LinuxPlatform({ env: xs.env });
  for (let i = 0; i < 10; i++)
    xs.start(["xterm", "-T", `bench ${i}`, "-geometry", `60x10+${40 * i}+${30 * i}`]);
  await waitFor("10 windows", async () => (await platform.windows()).length === 10, 30_000);
  const tools = new DesktopTools({ platform, allowlist: [], witnessDir: dir, retentionDays: 14 });

  // A busy day: a front change every few seconds from 08:00, with idle stretches.
  const day = new Date();
  day.setHours(8, 0, 0, 0);
  const events: WitnessEvent[] = [];
  for (let i = 0; i < 10_000; i++) {
    const t = localIso(new Date(day.getTime() + i * 3000));
    if (i % 50 === 10) events.push({ t, type: "idle_start" });
    else if (i % 50 === 20) events.push({ t, type: "idle_end" });
    else events.push({ t, type: "app", app: `App${i % 7}`, title: `Window ${i % 13}` });
  }
  const key = localIso(day).slice(0, 10);
  await appendDay(dir, key, events);

  await time("screenshot (2 monitors, 3200x1200)", () => tools.screenshot());
  await time("list_running_apps (10 windows)", () => tools.listRunningApps());
  await time("get_frontmost_window", () => tools.getFrontmostWindow());
  await time("get_activity_timeline (10 000 lines)", () => tools.getActivityTimeline(key));
} finally {
  await xs.close();
  await rm(dir, { recursive: true, force: true });
}
