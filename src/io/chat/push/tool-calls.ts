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
  else
    result = await withWait(
      runClientCall(tool, parsed.args, { ...ctx, turnId: frame.turn_id }),
      pushWaitMs(tool),
    );
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

function withWait(run: Promise<ToolResult>, waitMs: number): Promise<ToolResult> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<ToolResult>((resolve) => {
    timer = setTimeout(() => resolve(`error: timed out after ${Math.round(waitMs / 1000)} s`), waitMs);
  });
  return Promise.race([run, timeout]).finally(() => clearTimeout(timer));
}
