/**
 * A Chat Completions turn (docs/client-tools.md "Tool-call round trip"): the conversation rebuilt from the
 * transcript, then one response after another while the model asks for results, up to the round-trip cap; each
 * round trip appends the assistant message with its tool calls and one tool message per call.
 */
import type { AnsweredCall } from "./calls.ts";
import { readChatResponse } from "./chat-completions.ts";
import { joinUrl, MAX_TOOL_ROUND_TRIPS } from "./stream-helpers.ts";
import { type Obj, shouldAnswer, type TurnRun, toolsKey, withModel } from "./turn-run.ts";

/** The note a Chat Completions tool message carries when its images follow in the next user message. */
export const IMAGE_FOLLOWS_NOTE = "(the image follows in the next user message)";

/** A transcript entry: what the user and the character said, all the next Chat Completions turn carries. */
export interface TranscriptEntry {
  role: "user" | "assistant";
  content: string;
}

export interface ChatTurnRequest {
  baseUrl: string;
  model?: string;
  /** The persona: the first system message. */
  instructions?: string;
  /** The tools[] of every request of the turn. */
  declared: Obj[];
  transcript: readonly TranscriptEntry[];
  /** The turn's client context, a system message right before the user message. */
  context?: string;
}

/** Runs the turn's responses and round trips; the calls of each response run under the usual rules. */
export async function runChatTurn(run: TurnRun, req: ChatTurnRequest): Promise<void> {
  const messages: Obj[] = [];
  if (req.instructions) messages.push({ role: "system", content: req.instructions });
  messages.push(...req.transcript.map((m) => ({ ...m })));
  if (req.context) messages.push({ role: "system", content: req.context });
  messages.push({ role: "user", content: run.input.text });
  const url = joinUrl(req.baseUrl, "chat/completions");
  for (;;) {
    const runner = run.newResponse();
    const body = withModel(req.model, { messages, ...toolsKey(req.declared), stream: true });
    const res = await readChatResponse(await run.request(url, body), runner, run.onText, run.emit);
    const answered = await runner.settle();
    // The held calls ran under the usual rules; a response that ended in an error ends the turn with it.
    if (res.error) throw res.error;
    // The turn's last response decides whether the reply was cut off (the text so far stays spoken).
    run.incomplete =
      res.finishReason === "length" || res.finishReason === "content_filter" ? res.finishReason : null;
    // "function_call" is the legacy spelling some servers still send.
    const waiting =
      res.text === "" && (res.finishReason === "tool_calls" || res.finishReason === "function_call");
    // A Stop that came while the calls ran sends no round trip: round_trips counts requests sent.
    if (!shouldAnswer(answered, waiting) || run.roundTrips >= MAX_TOOL_ROUND_TRIPS || run.signal.aborted)
      return;
    run.roundTrips++;
    messages.push(...chatRoundTrip(res.text, answered));
  }
}

/** The messages a round trip appends: the assistant's text and tool calls, one tool message per call, images. */
function chatRoundTrip(text: string, answered: AnsweredCall[]): Obj[] {
  const out: Obj[] = [
    {
      role: "assistant",
      content: text || null,
      tool_calls: answered.map((c) => ({
        id: c.callId,
        type: "function",
        function: { name: c.name, arguments: c.rawArguments },
      })),
    },
  ];
  const images: string[] = [];
  for (const c of answered) {
    if (typeof c.result === "string") {
      out.push({ role: "tool", tool_call_id: c.callId, content: c.result });
    } else {
      const note = c.result.images.length ? `\n${IMAGE_FOLLOWS_NOTE}` : "";
      out.push({ role: "tool", tool_call_id: c.callId, content: `${c.result.text}${note}` });
      images.push(...c.result.images);
    }
  }
  if (images.length) {
    out.push({ role: "user", content: images.map((url) => ({ type: "image_url", image_url: { url } })) });
  }
  return out;
}
