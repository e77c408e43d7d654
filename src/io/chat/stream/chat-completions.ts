import type { CallRunner } from "./calls.ts";
import { type BackendError, parseData, streamError } from "./http.ts";
import { hermesProgress } from "./progress.ts";
import type { SseEvent } from "./sse.ts";
import type { EngineEvent } from "./types.ts";

/** What one streamed chat.completion response produced. */
export interface ChatResponseResult {
  text: string;
  finishReason: string | null;
  /**
   * The error the server ended the response with (an error object or `event: error` inside the stream, or
   * finish_reason "error"); the held calls were still released. The turn ends as an error with it.
   */
  error: BackendError | null;
}

interface HeldCall {
  index: number;
  id: string;
  name: string;
  arguments: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Reads one Chat Completions stream: speech deltas go to onText at once; tool-call fragments are held per
 * index until a chunk carries a finish_reason (or the stream ends), then released in index order. Every
 * finish counts: finish_reason "error", an error inside the stream and the end of the stream release the
 * held calls too, and the reader then returns the error instead of throwing it.
 */
export async function readChatResponse(
  events: AsyncIterable<SseEvent>,
  runner: CallRunner,
  onText: (delta: string) => void,
  emit: (e: EngineEvent) => void,
): Promise<ChatResponseResult> {
  let text = "";
  let finishReason: string | null = null;
  let held = new Map<string, HeldCall>();
  let releasedCount = 0;
  let progressCount = 0;

  const release = () => {
    const calls = [...held.values()].sort((a, b) => a.index - b.index);
    held = new Map();
    for (const c of calls) {
      releasedCount++;
      // A second call under an id already released is dropped whole: no cue, no run, no status.
      if (runner.release(c.id, c.name, c.arguments) && !runner.isClientTool(c.name))
        emit({ type: "tool_status", call_id: c.id, name: c.name, status: "done" });
    }
  };

  const hold = (fragment: Obj, position: number) => {
    const fn = isObj(fragment.function) ? fragment.function : {};
    const id = typeof fragment.id === "string" && fragment.id ? fragment.id : undefined;
    const index = typeof fragment.index === "number" ? fragment.index : undefined;
    // Key by index (the documented way); a provider that omits it is keyed by id, else by position.
    const key = index !== undefined ? `i${index}` : id !== undefined ? `id:${id}` : `p${position}`;
    let call = held.get(key);
    if (!call) {
      const at = index ?? held.size + releasedCount;
      call = { index: at, id: id ?? `call_${at}`, name: "", arguments: "" };
      held.set(key, call);
    } else if (id && call.id.startsWith("call_") && call.id !== id && !call.name) {
      call.id = id;
    }
    const name = typeof fn.name === "string" ? fn.name : "";
    // Names arrive whole; a provider repeating the name on every fragment must not double it.
    if (name && call.name !== name)
      call.name = call.name && !call.name.endsWith(name) ? call.name + name : name;
    const args = fn.arguments;
    if (typeof args === "string") call.arguments += args;
    else if (isObj(args)) call.arguments = JSON.stringify(args);
  };

  let error: BackendError | null = null;
  for await (const ev of events) {
    if (ev.data === "[DONE]") break;
    const payload = parseData(ev.data);
    if (ev.event === "error") {
      error = streamError(payload ?? ev.data);
      break;
    }
    if (ev.event === "hermes.tool.progress" || (isObj(payload) && payload.type === "hermes.tool.progress")) {
      const status = hermesProgress(payload, `hermes_${++progressCount}`);
      if (status) emit(status);
      continue;
    }
    if (ev.event && ev.event !== "message" && !ev.event.startsWith("chat.completion")) continue;
    if (!isObj(payload)) continue;
    // OpenRouter's mid-stream failure: a top-level error object beside a choice with finish_reason "error",
    // and no [DONE]. The chunk's choice is still read (its finish releases the held calls); reading stops.
    const failed = payload.error !== undefined && payload.error !== null;
    if (failed) error = streamError(payload);
    const choices = Array.isArray(payload.choices) ? payload.choices : [];
    const choice = choices.find((c) => isObj(c) && (c.index ?? 0) === 0) as Obj | undefined;
    if (!choice) {
      if (failed) break;
      continue;
    }
    const delta = isObj(choice.delta) ? choice.delta : isObj(choice.message) ? choice.message : {};
    if (typeof delta.content === "string" && delta.content) {
      text += delta.content;
      onText(delta.content);
    }
    if (Array.isArray(delta.tool_calls)) {
      delta.tool_calls.forEach((f, i) => {
        if (isObj(f)) hold(f, i);
      });
    } else if (isObj(delta.function_call)) {
      hold({ index: 0, function: delta.function_call }, 0);
    }
    if (typeof choice.finish_reason === "string" && choice.finish_reason) {
      finishReason = choice.finish_reason;
      release();
    }
    if (failed) break;
  }
  release();
  if (!error && finishReason === "error") error = streamError("the response ended with finish_reason error");
  return { text, finishReason, error };
}
