/**
 * The bridge's client (docs/app.md "The bridge protocol"), one for a page and for a Node process (`yui chat
 * --host`, tests): one WebSocket to the host's `/bridge`. `invoke` sends a command of the contract and resolves
 * its answer, checked by the command's answer schema (src/protocol/commands.ts), so no caller restates an answer
 * type; a stopped caller cancels the command on the host. `on` listens to events, `emit` sends an app event.
 *
 * The socket is handed in: a page opens the browser's WebSocket (src/ui/bridge-client.ts); Node 20 has none, so
 * host/chat/host-bridge.ts opens `ws`'s, with the upgrade headers it needs.
 */
import { COMMANDS, type CommandAnswer, type CommandArgs, type CommandName } from "../../protocol/commands.ts";
import { type HostFrame, HostFrameSchema, type WindowFrame } from "../../protocol/frames.ts";
import { BRIDGE_RECONNECT_MS } from "../../protocol/limits.ts";

/** The bridge's connection state, for the UI's status dot. */
export type BridgeState = "connecting" | "open" | "closed";

/** Thrown by invoke while the host cannot be reached. */
export class BridgeDownError extends Error {
  override name = "BridgeDownError";
}

/** What a socket tells the client. */
export interface BridgeSocketEvents {
  open(): void;
  /** One text frame. */
  message(text: string): void;
  close(): void;
  error(e: Error): void;
}

/** A socket the client writes to. */
export interface BridgeSocket {
  send(text: string): void;
  close(): void;
  readonly open: boolean;
}

/** Opens a socket to `url` that reports to `on`. */
export type OpenBridgeSocket = (url: string, on: BridgeSocketEvents) => BridgeSocket;

/** Sends one command of the contract; its arguments and its answer are typed by the command's schemas. */
export type BridgeInvoke = <C extends CommandName>(
  command: C,
  args: CommandArgs<C>,
  opts?: { signal?: AbortSignal },
) => Promise<CommandAnswer<C>>;

export interface BridgeClient {
  invoke: BridgeInvoke;
  /** Listens to one event name; returns the unsubscribe. */
  on(name: string, fn: (payload: unknown) => void): () => void;
  emit(name: string, payload: unknown): void;
  /** Called with the store snapshot on every (re)connect. */
  onHello(fn: (snapshot: Record<string, unknown>) => void): () => void;
  onState(fn: (s: BridgeState) => void): () => void;
  /** Resolves at the first hello; rejects with why when a client that does not reconnect could not connect. */
  ready: Promise<void>;
  close(): void;
}

export interface BridgeClientOptions {
  /** The bridge's ws:// URL. */
  url: string;
  socket: OpenBridgeSocket;
  /** Connects again after the host went away, backing off (a page). Without it the client stays closed. */
  reconnect?: boolean;
}

const NOT_REACHABLE = "the YUI host is not reachable";
const frame = (f: WindowFrame): string => JSON.stringify(f);

/** A command's answer from the host, as its schema reads it; throws naming the command when it does not fit. */
function answerOf<C extends CommandName>(command: C, value: unknown): CommandAnswer<C> {
  const r = COMMANDS[command].answer.safeParse(value);
  if (!r.success) throw new Error(`${command}: unexpected answer from the host`);
  return r.data as CommandAnswer<C>;
}

/** Connects a bridge client over the given socket. */
export function createBridgeClient(opts: BridgeClientOptions): BridgeClient {
  let sock: BridgeSocket | null = null;
  let nextId = 1;
  let closed = false;
  let attempt = 0;
  let hello = false;
  let lastError: Error | null = null;
  const pending = new Map<
    number,
    { command: CommandName; resolve(v: unknown): void; reject(e: Error): void }
  >();
  const listeners = new Map<string, Set<(p: unknown) => void>>();
  const hellos = new Set<(s: Record<string, unknown>) => void>();
  const states = new Set<(s: BridgeState) => void>();
  let markReady: () => void = () => {};
  let failReady: (e: Error) => void = () => {};
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    failReady = reject;
  });
  // A caller that never awaits ready must not see an unhandled rejection.
  ready.catch(() => {});
  const setState = (s: BridgeState) => {
    for (const fn of states) fn(s);
  };

  const onFrame = (text: string) => {
    let f: HostFrame;
    try {
      f = HostFrameSchema.parse(JSON.parse(text)) as HostFrame;
    } catch {
      return;
    }
    if (f.type === "hello") {
      attempt = 0;
      hello = true;
      setState("open");
      for (const fn of hellos) fn(f.snapshot);
      markReady();
    } else if (f.type === "result") {
      const p = pending.get(f.id);
      pending.delete(f.id);
      if (!p) return;
      if (!f.ok) p.reject(new Error(f.error));
      else {
        try {
          p.resolve(answerOf(p.command, f.value));
        } catch (e) {
          p.reject(e as Error);
        }
      }
    } else if (f.type === "event") {
      for (const fn of listeners.get(f.name) ?? []) fn(f.payload);
    }
  };

  const onClose = () => {
    sock = null;
    // The host went away: every command in flight fails now rather than hanging.
    for (const p of pending.values()) p.reject(new BridgeDownError(NOT_REACHABLE));
    pending.clear();
    setState("closed");
    if (!hello && !opts.reconnect) failReady(lastError ?? new Error("the connection closed"));
    if (closed || !opts.reconnect) return;
    const delay = Math.min(BRIDGE_RECONNECT_MS.max, BRIDGE_RECONNECT_MS.first * 2 ** attempt++);
    setTimeout(open, delay);
  };

  function open(): void {
    setState("connecting");
    sock = opts.socket(opts.url, {
      open: () => {},
      message: onFrame,
      close: onClose,
      error: (e) => {
        lastError = e;
      },
    });
  }
  open();

  const invoke: BridgeInvoke = (command, args, o = {}) => {
    const s = sock;
    if (!s?.open) return Promise.reject(new BridgeDownError(NOT_REACHABLE));
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { command, resolve: resolve as (v: unknown) => void, reject });
      s.send(frame({ type: "invoke", id, command, args }));
      o.signal?.addEventListener(
        "abort",
        () => {
          if (s.open) s.send(frame({ type: "cancel", id }));
        },
        { once: true },
      );
    });
  };

  return {
    invoke,
    on(name, fn) {
      const set = listeners.get(name) ?? new Set();
      listeners.set(name, set);
      set.add(fn);
      return () => set.delete(fn);
    },
    emit(name, payload) {
      if (sock?.open) sock.send(frame({ type: "emit", name, payload }));
    },
    onHello(fn) {
      hellos.add(fn);
      return () => hellos.delete(fn);
    },
    onState(fn) {
      states.add(fn);
      return () => states.delete(fn);
    },
    ready,
    close() {
      closed = true;
      sock?.close();
    },
  };
}
