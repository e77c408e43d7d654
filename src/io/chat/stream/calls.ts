import type { ClientTool, ToolCallContext, ToolResult } from "../tools/client-tools.ts";
import { parseArguments, runClientCall } from "./client-tool-run.ts";
import { isExpressName } from "./stream-helpers.ts";
import type { EngineEvent } from "./types.ts";

/** A call the client answered (the name is exactly in the registry). */
export interface AnsweredCall {
  callId: string;
  name: string;
  rawArguments: string;
  result: ToolResult;
  oneWay: boolean;
}

/**
 * Plays and runs the calls of one response, in the order they are released; use from both transports.
 * Cues play at release; results are collected for the round trip.
 */
export class CallRunner {
  readonly answered: AnsweredCall[] = [];
  private chain: Promise<void> = Promise.resolve();
  /** The call ids released in this response: a call id is one call. */
  private readonly released = new Set<string>();

  constructor(
    private readonly registry: Map<string, ClientTool>,
    private readonly ctx: ToolCallContext,
    private readonly emit: (e: EngineEvent) => void,
    private readonly textOffset: () => number,
  ) {}

  /** true when the name is answered by the client. */
  isClientTool(name: string): boolean {
    return this.registry.has(name);
  }

  /**
   * Releases one call with complete arguments: plays its cue at once (any name ending in generate_express),
   * then runs it after the calls released before it, when the registry holds that exact name.
   * Returns false, doing nothing, for a call id this response already released: a second call under one id
   * plays no cue, does not run, and sends no result (providers reject two results for one id).
   */
  release(callId: string, name: string, rawArguments: string): boolean {
    if (this.released.has(callId)) return false;
    this.released.add(callId);
    const parsed = parseArguments(rawArguments);
    if (isExpressName(name) && parsed.args) {
      this.emit({ type: "cue", call_id: callId, name, arguments: parsed.args, offset: this.textOffset() });
    }
    const tool = this.registry.get(name);
    if (!tool) return true;
    const slot: AnsweredCall = { callId, name, rawArguments, result: "", oneWay: tool.oneWay === true };
    this.answered.push(slot);
    this.chain = this.chain.then(async () => {
      slot.result = parsed.args ? await runClientCall(tool, parsed.args, this.ctx) : (parsed.error as string);
      this.emit({ type: "tool_call", call_id: callId, name, arguments: parsed.args, result: slot.result });
    });
    return true;
  }

  /** Waits until every released call has its result. */
  async settle(): Promise<AnsweredCall[]> {
    await this.chain;
    return this.answered;
  }
}
