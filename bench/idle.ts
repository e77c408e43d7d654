import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { desktopUrl, initialPlace, WINDOW_SIZE } from "../host/desktop/desktop.ts";
import { desktopBodies } from "../host/desktop/desktop-cli.ts";
import { spawnShell } from "../host/desktop/shell-process.ts";
import { startHost } from "../host/server/server.ts";
import { startXDesktop } from "../shell/gtk/testing/x-desktop.ts";
import { savePreset } from "../src/app/presets/presets.ts";
import { REPO } from "../src/avatar/harness/serve.ts";

// bench:idle — what the whole companion costs while idle on the desktop: CPU seconds per minute and resident
// memory of the host (this process), the gjs shell and its WebKit processes, with the default character on
// the desktop, beside its peer: the same host and shell showing an empty scene (`?stage=empty`, the same
// stage and frame loop with no character), measured in the same run. Xvfb + openbox + xcompmgr, Mesa's
// software renderer. Goal (issue 20): the character at most 1.5x the empty scene. Also printed, outside the
// ratio: the character with her window hidden (the shell's `visible: false`), for min(M, 0.5) minutes.
// Memory: the resident size (RSS) of the same processes is sampled when the character's measured time
// starts, at each whole minute of it and at its end, and printed per process with the change from the
// first minute to the end: the all-day companion must not grow while idle.
// Run: npx tsx bench/idle.ts [--minutes M] [--warmup S] [--dist DIR] [--avatar FILE]
//   M: minutes measured with the character (default 10, the ten-minute memory check; or the
//   YUI_BENCH_IDLE_MINUTES environment variable, e.g. 1 for a quick run); the empty scene is measured for
//   min(M, 1) minutes.

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const MINUTES = arg("--minutes", Number(process.env.YUI_BENCH_IDLE_MINUTES ?? 10));
const WARMUP_S = arg("--warmup", 30);
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
      // utime + stime, plus cutime + cstime: the children it has waited for (the host's xprop readings).
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

/**
 * The character's memory over the measured time: total and per process at the start, after the first
 * minute, and at the end (every minute in between on one line), then the change from the first minute to
 * the end (the first minute still settles caches and the frame policy) in MB and per cent.
 */
function printMemory(points: MemoryPoint[]): void {
  const at = (m: number) => points.find((p) => p.minute === m);
  const first = at(0)!;
  const last = points[points.length - 1]!;
  const settled = at(1) ?? first;
  const names = Object.keys(last.rssBy).sort((x, y) => last.rssBy[y]! - last.rssBy[x]!);
  console.log(`memory (RSS, character on the desktop; shared pages count once per process):`);
  for (const p of [first, ...(settled === first ? [] : [settled]), ...(last === settled ? [] : [last])]) {
    const parts = names.map((n) => `${n} ${mb(p.rssBy[n] ?? 0)}`).join(", ");
    console.log(`  at ${String(p.minute).padStart(4)} min: ${mb(p.rss).padStart(8)}  (${parts})`);
  }
  console.log(`  every minute: ${points.map((p) => `${(p.rss / 1048576).toFixed(0)}`).join(" ")} MB`);
  const growth = last.rss - settled.rss;
  const span = last.minute - settled.minute;
  if (span > 0) {
    console.log(
      `  from ${settled.minute} to ${last.minute} min: ${growth >= 0 ? "+" : ""}${(growth / 1048576).toFixed(1)} MB (${((100 * growth) / settled.rss).toFixed(1)}%, ${(growth / 1048576 / span).toFixed(2)} MB/min)`,
    );
  }
}

async function main() {
  if (!(MINUTES > 0)) throw new Error("--minutes needs a positive number");
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
  // The default character as this checkout generates it (the build's copy in .cache/avatar may be older),
  // or a given model file (`--avatar <file>`, e.g. an older build of her for a before/after comparison).
  const givenAvatar = process.argv.indexOf("--avatar");
  const avatar =
    givenAvatar > 0
      ? resolve(process.argv[givenAvatar + 1]!)
      : join(REPO, ".cache", "bench-idle-avatar", "default.vrm");
  if (givenAvatar < 0) {
    // Also in a child process: the generator's garbage would otherwise sit in the host's first memory sample.
    const made = spawnSync("npx", ["tsx", join(REPO, "tools", "vrm-gen", "main.ts"), "--out", avatar], {
      cwd: REPO,
      stdio: ["ignore", "ignore", "inherit"],
    });
    if (made.status !== 0) throw new Error(`generating the default character failed (exit ${made.status})`);
  }
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
  try {
    savePreset(host.store, {
      id: "yui",
      name: "Yui",
      avatar: "",
      voice: "",
      persona: "",
      backend: { transport: "chat", base_url: "http://127.0.0.1:9/v1", model: "none" },
    });
    const ready = await shell.ready;
    // Main's body, as `yui desktop` has it: her page holds it and the host watches the X window model.
    const bodies = desktopBodies(shell, host, env, undefined, ready.monitors);
    host.body.provide(bodies);
    /** The companion's processes: this one (the host) and the shell with its WebKit children. */
    const sample = (): Sample => {
      const all = procs();
      const mine = [all.get(process.pid)!, ...tree(all, shell.child.pid!)].filter(Boolean);
      const rssBy: Record<string, number> = {};
      for (const p of mine) {
        const name = p.pid === process.pid ? "host" : p.comm;
        rssBy[name] = (rssBy[name] ?? 0) + p.rss;
      }
      return {
        cpu: new Map(mine.map((p) => [p.pid, { comm: p.comm, cpu: p.cpu }])),
        rss: mine.reduce((s, p) => s + p.rss, 0),
        rssBy,
      };
    };
    const spent = (a: Sample, b: Sample) => {
      const by: Record<string, number> = {};
      let total = 0;
      for (const [pid, e] of b.cpu) {
        const d = e.cpu - (a.cpu.get(pid)?.cpu ?? 0);
        const name = pid === process.pid ? "host" : e.comm;
        by[name] = (by[name] ?? 0) + d;
        total += d;
      }
      return { total, by };
    };
    const phase = async (label: string, id: string, query: string, minutes: number, hide = false) => {
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
      // Loading (model fetch, shader compiles) is not idling: wait it out before measuring.
      await sleep(WARMUP_S * 1000);
      if (hide) {
        // The tray's "Hide characters": the window is unmapped; the page should stop drawing.
        shell.send({ type: "visible", id, visible: false });
        await sleep(3000);
      }
      const a = sample();
      // Memory at the start, at each whole minute, and at the end of the measured time.
      const memory: MemoryPoint[] = [{ minute: 0, rss: a.rss, rssBy: a.rssBy }];
      const started = Date.now();
      for (let m = 1; m < minutes; m++) {
        await sleep(started + m * 60_000 - Date.now());
        const s = sample();
        memory.push({ minute: m, rss: s.rss, rssBy: s.rssBy });
      }
      await sleep(started + minutes * 60_000 - Date.now());
      const b = sample();
      memory.push({ minute: minutes, rss: b.rss, rssBy: b.rssBy });
      shell.send({ type: "close", id });
      await sleep(3000);
      const { total, by } = spent(a, b);
      return { label, perMinute: total / minutes, by, rssStart: a.rss, rssEnd: b.rss, minutes, memory };
    };
    const withHer = await phase("default character", "yui", "", MINUTES);
    const empty = await phase("empty scene (peer)", "yui-empty", "&stage=empty", Math.min(MINUTES, 1));
    // Not part of the ratio: the same character with her window hidden, which should cost next to nothing.
    const hidden = await phase("character, hidden", "yui-hidden", "", Math.min(MINUTES, 0.5), true);
    console.log(
      `bench:idle  host + gjs shell + WebKit, idle on Xvfb + openbox + xcompmgr (software GL), ${WARMUP_S} s warm-up each`,
    );
    for (const r of [withHer, empty, hidden]) {
      const parts = Object.entries(r.by)
        .filter(([, v]) => v >= 0.05)
        .map(([k, v]) => `${k} ${(v / r.minutes).toFixed(1)}`)
        .join(", ");
      console.log(
        `${r.label.padEnd(20)} ${r.perMinute.toFixed(1).padStart(6)} CPU-s/min over ${r.minutes} min  (${parts})  RSS ${mb(r.rssStart)} -> ${mb(r.rssEnd)}`,
      );
    }
    const ratio = withHer.perMinute / empty.perMinute;
    console.log(`ratio character / empty scene: ${ratio.toFixed(2)}x (goal <= 1.5x)`);
    printMemory(withHer.memory);
  } finally {
    await shell.stop();
    await host.close();
    await desk.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(`bench:idle failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
