/**
 * The push client's connection as a state machine (docs/push-transport.md, "Connecting", "Heartbeat",
 * "Reconnecting"): a pure transition from (state, event) to (state, effects). The client (client.ts) feeds it
 * the socket's callbacks, its timers and its heartbeat, and carries out the effects; nothing here touches a
 * socket, a clock or a timer.
 *
 *   idle ─start→ connecting ─hello_built→ dialing ─socket_open→ hello-sent ─welcome→ ready
 *   connecting ─connect_failed→ backoff;  dialing | hello-sent | ready | closing ─socket_closed→ backoff
 *   hello-sent ─welcome_timeout→ closing;  dialing | hello-sent | ready ─tick (dead)→ closing
 *   backoff ─backoff_elapsed→ connecting;  any ─close→ closed ─start→ connecting
 */

/** Connection-level events the client reports (onEvent). */
export type PushConnectionEvent =
  | { type: "connection"; state: "connecting" | "open" | "closed"; attempt: number; error?: string }
  | { type: "protocol_error"; code: string; message: string };

export type ConnectionState =
  /** Not started. */
  | "idle"
  /** Building this connection's hello (the window's tools, read now). */
  | "connecting"
  /** The socket is opening. */
  | "dialing"
  /** hello went out; waiting for welcome. */
  | "hello-sent"
  /** welcome arrived: frames flow both ways. */
  | "ready"
  /** The client closed the socket (no welcome, or dead); waiting for its close. */
  | "closing"
  /** Waiting out the backoff before the next connect. */
  | "backoff"
  /** close() was called: nothing reconnects until start(). */
  | "closed";

export interface Connection {
  state: ConnectionState;
  /** n of the backoff: failed connects since the last connection that stayed up past welcome for stableMs. */
  attempt: number;
  /** Why the last connection failed ("" once welcomed). */
  lastError: string;
  /** When the socket last showed life (open, frame, pong), in ms. */
  lastSeen: number;
}

export interface ConnectionConfig {
  welcomeTimeoutMs: number;
  deadMs: number;
  backoff: { baseMs: number; capMs: number; stableMs: number };
}

/** What the socket said, the client's timers and heartbeat, and the user's start and close. */
export type ConnectionInput =
  | { type: "start" }
  | { type: "hello_built" }
  /** Building the hello, or dialing, threw. */
  | { type: "connect_failed"; error: string }
  | { type: "socket_open"; now: number }
  /** A frame arrived; `frame` says what the connection needs to know of it. */
  | {
      type: "frame";
      now: number;
      frame: { type: "welcome" } | { type: "error"; code: string; message: string } | { type: "other" };
    }
  | { type: "pong"; now: number }
  | { type: "socket_error"; message: string }
  | { type: "socket_closed"; code: number; reason: string }
  | { type: "welcome_timeout" }
  | { type: "stable" }
  | { type: "backoff_elapsed" }
  /** The heartbeat (every heartbeatMs). */
  | { type: "tick"; now: number }
  | { type: "close" };

export type ConnectionTimer = "welcome" | "stable" | "reconnect";

/** What the client does after a transition, in order. */
export type ConnectionEffect =
  | { type: "emit"; event: PushConnectionEvent }
  /** Build the hello (opts.hello()), then report hello_built or connect_failed. */
  | { type: "build_hello" }
  /** Open the socket with the hello just built. */
  | { type: "dial" }
  | { type: "send_hello" }
  /** Send the results held from a dropped connection, then the frames queued before welcome. */
  | { type: "flush" }
  /** Hand the frame to the turns. */
  | { type: "deliver" }
  | { type: "ping" }
  | { type: "close_socket"; code: number; reason: string }
  /** Drop the socket: its later callbacks are not this connection's. */
  | { type: "forget_socket" }
  | { type: "set_timer"; timer: "welcome" | "stable"; ms: number }
  /** Wait a random time in [0, maxMs) (full jitter), then report backoff_elapsed. */
  | { type: "set_timer"; timer: "reconnect"; maxMs: number }
  | { type: "clear_timer"; timer: ConnectionTimer };

export interface Transition {
  next: Connection;
  effects: ConnectionEffect[];
}

export const initialConnection: Connection = { state: "idle", attempt: 0, lastError: "", lastSeen: 0 };

/** The longest wait before reconnect attempt n: min(cap, base × 2ⁿ). */
export function backoffCeiling(attempt: number, b: ConnectionConfig["backoff"]): number {
  return Math.min(b.capMs, b.baseMs * 2 ** attempt);
}

const WITH_SOCKET: readonly ConnectionState[] = ["dialing", "hello-sent", "ready", "closing"];

/** Whether the connection holds a socket (opening, open or closing). */
export function hasSocket(state: ConnectionState): boolean {
  return WITH_SOCKET.includes(state);
}

/** The transition for one input; an input the state does not expect changes nothing. */
export function transition(c: Connection, input: ConnectionInput, config: ConnectionConfig): Transition {
  const stay: Transition = { next: c, effects: [] };
  const to = (patch: Partial<Connection>, effects: ConnectionEffect[]): Transition => ({
    next: { ...c, ...patch },
    effects,
  });
  const connecting: ConnectionEffect[] = [
    { type: "emit", event: { type: "connection", state: "connecting", attempt: c.attempt } },
    { type: "build_hello" },
  ];
  const reconnectLater: ConnectionEffect = {
    type: "set_timer",
    timer: "reconnect",
    maxMs: backoffCeiling(c.attempt, config.backoff),
  };

  switch (input.type) {
    case "start":
      return c.state === "idle" || c.state === "closed" ? to({ state: "connecting" }, connecting) : stay;
    case "backoff_elapsed":
      return c.state === "backoff" ? to({ state: "connecting" }, connecting) : stay;
    case "hello_built":
      return c.state === "connecting" ? to({ state: "dialing" }, [{ type: "dial" }]) : stay;
    case "connect_failed":
      // No "closed" event: no connection was made.
      if (c.state !== "connecting" && c.state !== "dialing") return stay;
      return to({ state: "backoff", lastError: input.error, attempt: c.attempt + 1 }, [
        { type: "forget_socket" },
        reconnectLater,
      ]);
    case "socket_open":
      if (c.state !== "dialing") return stay;
      return to({ state: "hello-sent", lastSeen: input.now }, [
        { type: "send_hello" },
        { type: "set_timer", timer: "welcome", ms: config.welcomeTimeoutMs },
      ]);
    case "frame":
      if (!hasSocket(c.state)) return stay;
      if (c.state === "hello-sent" && input.frame.type === "welcome") {
        return to({ state: "ready", lastSeen: input.now, lastError: "" }, [
          { type: "clear_timer", timer: "welcome" },
          { type: "set_timer", timer: "stable", ms: config.backoff.stableMs },
          { type: "emit", event: { type: "connection", state: "open", attempt: c.attempt } },
          { type: "flush" },
        ]);
      }
      if (c.state === "hello-sent" && input.frame.type === "error") {
        // A refusal before welcome (unsupported_version): reported, and the reason of the close to come.
        const { code, message } = input.frame;
        return to({ lastSeen: input.now, lastError: `${code}: ${message}` }, [
          { type: "emit", event: { type: "protocol_error", code, message } },
        ]);
      }
      return to({ lastSeen: input.now }, [{ type: "deliver" }]);
    case "pong":
      return hasSocket(c.state) ? to({ lastSeen: input.now }, []) : stay;
    case "socket_error":
      return hasSocket(c.state) ? to({ lastError: input.message }, []) : stay;
    case "welcome_timeout":
      if (c.state !== "hello-sent") return stay;
      return to({ state: "closing", lastError: "no welcome within the timeout" }, [
        { type: "close_socket", code: 4000, reason: "no welcome" },
      ]);
    case "stable":
      return c.state === "ready" ? to({ attempt: 0 }, []) : stay;
    case "tick":
      if (c.state !== "dialing" && c.state !== "hello-sent" && c.state !== "ready") return stay;
      if (input.now - c.lastSeen > config.deadMs) {
        return to({ state: "closing", lastError: "no pong or frame for too long" }, [
          { type: "close_socket", code: 4001, reason: "dead" },
        ]);
      }
      return to({}, [{ type: "ping" }]);
    case "socket_closed": {
      if (!hasSocket(c.state)) return stay;
      const error = c.lastError || `closed (${input.code}${input.reason ? ` ${input.reason}` : ""})`;
      return to({ state: "backoff", lastError: error, attempt: c.attempt + 1 }, [
        { type: "clear_timer", timer: "welcome" },
        { type: "clear_timer", timer: "stable" },
        { type: "forget_socket" },
        { type: "emit", event: { type: "connection", state: "closed", attempt: c.attempt, error } },
        reconnectLater,
      ]);
    }
    case "close": {
      if (c.state === "closed") return stay;
      const effects: ConnectionEffect[] = [
        { type: "clear_timer", timer: "welcome" },
        { type: "clear_timer", timer: "stable" },
        { type: "clear_timer", timer: "reconnect" },
      ];
      if (hasSocket(c.state)) effects.push({ type: "close_socket", code: 1000, reason: "bye" });
      effects.push({ type: "forget_socket" });
      return to({ state: "closed" }, effects);
    }
  }
}
