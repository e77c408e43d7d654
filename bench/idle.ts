import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { desktopUrl, initialPlace, WINDOW_SIZE } from "../host/desktop/desktop.ts";
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
// Run: npx tsx bench/idle.ts [--minutes M] [--warmup S] [--dist DIR]   (M: minutes measured with the character, default 1; the empty
// scene is measured for min(M, 1) minutes; --minutes 10 is the ten-minute memory check)

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const MINUTES = arg("--minutes", 1);
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
      cpu: (Number(f[11]) + Number(f[12])) / TICKS,
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
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mb = (b: number) => `${(b / 1048576).toFixed(0)} MB`;

async function main() {
  if (!(MINUTES > 0)) throw new Error("--minutes needs a positive number");
  // The UI as it is in this checkout, built into a private folder (the shared dist/ is left alone), or an
  // already built one (`--dist <dir>`, e.g. an older commit's build for a before/after comparison).
  const given = process.argv.indexOf("--dist");
  const distDir = given > 0 ? resolve(process.argv[given + 1]!) : join(REPO, ".cache", "bench-idle-dist");
  if (given < 0) {
    const { build } = await import("vite");
    await build({
      configFile: join(REPO, "vite.config.ts"),
      logLevel: "warn",
      build: { outDir: distDir, emptyOutDir: true },
    });
  }
  const desk = await startXDesktop();
  const dataDir = mkdtempSync(join(tmpdir(), "yui-bench-idle-"));
  const env: NodeJS.ProcessEnv = { ...desk.env, LIBGL_ALWAYS_SOFTWARE: "1" };
  delete env.OPENAI_BASE_URL;
  delete env.OPENAI_API_KEY;
  const host = await startHost({ port: 0, dataDir, env, browserCommands: false, distDir });
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
    /** The companion's processes: this one (the host) and the shell with its WebKit children. */
    const sample = (): Sample => {
      const all = procs();
      const mine = [all.get(process.pid)!, ...tree(all, shell.child.pid!)].filter(Boolean);
      return {
        cpu: new Map(mine.map((p) => [p.pid, { comm: p.comm, cpu: p.cpu }])),
        rss: mine.reduce((s, p) => s + p.rss, 0),
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
        url: desktopUrl(host.url, "yui", "main") + query,
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
      await sleep(minutes * 60_000);
      const b = sample();
      shell.send({ type: "close", id });
      await sleep(3000);
      const { total, by } = spent(a, b);
      return { label, perMinute: total / minutes, by, rssStart: a.rss, rssEnd: b.rss, minutes };
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
