// The one start-up path of every mod's command line: --port, start, the listening line, stop on a
// signal, and a start failure as one line on stderr with exit status 1 (never a stack trace).
import { portFromArgs } from "./cli.ts";
import { quoteInput } from "./quote.ts";

/** What a mod's start function answers: where it serves MCP and how to stop it. */
export interface Launched {
  url: string;
  close(): Promise<void>;
}

/** Options for launchMod. */
export interface LaunchOptions<T extends Launched> {
  /** The mod's name, as the listening line and a start failure show it. */
  name: string;
  /** The catalog port, used unless argv has --port N. */
  defaultPort: number;
  /** Where --port is read from; default process.argv.slice(2). */
  argv?: string[];
  /** Starts the mod on 127.0.0.1:port (0 picks a free one). A rejection ends the process (below). */
  start(port: number): Promise<T>;
  /** Added to the listening line in parentheses, e.g. where the mod writes its log. */
  detail?(started: T): string;
}

/** The lines launchMod writes, written once so tests assert the same strings. */
export const LAUNCH_MESSAGES = {
  /** stdout, once the mod listens. */
  listening: (name: string, url: string, detail?: string) =>
    `[${name}] MCP on ${url}${detail ? ` (${detail})` : ""}`,
  /** stderr, exit 1: the port is taken. */
  portInUse: (port: number) =>
    `error: port ${port} on 127.0.0.1 is already in use; choose another with --port N`,
  /** stderr, exit 1: any other start failure, its message on one line. */
  cannotStart: (name: string, why: string) => `error: ${name} cannot start: ${why}`,
} as const;

/** How long a stop waits for the mod to close before exiting anyway (a client may hold a stream open). */
export const STOP_GRACE_MS = 3000;

/** The one stderr line for a start failure: EADDRINUSE names the port, anything else its message. */
export function startFailureLine(name: string, port: number, err: unknown): string {
  if ((err as NodeJS.ErrnoException)?.code === "EADDRINUSE") return LAUNCH_MESSAGES.portInUse(port);
  const message = err instanceof Error ? err.message : String(err);
  // One line: a message with newlines (or a huge one) must not turn into several or into a flood.
  return LAUNCH_MESSAGES.cannotStart(name, quoteInput(message.replace(/\s*[\r\n]+\s*/g, " ").trim(), 500));
}

/**
 * A mod's command line: reads --port, starts the mod, writes `[name] MCP on <url>` to stdout, and on
 * SIGINT/SIGTERM closes it and exits 0 (after STOP_GRACE_MS at the latest). When the start fails it
 * writes one line to stderr (`error: port N on 127.0.0.1 is already in use; ...` for a taken port) and
 * exits 1; a bad --port exits 2 (portFromArgs).
 */
export async function launchMod<T extends Launched>(opts: LaunchOptions<T>): Promise<T> {
  const port = portFromArgs(opts.argv ?? process.argv.slice(2), opts.defaultPort);
  let started: T;
  try {
    started = await opts.start(port);
  } catch (err) {
    process.stderr.write(`${startFailureLine(opts.name, port, err)}\n`);
    process.exit(1);
  }
  const stop = () => {
    setTimeout(() => process.exit(0), STOP_GRACE_MS).unref();
    started.close().then(
      () => process.exit(0),
      () => process.exit(0),
    );
  };
  // once: a second signal while closing takes the default action and ends the process at once. Installed
  // before the listening line, so a supervisor that stops the mod as soon as it reads the line gets a clean stop.
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  process.stdout.write(`${LAUNCH_MESSAGES.listening(opts.name, started.url, opts.detail?.(started))}\n`);
  return started;
}
