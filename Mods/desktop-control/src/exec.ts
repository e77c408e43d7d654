// Runs helper programs (xprop, wmctrl, osascript, ...) with an argv array, never through a shell:
// app names and window titles reach these programs as plain arguments.
import { execFile } from "node:child_process";
import { msg, ToolError } from "./messages.ts";

/** What a helper printed. */
export interface RunResult {
  stdout: string;
  stderr: string;
}

/** Options for one helper run. */
export interface RunOptions {
  timeoutMs?: number;
  env?: NodeJS.ProcessEnv;
}

/** Runs a program; the seam the platform layers take so macOS logic is testable on recorded output. */
export type Runner = (file: string, args: readonly string[], opts?: RunOptions) => Promise<RunResult>;

/** A helper that ran but failed (non-zero exit, signal or timeout), with what it printed. */
export class RunFailed extends Error {
  constructor(
    readonly file: string,
    readonly code: number | string | null,
    readonly stdout: string,
    readonly stderr: string,
  ) {
    super(`${file} exited with ${code}: ${stderr.trim() || stdout.trim()}`);
  }
}

/** The real Runner: execFile with a timeout (10 s unless told), UTF-8 output, no shell. */
export const runProgram: Runner = (file, args, opts = {}) =>
  new Promise((resolve, reject) => {
    execFile(
      file,
      [...args],
      {
        timeout: opts.timeoutMs ?? 10_000,
        env: opts.env ?? process.env,
        maxBuffer: 16 * 1024 * 1024,
        encoding: "utf8",
      },
      (err, stdout, stderr) => {
        if (!err) return resolve({ stdout, stderr });
        const code = (err as NodeJS.ErrnoException).code;
        if (code === "ENOENT") return reject(new ToolError(msg.helperMissing(file)));
        reject(new RunFailed(file, err.killed ? "timeout" : (code ?? err.signal ?? null), stdout, stderr));
      },
    );
  });
