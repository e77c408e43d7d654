/**
 * The client tool registry and the ClientTool type (spec: client-tools.md, "Adding a tool").
 * One file per tool exports its create<Name>Tool factory returning a ClientTool.
 */

/** The expression tool's name: the push transport carries its cues in segments instead of declaring it. */
export const GENERATE_EXPRESS = "generate_express";

/** A JSON Schema object as declared to the model (OpenAI function `parameters`). */
export type JsonSchema = { [key: string]: unknown };

/** An image result: text plus data URLs; the shape `look at: screen` and `browser` use on every transport. */
export interface ImageResult {
  text: string;
  images: string[];
}

/** What a tool answers: the exact result string, or text with images. */
export type ToolResult = string | ImageResult;

/** What a running call knows about its turn. */
export interface ToolCallContext {
  /** Aborts when the turn is stopped. */
  signal: AbortSignal;
  /** Identifies the turn, for tools that allow one call per turn. */
  turnId: string;
  /** The preset (character) of the calling window. */
  presetId: string;
}

export interface ClientTool {
  name: string;
  description: string;
  /** OpenAI function `parameters` schema. */
  parameters: JsonSchema;
  /** true only on a tool whose result tells the model nothing (cue-only, e.g. generate_express). */
  oneWay?: boolean;
  /** Set on a tool whose failure results do not start with `error:`; says whether a result is a failure. */
  failed?: (result: ToolResult) => boolean;
  /** The switch that gates execution (listed on the `tool switches:` line), if any. */
  switchId?: string;
  /** How long the caller waits for the result, in ms. */
  waitMs?: number;
  /** Runs the call; a throw becomes `error: <message>`. */
  run(args: Record<string, unknown>, ctx: ToolCallContext): Promise<ToolResult>;
}

/** The registry of one turn: generate_express followed by the tools the window hands over. */
export function createClientTools(
  generateExpress: ClientTool,
  windowTools: readonly ClientTool[],
): ClientTool[] {
  return [generateExpress, ...windowTools];
}
