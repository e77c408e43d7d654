/**
 * The renderer's side of the browser tool: invokes the host's browser_run / browser_guide commands, waits at most
 * the client's 32 s (the host's lock wait included), and answers a stopped turn at once.
 */
import { z } from "zod";
import type { ToolResult } from "../chat/tools/client-tools.ts";
import { BROWSER_RESULT, BROWSER_TIMINGS } from "./results.ts";

/** Invokes a host command over the bridge (Tauri's invoke); the signal tells the host its caller stopped waiting. */
export type BrowserInvoke = (
  command: string,
  args: unknown,
  opts?: { signal?: AbortSignal },
) => Promise<unknown>;

/** Runs the browser tool's two commands on the host. */
export interface BrowserRelay {
  /** Runs code in the preset's task space; the result string, or text with images. */
  run(presetId: string, code: string, signal: AbortSignal): Promise<ToolResult>;
  /** Returns ego lite's guide, or the guide's error string. */
  guide(signal: AbortSignal): Promise<ToolResult>;
}

// The host is a separate process: check what comes back before handing it to the model.
const HostResult = z.union([z.string(), z.object({ text: z.string(), images: z.array(z.string()) })]);

type Ending = { kind: "result"; value: unknown } | { kind: "stopped" } | { kind: "waited" };

/** Creates the relay over the bridge's invoke; waitMs is the client's wait (32 s by default). */
export function createBrowserRelay(invoke: BrowserInvoke, options: { waitMs?: number } = {}): BrowserRelay {
  const waitMs = options.waitMs ?? BROWSER_TIMINGS.waitMs;

  // Races the command against the turn's stop and the client's wait; the host hears of either through `signal`,
  // and a run already started goes on to its end there (it is never killed from here).
  async function call(command: string, args: unknown, turn: AbortSignal): Promise<Ending> {
    if (turn.aborted) return { kind: "stopped" };
    const gaveUp = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onStop: (() => void) | undefined;
    const settled = new Promise<Ending>((resolve) => {
      timer = setTimeout(() => resolve({ kind: "waited" }), waitMs);
      onStop = () => resolve({ kind: "stopped" });
      turn.addEventListener("abort", onStop, { once: true });
    });
    const answered = invoke(command, args, { signal: gaveUp.signal }).then(
      (value): Ending => ({ kind: "result", value }),
    );
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

  function hostResult(value: unknown): ToolResult {
    const parsed = HostResult.safeParse(value);
    if (!parsed.success) throw new Error("browser: the host answered an unexpected result");
    return parsed.data;
  }

  return {
    async run(presetId, code, signal) {
      const ending = await call("browser_run", { presetId, code }, signal);
      if (ending.kind === "stopped") return BROWSER_RESULT.turnStopped;
      if (ending.kind === "waited") return BROWSER_RESULT.unknown;
      return hostResult(ending.value);
    },
    async guide(signal) {
      const ending = await call("browser_guide", {}, signal);
      if (ending.kind === "stopped") return BROWSER_RESULT.turnStopped;
      if (ending.kind === "waited") return BROWSER_RESULT.skillTimedOut;
      return hostResult(ending.value);
    },
  };
}
