import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localIso } from "./localtime.ts";
import { mergeTimeline, type Segment } from "./timeline.ts";
import { dayFile, isExpired, pruneExpired, readDay, type WitnessEvent } from "./witness-log.ts";

// Times are local wall-clock times on 2026-11-30 (or a given day), as the recorder writes them.
const DAY = "2026-11-30";
const at = (hhmm: string, day = DAY): Date => {
  const [y, mo, d] = day.split("-").map(Number) as [number, number, number];
  const [h, mi, s] = hhmm.split(":").map(Number) as [number, number, number?];
  return new Date(y, mo - 1, d, h, mi, s ?? 0);
};
const t = (hhmm: string, day = DAY): string => localIso(at(hhmm, day));
const app = (hhmm: string, name: string | null, title: string | null = null, day = DAY): WitnessEvent => ({
  t: t(hhmm, day),
  type: "app",
  app: name,
  title,
});
const ev = (hhmm: string, type: "idle_start" | "idle_end" | "stop", day = DAY): WitnessEvent => ({
  t: t(hhmm, day),
  type,
});
const seg = (from: string, to: string, name?: string, title: string | null = null, toDay = DAY): Segment => {
  const start = at(from);
  const end = at(to, toDay);
  const duration_min = Math.round((end.getTime() - start.getTime()) / 600) / 100;
  const [s, e] = [localIso(start, true), localIso(end, true)];
  return name === undefined
    ? { start: s, end: e, type: "idle", duration_min }
    : { start: s, end: e, type: "app", app: name, window_title: title, duration_min };
};
const NEXT_DAY = "2026-12-01";
const LATER = at("12:00", NEXT_DAY); // "now" for a day that is over

describe("mergeTimeline", () => {
  const cases: [string, WitnessEvent[], Date, Segment[]][] = [
    ["an empty day is an empty timeline", [], LATER, []],
    [
      "each front change ends one app segment and starts the next",
      [app("09:00", "XTerm", "bash"), app("09:10", "XClock", "xclock"), app("09:30", "XTerm", "vim notes")],
      at("10:00"),
      [
        seg("09:00", "09:10", "XTerm", "bash"),
        seg("09:10", "09:30", "XClock", "xclock"),
        seg("09:30", "10:00", "XTerm", "vim notes"),
      ],
    ],
    [
      "a repeated identical line does not split a segment",
      [app("09:00", "XTerm", "bash"), app("09:05", "XTerm", "bash")],
      at("09:20"),
      [seg("09:00", "09:20", "XTerm", "bash")],
    ],
    [
      "a title change in the same app is a new segment",
      [app("09:00", "Firefox", "Mail"), app("09:05", "Firefox", "News")],
      at("09:20"),
      [seg("09:00", "09:05", "Firefox", "Mail"), seg("09:05", "09:20", "Firefox", "News")],
    ],
    [
      "an idle stretch sits between app stretches and the same app resumes after it",
      [app("09:00", "XTerm", "bash"), ev("09:20", "idle_start"), ev("09:50", "idle_end")],
      at("10:00"),
      [seg("09:00", "09:20", "XTerm", "bash"), seg("09:20", "09:50"), seg("09:50", "10:00", "XTerm", "bash")],
    ],
    [
      "an app change while idle is churn: it does not end the idle stretch, and shows after it",
      [
        app("09:00", "XTerm", "bash"),
        ev("09:20", "idle_start"),
        app("09:30", "Mail", "Inbox (3)"),
        app("09:35", "Calendar", "Reminder"),
        ev("09:50", "idle_end"),
      ],
      at("10:00"),
      [
        seg("09:00", "09:20", "XTerm", "bash"),
        seg("09:20", "09:50"),
        seg("09:50", "10:00", "Calendar", "Reminder"),
      ],
    ],
    [
      "a back-dated idle_start written after the churn still swallows it",
      // The recorder notices idleness only after the threshold and writes idle_start back-dated.
      [
        app("09:00", "XTerm", "bash"),
        app("09:25", "Mail", "Inbox"),
        ev("09:20", "idle_start"),
        ev("09:40", "idle_end"),
      ],
      at("10:00"),
      [seg("09:00", "09:20", "XTerm", "bash"), seg("09:20", "09:40"), seg("09:40", "10:00", "Mail", "Inbox")],
    ],
    [
      "a null title is kept as null",
      [app("09:00", "XEyes", null)],
      at("09:10"),
      [seg("09:00", "09:10", "XEyes", null)],
    ],
    [
      "no front app is a gap, not a segment",
      [app("09:00", "XTerm", "bash"), app("09:10", null, null), app("09:20", "XTerm", "bash")],
      at("09:30"),
      [seg("09:00", "09:10", "XTerm", "bash"), seg("09:20", "09:30", "XTerm", "bash")],
    ],
    [
      "a recorder stop ends the open stretch and forgets the front",
      [app("09:00", "XTerm", "bash"), ev("09:10", "stop"), ev("09:20", "idle_end")],
      at("09:30"),
      [seg("09:00", "09:10", "XTerm", "bash")],
    ],
    [
      "a day that is over ends its last stretch at midnight",
      [app("23:00", "XTerm", "bash")],
      LATER,
      [seg("23:00", "00:00", "XTerm", "bash", NEXT_DAY)],
    ],
    [
      "an idle stretch running into midnight ends at midnight",
      [app("23:00", "XTerm", "bash"), ev("23:30", "idle_start")],
      LATER,
      [seg("23:00", "23:30", "XTerm", "bash"), seg("23:30", "00:00", undefined, null, NEXT_DAY)],
    ],
    [
      "a line back-dated into the previous day starts at this day's midnight",
      [ev("23:50", "idle_start", "2026-11-29"), app("00:00", "XTerm", "bash"), ev("00:30", "idle_end")],
      at("01:00"),
      [seg("00:00", "00:30"), seg("00:30", "01:00", "XTerm", "bash")],
    ],
    [
      "today's last stretch ends now, and lines after now are ignored",
      [app("09:00", "XTerm", "bash"), app("11:00", "XClock", "xclock")],
      at("10:00"),
      [seg("09:00", "10:00", "XTerm", "bash")],
    ],
    ["a future day is empty", [app("09:00", "XTerm", "bash")], at("23:00", "2026-11-29"), []],
    [
      "an idle_end without idle_start and a second idle_start change nothing",
      [
        app("09:00", "XTerm", "bash"),
        ev("09:05", "idle_end"),
        ev("09:10", "idle_start"),
        ev("09:15", "idle_start"),
      ],
      at("09:20"),
      [seg("09:00", "09:10", "XTerm", "bash"), seg("09:10", "09:20")],
    ],
  ];

  it.each(cases)("%s", (_name, events, now, want) => {
    expect(mergeTimeline(DAY, events, now)).toEqual({ date: DAY, segments: want });
  });

  it("orders each segment's fields as the spec lists them", () => {
    const { segments } = mergeTimeline(
      DAY,
      [app("09:00", "XTerm", "bash"), ev("09:10", "idle_start")],
      at("09:20"),
    );
    expect(segments.map((s) => Object.keys(s))).toEqual([
      ["start", "end", "type", "app", "window_title", "duration_min"],
      ["start", "end", "type", "duration_min"],
    ]);
  });
});

describe("reading day files", () => {
  let dir: string;
  const now = at("12:00");
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "dc-witness-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const write = (key: string, lines: string[]): Promise<void> =>
    writeFile(dayFile(dir, key), lines.join("\n"));

  it("reads a missing day as empty", async () => {
    expect(await readDay(dir, "2026-11-20", now, 14)).toEqual([]);
  });

  it("reads an unreadable day file as empty", async () => {
    // A directory where the file should be fails for root as well as for a user (chmod does not bind root).
    await mkdir(dayFile(dir, "2026-11-21"));
    expect(await readDay(dir, "2026-11-21", now, 14)).toEqual([]);
  });

  it("skips bad lines and keeps the good ones", async () => {
    const good = app("09:00", "XTerm", "bash", "2026-11-23");
    await write("2026-11-23", [
      "not json",
      JSON.stringify({ t: "yesterday", type: "app", app: "X", title: null }),
      JSON.stringify({ t: good.t, type: "mystery" }),
      JSON.stringify(good),
      '{"t":"2026-11-23T10:00',
    ]);
    expect(await readDay(dir, "2026-11-23", now, 14)).toEqual([good]);
  });

  it.each([
    ["2026-11-16", 14, false],
    ["2026-11-15", 14, true],
    ["2026-11-30", 0, false],
    ["2026-11-29", 0, true],
  ])("with today 2026-11-30, day %s under retention %i is expired: %s", (key, retention, expired) => {
    expect(isExpired(key, now, retention)).toBe(expired);
  });

  it("reads a retention-expired day as empty even while its file exists, and prune deletes it", async () => {
    const old = "2026-11-01";
    await write(old, [JSON.stringify(app("09:00", "XTerm", "bash", old))]);
    expect(await readDay(dir, old, now, 14)).toEqual([]);
    expect(await readDay(dir, old, now, 60)).toHaveLength(1);
    await writeFile(path.join(dir, "notes.txt"), "not a day file");
    expect(await pruneExpired(dir, now, 14)).toEqual([old]);
    expect(await readDay(dir, old, now, 60)).toEqual([]);
  });
});
