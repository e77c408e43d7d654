/** Every exact answer of the ingress, written once (docs/signals-ingress.md "Signals"); tests assert from here. */
export const INGRESS_ERRORS = {
  missingField: (field: string) => `missing field ${field}`,
  invalidField: (field: string, why: string) => `invalid field ${field}: ${why}`,
  notJson: "body is not valid JSON",
  notObject: "body must be a JSON object",
  tooLarge: (limit: number) => `body too large (at most ${limit} bytes)`,
  contentType: "content-type must be application/json",
  tooManyHeld: "too many held signals, try again later",
  executorFailed: (message: string) => `the avatar executor failed: ${message}`,
  notFound: "not found",
  method: "method not allowed",
} as const;

/** The host event a handed-on signal becomes on the bridge (the windows' side defines it). */
export { SIGNAL_EVENT } from "../../src/app/turn/signal-turn.ts";

/** The default ingress port (the avatar mod's AVATAR_INGRESS_URL and factorio's signals_url point here). */
export const DEFAULT_INGRESS_PORT = 8770;

/** Largest request body the ingress reads. */
export const MAX_BODY_BYTES = 64 * 1024;
