/**
 * `yui chat --host URL`: a bridge connection from a Node process to a running YUI host, so that main's tools
 * reach the avatar executor main's desktop window holds there (docs/body.md "The avatar executor"). The bridge
 * client is the pages' own (src/io/bridge/client.ts) over `ws`, since Node 20 has no WebSocket of its own.
 */
import { WebSocket } from "ws";
import { type BridgeClient, createBridgeClient, type OpenBridgeSocket } from "../../src/io/bridge/client.ts";
import { BRIDGE_PATH } from "../../src/protocol/limits.ts";

export type HostBridge = BridgeClient;

/** How a Node process connects to the host's bridge. */
export interface HostBridgeOptions {
  /** Extra headers of the WebSocket upgrade. */
  headers?: Record<string, string>;
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

/** Opens `ws` WebSockets for the bridge client, with the options' headers. */
export function nodeBridgeSocket(options: HostBridgeOptions = {}): OpenBridgeSocket {
  return (url, on) => {
    // The bridge refuses a non-loopback Origin; a Node client sends none by default, which it accepts.
    const ws = new WebSocket(url, { headers: options.headers });
    ws.on("open", () => on.open());
    ws.on("message", (data, isBinary) => {
      if (!isBinary) on.message(data.toString());
    });
    ws.on("error", (e) => on.error(e));
    ws.on("close", () => on.close());
    return {
      send: (text) => ws.send(text),
      close: () => ws.close(),
      get open() {
        return ws.readyState === WebSocket.OPEN;
      },
    };
  };
}

/** Connects and waits for the host's hello; rejects when the host cannot be reached. */
export async function connectHostBridge(host: string, options: HostBridgeOptions = {}): Promise<HostBridge> {
  const client = createBridgeClient({ url: bridgeUrl(host), socket: nodeBridgeSocket(options) });
  try {
    await client.ready;
  } catch (e) {
    client.close();
    throw new Error(`cannot reach the YUI host at ${host}: ${(e as Error).message}`);
  }
  return client;
}
