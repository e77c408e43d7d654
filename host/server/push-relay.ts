/**
 * The push relay: a page's WebSocket at `/api/push/<presetId>` is relayed to the preset's `push_url`, the host
 * adding the bearer token it holds (a page cannot set upgrade headers, and must never see the key).
 * Frames pass unchanged both ways, except the page's heartbeat (RELAY_PING, src/protocol/limits.ts), which the relay
 * answers itself; either side closing closes the other.
 */
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocket, WebSocketServer } from "ws";
import type { Preset } from "../../src/app/presets/preset.ts";
import { getPreset, type KeyValue } from "../../src/app/presets/presets.ts";
import { PUSH_MAX_FRAME, PUSH_PREFIX, RELAY_PING, RELAY_PONG } from "../../src/protocol/limits.ts";

/** The relay's route prefix (src/protocol/limits.ts). */
export { PUSH_PREFIX };

// Close codes a peer may not send on the wire (1005, 1006, 1015) become 1011 (internal error).
function sendable(code: number): number {
  return code === 1000 ||
    (code >= 3000 && code < 5000) ||
    (code >= 1001 && code <= 1014 && code !== 1005 && code !== 1006)
    ? code
    : 1011;
}

export interface PushRelayDeps {
  kv: KeyValue;
  apiKey(preset: Preset): string | undefined;
}

/** Creates the relay; `handleUpgrade` answers false when the URL is not a push route. */
export function createPushRelay(deps: PushRelayDeps) {
  const wss = new WebSocketServer({ noServer: true, maxPayload: PUSH_MAX_FRAME });
  const pairs = new Set<WebSocket>();
  return {
    handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean {
      const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
      if (!path.startsWith(PUSH_PREFIX)) return false;
      const preset = getPreset(deps.kv, decodeURIComponent(path.slice(PUSH_PREFIX.length)));
      const target = preset?.backend.push_url;
      if (!preset || !target) {
        socket.end("HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-length: 0\r\n\r\n");
        return true;
      }
      wss.handleUpgrade(req, socket, head, (page) => {
        const key = deps.apiKey(preset);
        const upstream = new WebSocket(target, {
          headers: key ? { authorization: `Bearer ${key}` } : {},
          maxPayload: PUSH_MAX_FRAME,
          handshakeTimeout: 10_000,
        });
        pairs.add(page);
        pairs.add(upstream);
        const held: string[] = [];
        page.on("message", (d, bin) => {
          if (bin) return;
          // The page's heartbeat: answered here while the backend's side is open, pinging that side too.
          if (d.toString() === RELAY_PING) {
            if (upstream.readyState === WebSocket.OPEN) {
              upstream.ping();
              page.send(RELAY_PONG);
            }
            return;
          }
          if (upstream.readyState === WebSocket.OPEN) upstream.send(d.toString());
          else held.push(d.toString());
        });
        upstream.on("open", () => {
          for (const t of held.splice(0)) upstream.send(t);
        });
        upstream.on("message", (d, bin) => {
          if (!bin && page.readyState === WebSocket.OPEN) page.send(d.toString());
        });
        const closeBoth = (code: number, reason: string) => {
          pairs.delete(page);
          pairs.delete(upstream);
          if (page.readyState === WebSocket.OPEN) page.close(sendable(code), reason.slice(0, 120));
          if (upstream.readyState === WebSocket.OPEN) upstream.close(sendable(code), reason.slice(0, 120));
          else if (upstream.readyState === WebSocket.CONNECTING) upstream.terminate();
        };
        upstream.on("close", (c, r) => closeBoth(c, r.toString()));
        page.on("close", (c, r) => closeBoth(c, r.toString()));
        upstream.on("error", (e) => closeBoth(1011, `push backend: ${e.message}`));
        page.on("error", () => closeBoth(1011, ""));
      });
      return true;
    },
    close() {
      for (const ws of pairs) ws.terminate();
      wss.close();
    },
  };
}
