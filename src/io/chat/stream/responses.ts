import type { CallRunner } from "./calls.ts";
import { BackendError, parseData, streamErrorMessage } from "./http.ts";
import { hermesProgress } from "./progress.ts";
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
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === "string" ? v : "");

interface CallItem {
  itemId: string;
  callId: string;
  name: string;
  arguments: string;
  released: boolean;
  backend: boolean;
  position: number;
}

/** Item types a backend runs itself (hosted and MCP tools); shown as tool status only. */
const BACKEND_CALL = /_call$/;

/**
 * Reads one Responses stream. A function call runs once, on the first of output_item.added,
 * function_call_arguments.done or output_item.done that carries its complete arguments.
 */
export async function readResponsesResponse(
  events: AsyncIterable<SseEvent>,
  runner: CallRunner,
  onText: (delta: string) => void,
  emit: (e: EngineEvent) => void,
): Promise<ResponsesResult> {
  let text = "";
  let responseId: string | null = null;
  const reasoning = new Map<string, Record<string, unknown>>();
  const calls = new Map<string, CallItem>();
  const byIndex = new Map<number, CallItem>();
  const order = new Map<string, number>();
  let progressCount = 0;

  const track = (item: Obj, outputIndex: unknown): CallItem => {
    const itemId = str(item.id) || str(item.call_id) || `item_${calls.size}`;
    let call = calls.get(itemId);
    if (!call) {
      const isFunction = item.type === "function_call";
      const name = isFunction ? str(item.name) : str(item.name) || str(item.type);
      call = {
        itemId,
        callId: str(item.call_id) || itemId,
        name,
        arguments: "",
        released: false,
        backend: !isFunction || !runner.isClientTool(name),
        position: typeof outputIndex === "number" ? outputIndex : calls.size,
      };
      calls.set(itemId, call);
      byIndex.set(call.position, call);
      if (call.backend && name) emit({ type: "tool_status", call_id: call.callId, name, status: "running" });
    } else if (!call.name && str(item.name)) {
      // Some servers name the call only when the item completes.
      call.name = str(item.name);
      call.backend = item.type !== "function_call" || !runner.isClientTool(call.name);
    }
    return call;
  };

  const releaseWith = (call: CallItem, args: unknown) => {
    // A call runs once, and only when both its name and its complete arguments are known.
    if (call.released || typeof args !== "string" || !call.name) return;
    call.released = true;
    call.arguments = args;
    order.set(call.callId, call.position);
    runner.release(call.callId, call.name, args);
  };

  const finishItem = (item: Obj, outputIndex: unknown) => {
    if (item.type === "reasoning") {
      reasoning.set(str(item.id) || `rs_${reasoning.size}`, item);
      return;
    }
    if (item.type === "function_call" || BACKEND_CALL.test(str(item.type))) {
      const call = track(item, outputIndex);
      releaseWith(call, item.arguments ?? "");
      if (call.backend) emit({ type: "tool_status", call_id: call.callId, name: call.name, status: "done" });
    }
  };

  for await (const ev of events) {
    if (ev.data === "[DONE]") break;
    const payload = parseData(ev.data);
    const type = isObj(payload) && typeof payload.type === "string" ? payload.type : ev.event;
    if (!isObj(payload)) {
      if (ev.event === "error") throw new BackendError(`backend error: ${streamErrorMessage(ev.data)}`);
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
      case "response.output_text.delta": {
        const delta = str(payload.delta);
        if (delta) {
          text += delta;
          onText(delta);
        }
        break;
      }
      case "response.output_item.added": {
        const item = payload.item;
        if (!isObj(item)) break;
        if (item.type === "function_call" || BACKEND_CALL.test(str(item.type))) {
          const call = track(item, payload.output_index);
          // An added item carries complete arguments only when the provider sends them whole.
          if (str(item.arguments)) releaseWith(call, item.arguments);
        }
        break;
      }
      case "response.function_call_arguments.delta": {
        const call = calls.get(str(payload.item_id)) ?? byIndex.get(payload.output_index as number);
        if (call && !call.released) call.arguments += str(payload.delta);
        break;
      }
      case "response.function_call_arguments.done": {
        const call = calls.get(str(payload.item_id)) ?? byIndex.get(payload.output_index as number);
        if (call) releaseWith(call, payload.arguments);
        break;
      }
      case "response.output_item.done": {
        if (isObj(payload.item)) finishItem(payload.item, payload.output_index);
        break;
      }
      case "function_call": {
        // A bare function_call item as its own event (seen from minimal servers).
        finishItem(payload, undefined);
        break;
      }
      case "response.completed":
      case "response.done":
      case "response.incomplete": {
        const response = isObj(payload.response) ? payload.response : {};
        if (str(response.id)) responseId = str(response.id);
        // A server that streams no items still lists them in the final response.
        const output = Array.isArray(response.output) ? response.output : [];
        output.forEach((item, i) => {
          if (!isObj(item)) return;
          if (item.type === "message" && !text) {
            const said = messageText(item);
            if (said) {
              text += said;
              onText(said);
            }
          } else if (!calls.has(str(item.id) || str(item.call_id)) && item.type !== "reasoning") {
            finishItem(item, i);
          } else if (item.type === "reasoning" && !reasoning.has(str(item.id))) {
            finishItem(item, i);
          }
        });
        break;
      }
      case "response.failed":
      case "error":
        throw new BackendError(`backend error: ${streamErrorMessage(payload)}`);
      case "hermes.tool.progress": {
        const status = hermesProgress(payload, `hermes_${++progressCount}`);
        if (status) emit(status);
        break;
      }
      default:
        break;
    }
  }
  return { text, responseId, reasoning: [...reasoning.values()], order };
}

function messageText(item: Obj): string {
  const content = Array.isArray(item.content) ? item.content : [];
  return content
    .map((c) => (isObj(c) && (c.type === "output_text" || c.type === "text") ? str(c.text) : ""))
    .join("");
}
