/**
 * The window's side of the bridge (docs/app.md): one WebSocket to the host's `/bridge`, reconnecting after a
 * host restart. `invoke` sends a command and awaits its answer (a stopped caller cancels it on the host);
 * `on` listens to events; `emit` sends an app event to every window.
 */

import type { CommandAnswer, CommandArgs, CommandName } from "../protocol/commands.ts";
import { type HostFrame, HostFrameSchema, type WindowFrame } from "../protocol/frames.ts";
import { BRIDGE_PATH, BRIDGE_RECONNECT_MS } from "../protocol/limits.ts";

/** The bridge's connection state, for the UI's status dot. */
export type BridgeState = "connecting" | "open" | "closed";

/** Thrown by invoke while the host cannot be reached. */
export class BridgeDownError extends Error {
  override name = "BridgeDownError";
}

export interface BridgeClient {
  /** A command of the contract (src/protocol/commands.ts): its arguments and answer typed. */
  invoke<C extends CommandName>(
    command: C,
    args: CommandArgs<C>,
    opts?: { signal?: AbortSignal },
  ): Promise<CommandAnswer<C>>;
  invoke<T = unknown>(command: string, args?: unknown, opts?: { signal?: AbortSignal }): Promise<T>;
  /** Listens to one event name; returns the unsubscribe. */
  on(name: string, fn: (payload: unknown) => void): () => void;
  emit(name: string, payload: unknown): void;
  /** Called with the store snapshot on every (re)connect. */
  onHello(fn: (snapshot: Record<string, unknown>) => void): () => void;
  onState(fn: (s: BridgeState) => void): () => void;
  /** Resolves at the first hello. */
  ready: Promise<void>;
  close(): void;
}

const frame = (f: WindowFrame): string => JSON.stringify(f);

/** Connects to the host that served this page (or `url`). */
export function connectBridge(
  url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}${BRIDGE_PATH}`,
): BridgeClient {
  let ws: WebSocket | null = null;
  let nextId = 1;
  let closed = false;
  let attempt = 0;
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  const listeners = new Map<string, Set<(p: unknown) => void>>();
  const hellos = new Set<(s: Record<string, unknown>) => void>();
  const states = new Set<(s: BridgeState) => void>();
  let markReady: () => void = () => {};
  const ready = new Promise<void>((r) => {
    markReady = r;
  });
  const setState = (s: BridgeState) => {
    for (const fn of states) fn(s);
  };

  function open(): void {
    setState("connecting");
    const sock = new WebSocket(url);
    ws = sock;
    sock.onmessage = (ev) => {
      let f: HostFrame;
      try {
        f = HostFrameSchema.parse(JSON.parse(String(ev.data))) as HostFrame;
      } catch {
        return;
      }
      if (f.type === "hello") {
        attempt = 0;
        setState("open");
        for (const fn of hellos) fn(f.snapshot);
        markReady();
      } else if (f.type === "result") {
        const p = pending.get(f.id);
        pending.delete(f.id);
        if (p) f.ok ? p.resolve(f.value) : p.reject(new Error(f.error));
      } else if (f.type === "event") {
        for (const fn of listeners.get(f.name) ?? []) fn(f.payload);
      }
    };
    sock.onclose = () => {
      ws = null;
      // The host went away: every command in flight fails now rather than hanging.
      for (const p of pending.values()) p.reject(new BridgeDownError("the YUI host is not reachable"));
      pending.clear();
      setState("closed");
      if (closed) return;
      const delay = Math.min(BRIDGE_RECONNECT_MS.max, BRIDGE_RECONNECT_MS.first * 2 ** attempt++);
      setTimeout(open, delay);
    };
  }
  open();

  return {
    invoke<T>(command: string, args: unknown = {}, opts: { signal?: AbortSignal } = {}): Promise<T> {
      const sock = ws;
      if (!sock || sock.readyState !== WebSocket.OPEN) {
        return Promise.reject(new BridgeDownError("the YUI host is not reachable"));
      }
      const id = nextId++;
      return new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        sock.send(frame({ type: "invoke", id, command, args }));
        opts.signal?.addEventListener(
          "abort",
          () => {
            if (sock.readyState === WebSocket.OPEN) sock.send(frame({ type: "cancel", id }));
          },
          { once: true },
        );
      });
    },
    on(name, fn) {
      const set = listeners.get(name) ?? new Set();
      listeners.set(name, set);
      set.add(fn);
      return () => set.delete(fn);
    },
    emit(name, payload) {
      if (ws?.readyState === WebSocket.OPEN) ws.send(frame({ type: "emit", name, payload }));
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
      ws?.close();
    },
  };
}
