import type { ClientTool, ToolCallContext, ToolResult } from "../tools/client-tools.ts";
import { errorMessage } from "./stream-helpers.ts";

/** A tool call parsed from the stream. */
export interface ParsedArgs {
  /** The arguments object, or null when the JSON did not parse. */
  args: Record<string, unknown> | null;
  /** The parse failure's result string, when the JSON did not parse. */
  error: string | null;
}

/**
 * Parses a call's arguments JSON. The empty string is not JSON: it fails like any other unparseable text
 * (docs/client-tools.md).
 */
export function parseArguments(raw: string): ParsedArgs {
  try {
    const v: unknown = JSON.parse(raw);
    if (v && typeof v === "object" && !Array.isArray(v))
      return { args: v as Record<string, unknown>, error: null };
    return { args: null, error: "error: arguments JSON parse failed: arguments are not a JSON object" };
  } catch (e) {
    return { args: null, error: `error: arguments JSON parse failed: ${errorMessage(e)}` };
  }
}

/** Runs one client call: the tool's result, or `error: <message>` when it throws. */
export async function runClientCall(
  tool: ClientTool,
  args: Record<string, unknown>,
  ctx: ToolCallContext,
): Promise<ToolResult> {
  try {
    return await tool.run(args, ctx);
  } catch (e) {
    return `error: ${errorMessage(e)}`;
  }
}
