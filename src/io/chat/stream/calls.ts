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
   */
  release(callId: string, name: string, rawArguments: string): void {
    const parsed = parseArguments(rawArguments);
    if (isExpressName(name) && parsed.args) {
      this.emit({ type: "cue", call_id: callId, name, arguments: parsed.args, offset: this.textOffset() });
    }
    const tool = this.registry.get(name);
    if (!tool) return;
    const slot: AnsweredCall = { callId, name, rawArguments, result: "", oneWay: tool.oneWay === true };
    this.answered.push(slot);
    this.chain = this.chain.then(async () => {
      slot.result = parsed.args ? await runClientCall(tool, parsed.args, this.ctx) : (parsed.error as string);
      this.emit({ type: "tool_call", call_id: callId, name, arguments: parsed.args, result: slot.result });
    });
  }

  /** Waits until every released call has its result. */
  async settle(): Promise<AnsweredCall[]> {
    await this.chain;
    return this.answered;
  }
}
