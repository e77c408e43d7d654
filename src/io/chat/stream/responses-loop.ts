/**
 * A Responses turn (docs/client-tools.md "Tool-call round trip"): chained on the previous turn's last response,
 * with the outputs it left unanswered ahead of the user's message; then one response after another while the
 * model asks for results, up to the round-trip cap. A server that no longer holds the chained response gets one
 * retry without it. The calls a turn leaves unanswered are kept for the next turn.
 */
import type { ToolResult } from "../tools/client-tools.ts";
import type { AnsweredCall } from "./calls.ts";
import { BackendError } from "./http.ts";
import { type ResponsesResult, readResponsesResponse } from "./responses.ts";
import { joinUrl, MAX_TOOL_ROUND_TRIPS } from "./stream-helpers.ts";
import { type Obj, shouldAnswer, type TurnRun, toolsKey, withModel } from "./turn-run.ts";
import type { ResponsesOutputPart, UnansweredOutput } from "./types.ts";

/** The conversation a Responses turn chains on, updated when the turn ends. */
export interface ResponsesChain {
  /** The id the next turn chains on. */
  previousResponseId: string | null;
  /** Outputs for the calls the chained response left unanswered. */
  pendingOutputs: UnansweredOutput[];
}

export interface ResponsesTurnRequest {
  /** The base URL (the broker's, when it owns the tools). */
  baseUrl: string;
  model?: string;
  /** The persona: `instructions`. */
  instructions?: string;
  /** The tools[] of every request of the turn. */
  declared: Obj[];
  /** The turn's client context, a system input item before the user item. */
  context?: string;
}

/** Runs the turn's responses and round trips, then records where the next turn chains on. */
export async function runResponsesTurn(
  run: TurnRun,
  chain: ResponsesChain,
  req: ResponsesTurnRequest,
): Promise<void> {
  const url = joinUrl(req.baseUrl, "responses");
  let chainId = chain.previousResponseId;
  const newItems: Obj[] = [];
  if (req.context) newItems.push({ role: "system", content: req.context });
  newItems.push({ role: "user", content: run.input.text });
  let original: Obj[] = chainId
    ? [...chain.pendingOutputs.map((o) => ({ ...o })), ...newItems]
    : [...newItems];
  const roundItems: Obj[] = [];
  let retried = false;
  for (;;) {
    const runner = run.newResponse();
    const body = withModel(req.model, {
      input: [...original, ...roundItems],
      ...(req.instructions ? { instructions: req.instructions } : {}),
      ...toolsKey(req.declared),
      ...(chainId ? { previous_response_id: chainId } : {}),
      stream: true,
    });
    let res: ResponsesResult;
    try {
      res = await readResponsesResponse(await run.request(url, body), runner, run.onText, run.emit);
    } catch (e) {
      // A server that no longer holds the chained response: reset the chain, retry once without the id.
      if (chainId && !retried && isMissingResponse(e)) {
        retried = true;
        chainId = null;
        chain.previousResponseId = null;
        chain.pendingOutputs = [];
        original = [...newItems];
        continue;
      }
      throw e;
    }
    if (res.responseId) run.responseId = res.responseId;
    run.incomplete = res.incomplete;
    const answered = await runner.settle();
    const sendBack = shouldAnswer(answered, res.text === "");
    if (!sendBack || run.roundTrips >= MAX_TOOL_ROUND_TRIPS || run.signal.aborted) {
      run.unanswered = answered.map((c) => ({
        type: "function_call_output",
        call_id: c.callId,
        output: responsesOutput(c.result),
      }));
      break;
    }
    run.roundTrips++;
    roundItems.push(...responsesRoundTrip(res, answered));
  }
  chain.previousResponseId = run.responseId;
  chain.pendingOutputs = run.unanswered;
}

/** A 404 (or OpenAI's 400 previous_response_not_found) for the chained id. */
function isMissingResponse(e: unknown): boolean {
  if (!(e instanceof BackendError)) return false;
  if (e.status === 404) return true;
  // OpenAI answers 400 previous_response_not_found for an expired id.
  return e.status === 400 && /previous_response/i.test(e.body ?? "") && /not.?found/i.test(e.body ?? "");
}

/** A result as function_call_output's output: the string, or input_text then input_image parts. */
function responsesOutput(result: ToolResult): string | ResponsesOutputPart[] {
  if (typeof result === "string") return result;
  return [
    { type: "input_text", text: result.text },
    ...result.images.map((url) => ({
      type: "input_image" as const,
      image_url: url,
      detail: "auto" as const,
    })),
  ];
}

/**
 * The input items a round trip adds: the assistant's text, the response's reasoning, each executed call in the
 * order the response produced them, then one output per call.
 */
function responsesRoundTrip(res: ResponsesResult, answered: AnsweredCall[]): Obj[] {
  const items: Obj[] = [];
  if (res.text) items.push({ role: "assistant", content: res.text });
  items.push(...res.reasoning);
  const calls = [...answered].sort((a, b) => (res.order.get(a.callId) ?? 0) - (res.order.get(b.callId) ?? 0));
  for (const c of calls) {
    items.push({ type: "function_call", call_id: c.callId, name: c.name, arguments: c.rawArguments });
  }
  for (const c of calls) {
    items.push({ type: "function_call_output", call_id: c.callId, output: responsesOutput(c.result) });
  }
  return items;
}
