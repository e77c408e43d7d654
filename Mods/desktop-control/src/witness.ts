// The witness recorder: polls the frontmost window and the user's idle time and appends each
// transition to the day's file. Run as `desktop-control witness` (a login item or a user service).
import { quoteInput } from "@yui/mod-kit";
import { dayKey, localIso } from "./localtime.ts";
import type { FrontWindow, Platform } from "./platform/types.ts";
import { stampClock } from "./stamp-clock.ts";
import { appendDay, pruneExpired, readDay, type WitnessEvent } from "./witness-log.ts";

/** The recorder's settings (all from the environment in production). */
export interface WitnessOptions {
  platform: Platform;
  dir: string;
  retentionDays: number;
  /** Idle for at least this long counts as idle (WITNESS_IDLE_SECONDS, default 300). */
  idleThresholdMs: number;
  /** Time between polls (WITNESS_POLL_SECONDS, default 5). */
  pollMs: number;
  /** The wall clock (default Date); stamps follow it but never go back (stamp-clock.ts). */
  now?: () => Date;
  /** A monotonic clock in ms (default performance.now), which advances the stamps between wall readings. */
  monotonic?: () => number;
  log?: (line: string) => void;
}

/** Default idle threshold: five minutes without input. */
export const DEFAULT_IDLE_SECONDS = 300;
/** Default poll interval. */
export const DEFAULT_POLL_SECONDS = 5;

/** Reads a positive number of seconds from the environment; throws on a malformed value. */
export function secondsFromEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback * 1000;
  const n = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || n <= 0)
    throw new Error(`${name} must be a positive number of seconds, got '${quoteInput(raw)}'`);
  return n * 1000;
}

/** A running recorder. */
export interface Witness {
  /** Settles when the first observation (taken at start, after pruning expired days) is written. */
  ready: Promise<void>;
  /** Takes one observation now (the loop calls it; tests may too). */
  tick(): Promise<void>;
  /** Writes the stop line and ends the loop. */
  stop(): Promise<void>;
}

/** Starts recording; the first tick runs at once. */
export function startWitness(opts: WitnessOptions): Witness {
  const wall = opts.now ?? (() => new Date());
  const clock = stampClock(() => wall().getTime(), opts.monotonic);
  const now = () => new Date(clock.now());
  const log = opts.log ?? ((l: string) => process.stderr.write(`${l}\n`));
  let front: FrontWindow | null = null;
  let idle = false;
  let day: string | null = null;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let queue: Promise<void> = Promise.resolve();
  // The stamp of the last idle_start / idle_end written. Both are back-dated from an idle reading, and
  // never to before it: an idle_start is never stamped before the idle_end it follows (nor an idle_end
  // before its idle_start), whatever a single reading or the wall clock says.
  let lastTransition = Number.NEGATIVE_INFINITY;

  const appLine = (t: Date, f: FrontWindow): WitnessEvent => ({
    t: localIso(t),
    type: "app",
    app: f.app,
    title: f.title,
  });

  const observe = async (): Promise<void> => {
    const [f, idleMs] = await Promise.all([opts.platform.frontWindow(), opts.platform.idleMs()]);
    const t = now();
    const key = dayKey(t);
    const lines: WitnessEvent[] = [];
    if (day !== null && key !== day) {
      // A new day's file starts with the state carried over at its midnight, so every file stands alone.
      const midnight = new Date(t.getFullYear(), t.getMonth(), t.getDate());
      if (front) lines.push(appLine(midnight, front));
      if (idle) {
        lines.push({ t: localIso(midnight), type: "idle_start" });
        lastTransition = Math.max(lastTransition, midnight.getTime());
      }
      await pruneExpired(opts.dir, t, opts.retentionDays);
    }
    day = key;
    // Idleness starts (or ends) when input stopped (or resumed), not when this poll saw it.
    const nowIdle = idleMs >= opts.idleThresholdMs;
    if (nowIdle !== idle) {
      lastTransition = Math.max(lastTransition, t.getTime() - idleMs);
      lines.push({ t: localIso(new Date(lastTransition)), type: nowIdle ? "idle_start" : "idle_end" });
    }
    idle = nowIdle;
    if (!front || front.app !== f.app || front.title !== f.title) lines.push(appLine(t, f));
    front = f;
    await appendDay(opts.dir, key, lines);
  };

  let lastError = "";
  const observeLogged = (): Promise<void> =>
    observe().then(
      () => {
        lastError = "";
      },
      (e: unknown) => {
        // Logged once per distinct failure, not every poll: a lost display would flood the log.
        const text = `[witness] observation failed: ${(e as Error)?.message ?? e}`;
        if (text !== lastError) log(text);
        lastError = text;
      },
    );

  const tick = (): Promise<void> => {
    // Ticks never overlap: a slow helper delays the next observation rather than interleaving two.
    queue = queue.then(() => (stopped ? undefined : observeLogged()));
    return queue;
  };

  const loop = async () => {
    await tick();
    if (!stopped) timer = setTimeout(loop, opts.pollMs);
  };

  const ready = (async () => {
    const start = now();
    await pruneExpired(opts.dir, start, opts.retentionDays);
    // A restart after the wall clock stepped back must not stamp before what today's file already holds.
    const today = await readDay(opts.dir, dayKey(start), start, opts.retentionDays);
    for (const e of today) clock.floor(Date.parse(e.t));
  })().then(loop);

  return {
    ready,
    tick,
    async stop() {
      if (stopped) return;
      stopped = true;
      clearTimeout(timer);
      await queue; // an observation already under way still lands before the stop line
      clearTimeout(timer);
      const t = now();
      await appendDay(opts.dir, dayKey(t), [{ t: localIso(t), type: "stop" }]);
    },
  };
}
