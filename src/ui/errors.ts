/**
 * Turns a failed turn into plain words for the chat (a backend that is down, a refused key, ...). The
 * engine's own message stays available as the detail.
 */
import type { TurnError } from "../io/chat/stream/types.ts";

/** The sentences the chat shows, written once (the e2e tests assert them from here). */
export const CHAT_ERRORS = {
  hostDown: "YUI's host is not reachable. Is `yui` still running? Start it again with `npm start`.",
  auth: (status: number) =>
    `The backend refused the request (HTTP ${status}). Check the API key in settings.`,
  notFound: "The backend has no such endpoint (HTTP 404). Check the base URL and the transport in settings.",
  http: (status: number, detail: string) =>
    `The backend answered with an error (HTTP ${status})${detail ? `: ${detail}` : "."}`,
  stalled: "The backend stopped sending in the middle of the reply. Try again.",
  other: (detail: string) => `Something went wrong talking to the backend: ${detail}`,
} as const;

/** The note under a reply the backend cut off (`TurnEnd.incomplete`), by the reason it gave, written once. */
export const CUT_OFF = {
  max_output_tokens: "Cut off: the reply reached the backend's output limit (max_output_tokens).",
  content_filter: "Cut off by the backend's content filter (content_filter).",
  length: "Cut off: the reply reached the backend's output limit (finish_reason length).",
  other: (reason: string) => `Cut off by the backend (${reason}).`,
} as const;

/** The plain-words note for a reply cut off for `reason` (`incomplete_details.reason`). */
export function cutOffNote(reason: string): string {
  if (reason === "max_output_tokens" || reason === "content_filter" || reason === "length")
    return CUT_OFF[reason];
  return CUT_OFF.other(reason);
}

/**
 * The plain-words message for a failed turn, from its typed error (TurnError): the kind, the status and what
 * the backend said, never the engine's message text.
 */
export function plainError(failure: TurnError): string {
  switch (failure.kind) {
    case "http": {
      const status = failure.status ?? 0;
      const detail = failure.detail ?? "";
      // The host's proxy already speaks plainly for a backend that is down (502) or a preset without URL (400).
      if (status === 502 || status === 400) return detail || CHAT_ERRORS.http(status, "");
      if (status === 401 || status === 403) return CHAT_ERRORS.auth(status);
      if (status === 404) return CHAT_ERRORS.notFound;
      return CHAT_ERRORS.http(status, detail);
    }
    // The page reaches every backend through its own host: a request that never arrived means the host is gone.
    case "unreachable":
      return CHAT_ERRORS.hostDown;
    case "stalled":
      return CHAT_ERRORS.stalled;
    default:
      return CHAT_ERRORS.other(failure.detail ?? failure.message);
  }
}

/** What a window the host's door does not know shows (opened without its launch address, or before a restart). */
export const SIGNED_OUT =
  "This window is not signed in to YUI. Open YUI again from the address it printed when it started " +
  "(npm start opens it for you); after YUI restarts, its windows open anew from there.";
