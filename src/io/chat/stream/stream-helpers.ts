/** Helpers shared by both request transports. */

/** At most this many round trips per turn; past it the turn closes with the text it has. */
export const MAX_TOOL_ROUND_TRIPS = 3;

const NO_SPACE_AFTER = /[\s。！？]$/u;
const LEADING_SPACE = /^\s/u;

/** The separator between the speech of two consecutive responses of one turn: one space, or none. */
export function speechSeparator(earlier: string, later: string): string {
  if (!earlier || !later) return "";
  if (NO_SPACE_AFTER.test(earlier) || LEADING_SPACE.test(later)) return "";
  return " ";
}

/** true for any tool name that plays an expression cue, whichever side registered it. */
export function isExpressName(name: string): boolean {
  return name.endsWith("generate_express");
}

/** Shortens a body for an error message. */
export function bodyStart(body: string, max = 300): string {
  const flat = body.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** The message of an unknown thrown value. */
export function errorMessage(e: unknown): string {
  if (e instanceof Error) return e.message;
  return String(e);
}

/** Joins a base URL and a path with exactly one slash. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
}
