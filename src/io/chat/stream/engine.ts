import { brokerOwnsTools } from "../broker/broker-tool-owner.ts";
import type { ClientTool, ToolResult } from "../tools/client-tools.ts";
import { declareTools } from "../tools/declare.ts";
import { type AnsweredCall, CallRunner } from "./calls.ts";
import { readChatResponse } from "./chat-completions.ts";
import { BackendError, postJson } from "./http.ts";
import { readResponsesResponse } from "./responses.ts";
import { readSse, type SseEvent, StreamStalledError } from "./sse.ts";
import { bodyStart, errorMessage, joinUrl, MAX_TOOL_ROUND_TRIPS, speechSeparator } from "./stream-helpers.ts";
import type {
  EngineEvent,
  EngineOptions,
  ResponsesOutputPart,
  TurnEnd,
  TurnError,
  TurnInput,
  TurnOutcome,
  UnansweredOutput,
} from "./types.ts";

type Obj = Record<string, unknown>;

/** The note a Chat Completions tool message carries when its images follow in the next user message. */
export const IMAGE_FOLLOWS_NOTE = "(the image follows in the next user message)";

/** A transcript entry: what the user and the character said, all the next Chat Completions turn carries. */
export interface TranscriptEntry {
  role: "user" | "assistant";
  content: string;
}

/** The conversation state one engine keeps between turns. */
export interface EngineSession {
  /** Chat Completions: user and assistant speech, rebuilt into each request. */
  transcript: TranscriptEntry[];
  /** Responses: the id the next turn chains on. */
  previousResponseId: string | null;
  /** Responses: outputs for the calls the chained response left unanswered. */
  pendingOutputs: UnansweredOutput[];
}

export interface ChatEngine {
  readonly session: EngineSession;
  /** Runs one turn to its end; never throws (failures end the turn as `error`). */
  runTurn(input: TurnInput): Promise<TurnEnd>;
  /** Forgets the conversation (transcript, chained id and stored outputs). */
  reset(): void;
}

const DEFAULT_IDLE_MS = 120_000;

/** Creates the streaming engine for one character's conversation over Chat Completions or Responses. */
export function createChatEngine(opts: EngineOptions): ChatEngine {
  const fetchFn = opts.fetch ?? fetch;
  const session: EngineSession = { transcript: [], previousResponseId: null, pendingOutputs: [] };
  let requestCount = 0;
  let turnCount = 0;
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
  const broker = brokerOwnsTools(opts.transport, opts.brokerBaseUrl);

  async function runTurn(input: TurnInput): Promise<TurnEnd> {
    const emit = (e: EngineEvent) => input.onEvent?.(e);
    const turnId = input.turnId ?? `turn_${++turnCount}_${Date.now().toString(36)}`;
    const signal = input.signal ?? new AbortController().signal;
    // The broker's backend owns the tools: the client declares none and answers none.
    const tools: ClientTool[] = broker ? [] : input.tools;
    const registry = new Map(tools.map((t) => [t.name, t]));
    const declared = declareTools(tools, opts.transport);
    let turnText = "";
    let roundTrips = 0;
    let responseId: string | null = null;
    let unanswered: UnansweredOutput[] = [];
    // Why the turn's last response was cut off (Responses), or null.
    let incomplete: string | null = null;

    // True until the current response's first text: the separator between responses goes there.
    let responseStart = true;
    const onText = (delta: string) => {
      const sep = responseStart ? speechSeparator(turnText, delta) : "";
      responseStart = false;
      if (sep) {
        turnText += sep;
        emit({ type: "text", delta: sep });
      }
      turnText += delta;
      emit({ type: "text", delta });
    };

    const stream = async (url: string, body: Obj) => {
      // Nothing goes out after Stop, so every request the turn reports is one that was sent.
      signal.throwIfAborted();
      emit({ type: "request", n: ++requestCount, url, body });
      const res = await postJson(fetchFn, url, body, headers, signal);
      // A server that ignores stream: true answers one JSON document: read it as one final event.
      if (/\bjson\b/i.test(res.headers.get("content-type") ?? "")) {
        return wholeResponse(await res.text(), opts.transport);
      }
      return readSse(res.body!, { idleMs: opts.idleTimeoutMs ?? DEFAULT_IDLE_MS, signal });
    };
    // The current response's calls, so a turn that ends in an error still reports the calls already running.
    let current: CallRunner | null = null;
    const newRunner = () => {
      current = new CallRunner(
        registry,
        { signal, turnId, presetId: input.presetId },
        emit,
        () => turnText.length,
      );
      return current;
    };

    const end = (outcome: TurnOutcome, failure: TurnError | null): TurnEnd => {
      // The next Chat Completions turn is rebuilt from speech: keep the exchange unless nothing came of it.
      if (opts.transport === "chat" && (turnText || outcome === "spoken" || outcome === "silent")) {
        session.transcript.push({ role: "user", content: input.text });
        if (turnText) session.transcript.push({ role: "assistant", content: turnText });
      }
      const e: TurnEnd = {
        type: "turn_end",
        outcome,
        text: turnText,
        round_trips: roundTrips,
        response_id: opts.transport === "responses" ? responseId : null,
        error: failure?.message ?? null,
        ...(failure ? { failure } : {}),
        unanswered,
        ...(incomplete !== null && (outcome === "spoken" || outcome === "silent")
          ? { incomplete: { reason: incomplete } }
          : {}),
      };
      emit(e);
      return e;
    };

    try {
      // The client context describes the tools this engine declares: none when the broker owns them.
      const context = input.contextFor ? await input.contextFor(tools) : input.context;
      if (opts.transport === "chat") {
        const messages: Obj[] = [];
        if (opts.instructions) messages.push({ role: "system", content: opts.instructions });
        messages.push(...session.transcript.map((m) => ({ ...m })));
        if (context) messages.push({ role: "system", content: context });
        messages.push({ role: "user", content: input.text });
        const url = joinUrl(opts.baseUrl, "chat/completions");
        for (;;) {
          responseStart = true;
          const runner = newRunner();
          const body = withModel(opts.model, { messages, ...toolsKey(declared), stream: true });
          const res = await readChatResponse(await stream(url, body), runner, onText, emit);
          const answered = await runner.settle();
          // The held calls ran under the usual rules; a response that ended in an error ends the turn with it.
          if (res.error) throw res.error;
          // "function_call" is the legacy spelling some servers still send.
          const waiting =
            res.text === "" && (res.finishReason === "tool_calls" || res.finishReason === "function_call");
          // A Stop that came while the calls ran sends no round trip: round_trips counts requests sent.
          if (!shouldAnswer(answered, waiting) || roundTrips >= MAX_TOOL_ROUND_TRIPS || signal.aborted) break;
          roundTrips++;
          messages.push(...chatRoundTrip(res.text, answered));
        }
      } else {
        const url = joinUrl(broker ? opts.brokerBaseUrl! : opts.baseUrl, "responses");
        let chainId = session.previousResponseId;
        const newItems: Obj[] = [];
        if (context) newItems.push({ role: "system", content: context });
        newItems.push({ role: "user", content: input.text });
        let original: Obj[] = chainId
          ? [...session.pendingOutputs.map((o) => ({ ...o })), ...newItems]
          : [...newItems];
        const roundItems: Obj[] = [];
        let retried = false;
        for (;;) {
          responseStart = true;
          const runner = newRunner();
          const body = withModel(opts.model, {
            input: [...original, ...roundItems],
            ...(opts.instructions ? { instructions: opts.instructions } : {}),
            ...toolsKey(declared),
            ...(chainId ? { previous_response_id: chainId } : {}),
            stream: true,
          });
          let res: Awaited<ReturnType<typeof readResponsesResponse>>;
          try {
            res = await readResponsesResponse(await stream(url, body), runner, onText, emit);
          } catch (e) {
            // A server that no longer holds the chained response: reset the chain, retry once without the id.
            if (chainId && !retried && isMissingResponse(e)) {
              retried = true;
              chainId = null;
              session.previousResponseId = null;
              session.pendingOutputs = [];
              original = [...newItems];
              continue;
            }
            throw e;
          }
          if (res.responseId) responseId = res.responseId;
          incomplete = res.incomplete;
          const answered = await runner.settle();
          const sendBack = shouldAnswer(answered, res.text === "");
          if (!sendBack || roundTrips >= MAX_TOOL_ROUND_TRIPS || signal.aborted) {
            unanswered = answered.map((c) => ({
              type: "function_call_output",
              call_id: c.callId,
              output: responsesOutput(c.result),
            }));
            break;
          }
          roundTrips++;
          roundItems.push(...responsesRoundTrip(res.text, res.reasoning, answered, res.order));
        }
        session.previousResponseId = responseId;
        session.pendingOutputs = unanswered;
      }
      if (signal.aborted) return end("stopped", null);
      return end(turnText.trim() ? "spoken" : "silent", null);
    } catch (e) {
      if (signal.aborted) return end("stopped", null);
      // Calls released before the failure (a Responses call run at its event, then response.failed) finish
      // and report their result before the turn's end, never after it.
      await (current as CallRunner | null)?.settle();
      return end("error", turnError(e));
    }
  }

  return {
    session,
    runTurn,
    reset() {
      session.transcript = [];
      session.previousResponseId = null;
      session.pendingOutputs = [];
    },
  };
}

/** One non-streamed answer as the single event a stream would have ended with. */
async function* wholeResponse(text: string, transport: "chat" | "responses"): AsyncGenerator<SseEvent> {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new BackendError(
      `backend answered a body that is neither an event stream nor JSON: ${bodyStart(text)}`,
    );
  }
  const obj = doc !== null && typeof doc === "object" ? (doc as Obj) : null;
  if (obj && "error" in obj) yield { event: undefined, data: text };
  else if (transport === "responses" && obj && !("type" in obj)) {
    yield { event: undefined, data: JSON.stringify({ type: "response.completed", response: doc }) };
  } else yield { event: undefined, data: text };
}

/**
 * Whether a response's results go back to the model: a tool that answers a question ran, or only cue-only
 * tools ran and the model stopped to wait for them.
 */
function shouldAnswer(answered: AnsweredCall[], waitingOnCues: boolean): boolean {
  if (answered.length === 0) return false;
  if (answered.some((c) => !c.oneWay)) return true;
  return waitingOnCues;
}

function withModel(model: string | undefined, body: Obj): Obj {
  return model ? { model, ...body } : body;
}

/** A turn-ending throw as the turn's typed error. */
function turnError(e: unknown): TurnError {
  if (e instanceof BackendError) return e.failure;
  if (e instanceof StreamStalledError) return { kind: "stalled", message: e.message };
  const detail = errorMessage(e);
  return { kind: "other", message: `backend error: ${detail}`, detail };
}

function toolsKey(declared: Obj[]): Obj {
  return declared.length ? { tools: declared } : {};
}

function isMissingResponse(e: unknown): boolean {
  if (!(e instanceof BackendError)) return false;
  if (e.status === 404) return true;
  // OpenAI answers 400 previous_response_not_found for an expired id.
  return e.status === 400 && /previous_response/i.test(e.body ?? "") && /not.?found/i.test(e.body ?? "");
}

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

function responsesRoundTrip(
  text: string,
  reasoning: Obj[],
  answered: AnsweredCall[],
  order: Map<string, number>,
): Obj[] {
  const items: Obj[] = [];
  if (text) items.push({ role: "assistant", content: text });
  items.push(...reasoning);
  const calls = [...answered].sort((a, b) => (order.get(a.callId) ?? 0) - (order.get(b.callId) ?? 0));
  for (const c of calls) {
    items.push({ type: "function_call", call_id: c.callId, name: c.name, arguments: c.rawArguments });
  }
  for (const c of calls) {
    items.push({ type: "function_call_output", call_id: c.callId, output: responsesOutput(c.result) });
  }
  return items;
}
