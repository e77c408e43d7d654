import type { CallRunner } from "./calls.ts";
import { parseData, streamError } from "./http.ts";
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
  /** Why the response was cut off (`response.incomplete`'s `incomplete_details.reason`), or null when it was not. */
  incomplete: string | null;
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
  /** Backend status already reported. */
  running: boolean;
  done: boolean;
  /** A second item under a call id an earlier item of this response holds: it is not run, played or shown. */
  duplicate: boolean;
}

/** Item types a backend runs itself (hosted and MCP tools); shown as tool status only. */
const BACKEND_CALL = /_call$/;

const isCallItem = (item: Obj) => item.type === "function_call" || BACKEND_CALL.test(str(item.type));

/**
 * Reads one Responses stream. A call is one action however often the stream repeats it: it runs (and its cue
 * plays) once, on the first of output_item.added, function_call_arguments.done, output_item.done or
 * response.completed's output that carries its complete arguments, and a backend-run call reports running
 * once and done once. An item is known again by its item id, else by its call_id (Hermes lists its items in
 * response.completed without ids), else by its output index. A second item with its own id under a call_id
 * already taken is a duplicate call: not run, no cue, no status, nothing sent back.
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
  const byItem = new Map<string, CallItem>();
  const byCall = new Map<string, CallItem>();
  const byIndex = new Map<number, CallItem>();
  const order = new Map<string, number>();
  let itemCount = 0;
  let progressCount = 0;
  let incomplete: string | null = null;

  const find = (item: Obj, outputIndex: unknown): CallItem | undefined => {
    const itemId = str(item.id);
    const callId = str(item.call_id);
    if (itemId && byItem.has(itemId)) return byItem.get(itemId);
    if (callId) {
      const known = byCall.get(callId);
      // Two items that both name their own, different ids are two calls, even under one call_id.
      if (known && !(itemId && known.itemId && known.itemId !== itemId)) return known;
      return undefined;
    }
    if (!itemId && typeof outputIndex === "number") return byIndex.get(outputIndex);
    return undefined;
  };

  const reportRunning = (call: CallItem) => {
    if (call.duplicate || !call.backend || !call.name || call.running) return;
    call.running = true;
    emit({ type: "tool_status", call_id: call.callId, name: call.name, status: "running" });
  };

  const track = (item: Obj, outputIndex: unknown): CallItem => {
    let call = find(item, outputIndex);
    if (!call) {
      const isFunction = item.type === "function_call";
      const name = isFunction ? str(item.name) : str(item.name) || str(item.type);
      const itemId = str(item.id);
      const callId = str(item.call_id) || itemId || `item_${itemCount}`;
      call = {
        itemId,
        callId,
        name,
        arguments: "",
        released: false,
        backend: !isFunction || !runner.isClientTool(name),
        position: typeof outputIndex === "number" ? outputIndex : itemCount,
        running: false,
        done: false,
        duplicate: byCall.has(callId),
      };
      itemCount++;
      if (itemId) byItem.set(itemId, call);
      if (!call.duplicate) byCall.set(callId, call);
      if (!byIndex.has(call.position)) byIndex.set(call.position, call);
    } else if (!call.name && str(item.name)) {
      // Some servers name the call only when the item completes.
      call.name = str(item.name);
      call.backend = item.type !== "function_call" || !runner.isClientTool(call.name);
    }
    if (!call.itemId && str(item.id)) {
      call.itemId = str(item.id);
      byItem.set(call.itemId, call);
    }
    reportRunning(call);
    return call;
  };

  const releaseWith = (call: CallItem, args: unknown) => {
    // A call runs once, and only when both its name and its complete arguments are known.
    if (call.duplicate || call.released || typeof args !== "string" || !call.name) return;
    call.released = true;
    call.arguments = args;
    order.set(call.callId, call.position);
    runner.release(call.callId, call.name, args);
  };

  /** An item listed whole; `complete` says whether its arguments may be taken as complete ones. */
  const finishItem = (item: Obj, outputIndex: unknown, complete = item.status !== "incomplete") => {
    if (item.type === "reasoning") {
      reasoning.set(str(item.id) || `rs_${reasoning.size}`, item);
      return;
    }
    if (!isCallItem(item)) return;
    const call = track(item, outputIndex);
    // A call cut off by the output limit is not a call: its partial arguments never run (docs/client-tools.md).
    if (complete) releaseWith(call, item.arguments ?? "");
    if (call.backend && !call.duplicate && !call.done) {
      call.done = true;
      emit({ type: "tool_status", call_id: call.callId, name: call.name, status: "done" });
    }
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
        if (isCallItem(item)) {
          const call = track(item, payload.output_index);
          // An added item carries complete arguments only when the provider sends them whole.
          if (str(item.arguments) && item.status !== "incomplete") releaseWith(call, item.arguments);
        }
        break;
      }
      case "response.function_call_arguments.delta": {
        const call = byItem.get(str(payload.item_id)) ?? byIndex.get(payload.output_index as number);
        if (call && !call.released) call.arguments += str(payload.delta);
        break;
      }
      case "response.function_call_arguments.done": {
        const call = byItem.get(str(payload.item_id)) ?? byIndex.get(payload.output_index as number);
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
        const cut = type === "response.incomplete" || response.status === "incomplete";
        if (cut) incomplete = incompleteReason(response);
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
          } else if (item.type !== "reasoning" || !reasoning.has(str(item.id))) {
            // The same calls again, for servers that streamed them: finishItem knows them and does nothing. A
            // response cut off lists its cut call with partial arguments: only an item it says completed runs.
            finishItem(item, i, cut ? item.status === "completed" : item.status !== "incomplete");
          }
        });
        break;
      }
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
  return { text, responseId, reasoning: [...reasoning.values()], order, incomplete };
}

/** The reason a cut-off response gives (`incomplete_details.reason`); `unknown` when it names none. */
function incompleteReason(response: Obj): string {
  const details = isObj(response.incomplete_details) ? response.incomplete_details : {};
  return str(details.reason) || "unknown";
}

function messageText(item: Obj): string {
  const content = Array.isArray(item.content) ? item.content : [];
  return content
    .map((c) => (isObj(c) && (c.type === "output_text" || c.type === "text") ? str(c.text) : ""))
    .join("");
}
