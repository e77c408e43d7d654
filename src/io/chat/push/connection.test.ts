import { describe, expect, it } from "vitest";
import {
  backoffCeiling,
  type Connection,
  type ConnectionConfig,
  type ConnectionEffect,
  type ConnectionInput,
  type ConnectionState,
  initialConnection,
  transition,
} from "./connection.ts";

// The documented defaults (docs/push-transport.md): welcome within 10 s, dead after 45 s, backoff
// min(30 s, 0.5 s × 2ⁿ), reset after 30 s up past welcome.
const config: ConnectionConfig = {
  welcomeTimeoutMs: 10_000,
  deadMs: 45_000,
  backoff: { baseMs: 500, capMs: 30_000, stableMs: 30_000 },
};

const at = (state: ConnectionState, patch: Partial<Connection> = {}): Connection => ({
  ...initialConnection,
  state,
  ...patch,
});

const welcome: ConnectionInput = { type: "frame", now: 5, frame: { type: "welcome" } };
const refused: ConnectionInput = {
  type: "frame",
  now: 5,
  frame: { type: "error", code: "unsupported_version", message: "v2 only" },
};
const other: ConnectionInput = { type: "frame", now: 5, frame: { type: "other" } };

type Row = [
  name: string,
  from: Connection,
  input: ConnectionInput,
  to: Partial<Connection> & { state: ConnectionState },
  effects: ConnectionEffect[],
];

const rows: Row[] = [
  [
    "start dials: connecting, then the hello is built",
    at("idle"),
    { type: "start" },
    { state: "connecting" },
    [
      { type: "emit", event: { type: "connection", state: "connecting", attempt: 0 } },
      { type: "build_hello" },
    ],
  ],
  [
    "start after close connects again, attempt kept",
    at("closed", { attempt: 2 }),
    { type: "start" },
    { state: "connecting", attempt: 2 },
    [
      { type: "emit", event: { type: "connection", state: "connecting", attempt: 2 } },
      { type: "build_hello" },
    ],
  ],
  ["start while ready changes nothing", at("ready"), { type: "start" }, { state: "ready" }, []],
  [
    "the hello is built: dial",
    at("connecting"),
    { type: "hello_built" },
    { state: "dialing" },
    [{ type: "dial" }],
  ],
  ["a hello built after close dials nothing", at("closed"), { type: "hello_built" }, { state: "closed" }, []],
  [
    "building the hello failed: back off without a closed event",
    at("connecting", { attempt: 1 }),
    { type: "connect_failed", error: "boom" },
    { state: "backoff", attempt: 2, lastError: "boom" },
    [{ type: "forget_socket" }, { type: "set_timer", timer: "reconnect", maxMs: 1000 }],
  ],
  [
    "the socket opens: hello goes out and the welcome timer starts",
    at("dialing"),
    { type: "socket_open", now: 7 },
    { state: "hello-sent", lastSeen: 7 },
    [{ type: "send_hello" }, { type: "set_timer", timer: "welcome", ms: 10_000 }],
  ],
  [
    "welcome: open, the stable timer starts, held results and queued frames go out",
    at("hello-sent", { attempt: 3, lastError: "closed (1006)" }),
    welcome,
    { state: "ready", attempt: 3, lastError: "", lastSeen: 5 },
    [
      { type: "clear_timer", timer: "welcome" },
      { type: "set_timer", timer: "stable", ms: 30_000 },
      { type: "emit", event: { type: "connection", state: "open", attempt: 3 } },
      { type: "flush" },
    ],
  ],
  [
    "an error before welcome is reported and kept as the reason, not handed to the turns",
    at("hello-sent"),
    refused,
    { state: "hello-sent", lastError: "unsupported_version: v2 only", lastSeen: 5 },
    [{ type: "emit", event: { type: "protocol_error", code: "unsupported_version", message: "v2 only" } }],
  ],
  [
    "an error after welcome goes to the turns",
    at("ready"),
    refused,
    { state: "ready", lastSeen: 5 },
    [{ type: "deliver" }],
  ],
  [
    "a frame before welcome still goes to the turns",
    at("hello-sent"),
    other,
    { state: "hello-sent", lastSeen: 5 },
    [{ type: "deliver" }],
  ],
  [
    "a second welcome goes to the turns (which ignore it)",
    at("ready"),
    welcome,
    { state: "ready", lastSeen: 5 },
    [{ type: "deliver" }],
  ],
  ["a frame after close is nobody's", at("closed"), other, { state: "closed", lastSeen: 0 }, []],
  [
    "a pong is life",
    at("ready", { lastSeen: 1 }),
    { type: "pong", now: 9 },
    { state: "ready", lastSeen: 9 },
    [],
  ],
  [
    "no welcome in time: close 4000 and say why",
    at("hello-sent"),
    { type: "welcome_timeout" },
    { state: "closing", lastError: "no welcome within the timeout" },
    [{ type: "close_socket", code: 4000, reason: "no welcome" }],
  ],
  [
    "a welcome timer that fires after welcome changes nothing",
    at("ready"),
    { type: "welcome_timeout" },
    { state: "ready" },
    [],
  ],
  [
    "stable for 30 s past welcome resets n",
    at("ready", { attempt: 4 }),
    { type: "stable" },
    { state: "ready", attempt: 0 },
    [],
  ],
  [
    "heartbeat on a live connection pings",
    at("ready", { lastSeen: 1_000 }),
    { type: "tick", now: 46_000 },
    { state: "ready" },
    [{ type: "ping" }],
  ],
  [
    "heartbeat after 45 s without pong or frame: close 4001",
    at("ready", { lastSeen: 1_000 }),
    { type: "tick", now: 46_001 },
    { state: "closing", lastError: "no pong or frame for too long" },
    [{ type: "close_socket", code: 4001, reason: "dead" }],
  ],
  [
    "heartbeat while closing does nothing",
    at("closing"),
    { type: "tick", now: 1e9 },
    { state: "closing" },
    [],
  ],
  [
    "heartbeat while backing off does nothing",
    at("backoff"),
    { type: "tick", now: 1e9 },
    { state: "backoff" },
    [],
  ],
  [
    "a socket error is the reason of the close to come",
    at("dialing"),
    { type: "socket_error", message: "ECONNREFUSED" },
    { state: "dialing", lastError: "ECONNREFUSED" },
    [],
  ],
  [
    "the socket closed: closed event with the reason, back off min(30 s, 0.5 s × 2ⁿ)",
    at("ready", { attempt: 2 }),
    { type: "socket_closed", code: 1006, reason: "" },
    { state: "backoff", attempt: 3, lastError: "closed (1006)" },
    [
      { type: "clear_timer", timer: "welcome" },
      { type: "clear_timer", timer: "stable" },
      { type: "forget_socket" },
      { type: "emit", event: { type: "connection", state: "closed", attempt: 2, error: "closed (1006)" } },
      { type: "set_timer", timer: "reconnect", maxMs: 2_000 },
    ],
  ],
  [
    "a close after our own close keeps our reason",
    at("closing", { attempt: 0, lastError: "no welcome within the timeout" }),
    { type: "socket_closed", code: 4000, reason: "no welcome" },
    { state: "backoff", attempt: 1, lastError: "no welcome within the timeout" },
    [
      { type: "clear_timer", timer: "welcome" },
      { type: "clear_timer", timer: "stable" },
      { type: "forget_socket" },
      {
        type: "emit",
        event: { type: "connection", state: "closed", attempt: 0, error: "no welcome within the timeout" },
      },
      { type: "set_timer", timer: "reconnect", maxMs: 500 },
    ],
  ],
  [
    "a close after close() reconnects nothing",
    at("closed"),
    { type: "socket_closed", code: 1000, reason: "bye" },
    { state: "closed" },
    [],
  ],
  [
    "the backoff ran out: connect again",
    at("backoff", { attempt: 1 }),
    { type: "backoff_elapsed" },
    { state: "connecting" },
    [
      { type: "emit", event: { type: "connection", state: "connecting", attempt: 1 } },
      { type: "build_hello" },
    ],
  ],
  [
    "close() with a socket: every timer off, close 1000 bye",
    at("ready"),
    { type: "close" },
    { state: "closed" },
    [
      { type: "clear_timer", timer: "welcome" },
      { type: "clear_timer", timer: "stable" },
      { type: "clear_timer", timer: "reconnect" },
      { type: "close_socket", code: 1000, reason: "bye" },
      { type: "forget_socket" },
    ],
  ],
  [
    "close() while backing off: no socket to close",
    at("backoff"),
    { type: "close" },
    { state: "closed" },
    [
      { type: "clear_timer", timer: "welcome" },
      { type: "clear_timer", timer: "stable" },
      { type: "clear_timer", timer: "reconnect" },
      { type: "forget_socket" },
    ],
  ],
];

describe("push connection: (state, input) → (state, effects)", () => {
  it.each(rows)("%s", (_name, from, input, to, effects) => {
    const t = transition(from, input, config);
    expect(t.next).toEqual({ ...from, ...to });
    expect(t.effects).toEqual(effects);
  });
});

describe("push connection: backoff", () => {
  it("the n-th attempt waits at most min(30 s, 0.5 s × 2ⁿ)", () => {
    expect([0, 1, 2, 5, 6, 20].map((n) => backoffCeiling(n, config.backoff))).toEqual([
      500, 1_000, 2_000, 16_000, 30_000, 30_000,
    ]);
  });

  it("a whole life: connect, refused, back off, connect, welcome, stable, drop, close", () => {
    let c = initialConnection;
    const seen: string[] = [];
    const feed = (input: ConnectionInput) => {
      const t = transition(c, input, config);
      c = t.next;
      seen.push(`${input.type}→${c.state}`);
      return t.effects;
    };
    feed({ type: "start" });
    feed({ type: "hello_built" });
    feed({ type: "socket_open", now: 0 });
    feed(refused);
    const closed = feed({ type: "socket_closed", code: 1000, reason: "" });
    expect(closed).toContainEqual({
      type: "emit",
      event: { type: "connection", state: "closed", attempt: 0, error: "unsupported_version: v2 only" },
    });
    feed({ type: "backoff_elapsed" });
    feed({ type: "hello_built" });
    feed({ type: "socket_open", now: 10 });
    expect(feed(welcome)).toContainEqual({
      type: "emit",
      event: { type: "connection", state: "open", attempt: 1 },
    });
    feed({ type: "stable" });
    expect(c.attempt).toBe(0);
    feed({ type: "close" });
    expect(seen).toEqual([
      "start→connecting",
      "hello_built→dialing",
      "socket_open→hello-sent",
      "frame→hello-sent",
      "socket_closed→backoff",
      "backoff_elapsed→connecting",
      "hello_built→dialing",
      "socket_open→hello-sent",
      "frame→ready",
      "stable→ready",
      "close→closed",
    ]);
  });
});
