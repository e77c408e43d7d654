import { quoteInput } from "@yui/mod-kit";

/** The avatar mod's exact words, written once (docs/mods/avatar.md); tests assert from here. */

/** The client's reason words a gesture that did not happen carries (the spec's avatar section). */
export const REASONS = ["not_found", "blocked", "interrupted", "busy", "unsupported", "timeout"] as const;

/** The ingress's default address, and the variable that moves it. */
export const DEFAULT_INGRESS_URL = "http://127.0.0.1:8770";
export const INGRESS_URL_ENV = "AVATAR_INGRESS_URL";

/** Deadlines for one ingress call: a little over the ingress's own (60 s gesture, 10 s read). */
export const GESTURE_DEADLINE_MS = 75_000;
export const READ_DEADLINE_MS = 20_000;

export const MESSAGES = {
  /** Nothing listens at the ingress address. */
  ingressDown: (url: string) =>
    `the YUI app's ingress does not answer at ${quoteInput(url)}: run the app with agent-notify on ` +
    `(yui store set yui.agent_notify '{"enabled":true}'), or set ${INGRESS_URL_ENV} to its address if its port was changed`,
  /** The ingress answered with an HTTP error. */
  ingressRefused: (status: number, error: string) =>
    `the YUI app's ingress answered ${status}: ${quoteInput(error)}`,
  /** The ingress took longer than the deadline. */
  ingressSlow: (url: string, ms: number) =>
    `the YUI app's ingress at ${quoteInput(url)} did not answer within ${ms / 1000} s`,
  /** The ingress answered something that is not its JSON. */
  ingressGarbled: (url: string) =>
    `the service at ${quoteInput(url)} is not the YUI app's ingress (its answer is not the ingress's JSON)`,
  /** AVATAR_INGRESS_URL is not an address the ingress can have: it says exactly what ingressUrlFrom accepts. */
  badUrl: (value: string) =>
    `${INGRESS_URL_ENV} must be an http:// URL to 127.0.0.1 or localhost (where the app's ingress listens), ` +
    `with an optional port and path and no user, query or fragment, such as ${DEFAULT_INGRESS_URL}; ` +
    `got '${quoteInput(value)}'`,
} as const;
