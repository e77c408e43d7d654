import { spawn } from "node:child_process";
import { OutputCollector } from "./result-text.ts";

/** How one CLI invocation ended. */
export type CliOutcome =
  | { started: false; reason: string }
  | {
      started: true;
      /** The exit code; null when a signal ended it. */
      code: number | null;
      signal: NodeJS.Signals | null;
      /** The backstop fired and the CLI was killed. */
      killed: boolean;
      /** When the backstop killed it (epoch ms). */
      killedAt?: number;
      stdout: OutputCollector;
      stderr: OutputCollector;
    };

/**
 * Runs the CLI once with an argv array (no shell), writes input to its stdin and closes it, and kills it with
 * SIGKILL at the backstop. Resolves when the CLI exits and its pipes close; a process it left holding them (ego
 * lite, a killed script) is waited for only until graceMs pass without data, and never beyond 10 x graceMs.
 */
export function runCli(opts: {
  path: string;
  args: readonly string[];
  input?: string;
  env: NodeJS.ProcessEnv;
  backstopMs: number;
  graceMs: number;
}): Promise<CliOutcome> {
  return new Promise((resolve) => {
    const child = spawn(opts.path, [...opts.args], { env: opts.env, stdio: ["pipe", "pipe", "pipe"] });
    const stdout = new OutputCollector();
    const stderr = new OutputCollector();
    let killed = false;
    let killedAt: number | undefined;
    let backstop: NodeJS.Timeout | undefined;

    let spawned = false;
    // Before "spawn", an error means the CLI could not be started (EACCES, a bad interpreter, ...).
    child.on("error", (err) => {
      if (!spawned) resolve({ started: false, reason: err.message });
    });
    child.once("spawn", () => {
      spawned = true;
      backstop = setTimeout(() => {
        killed = true;
        killedAt = Date.now();
        child.kill("SIGKILL");
      }, opts.backstopMs);
      // The CLI may exit before reading everything: a broken pipe is its business, not a host crash.
      child.stdin.on("error", () => undefined);
      child.stdin.end(opts.input ?? "");
    });
    child.stdout.on("data", (c: Buffer) => stdout.push(c));
    child.stderr.on("data", (c: Buffer) => stderr.push(c));
    child.stdout.on("error", () => undefined);
    child.stderr.on("error", () => undefined);

    child.once("exit", (code, signal) => {
      if (backstop) clearTimeout(backstop);
      // Wait for the pipes to close; a pipe still delivering bytes is draining, not held, so each chunk
      // restarts the grace period.
      let grace: NodeJS.Timeout | undefined;
      let finished = false;
      // A process that keeps writing into an inherited pipe must not hold the call forever either.
      const hardStop = setTimeout(() => done(), opts.graceMs * 10);
      const done = () => {
        if (finished) return;
        finished = true;
        clearTimeout(hardStop);
        if (grace) clearTimeout(grace);
        child.stdout.off("data", restart);
        child.stderr.off("data", restart);
        child.stdout.destroy();
        child.stderr.destroy();
        stdout.finish();
        stderr.finish();
        resolve({ started: true, code, signal, killed, killedAt, stdout, stderr });
      };
      const restart = () => {
        if (grace) clearTimeout(grace);
        grace = setTimeout(done, opts.graceMs);
      };
      child.stdout.on("data", restart);
      child.stderr.on("data", restart);
      child.once("close", done);
      restart();
    });
  });
}
