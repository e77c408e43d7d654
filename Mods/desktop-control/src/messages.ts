import { quoteInput } from "@yui/mod-kit";

// Every string the mod answers with or logs at setup, written once: the tools return these and the
// tests assert from this table, so a wording change is one edit here and in docs/mods/desktop-control.md.

/** The allowlist's environment variable, named in every refusal so the user knows what to change. */
export const ALLOWLIST_ENV = "DESKTOP_CONTROL_ALLOWED_APPS";

/** Tool results and errors. */
export const msg = {
  allowlistEmpty: () => `${ALLOWLIST_ENV} is empty or unset: no app can be opened or closed`,
  notAllowed: (name: string) => `'${quoteInput(name)}' is not in ${ALLOWLIST_ENV}`,
  badName: () => "name must be a non-empty app name of at most 256 characters without control characters",
  badDate: (date: string) => `date must be a calendar date written YYYY-MM-DD, got '${quoteInput(date)}'`,
  opened: (name: string) => `opened ${name}`,
  openedNoWindow: (name: string) => `launched ${name}, but no window of it appeared to focus`,
  notInstalled: (name: string) =>
    `'${quoteInput(name)}' is not installed: no desktop entry or command of that name`,
  closed: (name: string) => `closed ${name}`,
  notRunning: (name: string) => `${name} is not running`,
  stillRunning: (name: string) =>
    `asked ${name} to quit, but it is still running (it may be waiting for the user, e.g. to save)`,
  failed: (what: string, detail: string) => `${what} failed: ${detail}`,
  helperMissing: (program: string) =>
    `${program} is not installed; install it (see Mods/desktop-control/apt-packages.txt)`,
  noDisplay: () => "no X display: DISPLAY is unset",
  screenRecordingDenied: () =>
    "Screen Recording is not granted to the app that launched desktop-control (System Settings › Privacy & Security › Screen Recording)",
  automationDenied: (target: string) =>
    `Automation → ${target} is not granted to the app that launched desktop-control (System Settings › Privacy & Security › Automation)`,
} as const;

/** The startup preflight's lines (stderr). "NOT granted" / "NOT available" are what a user greps for. */
export const setup = {
  ok: (what: string) => `[setup] ${what}: ok`,
  notGranted: (what: string, tools: string) => `[setup] ${what}: NOT granted (${tools} will fail)`,
  notAvailable: (what: string, tools: string) => `[setup] ${what}: NOT available (${tools} will fail)`,
  allowlist: (names: string[]) =>
    names.length === 0
      ? `[setup] ${ALLOWLIST_ENV}: empty (open_app and close_app refuse every app)`
      : `[setup] ${ALLOWLIST_ENV}: ${names.join(", ")}`,
} as const;

/** A failure the agent should read as a tool error (isError result), never a crash. */
export class ToolError extends Error {}
