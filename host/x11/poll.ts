// The schedule of a window model read by polling: readings that never overlap, told when they changed, and
// polled only while moves matter (macOS, host/macos/; X11 keeps its model from events instead, windows.ts).
import type { World } from "../../src/body/world.ts";

/** A running watch of the window model. */
export interface WorldWatcher {
  /** Ends the watch. */
  stop(): void;
  /** Reads now; resolves once a reading that started after this call is in (and told, if it changed). */
  refresh(): Promise<void>;
  /** Polls again (from a reading intervalMs from now) if it had stopped because `pollWhile` said so; a watch
   *  kept current by events (X11) has nothing to resume. */
  resume(): void;
}

/** What a watch polls while nothing announces a change. */
export interface PollOptions {
  /** Between readings, in ms (default 500). */
  intervalMs?: number;
  /**
   * Whether to keep polling after a reading (default: always). While it answers false only refresh() reads,
   * so nothing runs while she stands still; refresh() starts polling again.
   */
  pollWhile?: () => boolean;
  onError?: (e: unknown) => void;
}

/**
 * Calls `read` now and again and `onChange` with each reading that differs from the last (and the first):
 * readings never overlap, a request during one runs one more after it, and polling follows PollOptions.
 */
export function pollWorld(
  read: () => Promise<World>,
  onChange: (world: World) => void,
  opts: PollOptions = {},
): WorldWatcher & { tick(): void } {
  let stopped = false;
  let last = "";
  let timer: NodeJS.Timeout | undefined;
  let reading = false;
  let again = false;
  // Waiters for the next reading to start, and for the one running now.
  let queued: (() => void)[] = [];
  const tick = async () => {
    clearTimeout(timer);
    timer = undefined;
    if (stopped) return;
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    const waiting = queued;
    queued = [];
    try {
      const world = await read();
      const key = JSON.stringify(world);
      if (!stopped && key !== last) {
        last = key;
        onChange(world);
      }
    } catch (e) {
      opts.onError?.(e);
    }
    reading = false;
    for (const w of waiting) w();
    if (stopped) return;
    if (again || queued.length) {
      again = false;
      void tick();
    } else if (opts.pollWhile?.() ?? true) timer = setTimeout(tick, opts.intervalMs ?? 500);
  };
  void tick();
  return {
    tick: () => void tick(),
    resume() {
      if (!stopped && !reading && timer === undefined) timer = setTimeout(tick, opts.intervalMs ?? 500);
    },
    refresh: () =>
      new Promise<void>((resolve) => {
        if (stopped) return resolve();
        queued.push(resolve);
        void tick();
      }),
    stop() {
      stopped = true;
      clearTimeout(timer);
      for (const w of queued.splice(0)) w();
    },
  };
}
