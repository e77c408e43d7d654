// The witness recorder: for real under Xvfb (focus switches and an idle period), at midnight with a
// scripted desktop and clock, and as the real `desktop-control witness` process.
import { once } from "node:events";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dayKey, localIso } from "./localtime.ts";
import { LinuxPlatform } from "./platform/linux.ts";
import type { FrontWindow, Platform } from "./platform/types.ts";
import { startMod } from "./testing/mcp.ts";
import { startXSession, waitFor, type XSession } from "./testing/x-session.ts";
import { mergeTimeline } from "./timeline.ts";
import { startWitness } from "./witness.ts";
import { dayFile, readDay } from "./witness-log.ts";

let xs: XSession;
const dirs: string[] = [];
const tempDir = async () => {
  const d = await mkdtemp(path.join(tmpdir(), "dc-witness-"));
  dirs.push(d);
  return d;
};

beforeAll(async () => {
  xs = await startXSession();
}, 60_000);
afterAll(async () => {
  await xs?.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe("the witness recorder under Xvfb", () => {
  it("records focus switches and an idle period, and the timeline merges them", async () => {
    const platform = new LinuxPlatform({ env: xs.env });
    const dir = await tempDir();
    xs.start(["xterm", "-T", "first term", "-geometry", "80x24+50+50"]);
    xs.start(["xterm", "-T", "second term", "-geometry", "80x24+700+50"]);
    await waitFor("two terminals", async () => (await platform.windows()).length === 2);
    const focus = async (title: string) => {
      await xs.x("wmctrl", ["-F", "-a", title]);
      await waitFor(`${title} active`, async () => (await platform.frontWindow()).title === title);
    };
    const input = () => xs.x("xdotool", ["mousemove_relative", "--", "1", "1"]);

    await focus("first term");
    await input();
    // A poll interval longer than the test: every observation below is an explicit tick.
    const w = startWitness({ platform, dir, retentionDays: 14, idleThresholdMs: 1500, pollMs: 3_600_000 });
    await w.ready;
    await focus("second term");
    await w.tick();
    await input(); // the user's last input, after the switch was recorded
    // No input for longer than the threshold: the next observation starts an idle stretch...
    await waitFor("idleness", async () => (await platform.idleMs()) > 1800);
    await w.tick();
    // ...in which a focus change is background churn...
    await focus("first term");
    await w.tick();
    // ...until input resumes.
    await input();
    await w.tick();
    await w.stop();

    const key = dayKey(new Date());
    const events = await readDay(dir, key, new Date(), 14);
    expect(events.map((e) => (e.type === "app" ? `app:${e.title}` : e.type))).toEqual([
      "app:first term",
      "app:second term",
      "idle_start",
      "app:first term",
      "idle_end",
      "stop",
    ]);
    const { segments } = mergeTimeline(key, events, new Date());
    expect(segments.map((s) => (s.type === "app" ? `${s.app}:${s.window_title}` : "idle"))).toEqual([
      "XTerm:first term",
      "XTerm:second term",
      "idle",
      "XTerm:first term",
    ]);
  });
});

describe("the witness recorder at midnight", () => {
  it("starts the new day's file with the state carried over, so each day stands alone", async () => {
    const dir = await tempDir();
    let clock = new Date(2026, 10, 30, 23, 58, 0);
    let front: FrontWindow = { app: "XTerm", title: "late work" };
    let idle = 0;
    // A scripted desktop: the midnight can't be waited for on a real one.
    const scripted: Platform = {
      frontWindow: async () => front,
      idleMs: async () => idle,
      captureDisplays: async () => [],
      runningApps: async () => [],
      openApp: async () => "",
      closeApp: async () => "",
      preflight: async () => [],
    };
    const w = startWitness({
      platform: scripted,
      dir,
      retentionDays: 14,
      idleThresholdMs: 60_000,
      pollMs: 3_600_000,
      now: () => clock,
    });
    await w.ready;
    clock = new Date(2026, 10, 30, 23, 59, 0);
    idle = 90_000; // idle since 23:57:30
    await w.tick();
    clock = new Date(2026, 11, 1, 0, 0, 5);
    front = { app: "Mail", title: "Inbox" }; // churn after midnight, still idle
    await w.tick();
    clock = new Date(2026, 11, 1, 0, 10, 0);
    idle = 0;
    await w.tick();
    await w.stop();

    const today = await readDay(dir, "2026-12-01", clock, 14);
    expect(today[0]).toEqual({
      t: localIso(new Date(2026, 11, 1)),
      type: "app",
      app: "XTerm",
      title: "late work",
    });
    expect(today[1]).toEqual({ t: localIso(new Date(2026, 11, 1)), type: "idle_start" });
    const merged = mergeTimeline("2026-12-01", today, clock);
    expect(merged.segments.map((s) => [s.type, s.start, s.end])).toEqual([
      ["idle", localIso(new Date(2026, 11, 1), true), localIso(new Date(2026, 11, 1, 0, 10), true)],
    ]);
    const yesterday = mergeTimeline("2026-11-30", await readDay(dir, "2026-11-30", clock, 14), clock);
    // Input stopped at 23:57:30 (back-dated from the 23:59 poll), so the 23:58 line was already churn.
    expect(yesterday.segments.map((s) => [s.type, s.start, s.end])).toEqual([
      ["idle", localIso(new Date(2026, 10, 30, 23, 57, 30), true), localIso(new Date(2026, 11, 1), true)],
    ]);
  });

  it("deletes day files past retention when it starts", async () => {
    const dir = await tempDir();
    const now = new Date(2026, 10, 30, 12, 0);
    await writeFile(dayFile(dir, "2026-11-01"), "");
    await writeFile(dayFile(dir, "2026-11-29"), "");
    const w = startWitness({
      platform: { frontWindow: async () => ({ app: null, title: null }), idleMs: async () => 0 } as Platform,
      dir,
      retentionDays: 14,
      idleThresholdMs: 60_000,
      pollMs: 3_600_000,
      now: () => now,
    });
    await w.ready;
    await w.stop();
    expect((await readdir(dir)).sort()).toEqual(["2026-11-29.jsonl", "2026-11-30.jsonl"]);
  });
});

describe("the witness recorder when the wall clock steps back", () => {
  it("never stamps an idle_start before the idle_end it follows, nor a line before the one written before it", async () => {
    const dir = await tempDir();
    const T0 = new Date(2026, 10, 30, 10, 0, 0).getTime();
    const s = 1000;
    // Scripted: the wall clock (which steps back by 60 s below), a monotonic clock, the desktop.
    let wall = T0;
    let mono = 0;
    let front: FrontWindow = { app: "XTerm", title: "work" };
    let idle = 0;
    const scripted = {
      frontWindow: async () => front,
      idleMs: async () => idle,
    } as Platform;
    const at = async (wallS: number, monoS: number, idleS: number) => {
      wall = T0 + wallS * s;
      mono = monoS * s;
      idle = idleS * s;
      await w.tick();
    };
    const w = startWitness({
      platform: scripted,
      dir,
      retentionDays: 14,
      idleThresholdMs: 60 * s,
      pollMs: 3_600_000,
      now: () => new Date(wall),
      monotonic: () => mono,
    });
    await w.ready; // app XTerm:work at T0
    await at(100, 100, 90); // idle since T0+10
    await at(105, 105, 1); // input again at T0+104
    // The wall clock is set back two minutes; the user's last input was at T0+105 (real time), 65 s ago.
    await at(50, 170, 65);
    front = { app: "XTerm", title: "other" }; // churn while idle
    await at(60, 180, 75);
    await at(70, 190, 2); // input again
    front = { app: "XTerm", title: "late" }; // and the wall clock back once more
    await at(40, 200, 3);
    wall = T0 + 41 * s;
    mono = 201 * s;
    await w.stop();

    const events = await readDay(dir, "2026-11-30", new Date(T0 + 3600 * s), 14);
    expect(events.map((e) => (e.type === "app" ? `app:${e.title}` : e.type))).toEqual([
      "app:work",
      "idle_start",
      "idle_end",
      "idle_start",
      "app:other",
      "idle_end",
      "app:late",
      "stop",
    ]);
    const times = (types: string[]) =>
      events.filter((e) => types.includes(e.type)).map((e) => Date.parse(e.t));
    const nonDecreasing = (ts: number[]) => ts.every((t, i) => i === 0 || t >= ts[i - 1]!);
    // Lines stamped when observed never go back; idle transitions (back-dated) never go back either.
    expect(nonDecreasing(times(["app", "stop"]))).toBe(true);
    expect(nonDecreasing(times(["idle_start", "idle_end"]))).toBe(true);
    const [, firstEnd, secondStart] = times(["idle_start", "idle_end"]);
    expect(secondStart).toBeGreaterThanOrEqual(firstEnd!);

    // So the timeline shows the user away from the first idle_start to the last idle_end, with no app
    // segment in between.
    const { segments } = mergeTimeline("2026-11-30", events, new Date(T0 + 3600 * s));
    expect(segments.map((x) => (x.type === "app" ? `app:${x.window_title}` : "idle"))).toEqual([
      "app:work",
      "idle",
      "idle",
      "app:other",
      "app:late",
    ]);
    expect(segments[1]!.start).toBe(localIso(new Date(T0 + 10 * s), true));
    expect(segments[1]!.end).toBe(segments[2]!.start);
    expect(segments[2]!.end).toBe(segments[3]!.start);
  });
});

describe("the witness recorder restarted after the wall clock stepped back", () => {
  it("stamps nothing before the last line today's file already holds", async () => {
    const dir = await tempDir();
    const T0 = new Date(2026, 10, 30, 10, 0, 0).getTime();
    const written = localIso(new Date(T0 + 100_000));
    await writeFile(dayFile(dir, "2026-11-30"), `${JSON.stringify({ t: written, type: "stop" })}\n`);
    let wall = T0 + 40_000; // a minute behind what was written
    const w = startWitness({
      platform: {
        frontWindow: async () => ({ app: "XTerm", title: "back" }),
        idleMs: async () => 0,
      } as Platform,
      dir,
      retentionDays: 14,
      idleThresholdMs: 60_000,
      pollMs: 3_600_000,
      now: () => new Date(wall),
    });
    await w.ready;
    wall += 1000;
    await w.stop();
    const events = await readDay(dir, "2026-11-30", new Date(T0 + 3_600_000), 14);
    expect(events.map((e) => e.type)).toEqual(["stop", "app", "stop"]);
    const ts = events.map((e) => Date.parse(e.t));
    expect(ts[1]).toBeGreaterThanOrEqual(ts[0]!);
    expect(ts[2]).toBeGreaterThanOrEqual(ts[1]!);
  });
});

describe("desktop-control witness", () => {
  it("runs as its own process, writes today's file and a stop line on SIGTERM", async () => {
    const dir = await tempDir();
    xs.start(["xterm", "-T", "cli term", "-geometry", "80x24+50+400"]);
    const platform = new LinuxPlatform({ env: xs.env });
    await waitFor("cli term", async () => (await platform.windows()).some((w) => w.title === "cli term"));
    await xs.x("wmctrl", ["-F", "-a", "cli term"]);
    const env = { ...xs.env, WITNESS_LOG_DIR: dir, WITNESS_POLL_SECONDS: "0.2", WITNESS_IDLE_SECONDS: "600" };
    const proc = await startMod(["witness"], env, false);
    const file = dayFile(dir, dayKey(new Date()));
    await waitFor("the first line", async () =>
      (await readFile(file, "utf8").catch(() => "")).includes("cli term"),
    );
    const exited = once(proc.child, "exit");
    proc.child.kill("SIGTERM");
    expect(await exited).toEqual([0, null]);
    const lines = (await readFile(file, "utf8")).trim().split("\n");
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ type: "stop" });
    expect(proc.stderr()).toContain(`[witness] recording to ${dir}`);
  });
});

describe("the witness recorder when the desktop fails", () => {
  it("logs each distinct failure once and goes on recording", async () => {
    const dir = await tempDir();
    const logged: string[] = [];
    let fail: string | null = "no X display: DISPLAY is unset";
    const flaky = {
      frontWindow: async () => {
        if (fail) throw new Error(fail);
        return { app: "XTerm", title: "back" };
      },
      idleMs: async () => 0,
    } as Platform;
    const w = startWitness({
      platform: flaky,
      dir,
      retentionDays: 14,
      idleThresholdMs: 60_000,
      pollMs: 3_600_000,
      log: (l) => logged.push(l),
    });
    await w.ready;
    await w.tick();
    await w.tick();
    fail = null;
    await w.tick();
    await w.stop();
    expect(logged).toEqual(["[witness] observation failed: no X display: DISPLAY is unset"]);
    const events = await readDay(dir, dayKey(new Date()), new Date(), 14);
    expect(events.map((e) => e.type)).toEqual(["app", "stop"]);
  });
});
