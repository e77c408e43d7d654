import WebSocket from "ws";
import type { Connect } from "../src/io/chat/push/client.ts";

const MAX_FRAME = 16 * 1024 * 1024;

/** Opens push connections from Node with `ws` (upgrade headers, pings); use as the push client's connect. */
export const nodeConnect: Connect = (url, headers, h) => {
  const ws = new WebSocket(url, { headers, maxPayload: MAX_FRAME, handshakeTimeout: 10_000 });
  ws.on("open", () => h.onOpen());
  ws.on("message", (data, isBinary) => {
    if (!isBinary) h.onMessage(data.toString());
  });
  ws.on("pong", () => h.onPong());
  ws.on("error", (e) => h.onError(e));
  ws.on("close", (code, reason) => h.onClose(code, reason.toString()));
  return {
    send: (text) => ws.send(text),
    close: (code, reason) => {
      if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
      else ws.close(code, reason);
    },
    ping: () => {
      if (ws.readyState === WebSocket.OPEN) ws.ping();
    },
  };
};
