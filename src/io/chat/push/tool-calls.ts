/**
 * The push transport's tool-call consumer: answers a tool_call frame with a tool_result frame, running the
 * call like the request transports do (runClientCall).
 */
import { parseArguments, runClientCall } from "../stream/client-tool-run.ts";
import type { ClientTool, ToolCallContext, ToolResult } from "../tools/client-tools.ts";
import type { ClientFrame, ToolCallFrame } from "./frames.ts";

export const UNKNOWN_TOOL = "error: unknown tool";
/** Default wait for a tool that sets no waitMs. */
export const DEFAULT_PUSH_WAIT_MS = 30_000;

/** The wait a tool's calls get on push (hello.tools[].wait_ms). */
export function pushWaitMs(tool: ClientTool): number {
  return tool.waitMs ?? DEFAULT_PUSH_WAIT_MS;
}

/** How many calls (turn_id, call_id) the push client remembers, to drop a repeated tool_call frame. */
export const REMEMBERED_CALLS = 1024;

/**
 * The calls a push client has taken, across reconnects: a call id is one call, so a second tool_call frame
 * with the same turn_id and call_id is dropped (not run, no tool_result), as on the request transports.
 * The oldest entries are forgotten past REMEMBERED_CALLS.
 */
export class TakenCalls {
  private readonly keys = new Set<string>();

  /** true the first time this call is seen; false for a repeat. */
  take(turnId: string, callId: string): boolean {
    const key = `${turnId}\u0000${callId}`;
    if (this.keys.has(key)) return false;
    this.keys.add(key);
    if (this.keys.size > REMEMBERED_CALLS) this.keys.delete(this.keys.values().next().value as string);
    return true;
  }
}

/** Runs one call against the window's declared tools and returns the result with its parsed arguments. */
export async function consumeToolCall(
  frame: ToolCallFrame,
  declared: ReadonlyMap<string, ClientTool>,
  ctx: Omit<ToolCallContext, "turnId">,
): Promise<{ args: Record<string, unknown> | null; result: ToolResult; reply: ClientFrame }> {
  const tool = declared.get(frame.name);
  const raw = frame.arguments;
  const parsed =
    raw === undefined
      ? { args: {}, error: null }
      : typeof raw === "string"
        ? parseArguments(raw)
        : { args: raw, error: null };
  let result: ToolResult;
  if (!tool) result = UNKNOWN_TOOL;
  else if (!parsed.args) result = parsed.error as string;
  else {
    // A call answered is over: when the wait passes, its work is aborted too.
    const waited = new AbortController();
    const signal = AbortSignal.any([ctx.signal, waited.signal]);
    result = await withWait(
      runClientCall(tool, parsed.args, { ...ctx, signal, turnId: frame.turn_id }),
      pushWaitMs(tool),
      () => waited.abort(),
    );
  }
  const reply: ClientFrame =
    typeof result === "string"
      ? { type: "tool_result", turn_id: frame.turn_id, call_id: frame.call_id, result }
      : {
          type: "tool_result",
          turn_id: frame.turn_id,
          call_id: frame.call_id,
          result: result.text,
          images: result.images,
        };
  return { args: tool ? parsed.args : (parsed.args ?? null), result, reply };
}

function withWait(run: Promise<ToolResult>, waitMs: number, onTimeout: () => void): Promise<ToolResult> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<ToolResult>((resolve) => {
    timer = setTimeout(() => {
      resolve(`error: timed out after ${Math.round(waitMs / 1000)} s`);
      onTimeout();
    }, waitMs);
  });
  return Promise.race([run, timeout]).finally(() => clearTimeout(timer));
}

/** At most this many results wait for a reconnect; the oldest goes first. */
export const MAX_HELD_RESULTS = 64;
/** A held result older than this is not sent. */
export const HELD_RESULT_MS = 5 * 60_000;

/**
 * tool_result frames of calls that finished while the connection was down, sent right after the next
 * welcome in the order the calls finished (docs/push-transport.md, "A call in flight when the connection drops").
 */
export class HeldResults {
  private readonly held: { frame: ClientFrame; at: number }[] = [];

  hold(frame: ClientFrame, now: number): void {
    this.held.push({ frame, at: now });
    if (this.held.length > MAX_HELD_RESULTS) this.held.shift();
  }

  /** Takes every result still fresh at `now`, oldest first, and forgets the rest. */
  drain(now: number): ClientFrame[] {
    return this.held.splice(0).flatMap((h) => (now - h.at <= HELD_RESULT_MS ? [h.frame] : []));
  }
}
