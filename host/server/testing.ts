/** Test helpers for the host: raw loopback requests with any Host/Origin, and a bridge client in Node. */
import { rawRequest as kitRawRequest, type RawResponse } from "@yui/mod-kit/testing";
import WebSocket from "ws";

/** The mod kit's raw request (exactly the headers given, Host included), addressed by port and path. */
export function rawRequest(
  port: number,
  path: string,
  headers: Record<string, string>,
  method = "GET",
  body?: string,
): Promise<RawResponse> {
  return kitRawRequest(`http://127.0.0.1:${port}${path}`, { method, headers, body });
}

/** Tries a WebSocket upgrade with the given headers; resolves the refusal status, or 101 when it opened. */
export function upgradeStatus(port: number, path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}${path}`, {
      headers,
      setHost: false,
    } as WebSocket.ClientOptions);
    ws.on("open", () => {
      ws.terminate();
      resolve(101);
    });
    ws.on("unexpected-response", (_req, res) => {
      resolve(res.statusCode ?? 0);
      res.resume();
    });
    ws.on("error", () => {});
  });
}

/** A bridge connection for tests: every frame received is kept (as text) and invoke awaits its answer. */
export async function bridgeClient(port: number) {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/bridge`);
  const frames: string[] = [];
  const waiters = new Map<number, (f: { ok: boolean; value?: unknown; error?: string }) => void>();
  let hello: (s: Record<string, unknown>) => void = () => {};
  const ready = new Promise<Record<string, unknown>>((r) => {
    hello = r;
  });
  ws.on("message", (d) => {
    const text = d.toString();
    frames.push(text);
    const f = JSON.parse(text) as { type: string; id?: number; snapshot?: Record<string, unknown> };
    if (f.type === "hello") hello(f.snapshot!);
    if (f.type === "result") waiters.get(f.id!)?.(f as never);
  });
  const snapshot = await ready;
  let id = 0;
  return {
    frames,
    snapshot,
    invoke(command: string, args: unknown = {}): Promise<{ ok: boolean; value?: unknown; error?: string }> {
      const n = ++id;
      return new Promise((resolve) => {
        waiters.set(n, resolve);
        ws.send(JSON.stringify({ type: "invoke", id: n, command, args }));
      });
    },
    emit(name: string, payload: unknown) {
      ws.send(JSON.stringify({ type: "emit", name, payload }));
    },
    close: () => ws.close(),
  };
}
