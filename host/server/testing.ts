/**
 * Test helpers for the host: raw loopback requests with any Host/Origin, and a bridge client in Node. A test
 * that is one of YUI's own commands passes the host (its `port` and `secret`) and carries the launch secret, as
 * `yui chat --host` does; one that plays someone else passes a bare port and carries nothing.
 */
import { rawRequest as kitRawRequest, type RawResponse } from "@yui/mod-kit/testing";
import WebSocket from "ws";
import { HOST_SECRET_HEADER } from "../launch-secret.ts";

/** A host as a test reaches it: its port, and its secret when the test is one of YUI's own commands. */
export type HostTarget = number | { port: number; secret?: string };

const portOf = (t: HostTarget) => (typeof t === "number" ? t : t.port);

/** The headers of one of YUI's own local commands toward `host`: the launch secret (none for a bare port). */
export function secretHeaders(host: HostTarget): Record<string, string> {
  return typeof host === "number" || !host.secret ? {} : { [HOST_SECRET_HEADER]: host.secret };
}

/** A fetch that adds the host's secret to every request: an engine in Node talking to the host's proxy. */
export function signedFetch(host: { port: number; secret: string }): typeof fetch {
  return (input, init = {}) => {
    const headers = new Headers(init.headers);
    for (const [k, v] of Object.entries(secretHeaders(host))) headers.set(k, v);
    return fetch(input, { ...init, headers });
  };
}

/** fetch toward the host as one of YUI's own commands: `path` on the host, the secret added. */
export function hostFetch(host: { port: number; secret: string }, path: string, init: RequestInit = {}) {
  return fetch(`http://127.0.0.1:${host.port}${path}`, {
    ...init,
    headers: { ...secretHeaders(host), ...(init.headers as Record<string, string> | undefined) },
  });
}

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

/**
 * A bridge connection for tests: every frame received is kept (as text) and invoke awaits its answer. Given the
 * host, it carries the secret (one of YUI's own commands); `headers` add to (or override) what it sends.
 */
export async function bridgeClient(host: HostTarget, headers: Record<string, string> = {}) {
  const ws = new WebSocket(`ws://127.0.0.1:${portOf(host)}/bridge`, {
    headers: { ...secretHeaders(host), ...headers },
  });
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
  const snapshot = await Promise.race([
    ready,
    new Promise<never>((_, reject) => {
      ws.once("unexpected-response", (_req, res) =>
        reject(new Error(`bridge refused: HTTP ${res.statusCode}`)),
      );
      ws.once("error", (e) => reject(e));
    }),
  ]);
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
    /** The socket itself (a test that stops reading, or watches it close). */
    ws,
  };
}
