// The witness log on disk: one JSON Lines file per local day, <dir>/YYYY-MM-DD.jsonl, each line one
// transition. The recorder appends; get_activity_timeline reads. The format is in the mod's page.
import { appendFile, mkdir, readdir, readFile, unlink } from "node:fs/promises";
import path from "node:path";
import { quoteInput } from "@yui/mod-kit";
import { z } from "zod";
import { dayBounds, daysBefore } from "./localtime.ts";

const isoTime = z.string().refine((s) => Number.isFinite(Date.parse(s)), "not a time");

/** One line of a day file. `t` is local ISO 8601 with offset. */
export const WitnessEventSchema = z.discriminatedUnion("type", [
  z.object({ t: isoTime, type: z.literal("app"), app: z.string().nullable(), title: z.string().nullable() }),
  z.object({ t: isoTime, type: z.literal("idle_start") }),
  z.object({ t: isoTime, type: z.literal("idle_end") }),
  z.object({ t: isoTime, type: z.literal("stop") }),
]);
export type WitnessEvent = z.infer<typeof WitnessEventSchema>;

/** Default days a day file is kept (besides today). */
export const DEFAULT_RETENTION_DAYS = 14;

/** Where the log lives: WITNESS_LOG_DIR, else the mod's own witness/ directory. */
export function witnessDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.WITNESS_LOG_DIR || path.resolve(import.meta.dirname, "..", "witness");
}

/** WITNESS_RETENTION_DAYS (a whole number ≥ 0), else the default; throws on a malformed value. */
export function retentionDays(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.WITNESS_RETENTION_DAYS;
  if (raw === undefined || raw === "") return DEFAULT_RETENTION_DAYS;
  if (!/^\d{1,5}$/.test(raw))
    throw new Error(`WITNESS_RETENTION_DAYS must be a whole number of days, got '${quoteInput(raw)}'`);
  return Number(raw);
}

/** The file of day `key`. */
export function dayFile(dir: string, key: string): string {
  return path.join(dir, `${key}.jsonl`);
}

/** true when day `key` is older than the retention period counted back from the day of `now`. */
export function isExpired(key: string, now: Date, retention: number): boolean {
  // YYYY-MM-DD keys sort as dates.
  return key < daysBefore(now, retention);
}

/** Reads a day's events. A missing, unreadable or expired file is an empty day; a bad line is skipped. */
export async function readDay(
  dir: string,
  key: string,
  now: Date,
  retention: number,
): Promise<WitnessEvent[]> {
  if (!dayBounds(key) || isExpired(key, now, retention)) return [];
  let text: string;
  try {
    text = await readFile(dayFile(dir, key), "utf8");
  } catch {
    return [];
  }
  const events: WitnessEvent[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      continue; // e.g. a line cut short when the machine lost power mid-write
    }
    const parsed = WitnessEventSchema.safeParse(json);
    if (parsed.success) events.push(parsed.data);
  }
  return events;
}

/** Appends events to day `key`'s file (one write, so lines of concurrent writers never interleave). */
export async function appendDay(dir: string, key: string, events: readonly WitnessEvent[]): Promise<void> {
  if (events.length === 0) return;
  await mkdir(dir, { recursive: true });
  await appendFile(dayFile(dir, key), events.map((e) => `${JSON.stringify(e)}\n`).join(""), "utf8");
}

/** Deletes the day files past retention; returns the days removed. Other files are left alone. */
export async function pruneExpired(dir: string, now: Date, retention: number): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const m = /^(\d{4}-\d{2}-\d{2})\.jsonl$/.exec(name);
    if (!m || !isExpired(m[1]!, now, retention)) continue;
    await unlink(path.join(dir, name)).then(
      () => removed.push(m[1]!),
      () => {},
    );
  }
  return removed;
}
