/**
 * The window's side of the bridge (docs/app.md): the shared bridge client (src/io/bridge/client.ts) over the
 * browser's WebSocket to the host that served this page, reconnecting after a host restart.
 */
import {
  type BridgeClient,
  type BridgeSocket,
  type BridgeSocketEvents,
  createBridgeClient,
} from "../io/bridge/client.ts";
import { BRIDGE_PATH } from "../protocol/limits.ts";

export { type BridgeClient, BridgeDownError, type BridgeState } from "../io/bridge/client.ts";

/** Opens the browser's WebSocket for the bridge client. */
export function browserSocket(url: string, on: BridgeSocketEvents): BridgeSocket {
  const ws = new WebSocket(url);
  ws.onopen = () => on.open();
  ws.onmessage = (ev) => on.message(String(ev.data));
  ws.onclose = () => on.close();
  ws.onerror = () => on.error(new Error(`the bridge at ${url} failed`));
  return {
    send: (text) => ws.send(text),
    close: () => ws.close(),
    get open() {
      return ws.readyState === WebSocket.OPEN;
    },
  };
}

/** Connects to the host that served this page (or `url`). */
export function connectBridge(
  url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}${BRIDGE_PATH}`,
): BridgeClient {
  return createBridgeClient({ url, socket: browserSocket, reconnect: true });
}
