/**
 * The panel's input queue: the user's messages and the incoming turns (another character, a mod's signal) run
 * one at a time, in the order they came, so the events of the turn playing now go to its own reply. Stop aborts
 * the turn running now; one failed step is reported and the queue goes on.
 */

/** Creates the panel's queue: turns run one at a time, in the order they came. */
export function createTurnQueue(o: {
  /** A turn started (true) or ended (false). */
  onBusy(busy: boolean): void;
  /** A step failed (storing the history, a claim that threw, ...). */
  onFailure(e: unknown): void;
}) {
  let queue: Promise<unknown> = Promise.resolve();
  let current: AbortController | null = null;
  return {
    /** Queues a step behind the ones waiting. */
    enqueue(step: () => Promise<void>): void {
      queue = queue.then(step).catch((e: unknown) => o.onFailure(e));
    },
    /** Runs one turn inside a step: busy while it runs, Stop aborts its signal. */
    async turn<T>(run: (signal: AbortSignal) => Promise<T>): Promise<T> {
      const ac = new AbortController();
      current = ac;
      o.onBusy(true);
      try {
        return await run(ac.signal);
      } finally {
        current = null;
        o.onBusy(false);
      }
    },
    /** Whether a turn is running now. */
    busy: (): boolean => current !== null,
    /** Stops the turn running now, if any. */
    stop(): void {
      current?.abort();
    },
  };
}
