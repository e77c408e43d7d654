/**
 * The reference push backend (docs/push-transport.md): a scriptable WebSocket server on 127.0.0.1 that answers
 * hello with welcome, records every frame, and hands each turn to a script. For tests and as an example.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { type WebSocket, WebSocketServer } from "ws";
import type { Cue as ContractCue } from "../../src/protocol/cue.ts";

export type Frame = Record<string, unknown> & { type: string };

/** A cue (the contract's) at a position of its segment's text. */
export type Cue = ContractCue & { at: number };

/** What a script can do within one turn. */
export interface TurnScript {
  /** The turn frame the client sent (absent for a turn the backend started). */
  frame?: Frame;
  turnId: string;
  segment(text: string, cues?: Cue[], kind?: "speech" | "render"): void;
  /** Calls a client tool and waits for its tool_result (across reconnects). */
  call(name: string, args: unknown): Promise<Frame>;
  status(callId: string, name: string, status: "running" | "done"): void;
  end(outcome?: "spoken" | "silent" | "error", error?: string): void;
  /** Drops the current connection (the client reconnects). */
  drop(): void;
}

export interface PushBackendOptions {
  /** Runs for every turn frame the client sends. */
  onTurn?: (t: TurnScript) => void | Promise<void>;
  /** Answer hello with this instead of the standard welcome (e.g. an unsupported_version error). */
  onHello?: (hello: Frame, ws: WebSocket) => boolean;
  /** Required bearer token, if any. */
  token?: string;
}

export interface PushBackend {
  url: string;
  /** Every frame received, in order, with the connection number (1-based). */
  frames: { conn: number; frame: Frame }[];
  hellos: Frame[];
  /** Upgrade request headers per connection. */
  upgrades: IncomingHttpHeaders[];
  /** Sends a raw text frame on the current connection. */
  sendRaw(text: string): void;
  /** Starts a turn of the backend's own on the current connection. */
  startTurn(turnId: string, run: (t: TurnScript) => void | Promise<void>): Promise<void>;
  /** Resolves when the n-th connection got its welcome. */
  connected(n: number): Promise<void>;
  dropConnection(): void;
  close(): Promise<void>;
}

/** Starts the reference push backend on 127.0.0.1 (a free port); its url is ws://127.0.0.1:<port>/push. */
export async function startPushBackend(opts: PushBackendOptions = {}): Promise<PushBackend> {
  const http = createServer((_req, res) => {
    res.writeHead(426).end("WebSocket only");
  });
  const wss = new WebSocketServer({ noServer: true });
  const frames: PushBackend["frames"] = [];
  const hellos: Frame[] = [];
  const upgrades: IncomingHttpHeaders[] = [];
  let current: WebSocket | null = null;
  let connCount = 0;
  let callCount = 0;
  const waiting = new Map<string, (f: Frame) => void>();
  const welcomeWaiters: { n: number; resolve: () => void }[] = [];
  let welcomed = 0;

  const send = (f: Frame) => current?.send(JSON.stringify(f));

  const script = (turnId: string, frame?: Frame): TurnScript => ({
    frame,
    turnId,
    segment: (text, cues, kind) =>
      send({ type: "segment", turn_id: turnId, text, ...(kind ? { kind } : {}), ...(cues ? { cues } : {}) }),
    call: (name, args) => {
      const callId = `call_${++callCount}`;
      const done = new Promise<Frame>((resolve) => waiting.set(callId, resolve));
      send({ type: "tool_call", turn_id: turnId, call_id: callId, name, arguments: args });
      return done;
    },
    status: (callId, name, status) =>
      send({ type: "tool_status", turn_id: turnId, call_id: callId, name, status }),
    end: (outcome = "spoken", error) =>
      send({ type: "turn_end", turn_id: turnId, outcome, ...(error !== undefined ? { error } : {}) }),
    drop: () => current?.terminate(),
  });

  http.on("upgrade", (req, socket, head) => {
    if (opts.token && req.headers.authorization !== `Bearer ${opts.token}`) {
      socket.end("HTTP/1.1 401 Unauthorized\r\n\r\n");
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      upgrades.push(req.headers);
      const conn = ++connCount;
      current = ws;
      ws.on("message", (data) => {
        let frame: Frame;
        try {
          frame = JSON.parse(data.toString()) as Frame;
        } catch {
          frame = { type: "(not json)", raw: data.toString() };
        }
        frames.push({ conn, frame });
        if (frame.type === "hello") {
          hellos.push(frame);
          if (opts.onHello?.(frame, ws)) return;
          ws.send(JSON.stringify({ type: "welcome", v: 1, backend: { name: "reference" } }));
          welcomed = conn;
          for (const w of welcomeWaiters.splice(0)) {
            if (w.n <= conn) w.resolve();
            else welcomeWaiters.push(w);
          }
        } else if (frame.type === "tool_result") {
          const r = waiting.get(String(frame.call_id));
          waiting.delete(String(frame.call_id));
          r?.(frame);
        } else if (frame.type === "turn" && opts.onTurn) {
          void Promise.resolve(opts.onTurn(script(String(frame.turn_id), frame))).catch((e) =>
            send({ type: "error", code: "turn_failed", message: String(e), turn_id: String(frame.turn_id) }),
          );
        }
      });
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}/push`,
    frames,
    hellos,
    upgrades,
    sendRaw: (text) => current?.send(text),
    startTurn: async (turnId, run) => run(script(turnId)),
    connected: (n) =>
      new Promise<void>((resolve) => {
        if (welcomed >= n) resolve();
        else welcomeWaiters.push({ n, resolve });
      }),
    dropConnection: () => current?.terminate(),
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of wss.clients) c.terminate();
        wss.close();
        http.close(() => resolve());
      }),
  };
}
