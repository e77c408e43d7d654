/** Test helpers for the host: raw loopback requests with any Host/Origin, and a bridge client in Node. */
import { request } from "node:http";
import WebSocket from "ws";

/** One raw answer. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Sends one raw HTTP request to 127.0.0.1:port with exactly the headers given (Host included). */
export function rawRequest(
  port: number,
  path: string,
  headers: Record<string, string>,
  method = "GET",
  body?: string,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, method, headers, setHost: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString("utf8"),
        }),
      );
    });
    req.on("error", reject);
    req.end(body);
  });
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
