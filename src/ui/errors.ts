/**
 * Turns an engine error into plain words for the chat (a backend that is down, a refused key, ...). The
 * engine's own message stays available as the detail.
 */

/** The sentences the chat shows, written once (the e2e tests assert them from here). */
export const CHAT_ERRORS = {
  hostDown: "YUI's host is not reachable. Is `yui` still running? Start it again with `npm start`.",
  auth: (status: number) =>
    `The backend refused the request (HTTP ${status}). Check the API key in settings.`,
  notFound: "The backend has no such endpoint (HTTP 404). Check the base URL and the transport in settings.",
  model: (detail: string) => `The backend could not run the model: ${detail}`,
  http: (status: number, detail: string) =>
    `The backend answered with an error (HTTP ${status})${detail ? `: ${detail}` : "."}`,
  stalled: "The backend stopped sending in the middle of the reply. Try again.",
  other: (detail: string) => `Something went wrong talking to the backend: ${detail}`,
} as const;

function messageIn(body: string): string {
  try {
    const j = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    if (typeof j.error === "string") return j.error;
    if (j.error && typeof j.error.message === "string") return j.error.message;
    if (typeof j.message === "string") return j.message;
  } catch {
    /* not JSON: the text itself */
  }
  return body.trim();
}

/** The plain-words message for a turn's `error` string. */
export function plainError(error: string): string {
  const http = /^backend answered HTTP (\d+)[^:]*(?::\s*([\s\S]*))?$/.exec(error);
  if (http) {
    const status = Number(http[1]);
    const detail = messageIn(http[2] ?? "").replace(/…$/, "");
    // The host's proxy already speaks plainly for a backend that is down (502) or a preset without URL.
    if (status === 502 || status === 400) return detail || CHAT_ERRORS.http(status, "");
    if (status === 401 || status === 403) return CHAT_ERRORS.auth(status);
    if (status === 404) return CHAT_ERRORS.notFound;
    return CHAT_ERRORS.http(status, detail);
  }
  if (/^backend unreachable at /.test(error)) return CHAT_ERRORS.hostDown;
  if (/stalled|no byte|idle/i.test(error)) return CHAT_ERRORS.stalled;
  return CHAT_ERRORS.other(error.replace(/^backend error:\s*/, ""));
}
