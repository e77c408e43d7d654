/**
 * The push client's link to its backend (docs/push-transport.md): it feeds the connection state machine
 * (connection.ts) what happens on the socket and the timers, and carries out what it decides: building and
 * sending hello, dialing, flushing held results, delivering frames to the turns, pings, timers and closing.
 */
import type { EngineEvent } from "../stream/types.ts";
import type { ClientTool } from "../tools/client-tools.ts";
import type { PushClientOptions, PushSocket } from "./client.ts";
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
import { type ClientFrame, parseBackendFrame } from "./frames.ts";
import { type HelloInfo, helloFrame, pushDeclared } from "./hello.ts";
import { HeldResults } from "./tool-calls.ts";

type Parsed = ReturnType<typeof parseBackendFrame>;

/** What the connection needs to know of a frame: a welcome, an error, or another frame for the turns. */
function connectionView(
  r: ReturnType<typeof parseBackendFrame>,
): Extract<ConnectionInput, { type: "frame" }>["frame"] {
  if (r.ok && r.frame?.type === "welcome") return { type: "welcome" };
  if (r.ok && r.frame?.type === "error")
    return { type: "error", code: r.frame.code, message: r.frame.message ?? "" };
  return { type: "other" };
}

/** One push connection after another to the backend, as the connection state machine decides. */
export class PushLink {
  /** The tools the latest hello declares (the tool-call consumer's registry) and its preset. */
  declared = { tools: new Map<string, ClientTool>() as ReadonlyMap<string, ClientTool>, presetId: "" };
  /** Results of calls that finished while the connection was down. */
  readonly held = new HeldResults();
  private conn: Connection = initialConnection;
  private socket: PushSocket | null = null;
  /** The hello of the connection being made. */
  private hello: ClientFrame | null = null;
  /** The hello being built now (state connecting). */
  private building: Promise<unknown> | null = null;
  private readonly outbox: ClientFrame[] = [];
  private readonly config: ConnectionConfig;
  private readonly connectionTimers = new Map<ConnectionTimer, ReturnType<typeof setTimeout>>();
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();

  constructor(
    private readonly opts: PushClientOptions,
    private readonly emitGlobal: (e: EngineEvent | PushConnectionEvent) => void,
    /** Hands a backend frame to the turns. */
    private readonly deliver: (frame: Parsed) => void,
  ) {
    this.config = {
      welcomeTimeoutMs: opts.welcomeTimeoutMs ?? 10_000,
      deadMs: opts.deadMs ?? 45_000,
      backoff: opts.backoff ?? { baseMs: 500, capMs: 30_000, stableMs: 30_000 },
    };
  }

  /** Runs fn after ms, unless the link closes first. */
  readonly later = (ms: number, fn: () => void): ReturnType<typeof setTimeout> => {
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, ms);
    this.timers.add(t);
    return t;
  };

  /** Sends a frame now; false when the connection is not ready (or the socket refused it). */
  readonly sendNow = (frame: ClientFrame): boolean => {
    if (!this.socket || this.conn.state !== "ready") return false;
    try {
      this.socket.send(JSON.stringify(frame));
      return true;
    } catch {
      return false;
    }
  };

  /** Keeps a frame for the next welcome. */
  queue(frame: ClientFrame): void {
    this.outbox.push(frame);
  }

  /** Whether the connection is open and welcomed. */
  isOpen(): boolean {
    return this.conn.state === "ready";
  }

  /** Whether a welcomed socket is there (a turn that hears nothing then says the backend went quiet). */
  reachable(): boolean {
    return this.socket !== null && this.conn.state === "ready";
  }

  lastError(): string {
    return this.conn.lastError;
  }

  /** The tools of the latest hello, waiting for the one being built (before the first: what it will declare). */
  async declaredTools(): Promise<ClientTool[]> {
    if (this.building) await this.building.catch(() => {});
    if (!this.hello) return pushDeclared((await this.opts.hello()).tools);
    return [...this.declared.tools.values()];
  }

  /** Feeds one input to the connection and carries out what it decides. */
  dispatch(input: ConnectionInput, frame?: Parsed): void {
    const t = transition(this.conn, input, this.config);
    this.conn = t.next;
    for (const effect of t.effects) this.perform(effect, frame);
  }

  /** Closes the connection, stops reconnecting and drops every timer. */
  close(): void {
    this.dispatch({ type: "close" });
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  private perform(effect: ConnectionEffect, frame?: Parsed) {
    switch (effect.type) {
      case "emit":
        return this.emitGlobal(effect.event);
      case "build_hello":
        return void this.buildHello();
      case "dial":
        return this.dial();
      case "send_hello":
        return void this.socket?.send(JSON.stringify(this.hello));
      case "flush":
        // Results held from a dropped connection go first, in the order the calls finished.
        for (const f of this.held.drain(Date.now())) this.sendNow(f);
        for (const f of this.outbox.splice(0)) this.sendNow(f);
        return;
      case "deliver":
        if (frame) this.deliver(frame);
        return;
      case "ping":
        return this.socket?.ping?.();
      case "close_socket":
        return this.socket?.close(effect.code, effect.reason);
      case "forget_socket":
        this.socket = null;
        return;
      case "set_timer":
        return this.setTimer(effect);
      case "clear_timer": {
        const t = this.connectionTimers.get(effect.timer);
        if (t) clearTimeout(t);
        this.connectionTimers.delete(effect.timer);
        return;
      }
    }
  }

  private setTimer(effect: Extract<ConnectionEffect, { type: "set_timer" }>): void {
    const timer = effect.timer;
    const ms = effect.timer === "reconnect" ? (this.opts.random ?? Math.random)() * effect.maxMs : effect.ms;
    const input: ConnectionInput = {
      type: timer === "welcome" ? "welcome_timeout" : timer === "stable" ? "stable" : "backoff_elapsed",
    };
    this.connectionTimers.set(
      timer,
      this.later(ms, () => {
        this.connectionTimers.delete(timer);
        this.dispatch(input);
      }),
    );
  }

  /** Builds this connection's hello: the window's tools read now (a preset opened meanwhile is in the enums). */
  private async buildHello(): Promise<void> {
    let info: HelloInfo;
    const pending = (async () => this.opts.hello())();
    this.building = pending;
    try {
      info = await pending;
    } catch (e) {
      return this.dispatch({ type: "connect_failed", error: (e as Error).message });
    } finally {
      if (this.building === pending) this.building = null;
    }
    if (this.conn.state !== "connecting") return;
    const tools = pushDeclared(info.tools);
    this.declared = { tools: new Map(tools.map((t) => [t.name, t])), presetId: info.preset.id };
    this.hello = helloFrame(info, this.opts.clientVersion ?? "0.1.0");
    this.dispatch({ type: "hello_built" });
  }

  /** Opens the socket; its callbacks count only while it is the link's socket. */
  private dial() {
    const headers: Record<string, string> = this.opts.token
      ? { authorization: `Bearer ${this.opts.token}` }
      : {};
    let s: PushSocket | null = null;
    const mine = (fn: () => void) => {
      if (s && this.socket === s) fn();
    };
    try {
      s = this.opts.connect(this.opts.url, headers, {
        onOpen: () => mine(() => this.dispatch({ type: "socket_open", now: Date.now() })),
        onMessage: (text) => mine(() => this.onMessage(text)),
        onPong: () => mine(() => this.dispatch({ type: "pong", now: Date.now() })),
        onError: (err) => mine(() => this.dispatch({ type: "socket_error", message: err.message })),
        onClose: (code, reason) => mine(() => this.dispatch({ type: "socket_closed", code, reason })),
      });
    } catch (e) {
      return this.dispatch({ type: "connect_failed", error: (e as Error).message });
    }
    this.socket = s;
  }

  private onMessage(text: string): void {
    const r = parseBackendFrame(text);
    this.dispatch({ type: "frame", now: Date.now(), frame: connectionView(r) }, r);
  }
}
