// `run`: one shell command in the workspace, with capped output and a timeout that kills the whole
// process group (the shell and everything it started), returning what was printed up to then.
import { spawn } from "node:child_process";
import { constants } from "node:os";
import {
  COMMAND_MAX_BYTES,
  RUN_OUTPUT_CAP_BYTES,
  RUN_PIPE_GRACE_MS,
  RUN_TIMEOUT_EXIT_CODE,
} from "./limits.ts";
import { msg, ToolError } from "./messages.ts";
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
  /** The process groups this runner has running, so its server can kill them when it shuts down. */
  live?: Set<number>;
}

function killGroup(pid: number): void {
  try {
    // A negative pid signals the whole group: the shell was made its leader (detached).
    process.kill(-pid, "SIGKILL");
  } catch {
    // ESRCH: the group is already gone.
  }
}

/** Kills every command this runner still runs; call on shutdown so no command outlives the server. */
export function killAllRuns(runner: Runner): void {
  for (const pid of runner.live ?? []) killGroup(pid);
  runner.live?.clear();
}

/** Runs `command` through the runner's shell; resolves with its result, rejects only when no shell starts. */
export function runCommand(runner: Runner, command: string, timeoutMs: number): Promise<RunResult> {
  if (command.trim() === "") return Promise.reject(new ToolError(msg.commandEmpty()));
  // No argv element can carry a NUL; spawn would throw a TypeError the agent could not act on.
  if (command.includes("\0")) return Promise.reject(new ToolError(msg.commandNul()));
  // The kernel refuses a longer argument (E2BIG); say so and what to do instead of failing in spawn.
  const bytes = Buffer.byteLength(command);
  if (bytes >= COMMAND_MAX_BYTES)
    return Promise.reject(new ToolError(msg.commandTooLong(bytes, COMMAND_MAX_BYTES)));
  const [file, ...args] = runner.argv;
  if (file === undefined) return Promise.reject(new ToolError(msg.spawnFailed("no shell configured")));
  const cap = runner.capBytes ?? RUN_OUTPUT_CAP_BYTES;
  const out = new CappedBytes(cap);
  const err = new CappedBytes(cap);

  return new Promise((resolve, reject) => {
    // The command is one argv element handed to the shell: the shell is the point of `run`, and no
    // other shell sees it. detached makes the shell a process-group leader so the timeout reaches
    // its children too; stdin is closed so a command waiting for input ends instead of hanging.
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(file, [...args, command], {
        cwd: runner.cwd,
        env: runner.env,
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      });
    } catch (e) {
      // E2BIG here: the arguments and environment together pass the kernel's total (ARG_MAX).
      const code = (e as NodeJS.ErrnoException).code;
      reject(
        new ToolError(
          code === "E2BIG"
            ? msg.commandTooLong(bytes, COMMAND_MAX_BYTES)
            : msg.spawnFailed((e as Error).message),
        ),
      );
      return;
    }
    let timedOut = false;
    let settled = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let openPipes = 2;
    let grace: NodeJS.Timeout | undefined;

    const timer = setTimeout(() => {
      // The shell already exited and only a background job's pipes are awaited: not a timeout.
      if (exit !== undefined) return;
      timedOut = true;
      if (child.pid !== undefined) killGroup(child.pid);
    }, timeoutMs);

    const finish = () => {
      if (settled || exit === undefined) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(grace);
      if (child.pid !== undefined) runner.live?.delete(child.pid);
      // Stop reading pipes that a background child still holds; it keeps running (see the docs).
      child.stdout?.destroy();
      child.stderr?.destroy();
      const { code, signal } = exit;
      const exitCode = timedOut
        ? RUN_TIMEOUT_EXIT_CODE
        : code !== null
          ? code
          : 128 + (signal !== null ? (constants.signals[signal] ?? 0) : 0);
      resolve({
        exit_code: exitCode,
        stdout: out.text(),
        stderr: err.text(),
        truncated: out.truncated || err.truncated,
        timed_out: timedOut,
      });
    };

    child.stdout?.on("data", (c: Buffer) => out.push(c));
    child.stderr?.on("data", (c: Buffer) => err.push(c));
    for (const s of [child.stdout, child.stderr]) {
      s?.on("close", () => {
        openPipes--;
        if (openPipes === 0) finish();
      });
    }
    child.on("error", (e) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(new ToolError(msg.spawnFailed(e.message)));
    });
    child.on("exit", (code, signal) => {
      exit = { code, signal };
      if (openPipes === 0) finish();
      // A background job (`server &`) inherits the pipes; don't wait for it beyond a short grace.
      else grace = setTimeout(finish, RUN_PIPE_GRACE_MS);
    });
    if (child.pid !== undefined) runner.live?.add(child.pid);
  });
}
