/**
 * The push transport's client (docs/push-transport.md): dials the backend, says hello with the window's tools,
 * runs turns, places segment cues, answers tool calls, keeps the connection alive and reconnects.
 */
import type { EngineEvent, TurnEnd, TurnOutcome } from "../stream/types.ts";
import type { ClientTool } from "../tools/client-tools.ts";
import { GENERATE_EXPRESS } from "../tools/express.ts";
import { type ClientFrame, PUSH_PROTOCOL_VERSION, parseBackendFrame, type SegmentFrame } from "./frames.ts";
import { placeCues } from "./segments.ts";
import { consumeToolCall, pushWaitMs, TakenCalls } from "./tool-calls.ts";

/** Callbacks a socket adapter calls. */
export interface SocketHandlers {
  onOpen(): void;
  onMessage(text: string): void;
  onClose(code: number, reason: string): void;
  onError(err: Error): void;
  /** A WebSocket pong arrived. */
  onPong(): void;
}

/** An open (or opening) socket, as the client drives it. */
export interface PushSocket {
  send(text: string): void;
  close(code?: number, reason?: string): void;
  /** Sends a WebSocket ping (not available in browsers; frames then count as liveness). */
  ping?(): void;
}

/** Opens a WebSocket to url with the given upgrade headers (ws in Node; the host for pages). */
export type Connect = (url: string, headers: Record<string, string>, handlers: SocketHandlers) => PushSocket;

/** What hello declares; built at every connect. */
export interface HelloInfo {
  preset: { id: string; name: string };
  window: string;
  /** The window's registry; generate_express is left out of hello.tools. */
  tools: ClientTool[];
}

/** Connection-level events. */
export type PushConnectionEvent =
  | { type: "connection"; state: "connecting" | "open" | "closed"; attempt: number; error?: string }
  | { type: "protocol_error"; code: string; message: string };

export interface PushClientOptions {
  url: string;
  token?: string;
  connect: Connect;
  hello: () => HelloInfo | Promise<HelloInfo>;
  clientVersion?: string;
  /** Connection events and the events of turns the backend starts. */
  onEvent?: (e: EngineEvent | PushConnectionEvent, turnId?: string) => void;
  /** A client turn that hears nothing for this long ends as error. Default 120 s. */
  idleMs?: number;
  heartbeatMs?: number;
  deadMs?: number;
  welcomeTimeoutMs?: number;
  backoff?: { baseMs: number; capMs: number; stableMs: number };
  random?: () => number;
}

export interface PushTurnInput {
  text: string;
  context: string;
  origin?: "user" | "addressed" | "signal";
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

/** The registry as push declares it: everything but generate_express, whose cues ride in segments. */
export function pushDeclared(tools: readonly ClientTool[]): ClientTool[] {
  return tools.filter((t) => t.name !== GENERATE_EXPRESS);
}

/** hello.tools for a registry (what `yui tools --transport push` prints). */
export function helloTools(tools: readonly ClientTool[]) {
  return pushDeclared(tools).map((t) => ({
    name: t.name,
    description: t.description,
    parameters: t.parameters,
    wait_ms: pushWaitMs(t),
  }));
}

const MAX_HELD_RESULTS = 64;
const HELD_RESULT_MS = 5 * 60_000;

/** Creates a push client; call start() to connect. */
export function createPushClient(opts: PushClientOptions) {
  const idleMs = opts.idleMs ?? 120_000;
  const heartbeatMs = opts.heartbeatMs ?? 20_000;
  const deadMs = opts.deadMs ?? 45_000;
  const welcomeTimeoutMs = opts.welcomeTimeoutMs ?? 10_000;
  const backoff = opts.backoff ?? { baseMs: 500, capMs: 30_000, stableMs: 30_000 };
  const random = opts.random ?? Math.random;
  const emitGlobal = (e: EngineEvent | PushConnectionEvent, turnId?: string) => opts.onEvent?.(e, turnId);

  let socket: PushSocket | null = null;
  let welcomed = false;
  let closed = false;
  let attempt = 0;
  let lastError = "";
  let lastSeen = 0;
  let declared = new Map<string, ClientTool>();
  let presetId = "";
  const outbox: ClientFrame[] = [];
  const held: { frame: ClientFrame; at: number }[] = [];
  const taken = new TakenCalls();
  const turns = new Map<string, OpenTurn>();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let turnCounter = 0;
  let requestCounter = 0;

  const later = (ms: number, fn: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
    return t;
  };

  function sendNow(frame: ClientFrame): boolean {
    if (!socket || !welcomed) return false;
    try {
      socket.send(JSON.stringify(frame));
      return true;
    } catch {
      return false;
    }
  }

  /** Sends now, or after the next welcome. */
  function send(frame: ClientFrame): void {
    if (!sendNow(frame)) outbox.push(frame);
  }

  async function connectOnce(): Promise<void> {
    if (closed) return;
    welcomed = false;
    emitGlobal({ type: "connection", state: "connecting", attempt });
    const info = await opts.hello();
    presetId = info.preset.id;
    const tools = pushDeclared(info.tools);
    declared = new Map(tools.map((t) => [t.name, t]));
    const hello: ClientFrame = {
      type: "hello",
      v: PUSH_PROTOCOL_VERSION,
      client: { name: "yui", version: opts.clientVersion ?? "0.1.0" },
      preset: info.preset,
      window: info.window,
      tools: tools.map((t) => ({
        name: t.name,
        description: t.description,
        parameters: t.parameters,
        wait_ms: pushWaitMs(t),
      })),
    };
    const headers: Record<string, string> = opts.token ? { authorization: `Bearer ${opts.token}` } : {};
    let welcomeTimer: ReturnType<typeof setTimeout> | undefined;
    let stableTimer: ReturnType<typeof setTimeout> | undefined;
    let gone = false;
    const s = opts.connect(opts.url, headers, {
      onOpen() {
        lastSeen = Date.now();
        s.send(JSON.stringify(hello));
        welcomeTimer = later(welcomeTimeoutMs, () => {
          if (!welcomed) {
            lastError = "no welcome within the timeout";
            s.close(4000, "no welcome");
          }
        });
      },
      onMessage(text) {
        lastSeen = Date.now();
        if (!welcomed) {
          const r = parseBackendFrame(text);
          if (r.ok && r.frame?.type === "welcome") {
            welcomed = true;
            if (welcomeTimer) clearTimeout(welcomeTimer);
            stableTimer = later(backoff.stableMs, () => {
              attempt = 0;
            });
            emitGlobal({ type: "connection", state: "open", attempt });
            flushAfterWelcome();
            return;
          }
          if (r.ok && r.frame?.type === "error") {
            lastError = `${r.frame.code}: ${r.frame.message ?? ""}`;
            emitGlobal({ type: "protocol_error", code: r.frame.code, message: r.frame.message ?? "" });
            return;
          }
        }
        onFrame(text);
      },
      onPong() {
        lastSeen = Date.now();
      },
      onError(err) {
        lastError = err.message;
      },
      onClose(code, reason) {
        if (gone) return;
        gone = true;
        if (welcomeTimer) clearTimeout(welcomeTimer);
        if (stableTimer) clearTimeout(stableTimer);
        if (socket === s) socket = null;
        welcomed = false;
        if (closed) return;
        if (!lastError) lastError = `closed (${code}${reason ? ` ${reason}` : ""})`;
        emitGlobal({ type: "connection", state: "closed", attempt, error: lastError });
        scheduleReconnect();
      },
    });
    socket = s;
  }

  function flushAfterWelcome() {
    const now = Date.now();
    // Results held from a dropped connection go first, in the order the calls finished.
    for (const h of held.splice(0)) if (now - h.at <= HELD_RESULT_MS) sendNow(h.frame);
    for (const f of outbox.splice(0)) sendNow(f);
    lastError = "";
  }

  function scheduleReconnect() {
    if (closed) return;
    const delay = random() * Math.min(backoff.capMs, backoff.baseMs * 2 ** attempt);
    attempt++;
    later(delay, () => {
      connectOnce().catch((e) => {
        lastError = (e as Error).message;
        scheduleReconnect();
      });
    });
  }

  function protocolError(message: string, turnId?: string) {
    sendNow({ type: "error", code: "bad_frame", message, ...(turnId ? { turn_id: turnId } : {}) });
  }

  function touch(turn: OpenTurn) {
    if (!turn.resolve) return;
    if (turn.idle) clearTimeout(turn.idle);
    turn.idle = later(idleMs, () => {
      const why =
        socket && welcomed
          ? "push backend went quiet"
          : `push backend unreachable at ${opts.url}: ${lastError || "not connected"}`;
      finish(turn, "error", why);
    });
  }

  function finish(turn: OpenTurn, outcome: TurnOutcome, error: string | null) {
    if (!turns.has(turn.id)) return;
    turns.delete(turn.id);
    if (turn.idle) clearTimeout(turn.idle);
    const end: TurnEnd = {
      type: "turn_end",
      outcome,
      text: turn.text,
      round_trips: 0,
      response_id: null,
      error,
      unanswered: [],
    };
    turn.onEvent(end);
    turn.resolve?.(end);
  }

  function turnFor(id: string): OpenTurn {
    let t = turns.get(id);
    if (!t) {
      // A turn the backend starts on its own.
      t = { id, text: "", onEvent: (e) => emitGlobal(e, id), chain: Promise.resolve() };
      turns.set(id, t);
    }
    return t;
  }

  function onSegment(frame: SegmentFrame) {
    const turn = turnFor(frame.turn_id);
    touch(turn);
    for (const piece of placeCues(frame.text, frame.cues)) {
      if (piece.kind === "text") {
        turn.text += piece.text;
        turn.onEvent({
          type: "text",
          delta: piece.text,
          ...(frame.kind === "render" ? { render: true as const } : {}),
        });
      } else {
        turn.onEvent({
          type: "cue",
          call_id: `${frame.turn_id}:cue`,
          name: GENERATE_EXPRESS,
          arguments: piece.cue as Record<string, unknown>,
          offset: turn.text.length,
        });
      }
    }
  }

  function onFrame(text: string) {
    const r = parseBackendFrame(text);
    if (!r.ok) return protocolError(r.error);
    const f = r.frame;
    if (!f) return;
    switch (f.type) {
      case "segment":
        return onSegment(f);
      case "tool_call": {
        // One call per call id: a repeated frame is not run and gets no second tool_result.
        if (!taken.take(f.turn_id, f.call_id)) return;
        const turn = turns.get(f.turn_id);
        if (turn) touch(turn);
        const emit = turn ? turn.onEvent : (e: EngineEvent) => emitGlobal(e, f.turn_id);
        const run = async () => {
          const signal = new AbortController().signal;
          const { args, result, reply } = await consumeToolCall(f, declared, { signal, presetId });
          emit({ type: "tool_call", call_id: f.call_id, name: f.name, arguments: args, result });
          if (!sendNow(reply)) {
            held.push({ frame: reply, at: Date.now() });
            if (held.length > MAX_HELD_RESULTS) held.shift();
          }
          if (turn) touch(turn);
        };
        // Calls of one turn run one at a time, in arrival order.
        if (turn) turn.chain = turn.chain.then(run);
        else void run();
        return;
      }
      case "tool_status": {
        const turn = turnFor(f.turn_id);
        touch(turn);
        turn.onEvent({ type: "tool_status", call_id: f.call_id, name: f.name, status: f.status });
        return;
      }
      case "turn_end": {
        const turn = turns.get(f.turn_id);
        if (!turn) return;
        void turn.chain.then(() =>
          finish(
            turn,
            f.outcome,
            f.outcome === "error" ? (f.error ?? "the backend reported an error") : null,
          ),
        );
        return;
      }
      case "error": {
        emitGlobal({ type: "protocol_error", code: f.code, message: f.message ?? "" });
        const turn = f.turn_id ? turns.get(f.turn_id) : undefined;
        if (turn && f.code === "turn_failed") finish(turn, "error", f.message ?? "turn failed");
        return;
      }
      case "welcome":
        return;
    }
  }

  return {
    /** Connects (and keeps reconnecting until close()). */
    start(): void {
      closed = false;
      connectOnce().catch((e) => {
        lastError = (e as Error).message;
        scheduleReconnect();
      });
      heartbeat = setInterval(() => {
        if (!socket) return;
        if (Date.now() - lastSeen > deadMs) {
          lastError = "no pong or frame for too long";
          socket.close(4001, "dead");
          return;
        }
        socket.ping?.();
      }, heartbeatMs);
    },
    /** Runs one turn the client starts; resolves at its end. Never throws. */
    runTurn(input: PushTurnInput): Promise<TurnEnd> {
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
          url: opts.url,
          body: frame as unknown as Record<string, unknown>,
        });
        touch(turn);
        const stop = () => {
          sendNow({ type: "stop", turn_id: id });
          finish(turn, "stopped", null);
        };
        if (input.signal?.aborted) return stop();
        input.signal?.addEventListener("abort", stop, { once: true });
        send(frame);
      });
    },
    /** Whether the connection is open and welcomed. */
    isOpen: () => welcomed,
    /** Closes the connection and stops reconnecting; open turns end as stopped. */
    close(): void {
      closed = true;
      if (heartbeat) clearInterval(heartbeat);
      for (const t of timers) clearTimeout(t);
      timers.clear();
      for (const turn of [...turns.values()]) if (turn.resolve) finish(turn, "stopped", null);
      socket?.close(1000, "bye");
      socket = null;
    },
  };
}

export type PushClient = ReturnType<typeof createPushClient>;
