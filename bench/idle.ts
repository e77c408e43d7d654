import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { chromium } from "playwright-core";
import { desktopUrl, initialPlace, WINDOW_SIZE } from "../host/desktop/desktop.ts";
import { desktopBodies } from "../host/desktop/desktop-cli.ts";
import { spawnShell } from "../host/desktop/shell-process.ts";
import { startHost } from "../host/server/server.ts";
import { countSpawns } from "../host/x11/testing.ts";
import { startXDesktop } from "../shell/gtk/testing/x-desktop.ts";
import { savePreset } from "../src/app/presets/presets.ts";
import { REPO } from "../src/avatar/harness/serve.ts";
import { DOZE_KEY } from "../src/protocol/doze.ts";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../tools/testing/chromium.ts";

// bench:idle — what the whole companion costs while idle, awake and dozing (issue 31), for the desktop app and
// for the browser build, in one run: CPU seconds per minute and resident memory.
// - The desktop app: the host (this process), the gjs shell and its WebKit processes, her desktop window with
//   the default character, on Xvfb + openbox + xcompmgr with Mesa's software renderer.
// - The browser build: the same host's main view in headless Chromium (SwiftShader WebGL), its processes.
// Each is measured awake (dozing set to never) for M minutes, then dozing (the delay set to 5 s, measured once
// she has settled) for M minutes, beside its peer: the same page drawing an empty scene (`?stage=empty`, the
// same stage and frame loop with no character) awake, for min(M, 1) minutes. Memory (RSS) is sampled at the
// start, every whole minute and at the end of each phase; the growth over the last min(M, 5) minutes is
// printed (goal: under 1 MB). Process spawns by the host are counted over the desktop app's phases (goal:
// none a minute at rest; the host reads windows through X events). Also printed: her canvas's drawing
// buffer in each (size and device pixel ratio).
// Goals (docs/benchmarks.md): dozing at most 1 CPU-s/min for the whole app; the browser build awake within
// 1.5x of the desktop app; memory flat; zero spawns a minute at rest.
// Run: npx tsx bench/idle.ts [--minutes M] [--warmup S] [--dist DIR] [--avatar FILE] [--only desktop|browser]
//   M: minutes per phase (default 10, the issue's figure; or YUI_BENCH_IDLE_MINUTES, e.g. 1 for a quick run).

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const MINUTES = arg("--minutes", Number(process.env.YUI_BENCH_IDLE_MINUTES ?? 10));
const WARMUP_S = arg("--warmup", 30);
const ONLY = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : null;
/** The doze delay of the dozing phases, and the wait for her to settle after it (her motion, her hair). */
const DOZE_S = 5;
const SETTLE_MS = (DOZE_S + 6) * 1000;
const TICKS = 100; // USER_HZ (getconf CLK_TCK) on Linux
const PAGE = 4096;

interface Proc {
  pid: number;
  ppid: number;
  comm: string;
  cpu: number;
  rss: number;
}

/** Every process's parent, CPU time (utime + stime, seconds) and resident size (bytes), from /proc/<pid>/stat. */
function procs(): Map<number, Proc> {
  const out = new Map<number, Proc>();
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${d}/stat`, "utf8");
    } catch {
      continue;
    }
    // comm is in parentheses and may hold spaces: the fields after the last ")" start at field 3.
    const close = stat.lastIndexOf(")");
    const f = stat.slice(close + 2).split(" ");
    out.set(Number(d), {
      pid: Number(d),
      ppid: Number(f[1]),
      comm: stat.slice(stat.indexOf("(") + 1, close),
      // utime + stime, plus cutime + cstime: the children it has waited for (none at rest: the host reads
      // windows through X events).
      cpu: (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / TICKS,
      rss: Number(f[21]) * PAGE,
    });
  }
  return out;
}

/** `root` and all its descendants. */
function tree(all: Map<number, Proc>, root: number): Proc[] {
  const out: Proc[] = [];
  const todo = [root];
  while (todo.length) {
    const pid = todo.pop()!;
    const p = all.get(pid);
    if (!p) continue;
    out.push(p);
    for (const c of all.values()) if (c.ppid === pid) todo.push(c.pid);
  }
  return out;
}

interface Sample {
  /** Per process: CPU seconds so far. */
  cpu: Map<number, { comm: string; cpu: number }>;
  rss: number;
  /** Resident bytes per process name (the host is "host"). */
  rssBy: Record<string, number>;
}

/** A memory sample taken `minute` minutes into a measured phase. */
interface MemoryPoint {
  minute: number;
  rss: number;
  rssBy: Record<string, number>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
const mb = (b: number) => `${(b / 1048576).toFixed(0)} MB`;

/** One measured phase: CPU per minute (per process name), memory every minute, spawns by the host. */
interface Phase {
  label: string;
  perMinute: number;
  by: Record<string, number>;
  minutes: number;
  memory: MemoryPoint[];
  spawns: number;
}

/** The host (this process alone) and `roots` with their descendants: CPU seconds per pid, RSS per name. */
function sampleOf(roots: number[]): Sample {
  const all = procs();
  const mine = [all.get(process.pid)!, ...roots.flatMap((r) => tree(all, r))];
  const rssBy: Record<string, number> = {};
  for (const p of mine) {
    const name = p.pid === process.pid ? "host" : p.comm;
    rssBy[name] = (rssBy[name] ?? 0) + p.rss;
  }
  return {
    cpu: new Map(mine.map((p) => [p.pid, { comm: p.comm, cpu: p.cpu }])),
    rss: mine.reduce((sum, p) => sum + p.rss, 0),
    rssBy,
  };
}

/** Measures `roots` for `minutes`: CPU spent, memory at the start, each whole minute and the end, spawns. */
async function measure(label: string, roots: () => number[], minutes: number): Promise<Phase> {
  const spawns = countSpawns();
  try {
    const a = sampleOf(roots());
    const memory: MemoryPoint[] = [{ minute: 0, rss: a.rss, rssBy: a.rssBy }];
    const started = Date.now();
    for (let m = 1; m < minutes; m++) {
      await sleep(started + m * 60_000 - Date.now());
      const s = sampleOf(roots());
      memory.push({ minute: m, rss: s.rss, rssBy: s.rssBy });
    }
    await sleep(started + minutes * 60_000 - Date.now());
    const b = sampleOf(roots());
    memory.push({ minute: minutes, rss: b.rss, rssBy: b.rssBy });
    const by: Record<string, number> = {};
    let total = 0;
    for (const [pid, e] of b.cpu) {
      const d = e.cpu - (a.cpu.get(pid)?.cpu ?? 0);
      const name = pid === process.pid ? "host" : e.comm;
      by[name] = (by[name] ?? 0) + d;
      total += d;
    }
    return { label, perMinute: total / minutes, by, minutes, memory, spawns: spawns.argv.length };
  } finally {
    spawns.stop();
  }
}

/** Memory over a phase: every sample's total, and the growth over its last min(M, 5) minutes. */
function growthOf(points: MemoryPoint[]): { line: string; mb: number } {
  const last = points[points.length - 1]!;
  const from = points.find((p) => p.minute >= last.minute - 5) ?? points[0]!;
  const mbs = (last.rss - from.rss) / 1048576;
  return {
    line: `RSS ${points.map((p) => (p.rss / 1048576).toFixed(0)).join(" ")} MB; last ${last.minute - from.minute} min ${mbs >= 0 ? "+" : ""}${mbs.toFixed(1)} MB`,
    mb: mbs,
  };
}

function printPhase(r: Phase): void {
  const parts = Object.entries(r.by)
    .filter(([, v]) => v >= 0.05)
    .map(([k, v]) => `${k} ${(v / r.minutes).toFixed(2)}`)
    .join(", ");
  console.log(
    `  ${r.label.padEnd(28)} ${r.perMinute.toFixed(2).padStart(6)} CPU-s/min over ${r.minutes} min  (${parts})`,
  );
  const last = r.memory[r.memory.length - 1]!;
  const names = Object.keys(last.rssBy).sort((x, y) => last.rssBy[y]! - last.rssBy[x]!);
  console.log(
    `  ${"".padEnd(28)} ${growthOf(r.memory).line}  (${names.map((n) => `${n} ${mb(last.rssBy[n]!)}`).join(", ")})`,
  );
  console.log(`  ${"".padEnd(28)} host spawns: ${r.spawns} (${(r.spawns / r.minutes).toFixed(1)}/min)`);
}

/** Sets the doze delay (seconds, or "never") the way Settings does: the store, mirrored to every page. */
type SetDoze = (delay: number | "never") => void;

/** Awake, dozing and the empty scene of one build; `open(query)` shows her page and answers its close. */
async function phases(
  build: string,
  roots: () => number[],
  setDoze: SetDoze,
  open: (query: string) => Promise<() => Promise<void>>,
): Promise<Phase[]> {
  setDoze("never");
  let close = await open("");
  await sleep(WARMUP_S * 1000);
  const awake = await measure(`${build}, awake`, roots, MINUTES);
  setDoze(DOZE_S);
  await sleep(SETTLE_MS);
  const dozing = await measure(`${build}, dozing`, roots, MINUTES);
  await close();
  setDoze("never");
  close = await open("&stage=empty");
  await sleep(WARMUP_S * 1000);
  const empty = await measure(`${build}, empty scene (peer)`, roots, Math.min(MINUTES, 1));
  await close();
  return [awake, dozing, empty];
}

/** Her canvas's drawing buffer and the page's device pixel ratio, for the printout. */
const CANVAS_PROBE = () => {
  const c = document.querySelector("canvas");
  return c ? `${c.width}x${c.height} px at devicePixelRatio ${devicePixelRatio}` : "no canvas";
};

async function main() {
  if (!(MINUTES > 0)) throw new Error("--minutes needs a positive number");
  const { distDir, avatar } = prepare();
  const desk = await startXDesktop();
  const dataDir = mkdtempSync(join(tmpdir(), "yui-bench-idle-"));
  const env: NodeJS.ProcessEnv = { ...desk.env, LIBGL_ALWAYS_SOFTWARE: "1" };
  delete env.OPENAI_BASE_URL;
  delete env.OPENAI_API_KEY;
  const host = await startHost({
    port: 0,
    dataDir,
    env,
    browserCommands: false,
    distDir,
    defaultAvatar: avatar,
  });
  const shell = spawnShell({ env, log: () => {} });
  const results: Phase[] = [];
  try {
    savePreset(host.store, {
      id: "yui",
      name: "Yui",
      avatar: "",
      voice: "",
      persona: "",
      backend: { transport: "chat", base_url: "http://127.0.0.1:9/v1", model: "none" },
    });
    const setDoze: SetDoze = (delay) => host.store.set(DOZE_KEY, { delay_s: delay }, "bench");
    const ready = await shell.ready;
    if (ONLY !== "browser") {
      // Main's body, as `yui desktop` has it: her page holds it and the host watches the X window model.
      const bodies = desktopBodies(shell, host, env, undefined, ready.monitors);
      host.body.provide(bodies);
      let n = 0;
      const open = async (query: string) => {
        const id = `yui-${n++}`;
        const shown = shell.next((m) => m.type === "mapped" && m.id === id, 60_000);
        shell.send({
          type: "open",
          id,
          title: "Yui",
          url: host.launchUrl(desktopUrl(host.url, "yui", "main") + query),
          ...WINDOW_SIZE,
          ...initialPlace(0, ready.monitors),
        });
        await shown;
        return async () => {
          shell.send({ type: "close", id });
          await sleep(3000);
        };
      };
      results.push(...(await phases("desktop app", () => [shell.child.pid!], setDoze, open)));
      host.body.provide(null);
    }
    if (ONLY !== "desktop") {
      const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
      try {
        const page = await browser.newPage();
        const open = async (query: string) => {
          await page.goto(host.launchUrl(`${host.url}?view=main${query}`));
          return async () => {
            await page.goto("about:blank");
            await sleep(3000);
          };
        };
        // Chromium's browser process: this process's child of that name (its others are in its tree).
        const chromiumPids = () =>
          [...procs().values()]
            .filter((p) => p.ppid === process.pid && /chrom/i.test(p.comm))
            .map((p) => p.pid);
        if (chromiumPids().length === 0) throw new Error("no Chromium process");
        const close = await open("");
        await sleep(10_000);
        console.log(`browser build canvas: ${await page.evaluate(CANVAS_PROBE)}`);
        await close();
        results.push(...(await phases("browser build", chromiumPids, setDoze, open)));
      } finally {
        await browser.close();
      }
    }
    report(results);
  } finally {
    await shell.stop();
    await host.close();
    await desk.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function report(results: Phase[]): void {
  console.log(
    `bench:idle  ${WARMUP_S} s warm-up each; desktop: host + gjs shell + WebKit on Xvfb + openbox + xcompmgr (software GL); browser: host + headless Chromium (SwiftShader)`,
  );
  for (const r of results) printPhase(r);
  const find = (l: string) => results.find((r) => r.label === l);
  const [dAwake, dDoze, dEmpty] = ["awake", "dozing", "empty scene (peer)"].map((k) =>
    find(`desktop app, ${k}`),
  );
  const [bAwake, bDoze, bEmpty] = ["awake", "dozing", "empty scene (peer)"].map((k) =>
    find(`browser build, ${k}`),
  );
  if (dAwake && dEmpty)
    console.log(`desktop: character / empty scene ${(dAwake.perMinute / dEmpty.perMinute).toFixed(2)}x`);
  if (bAwake && bEmpty)
    console.log(`browser: character / empty scene ${(bAwake.perMinute / bEmpty.perMinute).toFixed(2)}x`);
  if (dDoze) console.log(`desktop dozing: ${dDoze.perMinute.toFixed(2)} CPU-s/min (goal <= 1)`);
  if (bDoze) console.log(`browser dozing: ${bDoze.perMinute.toFixed(2)} CPU-s/min (goal <= 1)`);
  if (dAwake && bAwake)
    console.log(
      `browser awake / desktop awake: ${(bAwake.perMinute / dAwake.perMinute).toFixed(2)}x (goal <= 1.5x)`,
    );
  const worst = Math.max(
    ...results.filter((r) => r.minutes >= 2).map((r) => growthOf(r.memory).mb),
    Number.NaN,
  );
  if (!Number.isNaN(worst))
    console.log(`largest growth over a phase's last minutes: ${worst.toFixed(1)} MB (goal < 1)`);
  const rest = results.filter((r) => r.label.startsWith("desktop"));
  if (rest.length) {
    const n = rest.reduce((s, r) => s + r.spawns, 0);
    const m = rest.reduce((s, r) => s + r.minutes, 0);
    console.log(`host spawns at rest: ${(n / m).toFixed(2)}/min (goal 0)`);
  }
}

/** The UI build and the default character this checkout makes (or given ones), each in a child process. */
function prepare(): { distDir: string; avatar: string } {
  // The UI as it is in this checkout, built into a private folder (the shared dist/ is left alone), or an
  // already built one (`--dist <dir>`, e.g. an older commit's build for a before/after comparison).
  const given = process.argv.indexOf("--dist");
  const distDir = given > 0 ? resolve(process.argv[given + 1]!) : join(REPO, ".cache", "bench-idle-dist");
  if (given < 0) {
    // In a child process, so the build's memory is not counted as the host's (this process).
    const built = spawnSync(
      "npx",
      ["vite", "build", "--config", join(REPO, "vite.config.ts"), "--outDir", distDir, "--emptyOutDir"],
      { cwd: REPO, stdio: ["ignore", "ignore", "inherit"] },
    );
    if (built.status !== 0) throw new Error(`the UI build failed (exit ${built.status})`);
  }
  // The default character as this checkout generates it, or a given model file (`--avatar <file>`).
  const givenAvatar = process.argv.indexOf("--avatar");
  const avatar =
    givenAvatar > 0
      ? resolve(process.argv[givenAvatar + 1]!)
      : join(REPO, ".cache", "bench-idle-avatar", "default.vrm");
  if (givenAvatar < 0) {
    const made = spawnSync("npx", ["tsx", join(REPO, "tools", "vrm-gen", "main.ts"), "--out", avatar], {
      cwd: REPO,
      stdio: ["ignore", "ignore", "inherit"],
    });
    if (made.status !== 0) throw new Error(`generating the default character failed (exit ${made.status})`);
  }
  return { distDir, avatar };
}

main().catch((err: unknown) => {
  console.error(`bench:idle failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
