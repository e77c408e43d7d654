// `run`: one shell command in the workspace, with capped output and a timeout. Nothing the command
// starts outlives it: when the shell exits or the timeout strikes, everything it started is killed —
// in bwrap the whole PID namespace (bwrap reports the shell's exit on its status pipe, then the
// sandbox is killed), without a sandbox its process group and every process carrying its marker
// variable (see killMarked). What was printed up to then is returned.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { constants } from "node:os";
import {
  COMMAND_MAX_BYTES,
  RUN_OUTPUT_CAP_BYTES,
  RUN_PIPE_GRACE_MS,
  RUN_TIMEOUT_EXIT_CODE,
} from "./limits.ts";
import { msg, ToolError } from "./messages.ts";
import type { NetworkStarter, SandboxNetwork } from "./network.ts";
import { CappedBytes } from "./utf8.ts";

/** What `run` answers, field names as the spec gives them. */
export interface RunResult {
  exit_code: number;
  stdout: string;
  stderr: string;
  truncated: boolean;
  timed_out: boolean;
}

/** How commands are started: the argv that precedes the command string, its directory and environment. */
export interface Runner {
  /** e.g. ["/bin/bash", "-c"], or a bwrap argv ending in the shell and "-c". */
  argv: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Bytes kept of stdout and, separately, of stderr. */
  capBytes?: number;
  /** How to end each command still running, so the server can end them all when it shuts down. */
  live?: Set<() => Promise<void>>;
  /**
   * Set when argv is a bwrap command line with `--json-status-fd 3` (and `--block-fd 0` when there
   * is a network to start): the sandbox's pid and the shell's exit status arrive on fd 3.
   */
  bwrap?: { network?: NetworkStarter };
  /** Frees what the runner holds (pasta's pid-file directory) once no command runs any more. */
  dispose?: () => void;
}

/**
 * The variable that marks every process a command starts without a sandbox: children inherit it,
 * including those that leave the process group (setsid, nohup … &), so they can be found and killed.
 */
export const RUN_MARKER = "SHELL_SANDBOX_RUN";

function killGroup(pid: number): void {
  try {
    // A negative pid signals the whole group: the shell (or bwrap) was made its leader (detached).
    process.kill(-pid, "SIGKILL");
  } catch {
    // ESRCH: the group is already gone.
  }
}

/**
 * Kills every process whose environment (as it was at its exec, /proc/PID/environ) carries the
 * marker, round after round until none is left (a process may fork while it is being killed).
 * Not found: a process that exec'd with an environment without the marker (env -i, a daemon that
 * cleans its environment), one of another user, and anything on a system without /proc.
 */
export async function killMarked(marker: string): Promise<void> {
  const needle = Buffer.from(`${RUN_MARKER}=${marker}\0`);
  for (let round = 0; round < 20; round++) {
    let names: string[];
    try {
      names = await readdir("/proc");
    } catch {
      return;
    }
    const found: number[] = [];
    await Promise.all(
      names
        .filter((n) => /^\d+$/.test(n) && Number(n) !== process.pid)
        .map(async (n) => {
          try {
            if ((await readFile(`/proc/${n}/environ`)).includes(needle)) found.push(Number(n));
          } catch {
            // Gone, or not ours to read.
          }
        }),
    );
    if (found.length === 0) return;
    for (const pid of found) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
  }
}

/** Ends every command this runner still runs; call on shutdown so no command outlives the server. */
export async function killAllRuns(runner: Runner): Promise<void> {
  const ends = [...(runner.live ?? [])];
  runner.live?.clear();
  await Promise.all(ends.map((end) => end()));
}

/** Reads bwrap's --json-status-fd stream: one JSON object per line. */
function onStatus(
  stream: NodeJS.ReadableStream | null | undefined,
  each: (o: Record<string, unknown>) => void,
) {
  let buffered = "";
  stream?.on("data", (c: Buffer) => {
    buffered += c.toString("utf8");
    for (let nl = buffered.indexOf("\n"); nl !== -1; nl = buffered.indexOf("\n")) {
      const line = buffered.slice(0, nl).trim();
      buffered = buffered.slice(nl + 1);
      if (line === "") continue;
      try {
        each(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // Not a status line: ignore it.
      }
    }
  });
}

/**
 * bwrap sometimes fails to set up the new network namespace's loopback (`bwrap: loopback: Failed
 * RTM_NEWADDR`, a netlink reply it does not recognise), seen a few times per hundred sandboxes on
 * the development machine. That happens before the shell starts, so the command is simply started
 * again, up to this many times in all.
 */
const SANDBOX_SETUP_TRIES = 4;
const SETUP_FAILURE = /^bwrap: loopback: /;

/** Runs `command` through the runner's shell; resolves with its result, rejects only when no shell starts. */
export async function runCommand(runner: Runner, command: string, timeoutMs: number): Promise<RunResult> {
  for (let attempt = 1; ; attempt++) {
    const { result, setupFailed } = await runOnce(runner, command, timeoutMs);
    if (!setupFailed || attempt >= SANDBOX_SETUP_TRIES) return result;
  }
}

/** The command's length in bytes; throws the ToolError `run` answers for a command no shell can take. */
function commandBytes(command: string): number {
  if (command.trim() === "") throw new ToolError(msg.commandEmpty());
  // No argv element can carry a NUL; spawn would throw a TypeError the agent could not act on.
  if (command.includes("\0")) throw new ToolError(msg.commandNul());
  // The kernel refuses a longer argument (E2BIG); say so and what to do instead of failing in spawn.
  const bytes = Buffer.byteLength(command);
  if (bytes >= COMMAND_MAX_BYTES) throw new ToolError(msg.commandTooLong(bytes, COMMAND_MAX_BYTES));
  return bytes;
}

/**
 * Starts the runner's shell with the command; throws a ToolError when it cannot start.
 * The command is one argv element handed to the shell: the shell is the point of `run`, and no
 * other shell sees it. detached makes the shell (or bwrap) a process-group leader so a kill
 * reaches its children too. stdin is empty: closed, or in bwrap with a network bwrap's
 * --block-fd, released (one byte, then EOF) once the network is up.
 */
function spawnShell(runner: Runner, command: string, env: NodeJS.ProcessEnv): ChildProcess {
  const [file, ...args] = runner.argv;
  if (file === undefined) throw new ToolError(msg.spawnFailed("no shell configured"));
  const sandbox = runner.bwrap;
  try {
    return spawn(file, [...args, command], {
      cwd: runner.cwd,
      env,
      stdio: [sandbox?.network ? "pipe" : "ignore", "pipe", "pipe", ...(sandbox ? (["pipe"] as const) : [])],
      detached: true,
    });
  } catch (e) {
    // E2BIG here: the arguments and environment together pass the kernel's total (ARG_MAX).
    const code = (e as NodeJS.ErrnoException).code;
    throw new ToolError(
      code === "E2BIG"
        ? msg.commandTooLong(Buffer.byteLength(command), COMMAND_MAX_BYTES)
        : msg.spawnFailed((e as Error).message),
    );
  }
}

function runOnce(
  runner: Runner,
  command: string,
  timeoutMs: number,
): Promise<{ result: RunResult; setupFailed: boolean }> {
  try {
    commandBytes(command);
  } catch (e) {
    return Promise.reject(e);
  }
  const cap = runner.capBytes ?? RUN_OUTPUT_CAP_BYTES;
  const out = new CappedBytes(cap);
  const err = new CappedBytes(cap);
  const sandbox = runner.bwrap;
  // Without a sandbox, the marker is how the command's processes are found once it ends.
  const marker = sandbox ? undefined : randomBytes(12).toString("hex");
  const env = marker ? { ...runner.env, [RUN_MARKER]: marker } : runner.env;

  return new Promise((resolve, reject) => {
    let child: ChildProcess;
    try {
      child = spawnShell(runner, command, env);
    } catch (e) {
      reject(e);
      return;
    }
    let timedOut = false;
    let settled = false;
    /** The shell's own exit status, as bwrap's status pipe reports it (bwrap mode). */
    let shellExit: number | undefined;
    /** How the spawned process (the shell, or bwrap) ended. */
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let openPipes = 2;
    let grace: NodeJS.Timeout | undefined;
    let network: SandboxNetwork | undefined;
    let starting: Promise<void> | undefined;
    let failure: ToolError | undefined;
    let ending: Promise<void> | undefined;

    /** Kills everything the command started (once); run answers only after this. */
    const endAll = (): Promise<void> => {
      ending ??= (async () => {
        if (child.pid !== undefined) killGroup(child.pid);
        // A network still starting is stopped once it is up, before run (or the server) ends.
        await starting?.catch(() => {});
        network?.stop();
        if (marker) await killMarked(marker);
      })();
      return ending;
    };
    runner.live?.add(endAll);

    const timer = setTimeout(() => {
      // The shell already exited and only the cleanup is awaited: not a timeout.
      if (exit !== undefined || shellExit !== undefined) return;
      timedOut = true;
      void endAll();
    }, timeoutMs);

    const finish = async () => {
      if (settled || exit === undefined) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(grace);
      await endAll();
      runner.live?.delete(endAll);
      // Stop reading pipes that a process which escaped the cleanup may still hold (see the docs).
      child.stdout?.destroy();
      child.stderr?.destroy();
      child.stdio[3]?.destroy();
      if (failure) {
        reject(failure);
        return;
      }
      const { code, signal } = exit;
      const exitCode = timedOut
        ? RUN_TIMEOUT_EXIT_CODE
        : (shellExit ??
          (code !== null ? code : 128 + (signal !== null ? (constants.signals[signal] ?? 0) : 0)));
      const stderr = err.text();
      resolve({
        result: {
          exit_code: exitCode,
          stdout: out.text(),
          stderr,
          truncated: out.truncated || err.truncated,
          timed_out: timedOut,
        },
        // bwrap failed before the shell started (no exit status from the sandbox): safe to start again.
        setupFailed:
          sandbox !== undefined && shellExit === undefined && !timedOut && SETUP_FAILURE.test(stderr),
      });
    };

    if (sandbox) {
      onStatus(child.stdio[3] as NodeJS.ReadableStream | null, (status) => {
        const pid = status["child-pid"];
        if (typeof pid === "number" && sandbox.network && !starting && !failure) {
          starting = sandbox.network(pid).then(
            (started) => {
              network = started;
              // Ending meanwhile (timeout, shutdown): endAll stops it; the shell must not start.
              if (!ending) child.stdin?.end("x");
            },
            (e: Error) => {
              // Ending meanwhile, the namespace may be gone before pasta got to it: not a failure.
              if (!ending) failure = new ToolError(msg.networkFailed(e.message));
              void endAll();
            },
          );
        }
        const code = status["exit-code"];
        if (typeof code === "number") {
          // The shell is done: end the sandbox, and with its PID namespace everything still in it.
          shellExit = code;
          void endAll();
        }
      });
      child.stdin?.on("error", () => {});
    }

    child.stdout?.on("data", (c: Buffer) => out.push(c));
    child.stderr?.on("data", (c: Buffer) => err.push(c));
    for (const s of [child.stdout, child.stderr]) {
      s?.on("close", () => {
        openPipes--;
        if (openPipes === 0) void finish();
      });
    }
    child.on("error", (e) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      runner.live?.delete(endAll);
      reject(new ToolError(msg.spawnFailed(e.message)));
    });
    child.on("exit", (code, signal) => {
      exit = { code, signal };
      // Without a sandbox, the shell's exit ends everything it started.
      void endAll();
      if (openPipes === 0) void finish();
      // A process that escaped the cleanup may hold the pipes; don't wait for it beyond a short grace.
      else grace = setTimeout(() => void finish(), RUN_PIPE_GRACE_MS);
    });
  });
}
