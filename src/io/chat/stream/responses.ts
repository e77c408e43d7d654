import type { CallRunner } from "./calls.ts";
import { parseData, streamError } from "./http.ts";
import { hermesProgress } from "./progress.ts";
import { isObj, ResponseItems, str } from "./responses-items.ts";
import type { SseEvent } from "./sse.ts";
import type { EngineEvent } from "./types.ts";

/** What one streamed Responses response produced. */
export interface ResponsesResult {
  text: string;
  responseId: string | null;
  /** Reasoning items, as the round trip sends them back. */
  reasoning: Record<string, unknown>[];
  /** Output position of each released call id, to send calls back in the order the response produced them. */
  order: Map<string, number>;
  /** Why the response was cut off (`response.incomplete`'s `incomplete_details.reason`), or null when it was not. */
  incomplete: string | null;
}

type Obj = Record<string, unknown>;

/**
 * Reads one Responses stream. A call is one action however often the stream repeats it (ResponseItems): it runs
 * (and its cue plays) once, on the first of output_item.added, function_call_arguments.done, output_item.done or
 * response.completed's output that carries its complete arguments. A response cut off (response.incomplete)
 * reports why, and its cut call never runs.
 */
export async function readResponsesResponse(
  events: AsyncIterable<SseEvent>,
  runner: CallRunner,
  onText: (delta: string) => void,
  emit: (e: EngineEvent) => void,
): Promise<ResponsesResult> {
  let text = "";
  let responseId: string | null = null;
  let incomplete: string | null = null;
  let progressCount = 0;
  const items = new ResponseItems(runner, emit);
  const say = (delta: string) => {
    text += delta;
    onText(delta);
  };

  /** The final response: its id, whether it was cut off, and the items a server lists only there. */
  const finalResponse = (type: string | undefined, response: Obj) => {
    if (str(response.id)) responseId = str(response.id);
    const cut = type === "response.incomplete" || response.status === "incomplete";
    if (cut) incomplete = incompleteReason(response);
    const output = Array.isArray(response.output) ? response.output : [];
    output.forEach((item, i) => {
      if (!isObj(item)) return;
      if (item.type === "message") {
        // A server that streams no text still lists it in the final response.
        if (!text) say(messageText(item));
      } else if (item.type !== "reasoning" || !items.reasoning.has(str(item.id))) {
        // The same calls again, for servers that streamed them: finish knows them and does nothing. A response
        // cut off lists its cut call with partial arguments: only an item it says completed runs.
        items.finish(item, i, cut ? item.status === "completed" : item.status !== "incomplete");
      }
    });
  };

  for await (const ev of events) {
    if (ev.data === "[DONE]") break;
    const payload = parseData(ev.data);
    const type = isObj(payload) && typeof payload.type === "string" ? payload.type : ev.event;
    if (!isObj(payload)) {
      if (ev.event === "error") throw streamError(ev.data);
      continue;
    }
    switch (type) {
      case "response.created":
      case "response.in_progress":
      case "response.queued": {
        const id = isObj(payload.response) ? str(payload.response.id) : "";
        if (id) responseId = id;
        break;
      }
      case "response.output_text.delta":
        if (str(payload.delta)) say(str(payload.delta));
        break;
      case "response.output_item.added":
        if (isObj(payload.item)) items.added(payload.item, payload.output_index);
        break;
      case "response.function_call_arguments.delta":
        items.delta(payload);
        break;
      case "response.function_call_arguments.done":
        items.argumentsDone(payload);
        break;
      case "response.output_item.done":
        if (isObj(payload.item)) items.finish(payload.item, payload.output_index);
        break;
      case "function_call":
        // A bare function_call item as its own event (seen from minimal servers).
        items.finish(payload, undefined);
        break;
      case "response.completed":
      case "response.done":
      case "response.incomplete":
        finalResponse(type, isObj(payload.response) ? payload.response : {});
        break;
      case "response.failed":
      case "error":
        throw streamError(payload);
      case "hermes.tool.progress": {
        const status = hermesProgress(payload, `hermes_${++progressCount}`);
        if (status) emit(status);
        break;
      }
      default:
        break;
    }
  }
  return { text, responseId, reasoning: [...items.reasoning.values()], order: items.order, incomplete };
}

function messageText(item: Obj): string {
  const content = Array.isArray(item.content) ? item.content : [];
  return content
    .map((c) => (isObj(c) && (c.type === "output_text" || c.type === "text") ? str(c.text) : ""))
    .join("");
}

/** The reason a cut-off response gives (`incomplete_details.reason`); `unknown` when it names none. */
function incompleteReason(response: Obj): string {
  const details = isObj(response.incomplete_details) ? response.incomplete_details : {};
  return str(details.reason) || "unknown";
}
