/**
 * The push client's turns (docs/push-transport.md, "Turns"): the turns the client starts and the ones the
 * backend starts, fed by the backend's frames once the connection (connection.ts) hands them over. Owns each
 * turn's text, idle timer and tool-call chain; knows nothing of sockets or reconnects.
 */
import type { EngineEvent, TurnEnd, TurnError, TurnOutcome, TurnWireOrigin } from "../stream/types.ts";
import type { ClientTool } from "../tools/client-tools.ts";
import type { PushConnectionEvent } from "./connection.ts";
import type { ClientFrame, parseBackendFrame, ToolCallFrame } from "./frames.ts";
import { playSegment } from "./segments.ts";
import { consumeToolCall, type HeldResults, TakenCalls } from "./tool-calls.ts";

export interface PushTurnInput {
  text: string;
  context: string;
  origin?: TurnWireOrigin;
  turnId?: string;
  signal?: AbortSignal;
  onEvent?: (e: EngineEvent) => void;
}

interface OpenTurn {
  id: string;
  text: string;
  onEvent: (e: EngineEvent) => void;
  resolve?: (end: TurnEnd) => void;
  idle?: ReturnType<typeof setTimeout>;
  chain: Promise<void>;
}

export interface PushTurnsDeps {
  /** The backend's URL (the request event's url). */
  url: string;
  /** A client turn that hears nothing for this long ends as error. */
  idleMs: number;
  /** Events of turns the backend starts, and protocol errors. */
  emitGlobal(e: EngineEvent | PushConnectionEvent, turnId?: string): void;
  /** A timer the client cancels at close(). */
  later(ms: number, fn: () => void): ReturnType<typeof setTimeout>;
  /** Sends now if the connection is ready; false when it is not. */
  sendNow(frame: ClientFrame): boolean;
  /** Sends now, or after the next welcome. */
  send(frame: ClientFrame): void;
  /** Why a quiet client turn heard nothing (the connection's state). */
  quietReason(): TurnError;
  /** The tools this connection's hello declared, and its preset. */
  declared(): { tools: ReadonlyMap<string, ClientTool>; presetId: string };
  /** Where a result goes when the connection is down. */
  held: HeldResults;
}

/** Creates the turns of one push client. */
export function createPushTurns(deps: PushTurnsDeps) {
  const turns = new Map<string, OpenTurn>();
  const taken = new TakenCalls();
  let turnCounter = 0;
  let requestCounter = 0;

  function touch(turn: OpenTurn) {
    if (!turn.resolve) return;
    if (turn.idle) clearTimeout(turn.idle);
    turn.idle = deps.later(deps.idleMs, () => finish(turn, "error", deps.quietReason()));
  }

  function finish(turn: OpenTurn, outcome: TurnOutcome, failure: TurnError | null) {
    if (!turns.has(turn.id)) return;
    turns.delete(turn.id);
    if (turn.idle) clearTimeout(turn.idle);
    const end: TurnEnd = {
      type: "turn_end",
      outcome,
      text: turn.text,
      round_trips: 0,
      response_id: null,
      error: failure?.message ?? null,
      ...(failure ? { failure } : {}),
      unanswered: [],
    };
    turn.onEvent(end);
    turn.resolve?.(end);
  }

  function turnFor(id: string): OpenTurn {
    let t = turns.get(id);
    if (!t) {
      // A turn the backend starts on its own.
      t = { id, text: "", onEvent: (e) => deps.emitGlobal(e, id), chain: Promise.resolve() };
      turns.set(id, t);
    }
    return t;
  }

  function onToolCall(f: ToolCallFrame) {
    // One call per call id: a repeated frame is not run and gets no second tool_result.
    if (!taken.take(f.turn_id, f.call_id)) return;
    const turn = turns.get(f.turn_id);
    if (turn) touch(turn);
    const emit = turn ? turn.onEvent : (e: EngineEvent) => deps.emitGlobal(e, f.turn_id);
    const run = async () => {
      const signal = new AbortController().signal;
      const { tools, presetId } = deps.declared();
      const { args, result, reply } = await consumeToolCall(f, tools, { signal, presetId });
      emit({ type: "tool_call", call_id: f.call_id, name: f.name, arguments: args, result });
      if (!deps.sendNow(reply)) deps.held.hold(reply, Date.now());
      if (turn) touch(turn);
    };
    // Calls of one turn run one at a time, in arrival order.
    if (turn) turn.chain = turn.chain.then(run);
    else void run();
  }

  /** Plays one frame from the backend (parsed by parseBackendFrame). */
  function onFrame(r: ReturnType<typeof parseBackendFrame>) {
    if (!r.ok) {
      deps.sendNow({ type: "error", code: "bad_frame", message: r.error });
      return;
    }
    const f = r.frame;
    if (!f) return;
    switch (f.type) {
      case "segment": {
        const turn = turnFor(f.turn_id);
        touch(turn);
        const played = playSegment(f, turn.text);
        turn.text = played.text;
        for (const e of played.events) turn.onEvent(e);
        return;
      }
      case "tool_call":
        return onToolCall(f);
      case "tool_status": {
        const turn = turnFor(f.turn_id);
        touch(turn);
        turn.onEvent({ type: "tool_status", call_id: f.call_id, name: f.name, status: f.status });
        return;
      }
      case "turn_end": {
        const turn = turns.get(f.turn_id);
        if (!turn) return;
        const failure =
          f.outcome === "error" ? backendFailure(f.error ?? "the backend reported an error") : null;
        void turn.chain.then(() => finish(turn, f.outcome, failure));
        return;
      }
      case "error": {
        deps.emitGlobal({ type: "protocol_error", code: f.code, message: f.message ?? "" });
        const turn = f.turn_id ? turns.get(f.turn_id) : undefined;
        if (turn && f.code === "turn_failed")
          finish(turn, "error", backendFailure(f.message ?? "turn failed"));
        return;
      }
      case "welcome":
        return;
    }
  }

  return {
    onFrame,
    /** Runs one turn the client starts; resolves at its end. Never throws. */
    run(input: PushTurnInput): Promise<TurnEnd> {
      const id = input.turnId ?? `t-${++turnCounter}-${Date.now().toString(36)}`;
      const onEvent = input.onEvent ?? (() => {});
      return new Promise<TurnEnd>((resolve) => {
        const turn: OpenTurn = { id, text: "", onEvent, resolve, chain: Promise.resolve() };
        turns.set(id, turn);
        const frame: ClientFrame = {
          type: "turn",
          turn_id: id,
          origin: input.origin ?? "user",
          text: input.text,
          context: input.context,
        };
        onEvent({
          type: "request",
          n: ++requestCounter,
          url: deps.url,
          body: frame as unknown as Record<string, unknown>,
        });
        touch(turn);
        const stop = () => {
          deps.sendNow({ type: "stop", turn_id: id });
          finish(turn, "stopped", null);
        };
        if (input.signal?.aborted) return stop();
        input.signal?.addEventListener("abort", stop, { once: true });
        deps.send(frame);
      });
    },
    /** Ends every open client turn as stopped (the client closes). */
    stopAll(): void {
      for (const turn of [...turns.values()]) if (turn.resolve) finish(turn, "stopped", null);
    },
  };
}

/** An error the push backend reported for a turn (turn_end with an error, or turn_failed). */
function backendFailure(message: string): TurnError {
  return { kind: "backend", message, detail: message };
}
