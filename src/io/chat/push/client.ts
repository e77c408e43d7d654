/**
 * The push transport's client (docs/push-transport.md): dials the backend, says hello with the window's tools,
 * runs turns, places segment cues, answers tool calls, keeps the connection alive and reconnects.
 *
 * This file wires the parts: the connection state machine (connection.ts) decides, and createPushClient
 * carries out its effects on the socket and the timers; the turns (turns.ts) play the frames it delivers,
 * with the segment player (segments.ts) and the tool-call consumer (tool-calls.ts); frames.ts is the codec.
 */
import type { EngineEvent, TurnEnd } from "../stream/types.ts";
import type { ClientTool } from "../tools/client-tools.ts";
import { GENERATE_EXPRESS } from "../tools/client-tools.ts";
import {
  type Connection,
  type ConnectionConfig,
  type ConnectionEffect,
  type ConnectionInput,
  type ConnectionTimer,
  initialConnection,
  type PushConnectionEvent,
  transition,
} from "./connection.ts";
import { type ClientFrame, PUSH_PROTOCOL_VERSION, parseBackendFrame } from "./frames.ts";
import { HeldResults, pushWaitMs } from "./tool-calls.ts";
import { createPushTurns, type PushTurnInput } from "./turns.ts";

export type { PushConnectionEvent } from "./connection.ts";
export type { PushTurnInput } from "./turns.ts";

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

/** The hello frame of a connection. */
export function helloFrame(info: HelloInfo, clientVersion: string): ClientFrame {
  return {
    type: "hello",
    v: PUSH_PROTOCOL_VERSION,
    client: { name: "yui", version: clientVersion },
    preset: info.preset,
    window: info.window,
    tools: helloTools(info.tools),
  };
}

/** What the connection needs to know of a frame: a welcome, an error, or another frame for the turns. */
function connectionView(
  r: ReturnType<typeof parseBackendFrame>,
): Extract<ConnectionInput, { type: "frame" }>["frame"] {
  if (r.ok && r.frame?.type === "welcome") return { type: "welcome" };
  if (r.ok && r.frame?.type === "error")
    return { type: "error", code: r.frame.code, message: r.frame.message ?? "" };
  return { type: "other" };
}

/** Creates a push client; call start() to connect. */
export function createPushClient(opts: PushClientOptions) {
  const config: ConnectionConfig = {
    welcomeTimeoutMs: opts.welcomeTimeoutMs ?? 10_000,
    deadMs: opts.deadMs ?? 45_000,
    backoff: opts.backoff ?? { baseMs: 500, capMs: 30_000, stableMs: 30_000 },
  };
  const heartbeatMs = opts.heartbeatMs ?? 20_000;
  const random = opts.random ?? Math.random;
  const emitGlobal = (e: EngineEvent | PushConnectionEvent, turnId?: string) => opts.onEvent?.(e, turnId);

  let conn: Connection = initialConnection;
  let socket: PushSocket | null = null;
  /** The hello of the connection being made, and the tools it declares (the consumer's registry). */
  let hello: ClientFrame | null = null;
  /** The hello being built now (state connecting). */
  let building: Promise<unknown> | null = null;
  let declared = { tools: new Map<string, ClientTool>() as ReadonlyMap<string, ClientTool>, presetId: "" };
  const outbox: ClientFrame[] = [];
  const held = new HeldResults();
  const connectionTimers = new Map<ConnectionTimer, ReturnType<typeof setTimeout>>();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  let heartbeat: ReturnType<typeof setInterval> | undefined;

  const later = (ms: number, fn: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
    return t;
  };

  function sendNow(frame: ClientFrame): boolean {
    if (!socket || conn.state !== "ready") return false;
    try {
      socket.send(JSON.stringify(frame));
      return true;
    } catch {
      return false;
    }
  }

  const turns = createPushTurns({
    url: opts.url,
    idleMs: opts.idleMs ?? 120_000,
    emitGlobal,
    later,
    sendNow,
    send: (frame) => {
      if (!sendNow(frame)) outbox.push(frame);
    },
    quietReason: () => ({
      kind: "push",
      url: opts.url,
      message:
        socket && conn.state === "ready"
          ? "push backend went quiet"
          : `push backend unreachable at ${opts.url}: ${conn.lastError || "not connected"}`,
    }),
    declared: () => declared,
    held,
  });

  /** Feeds one input to the connection and carries out what it decides. */
  function dispatch(input: ConnectionInput, frame?: ReturnType<typeof parseBackendFrame>): void {
    const t = transition(conn, input, config);
    conn = t.next;
    for (const effect of t.effects) perform(effect, frame);
  }

  function perform(effect: ConnectionEffect, frame?: ReturnType<typeof parseBackendFrame>) {
    switch (effect.type) {
      case "emit":
        return emitGlobal(effect.event);
      case "build_hello":
        return void buildHello();
      case "dial":
        return dial();
      case "send_hello":
        return void socket?.send(JSON.stringify(hello));
      case "flush": {
        // Results held from a dropped connection go first, in the order the calls finished.
        for (const f of held.drain(Date.now())) sendNow(f);
        for (const f of outbox.splice(0)) sendNow(f);
        return;
      }
      case "deliver":
        if (frame) turns.onFrame(frame);
        return;
      case "ping":
        return socket?.ping?.();
      case "close_socket":
        return socket?.close(effect.code, effect.reason);
      case "forget_socket":
        socket = null;
        return;
      case "set_timer": {
        const timer = effect.timer;
        const ms = effect.timer === "reconnect" ? random() * effect.maxMs : effect.ms;
        const input: ConnectionInput = {
          type: timer === "welcome" ? "welcome_timeout" : timer === "stable" ? "stable" : "backoff_elapsed",
        };
        connectionTimers.set(
          timer,
          later(ms, () => {
            connectionTimers.delete(timer);
            dispatch(input);
          }),
        );
        return;
      }
      case "clear_timer": {
        const t = connectionTimers.get(effect.timer);
        if (t) clearTimeout(t);
        connectionTimers.delete(effect.timer);
        return;
      }
    }
  }

  /** Builds this connection's hello: the window's tools read now (a preset opened meanwhile is in the enums). */
  async function buildHello(): Promise<void> {
    let info: HelloInfo;
    const pending = (async () => opts.hello())();
    building = pending;
    try {
      info = await pending;
    } catch (e) {
      return dispatch({ type: "connect_failed", error: (e as Error).message });
    } finally {
      if (building === pending) building = null;
    }
    if (conn.state !== "connecting") return;
    const tools = pushDeclared(info.tools);
    declared = { tools: new Map(tools.map((t) => [t.name, t])), presetId: info.preset.id };
    hello = helloFrame(info, opts.clientVersion ?? "0.1.0");
    dispatch({ type: "hello_built" });
  }

  /** Opens the socket; its callbacks count only while it is the client's socket. */
  function dial() {
    const headers: Record<string, string> = opts.token ? { authorization: `Bearer ${opts.token}` } : {};
    let s: PushSocket | null = null;
    const mine = (fn: () => void) => {
      if (s && socket === s) fn();
    };
    try {
      s = opts.connect(opts.url, headers, {
        onOpen: () => mine(() => dispatch({ type: "socket_open", now: Date.now() })),
        onMessage: (text) => mine(() => onMessage(text)),
        onPong: () => mine(() => dispatch({ type: "pong", now: Date.now() })),
        onError: (err) => mine(() => dispatch({ type: "socket_error", message: err.message })),
        onClose: (code, reason) => mine(() => dispatch({ type: "socket_closed", code, reason })),
      });
    } catch (e) {
      return dispatch({ type: "connect_failed", error: (e as Error).message });
    }
    socket = s;
  }

  function onMessage(text: string): void {
    const r = parseBackendFrame(text);
    dispatch({ type: "frame", now: Date.now(), frame: connectionView(r) }, r);
  }

  return {
    /** Connects (and keeps reconnecting until close()). */
    start(): void {
      dispatch({ type: "start" });
      heartbeat ??= setInterval(() => dispatch({ type: "tick", now: Date.now() }), heartbeatMs);
    },
    /** Runs one turn the client starts; resolves at its end. Never throws. */
    runTurn(input: PushTurnInput): Promise<TurnEnd> {
      return turns.run(input);
    },
    /**
     * The tools the backend may call: hello.tools of the latest hello (waiting for the one being built), without
     * generate_express. A turn's client context describes these (wire-dispatcher.ts), not a registry of its own.
     */
    async declaredTools(): Promise<ClientTool[]> {
      if (building) await building.catch(() => {});
      // Before the first hello: the tools the first hello will declare.
      if (!hello) return pushDeclared((await opts.hello()).tools);
      return [...declared.tools.values()];
    },
    /** Whether the connection is open and welcomed. */
    isOpen: () => conn.state === "ready",
    /** Closes the connection and stops reconnecting; open turns end as stopped. */
    close(): void {
      if (heartbeat) clearInterval(heartbeat);
      heartbeat = undefined;
      dispatch({ type: "close" });
      for (const t of timers) clearTimeout(t);
      timers.clear();
      turns.stopAll();
    },
  };
}

export type PushClient = ReturnType<typeof createPushClient>;
