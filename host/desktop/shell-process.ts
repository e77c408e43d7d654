/**
 * The host's end of the shell contract (shell/contract.ts): spawns a desktop shell as a child process and
 * exchanges JSON lines with it, stdin for host → shell, stdout for shell → host. stderr is the shell's log.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { type HostToShell, parseShellLine, type ShellToHost, shellLine } from "../../shell/contract.ts";
import { electronShellArgv } from "../../shell/electron/launch.ts";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** The Linux shell's program. */
export const GTK_SHELL = join(REPO, "shell", "gtk", "main.js");

/** The command that runs the Linux shell. */
export const GTK_SHELL_ARGV = ["gjs", "-m", GTK_SHELL];

/**
 * Which shell runs: `YUI_SHELL` (`gtk` or `electron`) when set, else Electron on macOS and Windows and the
 * GTK shell elsewhere. Electron's is bundled first (shell/electron/launch.ts); it throws when Electron's
 * binary cannot be had.
 */
export function shellArgv(
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
) {
  const which = env.YUI_SHELL || (platform === "darwin" || platform === "win32" ? "electron" : "gtk");
  return which === "electron" ? electronShellArgv() : GTK_SHELL_ARGV;
}

export type ReadyMessage = Extract<ShellToHost, { type: "ready" }>;

/** A running shell. */
export interface ShellProcess {
  readonly child: ChildProcess;
  /** The shell's first message, or a rejection saying why it did not start. */
  readonly ready: Promise<ReadyMessage>;
  /** Resolves with the exit code (null after a signal) when the shell ends. */
  readonly exited: Promise<number | null>;
  send(message: HostToShell): void;
  /** Calls `listener` for every contract message; returns the unsubscribe. */
  on(listener: (m: ShellToHost) => void): () => void;
  /** The next message that satisfies `test`, or a rejection after `ms`. */
  next<T extends ShellToHost>(test: (m: ShellToHost) => m is T, ms?: number): Promise<T>;
  next(test: (m: ShellToHost) => boolean, ms?: number): Promise<ShellToHost>;
  /** Asks the shell to quit, then kills it if it has not ended after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

export interface SpawnShellOptions {
  argv?: string[];
  env?: NodeJS.ProcessEnv;
  /** The shell's log lines (stderr, and stdout lines that are not contract messages). */
  log?: (line: string) => void;
  /** How long to wait for `ready` (default 30 s). */
  readyMs?: number;
}

/** What to tell the user when the shell's program is not there. */
export const SHELL_MISSING =
  "the desktop shell needs gjs and WebKitGTK 4.1: run `bash scripts/setup-system.sh` (Debian/Ubuntu: " +
  "apt-get install gjs gir1.2-webkit2-4.1 gir1.2-gtk-3.0), or start the browser build with `yui serve`";

/** Spawns the shell (default: shellArgv's); the Linux shell runs under X11, through XWayland on Wayland. */
export function spawnShell(opts: SpawnShellOptions = {}): ShellProcess {
  const env = { ...(opts.env ?? process.env) };
  const [file, ...args] = opts.argv ?? shellArgv(process.platform, env);
  // Electron run as plain Node would not be a shell.
  delete env.ELECTRON_RUN_AS_NODE;
  // Positioning, keep-above and input shapes are X11 features: on Wayland the shell runs through XWayland.
  if (env.WAYLAND_DISPLAY && !env.GDK_BACKEND) env.GDK_BACKEND = "x11";
  const log = opts.log ?? ((l: string) => process.stderr.write(`${l}\n`));
  const child = spawn(file!, args, { env, stdio: ["pipe", "pipe", "pipe"] });
  const listeners = new Set<(m: ShellToHost) => void>();
  const stderrTail: string[] = [];

  const exited = new Promise<number | null>((res) => {
    child.once("exit", (code) => res(code));
    child.once("error", () => res(127));
  });
  const ready = new Promise<ReadyMessage>((res, rej) => {
    const timer = setTimeout(
      () => rej(new Error(`the desktop shell did not start in time${tail()}`)),
      opts.readyMs ?? 30_000,
    );
    const off = onMessage((m) => {
      if (m.type === "ready") {
        clearTimeout(timer);
        off();
        res(m);
      }
    });
    child.once("error", (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      rej(new Error(e.code === "ENOENT" ? `${file} is not installed: ${SHELL_MISSING}` : e.message));
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      rej(new Error(`the desktop shell ended (exit code ${code}) before it was ready${tail()}`));
    });
  });
  ready.catch(() => {});
  const tail = () => (stderrTail.length ? `:\n${stderrTail.join("\n")}` : "");

  createInterface({ input: child.stdout! }).on("line", (line) => {
    const m = parseShellLine(line);
    if (!m) {
      if (line.trim()) log(line);
      return;
    }
    for (const l of [...listeners]) l(m);
  });
  createInterface({ input: child.stderr! }).on("line", (line) => {
    stderrTail.push(line);
    if (stderrTail.length > 20) stderrTail.shift();
    log(line);
  });
  // A shell that is gone does not take the host with it through EPIPE.
  child.stdin!.on("error", () => {});

  function onMessage(listener: (m: ShellToHost) => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  }

  return {
    child,
    ready,
    exited,
    send(message) {
      if (child.stdin!.writable) child.stdin!.write(shellLine(message));
    },
    on: onMessage,
    next(test: (m: ShellToHost) => boolean, ms = 30_000): Promise<ShellToHost> {
      return new Promise((res, rej) => {
        const timer = setTimeout(() => {
          off();
          rej(new Error("timed out waiting for a message from the shell"));
        }, ms);
        const off = onMessage((m) => {
          if (test(m)) {
            clearTimeout(timer);
            off();
            res(m);
          }
        });
      });
    },
    async stop(graceMs = 3000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      if (child.stdin!.writable) child.stdin!.end(shellLine({ type: "quit" }));
      const t = setTimeout(() => child.kill("SIGKILL"), graceMs);
      await exited;
      clearTimeout(t);
    },
  };
}
