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
import { closeReason, decodePart, refuseUpgrade } from "../net.ts";

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
  /** The key for a preset's backend when it may go to `destination` (host/keys.ts). */
  apiKey(preset: Preset, destination: string): string | undefined;
}

/** The relay's refusals before the upgrade, written once. */
export const PUSH_RELAY_ERRORS = {
  badPreset: "the preset id in the path is not valid",
  noPushUrl: "no such preset, or it has no push URL",
  badPushUrl: (name: string) =>
    `${name}'s push URL is not a ws(s):// URL without #fragment: change it in settings`,
} as const;

/** The push URL as the relay dials it, or null when `ws` could not (a #fragment, another scheme, garbage). */
export function pushTarget(url: string): URL | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  const schemes = ["ws:", "wss:", "http:", "https:"];
  return schemes.includes(u.protocol) && !u.hash && !url.includes("#") ? u : null;
}

/** Creates the relay; `handleUpgrade` answers false when the URL is not a push route. */
export function createPushRelay(deps: PushRelayDeps) {
  const wss = new WebSocketServer({ noServer: true, maxPayload: PUSH_MAX_FRAME });
  const pairs = new Set<WebSocket>();
  return {
    handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, url: URL): boolean {
      const path = url.pathname;
      if (!path.startsWith(PUSH_PREFIX)) return false;
      const id = decodePart(path.slice(PUSH_PREFIX.length));
      if (id === null) {
        refuseUpgrade(socket, 400, PUSH_RELAY_ERRORS.badPreset);
        return true;
      }
      const preset = getPreset(deps.kv, id);
      const pushUrl = preset?.backend.push_url;
      if (!preset || !pushUrl) {
        refuseUpgrade(socket, 404, PUSH_RELAY_ERRORS.noPushUrl);
        return true;
      }
      // Checked before the upgrade: `new WebSocket` throws on such a URL, and used to end the host with it.
      const target = pushTarget(pushUrl);
      if (!target) {
        refuseUpgrade(socket, 502, PUSH_RELAY_ERRORS.badPushUrl(preset.name));
        return true;
      }
      wss.handleUpgrade(req, socket, head, (page) => {
        const key = deps.apiKey(preset, target.href);
        let upstream: WebSocket;
        try {
          upstream = new WebSocket(target, {
            headers: key ? { authorization: `Bearer ${key}` } : {},
            maxPayload: PUSH_MAX_FRAME,
            handshakeTimeout: 10_000,
          });
        } catch (e) {
          page.close(1011, closeReason(`push backend: ${(e as Error).message}`));
          return;
        }
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
          if (page.readyState === WebSocket.OPEN) page.close(sendable(code), closeReason(reason));
          if (upstream.readyState === WebSocket.OPEN) upstream.close(sendable(code), closeReason(reason));
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
