/** Routes, limits and fixed strings the host and its pages both keep to (docs/app.md). */

/** The bridge's route (one WebSocket per window). */
export const BRIDGE_PATH = "/bridge";
/** Largest frame a window may send the bridge (a vocabulary or a preset fits easily). */
export const BRIDGE_MAX_FRAME = 4 * 1024 * 1024;
/**
 * The most a window may leave unread: when the host's unsent data to one window passes this (a window that does
 * not read while events keep coming), the host drops that window rather than hold the data for it.
 */
export const BRIDGE_MAX_BUFFERED = 32 * 1024 * 1024;
/** The window's reconnect backoff after the host went away: first delay, doubling up to the last. */
export const BRIDGE_RECONNECT_MS = { first: 250, max: 5000 } as const;

/**
 * `GET` answers 204 to a signed-in window and 401 to one the host's door does not know (opened without the
 * launch address, or before the host restarted): the page tells the user which, where the bridge cannot.
 */
export const SESSION_PATH = "/api/session";

/** The newest conversation entries kept per preset (`yui.<presetId>.history`); older ones drop off the front. */
export const HISTORY_MAX = 200;

/** The backend proxy's route prefix: `/api/backend/<presetId>/v1/<path>`. */
export const PROXY_PREFIX = "/api/backend/";

/** The push relay's route prefix: `/api/push/<presetId>`. */
export const PUSH_PREFIX = "/api/push/";
/** Largest frame the push relay passes either way. */
export const PUSH_MAX_FRAME = 16 * 1024 * 1024;
/**
 * The push relay's heartbeat for pages: a page cannot send WebSocket pings, so its push client's `ping` sends
 * RELAY_PING as a text frame; the host's relay answers RELAY_PONG while the backend's side is open and never
 * forwards either (host/server/push-relay.ts). The push client then counts the pong as liveness.
 */
export const RELAY_PING = '{"type":"yui.relay.ping"}';
export const RELAY_PONG = '{"type":"yui.relay.pong"}';
