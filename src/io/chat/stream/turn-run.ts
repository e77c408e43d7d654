/**
 * What both request transports' turn loops share (chat-loop.ts, responses-loop.ts): the turn's speech joined across
 * its responses, each request sent and its stream read, the calls of the current response, and the turn's end.
 */
import type { ClientTool } from "../tools/client-tools.ts";
import { type AnsweredCall, CallRunner } from "./calls.ts";
import { BackendError, postJson } from "./http.ts";
import { readSse, type SseEvent, StreamStalledError } from "./sse.ts";
import { bodyStart, errorMessage, speechSeparator } from "./stream-helpers.ts";
import type {
  EngineEvent,
  Transport,
  TurnEnd,
  TurnError,
  TurnInput,
  TurnOutcome,
  UnansweredOutput,
} from "./types.ts";

export type Obj = Record<string, unknown>;

/** What a turn needs of its engine to reach the backend. */
export interface TurnTransport {
  transport: Transport;
  fetch: typeof fetch;
  headers: Record<string, string>;
  idleMs: number;
  /** The number of the next request this engine sends (counted across turns). */
  nextRequest: () => number;
}

/** One turn in flight: its speech, its requests and the calls of its current response. */
export class TurnRun {
  /** Everything the turn said, responses joined. */
  text = "";
  roundTrips = 0;
  /** Responses: the id of the turn's last response. */
  responseId: string | null = null;
  /** Responses: an output for each call the turn leaves unanswered. */
  unanswered: UnansweredOutput[] = [];
  /** Responses: why the turn's last response was cut off, or null. */
  incomplete: string | null = null;
  /** True until the current response's first text: the separator between responses goes there. */
  private responseStart = true;
  /** The current response's calls, so a turn that ends in an error still reports the calls already running. */
  private current: CallRunner | null = null;
  private readonly registry: Map<string, ClientTool>;

  constructor(
    readonly input: TurnInput,
    readonly turnId: string,
    readonly signal: AbortSignal,
    tools: readonly ClientTool[],
    private readonly via: TurnTransport,
  ) {
    this.registry = new Map(tools.map((t) => [t.name, t]));
  }

  readonly emit = (e: EngineEvent): void => this.input.onEvent?.(e);

  /** One speech delta of the current response, after the separator from the response before it. */
  readonly onText = (delta: string): void => {
    const sep = this.responseStart ? speechSeparator(this.text, delta) : "";
    this.responseStart = false;
    if (sep) {
      this.text += sep;
      this.emit({ type: "text", delta: sep });
    }
    this.text += delta;
    this.emit({ type: "text", delta });
  };

  /** Starts the next response of the turn: its calls run on the runner returned. */
  newResponse(): CallRunner {
    this.responseStart = true;
    this.current = new CallRunner(
      this.registry,
      { signal: this.signal, turnId: this.turnId, presetId: this.input.presetId },
      this.emit,
      () => this.text.length,
    );
    return this.current;
  }

  /** Sends one request and returns its events: a stream, or the one JSON answer of a server that ignores stream. */
  async request(url: string, body: Obj): Promise<AsyncIterable<SseEvent>> {
    // Nothing goes out after Stop, so every request the turn reports is one that was sent.
    this.signal.throwIfAborted();
    this.emit({ type: "request", n: this.via.nextRequest(), url, body });
    const res = await postJson(this.via.fetch, url, body, this.via.headers, this.signal);
    if (/\bjson\b/i.test(res.headers.get("content-type") ?? "")) {
      return wholeResponse(await res.text(), this.via.transport);
    }
    return readSse(res.body!, { idleMs: this.via.idleMs, signal: this.signal });
  }

  /** Waits for the calls of the current response (a failed turn reports them before its end, never after it). */
  async settleCurrent(): Promise<void> {
    await this.current?.settle();
  }

  /** The turn's end event, reported and returned. */
  end(outcome: TurnOutcome, failure: TurnError | null): TurnEnd {
    const responses = this.via.transport === "responses";
    const e: TurnEnd = {
      type: "turn_end",
      outcome,
      text: this.text,
      round_trips: this.roundTrips,
      response_id: responses ? this.responseId : null,
      error: failure?.message ?? null,
      ...(failure ? { failure } : {}),
      unanswered: this.unanswered,
      ...(this.incomplete !== null && (outcome === "spoken" || outcome === "silent")
        ? { incomplete: { reason: this.incomplete } }
        : {}),
    };
    this.emit(e);
    return e;
  }
}

/**
 * Whether a response's results go back to the model: a tool that answers a question ran, or only cue-only
 * tools ran and the model stopped to wait for them.
 */
export function shouldAnswer(answered: AnsweredCall[], waitingOnCues: boolean): boolean {
  if (answered.length === 0) return false;
  if (answered.some((c) => !c.oneWay)) return true;
  return waitingOnCues;
}

/** A request body with the model, when one is set, first. */
export function withModel(model: string | undefined, body: Obj): Obj {
  return model ? { model, ...body } : body;
}

/** The `tools` key of a request: absent for an empty registry. */
export function toolsKey(declared: Obj[]): Obj {
  return declared.length ? { tools: declared } : {};
}

/** A turn-ending throw as the turn's typed error. */
export function turnError(e: unknown): TurnError {
  if (e instanceof BackendError) return e.failure;
  if (e instanceof StreamStalledError) return { kind: "stalled", message: e.message };
  const detail = errorMessage(e);
  return { kind: "other", message: `backend error: ${detail}`, detail };
}

/** One non-streamed answer as the single event a stream would have ended with. */
async function* wholeResponse(text: string, transport: Transport): AsyncGenerator<SseEvent> {
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
