/**
 * The push transport's client (docs/push-transport.md): dials the backend, says hello with the window's tools,
 * runs turns, places segment cues, answers tool calls, keeps the connection alive and reconnects.
 *
 * This file wires the parts: the connection state machine (connection.ts) decides, and the link (link.ts)
 * carries out its effects on the socket and the timers; the turns (turns.ts) play the frames it delivers,
 * with the segment player (segments.ts) and the tool-call consumer (tool-calls.ts); frames.ts is the codec.
 */
import type { EngineEvent, TurnEnd } from "../stream/types.ts";
import type { ClientTool } from "../tools/client-tools.ts";
import type { PushConnectionEvent } from "./connection.ts";
import type { HelloInfo } from "./hello.ts";
import { PushLink } from "./link.ts";
import { createPushTurns, type PushTurnInput } from "./turns.ts";

export type { PushConnectionEvent } from "./connection.ts";
export { type HelloInfo, helloFrame, helloTools, pushDeclared } from "./hello.ts";
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

/** Creates a push client; call start() to connect. */
export function createPushClient(opts: PushClientOptions) {
  const heartbeatMs = opts.heartbeatMs ?? 20_000;
  const emitGlobal = (e: EngineEvent | PushConnectionEvent, turnId?: string) => opts.onEvent?.(e, turnId);
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  const link = new PushLink(opts, emitGlobal, (frame) => turns.onFrame(frame));
  const turns = createPushTurns({
    url: opts.url,
    idleMs: opts.idleMs ?? 120_000,
    emitGlobal,
    later: link.later,
    sendNow: link.sendNow,
    send: (frame) => {
      if (!link.sendNow(frame)) link.queue(frame);
    },
    quietReason: () => ({
      kind: "push",
      url: opts.url,
      message: link.reachable()
        ? "push backend went quiet"
        : `push backend unreachable at ${opts.url}: ${link.lastError() || "not connected"}`,
    }),
    declared: () => link.declared,
    held: link.held,
  });

  return {
    /** Connects (and keeps reconnecting until close()). */
    start(): void {
      link.dispatch({ type: "start" });
      heartbeat ??= setInterval(() => link.dispatch({ type: "tick", now: Date.now() }), heartbeatMs);
    },
    /** Runs one turn the client starts; resolves at its end. Never throws. */
    runTurn(input: PushTurnInput): Promise<TurnEnd> {
      return turns.run(input);
    },
    /**
     * The tools the backend may call: hello.tools of the latest hello (waiting for the one being built), without
     * generate_express. A turn's client context describes these (wire-dispatcher.ts), not a registry of its own.
     */
    declaredTools: (): Promise<ClientTool[]> => link.declaredTools(),
    /** Whether the connection is open and welcomed. */
    isOpen: () => link.isOpen(),
    /** Closes the connection and stops reconnecting; open turns end as stopped. */
    close(): void {
      if (heartbeat) clearInterval(heartbeat);
      heartbeat = undefined;
      link.close();
      turns.stopAll();
    },
  };
}

export type PushClient = ReturnType<typeof createPushClient>;
