import type { Clock } from "./clock.ts";

/** The spec's poll period; scaled by time_scale in config.toml. */
export const POLL_INTERVAL_MS = 1000;

/**
 * Calls poll every interval (the next one starts an interval after the last ended, so polls never overlap).
 * Failures go to onError, only when the message changes, so a game that is not hosted is said once.
 */
export function startPoller(
  poll: () => Promise<unknown>,
  intervalMs: number,
  clock: Clock,
  onError: (message: string) => void,
): { stop(): void } {
  let stopped = false;
  let timer: unknown;
  let lastError: string | undefined;
  const tick = async (): Promise<void> => {
    try {
      await poll();
      lastError = undefined;
    } catch (err) {
      const message = (err as Error).message;
      // A poll that fails after stop (the Mod closing, or its port taken) says nothing.
      if (message !== lastError && !stopped) onError(message);
      lastError = message;
    }
    if (!stopped) timer = clock.setTimeout(() => void tick(), intervalMs);
  };
  timer = clock.setTimeout(() => void tick(), 0);
  return {
    stop() {
      stopped = true;
      clock.clearTimeout(timer);
    },
  };
}
