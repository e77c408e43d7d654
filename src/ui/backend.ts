/**
 * A character's backend caller in the page, as its session (src/app/session) holds it: the request engine
 * pointed at the host's proxy (keys stay in the host), or the push client over the host's push relay. Both
 * answer `runTurn` like the turn sender wants; the session rebuilds it when the preset's settings change.
 */
import type { Preset } from "../app/presets/preset.ts";
import type { SessionBackend } from "../app/session/character-session.ts";
import { type Connect, createPushClient, type HelloInfo } from "../io/chat/push/client.ts";
import { createChatEngine, type TranscriptEntry } from "../io/chat/stream/engine.ts";
import { PROXY_PREFIX, PUSH_PREFIX, RELAY_PING, RELAY_PONG } from "../protocol/limits.ts";

/** The proxy base URL of a preset, as the engine's baseUrl. */
export function proxyBaseUrl(presetId: string, origin = location.origin): string {
  return `${origin}${PROXY_PREFIX}${encodeURIComponent(presetId)}/v1`;
}

/** A page WebSocket as the push client's socket; the host adds the bearer token. */
export const pageConnect: Connect = (url, _headers, h) => {
  const ws = new WebSocket(url);
  ws.onopen = () => h.onOpen();
  ws.onmessage = (e) => {
    const text = String(e.data);
    if (text === RELAY_PONG) h.onPong();
    else h.onMessage(text);
  };
  ws.onclose = (e) => h.onClose(e.code, e.reason);
  ws.onerror = () => h.onError(new Error("push connection failed"));
  return {
    send: (t) => ws.send(t),
    close: (code, reason) => ws.close(code ?? 1000, reason),
    ping: () => {
      if (ws.readyState === WebSocket.OPEN) ws.send(RELAY_PING);
    },
  };
};

export interface CharacterBackend extends SessionBackend {
  /** Chat Completions' transcript (restored from history); empty for the others. */
  setTranscript(entries: TranscriptEntry[]): void;
  close(): void;
}

/** Builds the caller for a preset's backend settings. */
export function createCharacterBackend(preset: Preset, hello: () => Promise<HelloInfo>): CharacterBackend {
  const b = preset.backend;
  if (b.transport === "push") {
    const wsOrigin = location.origin.replace(/^http/, "ws");
    const client = createPushClient({
      url: `${wsOrigin}${PUSH_PREFIX}${encodeURIComponent(preset.id)}`,
      connect: pageConnect,
      hello,
    });
    client.start();
    return {
      runTurn: (i) =>
        client.runTurn({
          text: i.text,
          context: i.context ?? "",
          turnId: i.turnId,
          origin: i.origin,
          signal: i.signal,
          onEvent: i.onEvent,
        }),
      // The tools hello declared: the turn sender describes these instead of building a list push never sends.
      declaredTools: () => client.declaredTools(),
      setTranscript() {},
      close: () => client.close(),
    };
  }
  const engine = createChatEngine({
    transport: b.transport,
    baseUrl: proxyBaseUrl(preset.id),
    model: b.model || undefined,
    instructions: preset.persona || undefined,
    brokerBaseUrl: b.broker_base_url,
    // The page's own fetch, bound: the engine calls it detached.
    fetch: (input, init) => fetch(input, init),
  });
  return {
    runTurn: (i) => engine.runTurn(i),
    setTranscript(entries) {
      engine.session.transcript = entries.map((e) => ({ ...e }));
    },
    close() {},
  };
}
