/**
 * The renderer's side of the browser tool: invokes the host's browser_run / browser_guide commands, waits at most
 * the client's 32 s (the host's lock wait included), and answers a stopped turn at once.
 */
import type { BridgeInvoke } from "../bridge/client.ts";
import type { ToolResult } from "../chat/tools/client-tools.ts";
import { BROWSER_RESULT, BROWSER_TIMINGS } from "./results.ts";

/**
 * Invokes a host command over the bridge (Tauri's invoke; src/io/bridge/client.ts); the signal tells the host its
 * caller stopped waiting.
 */
export type BrowserInvoke = BridgeInvoke;

/** Runs the browser tool's two commands on the host. */
export interface BrowserRelay {
  /** Runs code in the preset's task space; the result string, or text with images. */
  run(presetId: string, code: string, signal: AbortSignal): Promise<ToolResult>;
  /** Returns ego lite's guide, or the guide's error string. */
  guide(signal: AbortSignal): Promise<ToolResult>;
}

type Ending = { kind: "result"; value: ToolResult } | { kind: "stopped" } | { kind: "waited" };

/** Creates the relay over the bridge's invoke; waitMs is the client's wait (32 s by default). */
export function createBrowserRelay(invoke: BrowserInvoke, options: { waitMs?: number } = {}): BrowserRelay {
  const waitMs = options.waitMs ?? BROWSER_TIMINGS.waitMs;

  // Races the command against the turn's stop and the client's wait; the host hears of either through the
  // signal `start` hands the command, and a run already started goes on to its end there (never killed from here).
  async function call(
    start: (gaveUp: AbortSignal) => Promise<ToolResult>,
    turn: AbortSignal,
  ): Promise<Ending> {
    if (turn.aborted) return { kind: "stopped" };
    const gaveUp = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onStop: (() => void) | undefined;
    const settled = new Promise<Ending>((resolve) => {
      timer = setTimeout(() => resolve({ kind: "waited" }), waitMs);
      onStop = () => resolve({ kind: "stopped" });
      turn.addEventListener("abort", onStop, { once: true });
    });
    // The answer is the contract's (the bridge client checks it against browser_run's answer schema).
    const answered = start(gaveUp.signal).then((value): Ending => ({ kind: "result", value }));
    // A late answer or failure after we gave up has nobody to go to.
    answered.catch(() => undefined);
    try {
      const ending = await Promise.race([answered, settled]);
      if (ending.kind !== "result") gaveUp.abort(new Error(ending.kind));
      return ending;
    } finally {
      clearTimeout(timer);
      if (onStop) turn.removeEventListener("abort", onStop);
    }
  }

  return {
    async run(presetId, code, signal) {
      const ending = await call((s) => invoke("browser_run", { presetId, code }, { signal: s }), signal);
      if (ending.kind === "stopped") return BROWSER_RESULT.turnStopped;
      if (ending.kind === "waited") return BROWSER_RESULT.unknown;
      return ending.value;
    },
    async guide(signal) {
      const ending = await call((s) => invoke("browser_guide", {}, { signal: s }), signal);
      if (ending.kind === "stopped") return BROWSER_RESULT.turnStopped;
      if (ending.kind === "waited") return BROWSER_RESULT.skillTimedOut;
      return ending.value;
    },
  };
}
