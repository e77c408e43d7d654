// The safety boundary of open_app / close_app. Names are compared whole, after Unicode NFC
// normalisation and case folding ("Firefox" = "firefox"), never as prefixes, patterns or paths;
// an empty or unset list refuses everything.
import { ALLOWLIST_ENV, msg, ToolError } from "./messages.ts";

/** The parsed allowlist: the operator's spellings, in order. */
export type Allowlist = readonly string[];

const fold = (s: string): string => s.normalize("NFC").toLowerCase();

// C0/C1 control characters: no app name has one, and they could smuggle a newline into a log line.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Parses DESKTOP_CONTROL_ALLOWED_APPS: comma-separated names, surrounding spaces trimmed, empties dropped. */
export function parseAllowlist(raw: string | undefined): Allowlist {
  if (!raw) return [];
  return raw
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "" && !CONTROL.test(s));
}

/** Reads the allowlist from the environment. */
export function allowlistFromEnv(env: NodeJS.ProcessEnv = process.env): Allowlist {
  return parseAllowlist(env[ALLOWLIST_ENV]);
}

/** Checks a requested name is well-formed (the tool's input validation). Throws ToolError otherwise. */
export function checkName(name: string): string {
  const n = name.trim();
  if (n === "" || n.length > 256 || CONTROL.test(n)) throw new ToolError(msg.badName());
  return n;
}

/** Returns the allowlisted spelling of `name`, or throws the refusal that names the variable. */
export function authorize(list: Allowlist, name: string): string {
  const n = checkName(name);
  if (list.length === 0) throw new ToolError(msg.allowlistEmpty());
  const hit = list.find((entry) => fold(entry) === fold(n));
  if (hit === undefined) throw new ToolError(msg.notAllowed(n));
  return hit;
}

/** true when two app names are the same under the allowlist's rules (NFC, case-insensitive). */
export function sameApp(a: string, b: string): boolean {
  return fold(a) === fold(b);
}
