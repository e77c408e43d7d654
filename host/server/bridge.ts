/**
 * The bridge between windows and the host (Tauri's invoke and events), one WebSocket per window at
 * `/bridge` (docs/app.md): a window invokes a command and awaits its answer, cancels one it stopped waiting
 * for, emits an app event to every window, and hears events: store changes (secret keys without their
 * value), `yui://character-addressed`, signals. The first frame is `hello` with a snapshot of the store.
 */
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { type WebSocket, WebSocketServer } from "ws";
import {
  STORE_CHANGED_EVENT,
  type StoreChanged,
  WINDOW_EVENT_SCHEMAS,
  WINDOW_EVENTS,
} from "../../src/protocol/events.ts";
import { type HostFrame, type WindowFrame, WindowFrameSchema } from "../../src/protocol/frames.ts";
import { BRIDGE_MAX_BUFFERED, BRIDGE_MAX_FRAME, BRIDGE_PATH } from "../../src/protocol/limits.ts";
import type { CommandTable } from "../commands.ts";
import { isSecretKey, registeredKeys } from "../store/schema.ts";
import type { Store } from "../store/store.ts";

// The frames, events and limits are the host–page contract's (src/protocol/); re-exported for the host's callers.
export { BRIDGE_PATH, type HostFrame, STORE_CHANGED_EVENT, WINDOW_EVENTS };

/** Every non-secret value a page may see: stored keys plus the defaults of the exact keys. */
export function storeSnapshot(store: Store): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const spec of registeredKeys()) {
    if (!spec.pattern.includes("<") && !spec.secret) out[spec.pattern] = store.get(spec.pattern);
  }
  for (const key of store.list()) if (!isSecretKey(key)) out[key] = store.get(key);
  return out;
}

export interface Bridge {
  /** Takes over an upgrade request for BRIDGE_PATH (the caller has let it through the door). */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Sends an event to every window. */
  broadcast(name: string, payload: unknown): void;
  /** Windows connected now. */
  size(): number;
  close(): void;
}

/** The answer to an invoke frame whose shape the contract refuses (no command name, say). */
export const INVALID_FRAME = "invalid frame: an invoke carries {type, id, command, args}";

/** The answer a command gets when its value cannot be sent (nested too deep for JSON, say). */
export const UNSENDABLE_ANSWER = "the answer could not be encoded as JSON";

// JSON of a frame, or null when it cannot be made (a value nested thousands deep overflows the stack).
function encode(frame: HostFrame): string | null {
  try {
    return JSON.stringify(frame);
  } catch {
    return null;
  }
}

/** Creates the bridge over the host's command table and store. */
export function createBridge(
  commands: CommandTable,
  store: Store,
  log: (line: string) => void = console.error,
): Bridge {
  const wss = new WebSocketServer({ noServer: true, maxPayload: BRIDGE_MAX_FRAME });
  const clients = new Set<WebSocket>();
  // Back-pressure: a window that leaves more than BRIDGE_MAX_BUFFERED unread is dropped, not fed forever.
  const sendText = (ws: WebSocket, text: string) => {
    if (ws.readyState !== ws.OPEN) return;
    if (ws.bufferedAmount + text.length > BRIDGE_MAX_BUFFERED) {
      log(`bridge: a window left ${ws.bufferedAmount} bytes unread; dropping it`);
      ws.terminate();
      return;
    }
    ws.send(text);
  };
  const send = (ws: WebSocket, frame: HostFrame) => {
    const text = encode(frame);
    if (text !== null) return sendText(ws, text);
    if (frame.type === "result")
      sendText(ws, JSON.stringify({ ...frame, ok: false, error: UNSENDABLE_ANSWER }));
    else log(`bridge: a ${frame.type} frame could not be encoded; not sent`);
  };
  const broadcast = (name: string, payload: unknown) => {
    const text = encode({ type: "event", name, payload });
    if (text === null) return log(`bridge: the event ${name} could not be encoded; not sent`);
    for (const ws of clients) sendText(ws, text);
  };
  const offStore = store.onChange((c) => {
    // A secret's change says only that it changed: the value stays in the host.
    const payload: StoreChanged = c.secret
      ? { key: c.key, deleted: c.deleted, secret: true }
      : { key: c.key, value: c.value, deleted: c.deleted, who: c.who };
    broadcast(STORE_CHANGED_EVENT, payload);
  });

  // One frame from a window: a command, a cancel, or an event to relay (its payload parsed with its schema).
  const onFrame = async (ws: WebSocket, running: Map<number, AbortController>, frame: WindowFrame) => {
    if (frame.type === "cancel") {
      running.get(frame.id)?.abort();
      return;
    }
    if (frame.type === "emit") {
      const schema = WINDOW_EVENT_SCHEMAS[frame.name];
      const parsed = schema?.safeParse(frame.payload);
      if (parsed?.success) broadcast(frame.name, parsed.data);
      return;
    }
    const ac = new AbortController();
    running.set(frame.id, ac);
    try {
      const value = await commands.invoke(frame.command, frame.args, { signal: ac.signal });
      send(ws, { type: "result", id: frame.id, ok: true, value: value ?? null });
    } catch (e) {
      send(ws, { type: "result", id: frame.id, ok: false, error: (e as Error)?.message || String(e) });
    } finally {
      running.delete(frame.id);
    }
  };

  wss.on("connection", (ws) => {
    clients.add(ws);
    const running = new Map<number, AbortController>();
    send(ws, { type: "hello", snapshot: storeSnapshot(store) });
    ws.on("message", (data, isBinary) => {
      if (isBinary) return;
      let raw: unknown;
      try {
        raw = JSON.parse(data.toString());
      } catch {
        return; // not JSON: nothing to answer to
      }
      const parsed = WindowFrameSchema.safeParse(raw);
      if (!parsed.success) {
        // An invoke with an id but a shape the contract refuses is answered, so its caller hears why at once.
        const id = (raw as { type?: unknown; id?: unknown } | null)?.id;
        if ((raw as { type?: unknown } | null)?.type === "invoke" && Number.isInteger(id))
          send(ws, { type: "result", id: id as number, ok: false, error: INVALID_FRAME });
        return;
      }
      const frame: WindowFrame = parsed.data;
      onFrame(ws, running, frame).catch((e: unknown) =>
        log(`bridge: a frame failed: ${(e as Error)?.message ?? e}`),
      );
    });
    ws.on("close", () => {
      clients.delete(ws);
      // The window went away: its pending commands hear that their caller stopped waiting.
      for (const ac of running.values()) ac.abort();
    });
    ws.on("error", () => ws.terminate());
  });

  return {
    handleUpgrade(req, socket, head) {
      wss.handleUpgrade(req, socket, head, (ws) => wss.emit("connection", ws, req));
    },
    broadcast,
    size: () => clients.size,
    close() {
      offStore();
      for (const ws of clients) ws.terminate();
      wss.close();
    },
  };
}
