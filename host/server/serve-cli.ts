/**
 * `yui` / `yui serve [--port N] [--no-open]`: starts the host, prints its URL and opens the browser build signed
 * in: through a one-time launch URL, which the host trades for the window's cookie (docs/app.md "Security model").
 */
import { spawn } from "node:child_process";
import { platform } from "node:os";
import { DEFAULT_PORT, PortInUseError, startHost } from "./server.ts";

/** The usage line of `yui serve`. */
export const SERVE_USAGE = "usage: yui [serve] [--port <0-65535>] [--no-open]";

/**
 * Parses the host's options, `--port N` (or `--port=N`) and the flags named in `flags`; throws with a
 * message for the user on a bad value or an unknown option. Shared by `yui serve` and `yui desktop`.
 */
export function parseHostArgs<F extends string>(
  argv: string[],
  flags: readonly F[] = [],
): { port: number; flags: Set<F> } {
  let port = DEFAULT_PORT;
  const seen = new Set<F>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if ((flags as readonly string[]).includes(a)) seen.add(a as F);
    else if (a === "--port" || a.startsWith("--port=")) {
      const raw = a === "--port" ? argv[++i] : a.slice("--port=".length);
      const n = Number(raw);
      if (raw === undefined || raw === "" || !Number.isInteger(n) || n < 0 || n > 65535) {
        throw new Error(`--port needs a number from 0 to 65535 (got ${raw ?? "nothing"})`);
      }
      port = n;
    } else throw new Error(`unknown option ${a}`);
  }
  return { port, flags: seen };
}

/** Parses serve's arguments; throws with a message for the user on a bad one. */
export function parseServeArgs(argv: string[]): { port: number; open: boolean } {
  const { port, flags } = parseHostArgs(argv, ["--no-open"]);
  return { port, open: !flags.has("--no-open") };
}

/** The line that hands the user a launch URL to open themselves. */
export const openYourself = (url: string) => `open YUI signed in (this address works once): ${url}\n`;

// The user's browser, through the platform's opener; the URL is our own, passed as one argv entry.
function openBrowser(url: string): void {
  const cmd = platform() === "darwin" ? "open" : platform() === "win32" ? "explorer" : "xdg-open";
  const failed = () => process.stdout.write(`(could not open a browser) ${openYourself(url)}`);
  try {
    const child = spawn(cmd, [url], { stdio: "ignore", detached: true });
    child.on("error", failed);
    child.unref();
  } catch {
    failed();
  }
}

/** Runs the host until SIGINT/SIGTERM; exit code 2 for bad arguments, 1 when it cannot listen. */
export async function main(argv: string[]): Promise<number> {
  let args: { port: number; open: boolean };
  try {
    args = parseServeArgs(argv);
  } catch (e) {
    process.stderr.write(`error: ${(e as Error).message}\n${SERVE_USAGE}\n`);
    return 2;
  }
  let host: Awaited<ReturnType<typeof startHost>>;
  try {
    // The browser build: no browser tool declared, so none mounted (only the desktop app's host runs it).
    host = await startHost({ port: args.port, browserCommands: false });
  } catch (e) {
    process.stderr.write(`error: ${e instanceof PortInUseError ? e.message : (e as Error).message}\n`);
    return 1;
  }
  process.stdout.write(`YUI is running at ${host.url}\ndata: ${host.dataDir}\n(press Ctrl+C to stop)\n`);
  if (args.open) openBrowser(host.launchUrl());
  else process.stdout.write(openYourself(host.launchUrl()));
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  await host.close();
  return 0;
}
