/**
 * `yui chat --host URL`: a bridge connection from a Node process to a running YUI host, so that main's tools
 * reach the avatar executor main's desktop window holds there (docs/body.md "The avatar executor"). Only the
 * invoke side of the bridge: commands with their answers, cancelled when the caller stops waiting.
 */
import { WebSocket } from "ws";
import { type HostFrame, HostFrameSchema } from "../../src/protocol/frames.ts";
import { BRIDGE_PATH } from "../../src/protocol/limits.ts";

export interface HostBridge {
  invoke(command: string, args: unknown, opts?: { signal?: AbortSignal }): Promise<unknown>;
  close(): void;
}

/** The bridge URL of a host's address (`http://127.0.0.1:<port>/`); only loopback hosts are accepted. */
export function bridgeUrl(host: string): string {
  let u: URL;
  try {
    u = new URL(host);
  } catch {
    throw new Error(
      `--host must be the host's URL, such as http://127.0.0.1:8777/ (got ${JSON.stringify(host)})`,
    );
  }
  if (u.protocol !== "http:" || !["127.0.0.1", "localhost", "[::1]"].includes(u.hostname)) {
    throw new Error(`--host must be a loopback http:// URL, such as http://127.0.0.1:8777/ (got ${host})`);
  }
  return `ws://${u.host}${BRIDGE_PATH}`;
}

/**
 * Connects and waits for the host's hello; rejects when the host cannot be reached. `headers` carry the host's
 * launch secret (host/launch-secret.ts), without which its door refuses the bridge.
 */
export function connectHostBridge(host: string, headers: Record<string, string> = {}): Promise<HostBridge> {
  const url = bridgeUrl(host);
  // A Node client sends no Origin, which the bridge accepts with the secret.
  const ws = new WebSocket(url, { headers });
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let next = 0;
  ws.on("message", (data) => {
    let f: HostFrame;
    try {
      f = HostFrameSchema.parse(JSON.parse(String(data))) as HostFrame;
    } catch {
      return;
    }
    if (f.type !== "result") return;
    const p = pending.get(f.id);
    pending.delete(f.id);
    if (p) f.ok ? p.resolve(f.value) : p.reject(new Error(f.error));
  });
  ws.on("close", () => {
    for (const p of pending.values()) p.reject(new Error("the YUI host is not reachable"));
    pending.clear();
  });
  return new Promise((resolve, reject) => {
    ws.once("error", (e) => reject(new Error(`cannot reach the YUI host at ${host}: ${e.message}`)));
    ws.once("message", () =>
      resolve({
        invoke(command, args, opts) {
          if (ws.readyState !== WebSocket.OPEN)
            return Promise.reject(new Error("the YUI host is not reachable"));
          const id = ++next;
          return new Promise((res, rej) => {
            pending.set(id, { resolve: res, reject: rej });
            ws.send(JSON.stringify({ type: "invoke", id, command, args }));
            opts?.signal?.addEventListener(
              "abort",
              () => {
                if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: "cancel", id }));
              },
              { once: true },
            );
          });
        },
        close: () => ws.close(),
      }),
    );
  });
}
