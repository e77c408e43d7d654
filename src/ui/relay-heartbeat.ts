/**
 * The push relay's heartbeat for pages: a page cannot send WebSocket pings, so its push client's `ping` sends
 * RELAY_PING as a text frame; the host's relay answers RELAY_PONG while the backend's side is open and never
 * forwards either (host/server/push-relay.ts). The push client then counts the pong as liveness.
 */
export const RELAY_PING = '{"type":"yui.relay.ping"}';
export const RELAY_PONG = '{"type":"yui.relay.pong"}';
